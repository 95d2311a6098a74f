"""Service errors and their gRPC form: a status code plus a google.rpc.Status carrying an ErrorInfo.

Every error a client can cause has a stable machine ``reason`` (the engine's reason codes for moves, and the
service's own :class:`~truco.server.reasons.ServiceReason`); its message never names a card the caller does
not hold. This module is the one place domain failures become statuses (both the gRPC and the web port).
"""

from __future__ import annotations

import math
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field

import grpc
import structlog
from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from truco.engine import InvalidCommand, RuleViolation

from .codec import DecodeError
from .reasons import QuotaExceeded, ServiceFailure, ServiceReason
from .store.base import GameNotFound, SeatUnavailable, StoreRejected, StoreUnavailable

DOMAIN = "truco.v1"


_CODES: dict[ServiceReason, grpc.StatusCode] = {
    ServiceReason.MALFORMED_REQUEST: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.INVALID_NAME: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.INVALID_BOT_SEAT: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.INVALID_BOT_KIND: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.INVALID_DEAL: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.INVALID_SEAT: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.INVALID_VERSION: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.INVALID_PAGE_SIZE: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.INVALID_PAGE_TOKEN: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.INVALID_HAND: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.INVALID_CLOCK: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.PLAYER_NAME_TOO_LONG: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.TOKEN_MISSING: grpc.StatusCode.UNAUTHENTICATED,
    ServiceReason.TOKEN_MALFORMED: grpc.StatusCode.UNAUTHENTICATED,
    ServiceReason.TOKEN_NOT_FOR_GAME: grpc.StatusCode.PERMISSION_DENIED,
    ServiceReason.GAME_NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    ServiceReason.SEAT_UNAVAILABLE: grpc.StatusCode.FAILED_PRECONDITION,
    ServiceReason.FIXED_DEALS_DISABLED: grpc.StatusCode.FAILED_PRECONDITION,
    ServiceReason.GAME_NOT_FINISHED: grpc.StatusCode.FAILED_PRECONDITION,
    ServiceReason.VERSION_CONFLICT: grpc.StatusCode.ABORTED,
    ServiceReason.STORE_UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    ServiceReason.SERVER_SHUTTING_DOWN: grpc.StatusCode.UNAVAILABLE,
    ServiceReason.TOO_MANY_CALLS: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ServiceReason.INTERNAL: grpc.StatusCode.INTERNAL,
    ServiceReason.API_KEY_REQUIRED: grpc.StatusCode.UNAUTHENTICATED,
    ServiceReason.API_KEY_INVALID: grpc.StatusCode.UNAUTHENTICATED,
    ServiceReason.API_KEY_REVOKED: grpc.StatusCode.UNAUTHENTICATED,
    ServiceReason.QUOTA_EXCEEDED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ServiceReason.INVALID_REQUEST_ID: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.WEAK_REQUEST_ID: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.INVALID_PLAYER_NAME: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.VALUE_NOT_STORABLE: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.JOIN_NOT_REPEATABLE: grpc.StatusCode.FAILED_PRECONDITION,
}
"""The status code of each service reason: the one place the domain's refusals meet gRPC's codes."""


@dataclass(eq=False)
class ServiceError(Exception):
    """A failure as reported to the client: ``code`` with a machine ``reason`` (a service or engine reason)."""

    code: grpc.StatusCode
    reason: str
    message: str
    metadata: dict[str, str] = field(default_factory=dict)
    details: list[Message] = field(default_factory=list)
    """More google.rpc details after the ErrorInfo (RetryInfo, QuotaFailure)."""

    @classmethod
    def of(
        cls,
        reason: ServiceReason,
        message: str,
        metadata: Mapping[str, str] | None = None,
        details: list[Message] | None = None,
    ) -> ServiceError:
        """The error for a service reason, with the status code that reason is reported as."""
        return cls(_CODES[reason], reason.value, message, dict(metadata or {}), list(details or ()))

    def __str__(self) -> str:
        return f"{self.code.name} {self.reason}: {self.message}"

    def to_status(self) -> grpc.Status:
        info = error_details_pb2.ErrorInfo(reason=self.reason, domain=DOMAIN, metadata=self.metadata)
        packed = []
        for message in (info, *self.details):
            detail = any_pb2.Any()
            detail.Pack(message)
            packed.append(detail)
        status = status_pb2.Status(code=self.code.value[0], message=self.message, details=packed)
        return rpc_status.to_status(status)


def from_exception(error: Exception) -> ServiceError:
    """The service error for a domain exception; :class:`ServiceError` passes through, anything else is
    re-raised (a bug, not a refusal)."""
    if isinstance(error, ServiceError):
        return error
    if isinstance(error, QuotaExceeded):
        # When to retry and which quota, as the standard details clients and proxies know.
        whole = math.floor(error.retry_after)
        retry = error_details_pb2.RetryInfo(
            retry_delay=duration_pb2.Duration(seconds=whole, nanos=int((error.retry_after - whole) * 1e9))
        )
        violation = error_details_pb2.QuotaFailure.Violation(subject=error.subject, description=error.message)
        quota = error_details_pb2.QuotaFailure(violations=[violation])
        return ServiceError.of(error.reason, error.message, error.metadata, [retry, quota])
    if isinstance(error, ServiceFailure):
        return ServiceError.of(error.reason, error.message, error.metadata)
    if isinstance(error, RuleViolation):
        return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, error.reason.value, error.message)
    if isinstance(error, InvalidCommand):
        return ServiceError(grpc.StatusCode.INVALID_ARGUMENT, error.reason.value, error.message)
    if isinstance(error, DecodeError):
        return ServiceError.of(ServiceReason.MALFORMED_REQUEST, str(error))
    if isinstance(error, GameNotFound):
        return ServiceError.of(ServiceReason.GAME_NOT_FOUND, "no such game")
    if isinstance(error, SeatUnavailable):
        return ServiceError.of(ServiceReason.SEAT_UNAVAILABLE, str(error) or "seat not open")
    if isinstance(error, StoreRejected):  # permanent: retrying the same call cannot help, so never UNAVAILABLE
        return ServiceError.of(
            ServiceReason.VALUE_NOT_STORABLE, "a value of the request cannot be stored (too long or a NUL byte)"
        )
    if isinstance(error, StoreUnavailable):
        return ServiceError.of(ServiceReason.STORE_UNAVAILABLE, "the event store is unreachable; retry")
    raise error


def status_for(error: Exception) -> grpc.Status:
    """The status a failure is reported as. A domain error says what the client got wrong; anything else is a
    bug of ours: logged with its traceback and answered INTERNAL, without internal details."""
    try:
        return from_exception(error).to_status()
    except Exception:
        # The traceback as text: a JSON log line would otherwise carry only "exc_info": true.
        structlog.get_logger("truco.server").error(
            "unexpected error", error=repr(error), traceback="".join(traceback.format_exception(error))
        )
        return ServiceError.of(ServiceReason.INTERNAL, "internal error; it has been logged").to_status()
