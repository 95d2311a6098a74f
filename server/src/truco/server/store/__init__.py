"""Event stores: the interface (one protocol per concern), every operation written once over a small connection
interface (``core.py``), one module per backend saying only how to reach its database (SQLite embedded,
PostgreSQL scaled out), and their SQL (``sql.py``).

Open one with :func:`open_store` and a URL; everything else goes through the :class:`EventStore` protocol.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from .errors import (
    ApiKeyNotFound,
    GameNotFound,
    SeatUnavailable,
    ShardUnavailable,
    StoreError,
    StoreRejected,
    StoreUnavailable,
    VersionConflict,
)
from .interface import Deadlines, EventStore, GameDirectory, GameLog, KeyRing, SeatBook
from .records import ApiKeyRecord, AppendResult, GameRecord, NewEvent, SeatRecord, StoredEvent
from .shards import is_sharded, parse_shard_map

if TYPE_CHECKING:
    from .bus import NatsBus


async def open_store(url: str, *, bus: NatsBus | None = None) -> EventStore:
    """Open (creating or migrating its schema) the store a URL names.

    ``sqlite:///relative/path.db``, ``sqlite:////absolute/path.db`` (three slashes, then the path, as in
    SQLAlchemy), ``sqlite:///:memory:`` (one store object only), or ``postgresql://...`` / ``postgres://...``;
    games sharded over several PostgreSQL databases: their URLs separated by spaces (shards ``s0``, ``s1``...
    in that order), or ``shards:PATH`` naming a TOML shard map (``store/shards.py``).

    With a ``bus`` (PostgreSQL only), moves are announced and heard on it instead of by LISTEN/NOTIFY.

    :raises ValueError: the URL's scheme is not one of these, or a bad shard map, or a bus for SQLite.
    :raises StoreUnavailable: an SQLite file cannot be opened.
    """
    # Backends are imported here so that neither import costs anything (or fails) for the other's users.
    if is_sharded(url):
        from .postgres import PostgresStore
        from .shards import ShardedStore

        def opener(shard_url: str, owns: Callable[[str], bool]) -> Awaitable[PostgresStore]:
            return PostgresStore.open(shard_url, bus=bus, owns=owns)

        return await ShardedStore.open(parse_shard_map(url), opener)
    scheme, sep, _ = url.partition("://")
    if sep and scheme == "sqlite":
        if bus is not None:
            raise ValueError("a bus carries moves between PostgreSQL replicas: SQLite serves one process")
        from .sqlite import SQLiteStore

        return await SQLiteStore.open(sqlite_path(url))
    if sep and scheme in ("postgresql", "postgres"):
        from .postgres import PostgresStore

        return await PostgresStore.open(url, bus=bus)
    raise ValueError(f"unknown event store URL {url!r}: expected sqlite:///PATH, postgresql://... or postgres://...")


def sqlite_path(url: str) -> str:
    """The file path of a ``sqlite:///PATH`` URL (``:memory:`` for an in-memory database)."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or len(url) == len(prefix):
        raise ValueError(f"bad SQLite URL {url!r}: expected sqlite:///relative/path.db or sqlite:////absolute/path.db")
    return url[len(prefix) :]


__all__ = [
    "ApiKeyNotFound",
    "ApiKeyRecord",
    "AppendResult",
    "Deadlines",
    "EventStore",
    "GameDirectory",
    "GameLog",
    "GameNotFound",
    "GameRecord",
    "KeyRing",
    "NewEvent",
    "SeatBook",
    "SeatRecord",
    "SeatUnavailable",
    "ShardUnavailable",
    "StoreError",
    "StoreRejected",
    "StoreUnavailable",
    "StoredEvent",
    "VersionConflict",
    "is_sharded",
    "open_store",
    "sqlite_path",
]
