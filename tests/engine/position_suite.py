"""A position suite for the bots, as chess engines have: tables where the best action is proven, not opined.

A position is a match's first hand at a given score (flor and señas off, so the only clues on the hidden cards
are the cards seen), dealt and played up to a decision of one seat. Its *worlds* are every way the cards the
seat has not seen can be dealt to the other seats, as many to each as it holds. Within a world the rest of the
hand is a game of perfect information, searched to its end over the play of the cards and the answers to the
calls pending (no new bet is made after the position's decision but the ones it makes itself), and valued by
the hand's points: the seat's team's less the rivals'.

An action is *proven best* when in every world the least it can end the hand with (whatever anybody plays after
it, the seat's own team included) is at least the most any other action could end it with (whatever anybody
plays, the rivals' worst mistakes included): no luck and no bluff can make another action better. The suite
keeps positions where that set is not every action: the expert must answer one of the proven actions. Worlds
that differ only by cards of equal strength play out the same (no envido or flor is counted after the decision),
so one card of each strength stands for the others.

``python -m tests.engine.position_suite`` searches random hands for such positions and writes
tests/engine/positions.json.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from truco.engine import (
    DECK,
    Answer,
    Call,
    CallKind,
    Card,
    Family,
    Game,
    GoToMazo,
    MatchState,
    Phase,
    PlayCard,
    SeatCommand,
    SeatView,
    actors,
    determinize,
    execute_legal,
    legal_actions,
    strength,
)

from .scenario_helpers import deal, game_at

SUITE = Path(__file__).with_name("positions.json")
MAX_WORLDS = 3000
"""The most worlds a position may have (they grow fast with the cards unseen: positions come late in a hand)."""


@dataclass(frozen=True, slots=True)
class Position:
    """A first hand at ``scores``: ``hands`` from the mano in playing order, then ``moves``; ``seat`` decides."""

    name: str
    players: int
    scores: tuple[int, int]
    hands: tuple[tuple[str, ...], ...]
    muestra: str
    moves: tuple[tuple[Any, ...], ...]
    seat: int

    def game(self) -> Game:
        game = game_at(self.scores, self.players, flor=False, senas=False)
        deal(game, [list(hand) for hand in self.hands], self.muestra)
        for move in self.moves:
            game.execute(command_of(move))
        return game

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "players": self.players,
            "scores": list(self.scores),
            "hands": [list(hand) for hand in self.hands],
            "muestra": self.muestra,
            "moves": [list(move) for move in self.moves],
            "seat": self.seat,
        }


def load() -> list[Position]:
    return [
        Position(
            name=p["name"],
            players=p["players"],
            scores=(p["scores"][0], p["scores"][1]),
            hands=tuple(tuple(hand) for hand in p["hands"]),
            muestra=p["muestra"],
            moves=tuple(tuple(move) for move in p["moves"]),
            seat=p["seat"],
        )
        for p in json.loads(SUITE.read_text())
    ]


def command_of(move: Sequence[Any]) -> SeatCommand:
    kind, seat = move[0], move[1]
    if kind == "play":
        return PlayCard(seat, Card.parse(move[2]))
    if kind == "call":
        return Call(seat, CallKind(move[2]))
    if kind == "answer":
        return Answer(seat, move[2], CallKind(move[3]))
    if kind == "mazo":
        return GoToMazo(seat)
    raise ValueError(f"unknown move {move!r}")


def move_of(command: SeatCommand) -> tuple[Any, ...]:
    if isinstance(command, PlayCard):
        return ("play", command.seat, str(command.card))
    if isinstance(command, Call):
        return ("call", command.seat, command.call.value)
    if isinstance(command, Answer):
        assert command.call is not None
        return ("answer", command.seat, command.accept, command.call.value)
    if isinstance(command, GoToMazo):
        return ("mazo", command.seat)
    raise ValueError(f"no move for {command!r}")


def candidates(view: SeatView) -> list[SeatCommand]:
    """The actions a position asks about: which card to play (or the mazo), or how to answer the call pending (a
    raise included). An envido or truco called on one's turn is a decision of its own, left out of the question:
    a call does not play the card."""
    hand = view.public.hand
    assert hand is not None
    if hand.pending is not None:
        return list(view.legal_actions)
    return [a for a in view.legal_actions if not isinstance(a, Call)]


def worlds(view: SeatView) -> Iterator[dict[int, list[Card]]]:
    """Every dealing of the unseen cards to the other seats, one card of each strength standing for its equals
    (see the module's description)."""
    hand = view.public.hand
    assert hand is not None
    muestra = hand.muestra
    seen = {muestra, *view.cards, *(card for plays in hand.rounds for _, card in plays)}
    pool = [card for card in DECK if card not in seen]
    by_strength: dict[int, list[Card]] = {}
    for card in pool:
        by_strength.setdefault(strength(card, muestra), []).append(card)
    needs = [(seat, count) for seat, count in hand.cards_left if seat != view.seat and count]
    classes = sorted(by_strength)
    choices = [list(itertools.combinations_with_replacement(classes, count)) for _, count in needs]
    for combos in itertools.product(*choices):
        world = _world(needs, combos, by_strength)
        if world is not None:
            yield world


def world_count(view: SeatView) -> int:
    """How many worlds :func:`worlds` goes through, at most."""
    hand = view.public.hand
    assert hand is not None
    seen = {hand.muestra, *view.cards, *(card for plays in hand.rounds for _, card in plays)}
    classes = len({strength(card, hand.muestra) for card in DECK if card not in seen})
    total = 1
    for seat, count in hand.cards_left:
        if seat != view.seat:
            total *= math.comb(classes + count - 1, count)
    return total


def _world(
    needs: Sequence[tuple[int, int]], combos: Sequence[tuple[int, ...]], by_strength: dict[int, list[Card]]
) -> dict[int, list[Card]] | None:
    """The world giving each seat of ``needs`` a card of each strength of its combo, if the pool has them."""
    used: dict[int, int] = {}
    world: dict[int, list[Card]] = {}
    for (seat, _), combo in zip(needs, combos, strict=True):
        cards = []
        for power in combo:
            index = used.get(power, 0)
            if index >= len(by_strength[power]):
                return None
            used[power] = index + 1
            cards.append(by_strength[power][index])
        world[seat] = cards
    return world


def _continuations(state: MatchState, seat: int) -> list[SeatCommand]:
    """What may follow the decision: card plays and answers to the calls pending (no new bet, no mazo)."""
    actions = legal_actions(state, seat)
    return [a for a in actions if isinstance(a, (PlayCard, Answer))] or list(actions)


def bounds(state: MatchState, team: int, start: tuple[int, int]) -> tuple[int, int]:
    """(the least, the most) ``team`` can end the hand with, whatever anybody plays from ``state``, in points of
    the hand: its own less the rivals'."""
    hand = state.hand
    if state.phase is not Phase.PLAYING or hand is None or hand.ended:
        value = (state.scores[team] - start[team]) - (state.scores[1 - team] - start[1 - team])
        return value, value
    seat = actors(state)[0]
    low, high = None, None
    for action in _continuations(state, seat):
        following = state.copy()
        execute_legal(following, action)
        worst, best = bounds(following, team, start)
        low = worst if low is None else min(low, worst)
        high = best if high is None else max(high, best)
    assert low is not None and high is not None
    return low, high


def proven_best(view: SeatView, actions: Sequence[SeatCommand] | None = None) -> list[SeatCommand]:
    """The actions proven best at ``view`` (see the module's description), checked in every world."""
    options = candidates(view) if actions is None else list(actions)
    team = view.team
    start = (view.public.scores[0], view.public.scores[1])
    alive = list(options)
    for world in worlds(view):
        state = determinize(view, world)
        results = []
        for action in options:
            following = state.copy()
            execute_legal(following, action)
            results.append(bounds(following, team, start))
        alive = [
            a
            for i, a in enumerate(options)
            if a in alive and all(results[i][0] >= high for j, (_, high) in enumerate(results) if j != i)
        ]
        if not alive:
            return []
    return alive


def kind_of(view: SeatView, best: Sequence[SeatCommand]) -> str:
    """What the position tests: an answer, the card to play, or staying in the hand."""
    hand = view.public.hand
    assert hand is not None
    if hand.pending is not None:
        return "answer"
    plays = [a for a in candidates(view) if isinstance(a, PlayCard)]
    if any(a not in best for a in plays):
        return "card"
    return "no-mazo"


def generate(wanted: dict[tuple[int, str], int], seed: int) -> list[Position]:
    """Random first hands played by a heuristic that calls and raises truco now and then, kept at every
    decision whose proven best actions are not all of them, until ``wanted`` positions of each size and kind."""
    from functools import partial

    from truco.bots import make_bot
    from truco.engine import seat_view

    rng = random.Random(seed)
    found: list[Position] = []
    counts: dict[tuple[int, str], int] = {}
    bot = make_bot("heuristic")
    while any(counts.get(key, 0) < n for key, n in wanted.items()):
        players = rng.choice(sorted({p for (p, k), n in wanted.items() if counts.get((p, k), 0) < n}))
        scores = (rng.randrange(0, 14), rng.randrange(0, 14))
        order = list(DECK)
        rng.shuffle(order)
        hands = tuple(tuple(str(c) for c in order[3 * s : 3 * s + 3]) for s in range(players))
        muestra = str(order[3 * players])
        position = Position("", players, scores, hands, muestra, (), 0)
        game = position.game()
        moves: list[tuple[Any, ...]] = []
        while game.state.phase is Phase.PLAYING and game.state.hand is not None and not game.state.hand.ended:
            seat = actors(game.state)[0]
            view = game.view(seat)
            hand = view.public.hand
            assert hand is not None
            if world_count(view) <= MAX_WORLDS and len(candidates(view)) > 1:
                best = proven_best(view)
                if best and len(best) < len(candidates(view)):
                    key = (players, kind_of(view, best))
                    if counts.get(key, 0) < wanted.get(key, 0):
                        counts[key] = counts.get(key, 0) + 1
                        name = f"{players}p-{key[1]}-{counts[key]}"
                        found.append(Position(name, players, scores, hands, muestra, tuple(moves), seat))
                        print(name, file=sys.stderr, flush=True)
                        SUITE.with_suffix(f".partial{seed}").write_text(
                            json.dumps([p.as_json() for p in found], indent=1) + "\n"
                        )
            actions = [a for a in legal_actions(game.state, seat) if not (isinstance(a, Call) and
                                                                         a.call.family is not Family.TRUCO)]
            trucos = [a for a in actions if isinstance(a, Call)]
            if trucos and rng.random() < (0.6 if hand.results else 0.35):  # late calls: answers come late too
                action: SeatCommand = trucos[0]
            else:
                action = bot.choose(actions, partial(seat_view, game.state, seat, proofs=False), rng)
                if isinstance(action, Call) and action.call.family is not Family.TRUCO:
                    action = next(a for a in actions if not isinstance(a, Call))
            moves.append(move_of(action))
            game.execute(action)
    return found


def main() -> None:
    """``python -m tests.engine.position_suite [SEED [SIZE-KIND=COUNT ...]]``: the suite's positions by default, or only
    the ones named (``4p-answer=4``), added to the suite already written."""
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    if len(sys.argv) > 2:
        asked = {(int(k.split("p-")[0]), k.split("p-")[1]): int(n) for k, n in (a.split("=") for a in sys.argv[2:])}
        known = load()
        names = {p.name for p in known}
        extra = []
        for p in generate(asked, seed):
            size, kind, number = p.name.split("-", 2)[0], p.name.rsplit("-", 1)[0], int(p.name.rsplit("-", 1)[1])
            while f"{kind}-{number}" in names:
                number += 1
            names.add(f"{kind}-{number}")
            extra.append(Position(f"{kind}-{number}", p.players, p.scores, p.hands, p.muestra, p.moves, p.seat))
            del size
        SUITE.write_text(json.dumps([p.as_json() for p in [*known, *extra]], indent=1) + "\n")
        return
    wanted = {
        (2, "answer"): 5, (2, "card"): 8, (2, "no-mazo"): 5,
        (4, "answer"): 4, (4, "card"): 5, (4, "no-mazo"): 5,
        (6, "answer"): 4, (6, "no-mazo"): 6,
    }  # fmt: skip
    found = generate(wanted, seed)
    SUITE.write_text(json.dumps([p.as_json() for p in found], indent=1) + "\n")
    print(f"{len(found)} positions written to {SUITE}", file=sys.stderr)


if __name__ == "__main__":
    main()
