"""The PostgreSQL event store: one database shared by every replica of the server. Its operations are
:class:`~.core.SQLStore`'s; this module says only how they reach the database, and how appends are heard.

Calls borrow connections from a :class:`psycopg_pool.AsyncConnectionPool`; every write is one transaction,
committed (so durable) before the call returns. Two appends at the same expected seq both try to insert the
same (game_id, seq) key: the unique index lets exactly one commit and the other becomes a
:class:`VersionConflict`. Appends ``NOTIFY`` a channel with ``game_id:last_seq`` inside their transaction, so
the message leaves only if the events were committed; each store object keeps one ``LISTEN`` connection and
wakes its own waiters, whichever replica appended.

The schema is created and migrated at open, under an advisory lock so that replicas starting together apply
each migration once. A database that is down at open is not an error: the server can start first and report
itself not serving (``ping`` raises :class:`StoreUnavailable`) until the database answers; the schema is then
made before the first call.
"""

from __future__ import annotations

import asyncio
import contextlib
import select
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, ClassVar, TypeVar

import psycopg
from psycopg import AsyncConnection
from psycopg import sql as pgsql
from psycopg_pool import AsyncConnectionPool

from . import sql
from .bus import NatsBus
from .core import Kind, Row, SQLStore, Work
from .errors import StoreRejected, StoreUnavailable, VersionConflict
from .records import Append, AppendResult, now_us

T = TypeVar("T")
Conn = AsyncConnection[Any]

CHANNEL = "truco_events"
#: Key of the advisory lock that serializes migrations ("truco" in ASCII).
MIGRATION_LOCK_KEY = 0x747275636F
TIMEOUT_S = 5.0
#: A health check should answer fast; a pool busy for this long is as good as down.
PING_TIMEOUT_S = 2.0
LISTEN_RETRY_MAX_S = 5.0
READ_ATTEMPTS = 3
"""Tries of a read that failed on a connection the server had just ended (the next is lent at once)."""

MIGRATIONS = sql.migrations(sql.POSTGRES)
"""The schema migrations (store/sql.py), in PostgreSQL."""
_OUTAGES = (psycopg.OperationalError, psycopg.InterfaceError)


class PostgresStore(SQLStore):
    """An :class:`~truco.server.store.EventStore` in a PostgreSQL database. Build it with :meth:`open`."""

    S: ClassVar[sql.Statements] = sql.statements(sql.POSTGRES)
    PS: ClassVar[sql.PlayerStatements] = sql.player_statements(sql.POSTGRES)
    migrations: ClassVar[tuple[str, ...]] = MIGRATIONS
    duplicate: ClassVar[tuple[type[Exception], ...]] = (psycopg.errors.UniqueViolation,)
    recheck_seconds = 5.0
    """Another replica's append is heard by notification; if the listening connection dies without an error (a
    silent network fault), a waiter still sees the append within this (within this and ``TRUST_SECONDS`` when it
    went to sleep without a look, on the notifications' word: ``wait_for_change``'s ``vouched``)."""

    def __init__(
        self,
        url: str,
        pool: AsyncConnectionPool[Conn],
        channel: str,
        timeout: float,
        bus: NatsBus | None = None,
        owns: Callable[[str], bool] | None = None,
    ) -> None:
        super().__init__()
        self._url = url
        self._pool = pool
        # With a bus, moves are heard there: no NOTIFY (nor LISTEN) at all.
        self._channel: str | None = None if bus is not None else channel
        self._timeout = timeout
        self._bus = bus
        self._owns = owns
        if bus is not None:
            bus.listen(self)
        self._migrated = False
        self._migrate_lock = asyncio.Lock()
        self._listener: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()
        self._epoch = 0
        self._closed = False

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        max_connections: int = 10,
        timeout: float = TIMEOUT_S,
        channel: str = CHANNEL,
        bus: NatsBus | None = None,
        owns: Callable[[str], bool] | None = None,
    ) -> PostgresStore:
        """A store on the database at ``url``, its schema made or migrated if the database answers now.

        ``timeout`` bounds the wait for a connection; ``channel`` names the NOTIFY channel (one per database).
        With a ``bus`` appends are announced there instead of by NOTIFY, and waits hear their game's bucket;
        ``owns`` says which games' announcements are this store's (one shard's, of several on the bus).
        """
        check = _ConnectionCheck()
        pool: AsyncConnectionPool[Conn] = AsyncConnectionPool(
            url,
            min_size=1,
            max_size=max_connections,
            open=False,
            timeout=timeout,
            # Autocommit: a transaction is opened only by conn.transaction(), never left idle by a plain read.
            kwargs={"autocommit": True},
            # A connection broken while idle (database restarted) is replaced instead of failing the next call.
            check=check,
            name="truco-store",
        )
        check.pool = pool
        await pool.open(wait=False)
        store = cls(url, pool, channel, timeout, bus, owns)
        with contextlib.suppress(StoreUnavailable):
            await store._ensure_schema()
        return store

    async def ping(self) -> None:
        await self._ensure_schema()
        try:
            async with self._pool.connection(timeout=min(self._timeout, PING_TIMEOUT_S)) as conn:
                await conn.execute("SELECT 1")
        except _OUTAGES as exc:
            raise StoreUnavailable(f"PostgreSQL is unreachable: {exc}") from exc

    async def close(self) -> None:
        self._closed = True
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
            self._listener = None
        await self._pool.close()

    # How the operations run: on a pooled connection.

    async def _run(self, work: Work[T], kind: Kind = "read") -> T:
        return await self._on_pool(lambda conn: work(_Pooled(conn)), kind)

    async def _on_pool(self, work: Callable[[Conn], Awaitable[T]], kind: Kind) -> T:
        """Run ``work`` on a pooled connection, in one transaction if it is several statements (the pool's
        connections autocommit); outages become :class:`StoreUnavailable`."""
        await self._ensure_schema()
        for attempt in range(READ_ATTEMPTS):
            lent: Conn | None = None
            try:
                async with self._pool.connection() as conn:
                    lent = conn
                    async with conn.transaction() if kind == "transaction" else contextlib.nullcontext():
                        return await work(conn)
            except (psycopg.errors.ProgramLimitExceeded, psycopg.DataError) as exc:
                # A value too big for an index, a NUL byte in text: the same call fails the same way every time.
                raise StoreRejected(f"PostgreSQL cannot hold a value: {exc}") from exc
            except _OUTAGES as exc:
                # The server may end a connection just after the pool's check found it quiet (a restart, a
                # terminated backend): a read is tried once more, on another. A write is not: whether it
                # committed is unknown, and the caller's retry with its request id is the safe one.
                if kind == "read" and attempt + 1 < READ_ATTEMPTS and lent is not None and lent.closed:
                    continue
                raise StoreUnavailable(f"PostgreSQL is unreachable: {exc}") from exc
        raise AssertionError("unreachable")

    async def _ensure_schema(self) -> None:
        if self._closed:
            raise StoreUnavailable("the PostgreSQL store is closed")
        if self._migrated:
            return
        async with self._migrate_lock:
            if self._migrated:
                return
            try:
                # A connection of its own, not the pool's: with the database down it fails at once, where the
                # pool would wait its whole timeout.
                async with await self._connect() as conn, conn.transaction():
                    # Held until the transaction ends: a second replica waits here, then finds them applied.
                    await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_KEY,))
                    await self._migrate(_Pooled(conn))
            except _OUTAGES as exc:
                raise StoreUnavailable(f"PostgreSQL is unreachable: {exc}") from exc
            self._migrated = True

    async def _connect(self) -> Conn:
        return await AsyncConnection.connect(self._url, autocommit=True, connect_timeout=max(1, round(self._timeout)))

    # Appends: one statement, and its own notification.

    async def _commit(self, append: Append) -> AppendResult:
        with self._signals.appending(append.game_id):
            result = await self._on_pool(lambda conn: self._append(conn, append), "write")
        # Our own listener will hear the NOTIFY too; firing now saves local waiters that round trip.
        self._signals.fire(append.game_id, result.last_seq)
        if self._bus is not None:
            await self._bus.publish(append.game_id, result.last_seq)
        return result

    async def _append(self, conn: Conn, append: Append) -> AppendResult:
        """One statement (``sql.POSTGRES_APPEND``). A request id already recorded can only have moved the seq
        too, and ``append`` answers it from what was recorded."""
        try:
            values = sql.postgres_append_values(append, now_us(), self._channel)
            row = await (await conn.execute(sql.POSTGRES_APPEND, values)).fetchone()
        except psycopg.errors.UniqueViolation as exc:
            raise VersionConflict(append.conflict()) from exc
        if row is None or int(row[0]) != 1:
            await self._last_seq(_Pooled(conn), append.game_id)  # GameNotFound for an unknown game
            raise VersionConflict(append.conflict())
        return AppendResult(append.last_seq, append.response)

    # Waking waiters on other replicas' appends.

    def hearing_epoch(self) -> int | None:
        if self._bus is not None:
            # A replica hears only the buckets it waits on: silence about another game vouches for nothing.
            return None
        if self._listening.is_set():
            return self._epoch
        if not self._closed:  # readers ask first: start listening now, and trust nothing until LISTEN is in place
            self._start_listening()
        return None

    def _start_listening(self) -> None:
        if self._listener is None or self._listener.done():
            self._listener = asyncio.create_task(self._listen(), name="truco-postgres-listener")

    @contextlib.asynccontextmanager
    async def _hearing(self, game_id: str) -> AsyncIterator[None]:
        if self._bus is None:
            async with super()._hearing(game_id):
                yield
            return
        if self._closed:
            raise StoreUnavailable("the PostgreSQL store is closed")
        async with self._bus.interest(game_id):
            yield

    # The bus's listener (.bus.BusListener).

    def owns(self, game_id: str) -> bool:
        return self._owns is None or self._owns(game_id)

    def heard(self, game_id: str, last_seq: int) -> None:
        self._signals.notified(game_id, last_seq)

    def wake_all(self) -> None:
        self._signals.fire_all()

    async def _prepare_wait(self) -> None:
        if self._closed:
            raise StoreUnavailable("the PostgreSQL store is closed")
        self._start_listening()
        try:
            async with asyncio.timeout(self._timeout):
                await self._listening.wait()
        except TimeoutError as exc:
            raise StoreUnavailable("PostgreSQL is unreachable: cannot LISTEN for appends") from exc

    async def _listen(self) -> None:
        """Keep one connection listening on the channel, reconnecting with backoff when it is lost."""
        delay = 0.1
        channel = self._channel or CHANNEL
        while True:
            try:
                async with await self._connect() as conn:
                    await conn.execute(pgsql.SQL("LISTEN {}").format(pgsql.Identifier(channel)))
                    # A new epoch: what was checked before this LISTEN may have missed notifications since.
                    self._epoch += 1
                    self._listening.set()
                    # Notifications sent while we were not listening are lost: every waiter looks again.
                    self._signals.fire_all()
                    delay = 0.1
                    async for notify in conn.notifies():
                        self._on_notify(notify.payload)
            except _OUTAGES:
                pass
            finally:
                self._listening.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, LISTEN_RETRY_MAX_S)

    def _on_notify(self, payload: str) -> None:
        game_id, _, seq = payload.rpartition(":")
        try:
            last_seq = int(seq)
        except ValueError:
            return
        self._signals.notified(game_id, last_seq)


class _Pooled:
    """A pooled connection as a :class:`~.core.Connection`."""

    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    async def rows(self, query: str, parameters: Sequence[object] = ()) -> list[Row]:
        return await (await self._conn.execute(query, parameters)).fetchall()

    async def run(self, query: str, parameters: Sequence[object] = ()) -> int:
        return (await self._conn.execute(query, parameters)).rowcount

    async def run_many(self, query: str, parameters: Sequence[Sequence[object]]) -> None:
        async with self._conn.cursor() as cur:
            await cur.executemany(query, parameters)


class _ConnectionCheck:
    """The pool's check of a connection before lending it: a round trip only when the server may have ended it.

    An idle connection has nothing to read; data or end-of-file waiting on it means the server spoke first (a
    restart or a terminated backend says so before closing). A round trip for every call would double what an
    append costs (it is one statement), for the rare connection this poll finds.
    """

    def __init__(self) -> None:
        self.pool: AsyncConnectionPool[Conn] | None = None

    async def __call__(self, conn: Conn) -> None:
        if _quiet(conn):
            return
        try:
            await AsyncConnectionPool.check_connection(conn)
        except Exception:
            # One connection the server ended means those idle beside it likely ended too (a restart, a cut):
            # check them all now, rather than one failed checkout after another, between which the pool waits
            # 1, 2, 4 s.
            if self.pool is not None:
                await self.pool.check()
            raise


def _quiet(conn: Conn) -> bool:
    try:
        poller = select.poll()  # not select.select: it refuses descriptors past 1023, which a busy server has
        poller.register(conn.fileno(), select.POLLIN)
        return not poller.poll(0)
    except (OSError, ValueError, psycopg.Error):
        return False


__all__ = ["MIGRATIONS", "PostgresStore"]
