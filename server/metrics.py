"""Prometheus metrics with the usual gRPC names, and the interceptor that logs and measures every call.

Logs are structlog JSON lines with the method, game, seat, request id, status code and latency; never a card,
a token or a command's content.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import grpc
import structlog
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

CALLER_SEAT: ContextVar[int | None] = ContextVar("caller_seat", default=None)
"""The authenticated seat of the call being handled, for the log line (set by the servicer)."""

HEALTH_SERVICE = "grpc.health.v1.Health"
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
    store_latency: Histogram
    store_up: Gauge
    watchers: Gauge

    @classmethod
    def create(cls) -> Metrics:
        registry = CollectorRegistry()
        labels = ("grpc_type", "grpc_service", "grpc_method")
        return cls(
            registry=registry,
            started=Counter("grpc_server_started", "RPCs started on the server.", labels, registry=registry),
            handled=Counter(
                "grpc_server_handled",
                "RPCs completed on the server, by code.",
                (*labels, "grpc_code"),
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
            store_latency=Histogram(
                "truco_store_latency_seconds",
                "Event store latency.",
                ("operation",),
                buckets=_LATENCY_BUCKETS,
                registry=registry,
            ),
            store_up=Gauge("truco_store_up", "1 while the event store answers, 0 otherwise.", registry=registry),
            watchers=Gauge("truco_watchers", "Open WatchGame streams.", registry=registry),
        )


def _split(method: str) -> tuple[str, str]:
    service, _, name = method.lstrip("/").partition("/")
    return service, name


def _request_fields(request: Any) -> dict[str, str]:
    """Identifiers worth logging from a request: never cards, tokens or the command itself."""
    fields: dict[str, str] = {}
    for attribute in ("name", "request_id"):
        value = getattr(request, attribute, "")
        if isinstance(value, str) and value:
            fields["game" if attribute == "name" else attribute] = value
    return fields


class ObservabilityInterceptor(grpc.aio.ServerInterceptor):
    """Counts, times and logs every RPC; the status code comes from the context once the handler is done."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self.log = structlog.get_logger("truco.server")

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        service, method = _split(handler_call_details.method)
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._unary(handler.unary_unary, service, method),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._stream(handler.unary_stream, service, method),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler

    def _unary(self, behaviour: Any, service: str, method: str) -> Any:
        async def observed(request: Any, context: grpc.aio.ServicerContext) -> Any:
            started = self._start("unary", service, method)
            try:
                return await behaviour(request, context)
            finally:
                self._finish("unary", service, method, started, request, context)

        return observed

    def _stream(self, behaviour: Any, service: str, method: str) -> Any:
        async def observed(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            started = self._start("server_stream", service, method)
            sent = self.metrics.msg_sent.labels("server_stream", service, method)
            try:
                async for message in behaviour(request, context):
                    sent.inc()
                    yield message
            finally:
                self._finish("server_stream", service, method, started, request, context)

        return observed

    def _start(self, kind: str, service: str, method: str) -> float:
        self.metrics.started.labels(kind, service, method).inc()
        return time.perf_counter()

    def _finish(
        self, kind: str, service: str, method: str, started: float, request: Any, context: grpc.aio.ServicerContext
    ) -> None:
        elapsed = time.perf_counter() - started
        code = context.code()
        code_name = code.name if isinstance(code, grpc.StatusCode) else "OK"
        self.metrics.handled.labels(kind, service, method, code_name).inc()
        self.metrics.handling_seconds.labels(kind, service, method).observe(elapsed)
        if service == HEALTH_SERVICE and code_name == "OK":
            return  # probes every few seconds per pod would drown the log
        seat = CALLER_SEAT.get()
        self.log.info(
            "rpc",
            method=f"{service}/{method}",
            code=code_name,
            latency_ms=round(elapsed * 1000, 3),
            seat=seat,
            **_request_fields(request),
        )
