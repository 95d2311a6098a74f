"""Event stores: one interface, one module per backend (SQLite embedded, PostgreSQL scaled out).

Open one with :func:`open_store` and a URL; everything else goes through the :class:`EventStore` protocol.
"""

from .base import (
    ApiKeyNotFound,
    ApiKeyRecord,
    AppendResult,
    EventStore,
    GameNotFound,
    GameRecord,
    NewEvent,
    SeatRecord,
    SeatUnavailable,
    StoredEvent,
    StoreError,
    StoreRejected,
    StoreUnavailable,
    VersionConflict,
    open_store,
)

__all__ = [
    "ApiKeyNotFound",
    "ApiKeyRecord",
    "AppendResult",
    "EventStore",
    "GameNotFound",
    "GameRecord",
    "NewEvent",
    "SeatRecord",
    "SeatUnavailable",
    "StoreError",
    "StoreRejected",
    "StoreUnavailable",
    "StoredEvent",
    "VersionConflict",
    "open_store",
]
