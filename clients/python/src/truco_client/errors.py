"""Typed errors of the Truco service, parsed from the google.rpc.Status the server sends.

Every failed call raises a :class:`TrucoError` subclass chosen by the gRPC status code; ``reason`` is the
stable machine code of the status' ``ErrorInfo`` (``NOT_YOUR_TURN``, ``CARD_NOT_IN_HAND``,
``VERSION_CONFLICT``...), empty when the server sent none (a transport failure, say).

A refused move, as :func:`error_from_status` reads the status the server sends (``from_rpc_error`` does
this for every failed call)::

    >>> from google.protobuf import any_pb2
    >>> detail = any_pb2.Any()
    >>> _ = detail.Pack(error_details_pb2.ErrorInfo(reason="CARD_NOT_IN_HAND", domain=DOMAIN))
    >>> status = status_pb2.Status(code=9, message="you do not hold that card", details=[detail])
    >>> error = error_from_status(grpc.StatusCode.FAILED_PRECONDITION, status.message, status)
    >>> isinstance(error, IllegalMove), error.reason
    (True, 'CARD_NOT_IN_HAND')

so a caller writes ``except IllegalMove as error: ... error.reason``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, cast

import grpc
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

DOMAIN: Final = "truco.v1"
"""The ErrorInfo domain of the service's errors."""

STATUS_DETAILS_KEY: Final = "grpc-status-details-bin"


class TrucoError(Exception):
    """A call the server (or the transport) refused.

    :ivar code: the gRPC status code.
    :ivar reason: the ErrorInfo reason, a stable machine code (``""`` when the server sent no ErrorInfo).
    :ivar message: the human-readable status message.
    :ivar metadata: the ErrorInfo metadata (extra facts such as the current version), possibly empty.
    :ivar domain: the ErrorInfo domain, ``truco.v1`` for the service's own errors.
    :ivar retry_delay: seconds to wait before sending the call again, from the status' google.rpc.RetryInfo
        (a quota refusal carries one); None without one.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: Mapping[str, str] | None = None,
        *,
        domain: str = DOMAIN,
        retry_delay: float | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata: dict[str, str] = dict(metadata or {})
        self.domain = domain
        self.retry_delay = retry_delay

    def __str__(self) -> str:
        reason = f" {self.reason}" if self.reason else ""
        return f"{self.code.name}{reason}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code.name}, {self.reason!r}, {self.message!r}, {self.metadata!r})"


class InvalidArgument(TrucoError):
    """INVALID_ARGUMENT: a malformed request (a card that does not exist, an unset command...)."""


class IllegalMove(TrucoError):
    """FAILED_PRECONDITION: a well-formed command the rules do not allow now (NOT_YOUR_TURN...)."""


class VersionConflict(TrucoError):
    """ABORTED: the game moved past ``expected_version``; nothing changed. Read the view again and retry."""


class NotFound(TrucoError):
    """NOT_FOUND: no such game (GAME_NOT_FOUND)."""


class Unauthenticated(TrucoError):
    """UNAUTHENTICATED: the call needs a seat token (TOKEN_MISSING) or the token is unknown."""


class PermissionDenied(TrucoError):
    """PERMISSION_DENIED: the token does not allow this (another game's token, say)."""


class ResourceExhausted(TrucoError):
    """RESOURCE_EXHAUSTED: a quota was used up (reason QUOTA_EXCEEDED; ``metadata["quota"]`` names it and
    ``retry_delay`` says when to send the call again). The client waits and retries by itself first."""


class Unavailable(TrucoError):
    """UNAVAILABLE: the server could not be reached (after the client's retries)."""


class DeadlineExceeded(TrucoError):
    """DEADLINE_EXCEEDED: no answer within the call's timeout (after the client's retries, for idempotent calls)."""


ERROR_CLASSES: Final[dict[grpc.StatusCode, type[TrucoError]]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.FAILED_PRECONDITION: IllegalMove,
    grpc.StatusCode.ABORTED: VersionConflict,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhausted,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceeded,
}
"""The subclass raised for each status code; other codes raise :class:`TrucoError` itself."""

_CODES_BY_NUMBER: Final = {code.value[0]: code for code in grpc.StatusCode}


def error_from_status(
    code: grpc.StatusCode, message: str, status: status_pb2.Status | None = None
) -> TrucoError:
    """The typed error for ``code`` with the reason and metadata of the first ``truco.v1`` ErrorInfo in ``status``.

    An ErrorInfo of another domain is used when there is no ``truco.v1`` one.
    """
    info = _error_info(status.details) if status is not None else None
    delay = _retry_delay(status.details) if status is not None else None
    cls = ERROR_CLASSES.get(code, TrucoError)
    if info is None:
        return cls(code, "", message, domain="", retry_delay=delay)
    return cls(code, info.reason, message, dict(info.metadata), domain=info.domain, retry_delay=delay)


RETRIED_CODES: Final = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED}
)
"""The codes errors.proto's retry policy sends a call again for, the same request with the same request id, with
backoff and jitter (CANCELLED only when the caller did not cancel the call: grpc.aio raises
``asyncio.CancelledError`` for those, never a status)."""


def is_retried(error: TrucoError) -> bool:
    """Whether errors.proto's retry policy sends the failed call again: one of :data:`RETRIED_CODES`, or INTERNAL
    or UNKNOWN carrying no ErrorInfo of domain ``truco.v1`` (a proxy's HTTP/2 stream reset, as nginx sends when
    the replica behind it dies: not the service's answer). RESOURCE_EXHAUSTED is sent again after its RetryInfo
    delay instead (``max_quota_wait``)."""
    if error.code in RETRIED_CODES:
        return True
    return error.code in {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN} and error.domain != DOMAIN


def from_rpc_error(error: grpc.RpcError) -> TrucoError:
    """The typed error of a failed call: a ``grpc.aio.AioRpcError`` or a sync ``grpc.RpcError`` that is a Call.

    The rich status comes from the ``grpc-status-details-bin`` trailer, read with grpcio-status'
    ``rpc_status.from_call``: an ``AioRpcError`` offers the same synchronous ``code()``, ``details()`` and
    ``trailing_metadata()`` as a sync call, so the sync helper works for both (``rpc_status.aio.from_call``
    is for a live ``grpc.aio.Call``, whose methods are coroutines). A status whose code or message does not
    match the call's is still read, for its ErrorInfo.
    """
    # Typed as a Call: what a failed call raises is that call (sync) or an AioRpcError with the same methods.
    call = cast(grpc.Call, error)
    code: grpc.StatusCode = call.code()
    message: str = call.details() or ""
    try:
        status = rpc_status.from_call(call)
    except ValueError:
        status = _status_from_trailers(call.trailing_metadata())
    except Exception:  # a trailer that is not a Status: keep the code and message
        status = None
    return error_from_status(code, message, status)


def status_code(number: int) -> grpc.StatusCode:
    """The ``grpc.StatusCode`` of a google.rpc.Code number (``10`` -> ``ABORTED``); UNKNOWN for others."""
    return _CODES_BY_NUMBER.get(number, grpc.StatusCode.UNKNOWN)


def _status_from_trailers(trailers: Iterable[tuple[str, str | bytes]] | None) -> status_pb2.Status | None:
    for key, value in trailers or ():
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            try:
                return status_pb2.Status.FromString(value)
            except Exception:
                return None
    return None


def _retry_delay(details: Iterable[Any]) -> float | None:
    for detail in details:
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
            return float(retry.retry_delay.seconds + retry.retry_delay.nanos / 1e9)
    return None


def _error_info(details: Iterable[Any]) -> error_details_pb2.ErrorInfo | None:
    found: error_details_pb2.ErrorInfo | None = None
    for detail in details:
        if not detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            continue
        info = error_details_pb2.ErrorInfo()
        detail.Unpack(info)
        if info.domain == DOMAIN:
            return info
        found = found or info
    return found
