"""Clients of the tests: a player on raw generated stubs, tables of them, games made and joined, watches, and
the failures they meet, read."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from truco_client.v1 import (
    commands_pb2,
    events_pb2,
    game_service_pb2,
    game_service_pb2_grpc,
    rules_pb2,
    rules_service_pb2_grpc,
    views_pb2,
)

from .wire_builders import kind_of

DOMAIN = "truco.v1"


RPC_TIMEOUT = 20.0
"""Deadline of every unary call the helpers make: a hung server fails a test instead of hanging the suite."""


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def new_id() -> str:
    return uuid.uuid4().hex


class Player:
    """One client on its own channel: a seat's (with its token) or a spectator's (no token)."""

    def __init__(self, address: str, seat: int | None = None, token: str | None = None) -> None:
        self.address = address
        self.seat = seat
        self.token = token
        self.channel = grpc.insecure_channel(address)
        self.games = game_service_pb2_grpc.GameServiceStub(self.channel)
        self.rules = rules_service_pb2_grpc.RulesServiceStub(self.channel)

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return bearer(self.token) if self.token else ()

    def view(self, name: str, min_version: int = 0) -> game_service_pb2.GetGameViewResponse:
        request = game_service_pb2.GetGameViewRequest(name=name, min_version=min_version)
        return self.games.GetGameView(request, metadata=self.metadata, timeout=RPC_TIMEOUT)

    def seat_view(self, name: str) -> views_pb2.SeatView:
        response = self.view(name)
        assert response.HasField("seat"), f"seat {self.seat} got no seat view"
        return response.seat

    def legal(self, name: str, min_version: int = 0) -> game_service_pb2.ListLegalActionsResponse:
        request = game_service_pb2.ListLegalActionsRequest(name=name, min_version=min_version)
        return self.games.ListLegalActions(request, metadata=self.metadata, timeout=RPC_TIMEOUT)

    def request(
        self, name: str, command: commands_pb2.Command | None, expected_version: int = 0, request_id: str | None = None
    ) -> game_service_pb2.SubmitCommandRequest:
        message = game_service_pb2.SubmitCommandRequest(
            name=name, request_id=new_id() if request_id is None else request_id, expected_version=expected_version
        )
        if command is not None:
            message.command.CopyFrom(command)
        return message

    def submit(
        self, name: str, command: commands_pb2.Command | None, expected_version: int = 0, request_id: str | None = None
    ) -> game_service_pb2.SubmitCommandResponse:
        request = self.request(name, command, expected_version, request_id)
        return self.games.SubmitCommand(request, metadata=self.metadata, timeout=RPC_TIMEOUT)

    def submit_future(self, request: game_service_pb2.SubmitCommandRequest) -> grpc.Future:
        return self.games.SubmitCommand.future(request, metadata=self.metadata, timeout=RPC_TIMEOUT)

    def watch(self, name: str, after_version: int = 0) -> Watcher:
        return Watcher(self, name, after_version)

    def close(self) -> None:
        self.channel.close()


@dataclass
class Table:
    """A game with every seat joined by a client of its own, and a spectator."""

    name: str
    game: game_service_pb2.Game
    players: list[Player]
    spectator: Player

    def public(self) -> views_pb2.MatchView:
        return self.spectator.view(self.name).public

    def version(self) -> int:
        return self.public().version

    def close(self) -> None:
        for player in (*self.players, self.spectator):
            player.close()


def rule_set(players: int, target: int = 15, **options: Any) -> rules_pb2.RuleSet:
    return rules_pb2.RuleSet(players=players, target=target, **options)


def create_game(
    address: str,
    players: int,
    *,
    target: int = 15,
    fixed_deals: Sequence[game_service_pb2.FixedDeal] = (),
    request_id: str | None = None,
    public: bool = False,
    **options: Any,
) -> game_service_pb2.Game:
    creator = Player(address)
    try:
        request = game_service_pb2.CreateGameRequest(
            request_id=new_id() if request_id is None else request_id,
            rules=rule_set(players, target, **options),
            fixed_deals=fixed_deals,
            public=public,
        )
        return creator.games.CreateGame(request, timeout=RPC_TIMEOUT).game
    finally:
        creator.close()


def join(address: str, name: str, seat: int | None = None, request_id: str | None = None) -> Player:
    player = Player(address)
    request = game_service_pb2.JoinGameRequest(
        name=name, request_id=new_id() if request_id is None else request_id, player_name=f"seat {seat}"
    )
    if seat is not None:
        request.seat = seat
    joined = player.games.JoinGame(request, timeout=RPC_TIMEOUT)
    player.seat, player.token = joined.seat, joined.seat_token
    return player


def open_table(
    address: str,
    players: int,
    *,
    target: int = 15,
    fixed_deals: Sequence[game_service_pb2.FixedDeal] = (),
    **options: Any,
) -> Table:
    """Create a game and join every seat, each through a channel (and token) of its own. The game is the one the
    full table sees: its first hand dealt (a game with an open seat deals when the last one is taken)."""
    game = create_game(address, players, target=target, fixed_deals=fixed_deals, **options)
    seats = [join(address, game.name, seat) for seat in range(players)]
    assert [player.seat for player in seats] == list(range(players))
    game = seats[0].games.GetGame(game_service_pb2.GetGameRequest(name=game.name), timeout=RPC_TIMEOUT).game
    return Table(game.name, game, seats, Player(address))


def reconnect(table: Table, address: str) -> Table:
    """The same seats (same tokens) through fresh channels to another server."""
    players = [Player(address, p.seat, p.token) for p in table.players]
    return Table(table.name, table.game, players, Player(address))


@dataclass(frozen=True)
class Failure:
    """A failed call as the client sees it: the status code and the ErrorInfo of the google.rpc.Status."""

    code: grpc.StatusCode
    reason: str
    metadata: dict[str, str]
    message: str

    @property
    def kind(self) -> tuple[grpc.StatusCode, str]:
        return self.code, self.reason


def failure_of(error: grpc.RpcError) -> Failure:
    """The code and ErrorInfo of a failed call ("" for a reason when the status carries no ErrorInfo)."""
    assert isinstance(error, grpc.Call)
    code = error.code()
    status = rpc_status.from_call(error)
    if status is None:
        return Failure(code, "", {}, error.details() or "")
    assert status.code == code.value[0], f"the Status in the trailers says {status.code}, the call {code}"
    infos = []
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            infos.append(info)
    assert len(infos) == 1, f"expected one ErrorInfo in {status}"
    assert infos[0].domain == DOMAIN, f"ErrorInfo domain {infos[0].domain!r}"
    return Failure(code, infos[0].reason, dict(infos[0].metadata), status.message)


def fails(call: Callable[[], object]) -> Failure:
    """Run ``call``, which must fail with an RPC error; return what the client saw."""
    try:
        result = call()
    except grpc.RpcError as error:
        return failure_of(error)
    raise AssertionError(f"the call succeeded: {result}")


class Watcher:
    """A WatchGame stream read by a thread of its own; ``items`` grows as messages arrive."""

    def __init__(self, player: Player, name: str, after_version: int = 0, *, per_commit: bool = False) -> None:
        self.player = player
        request = game_service_pb2.WatchGameRequest(name=name, after_version=after_version, per_commit=per_commit)
        self.call = player.games.WatchGame(request, metadata=player.metadata)
        self.items: list[game_service_pb2.WatchGameResponse] = []
        self.error: grpc.RpcError | None = None
        self.finished = False
        self.arrivals: list[float] = []
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._pump, name="e2e-watch", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        try:
            for item in self.call:
                with self._changed:
                    self.items.append(item)
                    self.arrivals.append(time.monotonic())
                    self._changed.notify_all()
        except grpc.RpcError as error:
            self.error = error
        finally:
            with self._changed:
                self.finished = True
                self._changed.notify_all()

    def wait_for(self, predicate: Callable[[Watcher], bool], timeout: float = 15.0, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate(self):
                remaining = deadline - time.monotonic()
                if self.finished or remaining <= 0:
                    break
                self._changed.wait(remaining)
            if not predicate(self):
                state = "ended" if self.finished else "timed out"
                raise AssertionError(f"watch {state} before {what or predicate}: error {self.error!r}")

    def wait_version(self, version: int, timeout: float = 15.0) -> None:
        self.wait_for(lambda w: w.last_version >= version, timeout, f"version {version}")

    def wait_finished(self, timeout: float = 30.0) -> None:
        self.wait_for(lambda w: w.finished, timeout, "the end of the stream")

    @property
    def last_version(self) -> int:
        events = self.events
        return events[-1].version if events else 0

    @property
    def events(self) -> list[events_pb2.Event]:
        """Every event received, in order (one per message, or each message's ``events`` with ``per_commit``)."""
        with self._changed:
            return [event for item in self.items for event in (item.events or [item.event])]

    def cancel(self) -> None:
        self.call.cancel()
        self._thread.join(15)


def replay(player: Player, name: str, version: int, timeout: float = 15.0) -> list[game_service_pb2.WatchGameResponse]:
    """Every message a watch from version 0 delivers up to the event at ``version`` (señas before it included)."""
    watcher = player.watch(name)
    try:
        if version > 0:
            watcher.wait_version(version, timeout)
        return [item for item in watcher.items if item.event.version <= version]
    finally:
        watcher.cancel()


def public_events(items: Iterable[game_service_pb2.WatchGameResponse]) -> list[events_pb2.Event]:
    return [item.event for item in items if kind_of(item.event) != "sena_sent"]
