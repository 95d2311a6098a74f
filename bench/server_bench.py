#!/usr/bin/env python3
"""Server benchmark: concurrent matches driven by separate client processes, against SQLite and PostgreSQL.

For each store it starts ``truco serve`` as a subprocess and measures, at the same concurrency:

* **moves**: ``--processes`` client processes each drive ``--matches`` concurrent 2-player matches against a
  server bot (every call a SubmitCommand with ``expected_version`` and a request id, whose reply carries the
  next view) for ``--seconds``: SubmitCommand latency p50/p99, and moves applied per second, counted by the
  server (``truco_commands_applied_total``: the player's move and the bot's replies it triggers);
* **empty RPC**: the same processes and concurrency calling grpc.health.v1 Check, a unary RPC through the
  same server stack (interceptors, metrics, logging) that does no work: the ceiling. A move's cost in
  empty RPCs is measured two ways: the ratio of the rates, and the server's CPU time per move over its CPU
  time per empty RPC (read from /proc, so the client processes sharing the machine do not count);
* **long matches**: two joined seats that only play cards, to 60, for ``--long-seconds``: the latency of
  early moves (the first 50 of a match) against late ones (move 300 onwards);
* **server CPU per RPC kind**: callers in a closed loop on GetGameView and on ListLegalActions (each caller
  with its own match, a few moves in): the server's CPU per call over its CPU per empty RPC, beside
  SubmitCommand's (from the moves phase, each call with the bot replies it triggers, less the CreateGame and
  JoinGame that start each of its matches, measured alone in a **new matches** phase);
* **memory per active match**: the server's resident memory grown by ``--memory-matches`` more matches
  kept active (created, joined, a few moves each), divided by their number.

Each store is measured with the server on each engine build of ``--engines``: ``pure`` (the editable sources of
.venv, as ``./dev serve`` runs them) and ``compiled`` (the mypyc-compiled engine and bots, as ``pip install``
and the Docker image ship them: .venv-compiled from ``scripts/compiled-venv``, with the SDK and the server
installed into it from the sources).

Writes ``bench/results/server.json`` and prints a summary. ``--quick`` for a short run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TRUCO = Path(sys.executable).with_name("truco")
EARLY_MOVES = 50
LATE_FROM = 300
TARGET_MOVE_OVER_EMPTY = 3.0
TARGET_LATE_OVER_EARLY = 1.5
GOALS_IN_EMPTY_RPCS = {"SubmitCommand": 4.0, "GetGameView": 2.0}
"""Server CPU per call over an empty RPC's (issue 13); SubmitCommand counts the bot replies it triggers."""
READ_RPCS = {"views": "GetGameView", "legal": "ListLegalActions"}
SERVE_OPTIONS = ("--no-limits", "--workers", "1", "--clock", "3600")
"""One server process (``truco serve`` on PostgreSQL starts one per core; CPU is read from the one process), and
turn clocks on, as ``truco serve`` runs by default, but an hour long: a match the clients leave at the end of a
phase must not run out of time, and be played out by the takeover bot, during a later phase."""


# --- The server under test ----------------------------------------------------------------------------------------


class ServerProcess:
    def __init__(self, store: str, truco: Path = TRUCO) -> None:
        self.process = subprocess.Popen(
            [str(truco), "serve", "--store", store, "--port", "0", "--metrics-port", "0", *SERVE_OPTIONS],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            # A server on PostgreSQL refuses to start without a token key shared by its replicas.
            env={**os.environ, "TRUCO_TOKEN_KEY": os.environ.get("TRUCO_TOKEN_KEY", "bench-token-key")},
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        match = re.search(r"port (\d+)", line)
        if match is None:
            self.process.kill()
            raise RuntimeError(f"truco serve did not start: {line!r}")
        self.address = f"127.0.0.1:{match.group(1)}"
        self.metrics_url = re.search(r"(http://\S+/metrics)", line).group(1)  # type: ignore[union-attr]

    def moves_applied(self) -> float:
        """Moves the server applied so far, by seats and by its bots (truco_commands_applied_total)."""
        with urllib.request.urlopen(self.metrics_url, timeout=10) as response:
            text = response.read().decode()
        return sum(float(v) for v in re.findall(r"^truco_commands_applied_total\{[^}]*\} (\S+)$", text, re.MULTILINE))

    def rss_bytes(self) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        kb = int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1))  # type: ignore[union-attr]
        return kb * 1024

    def cpu_seconds(self) -> float:
        """The server process's CPU time (user + system) so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


# --- Client processes -----------------------------------------------------------------------------------------------


async def _play_against_bots(address: str, matches: int, seconds: float) -> dict[str, Any]:
    """Closed-loop matches against a server bot: every call is a SubmitCommand (the reply carries the next view)."""
    import grpc

    from truco_client.v1 import game_service_pb2 as g
    from truco_client.v1 import game_service_pb2_grpc as gg

    latencies: list[float] = []
    started_matches = 0
    deadline = time.perf_counter() + seconds
    async with grpc.aio.insecure_channel(address) as channel:
        stub = gg.GameServiceStub(channel)

        async def one_match() -> None:
            nonlocal started_matches
            while time.perf_counter() < deadline:
                bots = [g.BotSeat(seat=1, kind=g.BOT_KIND_RANDOM)]
                game = (await stub.CreateGame(g.CreateGameRequest(request_id=uuid.uuid4().hex, bots=bots))).game
                joined = await stub.JoinGame(g.JoinGameRequest(name=game.name, seat=0, request_id=uuid.uuid4().hex))
                started_matches += 1
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
    return {"latencies": latencies, "matches": [float(started_matches)]}


async def _new_matches(address: str, matches: int, seconds: float) -> dict[str, Any]:
    """What the moves phase does between its matches, alone: CreateGame against a bot, then JoinGame."""
    import grpc

    from truco_client.v1 import game_service_pb2 as g
    from truco_client.v1 import game_service_pb2_grpc as gg

    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    async with grpc.aio.insecure_channel(address) as channel:
        stub = gg.GameServiceStub(channel)

        async def caller() -> None:
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                bots = [g.BotSeat(seat=1, kind=g.BOT_KIND_RANDOM)]
                game = (await stub.CreateGame(g.CreateGameRequest(request_id=uuid.uuid4().hex, bots=bots))).game
                await stub.JoinGame(g.JoinGameRequest(name=game.name, seat=0, request_id=uuid.uuid4().hex))
                latencies.append(time.perf_counter() - started)

        await asyncio.gather(*(caller() for _ in range(matches)))
    return {"latencies": latencies}


async def _long_matches(address: str, matches: int, seconds: float) -> dict[str, Any]:
    """Long matches between two joined seats that only play cards (target 60): SubmitCommand latency by move."""
    import grpc

    from truco_client.v1 import game_service_pb2 as g
    from truco_client.v1 import game_service_pb2_grpc as gg
    from truco_client.v1 import rules_pb2

    early: list[float] = []
    late: list[float] = []
    longest = 0
    deadline = time.perf_counter() + seconds
    async with grpc.aio.insecure_channel(address) as channel:
        stub = gg.GameServiceStub(channel)

        async def one_match() -> None:
            nonlocal longest
            while time.perf_counter() < deadline:
                rules = rules_pb2.RuleSet(players=2, target=60)
                game = (await stub.CreateGame(g.CreateGameRequest(request_id=uuid.uuid4().hex, rules=rules))).game
                metadata = {}
                views = {}
                for seat in (0, 1):
                    joined = await stub.JoinGame(g.JoinGameRequest(name=game.name, seat=seat))
                    metadata[seat] = [("authorization", f"Bearer {joined.seat_token}")]
                    views[seat] = joined.view
                moves = 0
                view = views[0]
                while view.public.phase != 4 and time.perf_counter() < deadline:
                    seat = view.public.to_act[0]
                    if view.seat != seat or view.public.version != views[seat].public.version:
                        view = (
                            await stub.GetGameView(g.GetGameViewRequest(name=game.name), metadata=metadata[seat])
                        ).seat
                    plays = [a for a in view.legal_actions if a.WhichOneof("kind") == "play_card"]
                    request = g.SubmitCommandRequest(
                        name=game.name,
                        request_id=uuid.uuid4().hex,
                        expected_version=view.public.version,
                        command=plays[0] if plays else view.legal_actions[0],
                    )
                    started = time.perf_counter()
                    view = (await stub.SubmitCommand(request, metadata=metadata[seat])).view
                    elapsed = time.perf_counter() - started
                    views[seat] = view
                    moves += 1
                    longest = max(longest, moves)
                    if moves <= EARLY_MOVES:
                        early.append(elapsed)
                    elif moves >= LATE_FROM:
                        late.append(elapsed)

        await asyncio.gather(*(one_match() for _ in range(matches)))
    return {"early": early, "late": late, "longest": [float(longest)]}


async def _empty_rpcs(address: str, concurrency: int, seconds: float) -> dict[str, Any]:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    async with grpc.aio.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)

        async def caller() -> None:
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                await stub.Check(health_pb2.HealthCheckRequest(service="truco.v1.GameService"))
                latencies.append(time.perf_counter() - started)

        await asyncio.gather(*(caller() for _ in range(concurrency)))
    return {"latencies": latencies}


async def _read_rpcs(kind: str, address: str, concurrency: int, seconds: float) -> dict[str, Any]:
    """``concurrency`` callers, each with its own match against a bot (a few moves in), calling one read RPC
    (GetGameView or ListLegalActions) with its seat token in a closed loop, sending the version it has seen as
    ``min_version``, as the SDKs do."""
    import grpc

    from truco_client.v1 import game_service_pb2 as g
    from truco_client.v1 import game_service_pb2_grpc as gg

    latencies: list[float] = []
    async with grpc.aio.insecure_channel(address) as channel:
        stub = gg.GameServiceStub(channel)

        async def caller() -> None:
            bots = [g.BotSeat(seat=1, kind=g.BOT_KIND_RANDOM)]
            game = (await stub.CreateGame(g.CreateGameRequest(bots=bots))).game
            joined = await stub.JoinGame(g.JoinGameRequest(name=game.name, seat=0))
            metadata = [("authorization", f"Bearer {joined.seat_token}")]
            view = joined.view
            for _ in range(3):  # a hand in progress, not a fresh deal
                if view.public.phase == 4 or not view.legal_actions:
                    break
                request = g.SubmitCommandRequest(
                    name=game.name, expected_version=view.public.version, command=view.legal_actions[0]
                )
                view = (await stub.SubmitCommand(request, metadata=metadata)).view
            await ready.wait()
            deadline = time.perf_counter() + seconds
            seen = view.public.version
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                if kind == "views":
                    request = g.GetGameViewRequest(name=game.name, min_version=seen)
                    seen = (await stub.GetGameView(request, metadata=metadata)).public.version
                else:
                    legal = g.ListLegalActionsRequest(name=game.name, min_version=seen)
                    seen = (await stub.ListLegalActions(legal, metadata=metadata)).version
                latencies.append(time.perf_counter() - started)

        ready = asyncio.Event()
        tasks = [asyncio.ensure_future(caller()) for _ in range(concurrency)]
        await asyncio.sleep(1.0)  # every caller has its match: the timed loop is the read RPC alone
        ready.set()
        await asyncio.gather(*tasks)
    return {"latencies": latencies}


async def _views(address: str, concurrency: int, seconds: float) -> dict[str, Any]:
    return await _read_rpcs("views", address, concurrency, seconds)


async def _legal(address: str, concurrency: int, seconds: float) -> dict[str, Any]:
    return await _read_rpcs("legal", address, concurrency, seconds)


_WORKERS = {
    "moves": _play_against_bots,
    "new_matches": _new_matches,
    "long": _long_matches,
    "empty": _empty_rpcs,
    "views": _views,
    "legal": _legal,
}


def _client(kind: str, address: str, concurrency: int, seconds: float, out: Any) -> None:
    out.put(asyncio.run(_WORKERS[kind](address, concurrency, seconds)))


def run_clients(kind: str, address: str, processes: int, concurrency: int, seconds: float) -> dict[str, list[float]]:
    queue: Any = multiprocessing.get_context("spawn").Queue()
    workers = [
        multiprocessing.get_context("spawn").Process(target=_client, args=(kind, address, concurrency, seconds, queue))
        for _ in range(processes)
    ]
    for worker in workers:
        worker.start()
    merged: dict[str, list[float]] = {}
    for _ in workers:
        for key, values in queue.get(timeout=seconds + 120).items():
            merged.setdefault(key, []).extend(values)
    for worker in workers:
        worker.join()
    return merged


# --- Measuring ------------------------------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def summary(latencies: Sequence[float], seconds: float) -> dict[str, float]:
    return {
        "calls": len(latencies),
        "per_second": round(len(latencies) / seconds, 1),
        "p50_ms": round(percentile(latencies, 0.50) * 1000, 3),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 3),
    }


async def _active_matches(address: str, count: int) -> None:
    import grpc

    from truco_client.v1 import game_service_pb2 as g
    from truco_client.v1 import game_service_pb2_grpc as gg

    async with grpc.aio.insecure_channel(address) as channel:
        stub = gg.GameServiceStub(channel)

        async def one() -> None:
            game = (await stub.CreateGame(g.CreateGameRequest(bots=[g.BotSeat(seat=1, kind=g.BOT_KIND_RANDOM)]))).game
            joined = await stub.JoinGame(g.JoinGameRequest(name=game.name, seat=0))
            metadata = [("authorization", f"Bearer {joined.seat_token}")]
            await stub.GetGameView(g.GetGameViewRequest(name=game.name), metadata=metadata)

        for start in range(0, count, 50):
            await asyncio.gather(*(one() for _ in range(min(50, count - start))))


def memory_per_match(server: ServerProcess, count: int) -> dict[str, float]:
    asyncio.run(_active_matches(server.address, 50))  # warm the process up first
    before = server.rss_bytes()
    asyncio.run(_active_matches(server.address, count))
    after = server.rss_bytes()
    return {
        "matches": count,
        "rss_growth_mib": round((after - before) / 2**20, 2),
        "kib_per_match": round((after - before) / count / 1024, 1),
    }


def bench_store(store: str, args: argparse.Namespace, log: Any, truco: Path = TRUCO) -> dict[str, Any]:
    server = ServerProcess(store, truco)
    try:
        run = _run_phases(server, args, log)
    finally:
        server.stop()
    moves, empty, long, moves_applied = run.moves, run.empty, run.long, run.moves_applied
    move_stats = summary(moves["latencies"], args.seconds)
    empty_stats = summary(empty["latencies"], args.seconds)
    early_p50 = percentile(long["early"], 0.5)
    late_p50 = percentile(long["late"], 0.5)
    applied_rate = moves_applied / args.seconds
    cost = empty_stats["per_second"] / applied_rate if applied_rate else float("inf")
    move_cpu_ms = run.moves_cpu / max(moves_applied, 1) * 1000
    empty_cpu_ms = run.empty_cpu / max(len(empty["latencies"]), 1) * 1000
    cpu_cost = move_cpu_ms / empty_cpu_ms if empty_cpu_ms else float("inf")
    late_ratio = late_p50 / early_p50 if long["late"] else None
    return {
        "server_cpu_per_rpc_kind": _per_kind(run, args, empty_cpu_ms),
        "concurrency": args.processes * args.matches,
        "moves": move_stats,
        "empty_rpc": empty_stats,
        "move_cost_in_empty_rpcs": round(cost, 2),
        "moves_applied_per_second": round(moves_applied / args.seconds, 1),
        "moves_per_submit": round(moves_applied / max(len(moves["latencies"]), 1), 2),
        "server_cpu_ms_per_move": round(move_cpu_ms, 3),
        "server_cpu_ms_per_empty_rpc": round(empty_cpu_ms, 3),
        "move_cpu_cost_in_empty_rpcs": round(cpu_cost, 2),
        "meets_move_cost_target": cost <= TARGET_MOVE_OVER_EMPTY,
        "meets_move_cpu_cost_target": cpu_cost <= TARGET_MOVE_OVER_EMPTY,
        "early_move_p50_ms": round(early_p50 * 1000, 3),
        "late_move_p50_ms": round(late_p50 * 1000, 3) if long["late"] else None,
        "late_moves_measured": len(long["late"]),
        "longest_match_moves": int(max(long["longest"])),
        "late_over_early": round(late_ratio, 2) if late_ratio is not None else None,
        "meets_late_move_target": late_ratio is not None and late_ratio <= TARGET_LATE_OVER_EARLY,
        "memory": run.memory,
    }


@dataclass(frozen=True)
class _Phases:
    """What each phase of a store's run measured: the clients' results and the server's CPU seconds in it."""

    moves: dict[str, list[float]]
    moves_cpu: float
    moves_applied: float
    empty: dict[str, list[float]]
    empty_cpu: float
    new_matches: dict[str, list[float]]
    new_match_cpu: float
    reads: dict[str, tuple[dict[str, list[float]], float]]
    long: dict[str, list[float]]
    memory: dict[str, float]


def _run_phases(server: ServerProcess, args: argparse.Namespace, log: Any) -> _Phases:
    """Each phase against ``server`` in turn: moves, empty calls, new matches, the reads, long matches, memory."""
    concurrency = args.processes * args.matches
    log(f"  moves: {args.processes} processes x {args.matches} matches against a bot for {args.seconds:.0f} s")
    cpu, applied = server.cpu_seconds(), server.moves_applied()
    moves = run_clients("moves", server.address, args.processes, args.matches, args.seconds)
    moves_cpu, cpu = server.cpu_seconds() - cpu, server.cpu_seconds()
    moves_applied = server.moves_applied() - applied
    log(f"  empty RPC: {concurrency} concurrent callers for {args.seconds:.0f} s")
    empty = run_clients("empty", server.address, args.processes, args.matches, args.seconds)
    empty_cpu, cpu = server.cpu_seconds() - cpu, server.cpu_seconds()
    log(f"  new matches (CreateGame + JoinGame): {concurrency} concurrent callers for {args.seconds / 2:.0f} s")
    new_matches = run_clients("new_matches", server.address, args.processes, args.matches, args.seconds / 2)
    new_match_cpu = server.cpu_seconds() - cpu
    reads: dict[str, tuple[dict[str, list[float]], float]] = {}
    for kind in ("views", "legal"):
        log(f"  {READ_RPCS[kind]}: {concurrency} concurrent callers for {args.seconds:.0f} s")
        cpu = server.cpu_seconds()
        # The callers' setup (a match each, a few moves) is counted too, but is small beside the timed loop.
        result = run_clients(kind, server.address, args.processes, args.matches, args.seconds)
        reads[kind] = (result, server.cpu_seconds() - cpu)
    log(f"  long matches: {args.processes} processes x {args.matches} matches for {args.long_seconds:.0f} s")
    long = run_clients("long", server.address, args.processes, args.matches, args.long_seconds)
    log(f"  memory: {args.memory_matches} active matches")
    memory = memory_per_match(server, args.memory_matches)
    return _Phases(moves, moves_cpu, moves_applied, empty, empty_cpu, new_matches, new_match_cpu, reads, long, memory)


def _per_kind(run: _Phases, args: argparse.Namespace, empty_cpu_ms: float) -> dict[str, Any]:
    """The server's CPU per call of each kind, and its cost in empty calls."""
    moves, new_matches = run.moves, run.new_matches
    # The moves phase starts a match (CreateGame, JoinGame) every ~20 moves: their CPU, measured alone in the
    # new-matches phase, is taken out of SubmitCommand's (the gross figure, with them, is kept beside it).
    new_match_ms = run.new_match_cpu / max(len(new_matches["latencies"]), 1) * 1000
    started = sum(moves["matches"])
    submits = max(len(moves["latencies"]), 1)
    gross_submit_ms = run.moves_cpu / submits * 1000
    submit_cpu_ms = (run.moves_cpu * 1000 - started * new_match_ms) / submits
    per_kind: dict[str, Any] = {
        "SubmitCommand (with its bot replies)": {
            "calls": len(moves["latencies"]),
            "server_cpu_ms": round(submit_cpu_ms, 3),
            "cost_in_empty_rpcs": round(submit_cpu_ms / empty_cpu_ms, 2),
            "goal": GOALS_IN_EMPTY_RPCS["SubmitCommand"],
            "with_new_matches": {
                "matches_started": int(started),
                "server_cpu_ms": round(gross_submit_ms, 3),
                "cost_in_empty_rpcs": round(gross_submit_ms / empty_cpu_ms, 2),
            },
        },
        "CreateGame + JoinGame": {
            "calls": len(new_matches["latencies"]),
            "server_cpu_ms": round(new_match_ms, 3),
            "cost_in_empty_rpcs": round(new_match_ms / empty_cpu_ms, 2),
        },
    }
    for kind, (result, kind_cpu) in run.reads.items():
        calls = len(result["latencies"])
        kind_ms = kind_cpu / max(calls, 1) * 1000
        per_kind[READ_RPCS[kind]] = {
            "calls": calls,
            **summary(result["latencies"], args.seconds),
            "server_cpu_ms": round(kind_ms, 3),
            "cost_in_empty_rpcs": round(kind_ms / empty_cpu_ms, 2),
            "goal": GOALS_IN_EMPTY_RPCS.get(READ_RPCS[kind]),
        }
    empty_calls = len(run.empty["latencies"])
    per_kind["empty RPC (health Check)"] = {"calls": empty_calls, "server_cpu_ms": round(empty_cpu_ms, 3)}
    return per_kind


def truco_command(engine: str) -> Path:
    """The ``truco`` command of a venv whose server runs the ``engine`` build ("pure" or "compiled")."""
    if engine == "pure":
        return TRUCO
    python = Path(
        subprocess.run(
            [str(ROOT / "scripts" / "compiled-venv")], check=True, capture_output=True, text=True
        ).stdout.strip()
    )
    if not python.is_absolute():
        python = ROOT / python
    if not python.with_name("truco").exists():  # compiled-venv holds the engine and bots: add the SDK and server
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "--quiet",
                "-e",
                str(ROOT / "clients" / "python"),
                "-e",
                str(ROOT / "server"),
            ],
            check=True,
        )
    check = "import truco.engine.cards as m, sys; sys.exit(m.__file__.endswith('.py'))"
    subprocess.run([str(python), "-c", check], check=True)  # the engine there is the compiled one
    return python.with_name("truco")


def start_postgres() -> tuple[str, str]:
    """(url, cluster dir) of a throwaway PostgreSQL from the project's own script."""
    output = (
        subprocess.run(
            ["bash", str(ROOT / "scripts" / "postgres-test-cluster.sh")], check=True, capture_output=True, text=True
        )
        .stdout.strip()
        .splitlines()
    )
    return output[-1], output[0]


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.quick:
        args.seconds, args.long_seconds, args.memory_matches = 10.0, 20.0, 200

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": {"python": platform.python_version(), "cores": os.cpu_count(), "load_average": os.getloadavg()},
        "setup": {"processes": args.processes, "matches_per_process": args.matches, "seconds": args.seconds},
        "engines": {},
    }
    engines = {engine: truco_command(engine) for engine in args.engines.split(",")}
    with tempfile.TemporaryDirectory() as tmp:
        for store in args.stores.split(","):
            url, cluster = (f"sqlite:///{tmp}/bench.db", "") if store == "sqlite" else start_postgres()
            try:
                for engine, truco in engines.items():
                    log(f"{store}, {engine} engine:")
                    if store == "sqlite":
                        url = f"sqlite:///{tmp}/bench-{engine}.db"
                    result = bench_store(url, args, log, truco)
                    report["engines"].setdefault(engine, {"stores": {}})["stores"][store] = result
            finally:
                if cluster:
                    subprocess.run(
                        ["bash", str(ROOT / "scripts" / "postgres-test-cluster.sh"), "stop", cluster], check=False
                    )
    report["machine"]["load_average_after"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    _print_summary(report)
    print(f"report: {args.out}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--matches", type=int, default=8, help="concurrent matches per client process")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the moves and empty-RPC phases")
    parser.add_argument("--long-seconds", type=float, default=120.0, help="length of the long-match phase")
    parser.add_argument("--memory-matches", type=int, default=1000)
    parser.add_argument("--stores", default="sqlite,postgresql")
    parser.add_argument("--engines", default="pure,compiled", help="the server's engine builds to measure")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "server.json")
    return parser


def _print_summary(report: dict[str, Any]) -> None:
    """Two lines a store and engine: the move's rate, latency and cost, then each call's cost in empty RPCs."""
    for engine, runs in report["engines"].items():
        for name, result in runs["stores"].items():
            moves, empty = result["moves"], result["empty_rpc"]
            print(
                f"{name} ({engine} engine): {result['moves_applied_per_second']} moves/s in {moves['per_second']} "
                f"SubmitCommand/s (p50 {moves['p50_ms']} ms, p99 {moves['p99_ms']} ms); "
                f"empty RPC {empty['per_second']}/s; a move costs {result['move_cost_in_empty_rpcs']} empty RPCs "
                f"by rate, {result['move_cpu_cost_in_empty_rpcs']} by server CPU "
                f"({result['server_cpu_ms_per_move']} ms vs {result['server_cpu_ms_per_empty_rpc']} ms); "
                f"late/early move latency {result['late_over_early']}; "
                f"{result['memory']['kib_per_match']} KiB per match"
            )
            kinds = result["server_cpu_per_rpc_kind"]
            print(
                f"{name} ({engine} engine): server CPU per call in empty RPCs: "
                + ", ".join(
                    f"{kind} {v['cost_in_empty_rpcs']}" for kind, v in kinds.items() if "cost_in_empty_rpcs" in v
                )
            )


if __name__ == "__main__":
    sys.exit(main())
