#!/usr/bin/env python3
"""Where a game's calls land, and what it costs: real play (``truco selfplay``: every seat a client with its own
connection and watch stream) through nginx with game affinity (``hash`` on ``x-truco-game``), on clusters of the
same total processes but different shapes:

* ``1x2-listen``: one replica of ``--workers 2`` on one PostgreSQL (LISTEN/NOTIFY): nginx's hash picks the
  replica, the kernel (SO_REUSEPORT) then spreads nginx's upstream connections over the two workers, so one
  game's calls reach both;
* ``2x1-listen``: two replicas of one worker: the hash picks the process itself;
* ``2x1-shards2-nats``: the same on two PostgreSQL shards, moves heard through NATS;
* ``2x1-shards2-nats-rr``: that, with nginx round robin on every call (no affinity): the bus then carries the
  moves a replica's watchers did not see it apply;
* ``1x1-sqlite`` and ``1x1-listen``: one process behind the same nginx on SQLite, then on PostgreSQL (the
  issue's goal compares their CPU per move; run them alternately: ``--topologies`` may repeat a name).

Per move applied (``truco_commands_applied_total``, every replica): server CPU in ms (each replica's process tree
from /proc), games rebuilt from the store (``truco_games_rebuilt_total``: a game not current in the memory of the
process a call reached), and for the bus, moves heard per replica (``truco_bus_heard_total``) against the moves of
the cluster. Uses scripts/cluster.py's functions; writes ``bench/results/affinity.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TOPOLOGIES = {
    "1x2-listen": {"replicas": 1, "workers": 2, "shards": 1, "bus": "", "balance": "hash"},
    "2x1-listen": {"replicas": 2, "workers": 1, "shards": 1, "bus": "", "balance": "hash"},
    "2x1-shards2-nats": {"replicas": 2, "workers": 1, "shards": 2, "bus": "nats", "balance": "hash"},
    "2x1-shards2-nats-rr": {"replicas": 2, "workers": 1, "shards": 2, "bus": "nats", "balance": "round-robin"},
    "1x1-sqlite": {"replicas": 1, "workers": 1, "shards": 1, "bus": "", "balance": "hash", "store": "sqlite"},
    "1x1-listen": {"replicas": 1, "workers": 1, "shards": 1, "bus": "", "balance": "hash"},
}
SQLITE_ARGS = ["--store", "sqlite:///bench.db"]
"""A replica's own SQLite file (its working directory is the cluster's), after the cluster's --store: it wins."""
SAMPLE = re.compile(r"^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$")


def _cluster_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("truco_cluster_script", ROOT / "scripts" / "cluster.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def metric(port: int, name: str) -> float:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    return sum(float(m.group(3)) for line in text.splitlines() if (m := SAMPLE.match(line)) and m.group(1) == name)


def tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and its descendants (user + system), from /proc."""
    total, todo = 0.0, [pid]
    ticks = 100.0
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        todo += [int(child) for child in children]
    return total


def measure(cluster: ModuleType, name: str, shape: dict[str, Any], games: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="affinity-") as scratch:
        directory = Path(scratch) / "state"
        extra = SQLITE_ARGS if shape.get("store") == "sqlite" else []
        state = cluster.up(
            directory, shape["replicas"], shape["workers"], 0, shape["balance"], shape["shards"], shape["bus"], extra
        )
        try:
            ports = [replica.metrics_port for replica in state.replicas]
            pids = [replica.pid for replica in state.replicas]
            before = {
                "cpu": [tree_cpu(pid) for pid in pids],
                "moves": sum(metric(port, "truco_commands_applied_total") for port in ports),
                "rebuilt": [metric(port, "truco_games_rebuilt_total") for port in ports],
                "heard": [metric(port, "truco_bus_heard_total") for port in ports],
            }
            command = [
                str(ROOT / ".venv" / "bin" / "truco"), "selfplay", "--server", state.balancer, "--players", "2",
                "--games", str(games), "--concurrency", str(games), "--target", "15",
            ]  # fmt: skip
            played = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
            time.sleep(2.5)  # the replicas' metrics of the bus are copied every 2 s
            cpu = [tree_cpu(pid) - was for pid, was in zip(pids, before["cpu"], strict=True)]
            moves = sum(metric(port, "truco_commands_applied_total") for port in ports) - before["moves"]
            pairs = list(zip(ports, before["rebuilt"], before["heard"], strict=True))
            rebuilt = [metric(p, "truco_games_rebuilt_total") - b for p, b, _ in pairs]
            heard = [metric(p, "truco_bus_heard_total") - b for p, _, b in pairs]
        finally:
            cluster.down(directory)
    return {
        "topology": name,
        **shape,
        "games": games,
        "selfplay_status": played.returncode,
        "moves": moves,
        "server_cpu_ms_per_move": round(1000 * sum(cpu) / moves, 3) if moves else None,
        "games_rebuilt_per_game": round(sum(rebuilt) / games, 2),
        "bus_heard_per_replica": heard,
        "bus_heard_per_cluster_move": [round(h / moves, 3) for h in heard] if moves else None,
        "summary": played.stdout.strip().splitlines()[-4:],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=24, help="concurrent 2-player matches per run")
    parser.add_argument("--topologies", default=",".join(TOPOLOGIES))
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "affinity.json")
    args = parser.parse_args(argv)
    cluster = _cluster_script()
    results = []
    for name in args.topologies.split(","):
        result = measure(cluster, name, TOPOLOGIES[name], args.games)
        print(json.dumps(result), flush=True)
        results.append(result)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
