"""The PostgreSQL event store: one database shared by every replica of the server.

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
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import psycopg
from psycopg import AsyncConnection
from psycopg import sql as pgsql
from psycopg_pool import AsyncConnectionPool

from . import sql
from .errors import ApiKeyNotFound, GameNotFound, SeatUnavailable, StoreRejected, StoreUnavailable, VersionConflict
from .records import (
    SEAT_OPEN,
    SEAT_TAKEN,
    ApiKeyRecord,
    Append,
    AppendResult,
    GameRecord,
    NewEvent,
    Sighting,
    StoredEvent,
    check_page_size,
    check_token_hash,
    choose_seat,
    decode_cursor,
    now_us,
    page_of,
)
from .signals import ChangeSignals, wait_until_after

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
S = sql.statements(sql.POSTGRES)

_APPEND = """
WITH moved AS (
    UPDATE games SET last_seq = %(last)s, over = %(over)s, deadline_us = %(deadline)s,
        ended_us = CASE WHEN %(over)s AND ended_us IS NULL THEN %(now)s ELSE ended_us END
    WHERE game_id = %(game)s AND last_seq = %(expected)s
    RETURNING game_id
), stored AS (
    INSERT INTO events (game_id, seq, kind, schema, payload, audience, at_us)
    SELECT moved.game_id, e.seq, e.kind, e.schema, e.payload, e.audience, e.at_us
    FROM moved, unnest(
        %(seqs)s::bigint[], %(kinds)s::text[], %(schemas)s::integer[], %(payloads)s::bytea[], %(audiences)s::smallint[],
        %(ats)s::bigint[]
    ) AS e(seq, kind, schema, payload, audience, at_us)
), recorded AS (
    INSERT INTO append_requests (game_id, request_id, response, last_seq)
    SELECT moved.game_id, %(request)s, %(response)s, %(last)s FROM moved WHERE %(request)s::text IS NOT NULL
), notified AS (
    SELECT pg_notify(%(channel)s, %(note)s) FROM moved
)
SELECT (SELECT count(*) FROM moved), (SELECT count(*) FROM notified)
"""
"""An append in one round trip (see PostgresStore._append)."""


class PostgresStore:
    """An :class:`~truco.server.store.EventStore` in a PostgreSQL database. Build it with :meth:`open`."""

    recheck_seconds = 5.0
    """Another replica's append is heard by notification; if the listening connection dies without an error (a
    silent network fault), a waiter still sees the append within this (within this and ``TRUST_SECONDS`` when it
    went to sleep without a look, on the notifications' word: ``wait_for_change``'s ``vouched``)."""

    def __init__(self, url: str, pool: AsyncConnectionPool[Conn], channel: str, timeout: float) -> None:
        self._url = url
        self._pool = pool
        self._channel = channel
        self._timeout = timeout
        self._migrated = False
        self._migrate_lock = asyncio.Lock()
        self._signals = ChangeSignals()
        # Games with an append of this store under way, and the newest seq their notifications told of meanwhile:
        # the append's own notification can arrive before its caller has recorded the move, and waking the game's
        # watchers then would send each of them to the store for what their own replica is about to know.
        self._appending: dict[str, int] = {}
        self._held_back: dict[str, int] = {}
        self._listener: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()
        self._epoch = 0
        self._closed = False

    @classmethod
    async def open(
        cls, url: str, *, max_connections: int = 10, timeout: float = TIMEOUT_S, channel: str = CHANNEL
    ) -> PostgresStore:
        """A store on the database at ``url``, its schema made or migrated if the database answers now.

        ``timeout`` bounds the wait for a connection; ``channel`` names the NOTIFY channel (one per database).
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
        store = cls(url, pool, channel, timeout)
        with contextlib.suppress(StoreUnavailable):
            await store._ensure_schema()
        return store

    # The EventStore methods.

    async def create_game(self, game: GameRecord, events: Sequence[NewEvent], request_id: str | None) -> GameRecord:
        try:
            return await self._run(lambda conn: self._create_game(conn, game, events, request_id))
        except VersionConflict:
            # The same request may have been committed by a concurrent call (a retry racing the original).
            if request_id is not None:
                existing = await self._run(lambda conn: _game_by_request(conn, request_id), read_only=True)
                if existing is not None:
                    return existing
            raise

    async def append(
        self,
        game_id: str,
        expected_last_seq: int,
        events: Sequence[NewEvent],
        request_id: str | None,
        response: bytes,
        over: bool,
        deadline_us: int | None = None,
    ) -> AppendResult:
        self._appending[game_id] = self._appending.get(game_id, 0) + 1
        try:
            result = await self._run(
                lambda conn: self._append(
                    conn, Append(game_id, expected_last_seq, events, request_id, response, over, deadline_us)
                ),
                transaction=False,
            )
        except VersionConflict:
            # A retry racing its own original loses on the unique key; answer it with what the original recorded.
            if request_id is not None:
                recorded = await self._run(lambda conn: _recorded_append(conn, game_id, request_id), read_only=True)
                if recorded is not None:
                    return recorded
            raise
        finally:
            self._appended(game_id)
        # Our own listener will hear the NOTIFY too; firing now saves local waiters that round trip.
        self._signals.fire(game_id, result.last_seq)
        return result

    def _appended(self, game_id: str) -> None:
        left = self._appending.pop(game_id) - 1
        if left:
            self._appending[game_id] = left
            return
        held = self._held_back.pop(game_id, None)
        if held is not None:
            # Scheduled, not fired now: the append's caller records its move first (it resumes before this).
            asyncio.get_running_loop().call_soon(self._signals.fire, game_id, held)

    async def find_response(self, game_id: str, request_id: str) -> bytes | None:
        recorded = await self._run(lambda conn: _recorded_append(conn, game_id, request_id), read_only=True)
        return recorded.response if recorded is not None else None

    async def read(self, game_id: str, after_seq: int = 0) -> list[StoredEvent]:
        return await self._run(lambda conn: _read(conn, game_id, after_seq), read_only=True)

    async def get_game(self, game_id: str) -> GameRecord:
        return await self._run(lambda conn: _get_game(conn, game_id), read_only=True)

    async def claim_seat(
        self,
        game_id: str,
        seat: int | None,
        token_hash: bytes,
        player_name: str,
        request_id: str | None,
        key_id: str = "",
    ) -> tuple[GameRecord, int]:
        check_token_hash(token_hash)
        return await self._run(
            lambda conn: _claim_seat(conn, game_id, seat, token_hash, player_name, request_id, key_id)
        )

    async def set_seat_token(self, game_id: str, seat: int, token_hash: bytes) -> None:
        check_token_hash(token_hash)
        await self._run(lambda conn: _set_seat_token(conn, game_id, seat, token_hash))

    async def seat_for_token(self, game_id: str, token_hash: bytes) -> int | None:
        return await self._run(lambda conn: _seat_for_token(conn, game_id, token_hash), read_only=True)

    async def list_open_games(
        self, page_size: int, after: str | None, viewer: str | None = None
    ) -> tuple[list[GameRecord], str | None]:
        check_page_size(page_size)
        key = decode_cursor(after) if after is not None else None
        games = await self._run(lambda conn: _open_games(conn, page_size + 1, key, viewer), read_only=True)
        return page_of(games, page_size)

    async def count_unfinished_games(self, creator: str) -> int:
        async def count(conn: Conn) -> int:
            cur = await conn.execute(S.count_unfinished, (creator,))
            row = await cur.fetchone()
            return int(row[0]) if row is not None else 0

        return await self._run(count, transaction=False, read_only=True)

    async def create_api_key(self, key: ApiKeyRecord) -> None:
        async def insert(conn: Conn) -> None:
            try:
                await conn.execute(S.insert_key, sql.key_values(key))
            except psycopg.errors.UniqueViolation as exc:
                raise VersionConflict(f"API key {key.key_id!r} already exists") from exc

        await self._run(insert, transaction=False)

    async def api_key_by_hash(self, secret_hash: bytes) -> ApiKeyRecord | None:
        found = await self._run(
            lambda conn: _keys(conn, S.key_by_hash, (secret_hash,)), transaction=False, read_only=True
        )
        return found[0] if found else None

    async def api_key_by_id(self, key_id: str) -> ApiKeyRecord | None:
        found = await self._run(lambda conn: _keys(conn, S.key_by_id, (key_id,)), transaction=False, read_only=True)
        return found[0] if found else None

    async def list_api_keys(self) -> list[ApiKeyRecord]:
        return await self._run(lambda conn: _keys(conn, "", ()), transaction=False, read_only=True)

    async def revoke_api_key(self, key_id: str, revoked_at: str) -> ApiKeyRecord:
        async def revoke(conn: Conn) -> list[ApiKeyRecord]:
            await conn.execute(S.revoke_key, (revoked_at, key_id))
            return await _keys(conn, S.key_by_id, (key_id,))

        found = await self._run(revoke)
        if not found:
            raise ApiKeyNotFound(f"no API key {key_id!r}")
        return found[0]

    async def wait_for_change(
        self, game_id: str, after_seq: int, timeout: float, vouched: Callable[[], bool] | None = None
    ) -> int | None:
        # LISTEN must be in place before the first look at the database, or a commit between the two is missed.
        await self._ensure_listening()
        return await wait_until_after(
            self._signals,
            game_id,
            after_seq,
            timeout,
            lambda: self._run(lambda conn: _last_seq(conn, game_id), read_only=True),
            vouched,
        )

    def on_append(self, heard: Callable[[str, int], None]) -> None:
        self._signals.on_append(heard)

    def interrupt_waits(self) -> None:
        self._signals.interrupt()

    def hearing_epoch(self) -> int | None:
        if self._listening.is_set():
            return self._epoch
        if not self._closed and (self._listener is None or self._listener.done()):
            # Readers ask first: start listening now, and trust nothing until the LISTEN is in place.
            self._listener = asyncio.create_task(self._listen(), name="truco-postgres-listener")
        return None

    async def set_deadline(self, game_id: str, last_seq: int, deadline_us: int | None) -> bool:
        async def work(conn: Conn) -> bool:
            cur = await conn.execute(S.set_deadline, (deadline_us, game_id, last_seq))
            return cur.rowcount == 1

        return await self._run(work, transaction=False)

    async def due_games(self, now_us: int, limit: int) -> tuple[list[str], int | None]:
        async def work(conn: Conn) -> tuple[list[str], int | None]:
            cur = await conn.execute(S.due_games, (now_us, limit))
            ids = [str(row[0]) for row in await cur.fetchall()]
            cur = await conn.execute(S.next_deadline, (now_us,))
            row = await cur.fetchone()
            return ids, (None if row is None or row[0] is None else int(row[0]))

        return await self._run(work, transaction=False, read_only=True)

    async def touch_seats(self, sightings: Sequence[Sighting]) -> None:
        async def work(conn: Conn) -> None:
            async with conn.cursor() as cur:
                await cur.executemany(S.touch_seat, sql.sighting_values(sightings))

        await self._run(work)

    async def link_next_game(self, game_id: str, next_game: str) -> str:
        async def work(conn: Conn) -> str:
            await conn.execute(S.link_next_game, (next_game, game_id))
            cur = await conn.execute(S.next_game, (game_id,))
            row = await cur.fetchone()
            if row is None:
                raise GameNotFound(f"no game {game_id!r}")
            return str(row[0])

        return await self._run(work)

    async def close_abandoned(self, created_before: str) -> list[str]:
        async def work(conn: Conn) -> list[str]:
            cur = await conn.execute(S.close_abandoned, (now_us(), created_before, SEAT_OPEN))
            return [str(row[0]) for row in await cur.fetchall()]

        return await self._run(work)

    async def delete_games(self, ended_before_us: int, limit: int) -> list[str]:
        async def work(conn: Conn) -> list[str]:
            cur = await conn.execute(S.ended_games, (ended_before_us, limit))
            ids = [str(row[0]) for row in await cur.fetchall()]
            async with conn.cursor() as cursor:
                for statement in S.delete_game_rows:
                    await cursor.executemany(statement, [(game_id,) for game_id in ids])
            return ids

        return await self._run(work)

    async def ping(self) -> None:
        await self._ensure_schema()
        try:
            async with self._pool.connection(timeout=min(self._timeout, PING_TIMEOUT_S)) as conn:
                await conn.execute("SELECT 1")
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            raise StoreUnavailable(f"PostgreSQL is unreachable: {exc}") from exc

    async def close(self) -> None:
        self._closed = True
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
            self._listener = None
        await self._pool.close()

    # Transactions.

    async def _run(
        self, work: Callable[[Conn], Awaitable[T]], *, transaction: bool = True, read_only: bool = False
    ) -> T:
        """Run ``work`` on a pooled connection, in one transaction unless it is a single atomic statement (the
        pool's connections autocommit); outages become :class:`StoreUnavailable`."""
        await self._ensure_schema()
        for attempt in range(READ_ATTEMPTS):
            lent: Conn | None = None
            try:
                async with self._pool.connection() as conn:
                    lent = conn
                    if not transaction:
                        return await work(conn)
                    async with conn.transaction():
                        return await work(conn)
            except (psycopg.errors.ProgramLimitExceeded, psycopg.DataError) as exc:
                # A value too big for an index, a NUL byte in text: the same call fails the same way every time.
                raise StoreRejected(f"PostgreSQL cannot hold a value: {exc}") from exc
            except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
                # The server may end a connection just after the pool's check found it quiet (a restart, a
                # terminated backend): a read is tried once more, on another. A write is not: whether it
                # committed is unknown, and the caller's retry with its request id is the safe one.
                if read_only and attempt + 1 < READ_ATTEMPTS and lent is not None and lent.closed:
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
                async with await AsyncConnection.connect(
                    self._url, autocommit=True, connect_timeout=max(1, round(self._timeout))
                ) as conn:
                    await _migrate(conn)
            except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
                raise StoreUnavailable(f"PostgreSQL is unreachable: {exc}") from exc
            self._migrated = True

    async def _create_game(
        self, conn: Conn, game: GameRecord, events: Sequence[NewEvent], request_id: str | None
    ) -> GameRecord:
        if request_id is not None:
            existing = await _game_by_request(conn, request_id)
            if existing is not None:
                return existing
        try:
            await _insert_game(conn, game, len(events), request_id)
            await _insert_events(conn, game.game_id, 0, events)
        except psycopg.errors.UniqueViolation as exc:
            raise VersionConflict(f"game {game.game_id!r} already exists") from exc
        return await _get_game(conn, game.game_id)

    async def _append(self, conn: Conn, append: Append) -> AppendResult:
        """One statement: the guarded update of the game's last seq gates the inserts, so a stale append writes
        nothing; a racing writer waits on the row lock and then finds the seq moved. A request id already
        recorded can only have moved the seq too, and append() answers it from what was recorded."""
        events, last_seq, over = append.events, append.last_seq, append.over
        try:
            cur = await conn.execute(
                _APPEND,
                {
                    "game": append.game_id,
                    "expected": append.expected_last_seq,
                    "last": last_seq,
                    "over": over,
                    "seqs": list(range(append.expected_last_seq + 1, last_seq + 1)),
                    "kinds": [e.kind for e in events],
                    "schemas": [e.schema for e in events],
                    "payloads": [e.payload for e in events],
                    "audiences": [e.audience for e in events],
                    "ats": [e.at_us for e in events],
                    "deadline": None if over else append.deadline_us,
                    "now": now_us(),
                    "request": append.request_id,
                    "response": append.response,
                    "channel": self._channel,
                    "note": f"{append.game_id}:{last_seq}",
                },
            )
            row = await cur.fetchone()
        except psycopg.errors.UniqueViolation as exc:
            raise VersionConflict(append.conflict()) from exc
        if row is None or int(row[0]) != 1:
            await _last_seq(conn, append.game_id)  # GameNotFound for an unknown game
            raise VersionConflict(append.conflict())
        return AppendResult(last_seq, append.response)

    # Waking waiters on other replicas' appends.

    async def _ensure_listening(self) -> None:
        if self._closed:
            raise StoreUnavailable("the PostgreSQL store is closed")
        if self._listener is None or self._listener.done():
            self._listener = asyncio.create_task(self._listen(), name="truco-postgres-listener")
        try:
            async with asyncio.timeout(self._timeout):
                await self._listening.wait()
        except TimeoutError as exc:
            raise StoreUnavailable("PostgreSQL is unreachable: cannot LISTEN for appends") from exc

    async def _listen(self) -> None:
        """Keep one connection listening on the channel, reconnecting with backoff when it is lost."""
        delay = 0.1
        while True:
            try:
                async with await AsyncConnection.connect(
                    self._url, autocommit=True, connect_timeout=max(1, round(self._timeout))
                ) as conn:
                    await conn.execute(pgsql.SQL("LISTEN {}").format(pgsql.Identifier(self._channel)))
                    # A new epoch: what was checked before this LISTEN may have missed notifications since.
                    self._epoch += 1
                    self._listening.set()
                    # Notifications sent while we were not listening are lost: every waiter looks again.
                    self._signals.fire_all()
                    delay = 0.1
                    async for notify in conn.notifies():
                        self._on_notify(notify.payload)
            except (psycopg.OperationalError, psycopg.InterfaceError):
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
        if game_id in self._appending:  # held back until this store's own append of the game has returned
            self._held_back[game_id] = max(last_seq, self._held_back.get(game_id, 0))
        else:
            self._signals.fire(game_id, last_seq)


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


async def _migrate(conn: Conn) -> None:
    """Apply the migrations the database lacks, one replica at a time."""
    async with conn.transaction():
        # Held until this transaction ends; a second replica waits here, then finds the migrations applied.
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_KEY,))
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version"
            " (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        cur = await conn.execute("SELECT coalesce(max(version), 0) FROM schema_version")
        row = await cur.fetchone()
        current = int(row[0]) if row is not None else 0
        for version, script in enumerate(MIGRATIONS, start=1):
            if version > current:
                await conn.execute(script)  # a constant script: several statements, no parameters
                await conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (version,))


async def _insert_game(conn: Conn, game: GameRecord, last_seq: int, request_id: str | None) -> None:
    await conn.execute(S.insert_game, sql.game_values(game, last_seq, request_id))
    async with conn.cursor() as cur:
        await cur.executemany(S.insert_seats, sql.seat_values(game))


async def _insert_events(conn: Conn, game_id: str, after_seq: int, events: Sequence[NewEvent]) -> None:
    if not events:
        return
    async with conn.cursor() as cur:
        await cur.executemany(S.insert_event, sql.event_values(game_id, after_seq, events))


async def _get_game(conn: Conn, game_id: str) -> GameRecord:
    cur = await conn.execute(S.game, (game_id,))
    rows: list[sql.GameRow] = await cur.fetchall()
    if not rows:
        raise GameNotFound(f"no game {game_id!r}")
    return sql.games_from_rows(rows)[0]


async def _game_by_request(conn: Conn, request_id: str) -> GameRecord | None:
    cur = await conn.execute(S.game_by_request, (request_id,))
    row = await cur.fetchone()
    return await _get_game(conn, row[0]) if row is not None else None


async def _last_seq(conn: Conn, game_id: str) -> int:
    cur = await conn.execute(S.last_seq, (game_id,))
    row = await cur.fetchone()
    if row is None:
        raise GameNotFound(f"no game {game_id!r}")
    return int(row[0])


async def _recorded_append(conn: Conn, game_id: str, request_id: str) -> AppendResult | None:
    cur = await conn.execute(S.recorded_append, (game_id, request_id))
    row = await cur.fetchone()
    return AppendResult(int(row[0]), bytes(row[1]), replayed=True) if row is not None else None


async def _read(conn: Conn, game_id: str, after_seq: int) -> list[StoredEvent]:
    cur = await conn.execute(S.read_events, (game_id, after_seq))
    rows = await cur.fetchall()
    if not rows:
        await _last_seq(conn, game_id)  # raises GameNotFound for an unknown game
    return sql.stored_events(game_id, rows)


async def _claim_seat(
    conn: Conn,
    game_id: str,
    seat: int | None,
    token_hash: bytes,
    player_name: str,
    request_id: str | None,
    key_id: str,
) -> tuple[GameRecord, int]:
    # Lock the game's row: claims of one game run one after another, so "lowest open seat" and the request-id
    # check stay true until commit.
    cur = await conn.execute("SELECT 1 FROM games WHERE game_id = %s FOR UPDATE", (game_id,))
    if await cur.fetchone() is None:
        raise GameNotFound(f"no game {game_id!r}")
    if request_id is not None:
        cur = await conn.execute(S.claimed_seat, (game_id, request_id))
        claimed = await cur.fetchone()
        if claimed is not None:
            return await _get_game(conn, game_id), int(claimed[0])
    chosen = choose_seat(await _get_game(conn, game_id), seat)
    await conn.execute(S.take_seat, sql.take_seat_values(game_id, chosen, token_hash, player_name, key_id))
    if request_id is not None:
        await conn.execute(S.record_claim, (game_id, request_id, chosen))
    return await _get_game(conn, game_id), chosen


async def _set_seat_token(conn: Conn, game_id: str, seat: int, token_hash: bytes) -> None:
    updated = await conn.execute(S.set_seat_token, (token_hash, game_id, seat, SEAT_TAKEN))
    if updated.rowcount != 1:
        await _last_seq(conn, game_id)  # raises GameNotFound for an unknown game
        raise SeatUnavailable(f"seat {seat} of game {game_id!r} is not taken")


async def _seat_for_token(conn: Conn, game_id: str, token_hash: bytes) -> int | None:
    cur = await conn.execute(S.seat_for_token, (game_id, SEAT_TAKEN, token_hash))
    row = await cur.fetchone()
    if row is None:
        await _last_seq(conn, game_id)  # raises GameNotFound for an unknown game
        return None
    return int(row[0])


async def _keys(conn: Conn, where: str, parameters: tuple[object, ...]) -> list[ApiKeyRecord]:
    cur = await conn.execute(S.keys.format(where=where), parameters)
    return sql.key_records(await cur.fetchall())


async def _open_games(conn: Conn, limit: int, after: tuple[str, str] | None, viewer: str | None) -> list[GameRecord]:
    query, parameters = sql.open_games_query(S, limit, after, viewer)
    cur = await conn.execute(query, parameters)
    rows: list[sql.GameRow] = await cur.fetchall()
    return sql.games_from_rows(rows)


__all__ = ["MIGRATIONS", "PostgresStore"]
