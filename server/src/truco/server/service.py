"""The gRPC servicers: each RPC converts the request, calls the game application, converts the result."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from functools import wraps
from typing import TypeAlias, TypeVar

import grpc
import structlog

from truco.engine import compare_cards, evaluate_hand, seat_view, spectator_view, strength
from truco.engine.evaluation import HandError
from truco_client.v1 import game_service_pb2 as gs
from truco_client.v1 import game_service_pb2_grpc, rules_service_pb2_grpc
from truco_client.v1 import rules_service_pb2 as rs

from . import codec
from .errors import ServiceError, from_exception, invalid
from .games import NAME_PREFIX, Games, game_id_from_name
from .metrics import CALLER_SEAT

S = TypeVar("S")
Req = TypeVar("Req")
Resp = TypeVar("Resp")
Context: TypeAlias = "grpc.aio.ServicerContext[Req, Resp]"
"""The context of a call taking ``Req`` and answering ``Resp``."""


def _status_for(error: Exception) -> grpc.Status:
    """The status a failure is reported as. A domain error says what the client got wrong; anything else is a
    bug of ours: logged with its traceback and answered INTERNAL, without internal details."""
    try:
        return from_exception(error).to_status()
    except Exception:
        structlog.get_logger("truco.server").exception("unexpected error")
        return ServiceError(grpc.StatusCode.INTERNAL, "INTERNAL", "internal error; it has been logged").to_status()


def _reports_errors(
    method: Callable[[S, Req, Context[Req, Resp]], Awaitable[Resp]],
) -> Callable[[S, Req, Context[Req, Resp]], Awaitable[Resp]]:
    """Turn every failure into the status it stands for (see _status_for)."""

    @wraps(method)
    async def wrapper(self: S, request: Req, context: Context[Req, Resp]) -> Resp:
        try:
            return await method(self, request, context)
        except grpc.aio.AbortError:
            raise
        except Exception as error:
            await context.abort_with_status(_status_for(error))
            raise  # abort_with_status always raises

    return wrapper


class GameServicer(game_service_pb2_grpc.GameServiceServicer):
    def __init__(self, games: Games) -> None:
        self.games = games

    async def _seat(self, game_id: str, context: Context[Req, Resp], *, required: bool) -> int | None:
        seat = await self.games.caller_seat(game_id, context.invocation_metadata(), required=required)
        CALLER_SEAT.set(seat)
        return seat

    @_reports_errors
    async def CreateGame(
        self, request: gs.CreateGameRequest, context: Context[gs.CreateGameRequest, gs.CreateGameResponse]
    ) -> gs.CreateGameResponse:
        snapshot_game = await self.games.create(request)
        return gs.CreateGameResponse(game=snapshot_game)

    @_reports_errors
    async def JoinGame(
        self, request: gs.JoinGameRequest, context: Context[gs.JoinGameRequest, gs.JoinGameResponse]
    ) -> gs.JoinGameResponse:
        game_id = game_id_from_name(request.name)
        seat, token, snapshot = await self.games.join(game_id, request)
        CALLER_SEAT.set(seat)
        view = codec.seat_view_to_pb(seat_view(snapshot.state, seat), request.name)
        return gs.JoinGameResponse(seat=seat, seat_token=token, view=view)

    @_reports_errors
    async def GetGameView(
        self, request: gs.GetGameViewRequest, context: Context[gs.GetGameViewRequest, gs.GetGameViewResponse]
    ) -> gs.GetGameViewResponse:
        game_id = game_id_from_name(request.name)
        seat = await self._seat(game_id, context, required=False)
        state = (await self.games.snapshot(game_id)).state
        public = codec.match_view_to_pb(spectator_view(state), request.name)
        if seat is None:
            return gs.GetGameViewResponse(public=public)
        view = codec.seat_view_to_pb(seat_view(state, seat), request.name)
        return gs.GetGameViewResponse(seat=view, public=public)

    @_reports_errors
    async def ListLegalActions(
        self,
        request: gs.ListLegalActionsRequest,
        context: Context[gs.ListLegalActionsRequest, gs.ListLegalActionsResponse],
    ) -> gs.ListLegalActionsResponse:
        game_id = game_id_from_name(request.name)
        seat = await self._seat(game_id, context, required=True)
        assert seat is not None
        state = (await self.games.snapshot(game_id)).state
        view = seat_view(state, seat)
        actions = [codec.command_to_pb(command) for command in view.legal_actions]
        return gs.ListLegalActionsResponse(version=state.version, actions=actions)

    @_reports_errors
    async def SubmitCommand(
        self, request: gs.SubmitCommandRequest, context: Context[gs.SubmitCommandRequest, gs.SubmitCommandResponse]
    ) -> gs.SubmitCommandResponse:
        game_id = game_id_from_name(request.name)
        seat = await self._seat(game_id, context, required=True)
        assert seat is not None
        return await self.games.submit(game_id, seat, request)

    async def WatchGame(
        self, request: gs.WatchGameRequest, context: Context[gs.WatchGameRequest, gs.WatchGameResponse]
    ) -> AsyncIterator[gs.WatchGameResponse]:
        try:
            game_id = game_id_from_name(request.name)
            if request.after_version < 0:
                raise invalid("INVALID_VERSION", "after_version cannot be negative")
            seat = await self._seat(game_id, context, required=False)
            self.games.metrics.watchers.inc()
            try:
                async for item in self.games.watch(game_id, seat, request.after_version):
                    yield item
            finally:
                self.games.metrics.watchers.dec()
        except grpc.aio.AbortError:
            raise
        except Exception as error:
            await context.abort_with_status(_status_for(error))

    @_reports_errors
    async def ListGames(
        self, request: gs.ListGamesRequest, context: Context[gs.ListGamesRequest, gs.ListGamesResponse]
    ) -> gs.ListGamesResponse:
        games, cursor = await self.games.list_open(request.page_size, request.page_token)
        return gs.ListGamesResponse(games=games, next_page_token=cursor)


class RulesServicer(rules_service_pb2_grpc.RulesServiceServicer):
    @_reports_errors
    async def EvaluateHand(
        self, request: rs.EvaluateHandRequest, context: Context[rs.EvaluateHandRequest, rs.EvaluateHandResponse]
    ) -> rs.EvaluateHandResponse:
        muestra = codec.card_from_pb(request.muestra, "muestra")
        cards = codec.cards_from_pb(request.cards)
        try:
            result = evaluate_hand(muestra, cards, with_flor=not request.without_flor)
        except HandError as error:
            raise invalid("INVALID_HAND", str(error)) from None
        response = rs.EvaluateHandResponse(
            flor=result.flor, strength=list(result.strength), piezas=list(result.piezas)
        )
        if result.envido is not None:
            response.envido = result.envido
        if result.flor_points is not None:
            response.flor_points = result.flor_points
        return response

    @_reports_errors
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


__all__ = ["NAME_PREFIX", "GameServicer", "RulesServicer", "ServiceError"]
