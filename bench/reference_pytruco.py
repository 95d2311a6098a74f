#!/usr/bin/env python3
"""Reference side of the engine benchmark: random self-play with pytruco 0.1.3.

Plays ``--games`` whole 2-player matches (one player per team) to ``--target`` points with the
PyPI package ``pytruco`` (version 0.1.3, pure Python) and prints one JSON object on stdout::

    {"engine": "pytruco 0.1.3", "matches": N, "seconds": s, "matches_per_second": x,
     "actions_per_second": y, "actions": total_actions, ...}

followed by a few extra keys (hands, per-match averages, seed, policy, ...).

How pytruco is driven (only its public, documented-by-README API):

* ``pytruco.pdt.partida.Partida(puntuacion, azules=["A"], rojos=["B"], verbose=False)`` creates a
  match and deals the first hand.  ``puntuacion`` must be 20, 30 or 40 (pytruco rejects anything
  else).  ``verbose=False`` turns off pytruco's message envelopes (and the deep copies it makes for
  each player's view at every new hand), which is the mode its own ``pytruco-bench`` uses.
* ``pytruco.pdt.chi.chis(partida, allow_mazo)`` returns, for *every* player, the list of actions
  (``IJugada`` objects) that pytruco's own ``ok()`` checks accept right now.  pytruco has no single
  "player to act": a call can be answered or raised out of turn, flor can be sung out of turn and
  "irse al mazo" is accepted from either player at almost any moment, so the set of legal moves of
  a decision point is the union over both players.
* ``action.hacer(partida)`` applies the action; ``partida.terminada()`` tells whether a team has
  reached the target.

"Random legal move" means: at each decision point, take the union of both players' lists from
``chis(partida, allow_mazo=True)`` -- card plays, envido / real envido / falta envido, flor /
contraflor / contraflor al resto, truco / retruco / vale cuatro, quiero / no quiero, and mazo --
and pick one entry uniformly at random (``--policy flat``, the default).  ``--policy per-player``
reproduces pytruco's own random walker instead (first a uniformly random player among those with
a legal move, then a uniformly random move of that player).  ``--no-mazo`` removes "irse al mazo"
from the choices, as ``pytruco-bench`` does.  Every ``hacer`` call counts as one action.

Seeding: pytruco shuffles the deck with the module-level ``random`` generator, so ``--seed``
seeds it with ``random.seed(seed)``; move choices come from a separate ``random.Random`` derived
from the same seed.  The same seed therefore replays the same matches.

A "hand" is a deal (a *ronda*: up to three tricks plus the calls).  pytruco resets its round
object in place for each new deal and gives it a new list of tricks, so a new deal is detected
(read-only) when ``partida.ronda.manos`` becomes a different list object.

Safety: a match with no legal move for anybody, or longer than ``MAX_ACTIONS_PER_MATCH`` actions,
or an exception inside pytruco, stops the run with a message on stderr and exit status 3 (none
was seen in tens of thousands of random matches).  The process pins itself to one CPU where the
OS allows it; the work is single-threaded anyway.

Run it with an interpreter that has pytruco installed, for example::

    python -m venv /tmp/ptvenv && /tmp/ptvenv/bin/pip install pytruco==0.1.3
    /tmp/ptvenv/bin/python bench/reference_pytruco.py --games 200 --seed 1
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

EXPECTED_VERSION = "0.1.3"
MAX_ACTIONS_PER_MATCH = 10_000
PLAYERS = (["Azul"], ["Rojo"])


def teams(players: int) -> tuple[list[str], list[str]]:
    """pytruco's two teams for a 2- or 4-player match (one or two names each)."""
    if players == 2:
        return PLAYERS
    return [f"Azul{k}" for k in range(players // 2)], [f"Rojo{k}" for k in range(players // 2)]
EXIT_NO_PYTRUCO = 2
EXIT_ENGINE_FAILURE = 3


class MatchFailure(RuntimeError):
    """A random match could not be finished by pytruco (stall, runaway length or crash)."""


@dataclass(frozen=True)
class Pytruco:
    """The handful of pytruco entry points this benchmark calls."""

    new_match: Callable[..., Any]
    chis: Callable[[Any, bool], list[list[Any]]]
    version: str


@dataclass
class Totals:
    """Counters summed over all matches of a run."""

    matches: int = 0
    actions: int = 0
    hands: int = 0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Random self-play benchmark of pytruco 0.1.3.")
    parser.add_argument("--games", type=int, default=200, help="number of matches (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="seed for deals and move choices (default 1)")
    parser.add_argument(
        "--target", type=int, default=30, choices=(20, 30, 40), help="points to win a match (default 30)"
    )
    parser.add_argument(
        "--policy",
        choices=("flat", "per-player"),
        default="flat",
        help="flat: uniform over all legal moves of both players (default); "
        "per-player: pytruco's own walker (random player, then random move)",
    )
    parser.add_argument("--no-mazo", action="store_true", help="never choose 'irse al mazo'")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    return args


def load_pytruco() -> Pytruco:
    """Import pytruco, or exit with status 2 and an install hint (no traceback)."""
    try:
        from importlib.metadata import version

        from pytruco.pdt.chi import chis  # type: ignore  # pytruco ships no type information
        from pytruco.pdt.partida import Partida  # type: ignore  # (same)
    except ImportError:
        print(
            f"error: pytruco is not importable with {sys.executable}.\n"
            f"Install it first:  pip install pytruco=={EXPECTED_VERSION}",
            file=sys.stderr,
        )
        raise SystemExit(EXIT_NO_PYTRUCO) from None
    found = version("pytruco")
    if found != EXPECTED_VERSION:
        print(f"warning: pytruco {found} found, the reference is {EXPECTED_VERSION}", file=sys.stderr)
    return Pytruco(new_match=Partida, chis=chis, version=found)


def pin_to_one_cpu() -> int | None:
    """Restrict this process to a single CPU where supported; return that CPU's number."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def choose_flat(rng: random.Random, per_player: list[list[Any]]) -> Any | None:
    """Uniform choice over the union of every player's legal moves."""
    moves = [move for moves_of_player in per_player for move in moves_of_player]
    return rng.choice(moves) if moves else None


def choose_per_player(rng: random.Random, per_player: list[list[Any]]) -> Any | None:
    """pytruco's walker: a random player among those who can move, then one of their moves."""
    movers = [moves for moves in per_player if moves]
    return rng.choice(rng.choice(movers)) if movers else None


CHOOSERS: dict[str, Callable[[random.Random, list[list[Any]]], Any | None]] = {
    "flat": choose_flat,
    "per-player": choose_per_player,
}


def play_match(
    pt: Pytruco,
    rng: random.Random,
    target: int,
    choose: Callable[[random.Random, list[list[Any]]], Any | None],
    allow_mazo: bool,
    players: int = 2,
) -> tuple[int, int]:
    """Play one whole match with random legal moves; return (actions, hands)."""
    partida = pt.new_match(target, *teams(players), verbose=False)
    actions, hands = 0, 1
    deal = partida.ronda.manos
    while not partida.terminada():
        move = choose(rng, pt.chis(partida, allow_mazo))
        if move is None:
            raise MatchFailure(f"no legal move for any player; state: {partida.to_json()}")
        try:
            move.hacer(partida)
        except Exception as exc:
            raise MatchFailure(f"pytruco raised {exc!r} applying '{move}'") from exc
        actions += 1
        if partida.ronda.manos is not deal:
            deal = partida.ronda.manos
            hands += 1
        if actions > MAX_ACTIONS_PER_MATCH:
            raise MatchFailure(f"match still running after {actions} actions; state: {partida.to_json()}")
    return actions, hands


def run(pt: Pytruco, args: argparse.Namespace, players: int = 2) -> tuple[Totals, float]:
    """Play all matches; return the totals and the wall-clock seconds they took."""
    random.seed(args.seed)  # pytruco deals with the module-level generator
    rng = random.Random(f"moves:{args.seed}")
    choose = CHOOSERS[args.policy]
    totals = Totals()
    start = time.perf_counter()
    for number in range(1, args.games + 1):
        try:
            actions, hands = play_match(pt, rng, args.target, choose, not args.no_mazo, players)
        except MatchFailure as exc:
            raise MatchFailure(f"match {number}: {exc}") from exc
        totals.matches += 1
        totals.actions += actions
        totals.hands += hands
    return totals, time.perf_counter() - start


def report(pt: Pytruco, args: argparse.Namespace, totals: Totals, seconds: float, cpu: int | None) -> dict[str, Any]:
    return {
        "engine": f"pytruco {pt.version}",
        "matches": totals.matches,
        "seconds": round(seconds, 4),
        "matches_per_second": round(totals.matches / seconds, 3),
        "actions_per_second": round(totals.actions / seconds, 1),
        "actions": totals.actions,
        "hands": totals.hands,
        "actions_per_match": round(totals.actions / totals.matches, 2),
        "hands_per_match": round(totals.hands / totals.matches, 2),
        "target": args.target,
        "seed": args.seed,
        "policy": args.policy,
        "mazo": not args.no_mazo,
        "pinned_cpu": cpu,
        "python": platform.python_version(),
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    pt = load_pytruco()
    cpu = pin_to_one_cpu()
    try:
        totals, seconds = run(pt, args)
    except MatchFailure as exc:
        print(f"error: seed {args.seed}: {exc}", file=sys.stderr)
        return EXIT_ENGINE_FAILURE
    print(json.dumps(report(pt, args, totals, seconds, cpu)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
