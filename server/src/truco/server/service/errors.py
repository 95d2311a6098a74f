"""Service errors, in the terms every door reports them in: a status code, a stable reason, google.rpc details.

Every error a client can cause has a status :class:`Code` (gRPC's codes, which Connect and gRPC-Web share) and a
stable machine ``reason`` (the engine's reason codes for moves, and the service's own
:class:`~truco.server.core.reasons.ServiceReason`); its message never names a card the caller does not hold. This
module is the one place domain failures become service errors; each door maps a :class:`ServiceError` to its own
wire form once (``grpc_door.status_of``, ``web.connect_error``), with the same details (:func:`rich_details`);
a command refused on a PlayGame stream is answered with the same facts as a message (:func:`command_error`).
"""

from __future__ import annotations

import enum
import math
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field

import structlog
from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2

from truco.engine import InvalidCommand, RuleViolation
from truco.server.core.reasons import QuotaExceeded, ServiceFailure, ServiceReason
from truco.server.store.errors import (
    GameNotFound,
    SeatUnavailable,
    ShardUnavailable,
    StoreRejected,
    StoreUnavailable,
)
from truco.wire import DecodeError
from truco.wire.v1 import game_service_pb2

DOMAIN = "truco.v1"
"""The ``google.rpc.ErrorInfo.domain`` of every reason."""


class Code(enum.Enum):
    """A call's status: gRPC's codes, by name and number (Connect names them in lower case)."""

    OK = 0
    CANCELLED = 1
    UNKNOWN = 2
    INVALID_ARGUMENT = 3
    DEADLINE_EXCEEDED = 4
    NOT_FOUND = 5
    ALREADY_EXISTS = 6
    PERMISSION_DENIED = 7
    RESOURCE_EXHAUSTED = 8
    FAILED_PRECONDITION = 9
    ABORTED = 10
    OUT_OF_RANGE = 11
    UNIMPLEMENTED = 12
    INTERNAL = 13
    UNAVAILABLE = 14
    DATA_LOSS = 15
    UNAUTHENTICATED = 16


CODES: dict[ServiceReason, Code] = {
    ServiceReason.MALFORMED_REQUEST: Code.INVALID_ARGUMENT,
    ServiceReason.INVALID_NAME: Code.INVALID_ARGUMENT,
    ServiceReason.INVALID_BOT_SEAT: Code.INVALID_ARGUMENT,
    ServiceReason.INVALID_BOT_KIND: Code.INVALID_ARGUMENT,
    ServiceReason.INVALID_DEAL: Code.INVALID_ARGUMENT,
    ServiceReason.INVALID_SEAT: Code.INVALID_ARGUMENT,
    ServiceReason.INVALID_VERSION: Code.INVALID_ARGUMENT,
    ServiceReason.INVALID_PAGE_SIZE: Code.INVALID_ARGUMENT,
    ServiceReason.INVALID_PAGE_TOKEN: Code.INVALID_ARGUMENT,
    ServiceReason.INVALID_HAND: Code.INVALID_ARGUMENT,
    ServiceReason.INVALID_CLOCK: Code.INVALID_ARGUMENT,
    ServiceReason.PLAYER_NAME_TOO_LONG: Code.INVALID_ARGUMENT,
    ServiceReason.TOKEN_MISSING: Code.UNAUTHENTICATED,
    ServiceReason.TOKEN_MALFORMED: Code.UNAUTHENTICATED,
    ServiceReason.TOKEN_NOT_FOR_GAME: Code.PERMISSION_DENIED,
    ServiceReason.GAME_NOT_FOUND: Code.NOT_FOUND,
    ServiceReason.SEAT_UNAVAILABLE: Code.FAILED_PRECONDITION,
    ServiceReason.FIXED_DEALS_DISABLED: Code.FAILED_PRECONDITION,
    ServiceReason.GAME_NOT_FINISHED: Code.FAILED_PRECONDITION,
    ServiceReason.VERSION_CONFLICT: Code.ABORTED,
    ServiceReason.STORE_UNAVAILABLE: Code.UNAVAILABLE,
    ServiceReason.SERVER_SHUTTING_DOWN: Code.UNAVAILABLE,
    ServiceReason.TOO_MANY_CALLS: Code.RESOURCE_EXHAUSTED,
    ServiceReason.INTERNAL: Code.INTERNAL,
    ServiceReason.NOT_ON_THIS_PORT: Code.UNIMPLEMENTED,
    ServiceReason.SHARD_UNAVAILABLE: Code.UNAVAILABLE,
    ServiceReason.API_KEY_REQUIRED: Code.UNAUTHENTICATED,
    ServiceReason.API_KEY_INVALID: Code.UNAUTHENTICATED,
    ServiceReason.API_KEY_REVOKED: Code.UNAUTHENTICATED,
    ServiceReason.QUOTA_EXCEEDED: Code.RESOURCE_EXHAUSTED,
    ServiceReason.INVALID_REQUEST_ID: Code.INVALID_ARGUMENT,
    ServiceReason.WEAK_REQUEST_ID: Code.INVALID_ARGUMENT,
    ServiceReason.INVALID_PLAYER_NAME: Code.INVALID_ARGUMENT,
    ServiceReason.VALUE_NOT_STORABLE: Code.INVALID_ARGUMENT,
    ServiceReason.JOIN_NOT_REPEATABLE: Code.FAILED_PRECONDITION,
    ServiceReason.REQUEST_ID_REUSED: Code.INVALID_ARGUMENT,
    ServiceReason.NOT_TABLE_HOST: Code.PERMISSION_DENIED,
    ServiceReason.GAME_ALREADY_STARTED: Code.FAILED_PRECONDITION,
    ServiceReason.PLAYER_TOKEN_MISSING: Code.UNAUTHENTICATED,
    ServiceReason.PLAYER_TOKEN_MALFORMED: Code.UNAUTHENTICATED,
    ServiceReason.PLAYER_TOKEN_EXPIRED: Code.UNAUTHENTICATED,
    ServiceReason.PLAYER_TOKEN_NOT_YET_VALID: Code.UNAUTHENTICATED,
    ServiceReason.PLAYER_TOKEN_WRONG_AUDIENCE: Code.UNAUTHENTICATED,
    ServiceReason.PLAYER_TOKEN_UNKNOWN_KEY: Code.UNAUTHENTICATED,
    ServiceReason.PLAYER_TOKEN_KEY_REVOKED: Code.UNAUTHENTICATED,
    ServiceReason.PLAYER_TOKEN_BAD_SIGNATURE: Code.UNAUTHENTICATED,
    ServiceReason.PLAYER_TOKEN_WRONG_APP: Code.PERMISSION_DENIED,
    ServiceReason.PLAYER_TOKEN_TOO_LONG_LIVED: Code.UNAUTHENTICATED,
    ServiceReason.TICKET_ALREADY_OPEN: Code.FAILED_PRECONDITION,
    ServiceReason.TICKET_NOT_FOUND: Code.NOT_FOUND,
    ServiceReason.TICKET_ALREADY_MATCHED: Code.FAILED_PRECONDITION,
    ServiceReason.INVALID_PARTY: Code.INVALID_ARGUMENT,
    ServiceReason.INVALID_MATCH_WAIT: Code.INVALID_ARGUMENT,
    ServiceReason.INVALID_TABLE_SIZE: Code.INVALID_ARGUMENT,
    ServiceReason.PLAYER_NOT_FOUND: Code.NOT_FOUND,
    ServiceReason.TABLE_CREDENTIAL_INVALID: Code.UNAUTHENTICATED,
}
"""The status code of each service reason: the one place the domain's refusals meet the protocols' codes."""


@dataclass(frozen=True, slots=True)
class Quota:
    """A quota a call ran past: when to retry, and whom the quota charges (``key:<id>``, ``peer:<address>``...)."""

    retry_after: float
    subject: str


@dataclass(eq=False)
class ServiceError(Exception):
    """A failure as reported to the client: ``code`` with a machine ``reason`` (a service or engine reason)."""

    code: Code
    reason: str
    message: str
    metadata: dict[str, str] = field(default_factory=dict)
    quota: Quota | None = None
    """For QUOTA_EXCEEDED: reported as a google.rpc.RetryInfo and a google.rpc.QuotaFailure too."""

    @classmethod
    def of(cls, reason: ServiceReason, message: str, metadata: Mapping[str, str] | None = None) -> ServiceError:
        """The error for a service reason, with the status code that reason is reported as."""
        return cls(CODES[reason], reason.value, message, dict(metadata or {}))

    def __str__(self) -> str:
        return f"{self.code.name} {self.reason}: {self.message}"


def from_exception(error: Exception) -> ServiceError:
    """The service error for a domain exception; :class:`ServiceError` passes through, anything else is
    re-raised (a bug, not a refusal)."""
    if isinstance(error, ServiceError):
        return error
    if isinstance(error, QuotaExceeded):
        quota = Quota(error.retry_after, error.subject)
        return ServiceError(CODES[error.reason], error.reason.value, error.message, dict(error.metadata), quota)
    if isinstance(error, ServiceFailure):
        return ServiceError.of(error.reason, error.message, error.metadata)
    if isinstance(error, RuleViolation):
        return ServiceError(Code.FAILED_PRECONDITION, error.reason.value, error.message)
    if isinstance(error, InvalidCommand):
        return ServiceError(Code.INVALID_ARGUMENT, error.reason.value, error.message)
    if isinstance(error, GameNotFound):
        return ServiceError.of(ServiceReason.GAME_NOT_FOUND, "no such game")
    if isinstance(error, SeatUnavailable):
        return ServiceError.of(ServiceReason.SEAT_UNAVAILABLE, str(error) or "seat not open")
    if isinstance(error, StoreRejected):  # permanent: retrying the same call cannot help, so never UNAVAILABLE
        return ServiceError.of(
            ServiceReason.VALUE_NOT_STORABLE, "a value of the request cannot be stored (too long or a NUL byte)"
        )
    if isinstance(error, ShardUnavailable):
        return ServiceError.of(
            ServiceReason.SHARD_UNAVAILABLE,
            "the shard holding this game is unreachable; other games answer; retry",
            {"shard": error.shard},
        )
    if isinstance(error, StoreUnavailable):
        return ServiceError.of(ServiceReason.STORE_UNAVAILABLE, "the event store is unreachable; retry")
    if isinstance(error, DecodeError):
        return ServiceError.of(ServiceReason.MALFORMED_REQUEST, str(error))
    raise error


def rich_details(error: ServiceError) -> list[any_pb2.Any]:
    """The error's ``google.rpc`` details, packed, as both doors send them: an ``ErrorInfo`` (domain
    :data:`DOMAIN`, the reason, its metadata), and past a quota a ``RetryInfo`` (when to retry) and a
    ``QuotaFailure`` (which quota, whom it charges)."""
    details: list[Message] = [error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN, metadata=error.metadata)]
    if error.quota is not None:
        delay = _retry_delay(error.quota)
        violation = error_details_pb2.QuotaFailure.Violation(subject=error.quota.subject, description=error.message)
        quota = error_details_pb2.QuotaFailure(violations=[violation])
        details += [error_details_pb2.RetryInfo(retry_delay=delay), quota]
    packed = []
    for message in details:
        detail = any_pb2.Any()
        detail.Pack(message)
        packed.append(detail)
    return packed


def command_error(error: ServiceError) -> game_service_pb2.CommandError:
    """A refused command as a PlayGame stream reports it: the code, reason, message and metadata its unary
    call's status would carry, and past a quota when to send it again."""
    out = game_service_pb2.CommandError(
        code=error.code.value, reason=error.reason, message=error.message, metadata=error.metadata
    )
    if error.quota is not None:
        out.retry_delay.CopyFrom(_retry_delay(error.quota))
    return out


def _retry_delay(quota: Quota) -> duration_pb2.Duration:
    """When a call (or a command) a quota refused may be sent again, as the RetryInfo and CommandError say it."""
    whole = math.floor(quota.retry_after)
    return duration_pb2.Duration(seconds=whole, nanos=int((quota.retry_after - whole) * 1e9))


def error_for(error: Exception) -> ServiceError:
    """What a failure is reported as. A domain error says what the client got wrong; anything else is a bug of
    ours: logged with its traceback and answered INTERNAL, without internal details."""
    try:
        return from_exception(error)
    except Exception:
        # The traceback as text: a JSON log line would otherwise carry only "exc_info": true.
        structlog.get_logger("truco.server").error(
            "unexpected error", error=repr(error), traceback="".join(traceback.format_exception(error))
        )
        return ServiceError.of(ServiceReason.INTERNAL, "internal error; it has been logged")


__all__ = [
    "CODES",
    "DOMAIN",
    "Code",
    "Quota",
    "ServiceError",
    "command_error",
    "error_for",
    "from_exception",
    "rich_details",
]
