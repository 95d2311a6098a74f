"""The services: each RPC converts the request to domain values (truco.server.service.messages), calls the game
application (truco.server.core.games) or the engine, and converts the result back. They take the request and the
port-neutral :class:`~truco.server.service.pipeline.Call` (its metadata, its admitted caller), and serve every door
alike; failures are raised as they are, and the pipeline reports them (truco.server.service.errors maps them).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

from truco.engine import compare_cards, evaluate_hand, seat_view, strength
from truco.engine.evaluation import HandError
from truco.server.core.auth import bearer_token
from truco.server.core.games import Games
from truco.server.core.reasons import ServiceFailure, ServiceReason
from truco.server.core.snapshots import Snapshot
from truco.server.service import messages
from truco.server.service.pipeline import Call
from truco.server.service.projections import game_view_reply, legal_actions_reply, watch_messages
from truco.server.service.sessions import Session
from truco.server.store.records import GameRecord
from truco.wire.v1 import game_service_pb2 as gs
from truco.wire.v1 import rules_service_pb2 as rs
from truco.wire.v1 import views_pb2


class GameServicer:
    """truco.v1.GameService: one method per RPC, named as in the contract."""

    def __init__(self, games: Games) -> None:
        self.games = games

    async def _seat(self, game_id: str, call: Call, *, required: bool) -> int | None:
        """The caller's seat (its token's); None for a spectator, who sees only the games its API key may."""
        token = bearer_token(call.metadata)
        if call.caller.player_id is not None:
            await self.games.require_app(game_id, call.caller.player_id.app)
        try:
            seat = await self.games.caller_seat(game_id, token, required=required)
        except ServiceFailure as failure:
            if failure.reason is ServiceReason.TOKEN_NOT_FOR_GAME:
                # A game the caller may not see does not exist for it, whatever token it makes up: answering
                # PERMISSION_DENIED here and NOT_FOUND for a missing game would tell private games apart.
                await self.games.require_visible(game_id, call.caller.owner)
            raise
        call.seat = seat
        if seat is None:
            await self.games.require_visible(game_id, call.caller.owner)
        else:
            self.games.seen(game_id, seat)  # presence: the seat's player called
        return seat

    async def _player(self, game_id: str, call: Call) -> int:
        seat = await self._seat(game_id, call, required=True)
        assert seat is not None
        return seat

    async def _seat_view(self, game_id: str, seat: int, snapshot: Snapshot) -> views_pb2.SeatView:
        clocks = await self.games.clocks(game_id, snapshot)
        out = views_pb2.SeatView()
        messages.fill_seat_view(out, seat_view(snapshot.state, seat), messages.NAME_PREFIX + game_id, clocks)
        return out

    def _game(self, record: GameRecord, snapshot: Snapshot) -> gs.Game:
        setup = snapshot.setup
        return messages.game_to_pb(
            record, snapshot.state, setup.clock, self.games.present(record), setup.takeover_bot()
        )

    async def CreateGame(self, request: gs.CreateGameRequest, call: Call) -> gs.CreateGameResponse:
        caller = call.caller
        record, snapshot = await self.games.create(
            messages.setup_from_pb(request),
            request.request_id or None,
            owner=caller.owner,
            creator=caller.subject,
            public=request.public,
            default_clock=not request.HasField("clock"),
        )
        return gs.CreateGameResponse(game=self._game(record, snapshot))

    async def JoinGame(self, request: gs.JoinGameRequest, call: Call) -> gs.JoinGameResponse:
        game_id = messages.game_id_from_name(request.name)
        wanted = request.seat if request.HasField("seat") else None
        seat, token, snapshot = await self.games.join(
            game_id, wanted, request.player_name, request.request_id or None, call.caller.owner, call.caller.player_id
        )
        call.seat = seat
        return gs.JoinGameResponse(seat=seat, seat_token=token, view=await self._seat_view(game_id, seat, snapshot))

    async def GetGameView(self, request: gs.GetGameViewRequest, call: Call) -> bytes:
        game_id = messages.game_id_from_name(request.name)
        seat = await self._seat(game_id, call, required=False)
        snapshot = await self.games.snapshot(game_id, messages.min_version_from_pb(request.min_version))
        clocks = await self.games.clocks(game_id, snapshot)
        return game_view_reply(snapshot.memo, snapshot.state, seat, messages.NAME_PREFIX + game_id, clocks)

    async def ListLegalActions(self, request: gs.ListLegalActionsRequest, call: Call) -> bytes:
        game_id = messages.game_id_from_name(request.name)
        seat = await self._seat(game_id, call, required=True)
        assert seat is not None
        snapshot = await self.games.snapshot(game_id, messages.min_version_from_pb(request.min_version))
        return legal_actions_reply(snapshot.memo, snapshot.state, seat)

    async def SubmitCommand(self, request: gs.SubmitCommandRequest, call: Call) -> bytes:
        game_id = messages.game_id_from_name(request.name)
        seat = await self._seat(game_id, call, required=True)
        assert seat is not None
        if not request.HasField("command"):
            raise ServiceFailure(ServiceReason.MALFORMED_REQUEST, "command: set exactly one kind of command")
        command = messages.command_from_pb(request.command, seat)
        result = await self.games.submit(game_id, command, request.expected_version, request.request_id or None)
        # The reply was encoded once (projections.submit_reply) and stored for replays: it goes out as those bytes.
        return result.reply

    async def WatchGame(self, request: gs.WatchGameRequest, call: Call) -> AsyncIterator[bytes]:
        game_id = messages.game_id_from_name(request.name)
        if request.after_version < 0:
            raise ServiceFailure(ServiceReason.INVALID_VERSION, "after_version cannot be negative")
        seat = await self._seat(game_id, call, required=False)
        # aclosing: a stream closed while paused at a message ends the watch now (its seat's presence and its count
        # in truco_watchers with it), not when the collector finds the generator.
        table = request.per_commit and request.table_changes
        async with contextlib.aclosing(self.games.watch(game_id, seat, table=table)) as progresses:
            async for progress in progresses:
                for message in watch_messages(
                    request.name,
                    seat,
                    progress.before,
                    progress.after,
                    progress.clocks,
                    request.after_version,
                    per_commit=request.per_commit,
                ):
                    yield message  # serialized once for every stream of this audience

    async def PlayGame(self, requests: AsyncIterator[object], call: Call) -> AsyncIterator[bytes]:
        # The pipeline hands the first message admitted and the later ones admitted or Refused.
        first = await anext(aiter(requests))
        if not isinstance(first, gs.PlayGameRequest) or first.WhichOneof("kind") != "start":
            raise ServiceFailure(ServiceReason.MALFORMED_REQUEST, "the first message of a PlayGame stream is `start`")
        start = first.start
        game_id = messages.game_id_from_name(start.name)
        if start.after_version < 0:
            raise ServiceFailure(ServiceReason.INVALID_VERSION, "start.after_version cannot be negative")
        seat = await self._seat(game_id, call, required=False)
        session = Session(self.games, start.name, game_id, seat, start.after_version, settle=call.settle)
        async with contextlib.aclosing(session.messages(requests)) as out:
            async for message in out:
                yield message

    async def ListGames(self, request: gs.ListGamesRequest, call: Call) -> gs.ListGamesResponse:
        # A caller sees the games of its API key (anonymous callers: the games made without one) and public ones.
        games, cursor = await self.games.list_open(request.page_size, request.page_token, call.caller.owner)
        return gs.ListGamesResponse(
            games=[self._game(record, snapshot) for record, snapshot in games], next_page_token=cursor
        )

    async def GetGame(self, request: gs.GetGameRequest, call: Call) -> gs.GetGameResponse:
        game_id = messages.game_id_from_name(request.name)
        await self._seat(game_id, call, required=False)
        record, snapshot = await self.games.game(game_id)
        return gs.GetGameResponse(game=self._game(record, snapshot))

    async def LeaveGame(self, request: gs.LeaveGameRequest, call: Call) -> gs.LeaveGameResponse:
        return gs.LeaveGameResponse(view=await self._absence(request.name, call, self.games.leave))

    async def ResumeSeat(self, request: gs.ResumeSeatRequest, call: Call) -> gs.ResumeSeatResponse:
        return gs.ResumeSeatResponse(view=await self._absence(request.name, call, self.games.resume))

    async def _absence(
        self, name: str, call: Call, change: Callable[[str, int], Awaitable[Snapshot]]
    ) -> views_pb2.SeatView:
        """The caller's player leaves its seat to its bot or takes it back (``change``); its view after."""
        game_id = messages.game_id_from_name(name)
        seat = await self._player(game_id, call)
        return await self._seat_view(game_id, seat, await change(game_id, seat))

    async def Rematch(self, request: gs.RematchRequest, call: Call) -> gs.RematchResponse:
        game_id = messages.game_id_from_name(request.name)
        seat = await self._player(game_id, call)  # only a seat of the finished game may ask
        record, snapshot = await self.games.rematch(game_id)
        return gs.RematchResponse(game=self._game(record, snapshot), seat=seat)

    async def StartWithBots(self, request: gs.StartWithBotsRequest, call: Call) -> gs.StartWithBotsResponse:
        game_id = messages.game_id_from_name(request.name)
        seat = await self._player(game_id, call)  # the host's token: Games.start_with_bots checks whose it is
        record, snapshot = await self.games.start_with_bots(game_id, seat)
        view = await self._seat_view(game_id, seat, snapshot)
        return gs.StartWithBotsResponse(game=self._game(record, snapshot), view=view)


class RulesServicer:
    """truco.v1.RulesService: the rules calculator."""

    async def EvaluateHand(self, request: rs.EvaluateHandRequest, call: Call) -> rs.EvaluateHandResponse:
        muestra = messages.card_from_pb(request.muestra, "muestra")
        cards = messages.cards_from_pb(request.cards)
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

    async def CompareCards(self, request: rs.CompareCardsRequest, call: Call) -> rs.CompareCardsResponse:
        muestra = messages.card_from_pb(request.muestra, "muestra")
        first = messages.card_from_pb(request.first, "first")
        second = messages.card_from_pb(request.second, "second")
        return rs.CompareCardsResponse(
            result=compare_cards(first, second, muestra),
            first_strength=strength(first, muestra),
            second_strength=strength(second, muestra),
        )


__all__ = ["GameServicer", "RulesServicer"]
