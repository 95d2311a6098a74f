"""Two-player betting games with private hands, and how far a strategy is from an equilibrium.

A betting game here is what the envido and the flor are once the cards are dealt: each player holds a private
hand (its points), the bets are public, and a bet ends declined (a fixed payment) or accepted (the better hand
takes the stake). The tree of bets is public, so a strategy is, at each decision, a probability for each action
per hand of the player who acts; values are computed for every hand at once (vectors over hands), as in
counterfactual regret minimisation (Zinkevich et al. 2007).

Exploitability is what OpenSpiel calls it: the mean over the two seats of what a best response gains over the
profile's value (NashConv / 2). A player who sits as mano half the hands and as pie the other half gains exactly
this per hand by best-responding, so it is in points per hand.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

Vector = list[float]
"""A value per hand of one player."""
Strategy = Mapping[str, Sequence[Sequence[float]]]
"""Per decision key, per action, the probability per hand of the player who acts (``strategy[key][a][i]``)."""


@dataclass(frozen=True, slots=True)
class Terminal:
    """The end of the bets, in the first player's (the mano's) points: ``fold`` when the hands do not matter
    (a bet declined, or no bet), else the better hand takes ``win`` from the first player or ``lose`` to it."""

    fold: float | None
    win: float = 0.0
    lose: float = 0.0


@dataclass(frozen=True, slots=True)
class Decision:
    """A public point of the tree where ``actor`` (0 the first player, 1 the second) picks one of ``actions``."""

    key: str
    actor: int
    actions: tuple[str, ...]
    children: tuple[Decision | Terminal, ...]


Node = Decision | Terminal


class Hands(Protocol):
    """The private hands of a game: how many each player may hold, and the values of an end for one player's
    hands given how likely the other's hands are to have got there (chance's probabilities included)."""

    sizes: tuple[int, int]

    def terminal(self, end: Terminal, player: int, reach: Sequence[float]) -> Vector:
        """The value of ``end`` to each hand of ``player``, weighted by chance and the other player's ``reach``."""
        ...


class IndependentHands:
    """Hands dealt independently (each player's from its own distribution), ranked by a number per hand; the
    higher rank wins a showdown, the first player winning ties (the mano's privilege in the envido and flor).

    :param ranks: per player, the ranks of its hands in increasing order.
    :param probs: per player, each hand's probability.
    """

    def __init__(self, ranks: Sequence[Sequence[int]], probs: Sequence[Sequence[float]]) -> None:
        self.sizes = (len(ranks[0]), len(ranks[1]))
        self.probs = (list(probs[0]), list(probs[1]))
        # How many of the rival's hands each hand beats: the first player also beats its equals.
        self.beaten = (
            [bisect_right(ranks[1], rank) for rank in ranks[0]],
            [bisect_left(ranks[0], rank) for rank in ranks[1]],
        )

    def terminal(self, end: Terminal, player: int, reach: Sequence[float]) -> Vector:
        other = self.probs[1 - player]
        weights = [p * r for p, r in zip(other, reach, strict=True)]
        own = self.probs[player]
        sign = 1.0 if player == 0 else -1.0
        if end.fold is not None:
            total = sum(weights)
            return [p * total * end.fold * sign for p in own]
        prefix = [0.0]
        for weight in weights:
            prefix.append(prefix[-1] + weight)
        total = prefix[-1]
        gain, loss = (end.win, end.lose) if player == 0 else (end.lose, end.win)
        return [
            p * (gain * prefix[beaten] - loss * (total - prefix[beaten]))
            for p, beaten in zip(own, self.beaten[player], strict=True)
        ]


class JointHands:
    """Hands dealt together (``joint[i][j]``: the first player holds i and the second j), the showdown won by
    the first player when ``beats[i][j]`` (a small game's exact deal: a test's toy poker)."""

    def __init__(self, joint: Sequence[Sequence[float]], beats: Sequence[Sequence[bool]]) -> None:
        self.sizes = (len(joint), len(joint[0]))
        self.joint = [list(row) for row in joint]
        self.beats = [list(row) for row in beats]

    def terminal(self, end: Terminal, player: int, reach: Sequence[float]) -> Vector:
        n0, n1 = self.sizes
        values: Vector = []
        for own in range(self.sizes[player]):
            value = 0.0
            for other in range(n1 if player == 0 else n0):
                i, j = (own, other) if player == 0 else (other, own)
                mano = end.fold if end.fold is not None else (end.win if self.beats[i][j] else -end.lose)
                value += self.joint[i][j] * reach[other] * (mano if player == 0 else -mano)
            values.append(value)
        return values


def _scaled(reach: Sequence[float], probs: Sequence[float]) -> Vector:
    return [r * p for r, p in zip(reach, probs, strict=True)]


def best_response(node: Node, hands: Hands, strategy: Strategy, player: int, reach: Sequence[float]) -> Vector:
    """The value to each hand of ``player`` of its best response to ``strategy`` (the other's), from ``node``."""
    if isinstance(node, Terminal):
        return hands.terminal(node, player, reach)
    if node.actor == player:
        children = [best_response(child, hands, strategy, player, reach) for child in node.children]
        return [max(values) for values in zip(*children, strict=True)]
    policy = strategy[node.key]
    total = [0.0] * hands.sizes[player]
    for action, child in enumerate(node.children):
        values = best_response(child, hands, strategy, player, _scaled(reach, policy[action]))
        total = [t + v for t, v in zip(total, values, strict=True)]
    return total


def expected(node: Node, hands: Hands, strategy: Strategy, player: int, reach: Sequence[float]) -> Vector:
    """The value to each hand of ``player`` when both play ``strategy``, from ``node``."""
    if isinstance(node, Terminal):
        return hands.terminal(node, player, reach)
    policy = strategy[node.key]
    total = [0.0] * hands.sizes[player]
    for action, child in enumerate(node.children):
        if node.actor == player:
            values = _scaled(expected(child, hands, strategy, player, reach), policy[action])
        else:
            values = expected(child, hands, strategy, player, _scaled(reach, policy[action]))
        total = [t + v for t, v in zip(total, values, strict=True)]
    return total


@dataclass(frozen=True, slots=True)
class Exploitability:
    """How far a profile is from an equilibrium, in the game's units (points) per hand.

    :ivar value: the first player's value when both follow the profile.
    :ivar best_responses: what each player gets by best-responding to the other's strategy.
    """

    value: float
    best_responses: tuple[float, float]

    @property
    def nash_conv(self) -> float:
        """The sum of the two players' gains from best-responding."""
        return self.best_responses[0] + self.best_responses[1]  # the values cancel: zero-sum

    @property
    def exploitability(self) -> float:
        """The mean gain of a best response over the two seats (NashConv / 2)."""
        return self.nash_conv / 2


def exploitability(root: Node, hands: Hands, strategy: Strategy) -> Exploitability:
    """The value of ``strategy`` (both players following it) and what each player's best response gets."""
    ones = [[1.0] * size for size in hands.sizes]
    value = sum(expected(root, hands, strategy, 0, ones[1]))
    responses = (
        sum(best_response(root, hands, strategy, 0, ones[1])),
        sum(best_response(root, hands, strategy, 1, ones[0])),
    )
    return Exploitability(value, responses)


def decisions(root: Node) -> list[Decision]:
    """Every decision of the tree, parents before children."""
    found: list[Decision] = []
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, Decision):
            found.append(node)
            stack.extend(reversed(node.children))
    return found
