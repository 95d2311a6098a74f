"""Every store operation, written once, over a small connection interface (:class:`Connection`).

A backend says only how to talk to its database: how to run an operation on a connection (:meth:`SQLStore._run`),
how to commit an append (:meth:`SQLStore._commit`), and how it hears other writers' appends. The operations are
coroutines that await nothing but their connection, so SQLite's worker thread can run one to its end without an
event loop (:func:`run_to_end`), and PostgreSQL's pool awaits the same code on its own.
"""

from __future__ import annotations

import contextlib
import functools
import uuid
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from typing import Any, ClassVar, Literal, Protocol, TypeVar

from . import sql
from .errors import ApiKeyNotFound, GameNotFound, SeatUnavailable, VersionConflict
from .players import PlayerTables
from .records import (
    SEAT_BOT,
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
Row = tuple[Any, ...]

Kind = Literal["read", "write", "transaction"]
"""How an operation runs: ``read`` writes nothing (and may be tried again on another connection); ``write`` is
one statement, atomic on its own; ``transaction`` is several, which must commit together."""


class Connection(Protocol):
    """What an operation needs of a database connection: statements in the store's dialect (``S``)."""

    async def rows(self, query: str, parameters: Sequence[object] = ()) -> list[Row]:
        """Run a statement that returns rows, and all its rows."""
        ...

    async def run(self, query: str, parameters: Sequence[object] = ()) -> int:
        """Run a statement; how many rows it changed."""
        ...

    async def run_many(self, query: str, parameters: Sequence[Sequence[object]]) -> None:
        """Run a statement once for each row of parameters."""
        ...


Work = Callable[[Connection], Coroutine[Any, Any, T]]


EVENT_ROWS_PER_INSERT = 100
"""Event rows per INSERT statement: 700 parameters, under SQLite's oldest default limit (999)."""


@functools.lru_cache(maxsize=256)
def _rows_insert(insert: str, row: str, rows: int) -> str:
    """One INSERT of ``rows`` rows: a single statement (one round trip, one GIL handoff) instead of one per row."""
    return insert + f", {row}" * (rows - 1)


def run_to_end(work: Coroutine[Any, Any, T]) -> T:
    """Run an operation whose connection never suspends (a blocking driver's) to its end, on this thread."""
    try:
        work.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    work.close()
    raise RuntimeError("a store operation awaited something other than its blocking connection")


class SQLStore(PlayerTables, ABC):
    """An :class:`~truco.server.store.EventStore` on an SQL database: every operation; the backends say how."""

    S: ClassVar[sql.Statements]
    """The shared statements in the backend's dialect."""
    PS: ClassVar[sql.PlayerStatements]
    """The statements of players and tickets in the backend's dialect."""
    migrations: ClassVar[tuple[str, ...]]
    """The schema migrations in the backend's dialect (``sql.MIGRATIONS``)."""
    duplicate: ClassVar[tuple[type[Exception], ...]]
    """What the driver raises when an insert meets a unique key already used."""

    def __init__(self) -> None:
        self._signals = ChangeSignals()

    @abstractmethod
    async def _run(self, work: Work[T], kind: Kind = "read") -> T:
        """Run ``work`` on a connection; database outages become :class:`StoreUnavailable`."""

    @abstractmethod
    async def _commit(self, append: Append) -> AppendResult:
        """Write one append durably and wake its game's waiters.

        :raises VersionConflict: the game moved past ``append.expected_last_seq`` (or the request id was used).
        """

    @abstractmethod
    async def _prepare_wait(self) -> None:
        """Before a wait's first look: start hearing other writers' appends."""

    def _peek_last_seq(self, game_id: str) -> int | None:
        """The game's last seq if it can be known without a call to the database (None: it cannot)."""
        return None

    # The game log.

    def new_game_id(self, request_id: str | None) -> str:
        return uuid.uuid4().hex

    async def create_game(self, game: GameRecord, events: Sequence[NewEvent], request_id: str | None) -> GameRecord:
        try:
            return await self._run(lambda conn: self._create_game(conn, game, events, request_id), "transaction")
        except VersionConflict:
            # The same request may have been committed by a concurrent call (a retry racing the original).
            if request_id is not None:
                existing = await self._run(lambda conn: self._game_by_request(conn, request_id))
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
        try:
            append = Append(game_id, expected_last_seq, events, request_id, response, over, deadline_us)
            return await self._commit(append)
        except VersionConflict:
            # A retry of a request applied before (at this seq or an earlier one): its first answer.
            if request_id is not None:
                recorded = await self._run(lambda conn: self._recorded_append(conn, game_id, request_id))
                if recorded is not None:
                    return recorded
            raise

    async def find_response(self, game_id: str, request_id: str) -> bytes | None:
        recorded = await self._run(lambda conn: self._recorded_append(conn, game_id, request_id))
        return recorded.response if recorded is not None else None

    async def read(self, game_id: str, after_seq: int = 0) -> list[StoredEvent]:
        if after_seq and self._peek_last_seq(game_id) == after_seq:
            return []  # nothing new, and no call to the database to learn it
        return await self._run(lambda conn: self._read(conn, game_id, after_seq))

    async def get_game(self, game_id: str) -> GameRecord:
        return await self._run(lambda conn: self._get_game(conn, game_id))

    async def wait_for_change(
        self, game_id: str, after_seq: int, timeout: float, vouched: Callable[[], bool] | None = None
    ) -> int | None:
        # Hearing must start before the first look at the database, or an append between the two is missed.
        async with self._hearing(game_id):
            current = functools.partial(self._current_seq, game_id)
            return await wait_until_after(self._signals, game_id, after_seq, timeout, current, vouched)

    @contextlib.asynccontextmanager
    async def _hearing(self, game_id: str) -> AsyncIterator[None]:
        """For as long as a wait on the game lasts: hear other writers' appends to it (started before it yields)."""
        await self._prepare_wait()
        yield

    async def _current_seq(self, game_id: str) -> int:
        peeked = self._peek_last_seq(game_id)
        return peeked if peeked is not None else await self._run(lambda conn: self._last_seq(conn, game_id))

    def interrupt_waits(self) -> None:
        self._signals.interrupt()

    def on_append(self, heard: Callable[[str, int], None]) -> None:
        self._signals.on_append(heard)

    def hearing_epoch(self) -> int | None:
        return None

    # Seats.

    async def claim_seat(
        self,
        game_id: str,
        seat: int | None,
        token_hash: bytes,
        player_name: str,
        request_id: str | None,
        key_id: str = "",
        player: str = "",
    ) -> tuple[GameRecord, int]:
        check_token_hash(token_hash)
        return await self._run(
            lambda conn: self._claim_seat(conn, game_id, seat, token_hash, player_name, request_id, (key_id, player)),
            "transaction",
        )

    async def seat_bots(
        self, game_id: str, expected_last_seq: int, bots: Mapping[int, str], rules: bytes
    ) -> GameRecord:
        return await self._run(
            lambda conn: self._seat_bots(conn, game_id, expected_last_seq, bots, rules), "transaction"
        )

    async def set_seat_token(self, game_id: str, seat: int, token_hash: bytes) -> None:
        check_token_hash(token_hash)
        await self._run(lambda conn: self._set_seat_token(conn, game_id, seat, token_hash), "write")

    async def seat_for_token(self, game_id: str, token_hash: bytes) -> int | None:
        return await self._run(lambda conn: self._seat_for_token(conn, game_id, token_hash))

    async def touch_seats(self, sightings: Sequence[Sighting]) -> None:
        values = sql.sighting_values(sightings)
        await self._run(lambda conn: conn.run_many(self.S.touch_seat, values), "transaction")

    # The directory of games.

    async def list_open_games(
        self, page_size: int, after: str | None, viewer: str | None = None
    ) -> tuple[list[GameRecord], str | None]:
        check_page_size(page_size)
        key = decode_cursor(after) if after is not None else None
        query, parameters = sql.open_games_query(self.S, page_size + 1, key, viewer)
        rows = await self._run(lambda conn: conn.rows(query, parameters))
        return page_of(sql.games_from_rows(rows), page_size)

    async def count_unfinished_games(self, creator: str) -> int:
        rows = await self._run(lambda conn: conn.rows(self.S.count_unfinished, (creator,)))
        return int(rows[0][0]) if rows else 0

    async def link_next_game(self, game_id: str, next_game: str) -> str:
        return await self._run(lambda conn: self._link_next_game(conn, game_id, next_game), "transaction")

    async def close_abandoned(self, created_before: str) -> list[str]:
        parameters = (now_us(), created_before, SEAT_OPEN)
        rows = await self._run(lambda conn: conn.rows(self.S.close_abandoned, parameters), "transaction")
        return [str(row[0]) for row in rows]

    async def delete_games(self, ended_before_us: int, limit: int) -> list[str]:
        return await self._run(lambda conn: self._delete_games(conn, ended_before_us, limit), "transaction")

    # API keys.

    async def create_api_key(self, key: ApiKeyRecord) -> None:
        await self._run(lambda conn: self._create_api_key(conn, key), "write")

    async def api_key_by_hash(self, secret_hash: bytes) -> ApiKeyRecord | None:
        found = await self._run(lambda conn: self._keys(conn, self.S.key_by_hash, (secret_hash,)))
        return found[0] if found else None

    async def api_key_by_id(self, key_id: str) -> ApiKeyRecord | None:
        found = await self._run(lambda conn: self._keys(conn, self.S.key_by_id, (key_id,)))
        return found[0] if found else None

    async def list_api_keys(self) -> list[ApiKeyRecord]:
        return await self._run(lambda conn: self._keys(conn, "", ()))

    async def revoke_api_key(self, key_id: str, revoked_at: str) -> ApiKeyRecord:
        found = await self._run(lambda conn: self._revoke_api_key(conn, key_id, revoked_at), "transaction")
        if not found:
            raise ApiKeyNotFound(f"no API key {key_id!r}")
        return found[0]

    # Deadlines.

    async def set_deadline(self, game_id: str, last_seq: int, deadline_us: int | None) -> bool:
        parameters = (deadline_us, game_id, last_seq)
        return await self._run(lambda conn: conn.run(self.S.set_deadline, parameters), "write") == 1

    async def due_games(self, now_us: int, limit: int) -> tuple[list[str], int | None]:
        return await self._run(lambda conn: self._due_games(conn, now_us, limit))

    # The operations on a connection.

    async def _migrate(self, conn: Connection) -> None:
        """Apply the migrations the database lacks, in the caller's transaction: it holds the lock under which
        processes opening the database together apply each once (SQLite's write lock, a PostgreSQL advisory
        lock)."""
        await conn.run(self.S.create_schema_version)
        current = int((await conn.rows(self.S.schema_version))[0][0])
        for version, script in enumerate(self.migrations[current:], start=current + 1):
            for statement in filter(str.strip, script.split(";")):
                await conn.run(statement)
            await conn.run(self.S.add_schema_version, (version,))

    async def _write_append(self, conn: Connection, append: Append) -> AppendResult:
        """An append in standard SQL, inside a transaction that undoes what it wrote when it raises: two
        statements when it stands, three with a request id (a backend that can do it in one round trip writes
        its own: PostgreSQL). A request id met again is refused here and answered by :meth:`append`."""
        game_id, expected, events, last_seq, over = (
            append.game_id,
            append.expected_last_seq,
            append.events,
            append.last_seq,
            append.over,
        )
        deadline = None if over else append.deadline_us
        values = (last_seq, over, deadline, over, now_us(), game_id, expected)
        if await conn.run(self.S.advance_game, values) != 1:
            await self._last_seq(conn, game_id)
            raise VersionConflict(append.conflict())
        try:
            if append.request_id is not None:
                # Applied before at an earlier seq (its caller decided again on a newer state): refused only now.
                await conn.run(self.S.record_append, (game_id, append.request_id, append.response, last_seq))
            for chunk in range(0, len(events), EVENT_ROWS_PER_INSERT):
                rows = sql.event_values(game_id, expected + chunk, events[chunk : chunk + EVENT_ROWS_PER_INSERT])
                insert = _rows_insert(self.S.insert_event, self.S.event_row, len(rows))
                await conn.run(insert, [value for row in rows for value in row])
        except self.duplicate as exc:
            raise VersionConflict(append.conflict()) from exc
        return AppendResult(last_seq, append.response)

    async def _create_game(
        self, conn: Connection, game: GameRecord, events: Sequence[NewEvent], request_id: str | None
    ) -> GameRecord:
        if request_id is not None and (existing := await self._game_by_request(conn, request_id)) is not None:
            return existing
        try:
            await conn.run(self.S.insert_game, sql.game_values(game, len(events), request_id))
            await conn.run_many(self.S.insert_seats, sql.seat_values(game))
            if events:
                await conn.run_many(self.S.insert_event, sql.event_values(game.game_id, 0, events))
        except self.duplicate as exc:
            raise VersionConflict(f"game {game.game_id!r} already exists") from exc
        return await self._get_game(conn, game.game_id)

    async def _get_game(self, conn: Connection, game_id: str) -> GameRecord:
        rows = await conn.rows(self.S.game, (game_id,))
        if not rows:
            raise GameNotFound(f"no game {game_id!r}")
        return sql.games_from_rows(rows)[0]

    async def _game_by_request(self, conn: Connection, request_id: str) -> GameRecord | None:
        rows = await conn.rows(self.S.game_by_request, (request_id,))
        return await self._get_game(conn, rows[0][0]) if rows else None

    async def _last_seq(self, conn: Connection, game_id: str) -> int:
        """The game's last seq.

        :raises GameNotFound: no such game (what every operation that found nothing asks, to tell why).
        """
        rows = await conn.rows(self.S.last_seq, (game_id,))
        if not rows:
            raise GameNotFound(f"no game {game_id!r}")
        return int(rows[0][0])

    async def _recorded_append(self, conn: Connection, game_id: str, request_id: str) -> AppendResult | None:
        rows = await conn.rows(self.S.recorded_append, (game_id, request_id))
        return AppendResult(int(rows[0][0]), bytes(rows[0][1]), replayed=True) if rows else None

    async def _read(self, conn: Connection, game_id: str, after_seq: int) -> list[StoredEvent]:
        rows = await conn.rows(self.S.read_events, (game_id, after_seq))
        if not rows:
            await self._last_seq(conn, game_id)
        return sql.stored_events(game_id, rows)

    async def _claim_seat(
        self,
        conn: Connection,
        game_id: str,
        seat: int | None,
        token_hash: bytes,
        player_name: str,
        request_id: str | None,
        holder: tuple[str, str],
    ) -> tuple[GameRecord, int]:
        # The game's row locked (where the dialect locks rows): claims of one game run one after another, so
        # "lowest open seat" and the request-id check stay true until commit.
        if not await conn.rows(self.S.lock_game, (game_id,)):
            raise GameNotFound(f"no game {game_id!r}")
        if request_id is not None and (claimed := await conn.rows(self.S.claimed_seat, (game_id, request_id))):
            return await self._get_game(conn, game_id), int(claimed[0][0])
        chosen = choose_seat(await self._get_game(conn, game_id), seat)
        await conn.run(self.S.take_seat, sql.take_seat_values(game_id, chosen, token_hash, player_name, *holder))
        if request_id is not None:
            await conn.run(self.S.record_claim, (game_id, request_id, chosen))
        return await self._get_game(conn, game_id), chosen

    async def _seat_bots(
        self, conn: Connection, game_id: str, expected: int, bots: Mapping[int, str], rules: bytes
    ) -> GameRecord:
        # The game's row locked first, as a claim locks it: a claim and this run one after the other, so a seat
        # is either a friend's or a bot's, never both.
        if not await conn.rows(self.S.lock_game, (game_id,)):
            raise GameNotFound(f"no game {game_id!r}")
        if await conn.run(self.S.set_rules, (rules, game_id, expected)) != 1:
            raise VersionConflict(f"game {game_id!r} is over or moved past seq {expected}")
        now = now_us()
        for seat, bot in sorted(bots.items()):
            if await conn.run(self.S.seat_bot, (SEAT_BOT, bot, now, game_id, seat, SEAT_OPEN)) != 1:
                raise SeatUnavailable(f"seat {seat} of game {game_id!r} is not open")  # rolls back the rules too
        return await self._get_game(conn, game_id)

    async def _set_seat_token(self, conn: Connection, game_id: str, seat: int, token_hash: bytes) -> None:
        if await conn.run(self.S.set_seat_token, (token_hash, game_id, seat, SEAT_TAKEN)) != 1:
            await self._last_seq(conn, game_id)
            raise SeatUnavailable(f"seat {seat} of game {game_id!r} is not taken")

    async def _seat_for_token(self, conn: Connection, game_id: str, token_hash: bytes) -> int | None:
        rows = await conn.rows(self.S.seat_for_token, (game_id, SEAT_TAKEN, token_hash))
        if not rows:
            await self._last_seq(conn, game_id)
            return None
        return int(rows[0][0])

    async def _link_next_game(self, conn: Connection, game_id: str, next_game: str) -> str:
        await conn.run(self.S.link_next_game, (next_game, game_id))
        rows = await conn.rows(self.S.next_game, (game_id,))
        if not rows:
            raise GameNotFound(f"no game {game_id!r}")
        return str(rows[0][0])

    async def _delete_games(self, conn: Connection, ended_before_us: int, limit: int) -> list[str]:
        ids = [(str(row[0]),) for row in await conn.rows(self.S.ended_games, (ended_before_us, limit))]
        for statement in self.S.delete_game_rows:
            await conn.run_many(statement, ids)
        return [game_id for (game_id,) in ids]

    async def _create_api_key(self, conn: Connection, key: ApiKeyRecord) -> None:
        try:
            await conn.run(self.S.insert_key, sql.key_values(key))
        except self.duplicate as exc:
            raise VersionConflict(f"API key {key.key_id!r} already exists") from exc

    async def _keys(self, conn: Connection, where: str, parameters: tuple[object, ...]) -> list[ApiKeyRecord]:
        return sql.key_records(await conn.rows(self.S.keys.format(where=where), parameters))

    async def _revoke_api_key(self, conn: Connection, key_id: str, revoked_at: str) -> list[ApiKeyRecord]:
        await conn.run(self.S.revoke_key, (revoked_at, key_id))
        return await self._keys(conn, self.S.key_by_id, (key_id,))

    async def _due_games(self, conn: Connection, now: int, limit: int) -> tuple[list[str], int | None]:
        due = [str(row[0]) for row in await conn.rows(self.S.due_games, (now, limit))]
        following = await conn.rows(self.S.next_deadline, (now,))
        return due, (None if not following or following[0][0] is None else int(following[0][0]))


__all__ = ["Connection", "Kind", "SQLStore", "Work", "run_to_end"]
