"""One pipeline for every door. A call, whatever protocol brought it (gRPC on the gRPC port; Connect, gRPC-Web or
gRPC on the web port), is

1. observed: counted, timed and logged, labelled with its protocol (:class:`Observer`);
2. refused if its request did not parse (:class:`Malformed`), before anything else sees it;
3. admitted: API key, call rate, bounded input, in-flight and watch slots, per-method quotas
   (:class:`~truco.server.limits.admission.Admission`), what is left of the caller's call rate kept on the
   :class:`Call` for the door to report (``quota_headers``: the same headers on every door);
4. handed to the service's handler, which takes the request and the :class:`Call` and answers a message (or
   its bytes, already serialized) or streams them.

A bidirectional call (:meth:`Pipeline.session`) is admitted as a stream by its first message; each later
message is admitted as a unary call of the caller's would be (key, rate, input, an in-flight slot), and one
refused reaches the handler as a :class:`Refused` for it to answer on the stream, which goes on.

Any failure becomes one :class:`~truco.server.service.errors.ServiceError`, which each door maps to its wire form once.
The doors only translate (``grpc_door``, ``web``); the methods they serve come from the services' descriptors
(:func:`methods_of`), so every RPC of the contract is on every door by construction.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog
from google.protobuf import message_factory
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import Message

from truco.server.core.keys import ANONYMOUS, Caller
from truco.server.core.metrics import Metrics
from truco.server.core.reasons import ServiceReason
from truco.server.limits.admission import Admission, Allowance
from truco.server.service.errors import Code, ServiceError, error_for

HEALTH_SERVICE = "grpc.health.v1.Health"
REFUSALS_LOGGED_PER_SECOND = 10.0
"""Log lines a process writes a second, at most, for calls and commands refused past a quota."""
Metadata = Sequence[tuple[str, str | bytes]]
Reply = Message | bytes
"""What a unary handler answers: the response message, or its bytes when they were serialized already (a move's
reply, stored with the move)."""


@dataclass(frozen=True, eq=False)
class Method:
    """One RPC of a service, with the handler that serves it."""

    service: str
    name: str
    streaming: bool
    request: type[Message]
    response: type[Message]
    handler: Callable[..., Any]
    """``(request, call) -> Awaitable[Reply]``, or ``-> AsyncIterator[Reply]`` for a server stream; for a
    bidirectional one ``(requests, call) -> AsyncIterator[Reply]``, ``requests`` as :meth:`Pipeline.session`
    hands them."""
    bidirectional: bool = False

    @property
    def path(self) -> str:
        return f"/{self.service}/{self.name}"

    @property
    def kind(self) -> str:
        if self.bidirectional:
            return "bidi_stream"
        return "server_stream" if self.streaming else "unary"


def methods_of(service: ServiceDescriptor, servicer: object) -> list[Method]:
    """Every method of ``service``, each served by ``servicer``'s method of the same name.

    :raises TypeError: a method of the contract that ``servicer`` does not serve (no RPC can be forgotten).
    """
    found = []
    for method in service.methods:
        handler = getattr(servicer, method.name, None)
        if handler is None:
            raise TypeError(f"{type(servicer).__name__} does not serve {service.full_name}/{method.name}")
        if method.client_streaming and not method.server_streaming:
            raise TypeError(f"{service.full_name}/{method.name}: client streams are not served")
        found.append(
            Method(
                service.full_name,
                method.name,
                method.server_streaming,
                message_factory.GetMessageClass(method.input_type),
                message_factory.GetMessageClass(method.output_type),
                handler,
                bidirectional=method.client_streaming,
            )
        )
    return found


@dataclass(slots=True)
class Call:
    """A call as the pipeline and the handlers see it, whatever its protocol."""

    method: Method
    protocol: str  #: "grpc", "connect" or "grpc-web"
    metadata: Metadata  #: the request's metadata (the web port's HTTP headers)
    peer: str  #: the client's address and port as gRPC writes a peer ("ipv4:1.2.3.4:5")
    caller: Caller = ANONYMOUS  #: who the admission found is calling
    allowance: Allowance | None = None  #: what is left of the caller's call rate, once admitted (quota_headers)
    seat: int | None = field(default=None)  #: the caller's seat, once its token was read (for the log line)
    lease: _Lease | None = field(default=None)  #: the slot a bidirectional call's latest message holds

    def settle(self) -> None:
        """Give back the in-flight slot the latest message of a bidirectional call holds (none: nothing)."""
        lease, self.lease = self.lease, None
        if lease is not None:
            lease.release()


class _Lease:
    """An in-flight slot entered for one message, released once whoever settles it first."""

    __slots__ = ("_slot",)

    def __init__(self, slot: contextlib.AbstractContextManager[None]) -> None:
        self._slot: contextlib.AbstractContextManager[None] | None = slot

    def release(self) -> None:
        slot, self._slot = self._slot, None
        if slot is not None:
            slot.__exit__(None, None, None)


@dataclass(frozen=True)
class Malformed:
    """Stands for a request whose bytes did not parse, so that the pipeline answers INVALID_ARGUMENT."""

    error: str


@dataclass(frozen=True)
class Refused:
    """A later message of a bidirectional call that the admission refused (past the caller's rate, bad input):
    the handler answers it on the stream, which goes on."""

    request: Any
    error: ServiceError


def request_fields(request: object) -> dict[str, str]:
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
class _Meters:
    started: Any
    seconds: Any
    sent: Any
    handled: dict[Code, Any]


class Sampler:
    """At most ``per_second`` log lines a second (bursts of as many), each telling how many were left out since
    the last: a flood of refused calls is counted in metrics, not written out line by line."""

    def __init__(
        self, per_second: float = REFUSALS_LOGGED_PER_SECOND, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.per_second = per_second
        self._clock = clock
        self._tokens = per_second
        self._updated = clock()
        self.skipped = 0

    def take(self) -> int | None:
        """None: leave this line out; else log it, with the number of lines left out before it."""
        now = self._clock()
        self._tokens = min(self.per_second, self._tokens + (now - self._updated) * self.per_second)
        self._updated = now
        if self._tokens < 1.0:
            self.skipped += 1
            return None
        self._tokens -= 1.0
        skipped, self.skipped = self.skipped, 0
        return skipped


class Observer:
    """Counts, times and logs calls: the metrics of gRPC servers (``grpc_server_*``) labelled with the protocol,
    and one log line per call (none for a health check that succeeded: probes would drown the log)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self.log = structlog.get_logger("truco.server")
        self._meters: dict[tuple[str, str, str, str], _Meters] = {}
        self.refusals = Sampler()
        """Calls refused past a quota are logged at most so often (a flood would otherwise fill the disk)."""

    def meters(self, kind: str, service: str, method: str, protocol: str) -> _Meters:
        """One method's metric children, looked up once (``labels()`` takes a lock and hashes on every call)."""
        key = (kind, service, method, protocol)
        found = self._meters.get(key)
        if found is None:
            metrics = self.metrics
            found = self._meters[key] = _Meters(
                started=metrics.started.labels(*key),
                seconds=metrics.handling_seconds.labels(*key),
                sent=metrics.msg_sent.labels(*key),
                handled={code: metrics.handled.labels(kind, service, method, code.name, protocol) for code in Code},
            )
        return found

    def finish(
        self,
        meters: _Meters,
        call: tuple[str, str, str],
        started: float,
        request: object,
        code: Code,
        seat: int | None = None,
    ) -> None:
        """Count and log a call (``call``: its service, method and protocol) that ended with ``code``."""
        service, method, protocol = call
        elapsed = time.perf_counter() - started
        meters.handled[code].inc()
        meters.seconds.observe(elapsed)
        if service == HEALTH_SERVICE and code is Code.OK:
            return
        extra: dict[str, object] = {}
        if code is Code.RESOURCE_EXHAUSTED:
            skipped = self.refusals.take()
            if skipped is None:
                return
            if skipped:
                extra["refusals_not_logged"] = skipped
        self.log.info(
            "rpc",
            method=f"{service}/{method}",
            protocol=protocol,
            code=code.name,
            latency_ms=round(elapsed * 1000, 3),
            seat=seat,
            **request_fields(request),
            **extra,
        )


class Pipeline:
    """observe → refuse the malformed → admit → handle, for every call of the game and rules services."""

    def __init__(self, observer: Observer, admission: Admission) -> None:
        self.observer = observer
        self.admission = admission

    async def unary(self, call: Call, request: object) -> Reply:
        """The call's answer. :raises ServiceError: for any failure (its code and reason for the door)."""
        with self._observed(call, "unary", request):
            await self._admit(call, request)
            with self.admission.unary_slot(call.caller):
                await self.admission.charge_method(call.method.name, call.caller)
                reply: Reply = await call.method.handler(request, call)
                return reply

    async def stream(self, call: Call, request: object) -> AsyncIterator[Reply]:
        """The call's messages. :raises ServiceError: for any failure (its code and reason for the door)."""
        with self._observed(call, "server_stream", request) as meters:
            await self._admit(call, request)
            with self.admission.watch_slot(call.caller):
                async for message in call.method.handler(request, call):
                    meters.sent.inc()
                    yield message

    async def session(self, call: Call, requests: AsyncIterator[object]) -> AsyncGenerator[Reply]:
        """A bidirectional call's messages. Its first message is admitted as a stream's (identified, charged,
        checked, a watch slot held for the call's life) and handed on; each later one is admitted as a unary
        call of the caller's (an in-flight slot held while the handler deals with it) and handed on, or handed
        on as :class:`Refused`. The handler receives them as ``requests`` and may stop reading at any time.
        :raises ServiceError: for a failure of the call itself (its first message refused, a message that did
        not parse, the handler's own)."""
        first = await anext(aiter(requests), None)
        if first is None:
            first = Malformed("the stream ended before its first message")
        with self._observed(call, "bidi_stream", _loggable(first)) as meters:
            await self._admit(call, first)
            with self.admission.watch_slot(call.caller):
                # Both closed when the call ends, however it ends: the slot a message holds is given back now.
                later = self._later(call, first, requests)
                async with contextlib.aclosing(later), contextlib.aclosing(call.method.handler(later, call)) as out:
                    async for message in out:
                        meters.sent.inc()
                        yield message

    async def refuse(self, call: Call, error: ServiceError) -> None:
        """A call its door cannot carry (a bidirectional one on the web port): observed, then refused.
        :raises ServiceError: ``error``, always."""
        with self._observed(call, call.method.kind, None):
            raise error

    async def _later(self, call: Call, first: object, requests: AsyncIterator[object]) -> AsyncGenerator[object]:
        """The call's messages for its handler: each later one admitted as a unary call would be (its key
        looked up again, so a revoked one stops here; the rate charged; the input checked) and holding an
        in-flight slot of the caller's until the handler settles it (:meth:`Call.settle`, once the message is
        applied) or asks for the next message, whichever comes first. A handler that has to wait for its
        client after applying a message (a client that does not read) settles first: a waiting call holds no
        slot."""
        yield first
        method, admission = call.method, self.admission
        async for request in requests:
            if isinstance(request, Malformed):
                raise ServiceError.of(
                    ServiceReason.MALFORMED_REQUEST, f"a message is not a valid {method.request.DESCRIPTOR.name}"
                )
            try:
                caller, _ = await admission.admit(method.service, method.name, request, call.metadata, call.peer)
                slot = admission.unary_slot(caller)
                slot.__enter__()
            except Exception as failure:
                yield Refused(request, error_for(failure))
                continue
            call.lease = _Lease(slot)
            try:
                yield request
            finally:
                call.settle()

    @contextlib.contextmanager
    def _observed(self, call: Call, kind: str, request: object) -> Iterator[_Meters]:
        """Count and time the call around its handling; any failure leaves as the ServiceError it stands for."""
        method = call.method
        meters = self.observer.meters(kind, method.service, method.name, call.protocol)
        meters.started.inc()
        started, code = time.perf_counter(), Code.OK
        try:
            yield meters
        except (asyncio.CancelledError, GeneratorExit):
            code = Code.CANCELLED  # the client cancelled the call, or its connection went away
            raise
        except Exception as failure:
            error = error_for(failure)
            code = error.code
            raise error from None
        finally:
            labels = (method.service, method.name, call.protocol)
            self.observer.finish(meters, labels, started, request, code, call.seat)

    async def _admit(self, call: Call, request: object) -> None:
        if isinstance(request, Malformed):
            raise ServiceError.of(
                ServiceReason.MALFORMED_REQUEST, f"the request is not a valid message ({request.error})"
            )
        method = call.method
        call.caller, call.allowance = await self.admission.admit(
            method.service, method.name, request, call.metadata, call.peer
        )


def _loggable(request: object) -> object:
    """What a bidirectional call's log line names: the fields of its first message's set part (its game)."""
    if isinstance(request, Message):
        kind = request.DESCRIPTOR.oneofs[0].name if request.DESCRIPTOR.oneofs else None
        which = request.WhichOneof(kind) if kind else None
        if which:
            return getattr(request, which)
    return request


__all__ = [
    "HEALTH_SERVICE",
    "Call",
    "Malformed",
    "Metadata",
    "Method",
    "Observer",
    "Pipeline",
    "Refused",
    "Reply",
    "Sampler",
    "methods_of",
    "request_fields",
]
