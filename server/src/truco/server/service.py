"""The gRPC servicers: each RPC converts the request to domain values (truco.server.codec), calls the game
application (truco.server.games) or the engine, and converts the result back. Failures become statuses in
one place, :func:`reports_errors`, for unary and streaming methods alike (truco.server.errors maps them).
"""

from __future__ import annotations

import inspect
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from functools import wraps
from typing import TypeAlias, TypeVar, cast

import grpc
from google.protobuf.message import Message

from truco.engine import compare_cards, evaluate_hand, legal_actions, seat_view, spectator_view, strength
from truco.engine.evaluation import HandError
from truco_client.v1 import game_service_pb2 as gs
from truco_client.v1 import game_service_pb2_grpc, rules_service_pb2_grpc, views_pb2
from truco_client.v1 import rules_service_pb2 as rs

from . import codec
from .auth import bearer_token
from .errors import ServiceError, status_for
from .games import Games, Snapshot
from .limits import CALLER
from .metrics import CALLER_SEAT
from .reasons import ServiceFailure, ServiceReason
from .store.base import GameRecord

S = TypeVar("S")
Req = TypeVar("Req")
Resp = TypeVar("Resp")
Context: TypeAlias = "grpc.aio.ServicerContext[Req, Resp]"
"""The context of a call taking ``Req`` and answering ``Resp``."""
Unary: TypeAlias = "Callable[[S, Req, Context[Req, Resp]], Awaitable[Resp]]"
Streaming: TypeAlias = "Callable[[S, Req, Context[Req, Resp]], AsyncIterator[Resp]]"
M = TypeVar("M", bound=Callable[..., object])
R = TypeVar("R", bound=Message)


def reports_errors(method: M) -> M:
    """Turn every failure of a servicer method, a coroutine or an async generator, into the status it stands
    for (errors.status_for): the one place a domain error meets the wire."""
    if inspect.isasyncgenfunction(method):
        streaming = cast("Streaming[object, object, object]", method)

        @wraps(method)
        async def stream(self: object, request: object, context: Context[object, object]) -> AsyncIterator[object]:
            try:
                async for item in streaming(self, request, context):
                    yield item
            except grpc.aio.AbortError:
                raise
            except Exception as error:
                await context.abort_with_status(status_for(error))

        return cast(M, stream)
    unary = cast("Unary[object, object, object]", method)

    @wraps(method)
    async def call(self: object, request: object, context: Context[object, object]) -> object:
        try:
            return await unary(self, request, context)
        except grpc.aio.AbortError:
            raise
        except Exception as error:
            await context.abort_with_status(status_for(error))
            raise  # abort_with_status always raises

    return cast(M, call)


REPLY_MEMO_ENTRIES = 512
"""Read replies remembered (least recently used forgotten first): at most a few MiB of views."""


class ReplyMemo:
    """Replies to reads, by everything they depend on (the game's seq, the seat, the clocks): clients poll, and
    a poll of a game that has not moved gets the reply built before. A reply is never changed once built, and
    a new event changes the seq, so no entry is ever stale; any may be forgotten."""

    def __init__(self, entries: int = REPLY_MEMO_ENTRIES) -> None:
        self._replies: OrderedDict[Hashable, Message] = OrderedDict()
        self._entries = entries

    def get(self, key: Hashable) -> Message | None:
        reply = self._replies.get(key)
        if reply is not None:
            self._replies.move_to_end(key)
        return reply

    def put(self, key: Hashable, reply: R) -> R:
        self._replies[key] = reply
        if len(self._replies) > self._entries:
            self._replies.popitem(last=False)
        return reply


class GameServicer(game_service_pb2_grpc.GameServiceServicer):
    def __init__(self, games: Games) -> None:
        self.games = games
        self._replies = ReplyMemo()

    async def _seat(self, game_id: str, context: Context[Req, Resp], *, required: bool) -> int | None:
        """The caller's seat (its token's); None for a spectator, who sees only the games its API key may."""
        token = bearer_token(context.invocation_metadata())
        seat = await self.games.caller_seat(game_id, token, required=required)
        CALLER_SEAT.set(seat)
        if seat is None:
            await self.games.require_visible(game_id, CALLER.get().owner)
        else:
            await self.games.seen(game_id, seat)  # presence: the seat's player called
        return seat

    async def _player(self, game_id: str, context: Context[Req, Resp]) -> int:
        seat = await self._seat(game_id, context, required=True)
        assert seat is not None
        return seat

    async def _seat_view(self, game_id: str, seat: int, snapshot: Snapshot) -> views_pb2.SeatView:
        clocks = await self.games.clocks(game_id, snapshot)
        return codec.seat_view_to_pb(seat_view(snapshot.state, seat), codec.NAME_PREFIX + game_id, clocks)

    def _game(self, record: GameRecord, snapshot: Snapshot) -> gs.Game:
        return codec.game_to_pb(record, snapshot.state, snapshot.setup.clock, self.games.present(record))

    @reports_errors
    async def CreateGame(
        self, request: gs.CreateGameRequest, context: Context[gs.CreateGameRequest, gs.CreateGameResponse]
    ) -> gs.CreateGameResponse:
        caller = CALLER.get()  # set by the admission of either port (limits.py)
        record, snapshot = await self.games.create(
            codec.setup_from_pb(request),
            request.request_id or None,
            owner=caller.owner,
            creator=caller.subject,
            public=request.public,
            default_clock=not request.HasField("clock"),
        )
        return gs.CreateGameResponse(game=self._game(record, snapshot))

    @reports_errors
    async def JoinGame(
        self, request: gs.JoinGameRequest, context: Context[gs.JoinGameRequest, gs.JoinGameResponse]
    ) -> gs.JoinGameResponse:
        game_id = codec.game_id_from_name(request.name)
        wanted = request.seat if request.HasField("seat") else None
        seat, token, snapshot = await self.games.join(
            game_id, wanted, request.player_name, request.request_id or None, CALLER.get().owner
        )
        CALLER_SEAT.set(seat)
        return gs.JoinGameResponse(seat=seat, seat_token=token, view=await self._seat_view(game_id, seat, snapshot))

    @reports_errors
    async def GetGameView(
        self, request: gs.GetGameViewRequest, context: Context[gs.GetGameViewRequest, gs.GetGameViewResponse]
    ) -> gs.GetGameViewResponse:
        game_id = codec.game_id_from_name(request.name)
        seat = await self._seat(game_id, context, required=False)
        snapshot = await self.games.snapshot(game_id, codec.min_version_from_pb(request.min_version))
        clocks = await self.games.clocks(game_id, snapshot)
        key = ("GetGameView", request.name, snapshot.seq, seat, clocks)
        reply = self._replies.get(key)
        if isinstance(reply, gs.GetGameViewResponse):
            return reply
        reply = gs.GetGameViewResponse()
        if seat is None:
            codec.fill_match_view(reply.public, spectator_view(snapshot.state), request.name, clocks)
        else:
            codec.fill_seat_view(reply.seat, seat_view(snapshot.state, seat), request.name, clocks)
            reply.public.CopyFrom(reply.seat.public)  # the seat's view holds the public one
        return self._replies.put(key, reply)

    @reports_errors
    async def ListLegalActions(
        self,
        request: gs.ListLegalActionsRequest,
        context: Context[gs.ListLegalActionsRequest, gs.ListLegalActionsResponse],
    ) -> gs.ListLegalActionsResponse:
        game_id = codec.game_id_from_name(request.name)
        seat = await self._seat(game_id, context, required=True)
        assert seat is not None
        snapshot = await self.games.snapshot(game_id, codec.min_version_from_pb(request.min_version))
        key = ("ListLegalActions", request.name, snapshot.seq, seat)
        reply = self._replies.get(key)
        if isinstance(reply, gs.ListLegalActionsResponse):
            return reply
        state = snapshot.state
        actions = codec.commands_to_pb(legal_actions(state, seat))
        return self._replies.put(key, gs.ListLegalActionsResponse(version=state.version, actions=actions))

    @reports_errors
    async def SubmitCommand(
        self, request: gs.SubmitCommandRequest, context: Context[gs.SubmitCommandRequest, gs.SubmitCommandResponse]
    ) -> gs.SubmitCommandResponse:
        game_id = codec.game_id_from_name(request.name)
        seat = await self._seat(game_id, context, required=True)
        assert seat is not None
        if not request.HasField("command"):
            raise ServiceFailure(ServiceReason.MALFORMED_REQUEST, "command: set exactly one kind of command")
        command = codec.command_from_pb(request.command, seat)
        result = await self.games.submit(game_id, command, request.expected_version, request.request_id or None)
        # The reply was encoded once (codec.submit_reply, the Games' encode_reply) and stored for replays.
        return gs.SubmitCommandResponse.FromString(result.reply)

    @reports_errors
    async def WatchGame(
        self, request: gs.WatchGameRequest, context: Context[gs.WatchGameRequest, gs.WatchGameResponse]
    ) -> AsyncIterator[gs.WatchGameResponse]:
        game_id = codec.game_id_from_name(request.name)
        if request.after_version < 0:
            raise ServiceFailure(ServiceReason.INVALID_VERSION, "after_version cannot be negative")
        seat = await self._seat(game_id, context, required=False)
        self.games.metrics.watchers.inc()
        try:
            async for watched in self.games.watch(game_id, seat, request.after_version):
                seat_pb = (
                    codec.seat_view_to_pb(watched.seat, request.name, watched.clocks)
                    if watched.seat is not None
                    else None
                )
                yield gs.WatchGameResponse(
                    event=codec.event_to_pb(watched.event, watched.version),
                    seat=seat_pb,
                    public=codec.match_view_to_pb(watched.public, request.name, watched.clocks),
                )
        finally:
            self.games.metrics.watchers.dec()

    @reports_errors
    async def ListGames(
        self, request: gs.ListGamesRequest, context: Context[gs.ListGamesRequest, gs.ListGamesResponse]
    ) -> gs.ListGamesResponse:
        # A caller sees the games of its API key (anonymous callers: the games made without one) and public ones.
        games, cursor = await self.games.list_open(request.page_size, request.page_token, CALLER.get().owner)
        return gs.ListGamesResponse(
            games=[self._game(record, snapshot) for record, snapshot in games], next_page_token=cursor
        )

    @reports_errors
    async def GetGame(
        self, request: gs.GetGameRequest, context: Context[gs.GetGameRequest, gs.GetGameResponse]
    ) -> gs.GetGameResponse:
        game_id = codec.game_id_from_name(request.name)
        await self._seat(game_id, context, required=False)
        record, snapshot = await self.games.game(game_id)
        return gs.GetGameResponse(game=self._game(record, snapshot))

    @reports_errors
    async def LeaveGame(
        self, request: gs.LeaveGameRequest, context: Context[gs.LeaveGameRequest, gs.LeaveGameResponse]
    ) -> gs.LeaveGameResponse:
        game_id = codec.game_id_from_name(request.name)
        seat = await self._player(game_id, context)
        snapshot = await self.games.leave(game_id, seat)
        return gs.LeaveGameResponse(view=await self._seat_view(game_id, seat, snapshot))

    @reports_errors
    async def ResumeSeat(
        self, request: gs.ResumeSeatRequest, context: Context[gs.ResumeSeatRequest, gs.ResumeSeatResponse]
    ) -> gs.ResumeSeatResponse:
        game_id = codec.game_id_from_name(request.name)
        seat = await self._player(game_id, context)
        snapshot = await self.games.resume(game_id, seat)
        return gs.ResumeSeatResponse(view=await self._seat_view(game_id, seat, snapshot))

    @reports_errors
    async def Rematch(
        self, request: gs.RematchRequest, context: Context[gs.RematchRequest, gs.RematchResponse]
    ) -> gs.RematchResponse:
        game_id = codec.game_id_from_name(request.name)
        seat = await self._player(game_id, context)  # only a seat of the finished game may ask
        record, snapshot = await self.games.rematch(game_id)
        return gs.RematchResponse(game=self._game(record, snapshot), seat=seat)


class RulesServicer(rules_service_pb2_grpc.RulesServiceServicer):
    @reports_errors
    async def EvaluateHand(
        self, request: rs.EvaluateHandRequest, context: Context[rs.EvaluateHandRequest, rs.EvaluateHandResponse]
    ) -> rs.EvaluateHandResponse:
        muestra = codec.card_from_pb(request.muestra, "muestra")
        cards = codec.cards_from_pb(request.cards)
        try:
            result = evaluate_hand(muestra, cards, with_flor=not request.without_flor)
        except HandError as error:
            raise ServiceFailure(ServiceReason.INVALID_HAND, str(error)) from None
        response = rs.EvaluateHandResponse(flor=result.flor, strength=list(result.strength), piezas=list(result.piezas))
        if result.envido is not None:
            response.envido = result.envido
        if result.flor_points is not None:
            response.flor_points = result.flor_points
        return response

    @reports_errors
    async def CompareCards(
        self, request: rs.CompareCardsRequest, context: Context[rs.CompareCardsRequest, rs.CompareCardsResponse]
    ) -> rs.CompareCardsResponse:
        muestra = codec.card_from_pb(request.muestra, "muestra")
        first = codec.card_from_pb(request.first, "first")
        second = codec.card_from_pb(request.second, "second")
        return rs.CompareCardsResponse(
            result=compare_cards(first, second, muestra),
            first_strength=strength(first, muestra),
            second_strength=strength(second, muestra),
        )


__all__ = ["GameServicer", "RulesServicer", "ServiceError", "reports_errors"]
