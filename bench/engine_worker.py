#!/usr/bin/env python3
"""One engine under test, driven by ``engine_bench.py`` over stdin/stdout (one JSON object a line each way).

The bench starts one worker per engine build (the compiled wheel's venv, the pure sources' venv, pytruco's), so
each is measured in its own interpreter while the rounds alternate between them. It imports nothing of this
repository but ``truco.engine`` and ``truco.bots`` (and, for ``pytruco`` rounds, ``reference_pytruco.py``).

Requests::

    {"op": "hello"}                                            -> {"build": "compiled" | "pure", "python": ...}
    {"op": "round", "engine": "truco", "players": 2, "games": 500, "seed": 7}
    {"op": "round", "engine": "pytruco", "players": 2, "games": 20, "seed": 7}
                                                               -> {"matches": n, "actions": a, "cpu": s, "wall": s}
    {"op": "slowest", "players": 4, "bots": "heuristic", "games": 500, "seed": 1}
                                                               -> {"median_ms": ..., "p99_ms": ..., "slowest_ms": ...}

A truco round plays whole random matches to 30 the way ``truco simulate`` does: every hand dealt from a deck
shuffled by ``random.Random(seed)``, at each decision a waiting seat's bot picks one of its ``legal_actions``,
applied with ``execute_legal`` (a legal action needs no second check). CPU time is this process's.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import random
import sys
import time
from functools import partial
from operator import itemgetter
from pathlib import Path
from typing import Any

from truco.bots import Bot, make_bot
from truco.engine import DECK, Deal, MatchState, Phase, RuleSet, actors, legal_actions, seat_view, start_match
from truco.engine.decide import execute_legal
from truco.engine.state import evolve

MAX_ACTIONS = 100_000


def build() -> str:
    """Whether this interpreter runs the mypyc-compiled engine or its pure Python sources."""
    module = sys.modules[execute_legal.__module__]  # truco.engine.decide (the package exports a function so named)
    return "pure" if str(module.__file__).endswith(".py") else "compiled"


def deal_command(rng: random.Random) -> Deal:
    """A uniformly shuffled deck, as ``truco simulate`` deals: the cards sorted by random keys."""
    draw = rng.random
    keys = [draw() for _ in DECK]
    order = itemgetter(*sorted(range(len(DECK)), key=keys.__getitem__))(DECK)  # a C-level gather
    return Deal(order, f"{rng.getrandbits(128):032x}")


def play_match(rules: RuleSet, bots: list[Bot], rng: random.Random) -> int:
    """One whole match; the number of seat actions it took."""
    state = MatchState()
    for event in start_match(rules):
        evolve(state, event)
    actions = 0
    while state.phase is not Phase.MATCH_OVER:
        waiting = actors(state)
        if not waiting:
            execute_legal(state, deal_command(rng))
            continue
        seat = waiting[0] if len(waiting) == 1 else rng.choice(waiting)
        choice = bots[seat].choose(legal_actions(state, seat), partial(seat_view, state, seat), rng)
        execute_legal(state, choice)
        actions += 1
        if actions > MAX_ACTIONS:
            raise RuntimeError("a match did not end: this is an engine bug")
    return actions


def truco_round(players: int, games: int, seed: int) -> dict[str, Any]:
    rules = RuleSet(players=players, target=30)
    rng = random.Random(seed)
    bots = [make_bot("random") for _ in range(players)]
    actions = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(games):
        actions += play_match(rules, bots, rng)
    return {"matches": games, "actions": actions, "cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall}


def pytruco_round(players: int, games: int, seed: int) -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).parent))
    import reference_pytruco

    pt = reference_pytruco.load_pytruco()
    args = reference_pytruco.parse_args(["--games", str(games), "--seed", str(seed), "--target", "30"])
    cpu, wall = time.process_time(), time.perf_counter()
    totals, _ = reference_pytruco.run(pt, args, players=players)
    return {
        "matches": games,
        "actions": totals.actions,
        "cpu": time.process_time() - cpu,
        "wall": time.perf_counter() - wall,
    }


def slowest(players: int, bots_name: str, games: int, seed: int) -> dict[str, Any]:
    """The CPU time of each whole match (this thread's), with ``bots_name`` bots at every seat."""
    rules = RuleSet(players=players)
    rng = random.Random(seed)
    bots = [make_bot(bots_name) for _ in range(players)]
    times = []
    for _ in range(games):
        started = time.thread_time()
        play_match(rules, bots, rng)
        times.append((time.thread_time() - started) * 1000)
    times.sort()
    return {
        "median_ms": round(times[len(times) // 2], 3),
        "p99_ms": round(times[int(len(times) * 0.99)], 3),
        "slowest_ms": round(times[-1], 3),
    }


def handle(request: dict[str, Any]) -> dict[str, Any]:
    op = request["op"]
    if op == "hello":
        return {"build": build(), "python": platform.python_version(), "pid": os.getpid()}
    if op == "round":
        runner = pytruco_round if request["engine"] == "pytruco" else truco_round
        gc.collect()
        return runner(request["players"], request["games"], request["seed"])
    if op == "slowest":
        return slowest(request["players"], request["bots"], request["games"], request["seed"])
    raise ValueError(f"unknown op {op!r}")


def main() -> int:
    for line in sys.stdin:
        print(json.dumps(handle(json.loads(line))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
