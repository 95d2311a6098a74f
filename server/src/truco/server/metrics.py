"""Prometheus metrics with the usual gRPC names, and the interceptor that logs and measures every call.

Logs are structlog JSON lines with the method, game, seat, request id, status code and latency; never a card,
a token or a command's content.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar

import grpc
import structlog
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from .errors import ServiceError
from .reasons import ServiceReason

CALLER_SEAT: ContextVar[int | None] = ContextVar("caller_seat", default=None)
"""The authenticated seat of the call being handled, for the log line (set by the servicer)."""

HEALTH_SERVICE = "grpc.health.v1.Health"

# The interceptor sees every method of every service, so its requests and responses are of any message type.
_Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"
_Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"
_Req = TypeVar("_Req")
_Resp = TypeVar("_Resp")
_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


@dataclass
class Metrics:
    """Every metric of one server, in its own registry (tests start several servers in one process)."""

    registry: CollectorRegistry
    started: Counter
    handled: Counter
    handling_seconds: Histogram
    msg_sent: Counter
    matches_started: Counter
    matches_finished: Counter
    events_appended: Counter
    commands_applied: Counter
    store_latency: Histogram
    store_up: Gauge
    watchers: Gauge
    clock_firings: Counter
    games_removed: Counter
    connections_refused: Counter

    @classmethod
    def create(cls) -> Metrics:
        registry = CollectorRegistry()
        # protocol: grpc on the gRPC port; connect, grpc-web or grpc on the web port (truco.server.web).
        labels = ("grpc_type", "grpc_service", "grpc_method", "protocol")
        return cls(
            registry=registry,
            started=Counter("grpc_server_started", "RPCs started on the server.", labels, registry=registry),
            handled=Counter(
                "grpc_server_handled",
                "RPCs completed on the server, by code.",
                (*labels[:3], "grpc_code", labels[3]),
                registry=registry,
            ),
            handling_seconds=Histogram(
                "grpc_server_handling_seconds",
                "Latency of RPCs handled by the server (streams: until the stream ends).",
                labels,
                buckets=_LATENCY_BUCKETS,
                registry=registry,
            ),
            msg_sent=Counter("grpc_server_msg_sent", "Stream messages sent by the server.", labels, registry=registry),
            matches_started=Counter("truco_matches_started", "Matches created.", registry=registry),
            matches_finished=Counter("truco_matches_finished", "Matches that reached their target.", registry=registry),
            events_appended=Counter("truco_events_appended", "Events appended to the event store.", registry=registry),
            commands_applied=Counter(
                "truco_commands_applied",
                "Moves applied, by a seat's client or a server bot.",
                ("by",),
                registry=registry,
            ),
            store_latency=Histogram(
                "truco_store_latency_seconds",
                "Event store latency.",
                ("operation",),
                buckets=_LATENCY_BUCKETS,
                registry=registry,
            ),
            # Under `truco serve --workers N` (Prometheus multiprocess mode) the host reports the lowest store_up
            # and the sum of watchers over its live workers; with one process these settings change nothing.
            store_up=Gauge(
                "truco_store_up",
                "1 while the event store answers, 0 otherwise.",
                registry=registry,
                multiprocess_mode="livemin",
            ),
            watchers=Gauge("truco_watchers", "Open WatchGame streams.", registry=registry, multiprocess_mode="livesum"),
            clock_firings=Counter(
                "truco_clock_firings",
                "Expired turn clocks this server fired, by outcome: takeover or forfeit when its firing was"
                " applied, lost when another replica's (or a move) got there first.",
                ("outcome",),
                registry=registry,
            ),
            games_removed=Counter(
                "truco_games_removed",
                "Games closed unplayed (closed) or removed by retention (removed).",
                ("how",),
                registry=registry,
            ),
            connections_refused=Counter(
                "truco_connections_refused",
                "Client connections refused or cut by the connection limits, by port (grpc, web) and cap: total,"
                " per_address (a client address past its cap).",
                ("port", "cap"),
                registry=registry,
            ),
        )


@dataclass(frozen=True)
class Malformed:
    """Stands for a request whose bytes did not parse, so the handler can answer INVALID_ARGUMENT."""

    error: str


def _tolerant(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    """A deserializer that returns :class:`Malformed` instead of raising (gRPC would answer UNKNOWN)."""
    if deserializer is None:
        return None

    def parse(data: bytes) -> Any:
        try:
            return deserializer(data)
        except Exception as error:
            return Malformed(type(error).__name__)

    return parse


async def _refuse_malformed(request: Any, context: _Context) -> None:
    if isinstance(request, Malformed):
        error = ServiceError.of(
            ServiceReason.MALFORMED_REQUEST, f"the request is not a valid message ({request.error})"
        )
        await context.abort_with_status(error.to_status())


def _split(method: str) -> tuple[str, str]:
    service, _, name = method.lstrip("/").partition("/")
    return service, name


def request_fields(request: Any) -> dict[str, str]:
    """Identifiers worth logging from a request: never cards, tokens or the command itself."""
    fields: dict[str, str] = {}
    if isinstance(request, Malformed):
        return fields
    name = getattr(request, "name", "")
    if isinstance(name, str) and name:
        fields["game"] = name
    request_id = getattr(request, "request_id", "")
    if isinstance(request_id, str) and request_id:
        if hasattr(request, "player_name"):
            # A join's request id fetches the seat token again: log only a digest that still correlates.
            fields["request_id_sha256"] = hashlib.sha256(request_id.encode()).hexdigest()[:16]
        else:
            fields["request_id"] = request_id
    return fields


@dataclass(frozen=True)
class _MethodMeters:
    started: Any
    seconds: Any
    sent: Any
    handled: dict[grpc.StatusCode, Any]


class ObservabilityInterceptor(grpc.aio.ServerInterceptor):
    """Counts, times and logs every RPC; the status code comes from the context once the handler is done."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self.log = structlog.get_logger("truco.server")
        self._wrapped: dict[str, tuple[_Handler, _Handler]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[_Req, _Resp] | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[_Req, _Resp] | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        # gRPC asks on every call: wrap each method's handler once.
        wrapped = self._wrapped.get(handler_call_details.method)
        if wrapped is None or wrapped[0] is not handler:
            wrapped = (handler, self._wrap(handler, handler_call_details.method))
            self._wrapped[handler_call_details.method] = wrapped
        return wrapped[1]

    def _wrap(self, handler: _Handler, full_method: str) -> _Handler:
        service, method = _split(full_method)
        deserializer = _tolerant(handler.request_deserializer)
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._unary(handler.unary_unary, service, method),
                request_deserializer=deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            wrap = self._stream if inspect.isasyncgenfunction(handler.unary_stream) else self._streaming_coroutine
            return grpc.unary_stream_rpc_method_handler(
                wrap(handler.unary_stream, service, method),
                request_deserializer=deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler

    def _unary(self, behaviour: Any, service: str, method: str) -> Any:
        meters = self._meters("unary", service, method)

        async def observed(request: Any, context: _Context) -> Any:
            meters.started.inc()
            started, raised, cancelled = time.perf_counter(), False, False
            try:
                await _refuse_malformed(request, context)
                return await behaviour(request, context)
            except (asyncio.CancelledError, GeneratorExit):
                raised = cancelled = True  # the client cancelled the call, or its connection went away
                raise
            except BaseException:
                raised = True
                raise
            finally:
                self._finish(meters, service, method, started, request, context, raised, cancelled)

        return observed

    def _stream(self, behaviour: Any, service: str, method: str) -> Any:
        meters = self._meters("server_stream", service, method)

        async def observed(request: Any, context: _Context) -> AsyncIterator[Any]:
            meters.started.inc()
            started, raised, cancelled = time.perf_counter(), False, False
            try:
                await _refuse_malformed(request, context)
                async for message in behaviour(request, context):
                    meters.sent.inc()
                    yield message
            except (asyncio.CancelledError, GeneratorExit):
                raised = cancelled = True  # the client cancelled the call, or its connection went away
                raise
            except BaseException:
                raised = True
                raise
            finally:
                self._finish(meters, service, method, started, request, context, raised, cancelled)

        return observed

    def _streaming_coroutine(self, behaviour: Any, service: str, method: str) -> Any:
        """A server-streaming handler written as a coroutine that calls ``context.write`` (health's Watch)."""
        meters = self._meters("server_stream", service, method)

        async def observed(request: Any, context: _Context) -> None:
            meters.started.inc()
            started, raised, cancelled = time.perf_counter(), False, False
            try:
                await _refuse_malformed(request, context)
                await behaviour(request, context)
            except (asyncio.CancelledError, GeneratorExit):
                raised = cancelled = True  # the client cancelled the call, or its connection went away
                raise
            except BaseException:
                raised = True
                raise
            finally:
                self._finish(meters, service, method, started, request, context, raised, cancelled)

        return observed

    def _meters(self, kind: str, service: str, method: str) -> _MethodMeters:
        """One method's metric children, looked up once (``labels()`` takes a lock and hashes on every call)."""
        metrics = self.metrics
        return _MethodMeters(
            started=metrics.started.labels(kind, service, method, "grpc"),
            seconds=metrics.handling_seconds.labels(kind, service, method, "grpc"),
            sent=metrics.msg_sent.labels(kind, service, method, "grpc"),
            handled={
                code: metrics.handled.labels(kind, service, method, code.name, "grpc") for code in grpc.StatusCode
            },
        )

    def _finish(
        self,
        meters: _MethodMeters,
        service: str,
        method: str,
        started: float,
        request: Any,
        context: _Context,
        raised: bool,
        cancelled: bool = False,
    ) -> None:
        elapsed = time.perf_counter() - started
        code = context.code()
        if not isinstance(code, grpc.StatusCode):
            # No status set: a call the client cancelled (or that ended with its connection) is CANCELLED; any
            # other exception that was not an abort becomes UNKNOWN on the wire; otherwise OK.
            if cancelled or (raised and context.cancelled()):
                code = grpc.StatusCode.CANCELLED
            else:
                code = grpc.StatusCode.UNKNOWN if raised else grpc.StatusCode.OK
        code_name = code.name
        meters.handled[code].inc()
        meters.seconds.observe(elapsed)
        if service == HEALTH_SERVICE and code_name == "OK":
            return  # probes every few seconds per pod would drown the log
        seat = CALLER_SEAT.get()
        self.log.info(
            "rpc",
            method=f"{service}/{method}",
            protocol="grpc",
            code=code_name,
            latency_ms=round(elapsed * 1000, 3),
            seat=seat,
            **request_fields(request),
        )
