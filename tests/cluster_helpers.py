"""Driving a load-balanced cluster (scripts/cluster.py) in the fault tests: load from ``truco selfplay`` through
nginx, faults by pid, and the checks afterwards straight from PostgreSQL (every match replayed by the engine,
every acknowledged move applied exactly once)."""

from __future__ import annotations

import asyncio
import importlib.util
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import grpc
import psycopg
from grpc_health.v1 import health_pb2, health_pb2_grpc

from truco.server.core.audit import CorruptMatch, audit_match
from truco.server.service import messages
from truco.server.store import open_store

ROOT = Path(__file__).resolve().parent.parent
TRUCO = ROOT / ".venv" / "bin" / "truco"
GAME_LINE = re.compile(r"^game \d+ games/([\w-]+): team 0")
MOVES_LINE = re.compile(r"^moves\s+(\d+) ")
ERRORS_LINE = re.compile(r"^errors\s+(.*)$")
LOAD_TIMEOUT = 240.0
"""A selfplay run that has not finished by then fails the test (a hang, not slowness: runs take ~10-30 s)."""


def load_cluster_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("truco_cluster_script", ROOT / "scripts" / "cluster.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


# --- Load --------------------------------------------------------------------------------------------------------


@dataclass
class Run:
    """What one ``truco selfplay`` run reported."""

    status: int
    output: str
    games: list[str] = field(default_factory=list)  #: ids of the games it finished
    moves: int = 0  #: moves acknowledged to its clients
    errors: str = ""  #: its "errors" line


class Load:
    """``truco selfplay`` through the balancer, in the background."""

    def __init__(
        self, balancer: str, *, games: int, players: int = 2, concurrency: int | None = None, retries: int = 8
    ) -> None:
        self.games = games
        command = [
            str(TRUCO), "selfplay", "--server", balancer, "--players", str(players), "--games", str(games),
            "--concurrency", str(concurrency or games), "--target", "15", "--retries", str(retries),
        ]  # fmt: skip
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def finish(self, timeout: float = LOAD_TIMEOUT) -> Run:
        try:
            output, _ = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            output, _ = self.process.communicate()
            raise AssertionError(f"selfplay did not finish in {timeout:g} s:\n{output[-3000:]}") from None
        run = Run(self.process.returncode, output)
        for line in output.splitlines():
            if match := GAME_LINE.match(line):
                run.games.append(match.group(1))
            elif match := MOVES_LINE.match(line):
                run.moves = int(match.group(1))
            elif match := ERRORS_LINE.match(line):
                run.errors = match.group(1)
        return run


def applied_so_far(url: str) -> int:
    """Moves recorded in the store so far (one append_requests row per applied SubmitCommand); ``url`` may name
    several shards (their URLs separated by spaces)."""
    total = 0
    for shard in url.split():
        with psycopg.connect(shard, connect_timeout=5) as conn:
            row = conn.execute("SELECT count(*) FROM append_requests").fetchone()
            assert row is not None
            total += int(row[0])
    return total


def wait_for_moves(url: str, count: int, timeout: float = 60.0) -> None:
    """Until ``count`` more moves than now are in the store: the load is well under way."""
    start = applied_so_far(url)
    deadline = time.monotonic() + timeout
    while applied_so_far(url) < start + count:
        assert time.monotonic() < deadline, f"fewer than {count} moves in {timeout:g} s"
        time.sleep(0.1)


# --- Health ------------------------------------------------------------------------------------------------------


def health(address: str, service: str = "truco.v1.GameService") -> str:
    """The health status a replica answers directly (not through the balancer), or the call's error code."""
    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=service), timeout=2)
        except grpc.RpcError as error:
            return str(error.code().name)  # type: ignore[attr-defined]
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


def wait_health(addresses: list[str], status: str, timeout: float) -> float:
    """Until every address answers ``status``; returns how long that took."""
    started = time.monotonic()
    while True:
        seen = [health(address) for address in addresses]
        if all(s == status for s in seen):
            return time.monotonic() - started
        assert time.monotonic() - started < timeout, f"not all {status} after {timeout:g} s: {seen}"
        time.sleep(0.2)


# --- Checks from the store ---------------------------------------------------------------------------------------


def applied_moves(url: str, game_ids: list[str]) -> int:
    """Moves the store holds for these games: one append_requests row per applied request id (every shard's)."""
    total = 0
    for shard in url.split():
        with psycopg.connect(shard, connect_timeout=5) as conn:
            query = "SELECT count(*) FROM append_requests WHERE game_id = ANY(%s)"
            row = conn.execute(query, (game_ids,)).fetchone()
            assert row is not None
            total += int(row[0])
    return total


@dataclass
class Audit:
    games: int
    events: int
    corrupt: list[str]


def audit_store(url: str) -> Audit:
    """Every match in the store, replayed by the engine (truco.server.core.audit)."""

    async def run() -> Audit:
        ids = []
        for shard in url.split():
            with psycopg.connect(shard, connect_timeout=5) as conn:
                ids += [row[0] for row in conn.execute("SELECT game_id FROM games ORDER BY game_id")]
        store = await open_store(url)
        result = Audit(len(ids), 0, [])
        try:
            for game_id in ids:
                record, events = await store.get_game(game_id), await store.read(game_id)
                result.events += len(events)
                try:
                    audit_match(record, events, messages.STORED_EVENTS)
                except CorruptMatch as error:
                    result.corrupt.append(str(error))
        finally:
            await store.close()
        return result

    return asyncio.run(run())


def assert_exactly_once_and_sound(url: str, run: Run, games: int) -> Audit:
    """Every game of the run finished, every acknowledged move is in the store once (no more: a retried request
    applied once; no less: nothing acknowledged lost), and every match in the store replays."""
    assert run.status == 0, f"selfplay failed:\n{run.output[-3000:]}"
    assert len(run.games) == games, f"{len(run.games)} of {games} games finished:\n{run.output[-3000:]}"
    assert run.moves > 0
    assert applied_moves(url, run.games) == run.moves, "acknowledged moves and stored moves differ"
    audit = audit_store(url)
    assert audit.corrupt == [], audit.corrupt
    assert audit.games >= games
    return audit
