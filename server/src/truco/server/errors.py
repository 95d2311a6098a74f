"""Service errors and their gRPC form: a status code plus a google.rpc.Status carrying an ErrorInfo.

Every error a client can cause has a stable machine ``reason`` (the engine's reason codes for moves, and the
service's own below); its message never names a card the caller does not hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from truco.engine import InvalidCommand, RuleViolation

from .codec import DecodeError
from .store.base import GameNotFound, SeatUnavailable, StoreUnavailable

DOMAIN = "truco.v1"


@dataclass(eq=False)
class ServiceError(Exception):
    """A failure to report to the client as ``code`` with a machine ``reason``."""

    code: grpc.StatusCode
    reason: str
    message: str
    metadata: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.code.name} {self.reason}: {self.message}"

    def to_status(self) -> grpc.Status:
        info = error_details_pb2.ErrorInfo(reason=self.reason, domain=DOMAIN, metadata=self.metadata)
        detail = any_pb2.Any()
        detail.Pack(info)
        status = status_pb2.Status(code=self.code.value[0], message=self.message, details=[detail])
        return rpc_status.to_status(status)


def invalid(reason: str, message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.INVALID_ARGUMENT, reason, message)


def from_exception(error: Exception) -> ServiceError:
    """The service error for a domain exception; :class:`ServiceError` passes through."""
    if isinstance(error, ServiceError):
        return error
    if isinstance(error, RuleViolation):
        return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, error.reason.value, error.message)
    if isinstance(error, InvalidCommand):
        return invalid(error.reason.value, error.message)
    if isinstance(error, DecodeError):
        return invalid("MALFORMED_REQUEST", str(error))
    if isinstance(error, GameNotFound):
        return ServiceError(grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND", "no such game")
    if isinstance(error, SeatUnavailable):
        return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, "SEAT_UNAVAILABLE", str(error) or "seat not open")
    if isinstance(error, StoreUnavailable):
        return ServiceError(grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE", "the event store is unreachable; retry")
    raise error
