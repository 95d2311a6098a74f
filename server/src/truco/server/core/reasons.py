"""The service's own refusals, free of gRPC: a stable machine reason and a message for the client.

The game application (:mod:`truco.server.core.games`) raises :class:`ServiceFailure`; the transports map each
reason to their status code in one place (:mod:`truco.server.service.errors`). Moves refused by the rules carry the
engine's :class:`~truco.engine.Reason` instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum


class ServiceReason(StrEnum):
    """Why the service refused a call (the ``reason`` of the status' ErrorInfo); stable, part of the API."""

    MALFORMED_REQUEST = "MALFORMED_REQUEST"
    INVALID_NAME = "INVALID_NAME"
    INVALID_BOT_SEAT = "INVALID_BOT_SEAT"
    INVALID_BOT_KIND = "INVALID_BOT_KIND"
    INVALID_DEAL = "INVALID_DEAL"
    INVALID_SEAT = "INVALID_SEAT"
    INVALID_VERSION = "INVALID_VERSION"
    INVALID_PAGE_SIZE = "INVALID_PAGE_SIZE"
    INVALID_PAGE_TOKEN = "INVALID_PAGE_TOKEN"
    INVALID_HAND = "INVALID_HAND"
    INVALID_CLOCK = "INVALID_CLOCK"
    PLAYER_NAME_TOO_LONG = "PLAYER_NAME_TOO_LONG"
    TOKEN_MISSING = "TOKEN_MISSING"
    TOKEN_MALFORMED = "TOKEN_MALFORMED"
    TOKEN_NOT_FOR_GAME = "TOKEN_NOT_FOR_GAME"
    GAME_NOT_FOUND = "GAME_NOT_FOUND"
    SEAT_UNAVAILABLE = "SEAT_UNAVAILABLE"
    FIXED_DEALS_DISABLED = "FIXED_DEALS_DISABLED"
    GAME_NOT_FINISHED = "GAME_NOT_FINISHED"
    VERSION_CONFLICT = "VERSION_CONFLICT"
    STORE_UNAVAILABLE = "STORE_UNAVAILABLE"
    SERVER_SHUTTING_DOWN = "SERVER_SHUTTING_DOWN"
    TOO_MANY_CALLS = "TOO_MANY_CALLS"
    INTERNAL = "INTERNAL"
    NOT_ON_THIS_PORT = "NOT_ON_THIS_PORT"
    # One shard of a sharded store down: only its games (issue 37).
    SHARD_UNAVAILABLE = "SHARD_UNAVAILABLE"
    # Client credentials, quotas and bounded input (issue 8).
    API_KEY_REQUIRED = "API_KEY_REQUIRED"
    API_KEY_INVALID = "API_KEY_INVALID"
    API_KEY_REVOKED = "API_KEY_REVOKED"
    QUOTA_EXCEEDED = "QUOTA_EXCEEDED"
    INVALID_REQUEST_ID = "INVALID_REQUEST_ID"
    WEAK_REQUEST_ID = "WEAK_REQUEST_ID"
    INVALID_PLAYER_NAME = "INVALID_PLAYER_NAME"
    VALUE_NOT_STORABLE = "VALUE_NOT_STORABLE"
    JOIN_NOT_REPEATABLE = "JOIN_NOT_REPEATABLE"
    # A request id sent again with another command (issue 35).
    REQUEST_ID_REUSED = "REQUEST_ID_REUSED"
    # Starting a table waiting for friends with bots (issue 34).
    NOT_TABLE_HOST = "NOT_TABLE_HOST"
    GAME_ALREADY_STARTED = "GAME_ALREADY_STARTED"
    # Players an app vouches for, quick match and ratings (issue 36).
    PLAYER_TOKEN_MISSING = "PLAYER_TOKEN_MISSING"
    PLAYER_TOKEN_MALFORMED = "PLAYER_TOKEN_MALFORMED"
    PLAYER_TOKEN_EXPIRED = "PLAYER_TOKEN_EXPIRED"
    PLAYER_TOKEN_NOT_YET_VALID = "PLAYER_TOKEN_NOT_YET_VALID"
    PLAYER_TOKEN_WRONG_AUDIENCE = "PLAYER_TOKEN_WRONG_AUDIENCE"
    PLAYER_TOKEN_UNKNOWN_KEY = "PLAYER_TOKEN_UNKNOWN_KEY"
    PLAYER_TOKEN_KEY_REVOKED = "PLAYER_TOKEN_KEY_REVOKED"
    PLAYER_TOKEN_BAD_SIGNATURE = "PLAYER_TOKEN_BAD_SIGNATURE"
    PLAYER_TOKEN_WRONG_APP = "PLAYER_TOKEN_WRONG_APP"
    PLAYER_TOKEN_TOO_LONG_LIVED = "PLAYER_TOKEN_TOO_LONG_LIVED"
    TICKET_ALREADY_OPEN = "TICKET_ALREADY_OPEN"
    TICKET_NOT_FOUND = "TICKET_NOT_FOUND"
    TICKET_ALREADY_MATCHED = "TICKET_ALREADY_MATCHED"
    INVALID_PARTY = "INVALID_PARTY"
    INVALID_MATCH_WAIT = "INVALID_MATCH_WAIT"
    INVALID_TABLE_SIZE = "INVALID_TABLE_SIZE"
    PLAYER_NOT_FOUND = "PLAYER_NOT_FOUND"
    TABLE_CREDENTIAL_INVALID = "TABLE_CREDENTIAL_INVALID"


class ServiceFailure(Exception):
    """A call the service refuses for ``reason``; ``metadata`` carries extra facts (the current version...)."""

    def __init__(self, reason: ServiceReason, message: str, metadata: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.metadata = dict(metadata or {})

    def __str__(self) -> str:
        return f"{self.reason}: {self.message}"


class QuotaExceeded(ServiceFailure):
    """QUOTA_EXCEEDED: ``quota`` (a name such as ``calls_per_second``) with ``limit`` is used up for ``subject``
    (``key:<id>``, ``peer:<address>`` or ``server``); retrying after ``retry_after`` seconds may succeed."""

    def __init__(self, quota: str, limit: float, subject: str, retry_after: float, what: str) -> None:
        retry_after = max(retry_after, 0.001)
        super().__init__(
            ServiceReason.QUOTA_EXCEEDED,
            f"{what} (quota {quota}: {limit:g}); retry in {retry_after:.3g} s",
            {"quota": quota, "limit": f"{limit:g}", "retry_after_seconds": f"{retry_after:.3f}"},
        )
        self.quota = quota
        self.limit = limit
        self.subject = subject
        self.retry_after = retry_after
