"""PlayGame sessions whose client reads nothing (an HTTP/2 window of 0) hold no call slot, and end.

The attack of issue 31: spectator sessions (no token needed) that send commands and never read their outcomes.
Each command holds an in-flight slot while it is applied; a client that never reads must not keep it, or a few
such sessions fill the server's slots and every other caller is refused.
"""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import h2.connection
import h2.events
import h2.settings
import pytest

from truco.server.core.quotas import Limits
from truco.server.service import sessions
from truco_client.v1 import (
    cards_pb2,
    game_service_pb2,
    game_service_pb2_grpc,
    rules_service_pb2,
    rules_service_pb2_grpc,
)

from ..servers import InProcessServer, LoopThread

SERVER_SLOTS = 8
SESSIONS = 12
COMMANDS = 40
PLAY_GAME = "/truco.v1.GameService/PlayGame"
COMPARISON = rules_service_pb2.CompareCardsRequest(
    muestra=cards_pb2.Card(rank=1, suit=cards_pb2.SUIT_ORO),
    first=cards_pb2.Card(rank=2, suit=cards_pb2.SUIT_ORO),
    second=cards_pb2.Card(rank=7, suit=cards_pb2.SUIT_ESPADA),
)


def _framed(message: bytes) -> bytes:
    return struct.pack(">BI", 0, len(message)) + message


class NonReadingSession:
    """A raw HTTP/2 connection that opens PlayGame streams with a flow-control window of 0: the server can send
    it nothing, so everything it answers waits in the server."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.h2 = h2.connection.H2Connection()
        self.h2.local_settings = h2.settings.Settings(
            client=True, initial_values={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0}
        )
        self.h2.initiate_connection()
        self.sock.sendall(self.h2.data_to_send())

    def play(self, game: str) -> int:
        stream = self.h2.get_next_available_stream_id()
        headers = [
            (":method", "POST"),
            (":scheme", "http"),
            (":authority", "truco"),
            (":path", PLAY_GAME),
            ("content-type", "application/grpc"),
            ("te", "trailers"),
        ]
        self.h2.send_headers(stream, headers)
        start = game_service_pb2.PlayGameRequest(start=game_service_pb2.PlayGameStart(name=game))
        body = _framed(start.SerializeToString())
        for number in range(COMMANDS):
            command = game_service_pb2.PlayGameRequest()
            command.command.request_id = f"spectator-command-{number:04d}-0123456789abcdef"
            command.command.command.go_to_mazo.SetInParent()
            body += _framed(command.SerializeToString())
        self.h2.send_data(stream, body)
        self.sock.sendall(self.h2.data_to_send())
        return stream

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def server(loop: LoopThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InProcessServer]:
    monkeypatch.setattr(sessions, "STALLED_SECONDS", 3.0)
    limits = Limits(
        server_calls_in_flight=SERVER_SLOTS,
        watch_streams=SESSIONS,
        watch_streams_per_connection=SESSIONS,
        calls_per_second=0,
        player_calls_per_second=0,
    )
    started = InProcessServer(loop, f"sqlite:///{tmp_path / 'truco.db'}", limits=limits)
    try:
        yield started
    finally:
        started.stop()


def _watch_admitted(games: game_service_pb2_grpc.GameServiceStub, name: str) -> bool:
    """Whether a WatchGame from this address is admitted now (its first message arrives) or refused for the
    address's watch slots."""
    watch = games.WatchGame(game_service_pb2.WatchGameRequest(name=name), timeout=5)
    try:
        next(watch)
        return True
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error
        return False
    finally:
        watch.cancel()


def test_sessions_that_never_read_hold_no_call_slot_and_are_ended(server: InProcessServer) -> None:
    with grpc.insecure_channel(server.address) as channel:
        games = game_service_pb2_grpc.GameServiceStub(channel)
        name = games.CreateGame(game_service_pb2.CreateGameRequest(), timeout=10).game.name
        attackers = [NonReadingSession(server.port) for _ in range(SESSIONS)]
        try:
            for attacker in attackers:
                attacker.play(name)
            rules = rules_service_pb2_grpc.RulesServiceStub(channel)
            time.sleep(1.0)  # the sessions' commands are read and their outcomes wait for a reader
            assert not _watch_admitted(games, name), "the stuck sessions hold this address's watch slots"
            for _ in range(20):  # more calls than the server's slots, while every session is stuck
                games.GetGame(game_service_pb2.GetGameRequest(name=name), timeout=5)
                rules.CompareCards(COMPARISON, timeout=5)
            deadline = time.monotonic() + sessions.STALLED_SECONDS + 5.0
            while not _watch_admitted(games, name):  # the stuck sessions end, and give their watch slots back
                assert time.monotonic() < deadline, "sessions whose client read nothing were not ended"
                time.sleep(0.2)
        finally:
            for attacker in attackers:
                attacker.close()
