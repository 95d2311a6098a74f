"""The typed errors of every event store. Conflicting writes fail on the unique (game id, seq) key and surface as
one error, :class:`VersionConflict`, whatever the backend."""

from __future__ import annotations


class StoreError(Exception):
    """Base of the store's errors."""


class StoreRejected(StoreError):
    """The backend refuses a value for good (too long for an index, a NUL byte in text): retrying cannot help."""


class ApiKeyNotFound(StoreError):
    """No API key has this id."""


class TicketAlreadyOpen(StoreError):
    """The player already has an open ticket (``ticket_id``)."""

    def __init__(self, ticket_id: str) -> None:
        super().__init__(f"the player already has the open ticket {ticket_id!r}")
        self.ticket_id = ticket_id


class GameNotFound(StoreError):
    """No game has this id."""


class VersionConflict(StoreError):
    """Another writer got there first: the expected last seq is stale (or the game id is already used)."""


class SeatUnavailable(StoreError):
    """The seat asked for is not open (taken, a bot, not at this table), or no seat is open at all."""


class StoreUnavailable(StoreError):
    """The backend cannot be reached or cannot write now (connection refused, disk error, store closed)."""


class ShardUnavailable(StoreUnavailable):
    """One shard of a sharded store cannot be reached: the games it holds wait for it, the others answer."""

    def __init__(self, shard: str, message: str) -> None:
        super().__init__(f"shard {shard!r}: {message}")
        self.shard = shard


__all__ = [
    "ApiKeyNotFound",
    "GameNotFound",
    "SeatUnavailable",
    "ShardUnavailable",
    "StoreError",
    "StoreRejected",
    "StoreUnavailable",
    "TicketAlreadyOpen",
    "VersionConflict",
]
