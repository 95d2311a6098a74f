"""A seat's match on one bidirectional call (PlayGame): its commands in, the game's commits out.

A session sends what the pair it replaces would: each commit as a per-commit WatchGame sends it (the same
bytes, built once per audience: :func:`~truco.server.service.projections.session_messages`), and for each command what
SubmitCommand would have answered, as an outcome: the version once the move is durably stored, or the error
(:func:`~truco.server.service.errors.command_error`). Commands are applied one at a time in the order they were sent;
the watch runs beside them, so a command's outcome and its commit may leave in either order. The call ends as
a watch does: after the commit that ends the match (and the outcome of the command that ended it), or with the
watch's failure (the server stopping).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable

import structlog

from truco.server.core.games import Games, Move
from truco.server.core.reasons import ServiceFailure, ServiceReason
from truco.server.service import messages
from truco.server.service.errors import Code, ServiceError, command_error, error_for
from truco.server.service.pipeline import Refused, Sampler
from truco.server.service.projections import session_messages
from truco.wire.v1 import game_service_pb2 as gs

_END = object()
"""Queued by the watch when the match is over: the session ends once the command being applied is answered."""
QUEUED = 32
"""Messages a session holds for a client that does not read: then the watch waits (and sends what it missed in
one message when it goes on) and no more commands are read (the client's sends wait on HTTP/2 flow control)."""
STALLED_SECONDS = 60.0
"""How long a session may stay full (its client reading nothing) before it is ended: long enough for a phone
that lost its network for a while, short enough that a client that never reads holds its watch slot briefly."""


REFUSALS = Sampler()
"""Session commands refused past a quota are logged at most so often, all sessions of the process together."""


class Session:
    """One PlayGame call, past its ``start``: the game ``name`` (``game_id``) as ``seat`` (None: a spectator,
    whose commands are refused) plays it, from ``after_version``."""

    def __init__(
        self,
        games: Games,
        name: str,
        game_id: str,
        seat: int | None,
        after_version: int,
        *,
        settle: Callable[[], None] = lambda: None,
        stalled_seconds: float | None = None,
    ) -> None:
        self.games = games
        self.name = name
        self.game_id = game_id
        self.seat = seat
        self.after_version = after_version
        self.log = structlog.get_logger("truco.server")
        self._out: asyncio.Queue[object] = asyncio.Queue(QUEUED)
        self._applying = asyncio.Lock()
        self._settle = settle
        """Gives back the in-flight slot of the command just applied (``pipeline.Call.settle``)."""
        self._stalled_seconds = STALLED_SECONDS if stalled_seconds is None else stalled_seconds
        self._reader: asyncio.Task[object] | None = None

    async def messages(self, requests: AsyncIterator[object]) -> AsyncGenerator[bytes]:
        """The call's messages (serialized ``PlayGameResponse``\\ s) while ``requests`` brings its commands."""
        self._reader = asyncio.current_task()
        commands = asyncio.create_task(self._commands(requests), name=f"play-commands {self.name}")
        tasks = (asyncio.create_task(self._watch(), name=f"play-watch {self.name}"), commands)
        try:
            while True:
                item = await self._out.get()
                if item is _END:
                    async with self._applying:  # the command being applied queues its outcome first,
                        commands.cancel()  # and no other is taken: what is queued is all there is
                    while not self._out.empty():
                        last = self._out.get_nowait()
                        if isinstance(last, bytes):
                            yield last
                    return
                if isinstance(item, BaseException):
                    raise item
                assert isinstance(item, bytes)
                yield item
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _watch(self) -> None:
        try:
            # aclosing: a session cancelled while the watch waits ends it now (its seat's presence with it).
            async with contextlib.aclosing(self.games.watch(self.game_id, self.seat)) as progresses:
                async for progress in progresses:
                    for message in session_messages(
                        self.name, self.seat, progress.before, progress.after, progress.clocks, self.after_version
                    ):
                        await self._put(message)
            await self._put(_END)
        except Exception as failure:  # the server stopping, the store failing: the call ends with it
            await self._put(failure)

    async def _commands(self, requests: AsyncIterator[object]) -> None:
        try:
            async for request in requests:
                async with self._applying:
                    outcome = await self._outcome(request)
                # Applied: its slot is given back before the outcome waits for a client that may not read.
                self._settle()
                await self._put(outcome)
        except Exception as failure:  # a message that did not parse, a second start: the call ends with it
            await self._put(failure)

    async def _put(self, item: object) -> None:
        """Queue ``item`` for the client; a client that has read nothing for ``stalled_seconds`` while the
        queue is full is cut off (its call cancelled: it holds its watch slot no longer)."""
        try:
            async with asyncio.timeout(self._stalled_seconds):
                await self._out.put(item)
        except TimeoutError:
            self.log.info("session ended", game=self.name, seat=self.seat, why="the client read nothing")
            if self._reader is not None:
                self._reader.cancel()
            raise asyncio.CancelledError from None

    async def _outcome(self, request: object) -> bytes:
        """A command's outcome, serialized; a command refused before it was applied is answered the same way."""
        if isinstance(request, Refused):
            refused = request.request
            request_id = refused.command.request_id if isinstance(refused, gs.PlayGameRequest) else ""
            return self._refused(request_id, request.error)
        assert isinstance(request, gs.PlayGameRequest)
        if request.WhichOneof("kind") != "command":
            raise ServiceFailure(
                ServiceReason.MALFORMED_REQUEST, "a PlayGame stream sends one `start`, its first message; then commands"
            )
        command = request.command
        try:
            if not command.request_id:
                raise ServiceFailure(
                    ServiceReason.INVALID_REQUEST_ID, "command.request_id is required on a PlayGame stream"
                )
            if self.seat is None:
                raise ServiceFailure(
                    ServiceReason.TOKEN_MISSING,
                    "this PlayGame stream was opened without a seat token (authorization: Bearer <token>): "
                    "it can only watch",
                )
            if not command.HasField("command"):
                raise ServiceFailure(ServiceReason.MALFORMED_REQUEST, "command: set exactly one kind of command")
            seat_command = messages.command_from_pb(command.command, self.seat)
            result = await self.games.submit(self.game_id, seat_command, command.expected_version, command.request_id)
        except Exception as failure:
            return self._refused(command.request_id, error_for(failure))
        if isinstance(result, Move):
            version = result.state.version
        else:  # a request id applied before: its stored reply holds the version it reached
            version = gs.SubmitCommandResponse.FromString(result.reply).version
        outcome = gs.PlayGameOutcome(request_id=command.request_id, version=version)
        return gs.PlayGameResponse(outcome=outcome).SerializeToString()

    def _refused(self, request_id: str, error: ServiceError) -> bytes:
        skipped = REFUSALS.take() if error.code is Code.RESOURCE_EXHAUSTED else 0
        if skipped is not None:
            self.log.info(
                "command refused",
                method="truco.v1.GameService/PlayGame",
                code=error.code.name,
                reason=error.reason,
                game=self.name,
                seat=self.seat,
                request_id=request_id,
                **({"refusals_not_logged": skipped} if skipped else {}),
            )
        outcome = gs.PlayGameOutcome(request_id=request_id, error=command_error(error))
        return gs.PlayGameResponse(outcome=outcome).SerializeToString()


__all__ = ["Session"]
