"""The web door: the same servicers over the Connect protocol and gRPC-Web (and gRPC), for browsers and curl.

The protocols are the ``connectrpc`` library's (generated bindings in :mod:`truco.server.v1`), served by
Hypercorn over HTTP/1.1 and HTTP/2 (cleartext, with prior knowledge or an ``Upgrade: h2c``). Each call goes to
the very servicer objects the gRPC port uses, through :class:`CallContext`, which gives them the part of
``grpc.aio.ServicerContext`` they use: the request metadata (HTTP headers: ``authorization: Bearer <token>``)
and ``abort_with_status``, whose ``google.rpc.Status`` becomes the Connect error with the same code, message
and details (the ``ErrorInfo`` with the stable reason). So auth, the core, the store and the error mapping are
shared, not restated.

Also here: the same limits as the gRPC port (request size, streams per HTTP/2 connection, and the API keys,
quotas and caps of :class:`~truco.server.limits.Admission`, one instance shared by both ports),
metrics and log lines labelled with the protocol, CORS for the configured origins, and the built web table
(``web/dist``) served at ``/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import grpc
import structlog
from connectrpc.code import Code
from connectrpc.codec import Codec
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.request import RequestContext
from google.protobuf.message import Message
from google.rpc import status_pb2
from hypercorn.asyncio import serve as hypercorn_serve
from hypercorn.config import Config as HypercornConfig
from hypercorn.config import Sockets
from protobuf.wkt import Any as AnyDetail
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as ASGIMessage

from truco_client.v1 import game_service_pb2 as gs
from truco_client.v1 import rules_service_pb2 as rs

from .connections import ConnectionCounts, GuardedListener
from .errors import ServiceError, status_for
from .keys import Caller
from .limits import Admission
from .metrics import CALLER_SEAT, HEALTH_SERVICE, Metrics, request_fields
from .quotas import ConnectionLimits
from .reasons import QuotaExceeded, ServiceReason
from .service import GameServicer, RulesServicer
from .v1.game_service_connect import GameServiceASGIApplication
from .v1.rules_service_connect import RulesServiceASGIApplication

Req = TypeVar("Req", bound=Message)
Res = TypeVar("Res", bound=Message)

_STATUS_DETAILS_KEY = "grpc-status-details-bin"
CORS_ALLOW_HEADERS = (
    "authorization",
    "content-type",
    "connect-protocol-version",
    "connect-timeout-ms",
    "grpc-timeout",
    "x-grpc-web",
    "x-user-agent",
    "x-api-key",
)
"""Request headers a browser may send cross-origin: the Connect and gRPC-Web ones, the seat token, the API key."""
CORS_EXPOSE_HEADERS = ("grpc-status", "grpc-message", "grpc-status-details-bin")
"""Response headers a cross-origin page may read: gRPC-Web's status (Connect puts its errors in the body)."""
DEFAULT_WEB_ASSETS = Path(__file__).resolve().parents[4] / "web" / "dist"
"""The web table built by Vite in a source checkout (``web/dist``); ``--web-assets`` names another folder."""


def protocol_of(scope: Scope) -> str:
    """The wire protocol of a request, from its content type: ``connect``, ``grpc-web`` or ``grpc``."""
    content_type = ""
    for key, value in scope.get("headers", ()):
        if key == b"content-type":
            content_type = value.decode("latin-1").lower()
            break
    if content_type.startswith("application/grpc-web"):
        return "grpc-web"
    if content_type.startswith("application/grpc"):
        return "grpc"
    return "connect"


_PROTOCOL: ContextVar[str] = ContextVar("web_protocol", default="connect")
"""The protocol of the request being handled (set by :class:`WebApp`, read for metrics and logs)."""
_PEER: ContextVar[str] = ContextVar("web_peer", default="unknown")
"""The client's address and port as gRPC writes a peer (``ipv4:1.2.3.4:5``), one per connection."""


def peer_of(scope: Scope) -> str:
    client = scope.get("client")
    if not client:
        return "unknown"
    host, port = client[0], client[1]
    return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"


def _grpc_to_connect_code(code: grpc.StatusCode) -> Code:
    return Code.CANCELED if code is grpc.StatusCode.CANCELLED else Code[code.name]


def connect_error(status: grpc.Status) -> ConnectError:
    """The Connect error for a gRPC status made by the service's error mapping: same code, message and details
    (the packed ``google.rpc.ErrorInfo`` travels as is)."""
    details: list[ErrorDetail] = []
    message = status.details or ""
    for key, value in status.trailing_metadata or ():
        if key == _STATUS_DETAILS_KEY and isinstance(value, bytes):
            rich = status_pb2.Status.FromString(value)
            message = rich.message
            details = [ErrorDetail(AnyDetail(type_url=d.type_url, value=d.value)) for d in rich.details]
    return ConnectError(_grpc_to_connect_code(status.code), message, details)


def _error_for(error: Exception, ctx: RequestContext[Any, Any]) -> ConnectError:
    """Any failure out of a servicer as the Connect error the gRPC port would have answered; past a quota, the
    HTTP answer (429) also says when to retry in a ``Retry-After`` header, for clients that know no RetryInfo."""
    if isinstance(error, QuotaExceeded):
        ctx.response_headers["retry-after"] = str(max(1, math.ceil(error.retry_after)))
    if isinstance(error, ConnectError):
        return error
    return connect_error(status_for(error))


class CallContext:
    """What the servicers use of ``grpc.aio.ServicerContext``, over a Connect request."""

    def __init__(self, ctx: RequestContext[Any, Any]) -> None:
        self._ctx = ctx
        self.code: Code | None = None

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return tuple(self._ctx.request_headers.allitems())

    async def abort_with_status(self, status: grpc.Status) -> NoReturn:
        raise connect_error(status)

    async def abort(self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()) -> NoReturn:
        raise ConnectError(_grpc_to_connect_code(code), details)


class _MalformedTolerant(Codec[Message, Any]):
    """A google.protobuf codec whose parse failures are INVALID_ARGUMENT with the MALFORMED_REQUEST reason, as
    on the gRPC port."""

    def __init__(self, inner: Codec[Message, Any]) -> None:
        self._inner = inner

    def name(self) -> str:
        return self._inner.name()

    def encode(self, message: Message) -> bytes:
        return self._inner.encode(message)

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> Any:
        try:
            return self._inner.decode(data, message_class)
        except Exception as error:
            raise connect_error(
                ServiceError.of(
                    ServiceReason.MALFORMED_REQUEST, f"the request is not a valid message ({type(error).__name__})"
                ).to_status()
            ) from None


CODECS: tuple[Codec[Message, Any], ...] = (
    _MalformedTolerant(google_protobuf_binary_codec()),
    _MalformedTolerant(google_protobuf_json_codec(ignore_unknown_fields=False)),
)


@dataclass
class WebLimits:
    """The gRPC port's limits, applied to the web door."""

    max_request_bytes: int
    max_streams_per_connection: int


class Observed:
    """Counts, times and logs each call of the web door like the gRPC interceptor does, with its protocol;
    and admits it like the gRPC port's AdmissionInterceptor (keys, quotas, caps: the same Admission)."""

    def __init__(self, metrics: Metrics, limits: WebLimits, admission: Admission) -> None:
        self.metrics = metrics
        self.limits = limits
        self.admission = admission
        self.log = structlog.get_logger("truco.server")

    def _start(self, kind: str, ctx: RequestContext[Any, Any], protocol: str) -> tuple[Any, ...]:
        method = ctx.method
        labels = (kind, method.service_name, method.name, protocol)
        self.metrics.started.labels(*labels).inc()
        CALLER_SEAT.set(None)
        return labels

    async def _admit(self, request: Any, ctx: RequestContext[Any, Any]) -> Caller:
        headers = tuple(ctx.request_headers.allitems())
        return await self.admission.admit(ctx.method.service_name, ctx.method.name, request, headers, _PEER.get())

    def _finish(self, labels: tuple[Any, ...], started: float, request: Any, error: BaseException | None) -> None:
        elapsed = time.perf_counter() - started
        if error is None:
            code_name = "OK"
        elif isinstance(error, ConnectError):
            code_name = "CANCELLED" if error.code is Code.CANCELED else error.code.name
        elif isinstance(error, asyncio.CancelledError):
            code_name = "CANCELLED"
        else:
            code_name = "UNKNOWN"
        _, service, method, protocol = labels
        self.metrics.handled.labels(*labels[:3], code_name, protocol).inc()
        self.metrics.handling_seconds.labels(*labels).observe(elapsed)
        if service == HEALTH_SERVICE and code_name == "OK":
            return
        self.log.info(
            "rpc",
            method=f"{service}/{method}",
            protocol=protocol,
            code=code_name,
            latency_ms=round(elapsed * 1000, 3),
            seat=CALLER_SEAT.get(),
            **request_fields(request),
        )

    async def unary(
        self,
        behaviour: Callable[[Req, Any], Awaitable[Res]],
        request: Req,
        ctx: RequestContext[Req, Res],
    ) -> Res:
        protocol = _PROTOCOL.get()
        started = time.perf_counter()
        labels = self._start("unary", ctx, protocol)
        error: BaseException | None = None
        try:
            caller = await self._admit(request, ctx)
            with self.admission.unary_slot(caller):
                await self.admission.charge_method(ctx.method.name, caller)
                return await behaviour(request, CallContext(ctx))
        except ConnectError as failure:
            error = failure
            raise
        except asyncio.CancelledError as failure:
            error = failure
            raise
        except Exception as failure:
            error = _error_for(failure, ctx)
            raise error from None
        finally:
            self._finish(labels, started, request, error)

    async def stream(
        self,
        behaviour: Callable[[Req, Any], AsyncIterator[Res]],
        request: Req,
        ctx: RequestContext[Req, Res],
    ) -> AsyncIterator[Res]:
        protocol = _PROTOCOL.get()
        started = time.perf_counter()
        labels = self._start("server_stream", ctx, protocol)
        sent = self.metrics.msg_sent.labels(*labels)
        error: BaseException | None = None
        try:
            caller = await self._admit(request, ctx)
            with self.admission.watch_slot(caller):
                async for message in behaviour(request, CallContext(ctx)):
                    sent.inc()
                    yield message
        except ConnectError as failure:
            error = failure
            raise
        except (asyncio.CancelledError, GeneratorExit) as failure:
            error = failure if isinstance(failure, asyncio.CancelledError) else asyncio.CancelledError()
            raise
        except Exception as failure:
            error = _error_for(failure, ctx)
            raise error from None
        finally:
            self._finish(labels, started, request, error)


class RulesConnect:
    """RulesService for connectrpc: each method is the gRPC servicer's, observed."""

    def __init__(self, servicer: RulesServicer, observed: Observed) -> None:
        self._servicer = servicer
        self._observed = observed

    async def evaluate_hand(
        self, request: rs.EvaluateHandRequest, ctx: RequestContext[rs.EvaluateHandRequest, rs.EvaluateHandResponse]
    ) -> rs.EvaluateHandResponse:
        return await self._observed.unary(self._servicer.EvaluateHand, request, ctx)

    async def compare_cards(
        self, request: rs.CompareCardsRequest, ctx: RequestContext[rs.CompareCardsRequest, rs.CompareCardsResponse]
    ) -> rs.CompareCardsResponse:
        return await self._observed.unary(self._servicer.CompareCards, request, ctx)


class GameConnect:
    """GameService for connectrpc: each method is the gRPC servicer's, observed."""

    def __init__(self, servicer: GameServicer, observed: Observed) -> None:
        self._servicer = servicer
        self._observed = observed

    async def create_game(
        self, request: gs.CreateGameRequest, ctx: RequestContext[gs.CreateGameRequest, gs.CreateGameResponse]
    ) -> gs.CreateGameResponse:
        return await self._observed.unary(self._servicer.CreateGame, request, ctx)

    async def join_game(
        self, request: gs.JoinGameRequest, ctx: RequestContext[gs.JoinGameRequest, gs.JoinGameResponse]
    ) -> gs.JoinGameResponse:
        return await self._observed.unary(self._servicer.JoinGame, request, ctx)

    async def get_game_view(
        self, request: gs.GetGameViewRequest, ctx: RequestContext[gs.GetGameViewRequest, gs.GetGameViewResponse]
    ) -> gs.GetGameViewResponse:
        return await self._observed.unary(self._servicer.GetGameView, request, ctx)

    async def list_legal_actions(
        self,
        request: gs.ListLegalActionsRequest,
        ctx: RequestContext[gs.ListLegalActionsRequest, gs.ListLegalActionsResponse],
    ) -> gs.ListLegalActionsResponse:
        return await self._observed.unary(self._servicer.ListLegalActions, request, ctx)

    async def submit_command(
        self, request: gs.SubmitCommandRequest, ctx: RequestContext[gs.SubmitCommandRequest, gs.SubmitCommandResponse]
    ) -> gs.SubmitCommandResponse:
        return await self._observed.unary(self._servicer.SubmitCommand, request, ctx)

    def watch_game(
        self, request: gs.WatchGameRequest, ctx: RequestContext[gs.WatchGameRequest, gs.WatchGameResponse]
    ) -> AsyncIterator[gs.WatchGameResponse]:
        return self._observed.stream(self._servicer.WatchGame, request, ctx)

    async def list_games(
        self, request: gs.ListGamesRequest, ctx: RequestContext[gs.ListGamesRequest, gs.ListGamesResponse]
    ) -> gs.ListGamesResponse:
        return await self._observed.unary(self._servicer.ListGames, request, ctx)

    async def get_game(
        self, request: gs.GetGameRequest, ctx: RequestContext[gs.GetGameRequest, gs.GetGameResponse]
    ) -> gs.GetGameResponse:
        return await self._observed.unary(self._servicer.GetGame, request, ctx)

    async def leave_game(
        self, request: gs.LeaveGameRequest, ctx: RequestContext[gs.LeaveGameRequest, gs.LeaveGameResponse]
    ) -> gs.LeaveGameResponse:
        return await self._observed.unary(self._servicer.LeaveGame, request, ctx)

    async def resume_seat(
        self, request: gs.ResumeSeatRequest, ctx: RequestContext[gs.ResumeSeatRequest, gs.ResumeSeatResponse]
    ) -> gs.ResumeSeatResponse:
        return await self._observed.unary(self._servicer.ResumeSeat, request, ctx)

    async def rematch(
        self, request: gs.RematchRequest, ctx: RequestContext[gs.RematchRequest, gs.RematchResponse]
    ) -> gs.RematchResponse:
        return await self._observed.unary(self._servicer.Rematch, request, ctx)


_NOT_BUILT = (
    b"<!doctype html><meta charset=utf-8><title>truco</title><p>The web table is not built: run "
    b"<code>npm --prefix web ci &amp;&amp; npm --prefix web run build</code> (./dev serve does it), or start "
    b"<code>truco serve --web-assets DIR</code>.</p>"
)


class WebApp:
    """The ASGI application of the web port: RPC paths go to the Connect applications, the rest to the web
    table's static files."""

    def __init__(self, apps: Sequence[Any], assets: Path | None) -> None:
        self._apps = {app.path + "/": app for app in apps}
        self._static: ASGIApp | None = StaticFiles(directory=assets, html=True) if assets is not None else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        for prefix, app in self._apps.items():
            if path.startswith(prefix):
                token = _PROTOCOL.set(protocol_of(scope))
                peer = _PEER.set(peer_of(scope))
                try:
                    await app(scope, receive, send)
                finally:
                    _PEER.reset(peer)
                    _PROTOCOL.reset(token)
                return
        if self._static is not None:
            try:
                await self._static(scope, receive, send)
            except HTTPException as error:  # StaticFiles' 404 and 405, answered as plain text
                await _plain(send, error.status_code, error.detail.encode())
            return
        if path == "/":
            await _plain(send, 200, _NOT_BUILT, b"text/html; charset=utf-8")
        else:
            await _plain(send, 404, b"Not Found")

    @staticmethod
    async def _lifespan(receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _plain(send: Send, status: int, body: bytes, content_type: bytes = b"text/plain; charset=utf-8") -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def build_app(
    game: GameServicer,
    rules: RulesServicer,
    metrics: Metrics,
    limits: WebLimits,
    admission: Admission,
    *,
    cors_origins: Iterable[str] = (),
    assets: Path | None = None,
) -> ASGIApp:
    """The web port's ASGI application over the given servicers, admitting calls through ``admission``."""
    observed = Observed(metrics, limits, admission)
    common: dict[str, Any] = {"read_max_bytes": limits.max_request_bytes, "codecs": CODECS}
    apps = [
        GameServiceASGIApplication(GameConnect(game, observed), **common),
        RulesServiceASGIApplication(RulesConnect(rules, observed), **common),
    ]
    app: ASGIApp = WebApp(apps, assets)
    origins = list(cors_origins)
    if origins:
        app = CORSMiddleware(
            app,
            allow_origins=origins,
            allow_methods=["GET", "POST"],
            allow_headers=list(CORS_ALLOW_HEADERS),
            expose_headers=list(CORS_EXPOSE_HEADERS),
            max_age=7200,
        )
    return app


class _Listening(HypercornConfig):
    """Hypercorn's configuration, serving the given (guarded) listening socket instead of binding its own."""

    def __init__(self, listener: socket.socket) -> None:
        super().__init__()
        self._listener = listener

    def create_sockets(self) -> Sockets:
        return Sockets(secure_sockets=[], insecure_sockets=[self._listener], quic_sockets=[])


class BodyTimeout:
    """ASGI: a request's body must arrive within ``seconds`` of its head, or its connection is cut (a client
    that sends a head and a byte, then nothing, would otherwise hold its connection for ever). Request heads
    are timed by Hypercorn's keep-alive timeout, which runs until a whole head has arrived."""

    def __init__(self, app: ASGIApp, seconds: float, listener: GuardedListener) -> None:
        self._app = app
        self._seconds = seconds
        self._listener = listener

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        deadline = asyncio.get_running_loop().time() + self._seconds
        complete = False

        async def timed_receive() -> ASGIMessage:
            nonlocal complete
            if complete:
                return await receive()
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                client = scope.get("client")
                if client:
                    self._listener.shut(str(client[0]), int(client[1]))
                complete = True
                return {"type": "http.disconnect"}
            complete = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        await self._app(scope, timed_receive, send)


class WebServer:
    """The web port, served by Hypercorn in the running event loop until :meth:`stop`, behind the connection
    limits (:mod:`truco.server.connections`): a cap per client address and in all, and head and body timeouts."""

    def __init__(
        self,
        app: ASGIApp,
        host: str,
        port: int,
        limits: WebLimits,
        grace_seconds: float,
        connections: ConnectionLimits,
        counts: ConnectionCounts,
        refused: Callable[[str], None],
    ) -> None:
        self.listener = GuardedListener(_listen(host, port), counts, refused)
        self.port: int = self.listener.getsockname()[1]
        config = _Listening(self.listener)
        config.h2_max_concurrent_streams = limits.max_streams_per_connection
        config.keep_alive_timeout = connections.head_timeout
        config.graceful_timeout = grace_seconds
        config.accesslog = None
        config.errorlog = logging.getLogger("hypercorn.error")
        config.include_server_header = False
        self._config = config
        self._app = BodyTimeout(app, connections.body_timeout, self.listener)
        self._shutdown = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(
            hypercorn_serve(self._app, self._config, shutdown_trigger=self._shutdown.wait, mode="asgi")  # type: ignore[arg-type]
        )

    async def stop(self) -> None:
        self._shutdown.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


def _listen(host: str, port: int) -> socket.socket:
    # SO_REUSEPORT (where there is one), as gRPC binds its port: the workers of `truco serve --workers N` share
    # the web port too, and the kernel spreads its connections over them.
    reuse = hasattr(socket, "SO_REUSEPORT")
    address = host.strip("[]")
    if address in ("", "::"):
        return socket.create_server(
            ("::", port), family=socket.AF_INET6, dualstack_ipv6=True, backlog=128, reuse_port=reuse
        )
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    return socket.create_server((address, port), family=family, backlog=128, reuse_port=reuse)
