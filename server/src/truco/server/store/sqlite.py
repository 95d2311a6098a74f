"""The SQLite event store: one file, for a single server (or a few processes on one machine). Its operations
are :class:`~.core.SQLStore`'s; this module says only how they reach the file.

The stdlib driver blocks, so each store object owns one connection used by one worker thread, one call at a
time: the event loop never blocks and no connection is shared between threads. The file is in WAL mode with
``synchronous=FULL``, so a commit is on disk when the call returns and readers never wait for the writer.
Transactions take the write lock up front (``BEGIN IMMEDIATE``); other processes wait up to the busy timeout.

Appends by this store object wake its waiters at once; appends by other processes are noticed by polling
``PRAGMA data_version`` (which changes when another connection commits), every 50 ms while someone waits.

Two things keep the hot paths cheap (a hop to the worker thread costs more CPU than the SQL it runs):

- **Group commit.** Appends waiting while a commit is on its way to disk go together in the next transaction,
  with one fsync for all; one refused append is undone alone, the others stand. Each is answered only after
  that commit returned, so an acknowledged move is on disk all the same. An append is three statements (the
  worker gives up the GIL on each, so each statement is also a handoff with the event loop's thread).
- **Reads that find nothing new stay on the event loop.** A second, read-only connection, used by the event
  loop's thread alone, first compares the game's ``last_seq`` with the caller's: a point lookup of a few
  microseconds that never waits (in WAL mode no writer blocks it; a lock it meets sends the read to the
  worker). Equal, there is nothing to read; behind, the worker reads. The check reads the file, so it sees
  every committed append of every process: a reader that moved through another server reads its move here.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import dataclasses
import functools
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import ClassVar, ParamSpec, TypeVar

from . import sql
from .core import Kind, Row, SQLStore, Work, run_to_end
from .errors import GameNotFound, StoreRejected, StoreUnavailable, VersionConflict
from .records import Append, AppendResult

P = ParamSpec("P")
T = TypeVar("T")

BUSY_TIMEOUT_MS = 10_000
POLL_INTERVAL_S = 0.05
CHECKPOINT_INTERVAL_S = 1.0
"""How often the WAL is copied into the database file, beside the appends rather than inside one of them."""
MAX_APPENDS_PER_COMMIT = 64
"""The most appends one group commit takes (the rest wait for the next), so no single transaction grows long."""

MIGRATIONS = sql.migrations(sql.SQLITE)
"""The schema migrations (store/sql.py), in SQLite."""


class SQLiteStore(SQLStore):
    """An :class:`~truco.server.store.EventStore` in one SQLite file. Build it with :meth:`open`."""

    S: ClassVar[sql.Statements] = sql.statements(sql.SQLITE)
    PS: ClassVar[sql.PlayerStatements] = sql.player_statements(sql.SQLITE)
    migrations: ClassVar[tuple[str, ...]] = MIGRATIONS
    duplicate: ClassVar[tuple[type[Exception], ...]] = (sqlite3.IntegrityError,)
    recheck_seconds = 60.0
    """Nothing is missed here (this store's appends wake their waiters, other processes' are polled for): a look
    once a minute is only a safety net, and an idle watch costs next to nothing."""

    def __init__(self, path: str, poll_interval: float = POLL_INTERVAL_S) -> None:
        super().__init__()
        self._path = path
        self._poll_interval = poll_interval
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="truco-sqlite")
        self._conn: sqlite3.Connection | None = None
        self._closed = False
        self._poller: asyncio.Task[None] | None = None
        self._reader: sqlite3.Connection | None = None
        # The group commit's queue, filled on the event loop and emptied by the worker (_commit_appends).
        self._appends: collections.deque[_PendingAppend] = collections.deque()
        self._appends_lock = threading.Lock()
        self._committing = False  # a _commit_appends is queued or running; under _appends_lock
        self._accepting = True
        self._checkpointer: asyncio.Task[None] | None = None
        # Checkpoints on a thread and a connection of their own: SQLite's automatic checkpoint runs inside the
        # commit that fills the WAL, and its fsync of the database file stalled every append queued behind it.
        self._checkpoints = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="truco-wal")

    @classmethod
    async def open(cls, path: str, poll_interval: float = POLL_INTERVAL_S) -> SQLiteStore:
        """Open (creating and migrating) the database file at ``path`` (``:memory:`` for a private one).

        :raises StoreUnavailable: the file cannot be opened or written.
        """
        store = cls(path, poll_interval)
        try:
            await store._call(store._connect)
            store._open_reader()
            store._start_checkpoints()
        except BaseException:
            await store.close()
            raise
        return store

    async def ping(self) -> None:
        await self._run(lambda conn: conn.rows("SELECT count(*) FROM schema_version"))

    async def close(self) -> None:
        if self._closed:
            return
        for task in (self._poller, self._checkpointer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._accepting = False
        with contextlib.suppress(StoreUnavailable):  # the appends still queued are committed and answered first
            await self._call(self._disconnect, asyncio.get_running_loop())
        self._closed = True
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        self._executor.shutdown(wait=False)
        self._checkpoints.shutdown(wait=True)  # a checkpoint under way ends before its connection goes

    # How the operations run: one at a time on the worker thread, to their end at once (the driver blocks).

    async def _run(self, work: Work[T], kind: Kind = "read") -> T:
        return await self._call(self._run_here, work, kind)

    def _run_here(self, work: Work[T], kind: Kind) -> T:
        conn = self._db()
        with _write(conn) if kind == "transaction" else contextlib.nullcontext():  # one statement commits alone
            return run_to_end(work(_Blocking(conn)))

    async def _call(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        if self._closed:
            raise StoreUnavailable("the SQLite store is closed")
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, functools.partial(fn, *args, **kwargs))
        except (sqlite3.DatabaseError, OverflowError) as exc:
            error = _store_error(exc, self._path)
            if error is exc:
                raise  # as it came (an IntegrityError: a bug), not as its own cause
            raise error from exc

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreUnavailable("the SQLite store is not connected")
        return self._conn

    def _connect(self) -> None:
        conn = sqlite3.connect(
            self._path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            _enable_wal(conn)
            # FULL: in WAL mode NORMAL may lose the last commits on power loss; an append must survive it.
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            # The store's own checkpointer copies the WAL into the file every second (_checkpoint_loop); this
            # connection checkpoints only if the WAL ever grows past 16 MiB without it (4,096 pages of 4 KiB).
            conn.execute("PRAGMA wal_autocheckpoint = 4096")
            with _write(conn):  # its write lock, held from the start: processes opening a new file wait here
                run_to_end(self._migrate(_Blocking(conn)))
        except BaseException:
            conn.close()
            raise
        self._conn = conn

    def _disconnect(self, loop: asyncio.AbstractEventLoop) -> None:
        while self._committing:  # no append is accepted any more: answer those still queued, then close
            self._commit_appends(loop)
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # Group commit, on the worker: it takes the next batch as soon as the last one is on disk, without waiting
    # for the event loop to hand it over (at 500 moves a second the loop's queue of ready callbacks is what an
    # append waited for most: two turns of it for each commit, one more for the answer).

    async def _commit(self, append: Append) -> AppendResult:
        if not self._accepting:
            raise StoreUnavailable("the SQLite store is closed")
        loop = asyncio.get_running_loop()
        pending = _PendingAppend(append, loop.create_future())
        with self._appends_lock:
            self._appends.append(pending)
            start, self._committing = not self._committing, True
        if start:
            self._executor.submit(self._commit_appends, loop)
        return await pending.outcome  # answered by _answer_appends

    def _commit_appends(self, loop: asyncio.AbstractEventLoop) -> None:
        """One group commit of the appends waiting (up to MAX_APPENDS_PER_COMMIT), answered on ``loop``. While
        more wait, the next one is queued behind the worker's other calls (a read, a seat claimed), so a steady
        stream of moves never starves them."""
        with self._appends_lock:
            batch = [self._appends.popleft() for _ in range(min(len(self._appends), MAX_APPENDS_PER_COMMIT))]
        if batch:
            try:
                outcomes = self._append_batch([pending.request for pending in batch])
            except Exception as exc:  # the transaction failed as a whole (or the store closed): all fail
                outcomes = [_store_error(exc, self._path)] * len(batch)
            with contextlib.suppress(RuntimeError):  # the loop is closed: no caller is left to answer
                loop.call_soon_threadsafe(self._answer_appends, batch, outcomes)
        with self._appends_lock:
            self._committing = more = bool(self._appends)
        if more:
            with contextlib.suppress(RuntimeError):  # the worker is shutting down: _disconnect answers the rest
                self._executor.submit(self._commit_appends, loop)

    def _answer_appends(self, batch: Sequence[_PendingAppend], outcomes: Sequence[AppendResult | Exception]) -> None:
        for pending, outcome in zip(batch, outcomes, strict=True):
            if not pending.outcome.done():
                if isinstance(outcome, BaseException):
                    pending.outcome.set_exception(outcome)
                else:
                    pending.outcome.set_result(outcome)
            if not isinstance(outcome, BaseException):
                # Here, not in the caller: a move committed for a caller that gave up (a deadline, a dropped
                # connection) wakes its game's watchers all the same; the poller never sees this connection's
                # own commits. After the result is set: the caller resumes first and caches the new state, so
                # the watchers woken here send it without reading it back (Commits.commit, Games.watch).
                self._signals.fire(pending.request.game_id, outcome.last_seq)

    def _append_batch(self, requests: Sequence[Append]) -> list[AppendResult | Exception]:
        """One group commit: the outcome of each append (its result, or what refused it, the others unharmed).
        A failure of the transaction itself raises, failing them all."""
        conn = self._db()
        try:
            with _write(conn):
                return self._appends_in(conn, requests, isolated=False)
        except _Redo:  # one was refused after it wrote: again, each in a savepoint that can undo it alone
            with _write(conn):
                return self._appends_in(conn, requests, isolated=True)
        except _REFUSALS as exc:  # an append alone: its transaction rolled back
            return [_store_error(exc, self._path)]

    def _appends_in(
        self, conn: sqlite3.Connection, requests: Sequence[Append], *, isolated: bool
    ) -> list[AppendResult | Exception]:
        """The appends of a group commit inside ``conn``'s write transaction. An append alone needs no
        savepoint: what refuses it is raised, and rolls back the transaction. Together, each may be refused
        on its own. Nearly every refusal (a stale seq) comes before the append wrote anything, so savepoints,
        two more statements an append, are taken only when ``isolated``, in the rare rerun of a group in which
        one append was refused after writing (:class:`_Redo`: a request id met again at a newer seq)."""
        db = _Blocking(conn)
        if len(requests) == 1:
            return [run_to_end(self._write_append(db, requests[0]))]
        outcomes: list[AppendResult | Exception] = []
        for request in requests:
            if isolated:
                conn.execute("SAVEPOINT append")
            changes = conn.total_changes
            try:
                outcomes.append(run_to_end(self._write_append(db, request)))
            except _REFUSALS as exc:
                outcomes.append(_store_error(exc, self._path))
                if isolated:
                    conn.execute("ROLLBACK TO append")
                elif conn.total_changes != changes:
                    raise _Redo from exc
            if isolated:
                conn.execute("RELEASE append")
        return outcomes

    # The WAL's checkpoints, on their own thread.

    def _start_checkpoints(self) -> None:
        if self._path == ":memory:":
            return  # no WAL
        self._checkpointer = asyncio.create_task(self._checkpoint_loop(), name="truco-sqlite-checkpoints")

    async def _checkpoint_loop(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            opening = functools.partial(_side_connection, self._path, "PRAGMA busy_timeout = 0")
            conn = await loop.run_in_executor(self._checkpoints, opening)
        except sqlite3.Error:
            return  # the writer's own automatic checkpoint (wal_autocheckpoint) still bounds the WAL
        try:
            while True:
                await asyncio.sleep(CHECKPOINT_INTERVAL_S)
                with contextlib.suppress(sqlite3.Error):  # busy or failing: the next one tries again
                    await loop.run_in_executor(self._checkpoints, _checkpoint, conn)
        finally:
            self._checkpoints.submit(conn.close)

    # On the event loop's thread: the read-only connection's check.

    def _open_reader(self) -> None:
        if self._path == ":memory:":
            return  # a private database: no other connection can see it (and no other process can write it)
        self._reader = _side_connection(self._path, "PRAGMA busy_timeout = 0", "PRAGMA query_only = ON")

    def _peek_last_seq(self, game_id: str) -> int | None:
        """The game's last seq as committed now, read on this thread; None when unknown or not readable at once."""
        if self._reader is None:
            return None
        try:
            # fetchall: the statement runs to its end, so no read transaction (and no old snapshot) stays open.
            rows = self._reader.execute(self.S.last_seq, (game_id,)).fetchall()
        except sqlite3.Error:
            return None
        return int(rows[0][0]) if rows else None

    # Noticing other processes' appends.

    async def _prepare_wait(self) -> None:
        if self._closed:
            raise StoreUnavailable("the SQLite store is closed")
        if self._poller is not None and not self._poller.done():
            return
        # The baseline is queued on the worker now, so it runs before the waiter's first check: a commit by
        # another process between that check and the baseline could otherwise go unnoticed.
        baseline = asyncio.get_running_loop().run_in_executor(self._executor, self._data_version)
        self._poller = asyncio.create_task(self._poll(baseline), name="truco-sqlite-poller")

    def _data_version(self) -> int:
        return int(self._db().execute("PRAGMA data_version").fetchone()[0])

    async def _poll(self, baseline: asyncio.Future[int]) -> None:
        seen = await _version_or_none(baseline)
        while self._signals.watching:
            await asyncio.sleep(self._poll_interval)
            version = await _version_or_none(self._call(self._data_version))
            # An unreadable version may hide a change: wake the waiters, who meet the error themselves if it lasts.
            if version is None or version != seen:
                seen = version
                self._signals.fire_all()


class _Blocking:
    """The worker's connection as a :class:`~.core.Connection`: every call is done when it returns."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    async def rows(self, query: str, parameters: Sequence[object] = ()) -> list[Row]:
        return self._conn.execute(query, parameters).fetchall()

    async def run(self, query: str, parameters: Sequence[object] = ()) -> int:
        return self._conn.execute(query, parameters).rowcount

    async def run_many(self, query: str, parameters: Sequence[Sequence[object]]) -> None:
        self._conn.executemany(query, parameters)


class _Redo(Exception):
    """An append of a group was refused after it wrote: the group is rolled back and run again in savepoints."""


_REFUSALS = (VersionConflict, GameNotFound, sqlite3.IntegrityError, sqlite3.DataError, OverflowError)
"""What refuses one append and not the others of its group commit."""


def _store_error(exc: Exception, path: str) -> Exception:
    """What a failed call raises: the driver's errors as the store's own."""
    if isinstance(exc, sqlite3.IntegrityError):
        return exc  # a constraint the code did not expect to break: a bug, not an outage
    if isinstance(exc, (sqlite3.DataError, OverflowError)):  # "string or blob too big"
        return StoreRejected(f"SQLite cannot hold a value: {exc}")
    if isinstance(exc, sqlite3.DatabaseError):
        return StoreUnavailable(f"SQLite database {path}: {exc}")
    return exc


@dataclasses.dataclass(frozen=True, slots=True)
class _PendingAppend:
    request: Append
    outcome: asyncio.Future[AppendResult]


def _side_connection(path: str, *pragmas: str) -> sqlite3.Connection:
    """A connection beside the writer's that never waits for a lock (the reader's, the checkpointer's)."""
    conn = sqlite3.connect(path, timeout=0, isolation_level=None, check_same_thread=False)
    try:
        for pragma in pragmas:
            conn.execute(pragma)
    except BaseException:
        conn.close()
        raise
    return conn


def _checkpoint(conn: sqlite3.Connection) -> None:
    # PASSIVE: copies what it can without waiting for the writer or readers, so no append ever waits for it.
    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()


async def _version_or_none(pending: Awaitable[int]) -> int | None:
    try:
        return await pending
    except (sqlite3.Error, StoreUnavailable):
        return None


def _enable_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL. Doing so on a new file takes an exclusive lock for which SQLite may not call the busy
    handler, so several processes opening one new file together retry here for up to the busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


@contextlib.contextmanager
def _write(conn: sqlite3.Connection) -> Iterator[None]:
    """A write transaction holding SQLite's write lock from its start, so its reads are still true at commit."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


__all__ = ["MIGRATIONS", "SQLiteStore"]
