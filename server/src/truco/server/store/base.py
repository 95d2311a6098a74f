"""The event store's interface: the values it keeps, its typed errors and the :class:`EventStore` protocol.

A game is an append-only log of events numbered 1, 2, 3... (``seq``) plus a small mutable record (its seats,
its last seq, whether it is over). Backends (``sqlite.py``, ``postgres.py``) see only these neutral values:
event payloads and rules are opaque bytes serialized by the service.

Every write is atomic and durable when it returns. Conflicting writes fail on the unique (game id, seq) key and
surface as one typed error, :class:`VersionConflict`; retried writes carrying the same request id are answered
from what was recorded the first time.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

SEAT_OPEN = "open"
SEAT_TAKEN = "taken"
SEAT_BOT = "bot"


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event about to be appended; the store gives it its seq."""

    kind: str  #: the event's type name, past tense (``CardPlayed``)
    schema: int  #: version of the payload's layout, so old events can still be read
    payload: bytes  #: the serialized event
    audience: int | None  #: None: everyone may see it; 0 or 1: only that team (a seña)
    at_us: int = 0  #: when the server appended it, in microseconds since the Unix epoch (0: unknown)


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as recorded: its game and its position ``seq`` (1, 2, 3... with no gaps) in that game's log."""

    game_id: str
    seq: int
    kind: str
    schema: int
    payload: bytes
    audience: int | None
    at_us: int = 0  #: when it was appended (microseconds since the epoch; 0 for events stored before clocks)


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """One seat at the table."""

    seat: int  #: 0-based seat number
    kind: str  #: "open" (anyone may claim it), "taken" (a player holds it) or "bot"
    bot: str  #: the bot's name ("random", "heuristic") for a bot seat, else ""
    player_name: str  #: the name shown at the table
    token_hash: bytes  #: hash of the player's secret token when taken, else b""
    key_id: str = ""  #: the API key the seat was taken under ("" anonymous): its token dies with the key
    # Times, left out of comparisons: two records of one seat are equal whenever they were read.
    joined_us: int = field(default=0, compare=False)  #: when a player took it (microseconds since the epoch)
    seen_us: int = field(default=0, compare=False)  #: when its player last called or watched (microseconds)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A game's mutable record, kept beside its event log."""

    game_id: str
    created_at: str  #: ISO-8601 UTC, always in one format, so text order is time order
    rules: bytes  #: the serialized rule set, opaque to the store
    players: int
    seats: tuple[SeatRecord, ...]
    last_seq: int  #: seq of the game's last event; 0 for an empty log
    over: bool  #: finished, or closed
    owner: str = ""  #: the id of the API key that created it; "" for a game created anonymously
    creator: str = ""  #: who is charged for it in quotas: ``key:<id>`` or ``peer:<address>``
    public: bool = False  #: listed to every caller in the lobby, not only to its owner
    closed: bool = False  #: closed unplayed (no seat was joined in time); ``over`` is true too
    previous_game: str = ""  #: id of the game this one is the rematch of
    next_game: str = ""  #: id of this game's rematch
    deadline_us: int | None = None  #: when the referee must act next (a turn clock runs out), if ever

    @property
    def open(self) -> bool:
        """True while the game is not over and some seat is still waiting for a player."""
        return not self.over and any(seat.kind == SEAT_OPEN for seat in self.seats)


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What an append recorded: the game's new last seq and the response the service stored with it."""

    last_seq: int
    response: bytes


@dataclass(frozen=True, slots=True)
class ApiKeyRecord:
    """A client credential: the server keeps only the SHA-256 hash of the key's secret."""

    key_id: str  #: the public part, shown in listings and logs
    name: str  #: what the key is for (the third-party app's name)
    secret_hash: bytes  #: SHA-256 of the whole key as the client sends it
    created_at: str  #: ISO-8601 UTC
    revoked_at: str | None = None  #: ISO-8601 UTC once revoked; a revoked key is refused
    quotas: str = "{}"  #: the key's own app totals as JSON (``truco.server.app_quotas.AppQuotas``); {}: none


class StoreError(Exception):
    """Base of the store's errors."""


class StoreRejected(StoreError):
    """The backend refuses a value for good (too long for an index, a NUL byte in text): retrying cannot help."""


class ApiKeyNotFound(StoreError):
    """No API key has this id."""


class GameNotFound(StoreError):
    """No game has this id."""


class VersionConflict(StoreError):
    """Another writer got there first: the expected last seq is stale (or the game id is already used)."""


class SeatUnavailable(StoreError):
    """The seat asked for is not open (taken, a bot, not at this table), or no seat is open at all."""


class StoreUnavailable(StoreError):
    """The backend cannot be reached or cannot write now (connection refused, disk error, store closed)."""


class EventStore(Protocol):
    """What the service needs from a store. Each backend module implements it; one contract suite tests all."""

    async def create_game(self, game: GameRecord, events: Sequence[NewEvent], request_id: str | None) -> GameRecord:
        """Store a new game and its first events (seq 1..n) in one transaction; ``game.last_seq`` is ignored.

        A ``request_id`` already used to create a game returns that game as it is now, and writes nothing.

        :raises VersionConflict: the game id is already used by another request.
        """
        ...

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
        """Append events after ``expected_last_seq``, record ``response`` under ``request_id``, set ``over``
        and the game's next ``deadline_us`` (None: none); the first append with ``over`` stamps the end time.

        A ``request_id`` already recorded for this game returns the recorded result and appends nothing.

        :raises GameNotFound: no such game.
        :raises VersionConflict: the game's last seq is not ``expected_last_seq``; nothing was written.
        """
        ...

    async def find_response(self, game_id: str, request_id: str) -> bytes | None:
        """The response recorded by the append made with this request id in this game, or None if none was."""
        ...

    async def read(self, game_id: str, after_seq: int = 0) -> list[StoredEvent]:
        """The game's events with seq > ``after_seq``, in order.

        :raises GameNotFound: no such game.
        """
        ...

    async def get_game(self, game_id: str) -> GameRecord:
        """The game's record.

        :raises GameNotFound: no such game.
        """
        ...

    async def claim_seat(
        self,
        game_id: str,
        seat: int | None,
        token_hash: bytes,
        player_name: str,
        request_id: str | None,
        key_id: str = "",
    ) -> tuple[GameRecord, int]:
        """Turn an open seat (``None``: the lowest open one) into a taken one, under the API key ``key_id`` ("":
        none); returns the game and the seat.

        A ``request_id`` already used to claim a seat in this game returns that seat again.

        :raises GameNotFound: no such game.
        :raises SeatUnavailable: the seat is not open, or no seat is, or the game is over.
        """
        ...

    async def set_seat_token(self, game_id: str, seat: int, token_hash: bytes) -> None:
        """Replace the token hash of a taken seat (a retried join hands out a fresh token).

        :raises GameNotFound: no such game.
        :raises SeatUnavailable: the seat is not a taken one.
        """
        ...

    async def seat_for_token(self, game_id: str, token_hash: bytes) -> int | None:
        """The seat taken with this token hash, or None.

        :raises GameNotFound: no such game.
        """
        ...

    async def list_open_games(
        self, page_size: int, after: str | None, viewer: str | None = None
    ) -> tuple[list[GameRecord], str | None]:
        """One page of open games, newest first, and the cursor of the next page (None on the last page).

        With a ``viewer`` (an API key id, or "" for anonymous callers) only the games it owns and the public
        ones; with None, every open game.

        :raises ValueError: ``page_size`` < 1 or ``after`` is not a cursor this store returned.
        """
        ...

    async def count_unfinished_games(self, creator: str) -> int:
        """How many games charged to ``creator`` are not over (the open-games quota)."""
        ...

    async def create_api_key(self, key: ApiKeyRecord) -> None:
        """Store a new API key.

        :raises VersionConflict: the key id is already used.
        """
        ...

    async def api_key_by_hash(self, secret_hash: bytes) -> ApiKeyRecord | None:
        """The key whose secret hashes to ``secret_hash`` (revoked or not), or None."""
        ...

    async def api_key_by_id(self, key_id: str) -> ApiKeyRecord | None:
        """The key with this id (revoked or not), or None."""
        ...

    async def list_api_keys(self) -> list[ApiKeyRecord]:
        """Every key, oldest first."""
        ...

    async def revoke_api_key(self, key_id: str, revoked_at: str) -> ApiKeyRecord:
        """Mark a key revoked (a key revoked before keeps its first revocation time); returns it.

        :raises ApiKeyNotFound: no such key.
        """
        ...

    async def wait_for_change(self, game_id: str, after_seq: int, timeout: float) -> None:
        """Return once the game has an event with seq > ``after_seq`` (at once if it has), or after ``timeout``.

        Appends by other store objects and other processes on the same database wake it too.

        :raises GameNotFound: no such game.
        """
        ...

    def on_append(self, heard: Callable[[str, int], None]) -> None:
        """Call ``heard(game_id, last_seq)`` for each append this store hears of, by any replica, as it hears it.

        The cue for a cache that its copy of a game is stale; see :meth:`hearing_epoch` for when silence counts.
        """
        ...

    def hearing_epoch(self) -> int | None:
        """A number that stays the same for as long as this store hears every append, by any replica, without a
        gap; None while it cannot (never, for a store without change notifications).

        A cached game checked against the store while the epoch was E, and since then heard of no newer append,
        is current for as long as the epoch is still E: a reader may then answer from it without a store read.
        """
        ...

    async def set_deadline(self, game_id: str, last_seq: int, deadline_us: int | None) -> bool:
        """Set the game's next deadline if its last seq is still ``last_seq``; False (nothing written) if not."""
        ...

    async def due_games(self, now_us: int, limit: int) -> tuple[list[str], int | None]:
        """Up to ``limit`` unfinished games whose deadline is at or before ``now_us`` (earliest first), and the
        earliest deadline after ``now_us`` (None if no game has one)."""
        ...

    async def touch_seat(self, game_id: str, seat: int, at_us: int) -> None:
        """Record that the seat's player was seen at ``at_us`` (presence)."""
        ...

    async def link_next_game(self, game_id: str, next_game: str) -> str:
        """Name ``next_game`` as the game's rematch unless one is named already; the rematch named now."""
        ...

    async def close_abandoned(self, created_before: str) -> list[str]:
        """Close the unfinished games created before ``created_before`` (a ``created_at`` string) in which
        some seat is still open (their table never filled, so their match never started): they become over and
        closed, and are never listed. Returns their ids."""
        ...

    async def delete_games(self, ended_before_us: int, limit: int) -> list[str]:
        """Remove up to ``limit`` over (finished or closed) games that ended before ``ended_before_us``, with
        their events, seats and recorded requests. A game that is not over is never removed. Their ids."""
        ...

    async def ping(self) -> None:
        """Check that the backend answers.

        :raises StoreUnavailable: it does not.
        """
        ...

    async def close(self) -> None:
        """Release connections and threads; the store must not be used afterwards."""
        ...


async def open_store(url: str) -> EventStore:
    """Open (creating or migrating its schema) the store a URL names.

    ``sqlite:///relative/path.db``, ``sqlite:////absolute/path.db`` (three slashes, then the path, as in
    SQLAlchemy), ``sqlite:///:memory:`` (one store object only), or ``postgresql://...`` / ``postgres://...``.

    :raises ValueError: the URL's scheme is not one of these.
    :raises StoreUnavailable: an SQLite file cannot be opened.
    """
    # Backends are imported here so that neither import costs anything (or fails) for the other's users.
    scheme, sep, _ = url.partition("://")
    if sep and scheme == "sqlite":
        from .sqlite import SQLiteStore

        return await SQLiteStore.open(sqlite_path(url))
    if sep and scheme in ("postgresql", "postgres"):
        from .postgres import PostgresStore

        return await PostgresStore.open(url)
    raise ValueError(f"unknown event store URL {url!r}: expected sqlite:///PATH, postgresql://... or postgres://...")


def sqlite_path(url: str) -> str:
    """The file path of a ``sqlite:///PATH`` URL (``:memory:`` for an in-memory database)."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or len(url) == len(prefix):
        raise ValueError(f"bad SQLite URL {url!r}: expected sqlite:///relative/path.db or sqlite:////absolute/path.db")
    return url[len(prefix) :]


# Helpers shared by the backends.


def encode_cursor(game: GameRecord) -> str:
    """A page cursor: the sort key of the last game shown, opaque to callers."""
    key = json.dumps([game.created_at, game.game_id], separators=(",", ":"))
    return base64.urlsafe_b64encode(key.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[str, str]:
    """The (created_at, game_id) key inside a cursor from :func:`encode_cursor`.

    :raises ValueError: the cursor was not made by :func:`encode_cursor`.
    """
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created_at, game_id = json.loads(raw)
    except (binascii.Error, UnicodeDecodeError, ValueError, TypeError, RecursionError) as exc:
        raise ValueError(f"invalid page cursor {cursor!r}") from exc
    if not isinstance(created_at, str) or not isinstance(game_id, str):
        raise ValueError(f"invalid page cursor {cursor!r}")
    return created_at, game_id


def check_page_size(page_size: int) -> None:
    if page_size < 1:
        raise ValueError(f"page_size must be at least 1, got {page_size}")


GAME_COLUMNS = (
    "g.game_id, g.created_at, g.rules, g.players, g.last_seq, g.over, g.owner, g.creator, g.public, g.closed, "
    "g.previous_game, g.next_game, g.deadline_us, s.seat, s.kind, s.bot, s.player_name, s.token_hash, "
    "s.joined_us, s.seen_us, s.key_id"
)
"""The columns of a games-with-seats query (games ``g`` left-joined with seats ``s``), as :data:`GameRow`."""

#: One row of a games-with-seats query: the game's columns, then one seat's (None for a game with no seats).
GameRow = tuple[Any, ...]
_GAME_FIELDS = 13


def games_from_rows(rows: Iterable[GameRow]) -> list[GameRecord]:
    """Group rows ordered by game then seat into records, keeping the games' order."""
    games: dict[str, tuple[GameRow, list[SeatRecord]]] = {}
    for row in rows:
        _, seats = games.setdefault(row[0], (row, []))
        seat, kind, bot, player_name, token_hash, joined_us, seen_us, key_id = row[_GAME_FIELDS:]
        if seat is not None:
            seats.append(
                SeatRecord(
                    seat,
                    str(kind),
                    str(bot),
                    str(player_name),
                    bytes(token_hash or b""),
                    str(key_id or ""),
                    int(joined_us or 0),
                    int(seen_us or 0),
                )
            )
    return [
        GameRecord(
            game_id=row[0],
            created_at=row[1],
            rules=bytes(row[2]),
            players=row[3],
            seats=tuple(seats),
            last_seq=row[4],
            over=bool(row[5]),
            owner=row[6],
            creator=row[7],
            public=bool(row[8]),
            closed=bool(row[9]),
            previous_game=str(row[10] or ""),
            next_game=str(row[11] or ""),
            deadline_us=None if row[12] is None else int(row[12]),
        )
        for row, seats in games.values()
    ]


def now_us() -> int:
    """The wall clock in microseconds since the Unix epoch: the time stamped on events, seats and deadlines."""
    return time.time_ns() // 1000


def choose_seat(game: GameRecord, seat: int | None) -> int:
    """The seat a claim takes: the one asked for if it is open, else (``None``) the lowest open one.

    :raises SeatUnavailable: the game is over, or the seat asked for is not open, or no seat is.
    """
    if game.over:
        raise SeatUnavailable(f"game {game.game_id!r} is over")
    open_seats = [record.seat for record in game.seats if record.kind == SEAT_OPEN]
    if seat is None:
        if not open_seats:
            raise SeatUnavailable(f"game {game.game_id!r} has no open seat")
        return min(open_seats)
    if seat not in open_seats:
        raise SeatUnavailable(f"seat {seat} of game {game.game_id!r} is not open")
    return seat


def check_token_hash(token_hash: bytes) -> None:
    # b"" is the hash of seats nobody holds; a taken seat with it would be found by a caller with no token.
    if not token_hash:
        raise ValueError("token_hash must not be empty")


def page_of(games: list[GameRecord], page_size: int) -> tuple[list[GameRecord], str | None]:
    """Cut a query's ``page_size + 1`` games to a page; the extra game only tells that a next page exists."""
    if len(games) <= page_size:
        return games, None
    page = games[:page_size]
    return page, encode_cursor(page[-1])


class ChangeSignals:
    """Wake-ups for :meth:`EventStore.wait_for_change`, per game, fired by appends, notifications and polls,
    and the listeners of :meth:`EventStore.on_append`.

    Each watched game has one :class:`asyncio.Event`; firing sets it and starts a new one, so a waiter that
    took the event before checking the database cannot miss a change made after its check.
    """

    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}
        self._watchers: dict[str, int] = {}
        self._known_seq: dict[str, int] = {}
        self._heard: list[Callable[[str, int], None]] = []

    @property
    def watching(self) -> bool:
        return bool(self._watchers)

    @contextlib.contextmanager
    def watch(self, game_id: str) -> Iterator[None]:
        self._watchers[game_id] = self._watchers.get(game_id, 0) + 1
        try:
            yield
        finally:
            self._watchers[game_id] -= 1
            if not self._watchers[game_id]:
                # Forget unwatched games, or every game ever waited on would stay in memory.
                del self._watchers[game_id]
                self._events.pop(game_id, None)
                self._known_seq.pop(game_id, None)

    def current(self, game_id: str) -> asyncio.Event:
        return self._events.setdefault(game_id, asyncio.Event())

    def known_seq(self, game_id: str) -> int:
        """The highest seq a notification announced for a watched game (0 if none did)."""
        return self._known_seq.get(game_id, 0)

    def on_append(self, heard: Callable[[str, int], None]) -> None:
        """Call ``heard(game_id, last_seq)`` on every firing that names the seq, whether the game is watched or not."""
        self._heard.append(heard)

    def fire(self, game_id: str, last_seq: int | None = None) -> None:
        if last_seq is not None:
            for heard in self._heard:
                heard(game_id, last_seq)
        if game_id not in self._watchers:
            return
        if last_seq is not None:
            self._known_seq[game_id] = max(last_seq, self._known_seq.get(game_id, 0))
        event = self._events.pop(game_id, None)
        if event is not None:
            event.set()

    def fire_all(self) -> None:
        """Wake every waiter to look again (after a poll saw some change, or after notifications may be lost)."""
        events, self._events = self._events, {}
        for event in events.values():
            event.set()


async def wait_until_after(
    signals: ChangeSignals,
    game_id: str,
    after_seq: int,
    timeout: float,
    last_seq: Callable[[], Awaitable[int]],
) -> None:
    """The shared body of ``wait_for_change``: check, sleep until fired or timed out, check again."""
    deadline = time.monotonic() + timeout
    with signals.watch(game_id):
        while True:
            fired = signals.current(game_id)
            if signals.known_seq(game_id) > after_seq or await last_seq() > after_seq:
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            try:
                # asyncio.timeout, not wait_for: no task of its own to outlive a cancelled waiter.
                async with asyncio.timeout(remaining):
                    await fired.wait()
            except TimeoutError:
                return
