"""Driving a load-balanced cluster (scripts/cluster.py) in the fault tests: load from ``truco selfplay`` through
nginx, quick-match players (an app registered as an operator does, its players' clients through nginx), faults by
pid, and the checks afterwards straight from PostgreSQL (every match replayed by the engine, every acknowledged move
applied exactly once, every quick-match ticket matched once)."""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import json
import re
import secrets
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import grpc
import jwt
import psycopg
from grpc_health.v1 import health_pb2, health_pb2_grpc

from truco.server.core.audit import CorruptMatch, audit_match
from truco.server.service import messages
from truco.server.store import open_store
from truco_client import TrucoClient

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


# --- Quick match -------------------------------------------------------------------------------------------------


def register_app(url: str, name: str, directory: Path, kid: str = "k1") -> tuple[str, bytes]:
    """An app registered as an operator does it (README, "Players"): ``truco keys create`` then ``truco keys
    signing-key add`` with an HS256 secret, against the cluster's store. Its API key id and the secret."""
    store = ["--store", url]
    created = subprocess.run(
        [str(TRUCO), "keys", *store, "create", "--name", name, "--json"], capture_output=True, text=True, check=True
    )
    key_id = str(json.loads(created.stdout)["key_id"])
    secret = base64.b64encode(secrets.token_bytes(48))  # as `head -c 48 /dev/urandom | base64` writes it
    path = directory / f"{kid}.secret"
    path.write_bytes(secret)
    subprocess.run(
        [str(TRUCO), "keys", *store, "signing-key", "add", key_id, "--kid", kid, "--hmac-secret-file", str(path)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return key_id, secret


def player_token(app: str, secret: bytes, sub: str, kid: str = "k1") -> str:
    """What the app's backend mints for a logged-in player (the README's example)."""
    now = int(time.time())
    claims = {"iss": app, "sub": sub, "name": sub.title(), "aud": "truco", "iat": now, "exp": now + 900}
    return jwt.encode(claims, secret, algorithm="HS256", headers={"kid": kid})


@dataclass(frozen=True)
class Seeker:
    """A player looking for a quick match: its table size and partners."""

    sub: str
    players: int
    party: tuple[str, ...] = ()


@dataclass(frozen=True)
class Found:
    """What a seeker's client got: the ticket, the game and seat it was matched to, and the seat its seat token
    shows in the game's view (read back through the balancer)."""

    sub: str
    ticket: str
    game: str
    seat: int
    viewed_seat: int


async def seek(balancer: str, token: str, seeker: Seeker, max_wait: float = 150.0) -> Found | None:
    """One player's client, with its own channel and connection: the SDK's quick match (a broken FindMatch stream
    is opened again with the same request id), then its seat's view. None when the ticket ended unmatched."""
    # A connection of its own, as each player's phone has: gRPC would otherwise share one between the channels of
    # one process that have the same target and options. Retries as the load's clients in the other replica-kill
    # tests (8, about 12 s of backoff): the SDK's default 4 (1.5 s) gave up once on nginx's 502s while the killed
    # replica was left out and started again (fail_timeout 5 s), before the failover had settled.
    options = [("grpc.use_local_subchannel_pool", 1)]
    async with TrucoClient(balancer, player_token=token, options=options, retries=8) as client:
        match = await client.quick_match({"players": seeker.players}, party=seeker.party, max_wait=max_wait)
        if match is None:
            return None
        view = await client.get_view(match.game)
        return Found(seeker.sub, match.ticket.name, match.game, match.seat, view.seat.seat)


def replica_gauge(replica: Any, name: str) -> float | None:
    """A gauge from a replica's /metrics (None: it does not answer, or has no such gauge)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{replica.metrics_port}/metrics", timeout=5) as response:
            text = response.read().decode()
    except OSError:
        return None
    found = re.search(rf"^{name} (\S+)$", text, re.M)
    return float(found.group(1)) if found else None


def lease_holder(url: str) -> str:
    """The matcher's lease row: who holds it ("host:pid:random"), or "" while nobody does (lapsed or none)."""
    with psycopg.connect(url, connect_timeout=5) as conn:
        row = conn.execute("SELECT holder, until_us FROM leases WHERE name = 'matcher'").fetchone()
    return str(row[0]) if row is not None and int(row[1]) > time.time() * 1e6 else ""


def holder_pid(holder: str) -> int:
    return int(holder.split(":")[1]) if holder.count(":") == 2 else 0


@dataclass(frozen=True)
class QuickMatchRecords:
    """What the store says of an app's quick matches."""

    tickets: list[tuple[str, str, str, str, int, tuple[str, ...]]]  #: (ticket id, player, state, game id, seat, party)
    games: list[str]  #: every game the matcher created for the app
    seats: list[tuple[str, int, str]]  #: (game id, seat, player) of every seat a player of the app took


def quick_match_records(url: str, app: str) -> QuickMatchRecords:
    with psycopg.connect(url, connect_timeout=5) as conn:
        tickets = conn.execute(
            "SELECT ticket_id, player, state, game_id, seat, party FROM tickets WHERE app = %s", (app,)
        ).fetchall()
        games = conn.execute("SELECT game_id FROM games WHERE creator = %s", (f"quick:{app}",)).fetchall()
        seats = conn.execute(
            "SELECT game_id, seat, player FROM seats WHERE key_id = %s AND player <> ''", (app,)
        ).fetchall()
    return QuickMatchRecords(
        [(t, p, s, g, seat, tuple(filter(None, party.split(",")))) for t, p, s, g, seat, party in tickets],
        [row[0] for row in games],
        [(g, seat, p) for g, seat, p in seats],
    )


def ticket_states(url: str, app: str) -> Counter[str]:
    """How many of the app's tickets are in each state."""
    with psycopg.connect(url, connect_timeout=5) as conn:
        rows = conn.execute("SELECT state, count(*) FROM tickets WHERE app = %s GROUP BY state", (app,)).fetchall()
    return Counter({str(state): int(count) for state, count in rows})
