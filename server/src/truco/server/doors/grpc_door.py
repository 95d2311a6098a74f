"""The gRPC port's door: one interceptor that turns gRPC calls into the pipeline's and back.

The game and rules services are not registered with gRPC as servicers: :class:`GrpcDoor` answers their methods
itself, with handlers made from the services' descriptors (:func:`~truco.server.service.pipeline.methods_of`), each
passing the call through :class:`~truco.server.service.pipeline.Pipeline`. Health and reflection, gRPC's own servicers,
are only observed (counted and timed; never admitted, so no caller can starve a probe). A failure's
:class:`~truco.server.service.errors.ServiceError` becomes a status here, once: its code, its message, and a
``google.rpc.Status`` with an ``ErrorInfo`` (and a ``RetryInfo`` and ``QuotaFailure`` past a quota).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import grpc
from google.rpc import status_pb2
from grpc_status import rpc_status

from truco.server.doors.connections import Activity
from truco.server.limits.admission import Allowance
from truco.server.service.errors import Code, ServiceError, rich_details
from truco.server.service.pipeline import Call, Malformed, Metadata, Method, Observer, Pipeline, Reply
from truco.server.service.quota_headers import allowance_headers, failure_headers

_Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"
_Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"


def status_of(error: ServiceError, allowance: Allowance | None = None) -> grpc.Status:
    """The gRPC status of a service error, with its rich details, and in its trailing metadata the quota headers
    (``quota_headers``: the call rate left if the call was admitted, a quota's retry delay)."""
    status = rpc_status.to_status(
        status_pb2.Status(code=error.code.value, message=error.message, details=rich_details(error))
    )
    headers = failure_headers(error, allowance)
    if not headers:
        return status
    return _Status(status.code, status.details, (*status.trailing_metadata, *headers))


@dataclass(frozen=True)
class _Status(grpc.Status):
    """A status with the trailing metadata given (grpc.Status is an interface of three attributes)."""

    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, str | bytes], ...]


async def _headed(messages: AsyncIterator[Any], context: _Context, call: Call) -> AsyncIterator[Any]:
    """A stream's messages, its quota headers sent before the first (the admission has decided by then)."""
    sent = False
    async for message in messages:
        if not sent:
            sent = True
            await _send_headers(context, call)
        yield message


async def _send_headers(context: _Context, call: Call) -> None:
    """A stream's quota headers, as its initial metadata (before its first message)."""
    headers = allowance_headers(call.allowance)
    if headers:
        await context.send_initial_metadata(headers)


def _tolerant(parse: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    """A deserializer that returns :class:`Malformed` instead of raising (gRPC would answer UNKNOWN)."""

    def tolerant(data: bytes) -> Any:
        try:
            return parse(data)
        except Exception as error:
            return Malformed(type(error).__name__)

    return tolerant


def _metadata(context: _Context) -> Metadata:
    return tuple(context.invocation_metadata() or ())


def _serialize(reply: Reply) -> bytes:
    return reply if isinstance(reply, bytes) else reply.SerializeToString()


class GrpcDoor(grpc.aio.ServerInterceptor):
    """Serves ``methods`` through ``pipeline``; observes every other method of the server."""

    def __init__(self, pipeline: Pipeline, methods: Sequence[Method], activity: Activity | None = None) -> None:
        self.pipeline = pipeline
        self.activity = activity or Activity()
        """Told of every call's start and end, by connection: the connection guard's view of who is busy."""
        self.observer: Observer = pipeline.observer
        self._served: dict[str, _Handler] = {method.path: self._handler(method) for method in methods}
        self._observed: dict[str, tuple[_Handler, _Handler]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[_Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> _Handler | None:
        served = self._served.get(handler_call_details.method)
        if served is not None:
            return served
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        # gRPC asks on every call: wrap each native method's handler once.
        wrapped = self._observed.get(handler_call_details.method)
        if wrapped is None or wrapped[0] is not handler:
            wrapped = (handler, self._observe(handler, handler_call_details.method))
            self._observed[handler_call_details.method] = wrapped
        return wrapped[1]

    def _handler(self, method: Method) -> _Handler:
        pipeline, activity = self.pipeline, self.activity
        parse = _tolerant(method.request.FromString)
        if method.bidirectional:

            async def session(requests: AsyncIterator[Any], context: _Context) -> AsyncIterator[Any]:
                call = Call(method, "grpc", _metadata(context), context.peer())
                activity.begin(call.peer)
                try:
                    # aclosing: a cancelled call releases its watch slot now, not when the collector finds it.
                    async with contextlib.aclosing(pipeline.session(call, requests)) as messages:
                        async for message in _headed(messages, context, call):
                            yield message
                except ServiceError as error:
                    await context.abort_with_status(status_of(error, call.allowance))
                finally:
                    activity.end(call.peer)

            return grpc.stream_stream_rpc_method_handler(session, parse, _serialize)
        if method.streaming:

            async def stream(request: Any, context: _Context) -> AsyncIterator[Any]:
                call = Call(method, "grpc", _metadata(context), context.peer())
                activity.begin(call.peer)
                try:
                    async for message in _headed(pipeline.stream(call, request), context, call):
                        yield message
                except ServiceError as error:
                    await context.abort_with_status(status_of(error, call.allowance))
                finally:
                    activity.end(call.peer)

            return grpc.unary_stream_rpc_method_handler(stream, parse, _serialize)

        async def unary(request: Any, context: _Context) -> Reply:
            call = Call(method, "grpc", _metadata(context), context.peer())
            activity.begin(call.peer)
            try:
                reply = await pipeline.unary(call, request)
            except ServiceError as error:
                await context.abort_with_status(status_of(error, call.allowance))
                raise  # abort_with_status always raises
            finally:
                activity.end(call.peer)
            # In the trailing metadata: sent with the reply and the status in one batch (initial metadata set
            # now would cost a batch of its own).
            headers = allowance_headers(call.allowance)
            if headers:
                context.set_trailing_metadata(headers)
            return reply

        return grpc.unary_unary_rpc_method_handler(unary, parse, _serialize)

    def _observe(self, handler: _Handler, full_method: str) -> _Handler:
        """Health's and reflection's handlers, counted and timed (their status comes from their context)."""
        service, _, name = full_method.lstrip("/").partition("/")
        if handler.unary_unary is not None:
            meters = self.observer.meters("unary", service, name, "grpc")
            native: Any = handler.unary_unary

            async def unary(request: Any, context: _Context) -> Any:
                with self._observing(meters, (service, name), request, context):
                    return await native(request, context)

            return grpc.unary_unary_rpc_method_handler(unary, handler.request_deserializer, handler.response_serializer)
        if handler.unary_stream is not None and not inspect.isasyncgenfunction(handler.unary_stream):
            # A stream written as a coroutine that calls ``context.write`` (health's Watch).
            meters = self.observer.meters("server_stream", service, name, "grpc")
            writer: Any = handler.unary_stream

            async def written(request: Any, context: _Context) -> None:
                with self._observing(meters, (service, name), request, context):
                    await writer(request, context)

            return grpc.unary_stream_rpc_method_handler(
                written, handler.request_deserializer, handler.response_serializer
            )
        return handler  # reflection's bidirectional stream: served as it is

    def _observing(self, meters: Any, labels: tuple[str, str], request: Any, context: _Context) -> _Observation:
        return _Observation(self.observer, self.activity, meters, labels, request, context)


class _Observation:
    """Times one native call and counts it with the status its handler set."""

    def __init__(
        self,
        observer: Observer,
        activity: Activity,
        meters: Any,
        labels: tuple[str, str],
        request: Any,
        context: _Context,
    ):
        self.observer, self.meters, self.labels, self.request, self.context = observer, meters, labels, request, context
        self.activity = activity
        self.peer = context.peer()

    def __enter__(self) -> None:
        self.meters.started.inc()
        self.started = time.perf_counter()
        self.activity.begin(self.peer)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, _: object) -> None:
        self.activity.end(self.peer)
        code = self.context.code()
        if isinstance(code, grpc.StatusCode):
            status = Code[code.name]
        elif kind is not None and issubclass(kind, asyncio.CancelledError | GeneratorExit):
            status = Code.CANCELLED  # the client cancelled the call, or its connection went away
        else:
            status = Code.UNKNOWN if kind is not None else Code.OK
        self.observer.finish(self.meters, (*self.labels, "grpc"), self.started, self.request, status)


__all__ = ["GrpcDoor", "status_of"]
