"""A seat's whole match on one PlayGame stream: commands in, the game's commits out.

::

    async with client.play(game.name) as session:
        async for commit in session.commits():
            if is_over(commit.seat):
                break
            if is_my_turn(commit.seat):
                await session.submit(plain_bot(commit.seat), expected_version=commit.seat.public.version)

A :class:`PlaySession` replaces the pair of :meth:`~truco_client.TrucoClient.submit` and
:meth:`~truco_client.TrucoClient.watch_commits` for a native client: the same commits and the same outcomes, on
one call, which costs the server less per move. It needs HTTP/2 end to end (gRPC), as this SDK always speaks.

The stream is read by a task of its own: commits wait in a queue for :meth:`PlaySession.commits`, and each
:meth:`PlaySession.submit` waits for its command's outcome. When the stream breaks as a watch resumes on
(UNAVAILABLE, a server's or proxy's cut), it is opened again after the last version handed on, and every command
still waiting for its outcome is sent again with its request id (the server applies a request id once and
answers the same outcome).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing, suppress
from types import TracebackType
from typing import TYPE_CHECKING, Any

import grpc
import grpc.aio

from .commits import commit_events, commit_version, per_event
from .errors import ERROR_CLASSES, IllegalMove, TrucoError, VersionConflict, status_code
from .v1 import game_service_pb2
from .v1.commands_pb2 import Command

if TYPE_CHECKING:
    from .client import TrucoClient

WatchGameResponse = game_service_pb2.WatchGameResponse
PlayGameOutcome = game_service_pb2.PlayGameOutcome


class _Ended:
    """Queued after the last commit: the session is over, with ``error`` when it did not end with the match."""

    def __init__(self, error: TrucoError | None) -> None:
        self.error = error


def command_error(error: game_service_pb2.CommandError) -> TrucoError:
    """The typed error of a refused command, as :func:`~truco_client.errors.from_rpc_error` makes it from a
    SubmitCommand's status: the class of its code, its reason, message, metadata and retry delay."""
    code = status_code(error.code)
    delay = error.retry_delay.seconds + error.retry_delay.nanos / 1e9 if error.HasField("retry_delay") else None
    return ERROR_CLASSES.get(code, TrucoError)(
        code, error.reason, error.message, dict(error.metadata), retry_delay=delay
    )


class PlaySession:
    """One seat's PlayGame stream (made by :meth:`TrucoClient.play <truco_client.TrucoClient.play>`); use it as an
    async context manager, or call :meth:`open` and :meth:`close`."""

    def __init__(
        self,
        client: TrucoClient,
        name: str,
        after_version: int = 0,
        on_resume: Callable[[int, TrucoError], None] | None = None,
    ) -> None:
        self.name = name
        self._client = client
        self._last = after_version
        self._on_resume = on_resume
        self._pending: dict[str, tuple[game_service_pb2.PlayGameCommand, asyncio.Future[PlayGameOutcome]]] = {}
        self._commits: asyncio.Queue[WatchGameResponse | _Ended] = asyncio.Queue()
        self._writing = asyncio.Lock()
        # The open stream, once its start and the pending commands are sent.
        self._call: grpc.aio.StreamStreamCall[Any, Any] | None = None
        self._ended: _Ended | None = None
        self._reader: asyncio.Task[None] | None = None

    async def __aenter__(self) -> PlaySession:
        self.open()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    def open(self) -> None:
        """Open the stream (its reading task starts); opening twice is harmless."""
        if self._reader is None:
            self._reader = asyncio.get_running_loop().create_task(self._read(), name=f"play {self.name}")

    async def close(self) -> None:
        """Cancel the stream; submits still waiting fail with CANCELLED."""
        self._finish(TrucoError(grpc.StatusCode.CANCELLED, "", "the session was closed"))
        if self._reader is not None:
            self._reader.cancel()
            with suppress(asyncio.CancelledError):
                await self._reader

    @property
    def last_version(self) -> int:
        """The version of the last event handed on (where a resumed stream starts)."""
        return self._last

    async def submit(self, command: Command, expected_version: int = 0, request_id: str | None = None) -> int:
        """Send a command for this session's seat; returns the game's version once the move is stored (its events
        arrive as a commit, before or after).

        :raises IllegalMove: when the rules refuse it; :raises VersionConflict: when the game moved past
            ``expected_version``; other refusals raise the typed error SubmitCommand would. A quota's refusal
            is sent again after its RetryInfo delay, with the same request id, as the unary calls are.
        """
        from .client import new_request_id

        client = self._client
        message = game_service_pb2.PlayGameCommand(
            request_id=request_id or new_request_id(), expected_version=expected_version, command=command
        )
        attempt = 0
        while True:
            outcome = await self._send(message)
            if not outcome.HasField("error"):
                client._seen.saw(self.name, outcome.version)
                return outcome.version
            failure = command_error(outcome.error)
            quota_wait = client._quota_wait(failure)
            if quota_wait is None or attempt >= client.retries:
                if isinstance(failure, VersionConflict) and failure.metadata.get("version", "").isdigit():
                    client._seen.saw(self.name, int(failure.metadata["version"]))
                raise failure
            await asyncio.sleep(quota_wait)
            attempt += 1

    async def _send(self, message: game_service_pb2.PlayGameCommand) -> PlayGameOutcome:
        self.open()
        future: asyncio.Future[PlayGameOutcome] = asyncio.get_running_loop().create_future()
        async with self._writing:  # the reader sends the pending commands of a new stream under this lock too
            if self._ended is not None:  # looked at under the lock: a session that ended meanwhile answers none
                raise self._ended.error or _match_over()
            self._pending[message.request_id] = (message, future)
            if self._call is not None:
                # A stream that broke: the reader opens another and sends the pending commands again.
                with suppress(Exception):
                    await self._call.write(game_service_pb2.PlayGameRequest(command=message))
        try:
            return await future
        finally:
            if self._pending.get(message.request_id, (None, None))[1] is future:
                del self._pending[message.request_id]

    async def commits(self) -> AsyncGenerator[WatchGameResponse, None]:
        """Each commit of the game, in order, from the session's ``after_version`` on, as a per-commit watch
        hands them (:meth:`TrucoClient.watch_commits <truco_client.TrucoClient.watch_commits>`). Ends after the
        commit that ends the match.

        :raises TrucoError: when the stream failed for good (its retries spent, or a refusal that no retry helps).
        """
        while True:
            item = await self._commits.get()
            if isinstance(item, _Ended):
                self._commits.put_nowait(item)  # for any other reader
                if item.error is not None:
                    raise item.error
                return
            yield item

    async def events(self) -> AsyncGenerator[WatchGameResponse, None]:
        """Each event of the game, in order, one at a time, as :meth:`TrucoClient.watch
        <truco_client.TrucoClient.watch>` hands them: a commit's views go with its last event."""
        async with aclosing(self.commits()) as commits:
            async for commit in commits:
                for item in per_event(commit):
                    yield item

    async def _read(self) -> None:
        try:
            await self._stream()
        finally:  # whatever ended the reading (a bug, a callback that raised), nobody waits for ever
            self._finish(TrucoError(grpc.StatusCode.UNKNOWN, "", "the session stopped reading its stream"))

    async def _stream(self) -> None:
        client = self._client
        games, _ = client._stubs()
        failures = 0
        while True:
            call = games.PlayGame(metadata=client._metadata(True, self.name))
            try:
                async with self._writing:
                    start = game_service_pb2.PlayGameStart(name=self.name, after_version=self._last)
                    await call.write(game_service_pb2.PlayGameRequest(start=start))
                    for message, waiting in list(self._pending.values()):
                        if not waiting.done():
                            await call.write(game_service_pb2.PlayGameRequest(command=message))
                    self._call = call
                while True:
                    response = await call.read()
                    if response is grpc.aio.EOF:
                        self._finish(None)  # the match is over: the server ended the stream
                        return
                    failures = 0
                    self._take(response)
            except grpc.aio.AioRpcError as error:
                failure, wait = client._resume_wait(error, failures)
                if wait is None:
                    self._finish(failure)
                    return
                if self._on_resume is not None:
                    self._on_resume(self._last, failure)
            finally:
                self._call = None
                call.cancel()
            await asyncio.sleep(wait)
            failures += 1

    def _take(self, response: game_service_pb2.PlayGameResponse) -> None:
        kind = response.WhichOneof("kind")
        if kind == "commit":
            commit = response.commit
            events = commit_events(commit)
            self._last = max(self._last, events[-1].version if events else 0)
            self._client._seen.saw(self.name, commit_version(commit))
            self._commits.put_nowait(commit)
        elif kind == "outcome":
            pending = self._pending.get(response.outcome.request_id)
            if pending is not None and not pending[1].done():
                pending[1].set_result(response.outcome)

    def _finish(self, error: TrucoError | None) -> None:
        """The session is over: the commits end (with ``error``), and the submits still waiting fail."""
        if self._ended is not None:
            return
        self._ended = _Ended(error)
        self._commits.put_nowait(self._ended)
        for _, future in self._pending.values():
            if not future.done():
                future.set_exception(error or _match_over())


def _match_over() -> TrucoError:
    return IllegalMove(grpc.StatusCode.FAILED_PRECONDITION, "MATCH_OVER", "the session ended: the match is over")


__all__ = ["PlaySession", "command_error"]
