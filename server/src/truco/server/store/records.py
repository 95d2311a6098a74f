"""The values an event store keeps and hands back, neutral of any backend.

A game is an append-only log of events numbered 1, 2, 3... (``seq``) plus a small mutable record (its seats,
its last seq, whether it is over). Backends (``sqlite.py``, ``postgres.py``) see only these values: event
payloads and setups are opaque bytes serialized by the service.
"""

from __future__ import annotations

import base64
import binascii
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from .errors import SeatUnavailable

SEAT_OPEN = "open"
SEAT_TAKEN = "taken"
SEAT_BOT = "bot"

Sighting = tuple[str, int, int]
"""A seat's player seen (presence): the game, the seat, and when, in microseconds since the Unix epoch."""


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
    player: str = ""  #: the player (its app's ``sub``) the seat was taken for with a player token; "" anonymous
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
    """What an append recorded: the game's new last seq and the response the service stored with it; or, for a
    request id applied before (``replayed``), what that first append recorded, this one having written nothing."""

    last_seq: int
    response: bytes
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class Append:
    """An append as a backend carries it from its public method to the statements that write it."""

    game_id: str
    expected_last_seq: int
    events: Sequence[NewEvent]
    request_id: str | None
    response: bytes
    over: bool
    deadline_us: int | None

    @property
    def last_seq(self) -> int:
        return self.expected_last_seq + len(self.events)

    def conflict(self) -> str:
        return f"game {self.game_id!r} has moved past seq {self.expected_last_seq}"


@dataclass(frozen=True, slots=True)
class ApiKeyRecord:
    """A client credential: the server keeps only the SHA-256 hash of the key's secret."""

    key_id: str  #: the public part, shown in listings and logs
    name: str  #: what the key is for (the third-party app's name)
    secret_hash: bytes  #: SHA-256 of the whole key as the client sends it
    created_at: str  #: ISO-8601 UTC
    revoked_at: str | None = None  #: ISO-8601 UTC once revoked; a revoked key is refused
    quotas: str = "{}"  #: the key's own app totals as JSON (``truco.server.core.app_quotas.AppQuotas``); {}: none


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


__all__ = [
    "SEAT_BOT",
    "SEAT_OPEN",
    "SEAT_TAKEN",
    "ApiKeyRecord",
    "Append",
    "AppendResult",
    "GameRecord",
    "NewEvent",
    "SeatRecord",
    "Sighting",
    "StoredEvent",
    "check_page_size",
    "check_token_hash",
    "choose_seat",
    "decode_cursor",
    "encode_cursor",
    "now_us",
    "page_of",
]


TICKET_WAITING = "waiting"
TICKET_MATCHED = "matched"
TICKET_EXPIRED = "expired"
TICKET_CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class SigningKeyRecord:
    """A key an app signs its player tokens with, named by its ``kid`` within the app (its API key's id)."""

    app: str
    kid: str
    algorithm: str  #: "HS256", "EdDSA" or "ES256"
    key: bytes  #: the HMAC secret, or the public key in PEM
    created_at: str
    revoked_at: str | None = None


@dataclass(frozen=True, slots=True)
class RatingRecord:
    """A player's OpenSkill rating at one table size, within its app."""

    app: str
    players: int  #: the table size
    player: str
    mu: float
    sigma: float
    matches: int = 0
    wins: int = 0

    @property
    def ordinal(self) -> float:
        """What a ranking sorts by: mu - 3 sigma."""
        return self.mu - 3.0 * self.sigma


@dataclass(frozen=True, slots=True)
class PlayerMatchRecord:
    """One finished game of a player, as its history lists it."""

    app: str
    player: str
    game_id: str
    players: int
    seat: int
    won: bool
    rated: bool
    ended_us: int
    scores: tuple[int, int]  #: the player's team's, then its rivals'
    seat_players: tuple[str, ...]  #: every seat's player ("" for a bot or an anonymous seat)
    mu: float = 0.0  #: the rating just after, when rated
    sigma: float = 0.0


@dataclass(frozen=True, slots=True)
class TicketRecord:
    """A quick-match ticket: a player of an app looking for a match of one rule set."""

    ticket_id: str
    app: str
    player: str
    display_name: str
    rules: str  #: the rule set wanted, as canonical text: tickets match only tickets of the same
    players: int  #: the table size
    party: tuple[str, ...]  #: every member of the ticket's party, the player included, sorted; () alone
    ordinal: float  #: the player's ordinal at this table size when the ticket opened
    opened_us: int
    expires_us: int
    bots_after_us: int | None  #: when bots may fill its free seats; None: never
    bot: str  #: the bot that fills free seats (a truco.bots name)
    state: str = TICKET_WAITING
    game_id: str = ""
    seat: int = -1
    request_id: str = ""
    seen_us: int = 0  #: when its stream last said it is alive
