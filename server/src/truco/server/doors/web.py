"""The web door: the game and rules services over the Connect protocol and gRPC-Web (and gRPC), for browsers and
curl, and the web table.

The protocols are the ``connectrpc`` library's, served by Hypercorn over HTTP/1.1 and HTTP/2 (cleartext, with
prior knowledge or an ``Upgrade: h2c``). Its endpoints are made from the same methods the gRPC port serves
(:func:`~truco.server.service.pipeline.methods_of`: one per RPC of the services' descriptors), and each call goes
through the same :class:`~truco.server.service.pipeline.Pipeline`: observed, admitted, handled; a failure's
:class:`~truco.server.service.errors.ServiceError` becomes the Connect error with the same code, message and details
here, once (:func:`connect_error`). The request's HTTP headers are its metadata (``authorization: Bearer
<token>``, ``x-api-key``).

Also here: the connection limits (a cap per client address and in all, head and body timeouts:
:mod:`truco.server.doors.connections`), the request size and streams per HTTP/2 connection of the gRPC port, CORS
for the configured origins, and the built web table (``web/dist``) served at ``/``, with its own players' tokens at
``POST /table/player-token`` (:class:`TableTokens`, through the same pipeline).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import re
import socket
import urllib.parse
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from connectrpc.code import Code as ConnectCode
from connectrpc.codec import Codec
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_reflection.v1alpha import reflection_pb2
from hypercorn.asyncio import serve as hypercorn_serve
from hypercorn.config import Config as HypercornConfig
from hypercorn.config import Sockets
from protobuf.wkt import Any as AnyDetail
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as ASGIMessage

from truco.server.core.quotas import ConnectionLimits
from truco.server.core.reasons import ServiceReason
from truco.server.doors.connections import ConnectionCounts, GuardedListener, Policy
from truco.server.doors.reflection import REFLECTION_SERVICES, DocumentedReflection
from truco.server.service import quota_headers
from truco.server.service.errors import Code, ServiceError, rich_details
from truco.server.service.pipeline import Call, Malformed, Method, Pipeline
from truco.server.service.quota_headers import Headers, allowance_headers, failure_headers
from truco.server.service.table_players import MAX_BODY_BYTES, TableService, read_request

CORS_ALLOW_HEADERS = (
    "authorization",
    "content-type",
    "connect-protocol-version",
    "connect-timeout-ms",
    "grpc-timeout",
    "x-grpc-web",
    "x-user-agent",
    "x-api-key",
    "x-truco-game",
)
"""Request headers a browser may send cross-origin: the Connect and gRPC-Web ones, the seat token, the API key, the
game a call is about (for balancers' game affinity)."""
CORS_EXPOSE_HEADERS = ("grpc-status", "grpc-message", "grpc-status-details-bin", *quota_headers.NAMES)
"""Response headers a cross-origin page may read: gRPC-Web's status (Connect puts its errors in the body), and the
quota headers (``quota_headers``: the call rate left, when to retry)."""
SWEEP_SECONDS = 1.0
"""How often the web port looks for connections quiet or idle past their limits."""
DEFAULT_WEB_ASSETS = Path(__file__).resolve().parents[5] / "web" / "dist"
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


def connect_error(error: ServiceError) -> ConnectError:
    """The Connect error of a service error: the same code, message and details as the gRPC port's status (the
    ``google.rpc.ErrorInfo`` with the stable reason, and past a quota a ``RetryInfo`` and ``QuotaFailure``)."""
    details = [ErrorDetail(AnyDetail(type_url=d.type_url, value=d.value)) for d in rich_details(error)]
    code = ConnectCode.CANCELED if error.code is Code.CANCELLED else ConnectCode[error.code.name]
    return ConnectError(code, error.message, details)


class _Serialized:
    """A reply already serialized (a move's, stored with it): the binary codec sends its bytes as they are."""

    __slots__ = ("data", "kind")

    def __init__(self, data: bytes, kind: type[Message]) -> None:
        self.data = data
        self.kind = kind

    def message(self) -> Message:
        return self.kind.FromString(self.data)


class _DoorCodec(Codec[Message, Any]):
    """A google.protobuf codec for the door: a request that does not parse decodes to
    :class:`~truco.server.service.pipeline.Malformed` (the pipeline answers INVALID_ARGUMENT with
    MALFORMED_REQUEST, as on the gRPC port), and a reply already serialized is sent as it is (binary) or parsed
    once (JSON)."""

    def __init__(self, inner: Codec[Message, Any], binary: bool) -> None:
        self._inner = inner
        self._binary = binary

    def name(self) -> str:
        return self._inner.name()

    def encode(self, message: Message | _Serialized) -> bytes:
        if isinstance(message, _Serialized):
            return message.data if self._binary else self._inner.encode(message.message())
        return self._inner.encode(message)

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> Any:
        try:
            return self._inner.decode(data, message_class)
        except Exception as error:
            return Malformed(type(error).__name__)


CODECS: tuple[Codec[Message, Any], ...] = (
    _DoorCodec(google_protobuf_binary_codec(), binary=True),
    _DoorCodec(google_protobuf_json_codec(ignore_unknown_fields=False), binary=False),
)


@dataclass
class WebLimits:
    """The gRPC port's limits, applied to the web door."""

    max_request_bytes: int
    max_streams_per_connection: int


def _call(method: Method, ctx: RequestContext[Any, Any]) -> Call:
    return Call(method, _PROTOCOL.get(), tuple(ctx.request_headers.allitems()), _PEER.get())


def _headers(ctx: RequestContext[Any, Any], headers: Headers) -> None:
    """The quota headers (``quota_headers``) as the response's HTTP headers."""
    response = ctx.response_headers
    for name, value in headers:
        response[name] = value


def _refused(error: ServiceError, call: Call, ctx: RequestContext[Any, Any]) -> ConnectError:
    """A refusal as Connect reports it, with the quota headers: the call rate left if the call was admitted, and
    past a quota (HTTP 429) when to retry (``Retry-After``, and to the millisecond ``Retry-After-Ms``), for
    clients that know no RetryInfo."""
    _headers(ctx, failure_headers(error, call.allowance))
    return connect_error(error)


_STREAM_TYPES = {
    "unary": StreamType.UNARY,
    "server_stream": StreamType.SERVER_STREAM,
    "bidi_stream": StreamType.BIDI_STREAM,
}


def endpoint(pipeline: Pipeline, method: Method) -> Endpoint[Any, Any]:
    """The Connect endpoint of one method: the call goes through the pipeline, its failure maps to Connect."""
    info = MethodInfo(
        name=method.name,
        service_name=method.service,
        input=method.request,
        output=method.response,
        idempotency_level=IdempotencyLevel.UNKNOWN,
        stream_type=_STREAM_TYPES[method.kind],
    )
    if method.bidirectional:
        # Not served here: Hypercorn fails the HTTP/2 connection when a client's data arrives after the server
        # ended its stream, which a full-duplex call does as a matter of course; browsers have no full-duplex
        # streams anyway. Native clients have the gRPC port.
        refusal = ServiceError.of(
            ServiceReason.NOT_ON_THIS_PORT,
            f"{method.name} is served on the gRPC port only; over this port use SubmitCommand and WatchGame",
        )

        async def refused(requests: AsyncIterator[Any], ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
            call = _call(method, ctx)
            try:
                await pipeline.refuse(call, refusal)
            except ServiceError as error:
                raise _refused(error, call, ctx) from None
            yield  # an async generator, as the endpoint wants; never reached

        return Endpoint.bidi_stream(method=info, function=refused)
    if method.streaming:

        async def stream(request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
            call = _call(method, ctx)
            sent = False
            try:
                async for message in pipeline.stream(call, request):
                    if not sent:  # the response's headers go out with its first message
                        sent = True
                        _headers(ctx, allowance_headers(call.allowance))
                    yield _Serialized(message, method.response) if isinstance(message, bytes) else message
            except ServiceError as error:
                raise _refused(error, call, ctx) from None

        return Endpoint.server_stream(method=info, function=stream)

    async def unary(request: Any, ctx: RequestContext[Any, Any]) -> Any:
        call = _call(method, ctx)
        try:
            reply = await pipeline.unary(call, request)
        except ServiceError as error:
            raise _refused(error, call, ctx) from None
        _headers(ctx, allowance_headers(call.allowance))
        return _Serialized(reply, method.response) if isinstance(reply, bytes) else reply

    return Endpoint.unary(method=info, function=unary)


READABLE_DETAILS: dict[str, type[Message]] = {
    "google.rpc.ErrorInfo": error_details_pb2.ErrorInfo,
    "google.rpc.RetryInfo": error_details_pb2.RetryInfo,
    "google.rpc.QuotaFailure": error_details_pb2.QuotaFailure,
}
"""The details the service sends, which a Connect error also shows as JSON (the protocol's ``debug``)."""


def readable(body: bytes) -> bytes:
    """A Connect error's JSON body with each detail's ``debug``: its message as JSON beside the base64 ``value``,
    so that curl users read the reason (``{"reason": "CARD_NOT_IN_HAND", ...}``) without a protobuf decoder."""
    try:
        error = json.loads(body)
    except ValueError:
        return body
    for detail in error.get("details", ()):
        kind = READABLE_DETAILS.get(detail.get("type", ""))
        if kind is not None and "debug" not in detail:
            value = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
            detail["debug"] = json_format.MessageToDict(kind.FromString(value))
    return json.dumps(error, ensure_ascii=False).encode()


class ReadableErrors:
    """ASGI: Connect's unary errors (HTTP 4xx and 5xx with a JSON body) with readable details (:func:`readable`)."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        held: ASGIMessage | None = None

        async def sending(message: ASGIMessage) -> None:
            nonlocal held
            if message["type"] == "http.response.start" and message["status"] >= 400:
                types = [value for key, value in message.get("headers", ()) if key == b"content-type"]
                if types and types[0].startswith(b"application/json"):
                    held = message
                    return
            if held is not None and message["type"] == "http.response.body" and not message.get("more_body"):
                body = readable(message.get("body", b""))
                kept = [(k, v) for k, v in held.get("headers", ()) if k != b"content-length"]
                await send({**held, "headers": [*kept, (b"content-length", str(len(body)).encode())]})
                held = None
                await send({**message, "body": body})
                return
            await send(message)

        await self._app(scope, receive, sending)


SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        b"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)
"""Sent with every response of the web port. The web table keeps seat tokens and the API key in the page's
storage, so no script but its own may run there (``script-src 'self'``: an injected one could read them), no
other site may frame it (clickjacking), and no address leaves in a Referer. Inline styles stay allowed: the
table sets a few ``style`` attributes, and a style cannot read storage."""


class SecurityHeaders:
    """ASGI: :data:`SECURITY_HEADERS` on every HTTP response (the RPCs' too: a browser may load one as a page)."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return

        async def sending(message: ASGIMessage) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *SECURITY_HEADERS]}
            await send(message)

        await self._app(scope, receive, sending)


class ServiceApp(ConnectASGIApplication[Pipeline]):
    """The Connect, gRPC-Web and gRPC application of one service, its endpoints made from its methods."""

    def __init__(self, pipeline: Pipeline, methods: Sequence[Method], limits: WebLimits) -> None:
        self._path = f"/{methods[0].service}"
        endpoints: dict[str, Any] = {method.path: endpoint(pipeline, method) for method in methods}
        self.methods = frozenset(endpoints)
        super().__init__(
            service=pipeline,
            endpoints=lambda _: endpoints,
            read_max_bytes=limits.max_request_bytes,
            codecs=CODECS,
        )

    @property
    def path(self) -> str:
        """The service's path prefix (``/truco.v1.GameService``)."""
        return self._path


class ReflectionApp(ConnectASGIApplication[DocumentedReflection]):
    """Server reflection on the web port: the gRPC port's servicer, answering over connectrpc's gRPC (HTTP/2), as
    ``service`` (v1 or v1alpha: the same messages, so v1alpha's classes read and write both)."""

    def __init__(self, servicer: DocumentedReflection, limits: WebLimits, service: str) -> None:
        self._reflected = service
        info = MethodInfo(
            name="ServerReflectionInfo",
            service_name=service,
            input=reflection_pb2.ServerReflectionRequest,
            output=reflection_pb2.ServerReflectionResponse,
            idempotency_level=IdempotencyLevel.UNKNOWN,
            stream_type=StreamType.BIDI_STREAM,
        )

        def answer(requests: AsyncIterator[Any], _: RequestContext[Any, Any]) -> AsyncIterator[Any]:
            return servicer.answer(requests)

        endpoints: dict[str, Any] = {f"/{service}/{info.name}": Endpoint.bidi_stream(method=info, function=answer)}
        self.methods = frozenset(endpoints)
        super().__init__(
            service=servicer,
            endpoints=lambda _: endpoints,
            read_max_bytes=limits.max_request_bytes,
            codecs=(google_protobuf_binary_codec(),),
        )

    @property
    def path(self) -> str:
        return f"/{self._reflected}"


_NOT_BUILT = (
    b"<!doctype html><meta charset=utf-8><title>truco</title><p>The web table is not built: run "
    b"<code>npm --prefix web ci &amp;&amp; npm --prefix web run build</code> (./dev serve does it), or start "
    b"<code>truco serve --web-assets DIR</code>.</p>"
)


TABLE_TOKEN_PATH = "/table/player-token"
"""Where the web table's own players get their player tokens (:class:`TableTokens`)."""
HTTP_STATUS = {
    Code.CANCELLED: 499,
    Code.INVALID_ARGUMENT: 400,
    Code.DEADLINE_EXCEEDED: 504,
    Code.NOT_FOUND: 404,
    Code.ALREADY_EXISTS: 409,
    Code.PERMISSION_DENIED: 403,
    Code.RESOURCE_EXHAUSTED: 429,
    Code.FAILED_PRECONDITION: 400,
    Code.ABORTED: 409,
    Code.OUT_OF_RANGE: 400,
    Code.UNIMPLEMENTED: 501,
    Code.UNAVAILABLE: 503,
    Code.UNAUTHENTICATED: 401,
}
"""The HTTP status of each code, as the Connect protocol maps them (any other: 500)."""


def error_json(error: ServiceError) -> bytes:
    """A refusal as Connect's unary calls write one: ``{"code", "message", "details"}`` (each detail's type and
    unpadded base64 value; :class:`ReadableErrors` adds its ``debug``)."""
    details = [
        {"type": d.type_url.rpartition("/")[2], "value": base64.b64encode(d.value).decode().rstrip("=")}
        for d in rich_details(error)
    ]
    code = connect_error(error).code.value
    return json.dumps({"code": code, "message": error.message, "details": details}, ensure_ascii=False).encode()


class TableTokens:
    """ASGI: ``POST /table/player-token``, the web table's own players' tokens (``service/table_players.py``),
    through the one pipeline: observed, admitted (call rate; a new player per address per minute), refused as
    Connect refuses a unary call (HTTP status, JSON error, quota headers). Never cached by anyone."""

    def __init__(self, pipeline: Pipeline, service: TableService) -> None:
        self._pipeline = pipeline
        self._service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST":
            await _plain(send, 405, b"POST a JSON object", extra=((b"allow", b"POST"),))
            return
        body = await _body(receive, MAX_BODY_BYTES)
        # JSON only: a cross-site form cannot send it without CORS's preflight.
        json_sent = _header(scope, b"content-type").startswith(b"application/json")
        request = read_request(body) if json_sent else Malformed("content-type application/json")
        metadata = tuple((key.decode("latin-1"), value.decode("latin-1")) for key, value in scope["headers"])
        call = Call(self._service.method_for(request), "http", metadata, peer_of(scope))
        try:
            reply = await self._pipeline.unary(call, request)
        except ServiceError as error:
            await _answer(
                send, HTTP_STATUS.get(error.code, 500), error_json(error), failure_headers(error, call.allowance)
            )
            return
        assert isinstance(reply, bytes)
        await _answer(send, 200, reply, allowance_headers(call.allowance))


async def _body(receive: Receive, limit: int) -> bytes:
    """The request's body, cut one byte past ``limit`` (enough to tell it is too long)."""
    body = b""
    while True:
        message = await receive()
        body += bytes(message.get("body", b""))
        if len(body) > limit or not message.get("more_body", False):
            return body[: limit + 1]


async def _answer(send: Send, status: int, body: bytes, headers: Headers) -> None:
    extra = [(name.encode(), value.encode()) for name, value in headers]
    await _plain(send, status, body, b"application/json", extra=((b"cache-control", b"no-store"), *extra))


class WebApp:
    """The ASGI application of the web port: RPC paths go to the Connect applications, the table's players'
    tokens to :class:`TableTokens`, the rest to the web table's static files."""

    def __init__(self, apps: Sequence[Any], assets: Path | None, table: TableTokens | None = None) -> None:
        self._table = table
        self._apps = {app.path + "/": app for app in apps}
        self._methods = frozenset(method for app in apps for method in app.methods)
        self._static: ASGIApp | None = StaticFiles(directory=assets, html=True) if assets is not None else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        if path not in self._methods and is_rpc(scope):
            await unimplemented(scope, send)
            return
        if path == TABLE_TOKEN_PATH and self._table is not None:
            token = _PROTOCOL.set("http")
            try:
                await self._table(scope, receive, send)
            finally:
                _PROTOCOL.reset(token)
            return
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


RPC_PATH = re.compile(r"/[A-Za-z_][\w.]*\.[A-Za-z_]\w*/[A-Za-z_]\w*")
"""The path of an RPC: ``/package.Service/Method``."""


def is_rpc(scope: Scope) -> bool:
    """Whether a request is a call of some RPC, in any protocol of the port: gRPC, gRPC-Web and Connect streams
    by their content type, Connect's unary calls by an RPC's path with a POST of JSON or protobuf, or a GET of
    ``?connect=v1``."""
    content_type = _header(scope, b"content-type")
    if content_type.startswith((b"application/grpc", b"application/connect+")):
        return True
    if RPC_PATH.fullmatch(scope["path"]) is None:
        return False
    if scope["method"] == "GET":
        return b"connect=v1" in scope.get("query_string", b"")
    return scope["method"] == "POST" and content_type.startswith((b"application/json", b"application/proto"))


def _header(scope: Scope, name: bytes) -> bytes:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).lower()
    return b""


async def unimplemented(scope: Scope, send: Send) -> None:
    """UNIMPLEMENTED for a method this port does not serve, in the request's protocol (connectrpc answers an
    unknown path with a bare HTTP 404, which gRPC clients read as a broken stream, not as a status): gRPC and
    gRPC-Web as a trailers-only response, Connect's streams as an end-of-stream message, its unary calls as
    HTTP 404 with the JSON error body."""
    message = f"unknown method {scope['path']}: this server does not implement it"
    content_type = _header(scope, b"content-type")
    if content_type.startswith(b"application/grpc"):
        kind = [(b"content-type", content_type.split(b";")[0])]
        status = [
            (b"grpc-status", str(Code.UNIMPLEMENTED.value).encode()),
            (b"grpc-message", urllib.parse.quote(message, safe=" ").encode()),
        ]
        if content_type.startswith(b"application/grpc-web") or "http.response.trailers" not in scope.get(
            "extensions", {}
        ):  # gRPC-Web reads a trailers-only status from the headers
            await send({"type": "http.response.start", "status": 200, "headers": kind + status})
            await send({"type": "http.response.body", "body": b""})
            return
        # gRPC over HTTP/2: a status in the headers of a stream that then ends with a DATA frame is a broken
        # stream to gRPC's clients, so it goes in trailers after an empty body.
        await send({"type": "http.response.start", "status": 200, "headers": kind, "trailers": True})
        await send({"type": "http.response.body", "body": b""})
        await send({"type": "http.response.trailers", "headers": status, "more_trailers": False})
        return
    error = {"code": "unimplemented", "message": message}
    if content_type.startswith(b"application/connect+"):
        end = json.dumps({"error": error}).encode()
        body = b"\x02" + len(end).to_bytes(4, "big") + end
        await _plain(send, 200, body, content_type.split(b";")[0])
        return
    await _plain(send, 404, json.dumps(error).encode(), b"application/json")


async def _plain(
    send: Send,
    status: int,
    body: bytes,
    content_type: bytes = b"text/plain; charset=utf-8",
    extra: Iterable[tuple[bytes, bytes]] = (),
) -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode()), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def build_app(
    pipeline: Pipeline,
    services: Sequence[Sequence[Method]],
    reflection: DocumentedReflection,
    limits: WebLimits,
    *,
    cors_origins: Iterable[str] = (),
    assets: Path | None = None,
    table: TableService | None = None,
) -> ASGIApp:
    """The web port's ASGI application: each service's methods through ``pipeline``, server reflection (over
    gRPC: it is a bidirectional stream), and the web table with its players' tokens (``table``: served only with
    the table's ``assets``)."""
    apps: list[Any] = [ServiceApp(pipeline, methods, limits) for methods in services]
    # The web port lists what it serves: the services and reflection (health is the gRPC port's).
    listed = reflection.listing(methods[0].service for methods in services)
    reflections = [ReflectionApp(listed, limits, service) for service in REFLECTION_SERVICES]
    tokens = TableTokens(pipeline, table) if table is not None and assets is not None else None
    app: ASGIApp = WebApp([*apps, *reflections], assets, tokens)
    app = ReadableErrors(app)
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
    return SecurityHeaders(app)


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


class Tracked:
    """ASGI: tells the listener when each request of a connection begins and ends, so that it knows which
    connections never made a call and which have none open
    (:class:`~truco.server.doors.connections.GuardedListener`)."""

    def __init__(self, app: ASGIApp, listener: GuardedListener) -> None:
        self._app = app
        self._listener = listener

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        peer = peer_of(scope)
        self._listener.called(peer)
        try:
            await self._app(scope, receive, send)
        finally:
            self._listener.ended(peer)


class WebServer:
    """The web port, served by Hypercorn in the running event loop until :meth:`stop`, behind the connection
    limits (:mod:`truco.server.doors.connections`): a cap per client address and in all (the connection longest
    without a call gives way to a newcomer), head and body timeouts, and a sweep of connections that stay
    without a call."""

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
        policy = Policy(counts.total_cap, counts.group_cap, connections.quiet_timeout, connections.idle_timeout)
        self.listener = GuardedListener(_listen(host, port), counts, refused, policy)
        self.port: int = self.listener.getsockname()[1]
        config = _Listening(self.listener)
        config.h2_max_concurrent_streams = limits.max_streams_per_connection
        config.keep_alive_timeout = connections.head_timeout
        config.graceful_timeout = grace_seconds
        config.accesslog = None
        config.errorlog = logging.getLogger("hypercorn.error")
        config.include_server_header = False
        self._config = config
        self._app = Tracked(BodyTimeout(app, connections.body_timeout, self.listener), self.listener)
        self._shutdown = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(
            hypercorn_serve(self._app, self._config, shutdown_trigger=self._shutdown.wait, mode="asgi")  # type: ignore[arg-type]
        )
        self._sweeper = asyncio.create_task(self._sweep(), name="truco-web-sweep")

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            self.listener.sweep()

    async def stop(self) -> None:
        self._shutdown.set()
        if self._sweeper is not None:
            self._sweeper.cancel()
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
