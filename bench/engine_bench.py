#!/usr/bin/env python3
"""Engine benchmark: the compiled engine and the pure Python one, each against pytruco 0.1.3, in one run.

1. **Throughput**, for 2 and 4 players: random matches to 30 (uniformly random legal actions, mazo included)
   with our engine compiled by mypyc, our engine as pure Python, and pytruco (driven by
   ``reference_pytruco.py``). Each runs in its own worker process (``engine_worker.py``: the compiled one in the
   venv holding the compiled wheel, the others in this venv), all pinned to one core, and the rounds alternate
   between the three (round ``k`` uses seed ``k`` for each), so load on the machine falls on all alike. Rates
   are over all rounds together in each worker's CPU time: matches/s and actions/s, and the ratios to pytruco
   per match and per action.
2. **Slowest match**: for 2, 4 and 6 players, with random and with heuristic bots, the CPU time of the slowest
   whole match, compiled and pure (target: none above 50 ms on one core).

Writes a JSON report (``--out``) and prints a summary. ``./dev bench`` builds the compiled venv
(``scripts/compiled-venv``) and installs pytruco first; ``--quick`` is a short run. Without ``--compiled-python``
only the pure engine and pytruco are measured.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WORKER = HERE / "engine_worker.py"
GOALS = {"compiled": 46.0, "pure": 25.0}
"""Matches per CPU second over pytruco's, 2 players (issue 13): parity with the Go engine gotruco as shipped."""
MOONSHOT = 80.0
SLOWEST_MATCH_LIMIT_MS = 50.0


class Worker:
    """A worker process: one engine build in its own interpreter."""

    def __init__(self, python: str, core: int | None) -> None:
        self.process = subprocess.Popen(
            [python, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=HERE
        )
        if core is not None and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(self.process.pid, {core})
        self.info = self.ask({"op": "hello"})

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"worker {self.process.args} died (exit {self.process.wait()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def rates(rounds: Sequence[dict[str, Any]]) -> dict[str, float]:
    matches = sum(r["matches"] for r in rounds)
    actions = sum(r["actions"] for r in rounds)
    cpu = sum(r["cpu"] for r in rounds)
    wall = sum(r["wall"] for r in rounds)
    per_round = [r["matches"] / r["cpu"] for r in rounds]
    return {
        "matches": matches,
        "matches_per_second_cpu": round(matches / cpu, 1),
        "actions_per_second_cpu": round(actions / cpu, 1),
        "matches_per_second_wall": round(matches / wall, 1),
        "actions_per_match": round(actions / matches, 1),
        "us_per_action_cpu": round(cpu / actions * 1e6, 2),
        "round_min_matches_per_second": round(min(per_round), 1),
        "round_max_matches_per_second": round(max(per_round), 1),
    }


def throughput(
    workers: dict[str, Worker], players: int, games: dict[str, int], rounds: int, seed: int, log: Callable[[str], None]
) -> dict[str, Any]:
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in workers}
    for index in range(rounds):
        line = []
        for name, worker in workers.items():
            engine = "pytruco" if name == "pytruco" else "truco"
            answer = worker.ask(
                {"op": "round", "engine": engine, "players": players, "games": games[name], "seed": seed + index}
            )
            results[name].append(answer)
            line.append(f"{name} {answer['matches'] / answer['cpu']:8.1f}")
        log(f"  {players} players, round {index + 1}/{rounds}: " + ", ".join(line) + " matches/s (CPU)")
    report: dict[str, Any] = {"players": players, "rounds": rounds, "games_per_round": games}
    for name in workers:
        report[name] = rates(results[name])
    ref = report["pytruco"]
    for name in workers:
        if name == "pytruco":
            continue
        ours = report[name]
        ours["ratio_per_match"] = round(ours["matches_per_second_cpu"] / ref["matches_per_second_cpu"], 1)
        ours["ratio_per_action"] = round(ours["actions_per_second_cpu"] / ref["actions_per_second_cpu"], 1)
        # The same ratio round by round (each round's seed gives both engines matches of other lengths).
        pairs = zip(results[name], results["pytruco"], strict=True)
        per_round = [(o["matches"] / o["cpu"]) / (r["matches"] / r["cpu"]) for o, r in pairs]
        ours["ratio_per_match_rounds"] = [round(x, 1) for x in per_round]
        if players == 2:
            ours["goal_ratio_per_match"] = GOALS[name]
            ours["meets_goal"] = ours["ratio_per_match"] >= GOALS[name]
    return report


def slowest_matches(workers: dict[str, Worker], games: int, seed: int, log: Callable[[str], None]) -> list[Any]:
    rows = []
    for players in (2, 4, 6):
        for bots in ("random", "heuristic"):
            for name, worker in workers.items():
                if name == "pytruco":
                    continue
                row = {"build": name, "players": players, "bots": bots, "matches": games}
                row |= worker.ask({"op": "slowest", "players": players, "bots": bots, "games": games, "seed": seed})
                rows.append(row)
                log(
                    f"  {name:8s} {players} players, {bots:9s}: median {row['median_ms']:6.3f} ms, "
                    f"slowest {row['slowest_ms']:7.3f} ms"
                )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    core = min(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    workers = _workers(parser, args, core)
    if args.quick:
        rounds, games, slow_games = 2, {"pytruco": 10, "compiled": 400, "pure": 150}, 100
    else:
        rounds, games, slow_games = 5, {"pytruco": 40, "compiled": 2000, "pure": 800}, 1000
    started = time.time()
    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": {
            "python": platform.python_version(),
            "cpu": platform.processor() or platform.machine(),
            "cores": os.cpu_count(),
            "pinned_core": core,
            "load_average_before": [round(x, 2) for x in os.getloadavg()],
        },
        "builds": {name: worker.info["build"] for name, worker in workers.items() if name != "pytruco"},
        "throughput": [],
    }
    for players in args.players:
        log(f"throughput: random {players}-player matches to 30, {rounds} rounds, all workers on core {core}")
        report["throughput"].append(throughput(workers, players, games, rounds, args.seed, log))
    if not args.skip_slowest:
        log(f"slowest match of each size ({slow_games} matches each)")
        rows = slowest_matches(workers, slow_games, args.seed, log)
        worst = max(row["slowest_ms"] for row in rows)
        report["slowest_matches"] = rows
        report["slowest_match_ms"] = worst
        report["slowest_match_limit_ms"] = SLOWEST_MATCH_LIMIT_MS
        report["meets_slowest_limit"] = worst <= SLOWEST_MATCH_LIMIT_MS
    report["machine"]["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    report["seconds"] = round(time.time() - started, 1)
    for worker in workers.values():
        worker.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    for part in report["throughput"]:
        print(_summary(part))
    print(f"Report: {args.out}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="a short run (fewer matches and rounds)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--compiled-python", help="interpreter of a venv with the compiled engine and bots")
    parser.add_argument("--pure-python", default=sys.executable, help="interpreter with the pure engine and pytruco")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4], choices=(2, 4))
    parser.add_argument("--skip-slowest", action="store_true", help="only the throughput part")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "engine.json")
    return parser


def _workers(parser: argparse.ArgumentParser, args: argparse.Namespace, core: int | None) -> dict[str, Worker]:
    """The reference (pytruco), the compiled build when given, and the pure one, each checked to be what it says."""
    workers = {"pytruco": Worker(args.pure_python, core)}
    if args.compiled_python:
        workers["compiled"] = Worker(args.compiled_python, core)
        if workers["compiled"].info["build"] != "compiled":
            parser.error(f"{args.compiled_python} runs the pure engine, not a compiled one")
    workers["pure"] = Worker(args.pure_python, core)
    if workers["pure"].info["build"] != "pure":
        parser.error(f"{args.pure_python} runs a compiled engine: give a venv with the pure (editable) one")
    return workers


def _summary(part: dict[str, Any]) -> str:
    """One line of a table size's throughput: each build's matches a second and its ratio to pytruco."""
    ref = part["pytruco"]
    summary = [f"{part['players']} players: pytruco {ref['matches_per_second_cpu']} matches/s"]
    for name in ("compiled", "pure"):
        if name in part:
            ours = part[name]
            summary.append(
                f"{name} {ours['matches_per_second_cpu']} matches/s = {ours['ratio_per_match']}x per match, "
                f"{ours['ratio_per_action']}x per action"
                + (f" (goal {GOALS[name]:.0f}x)" if part["players"] == 2 else "")
            )
    return "; ".join(summary)


if __name__ == "__main__":
    sys.exit(main())
