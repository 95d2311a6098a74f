"""Quotas that fit real apps: one bucket per player inside its app's total, and an app's totals set per API key.

An app is an API key (every player of it together) or, without a key, a client address; a player is a seat
token, or a connection for calls without one (``truco.server.core.app_quotas``). Real servers on loopback.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from truco.server.core.app_quotas import AppQuotas, player_of
from truco.server.core.keys import create_key
from truco.server.core.quotas import Limits
from truco_client.v1 import game_service_pb2

from ..players import Player, create_game, join, new_id
from ..servers import InProcessServer, LoopThread

ROOT = Path(__file__).resolve().parents[2]
TRUCO = ROOT / ".venv" / "bin" / "truco"
TIMEOUT = 20.0


@pytest.fixture
def started(loop: LoopThread) -> Iterator[list[InProcessServer]]:
    servers: list[InProcessServer] = []
    yield servers
    for server in servers:
        server.stop()


def start(loop: LoopThread, servers: list[InProcessServer], limits: Limits) -> InProcessServer:
    store = f"sqlite:///{Path(os.environ.get('TMPDIR', '/tmp')) / f'app-quotas-{new_id()}.db'}"
    server = InProcessServer(loop, store, limits=limits)
    servers.append(server)
    return server


def refusal(call: grpc.RpcError) -> tuple[str, str, float]:
    """(quota, subject, retry delay) of a QUOTA_EXCEEDED refusal."""
    assert call.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]
    trailers = dict(call.trailing_metadata() or ())  # type: ignore[attr-defined]
    status = status_pb2.Status.FromString(trailers["grpc-status-details-bin"])
    info, retry, quota = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo(), error_details_pb2.QuotaFailure()
    for detail in status.details:
        for message in (info, retry, quota):
            if detail.Is(message.DESCRIPTOR):
                detail.Unpack(message)
    assert info.reason == "QUOTA_EXCEEDED"
    delay = retry.retry_delay.seconds + retry.retry_delay.nanos / 1e9
    return info.metadata["quota"], quota.violations[0].subject, delay


def calls_until_refused(player: Player, name: str, most: int, metadata: tuple[tuple[str, str], ...] = ()) -> int:
    """How many GetGameView calls the player got in before a refusal (``most`` if none)."""
    for done in range(most):
        try:
            player.games.GetGameView(
                game_service_pb2.GetGameViewRequest(name=name), metadata=(*metadata, *player.metadata), timeout=TIMEOUT
            )
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:  # type: ignore[attr-defined]
                raise
            return done
    return most


def test_a_runaway_player_is_stopped_and_its_tablemates_play_on(
    loop: LoopThread, started: list[InProcessServer]
) -> None:
    limits = Limits(calls_per_second=0, burst=0, player_calls_per_second=1, player_burst=5)
    server = start(loop, started, limits)
    name = create_game(server.address, 4).name
    seats = [join(server.address, name, seat) for seat in range(4)]
    try:
        runaway, others = seats[0], seats[1:]
        assert calls_until_refused(runaway, name, 20) == 5
        try:
            runaway.view(name)
        except grpc.RpcError as error:
            quota, subject, delay = refusal(error)
        else:
            raise AssertionError("the runaway player was not refused")
        assert quota == "player_calls_per_second" and subject.startswith("seat:") and 0 < delay <= 1.0
        assert runaway.token is not None and runaway.token not in subject  # a digest, never the token
        for other in others:  # each seat token is a bucket of its own
            assert calls_until_refused(other, name, 5) == 5
    finally:
        for seat in seats:
            seat.channel.close()


def test_an_apps_players_share_its_total_and_a_key_may_have_its_own(
    loop: LoopThread, started: list[InProcessServer]
) -> None:
    limits = Limits(calls_per_second=0.1, burst=8, player_calls_per_second=0, player_burst=0)
    server = start(loop, started, limits)
    _, small = loop.run(create_key(server.server.store, "small app"))
    _, big = loop.run(create_key(server.server.store, "big app", AppQuotas(calls_per_second=100, burst=200)))
    name = create_game(server.address, 2).name
    first, second = join(server.address, name, 0), join(server.address, name, 1)
    try:
        key = (("x-api-key", small),)
        # The small app's two players together get its 8 calls, then both are refused on the app's total.
        assert calls_until_refused(first, name, 5, key) == 5
        assert calls_until_refused(second, name, 5, key) == 3
        try:
            first.games.GetGameView(game_service_pb2.GetGameViewRequest(name=name), metadata=key, timeout=TIMEOUT)
        except grpc.RpcError as error:
            quota, subject, _ = refusal(error)
        else:
            raise AssertionError("the small app was not refused")
        assert quota == "calls_per_second" and subject.startswith("key:")
        # The big app's key carries its own total: the same players go on far past the server's flag.
        assert calls_until_refused(first, name, 60, (("x-api-key", big),)) == 60
    finally:
        first.channel.close()
        second.channel.close()


def test_keys_create_stores_an_apps_own_totals(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'keys.db'}"
    made = subprocess.run(
        [str(TRUCO), "keys", "--store", store, "create", "--name", "big app", "--calls-per-second", "2000",
         "--burst", "4000", "--watch-streams", "5000", "--json"],
        capture_output=True, text=True, check=True,
    )
    created = json.loads(made.stdout)
    assert created["quotas"]["calls_per_second"] == 2000 and created["quotas"]["open_games"] is None
    listed = subprocess.run(
        [str(TRUCO), "keys", "--store", store, "list"], capture_output=True, text=True, check=True
    ).stdout
    assert created["key_id"] in listed
    assert "burst=4000 calls_per_second=2000 watch_streams=5000" in listed


def test_app_quotas_round_trip_and_override_only_what_they_set() -> None:
    quotas = AppQuotas(calls_per_second=2000, watch_streams=500)
    assert AppQuotas.from_json(quotas.to_json()) == quotas
    assert AppQuotas.from_json('{"calls_per_second": 5, "a_newer_quota": 1, "burst": true}') == AppQuotas(5)
    limits = quotas.over(Limits())
    assert (limits.calls_per_second, limits.watch_streams, limits.burst) == (2000, 500, Limits().burst)
    assert AppQuotas().over(Limits()) is not None and AppQuotas().empty
    with pytest.raises(ValueError):
        AppQuotas(burst=-1)


def test_a_player_is_its_seat_token_or_its_connection() -> None:
    one = player_of((("authorization", "Bearer tok-1"),), "ipv4:1.2.3.4:5")
    assert one.startswith("seat:") and "tok-1" not in one
    assert one == player_of((("Authorization", b"bearer tok-1"),), "ipv4:9.9.9.9:9")  # any connection
    assert one != player_of((("authorization", "Bearer tok-2"),), "ipv4:1.2.3.4:5")
    assert player_of((("x-api-key", "k"),), "ipv4:1.2.3.4:5") == "conn:ipv4:1.2.3.4:5"
    assert player_of((("authorization", "Basic abc"),), "ipv4:1.2.3.4:5") == "conn:ipv4:1.2.3.4:5"
