"""A caller learns its quota before it is refused, on both ports: every admitted call reports what is left of its
call rate (``ratelimit-limit``, ``-remaining``, ``-reset``, ``-policy``: HTTP headers on the web port, gRPC
metadata on the gRPC port), and a call a quota refused says when to send it again to the millisecond
(``retry-after-ms``, beside the whole seconds of ``retry-after`` and the status' RetryInfo). The headers are
written once (``service/quota_headers.py``) from what the one admission found (``limits/admission.py``)."""

from __future__ import annotations

import http.client
import json
import math
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2, status_pb2

from truco.server.core.quotas import Limits
from truco_client.v1 import cards_pb2, game_service_pb2, game_service_pb2_grpc, rules_service_pb2

from ..servers import InProcessServer, LoopThread

EVALUATE = "/truco.v1.RulesService/EvaluateHand"
HAND = rules_service_pb2.EvaluateHandRequest(
    muestra=cards_pb2.Card(rank=1, suit=cards_pb2.SUIT_ORO),
    cards=[
        cards_pb2.Card(rank=2, suit=cards_pb2.SUIT_ORO),
        cards_pb2.Card(rank=7, suit=cards_pb2.SUIT_ESPADA),
        cards_pb2.Card(rank=3, suit=cards_pb2.SUIT_COPA),
    ],
)
PLAYER_LIMITS = Limits(calls_per_second=100, burst=200, player_calls_per_second=2, player_burst=5)
"""A player (one connection, without a seat token) may make 5 calls at once, then 2 a second; its app far more."""
POLICY = '5;w=2.5;name="player_calls_per_second"'


@pytest.fixture(scope="module")
def loop() -> Iterator[LoopThread]:
    running = LoopThread()
    yield running
    running.close()


@pytest.fixture
def started(loop: LoopThread) -> Iterator[list[InProcessServer]]:
    servers: list[InProcessServer] = []
    yield servers
    for server in servers:
        server.stop()


def start(loop: LoopThread, started: list[InProcessServer], tmp: Path, limits: Limits) -> InProcessServer:
    server = InProcessServer(loop, f"sqlite:///{tmp}/quota.db", limits=limits, web=True)
    started.append(server)
    return server


def evaluate(channel: grpc.Channel) -> grpc.Call:
    method = channel.unary_unary(
        EVALUATE,
        rules_service_pb2.EvaluateHandRequest.SerializeToString,
        rules_service_pb2.EvaluateHandResponse.FromString,
    )
    _, call = method.with_call(HAND, timeout=10)
    return call


def retry_delay_ms(trailers: dict[str, str | bytes]) -> float:
    """The status' RetryInfo delay, in milliseconds."""
    details = trailers["grpc-status-details-bin"]
    assert isinstance(details, bytes)
    for detail in status_pb2.Status.FromString(details).details:
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            return info.retry_delay.ToNanoseconds() / 1e6
    raise AssertionError("no RetryInfo")


def test_the_grpc_port_reports_the_call_rate_left_and_the_retry_delay_to_the_millisecond(
    loop: LoopThread, started: list[InProcessServer], tmp_path: Path
) -> None:
    server = start(loop, started, tmp_path, PLAYER_LIMITS)
    with grpc.insecure_channel(server.address) as channel:
        seen = []
        for _ in range(5):
            trailers = dict(evaluate(channel).trailing_metadata() or ())
            assert trailers["ratelimit-limit"] == "5" and trailers["ratelimit-policy"] == POLICY
            assert 1 <= int(trailers["ratelimit-reset"]) <= 3
            seen.append(int(trailers["ratelimit-remaining"]))
        assert seen == [4, 3, 2, 1, 0], "the caller saw its quota run out before it was refused"
        with pytest.raises(grpc.RpcError) as refused:
            evaluate(channel)
    error = refused.value
    assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]
    trailers = dict(error.trailing_metadata() or ())  # type: ignore[attr-defined]
    delay = retry_delay_ms(trailers)
    assert 0 < delay <= 500, "the next token of a 2-a-second bucket is at most half a second away"
    assert trailers["retry-after-ms"] == str(math.ceil(round(delay, 6))), "the RetryInfo's delay, rounded up"
    assert trailers["retry-after"] == "1", "whole seconds, as RFC 9110 has it"


def test_the_web_port_reports_the_same_headers_over_connect(
    loop: LoopThread, started: list[InProcessServer], tmp_path: Path
) -> None:
    server = start(loop, started, tmp_path, PLAYER_LIMITS)
    assert server.server.web is not None
    # One connection: one player.
    connection = http.client.HTTPConnection("127.0.0.1", server.server.web.port, timeout=10)
    body = json_format.MessageToJson(HAND)
    try:
        seen = []
        for _ in range(5):
            connection.request("POST", EVALUATE, body, {"content-type": "application/json"})
            answer = connection.getresponse()
            answer.read()
            assert answer.status == 200
            assert answer.getheader("ratelimit-limit") == "5" and answer.getheader("ratelimit-policy") == POLICY
            seen.append(int(answer.getheader("ratelimit-remaining") or -1))
        assert seen == [4, 3, 2, 1, 0]
        connection.request("POST", EVALUATE, body, {"content-type": "application/json"})
        refused = connection.getresponse()
        error = json.loads(refused.read())
    finally:
        connection.close()
    assert refused.status == 429 and error["code"] == "resource_exhausted"
    retry = next(detail["debug"] for detail in error["details"] if detail["type"] == "google.rpc.RetryInfo")
    delay = float(retry["retryDelay"].rstrip("s")) * 1000
    assert 0 < delay <= 500
    assert refused.getheader("retry-after") == "1"
    assert refused.getheader("retry-after-ms") == str(math.ceil(round(delay, 6)))


def test_the_apps_quota_is_reported_when_it_is_the_closer_to_refusing(
    loop: LoopThread, started: list[InProcessServer], tmp_path: Path
) -> None:
    # Each call on a connection of its own: a fresh player each time, one app (the address) that has 3 calls.
    limits = Limits(calls_per_second=0.5, burst=3, player_calls_per_second=20, player_burst=40)
    server = start(loop, started, tmp_path, limits)
    seen = []
    for _ in range(3):
        with grpc.insecure_channel(server.address) as channel:
            trailers = dict(evaluate(channel).trailing_metadata() or ())
        assert trailers["ratelimit-policy"] == '3;w=6;name="calls_per_second"'
        seen.append(int(trailers["ratelimit-remaining"]))
    assert seen == [2, 1, 0]


def test_a_stream_reports_its_quota_in_its_headers_and_a_failed_call_in_its_trailers(
    loop: LoopThread, started: list[InProcessServer], tmp_path: Path
) -> None:
    server = start(loop, started, tmp_path, PLAYER_LIMITS)
    with grpc.insecure_channel(server.address) as channel:
        games = game_service_pb2_grpc.GameServiceStub(channel)
        game = games.CreateGame(game_service_pb2.CreateGameRequest(), timeout=10).game
        watch = games.WatchGame(game_service_pb2.WatchGameRequest(name=game.name, after_version=0), timeout=10)
        headers = dict(watch.initial_metadata() or ())
        watch.cancel()
        assert headers["ratelimit-remaining"] == "3" and headers["ratelimit-policy"] == POLICY
        with pytest.raises(grpc.RpcError) as missing:  # admitted, then refused by the service: NOT_FOUND
            games.GetGame(game_service_pb2.GetGameRequest(name="games/nosuchgame"), timeout=10)
    error = missing.value
    assert error.code() is grpc.StatusCode.NOT_FOUND  # type: ignore[attr-defined]
    trailers = dict(error.trailing_metadata() or ())  # type: ignore[attr-defined]
    assert trailers["ratelimit-remaining"] == "2" and "retry-after" not in trailers


def test_no_quota_headers_when_call_rates_are_off(
    loop: LoopThread, started: list[InProcessServer], tmp_path: Path
) -> None:
    server = start(loop, started, tmp_path, Limits.unlimited())
    with grpc.insecure_channel(server.address) as channel:
        trailers = dict(evaluate(channel).trailing_metadata() or ())
    assert not [name for name in trailers if name.startswith("ratelimit-")]
