#!/usr/bin/env python3
"""Engine benchmark: our engine against pytruco 0.1.3 in the same run, and the slowest match of every size.

1. **Throughput**: random 2-player matches to 30 (uniformly random legal actions, mazo included) with our
   engine and with pytruco (driven by ``reference_pytruco.py``), alternating in rounds (the same seed for
   both in a round) so that any load on the machine falls on both alike. Reported per engine: matches/s and
   actions/s over all rounds in CPU time of this process (pinned to one core), plus wall-clock figures; and
   the ratio ours / pytruco.
2. **Slowest match**: for 2, 4 and 6 players, with random and with heuristic bots, the CPU time (this
   thread's, so preemption by other processes does not count) of the slowest whole match; the target is
   that none takes more than 50 ms on one core.

Writes a JSON report (``--out``) and prints a summary. Run it with ``./dev bench`` (which installs pytruco
into .venv) or ``python bench/engine_bench.py --quick`` for a short run.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from truco.cli.simulate import BotsMode, play_match, seat_bots
from truco.engine import RuleSet

sys.path.insert(0, str(Path(__file__).parent))
import reference_pytruco

TARGET_RATIO = 20.0
SLOWEST_MATCH_LIMIT_MS = 50.0


def pin_to_one_core() -> int | None:
    if not hasattr(os, "sched_setaffinity"):
        return None
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    return core


def ours_round(games: int, seed: int) -> tuple[int, float, float]:
    """(actions, cpu seconds, wall seconds) of ``games`` random 2-player matches to 30 with our engine."""
    rules = RuleSet(players=2, target=30)
    rng = random.Random(seed)
    actions = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for index in range(games):
        actions += play_match(rules, seat_bots(2, "random", index), rng).actions
    return actions, time.process_time() - cpu, time.perf_counter() - wall


def pytruco_round(pt: reference_pytruco.Pytruco, games: int, seed: int) -> tuple[int, float, float]:
    """The same for pytruco, with the reference harness's flat random policy (mazo included)."""
    args = reference_pytruco.parse_args(["--games", str(games), "--seed", str(seed), "--target", "30"])
    cpu, wall = time.process_time(), time.perf_counter()
    totals, _ = reference_pytruco.run(pt, args)
    return totals.actions, time.process_time() - cpu, time.perf_counter() - wall


def total_rate(rounds: Sequence[tuple[int, float, float]], games: int) -> dict[str, float]:
    """Rates over all rounds together: each round has its own seed, and match lengths vary with the seed."""
    actions = sum(r[0] for r in rounds)
    cpu = sum(r[1] for r in rounds)
    wall = sum(r[2] for r in rounds)
    matches = games * len(rounds)
    return {
        "matches": matches,
        "matches_per_second_cpu": round(matches / cpu, 1),
        "actions_per_second_cpu": round(actions / cpu, 1),
        "matches_per_second_wall": round(matches / wall, 1),
        "actions_per_match": round(actions / matches, 1),
    }


def throughput(games_ours: int, games_ref: int, rounds: int, seed: int, log: Callable[[str], None]) -> dict[str, Any]:
    pt = reference_pytruco.load_pytruco()
    ours: list[tuple[int, float, float]] = []
    ref: list[tuple[int, float, float]] = []
    for index in range(rounds):
        ours.append(ours_round(games_ours, seed + index))
        ref.append(pytruco_round(pt, games_ref, seed + index))
        log(
            f"  round {index + 1}/{rounds}: ours {games_ours / ours[-1][1]:7.1f} matches/s, "
            f"pytruco {games_ref / ref[-1][1]:5.1f} matches/s (CPU)"
        )
    ours_best, ref_best = total_rate(ours, games_ours), total_rate(ref, games_ref)
    ratio = ours_best["matches_per_second_cpu"] / ref_best["matches_per_second_cpu"]
    return {
        "games_per_round": {"ours": games_ours, "pytruco": games_ref},
        "rounds": rounds,
        "ours": ours_best,
        "pytruco": ref_best,
        "ratio_matches_per_second": round(ratio, 1),
        "target_ratio": TARGET_RATIO,
        "meets_target": ratio >= TARGET_RATIO,
    }


def slowest_matches(games: int, seed: int, log: Callable[[str], None]) -> list[dict[str, Any]]:
    rows = []
    for players in (2, 4, 6):
        for bots in ("random", "heuristic"):
            mode: BotsMode = bots  # type: ignore[assignment]
            rules = RuleSet(players=players)
            rng = random.Random(seed)
            times = []
            for index in range(games):
                times.append(play_match(rules, seat_bots(players, mode, index), rng).cpu_seconds * 1000)
            times.sort()
            row = {
                "players": players,
                "bots": bots,
                "matches": games,
                "median_ms": round(times[len(times) // 2], 2),
                "p99_ms": round(times[int(len(times) * 0.99)], 2),
                "slowest_ms": round(times[-1], 2),
            }
            rows.append(row)
            median, slowest = row["median_ms"], row["slowest_ms"]
            log(f"  {players} players, {bots:9s}: median {median:5.2f} ms, slowest {slowest:6.2f} ms")
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="a short run (fewer matches and rounds)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "engine.json")
    args = parser.parse_args(argv)

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    core = pin_to_one_core()
    gc.collect()
    games_ours, games_ref, rounds, slow_games = (200, 20, 2, 200) if args.quick else (2000, 100, 5, 2000)
    log(f"throughput: random 2-player matches to 30, {rounds} rounds, pinned to core {core}")
    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": {
            "python": platform.python_version(),
            "cpu": platform.processor() or platform.machine(),
            "cores": os.cpu_count(),
            "pinned_core": core,
            "load_average": [round(x, 2) for x in os.getloadavg()],
        },
        "throughput": throughput(games_ours, games_ref, rounds, args.seed, log),
    }
    log(f"slowest match of each size ({slow_games} matches each)")
    rows = slowest_matches(slow_games, args.seed, log)
    worst = max(row["slowest_ms"] for row in rows)
    report["slowest_matches"] = rows
    report["slowest_match_ms"] = worst
    report["slowest_match_limit_ms"] = SLOWEST_MATCH_LIMIT_MS
    report["meets_slowest_limit"] = worst <= SLOWEST_MATCH_LIMIT_MS
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    t = report["throughput"]
    print(
        f"ours {t['ours']['matches_per_second_cpu']} matches/s, pytruco {t['pytruco']['matches_per_second_cpu']} "
        f"matches/s: {t['ratio_matches_per_second']}x (target {TARGET_RATIO:.0f}x); slowest match {worst} ms "
        f"(limit {SLOWEST_MATCH_LIMIT_MS:.0f} ms). Report: {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
