"""The service under cheap abuse: API keys, quotas, fair limits, consistent tokens and bounded input.

Each test reproduces one weakness found by probing the service as an attacker would (issue 8) against real
servers on loopback, on SQLite and on PostgreSQL where the store takes part. Every test client comes from
127.0.0.1, so all anonymous clients are one caller; a second caller is a client with an API key.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from truco.server.core.keys import create_key
from truco.server.core.quotas import Limits, derived_watch_cap, memory_limit
from truco.server.store import open_store
from truco.server.store.records import ApiKeyRecord
from truco_client import TrucoClient
from truco_client.errors import Unauthenticated
from truco_client.v1 import game_service_pb2, game_service_pb2_grpc, rules_pb2, views_pb2

from ..players import Player, create_game, fails, failure_of, join, new_id
from ..servers import InProcessServer, LoopThread, Stores, wait_until

INVALID_ARGUMENT = grpc.StatusCode.INVALID_ARGUMENT
RESOURCE_EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED
UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED
FAILED_PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION
SERVING = health_pb2.HealthCheckResponse.SERVING
ROOT = Path(__file__).resolve().parents[2]
TRUCO = ROOT / ".venv" / "bin" / "truco"
NO_LIMITS = Limits.unlimited()
TIMEOUT = 20.0


# --- Fixtures and helpers --------------------------------------------------------------------------------------


@pytest.fixture
def servers(loop: LoopThread, server_log: Path) -> Iterator[list[InProcessServer]]:
    """Servers a test starts (``servers.append(...)``), stopped when it ends."""
    started: list[InProcessServer] = []
    yield started
    for server in started:
        server.stop()


def start(loop: LoopThread, servers: list[InProcessServer], store: str, **options: Any) -> InProcessServer:
    server = InProcessServer(loop, store, **options)
    servers.append(server)
    return server


def api_key(loop: LoopThread, server: InProcessServer, name: str = "app") -> str:
    _, key = loop.run(create_key(server.server.store, name))
    return key


def keyed(key: str) -> tuple[tuple[str, str], ...]:
    return (("x-api-key", key),)


def details(error: grpc.RpcError) -> dict[str, Any]:
    """The ErrorInfo, RetryInfo and QuotaFailure of a failed call (sync or asyncio), by kind."""
    trailers = error.trailing_metadata()  # type: ignore[attr-defined]
    encoded = [value for key, value in trailers or () if key == "grpc-status-details-bin"]
    assert encoded, f"no google.rpc.Status in {error}"
    status = status_pb2.Status.FromString(encoded[0])
    found: dict[str, Any] = {}
    for detail in status.details:
        for kind in (error_details_pb2.ErrorInfo, error_details_pb2.RetryInfo, error_details_pb2.QuotaFailure):
            if detail.Is(kind.DESCRIPTOR):
                message = kind()
                detail.Unpack(message)
                found[kind.__name__] = message
    return found


def quota_failure(call: Any) -> tuple[str, float, str]:
    """Run a call that must exceed a quota: (the quota, seconds to wait, whom it charged)."""
    try:
        call()
    except grpc.RpcError as error:
        assert failure_of(error).kind == (RESOURCE_EXHAUSTED, "QUOTA_EXCEEDED"), failure_of(error)
        found = details(error)
        info, retry, quota = found["ErrorInfo"], found["RetryInfo"], found["QuotaFailure"]
        delay = retry.retry_delay.seconds + retry.retry_delay.nanos / 1e9
        assert delay > 0
        assert float(info.metadata["retry_after_seconds"]) == pytest.approx(delay, abs=0.002)
        assert quota.violations[0].subject
        return info.metadata["quota"], delay, quota.violations[0].subject
    raise AssertionError("the call was not refused")


def create_request(**options: Any) -> game_service_pb2.CreateGameRequest:
    options.setdefault("request_id", new_id())
    return game_service_pb2.CreateGameRequest(rules=rules_pb2.RuleSet(players=2), **options)


def join_request(name: str, request_id: str | None = None, player_name: str = "p") -> game_service_pb2.JoinGameRequest:
    return game_service_pb2.JoinGameRequest(
        name=name, request_id=new_id() if request_id is None else request_id, player_name=player_name
    )


def health(address: str) -> int:
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return stub.Check(health_pb2.HealthCheckRequest(service="truco.v1.GameService"), timeout=10).status


# --- Client credentials ----------------------------------------------------------------------------------------


def test_keys_are_required_to_create_and_join_when_the_server_says_so(
    loop: LoopThread, servers: list[InProcessServer], stores: Stores
) -> None:
    server = start(loop, servers, stores.new_url(), require_api_key=True, limits=NO_LIMITS)
    key = api_key(loop, server)
    player = Player(server.address)
    try:
        games = player.games
        assert fails(lambda: games.CreateGame(create_request(), timeout=TIMEOUT)).kind == (
            UNAUTHENTICATED,
            "API_KEY_REQUIRED",
        )
        bogus = "truco_000000000000_" + "x" * 43
        assert fails(lambda: games.CreateGame(create_request(), metadata=keyed(bogus), timeout=TIMEOUT)).kind == (
            UNAUTHENTICATED,
            "API_KEY_INVALID",
        )
        game = games.CreateGame(create_request(), metadata=keyed(key), timeout=TIMEOUT).game
        assert fails(lambda: games.JoinGame(join_request(game.name), timeout=TIMEOUT)).kind == (
            UNAUTHENTICATED,
            "API_KEY_REQUIRED",
        )
        joined = games.JoinGame(join_request(game.name), metadata=keyed(key), timeout=TIMEOUT)
        # Seat calls need the seat token (taken under a key that still holds), and no key header.
        seat = (("authorization", f"Bearer {joined.seat_token}"),)
        assert games.GetGameView(game_service_pb2.GetGameViewRequest(name=game.name), metadata=seat).seat.seat == 0
        # A spectator of this private game needs its app's key; a watch needs a key whatever the game.
        view = games.GetGameView(game_service_pb2.GetGameViewRequest(name=game.name), metadata=keyed(key))
        assert view.public.version > 0
        assert fails(lambda: games.GetGameView(game_service_pb2.GetGameViewRequest(name=game.name))).kind == (
            grpc.StatusCode.NOT_FOUND,
            "GAME_NOT_FOUND",
        )
        watch = game_service_pb2.WatchGameRequest(name=game.name)
        assert fails(lambda: next(iter(games.WatchGame(watch, timeout=TIMEOUT)))).kind == (
            UNAUTHENTICATED,
            "API_KEY_REQUIRED",
        )
        assert next(iter(games.WatchGame(watch, metadata=keyed(key), timeout=TIMEOUT))).event.version > 0
    finally:
        player.close()


def test_a_revoked_key_is_refused(loop: LoopThread, servers: list[InProcessServer], stores: Stores) -> None:
    server = start(loop, servers, stores.new_url(), require_api_key=True, limits=NO_LIMITS)
    replica = start(loop, servers, server.server.config.store, require_api_key=True, limits=NO_LIMITS)
    for each in (server, replica):
        each.server.admission.keys.ttl = 0.2  # how long a replica trusts a lookup (5 s by default)
    record, key = loop.run(create_key(server.server.store, "soon revoked"))
    player, other = Player(server.address), Player(replica.address)
    try:
        player.games.CreateGame(create_request(), metadata=keyed(key), timeout=TIMEOUT)
        other.games.CreateGame(create_request(), metadata=keyed(key), timeout=TIMEOUT)
        loop.run(server.server.store.revoke_api_key(record.key_id, "2026-01-01T00:00:00.000000Z"))
        time.sleep(0.25)
        for client in (player, other):
            refused = fails(lambda c=client: c.games.CreateGame(create_request(), metadata=keyed(key), timeout=TIMEOUT))
            assert refused.kind == (UNAUTHENTICATED, "API_KEY_REVOKED")
    finally:
        player.close()
        other.close()


def test_list_games_shows_a_key_its_own_games_and_the_public_ones(
    loop: LoopThread, servers: list[InProcessServer], stores: Stores
) -> None:
    server = start(loop, servers, stores.new_url(), require_api_key=True, limits=NO_LIMITS)
    alice, bob = api_key(loop, server, "alice"), api_key(loop, server, "bob")
    player = Player(server.address)
    try:

        def create(key: str, public: bool = False) -> str:
            request = create_request(public=public)
            game = player.games.CreateGame(request, metadata=keyed(key), timeout=TIMEOUT).game
            assert game.public is public
            return game.name

        alice_private, alice_public, bob_private = create(alice), create(alice, public=True), create(bob)

        def listed(metadata: tuple[tuple[str, str], ...]) -> list[str]:
            request = game_service_pb2.ListGamesRequest(page_size=100)
            return [game.name for game in player.games.ListGames(request, metadata=metadata, timeout=TIMEOUT).games]

        assert listed(keyed(alice)) == [alice_public, alice_private]
        assert listed(keyed(bob)) == [bob_private, alice_public]
        assert listed(()) == [alice_public]
    finally:
        player.close()


def test_truco_keys_creates_lists_and_revokes(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'keys.db'}"

    def keys(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(TRUCO), "keys", "--store", store, *args], capture_output=True, text=True, timeout=60, check=False
        )

    created = keys("create", "--name", "my app", "--json")
    assert created.returncode == 0, created.stderr
    made = json.loads(created.stdout)
    assert made["key"].startswith(f"truco_{made['key_id']}_") and made["name"] == "my app"
    assert made["key"] not in (tmp_path / "keys.db").read_bytes().decode("latin-1")  # stored hashed only
    listed = keys("list")
    assert made["key_id"] in listed.stdout and "active" in listed.stdout and made["key"] not in listed.stdout
    revoked = keys("revoke", made["key_id"])
    assert revoked.returncode == 0 and "revoked" in revoked.stdout
    assert "revoked" in keys("list").stdout
    unknown = keys("revoke", "000000000000")
    assert unknown.returncode == 2 and "no API key" in unknown.stderr


def test_the_python_sdk_sends_its_api_key(loop: LoopThread, servers: list[InProcessServer]) -> None:
    server = start(
        loop,
        servers,
        f"sqlite:///{Path(os.environ.get('TMPDIR', '/tmp')) / f'sdk-{new_id()}.db'}",
        require_api_key=True,
        limits=NO_LIMITS,
    )
    key = api_key(loop, server)

    async def play() -> None:
        async with TrucoClient(server.address, retries=0) as anonymous:
            with pytest.raises(Unauthenticated) as refused:
                await anonymous.create_game(bots={1: "random"})
            assert refused.value.reason == "API_KEY_REQUIRED"
        async with TrucoClient(server.address, api_key=key, retries=0) as client:
            game = await client.create_game(rules={"players": 4}, bots={1: "random"}, public=True)
            assert game.public
            joined = await client.join_game(game.name, seat=0)
            assert joined.seat == 0
            seat = client.with_token(joined.token)  # shares the channel and the key
            await seat.join_game(game.name, seat=2)
            await seat.close()

    asyncio.run(play())


def connect_call(server: InProcessServer, method: str, body: dict[str, Any], key: str | None) -> tuple[int, Any]:
    """A Connect (JSON) call on the web port: the HTTP status and the decoded body."""
    assert server.server.web is not None
    headers = {"content-type": "application/json", **({"x-api-key": key} if key else {})}
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.server.web.port}/truco.v1.GameService/{method}",
        data=json.dumps(body).encode(),
        headers=headers,
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def connect_details(body: Any) -> dict[str, Any]:
    kinds = {
        "google.rpc.ErrorInfo": error_details_pb2.ErrorInfo,
        "google.rpc.RetryInfo": error_details_pb2.RetryInfo,
        "google.rpc.QuotaFailure": error_details_pb2.QuotaFailure,
    }
    found: dict[str, Any] = {}
    for detail in body.get("details", []):
        if detail["type"] in kinds:
            data = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
            found[detail["type"].rpartition(".")[2]] = kinds[detail["type"]].FromString(data)
    return found


def test_the_web_port_admits_calls_like_the_grpc_port(loop: LoopThread, servers: list[InProcessServer]) -> None:
    """Connect and gRPC-Web calls go through the same Admission: keys required, one bucket per caller for
    both ports, quota details in the Connect error."""
    store = f"sqlite:///{Path(os.environ.get('TMPDIR', '/tmp')) / f'web-{new_id()}.db'}"
    limits = Limits(calls_per_second=0.5, burst=3)
    server = start(loop, servers, store, require_api_key=True, limits=limits, web=True)
    key = api_key(loop, server)
    status, body = connect_call(server, "CreateGame", {"rules": {"players": 2}}, None)
    assert status == 401 and connect_details(body)["ErrorInfo"].reason == "API_KEY_REQUIRED"
    status, body = connect_call(server, "CreateGame", {"rules": {"players": 2}, "public": True}, key)
    assert status == 200 and body["game"]["public"] is True
    player = Player(server.address)
    try:
        player.games.ListGames(game_service_pb2.ListGamesRequest(), metadata=keyed(key), timeout=TIMEOUT)
        player.games.ListGames(game_service_pb2.ListGamesRequest(), metadata=keyed(key), timeout=TIMEOUT)
    finally:
        player.close()
    status, body = connect_call(server, "ListGames", {}, key)  # the key's fourth call: its bucket is shared
    found = connect_details(body)
    assert status == 429 and found["ErrorInfo"].reason == "QUOTA_EXCEEDED"
    assert found["ErrorInfo"].metadata["quota"] == "calls_per_second"
    assert found["RetryInfo"].retry_delay.seconds >= 1
    assert found["QuotaFailure"].violations[0].subject.startswith("key:")
    status, body = connect_call(server, "ListGames", {"pageToken": "a\u0000b"}, None)
    assert status == 400 and connect_details(body)["ErrorInfo"].reason == "INVALID_PAGE_TOKEN"


# --- Quotas and rate limits ------------------------------------------------------------------------------------


def test_calls_per_second_are_limited_per_caller(loop: LoopThread, servers: list[InProcessServer]) -> None:
    store = f"sqlite:///{Path(os.environ.get('TMPDIR', '/tmp')) / f'rate-{new_id()}.db'}"
    server = start(loop, servers, store, limits=Limits(calls_per_second=2, burst=5))
    key = api_key(loop, server)
    player = Player(server.address)
    try:
        request = game_service_pb2.ListGamesRequest()
        for _ in range(5):
            player.games.ListGames(request, timeout=TIMEOUT)
        quota, delay, subject = quota_failure(lambda: player.games.ListGames(request, timeout=TIMEOUT))
        assert (quota, subject) == ("calls_per_second", "peer:127.0.0.1")
        assert delay <= 0.5
        # Another caller (a key) has a bucket of its own; the health service none at all.
        for _ in range(5):
            player.games.ListGames(request, metadata=keyed(key), timeout=TIMEOUT)
        assert health(server.address) == SERVING
        time.sleep(delay)
        player.games.ListGames(request, timeout=TIMEOUT)  # the bucket refilled as RetryInfo said
    finally:
        player.close()


def test_games_created_per_minute_and_open_games_are_limited(
    loop: LoopThread, servers: list[InProcessServer], stores: Stores
) -> None:
    url = stores.new_url()
    per_minute = start(loop, servers, url, limits=Limits(calls_per_second=0, games_per_minute=3, open_games=0))
    player = Player(per_minute.address)
    try:
        for _ in range(3):
            player.games.CreateGame(create_request(), timeout=TIMEOUT)
        quota, delay, _ = quota_failure(lambda: player.games.CreateGame(create_request(), timeout=TIMEOUT))
        assert quota == "games_per_minute" and 10 < delay <= 20
        # Open games are counted in the store: games created through one replica count on every other one.
        capped = Limits(calls_per_second=0, games_per_minute=0, open_games=4)
        one, two = start(loop, servers, url, limits=capped), start(loop, servers, url, limits=capped)
        first, second = Player(one.address), Player(two.address)
        first.games.CreateGame(create_request(), timeout=TIMEOUT)  # the fourth unfinished game
        quota, _, subject = quota_failure(lambda: second.games.CreateGame(create_request(), timeout=TIMEOUT))
        assert (quota, subject) == ("open_games", "peer:127.0.0.1")
        first.close()
        second.close()
    finally:
        player.close()


def test_an_all_bot_game_is_played_in_bounded_steps(
    loop: LoopThread, servers: list[InProcessServer], stores: Stores
) -> None:
    server = start(loop, servers, stores.new_url(), limits=NO_LIMITS)
    player = Player(server.address)
    try:
        bots = [game_service_pb2.BotSeat(seat=s, kind=game_service_pb2.BOT_KIND_HEURISTIC) for s in (0, 1)]
        created = []
        for _ in range(5):  # bots may (rarely) win a match within one step: one unfinished game is enough
            request = create_request(bots=bots)
            request.rules.target = 30
            created.append(player.games.CreateGame(request, timeout=TIMEOUT).game)
        unfinished = [game for game in created if game.phase != views_pb2.PHASE_MATCH_OVER]
        assert unfinished, "every all-bot match was played to its end inside CreateGame"
        game = unfinished[0]
        # The autoplayer finishes it in steps, each one a separate append that watchers see.
        versions = []
        for item in player.games.WatchGame(game_service_pb2.WatchGameRequest(name=game.name), timeout=120):
            versions.append(item.event.version)
        final = player.view(game.name).public
        assert final.phase == views_pb2.PHASE_MATCH_OVER
        assert max(versions) == final.version > game.version
    finally:
        player.close()


# --- Fair limits -----------------------------------------------------------------------------------------------


def test_a_spectator_flood_degrades_only_the_flooder(loop: LoopThread, servers: list[InProcessServer]) -> None:
    """2,400 WatchGame streams from one anonymous client on 24 connections, in four waves: the flooder holds at
    most its own caps (and gets QUOTA_EXCEEDED for the rest), while health checks and another caller's calls and
    watch keep answering. With gRPC's server-wide maximum_concurrent_rpcs the flooder held 2,000 streams and
    every other call, health checks included, got RESOURCE_EXHAUSTED ("Concurrent RPC limit exceeded!")."""
    store = f"sqlite:///{Path(os.environ.get('TMPDIR', '/tmp')) / f'flood-{new_id()}.db'}"
    limits = Limits()  # the production defaults
    server = start(loop, servers, store, limits=limits)
    key = api_key(loop, server, "fair app")
    name = create_game(server.address, 2, public=True).name  # the flooder's to watch, and the fair app's
    address = server.address

    async def flood() -> tuple[list[Any], float, dict[str, Any]]:
        options = [("grpc.use_local_subchannel_pool", 1)]
        channels = [grpc.aio.insecure_channel(address, options=options) for _ in range(24)]
        request = game_service_pb2.WatchGameRequest(name=name)
        started = time.perf_counter()

        calls: list[tuple[int, Any]] = []
        outcomes: list[tuple[int, str]] = []
        for wave in range(4):  # 600 at a time: gRPC's core sheds part of bigger bursts before anyone sees them
            batch = [
                (index, game_service_pb2_grpc.GameServiceStub(channels[index]).WatchGame(request, timeout=60))
                for index in range(wave * 6, wave * 6 + 6)
                for _ in range(100)
            ]
            calls += batch
            outcomes += await asyncio.gather(*(_first_outcome(index, call) for index, call in batch))
        elapsed = time.perf_counter() - started
        # While the flooder holds its streams open: health, and another caller, are served.
        other = await _another_caller(address, name, key)
        for _, call in calls:
            call.cancel()
        for channel in channels:
            await channel.close()
        return outcomes, elapsed, other

    outcomes, elapsed, other = asyncio.run(flood())
    opened = [index for index, outcome in outcomes if outcome == "open"]
    refused = [outcome for _, outcome in outcomes if outcome != "open"]
    print(f"flood: {len(outcomes)} streams in {elapsed:.2f}s, {len(opened)} open, refusals {Counter(refused)}")
    assert other == {"health": SERVING, "version": other["version"], "watched": 1}
    assert 1 <= len(opened) <= limits.watch_streams
    assert max(opened.count(index) for index in set(opened)) <= limits.watch_streams_per_connection
    # Every refusal is a quota of the flooder's, with RetryInfo (CANCELLED: shed by gRPC's core under the burst
    # before the service saw it, holding nothing).
    assert set(refused) <= {
        "calls_per_second", "player_calls_per_second", "watch_streams", "watch_streams_per_connection", "CANCELLED"
    }
    assert Counter(refused)["CANCELLED"] < len(refused) / 4
    assert health(address) == SERVING


async def _first_outcome(index: int, call: Any) -> tuple[int, str]:
    """A flooding stream's fate: "open" once its first message comes, else the code or the quota that refused it."""
    try:
        await call.read()
        return index, "open"
    except grpc.aio.AioRpcError as error:
        if error.code() != RESOURCE_EXHAUSTED:
            return index, error.code().name
        info = details(error)
        return index, info["ErrorInfo"].metadata["quota"] if "RetryInfo" in info else "no details"


async def _another_caller(address: str, name: str, key: str) -> dict[str, Any]:
    """What another app (``key``) gets on a connection of its own: a health check, the game's view, its watch."""
    other: dict[str, Any] = {}
    options = [("grpc.use_local_subchannel_pool", 1)]
    async with grpc.aio.insecure_channel(address, options=options) as mine:
        stub = game_service_pb2_grpc.GameServiceStub(mine)
        health_stub = health_pb2_grpc.HealthStub(mine)
        other["health"] = (await health_stub.Check(health_pb2.HealthCheckRequest(), timeout=5)).status
        view = await stub.GetGameView(game_service_pb2.GetGameViewRequest(name=name), metadata=keyed(key), timeout=5)
        other["version"] = view.public.version
        watch = stub.WatchGame(game_service_pb2.WatchGameRequest(name=name), metadata=keyed(key), timeout=5)
        other["watched"] = (await watch.read()).event.version
        watch.cancel()
    return other


def test_one_connection_holds_at_most_its_share_of_watches(loop: LoopThread, servers: list[InProcessServer]) -> None:
    store = f"sqlite:///{Path(os.environ.get('TMPDIR', '/tmp')) / f'conn-{new_id()}.db'}"
    server = start(loop, servers, store, limits=Limits(calls_per_second=0, watch_streams_per_connection=3))
    name = create_game(server.address, 2).name
    player = Player(server.address)
    try:
        streams = [player.games.WatchGame(game_service_pb2.WatchGameRequest(name=name), timeout=30) for _ in range(3)]
        for stream in streams:
            next(stream)
        quota, _, _ = quota_failure(lambda: next(player.games.WatchGame(game_service_pb2.WatchGameRequest(name=name))))
        assert quota == "watch_streams_per_connection"
        for stream in streams:
            stream.cancel()
        # Closed streams give their slots back.
        assert wait_until(lambda: not server.server.admission.connection_watches.held)
        fresh = player.games.WatchGame(game_service_pb2.WatchGameRequest(name=name), timeout=30)
        next(fresh)
        fresh.cancel()
    finally:
        player.close()


# --- Consistent tokens -----------------------------------------------------------------------------------------


def test_the_server_refuses_to_start_on_postgres_without_a_token_key(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TRUCO_TOKEN_KEY"}
    command = [str(TRUCO), "serve", "--store", "postgresql://truco@127.0.0.1:1/truco", "--port", "0"]
    started = subprocess.run(
        [*command, "--metrics-port", "-1"], capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path
    )
    assert started.returncode == 2, started
    assert "TRUCO_TOKEN_KEY" in started.stderr and "listening" not in started.stdout


def test_a_join_retry_on_a_server_with_another_token_key_never_rekeys_the_seat(
    loop: LoopThread, servers: list[InProcessServer], stores: Stores
) -> None:
    """A replica (or a restart) without the shared key used to hand out a new token and re-key the seat: the
    holder was locked out on some replicas and its old token still moved on those that remembered it."""
    url = stores.new_url()
    first = start(loop, servers, url, limits=NO_LIMITS, token_key="one key")
    other = start(loop, servers, url, limits=NO_LIMITS, token_key="another key")
    game = create_game(first.address, 2)
    request_id = new_id()
    holder = join(first.address, game.name, request_id=request_id)
    try:
        retry = fails(lambda: join(other.address, game.name, request_id=request_id))
        assert retry.kind == (FAILED_PRECONDITION, "JOIN_NOT_REPEATABLE")
        again = join(first.address, game.name, request_id=request_id)  # the key that issued it still can
        assert again.token == holder.token
        for server in (first, other):  # the first token holds the seat on both
            assert Player(server.address, 0, holder.token).view(game.name).seat.seat == 0
    finally:
        holder.close()


@pytest.mark.parametrize(
    ("request_id", "reason"),
    [
        ("1", "WEAK_REQUEST_ID"),
        ("0123456789abcdef", "WEAK_REQUEST_ID"),  # 64 bits
        ("9" * 38, "WEAK_REQUEST_ID"),  # 126 bits of decimal digits
        ("a b", "INVALID_REQUEST_ID"),
        ("x" * 129, "INVALID_REQUEST_ID"),
        ("ab" * 16, "WEAK_REQUEST_ID"),  # 128 bits by its shape, two by its content
        ("0123456789abcdef" * 2, "WEAK_REQUEST_ID"),
        ("e4c40180-f13b-11f1-8273-02fc00000001", "WEAK_REQUEST_ID"),  # version 1: a time and a machine
        ("0193a1b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b", "WEAK_REQUEST_ID"),  # version 7: a time
        ("2ed6657d-e927-568b-95e1-2665a8aea6a2", "WEAK_REQUEST_ID"),  # version 5: a name's hash
    ],
)
def test_join_request_ids_need_128_bits(
    loop: LoopThread, servers: list[InProcessServer], request_id: str, reason: str
) -> None:
    store = f"sqlite:///{Path(os.environ.get('TMPDIR', '/tmp')) / f'ids-{new_id()}.db'}"
    server = start(loop, servers, store, limits=NO_LIMITS)
    game = create_game(server.address, 2)
    player = Player(server.address)
    try:
        refused = fails(lambda: player.games.JoinGame(join_request(game.name, request_id), timeout=TIMEOUT))
        assert refused.kind == (INVALID_ARGUMENT, reason)
        for strong in (new_id(), "7c9e6679-7425-40de-944b-e07fc1f90ae7", base64.urlsafe_b64encode(os.urandom(17))):
            text = strong.decode() if isinstance(strong, bytes) else strong
            player.games.JoinGame(join_request(create_game(server.address, 2).name, text), timeout=TIMEOUT)
    finally:
        player.close()


def test_a_join_is_repeated_only_until_its_token_is_used(
    loop: LoopThread, servers: list[InProcessServer], stores: Stores
) -> None:
    """A join's request id fetched the seat token for the whole match: whoever learned or guessed it later
    (a log, a predictable id) took over the seat. It now recovers only a token never used, on every replica."""
    url = stores.new_url()
    first = start(loop, servers, url, limits=NO_LIMITS, token_key="shared")
    other = start(loop, servers, url, limits=NO_LIMITS, token_key="shared")
    game = create_game(first.address, 2)
    request_id = new_id()
    holder = join(first.address, game.name, request_id=request_id)
    try:
        for server in (first, other):  # a lost reply: the same seat and token, from any replica
            again = join(server.address, game.name, request_id=request_id)
            assert (again.seat, again.token) == (holder.seat, holder.token)
            again.close()
        assert holder.view(game.name).seat.seat == holder.seat  # the holder has its token: the seat is used

        def repeated(address: str) -> tuple[object, str] | None:
            try:
                join(address, game.name, request_id=request_id).close()
            except grpc.RpcError as error:
                return failure_of(error).kind
            return None

        assert repeated(first.address) == (FAILED_PRECONDITION, "JOIN_NOT_REPEATABLE")
        # The other replica learns of the use from the store's sightings (written every second).
        assert wait_until(lambda: repeated(other.address) == (FAILED_PRECONDITION, "JOIN_NOT_REPEATABLE"))
        assert holder.view(game.name).seat.seat == holder.seat  # and the holder keeps its seat
    finally:
        holder.close()


def test_the_seat_cache_is_bounded(loop: LoopThread, servers: list[InProcessServer], stores: Stores) -> None:
    """Each join used to stay in the token-to-seat cache for ever (300 B per join)."""
    server = start(loop, servers, stores.new_url(), limits=NO_LIMITS)
    games = server.server.games
    games.seats.cache_size = 3
    seated = []
    try:
        for _ in range(5):
            name = create_game(server.address, 2).name
            seated.append((name, join(server.address, name)))
        assert len(games.seats._held) == 3
        for name, player in seated:  # forgotten tokens are looked up in the store again
            assert player.view(name).seat.seat == 0
        assert len(games.seats._held) == 3
    finally:
        for _, player in seated:
            player.close()


# --- Games belong to their app (issue 18) ----------------------------------------------------------------------


def bearer_of(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def test_a_join_request_id_is_bound_to_the_app_it_came_under(
    loop: LoopThread, servers: list[InProcessServer], stores: Stores
) -> None:
    """A join's request id fetches its seat token again: learned by another app (a log, a shared device), it
    fetches nothing there, while the app it came under still gets its token back."""
    server = start(loop, servers, stores.new_url(), limits=NO_LIMITS)
    alice, bob = api_key(loop, server, "alice"), api_key(loop, server, "bob")
    player = Player(server.address)
    try:
        game = player.games.CreateGame(create_request(public=True), metadata=keyed(alice), timeout=TIMEOUT).game
        request = join_request(game.name, new_id())
        joined = player.games.JoinGame(request, metadata=keyed(alice), timeout=TIMEOUT)
        refused = fails(lambda: player.games.JoinGame(request, metadata=keyed(bob), timeout=TIMEOUT))
        assert refused.kind == (FAILED_PRECONDITION, "JOIN_NOT_REPEATABLE")
        again = player.games.JoinGame(request, metadata=keyed(alice), timeout=TIMEOUT)
        assert (again.seat, again.seat_token) == (joined.seat, joined.seat_token)
    finally:
        player.close()


def test_a_private_game_is_joined_and_watched_only_with_its_apps_key(
    loop: LoopThread, servers: list[InProcessServer], stores: Stores
) -> None:
    server = start(loop, servers, stores.new_url(), limits=NO_LIMITS)
    alice, bob = api_key(loop, server, "alice"), api_key(loop, server, "bob")
    player = Player(server.address)
    try:
        games = player.games
        private = games.CreateGame(create_request(), metadata=keyed(alice), timeout=TIMEOUT).game
        public = games.CreateGame(create_request(public=True), metadata=keyed(alice), timeout=TIMEOUT).game
        not_found = (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
        for outsider in (keyed(bob), ()):  # another app's key, and no key at all
            assert fails(lambda o=outsider: games.JoinGame(join_request(private.name), metadata=o)).kind == not_found
            watch = game_service_pb2.WatchGameRequest(name=private.name)
            assert fails(lambda o=outsider, w=watch: next(iter(games.WatchGame(w, metadata=o)))).kind == not_found
            view = game_service_pb2.GetGameViewRequest(name=private.name)
            assert fails(lambda o=outsider, v=view: games.GetGameView(v, metadata=o)).kind == not_found
            get = game_service_pb2.GetGameRequest(name=private.name)
            assert fails(lambda o=outsider, g=get: games.GetGame(g, metadata=o)).kind == not_found
            # A made-up token tells the private game from a missing one no better: NOT_FOUND both.
            invented = (*outsider, *bearer_of("made-up-token-" + "0" * 40))
            for name in (private.name, "games/" + "0" * 32):
                asked = game_service_pb2.GetGameViewRequest(name=name)
                assert fails(lambda m=invented, a=asked: games.GetGameView(a, metadata=m)).kind == not_found
        # The public game is anyone's to join and watch; the private one its app's.
        games.JoinGame(join_request(public.name), metadata=keyed(bob), timeout=TIMEOUT)
        joined = games.JoinGame(join_request(private.name), metadata=keyed(alice), timeout=TIMEOUT)
        watch = game_service_pb2.WatchGameRequest(name=private.name)
        assert next(iter(games.WatchGame(watch, metadata=keyed(alice), timeout=TIMEOUT))).event.version > 0
        # The seat's token is the seat's player's pass, whatever key header comes with it.
        request = game_service_pb2.GetGameViewRequest(name=private.name)
        assert games.GetGameView(request, metadata=bearer_of(joined.seat_token), timeout=TIMEOUT).seat.seat == 0
    finally:
        player.close()


def test_seat_tokens_die_with_the_key_they_were_taken_under(
    loop: LoopThread, servers: list[InProcessServer], stores: Stores
) -> None:
    server = start(loop, servers, stores.new_url(), require_api_key=True, limits=NO_LIMITS)
    server.server.admission.keys.ttl = 0.2  # how long a replica trusts a lookup (5 s by default)
    record, key = loop.run(create_key(server.server.store, "soon revoked"))
    player = Player(server.address)
    try:
        game = player.games.CreateGame(create_request(), metadata=keyed(key), timeout=TIMEOUT).game
        joined = player.games.JoinGame(join_request(game.name), metadata=keyed(key), timeout=TIMEOUT)
        request = game_service_pb2.GetGameViewRequest(name=game.name)
        assert player.games.GetGameView(request, metadata=bearer_of(joined.seat_token), timeout=TIMEOUT).seat
        loop.run(server.server.store.revoke_api_key(record.key_id, "2026-01-01T00:00:00.000000Z"))
        time.sleep(0.25)
        # No key header at all: the token alone no longer holds the seat.
        refused = fails(lambda: player.games.GetGameView(request, metadata=bearer_of(joined.seat_token)))
        assert refused.kind == (UNAUTHENTICATED, "API_KEY_REVOKED")
        legal = game_service_pb2.ListLegalActionsRequest(name=game.name)
        refused = fails(lambda: player.games.ListLegalActions(legal, metadata=bearer_of(joined.seat_token)))
        assert refused.kind == (UNAUTHENTICATED, "API_KEY_REVOKED")
    finally:
        player.close()


def test_unknown_api_keys_are_throttled_before_the_store_is_asked(
    loop: LoopThread, servers: list[InProcessServer]
) -> None:
    store = f"sqlite:///{Path(os.environ.get('TMPDIR', '/tmp')) / f'keys-{new_id()}.db'}"
    server = start(loop, servers, store, limits=Limits(calls_per_second=1000, burst=1000))
    lookups = 0
    looked_up = server.server.store.api_key_by_hash

    async def counted(secret_hash: bytes) -> Any:
        nonlocal lookups
        lookups += 1
        return await looked_up(secret_hash)

    server.server.store.api_key_by_hash = counted  # type: ignore[method-assign]
    player = Player(server.address)
    try:
        outcomes: Counter[str] = Counter()
        for number in range(200):
            bogus = keyed(f"truco_{number:012x}_" + "x" * 43)
            failure = fails(lambda b=bogus: player.games.ListGames(game_service_pb2.ListGamesRequest(), metadata=b))
            outcomes[failure.reason] += 1
        assert outcomes["QUOTA_EXCEEDED"] >= 150, outcomes
        assert lookups <= 30, f"{lookups} store lookups for 200 made-up keys"
    finally:
        player.close()


def finished_game(player: Player, address: str) -> tuple[game_service_pb2.Game, Player]:
    """A 2-player game against a bot that ended (its player left: the bot played its seat too), and that player."""
    bot = [game_service_pb2.BotSeat(seat=1, kind=game_service_pb2.BOT_KIND_RANDOM)]
    game = player.games.CreateGame(create_request(bots=bot), timeout=TIMEOUT).game
    seated = join(address, game.name, 0)
    seated.games.LeaveGame(game_service_pb2.LeaveGameRequest(name=game.name), metadata=seated.metadata)
    assert wait_until(lambda: seated.view(game.name).public.phase == views_pb2.PHASE_MATCH_OVER, timeout=60)
    return game, seated


def test_a_rematch_is_charged_as_a_new_game(loop: LoopThread, servers: list[InProcessServer]) -> None:
    store = f"sqlite:///{Path(os.environ.get('TMPDIR', '/tmp')) / f'rematch-{new_id()}.db'}"
    server = start(loop, servers, store, limits=Limits(calls_per_second=0, games_per_minute=2, open_games=0))
    player = Player(server.address)
    try:
        game, seated = finished_game(player, server.address)
        request = game_service_pb2.RematchRequest(name=game.name)
        seated.games.Rematch(request, metadata=seated.metadata, timeout=TIMEOUT)  # the minute's second game
        quota, _, _ = quota_failure(lambda: seated.games.Rematch(request, metadata=seated.metadata, timeout=TIMEOUT))
        assert quota == "games_per_minute"
        seated.close()
    finally:
        player.close()


def test_anonymous_joins_are_limited_per_address(loop: LoopThread, servers: list[InProcessServer]) -> None:
    store = f"sqlite:///{Path(os.environ.get('TMPDIR', '/tmp')) / f'joins-{new_id()}.db'}"
    server = start(loop, servers, store, limits=Limits(calls_per_second=0, joins_per_minute=3))
    key = api_key(loop, server)
    player = Player(server.address)
    try:
        name = create_game(server.address, 6).name
        for _ in range(3):
            player.games.JoinGame(join_request(name), timeout=TIMEOUT)
        quota, _, subject = quota_failure(lambda: player.games.JoinGame(join_request(name), timeout=TIMEOUT))
        assert (quota, subject) == ("joins_per_minute", "peer:127.0.0.1")
        keyed_game = player.games.CreateGame(create_request(), metadata=keyed(key), timeout=TIMEOUT).game
        for _ in range(2):  # an app's players join under its key, which the operator answers for
            player.games.JoinGame(join_request(keyed_game.name), metadata=keyed(key), timeout=TIMEOUT)
    finally:
        player.close()


def test_watches_are_capped_per_key_and_per_address(loop: LoopThread, servers: list[InProcessServer]) -> None:
    store = f"sqlite:///{Path(os.environ.get('TMPDIR', '/tmp')) / f'watch-caps-{new_id()}.db'}"
    limits = Limits(calls_per_second=0, watch_streams=4, watch_streams_per_key=2, watch_streams_per_connection=0)
    server = start(loop, servers, store, limits=limits)
    key = api_key(loop, server)
    player = Player(server.address)
    streams: list[Any] = []
    try:
        keyed_game = player.games.CreateGame(create_request(), metadata=keyed(key), timeout=TIMEOUT).game
        open_game = create_game(server.address, 2)

        def watch(name: str, metadata: tuple[tuple[str, str], ...] = ()) -> Any:
            stream = player.games.WatchGame(game_service_pb2.WatchGameRequest(name=name), metadata=metadata)
            streams.append(stream)
            next(iter(stream))  # the first event: the stream is open and admitted
            return stream

        watch(keyed_game.name, keyed(key))
        watch(keyed_game.name, keyed(key))
        quota, _, subject = quota_failure(lambda: watch(keyed_game.name, keyed(key)))
        assert quota == "watch_streams_per_key" and subject.startswith("key:")
        for _ in range(4):  # the anonymous callers at this address: a count of their own
            watch(open_game.name)
        quota, _, subject = quota_failure(lambda: watch(open_game.name))
        assert subject == "peer:127.0.0.1"
        assert quota == "watch_streams"
    finally:
        for stream in streams:
            stream.cancel()
        player.close()


def test_the_server_wide_watch_cap_is_derived_from_memory() -> None:
    assert Limits().server_watch_streams is None
    assert Limits().server_watch_cap() == derived_watch_cap() == max(100, memory_limit() // 4 // (64 * 1024))
    assert Limits(server_watch_streams=7).server_watch_cap() == 7


def test_the_web_ports_429_says_when_to_retry(loop: LoopThread, servers: list[InProcessServer]) -> None:
    store = f"sqlite:///{Path(os.environ.get('TMPDIR', '/tmp')) / f'retry-after-{new_id()}.db'}"
    server = start(loop, servers, store, limits=Limits(calls_per_second=0.2, burst=1), web=True)
    assert server.server.web is not None
    url = f"http://127.0.0.1:{server.server.web.port}/truco.v1.GameService/ListGames"
    headers = {"content-type": "application/json"}
    with urllib.request.urlopen(urllib.request.Request(url, b"{}", headers), timeout=TIMEOUT) as answer:
        assert answer.status == 200
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(urllib.request.Request(url, b"{}", headers), timeout=TIMEOUT)
    assert refused.value.code == 429
    assert int(refused.value.headers["Retry-After"]) in range(1, 7)


def test_key_names_are_printable_text(loop: LoopThread, tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'keys.db'}"
    escape = "\x1b[2J\x1b[31mpwned\x07"

    def keys(*args: str) -> subprocess.CompletedProcess[str]:
        command = [str(TRUCO), "keys", "--store", store, *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)

    refused = keys("create", "--name", escape)
    assert refused.returncode == 2 and "control" in refused.stderr and "\x1b" not in refused.stdout
    # A name stored before names were checked is listed with its control characters escaped.
    opened = loop.run(open_store(store))
    try:
        loop.run(opened.create_api_key(ApiKeyRecord("0123456789ab", escape, b"h" * 32, "2026-01-01T00:00:00Z")))
    finally:
        loop.run(opened.close())
    listed = keys("list")
    assert listed.returncode == 0 and "\x1b" not in listed.stdout and "\\x1b[2J" in listed.stdout


# --- Bounded input ---------------------------------------------------------------------------------------------


def nested_page_token(depth: int) -> str:
    return base64.urlsafe_b64encode(("[" * depth + "]" * depth).encode()).decode().rstrip("=")


def test_input_the_store_cannot_hold_is_invalid_before_the_store_sees_it(
    loop: LoopThread, servers: list[InProcessServer], stores: Stores
) -> None:
    """A NUL byte was INTERNAL on PostgreSQL, a 60 KB request id UNAVAILABLE (retryable!) there and stored as
    sent by SQLite, a deeply nested page token INTERNAL."""
    server = start(loop, servers, stores.new_url(), limits=NO_LIMITS)
    game = create_game(server.address, 2)
    player = Player(server.address)
    games = player.games
    try:
        cases = [
            (lambda: games.CreateGame(create_request(request_id="x\x00y"), timeout=TIMEOUT), "INVALID_REQUEST_ID"),
            (lambda: games.CreateGame(create_request(request_id="r" * 60_000), timeout=TIMEOUT), "INVALID_REQUEST_ID"),
            (
                lambda: games.JoinGame(join_request(game.name, player_name="Ana\x00"), timeout=TIMEOUT),
                "INVALID_PLAYER_NAME",
            ),
            (lambda: games.JoinGame(join_request(game.name, "j" * 60_000), timeout=TIMEOUT), "INVALID_REQUEST_ID"),
            (
                lambda: games.ListGames(game_service_pb2.ListGamesRequest(page_token="a\x00b"), timeout=TIMEOUT),
                "INVALID_PAGE_TOKEN",
            ),
            (
                lambda: games.ListGames(
                    game_service_pb2.ListGamesRequest(page_token=nested_page_token(5000)), timeout=TIMEOUT
                ),
                "INVALID_PAGE_TOKEN",
            ),
            (
                lambda: games.ListGames(
                    game_service_pb2.ListGamesRequest(page_token=nested_page_token(50)), timeout=TIMEOUT
                ),
                "INVALID_PAGE_TOKEN",
            ),
        ]
        for call, reason in cases:
            assert fails(call).kind == (INVALID_ARGUMENT, reason)
        listed = games.ListGames(game_service_pb2.ListGamesRequest(page_size=100), timeout=TIMEOUT)
        assert [g.name for g in listed.games] == [game.name]  # nothing was created by the refused calls
    finally:
        player.close()


def test_an_unexpected_error_is_logged_with_its_traceback(
    loop: LoopThread, servers: list[InProcessServer], server_log: Path
) -> None:
    store = f"sqlite:///{Path(os.environ.get('TMPDIR', '/tmp')) / f'bug-{new_id()}.db'}"
    server = start(loop, servers, store, limits=NO_LIMITS)
    name = create_game(server.address, 2).name

    async def broken(game_id: str, min_version: int = 0) -> Any:
        raise ZeroDivisionError("a bug of ours " + game_id)

    server.server.games.snapshots.get = broken  # type: ignore[method-assign]
    player = Player(server.address)
    try:
        assert fails(lambda: player.view(name)).kind == (grpc.StatusCode.INTERNAL, "INTERNAL")
    finally:
        player.close()
    lines = [json.loads(line) for line in server_log.read_text().splitlines() if "unexpected error" in line]
    assert lines, "no 'unexpected error' line"
    assert "Traceback (most recent call last)" in lines[-1]["traceback"]
    assert "ZeroDivisionError: a bug of ours" in lines[-1]["traceback"]


def test_a_watch_the_client_cancels_is_counted_as_cancelled_and_metrics_bind_the_host(
    loop: LoopThread, servers: list[InProcessServer]
) -> None:
    store = f"sqlite:///{Path(os.environ.get('TMPDIR', '/tmp')) / f'cancel-{new_id()}.db'}"
    server = start(loop, servers, store, limits=NO_LIMITS, metrics=True)
    assert server.server._metrics_http.server_address[0] == "127.0.0.1"  # was 0.0.0.0 whatever --host said
    name = create_game(server.address, 2).name
    player = Player(server.address)
    try:
        stream = player.games.WatchGame(game_service_pb2.WatchGameRequest(name=name), timeout=30)
        next(stream)
        stream.cancel()
    finally:
        player.close()

    def codes() -> dict[str, float]:
        url = f"http://127.0.0.1:{server.metrics_port}/metrics"
        text = urllib.request.urlopen(url, timeout=10).read().decode()
        found: dict[str, float] = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == "grpc_server_handled_total" and sample.labels["grpc_method"] == "WatchGame":
                    found[sample.labels["grpc_code"]] = sample.value
        return found

    assert wait_until(lambda: codes().get("CANCELLED", 0) == 1), codes()
    assert codes().get("UNKNOWN", 0) == 0
