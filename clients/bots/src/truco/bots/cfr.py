"""CFR+: an equilibrium of a two-player betting game (:mod:`truco.bots.betting`) by regret minimisation.

Counterfactual regret minimisation (Zinkevich, Johanson, Bowling & Piccione 2007) plays the game against itself:
at each decision and for each hand it keeps how much better each action would have done than its strategy
(the regret), and plays next in proportion to the positive regrets. The average strategy converges to an
equilibrium. CFR+ (Tammelin 2014; Bowling et al. 2015, which solved heads-up limit hold'em with it) floors the
regrets at zero, updates the players alternately and weights iteration t by t in the average: it converges much
faster. Every hand is updated at once (vectors over hands), which is what makes a pure-Python solver fast enough
for the envido's few thousand information sets. Deterministic: the same game and iterations, the same strategy.
"""

from __future__ import annotations

from collections.abc import Sequence

from .betting import Decision, Hands, Node, Terminal, Vector, decisions


class Solver:
    """CFR+ over one game: call :meth:`iterate`, then read :meth:`average`."""

    def __init__(self, root: Node, hands: Hands) -> None:
        self.root = root
        self.hands = hands
        self.iterations = 0
        self.regrets: dict[str, list[Vector]] = {}
        self.totals: dict[str, list[Vector]] = {}
        for node in decisions(root):
            size = hands.sizes[node.actor]
            self.regrets[node.key] = [[0.0] * size for _ in node.actions]
            self.totals[node.key] = [[0.0] * size for _ in node.actions]

    def iterate(self, count: int = 1) -> None:
        """Run ``count`` iterations, each updating the first player and then the second."""
        for _ in range(count):
            self.iterations += 1
            for player in (0, 1):
                own = [1.0] * self.hands.sizes[player]
                other = [1.0] * self.hands.sizes[1 - player]
                self._walk(self.root, player, own, other)

    def current(self, key: str) -> list[Vector]:
        """The strategy at ``key`` by regret matching: each action in proportion to its positive regret
        (uniform where no action has any)."""
        regrets = self.regrets[key]
        actions = len(regrets)
        totals = [sum(column) for column in zip(*regrets, strict=True)]
        return [
            [r / t if t > 0.0 else 1.0 / actions for r, t in zip(regret, totals, strict=True)] for regret in regrets
        ]

    def average(self) -> dict[str, list[Vector]]:
        """The average strategy (the equilibrium's approximation); where a hand never reaches a decision, the
        current strategy, which is as good as any there."""
        strategy: dict[str, list[Vector]] = {}
        for key, totals in self.totals.items():
            current = self.current(key)
            sums = [sum(column) for column in zip(*totals, strict=True)]
            strategy[key] = [
                [t / s if s > 0.0 else c for t, s, c in zip(total, sums, now, strict=True)]
                for total, now in zip(totals, current, strict=True)
            ]
        return strategy

    def _walk(self, node: Node, player: int, own: Sequence[float], other: Sequence[float]) -> Vector:
        """The counterfactual values of ``player``'s hands at ``node`` (``own``: its reach; ``other``: the
        other's), updating ``player``'s regrets and average strategy on the way."""
        if isinstance(node, Terminal):
            return self.hands.terminal(node, player, other)
        assert isinstance(node, Decision)
        policy = self.current(node.key)
        if node.actor != player:
            total = [0.0] * len(own)
            for action, child in enumerate(node.children):
                reach = [r * p for r, p in zip(other, policy[action], strict=True)]
                values = self._walk(child, player, own, reach)
                total = [t + v for t, v in zip(total, values, strict=True)]
            return total
        children = [
            self._walk(child, player, [r * p for r, p in zip(own, policy[action], strict=True)], other)
            for action, child in enumerate(node.children)
        ]
        value = [0.0] * len(own)
        for action, values in enumerate(children):
            value = [v + p * c for v, p, c in zip(value, policy[action], values, strict=True)]
        weight = float(self.iterations)
        regrets = self.regrets[node.key]
        totals = self.totals[node.key]
        for action, values in enumerate(children):
            regrets[action] = [max(0.0, r + c - v) for r, c, v in zip(regrets[action], values, value, strict=True)]
            totals[action] = [t + weight * r * p for t, r, p in zip(totals[action], own, policy[action], strict=True)]
        return value
