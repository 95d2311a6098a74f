#!/usr/bin/env python3
"""Scale-out benchmark: moves per second on a durable PostgreSQL, one process against several, direct and
behind nginx.

PostgreSQL comes from ``scripts/postgres-test-cluster.sh`` with ``PG_FSYNC=on`` (fsync and full-page writes
on, synchronous commit: a move is on disk before its reply). The servers and nginx are started with the
functions of ``scripts/cluster.py``. For each topology:

* ``1x1``: one replica, one worker, clients connect to it directly;
* ``1x2``: one replica, ``--workers 2`` (two processes on one port, SO_REUSEPORT);
* ``3x1-nginx``: three replicas of one worker behind nginx (grpc_pass, round robin, upstream keepalive);
* ``1x1-selfplay``: one replica driven by ``truco selfplay`` instead: every seat of every match a client with
  its own connection and WatchGame stream, so each move also fans out to the watchers (real play's shape);

``--processes`` client processes each play ``--matches`` concurrent 2-player matches against a server bot,
each match on its own connection, in a closed loop (every call a SubmitCommand whose reply carries the next
view) for ``--seconds``. Measured: moves applied per second (the servers' ``truco_commands_applied_total``: the
player's move and the bot's reply it triggers), SubmitCommand p50/p99, and per move applied: server CPU (every
replica's supervisor and workers), nginx CPU, PostgreSQL CPU (the postmaster and all its backends) and WAL bytes
(``pg_current_wal_lsn``) and database growth. CPU comes from /proc, so the client processes sharing the
machine do not count.

Writes ``bench/results/cluster.json`` and prints one line per topology. ``--quick`` for a short run.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import multiprocessing
import os
import platform
import re
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TOPOLOGIES = ("1x1", "1x2", "3x1-nginx", "1x1-selfplay")


def _cluster_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("truco_cluster_script", ROOT / "scripts" / "cluster.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


cluster = _cluster_script()


# --- Clients -------------------------------------------------------------------------------------------------------


async def _play(address: str, matches: int, seconds: float) -> list[float]:
    """Closed-loop matches against a server bot, each match on its own connection; SubmitCommand latencies."""
    import grpc

    from truco_client.v1 import game_service_pb2 as g
    from truco_client.v1 import game_service_pb2_grpc as gg

    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def one_match() -> None:
        options = [("grpc.use_local_subchannel_pool", 1)]
        async with grpc.aio.insecure_channel(address, options=options) as channel:
            stub = gg.GameServiceStub(channel)
            while time.perf_counter() < deadline:
                bots = [g.BotSeat(seat=1, kind=g.BOT_KIND_RANDOM)]
                game = (await stub.CreateGame(g.CreateGameRequest(request_id=uuid.uuid4().hex, bots=bots))).game
                joined = await stub.JoinGame(g.JoinGameRequest(name=game.name, seat=0, request_id=uuid.uuid4().hex))
                metadata = [("authorization", f"Bearer {joined.seat_token}")]
                view = joined.view
                while view.public.phase != 4 and time.perf_counter() < deadline:
                    request = g.SubmitCommandRequest(
                        name=game.name,
                        request_id=uuid.uuid4().hex,
                        expected_version=view.public.version,
                        command=view.legal_actions[0],
                    )
                    started = time.perf_counter()
                    view = (await stub.SubmitCommand(request, metadata=metadata)).view
                    latencies.append(time.perf_counter() - started)

    await asyncio.gather(*(one_match() for _ in range(matches)))
    return latencies


def _client(address: str, matches: int, seconds: float, out: Any) -> None:
    out.put(asyncio.run(_play(address, matches, seconds)))


def run_clients(address: str, processes: int, matches: int, seconds: float) -> list[float]:
    context = multiprocessing.get_context("spawn")
    queue: Any = context.Queue()
    workers = [context.Process(target=_client, args=(address, matches, seconds, queue)) for _ in range(processes)]
    for worker in workers:
        worker.start()
    latencies: list[float] = []
    for _ in workers:
        latencies.extend(queue.get(timeout=seconds + 120))
    for worker in workers:
        worker.join()
    return latencies


# --- Measuring -----------------------------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                queue.extend(int(child) for child in (task / "children").read_text().split())
            except OSError:
                continue
    return found


def tree_cpu(pids: Sequence[int]) -> dict[int, float]:
    return {p: cpu_seconds(p) for root in pids for p in tree(root)}


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU used between two readings of process trees (processes that appeared in between count from zero)."""
    return sum(after[p] - before.get(p, 0.0) for p in after)


def moves_applied(metrics_ports: Sequence[int]) -> float:
    return moves_applied_at([f"http://127.0.0.1:{port}/metrics" for port in metrics_ports])


def moves_applied_at(metrics_urls: Sequence[str]) -> float:
    """Moves applied so far by the servers whose /metrics these are (``truco_commands_applied_total``)."""
    total = 0.0
    for url in metrics_urls:
        with urllib.request.urlopen(url, timeout=10) as response:
            text = response.read().decode()
        total += sum(float(v) for v in re.findall(r"^truco_commands_applied_total\{[^}]*\} (\S+)$", text, re.M))
    return total


def database_bytes(url: str) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
        assert row is not None
        return int(row[0])


def run_selfplay(address: str, games: int) -> list[float]:
    """``truco selfplay``: every seat a client with its own connection and watch stream (the shape of real
    play); its p50/p99 submit latencies, as printed."""
    import subprocess

    truco = Path(sys.executable).with_name("truco")
    command = [str(truco), "selfplay", "--server", address, "--players", "2", "--games", str(games)]
    command += ["--concurrency", str(games), "--seed", "1"]
    output = subprocess.run(command, capture_output=True, text=True, timeout=900, check=True).stdout
    found = re.search(r"submit\s+p50 ([\d.]+) ms, p95 [\d.]+ ms, p99 ([\d.]+) ms", output)
    assert found, output
    return [float(found.group(1)) / 1000, float(found.group(2)) / 1000]


def wal_lsn(url: str) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint").fetchone()
        assert row is not None
        return int(row[0])


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


# --- One topology --------------------------------------------------------------------------------------------------


def bench_topology(state: Any, name: str, args: argparse.Namespace, log: Any) -> dict[str, Any]:
    replicas, workers = (3, 1) if name == "3x1-nginx" else (1, 2 if name == "1x2" else 1)
    selfplay = name.endswith("selfplay")
    state.workers = workers
    state.replicas = []
    started = [cluster.start_replica(state, index) for index in range(replicas)]
    nginx = name.endswith("nginx")
    try:
        if nginx:
            state.nginx_port = 0
            cluster.start_nginx(state)
            address = state.balancer
        else:
            address = started[0].address
        cluster.wait_serving(address)
        log(f"  {name}: warming up")
        run_clients(address, 1, 4, 3.0)
        spent = _measure(state, name, address, started, args, log)
    finally:
        for replica in started:
            cluster.stop_replica(replica)
        if nginx:
            cluster.stop_pid(state.nginx_pid, 3, 15, "nginx")  # SIGQUIT: graceful
            state.nginx_pid = 0
    head = {"replicas": replicas, "workers_per_replica": workers}
    if selfplay:  # latencies are selfplay's own p50 and p99; the rates are over the run's wall time
        return {
            **head,
            "through": "direct, truco selfplay (each seat its own connection and WatchGame stream)",
            "moves_applied_per_second": round(spent.applied / spent.seconds, 1),
            "submit_p50_ms": round(spent.latencies[0] * 1000, 2),
            "submit_p99_ms": round(spent.latencies[1] * 1000, 2),
            **spent.costs(spent.seconds),
        }
    return {
        **head,
        "through": "nginx" if nginx else "direct",
        "moves_applied_per_second": round(spent.applied / args.seconds, 1),
        "submit_per_second": round(len(spent.latencies) / args.seconds, 1),
        "submit_p50_ms": round(percentile(spent.latencies, 0.5) * 1000, 2),
        "submit_p99_ms": round(percentile(spent.latencies, 0.99) * 1000, 2),
        **spent.costs(args.seconds),
    }


@dataclass(frozen=True)
class _Spent:
    """What one topology's measured run did and cost: moves applied, wall seconds, submit latencies (selfplay's:
    its p50 and p99), CPU seconds of the servers, PostgreSQL and nginx, and the bytes PostgreSQL wrote."""

    applied: float
    seconds: float
    latencies: list[float]
    server_cpu: float
    pg_cpu: float
    nginx_cpu: float
    wal: int
    size: int

    def costs(self, seconds: float) -> dict[str, float]:
        """The costs per move, and the cores busy over ``seconds``."""
        per_move = max(self.applied, 1.0)
        return {
            "server_cpu_ms_per_move": round(self.server_cpu / per_move * 1000, 3),
            "server_cores_busy": round(self.server_cpu / seconds, 2),
            "postgres_cpu_ms_per_move": round(self.pg_cpu / per_move * 1000, 3),
            "postgres_cores_busy": round(self.pg_cpu / seconds, 2),
            "nginx_cpu_ms_per_move": round(self.nginx_cpu / per_move * 1000, 3),
            "wal_bytes_per_move": round(self.wal / per_move),
            "database_bytes_per_move": round(self.size / per_move),
        }


def _measure(state: Any, name: str, address: str, started: Sequence[Any], args: argparse.Namespace, log: Any) -> _Spent:
    """Run the load (selfplay's matches, or the client processes) and take what it cost from counters read before
    and after."""
    server_pids = [r.pid for r in started]
    pg_pid = cluster.postgres_pid(state)
    ports = [r.metrics_port for r in started]
    nginx = [state.nginx_pid] if name.endswith("nginx") else []
    before = (tree_cpu(server_pids), tree_cpu([pg_pid]), tree_cpu(nginx))
    applied, wal, size = moves_applied(ports), wal_lsn(state.postgres_url), database_bytes(state.postgres_url)
    clock = time.perf_counter()
    if name.endswith("selfplay"):
        log(f"  {name}: truco selfplay, {args.selfplay_games} concurrent 2-player matches, every seat watching")
        latencies = run_selfplay(address, args.selfplay_games)
    else:
        log(f"  {name}: {args.processes} processes x {args.matches} matches for {args.seconds:.0f} s")
        latencies = run_clients(address, args.processes, args.matches, args.seconds)
    seconds = time.perf_counter() - clock
    applied = moves_applied(ports) - applied
    size = database_bytes(state.postgres_url) - size
    wal = wal_lsn(state.postgres_url) - wal
    return _Spent(
        applied=applied,
        seconds=seconds,
        latencies=latencies,
        server_cpu=cpu_used(before[0], tree_cpu(server_pids)),
        pg_cpu=cpu_used(before[1], tree_cpu([pg_pid])),
        nginx_cpu=cpu_used(before[2], tree_cpu(nginx)),
        wal=wal,
        size=size,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--matches", type=int, default=8, help="concurrent matches per client process")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--topologies", default=",".join(TOPOLOGIES))
    parser.add_argument("--selfplay-games", type=int, default=16, help="concurrent matches of the selfplay run")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "cluster.json")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds = 10.0

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": {"python": platform.python_version(), "cores": os.cpu_count(), "load_before": os.getloadavg()},
        "setup": {
            "postgres": "fsync=on, full_page_writes=on, synchronous_commit=on (loopback)",
            "processes": args.processes,
            "matches_per_process": args.matches,
            "seconds": args.seconds,
        },
        "topologies": {},
    }
    with tempfile.TemporaryDirectory(prefix="truco-cluster-bench-") as directory:
        state = cluster.State(directory=directory)
        cluster.start_postgres(state)
        try:
            for name in args.topologies.split(","):
                report["topologies"][name] = bench_topology(state, name, args, log)
        finally:
            cluster.stop_postgres(state)
    report["machine"]["load_after"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    for name, r in report["topologies"].items():
        print(
            f"{name}: {r['moves_applied_per_second']} moves/s (SubmitCommand p50 {r['submit_p50_ms']} ms, "
            f"p99 {r['submit_p99_ms']} ms); per move: server {r['server_cpu_ms_per_move']} ms CPU, "
            f"PostgreSQL {r['postgres_cpu_ms_per_move']} ms CPU and {r['wal_bytes_per_move']} WAL bytes, "
            f"nginx {r['nginx_cpu_ms_per_move']} ms CPU"
        )
    print(f"report: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
