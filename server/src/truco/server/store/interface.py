"""What the service needs from an event store, one protocol per concern; :class:`EventStore` is all of them.

Every write is atomic and durable when it returns. Retried writes carrying the same request id are answered from
what was recorded the first time. ``core.SQLStore`` implements every protocol once, each backend module only
how to reach its database; one contract suite (``tests/store/test_store_contract.py``) tests them all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from .records import (
    ApiKeyRecord,
    AppendResult,
    GameRecord,
    NewEvent,
    PlayerMatchRecord,
    RatingRecord,
    Sighting,
    SigningKeyRecord,
    StoredEvent,
    TicketRecord,
)


class GameLog(Protocol):
    """A game's log of events: creating it, appending to it, reading it, hearing of appends."""

    recheck_seconds: float
    """How long a :meth:`wait_for_change` waiter may sleep without a wake-up before it looks again: a change this
    store could fail to wake it for (a notification lost on a connection that died silently) is seen within it,
    plus how long the notifications vouched for the game, for a wait that skipped its first look on their word."""

    def new_game_id(self, request_id: str | None) -> str:
        """A fresh id for a game to create with ``request_id``: random, and on a sharded store naming the shard
        the game goes to, which for one request id is always the same (a retried create meets the first)."""
        ...

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

        A ``request_id`` already recorded for this game returns the recorded result (``replayed``) and appends
        nothing.

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

    async def wait_for_change(
        self, game_id: str, after_seq: int, timeout: float, vouched: Callable[[], bool] | None = None
    ) -> int | None:
        """Return once the game has an event with seq > ``after_seq`` (at once if it has), or after ``timeout``:
        the game's last seq as the wait learned it (a lower bound: newer events may follow), None when it did
        not learn one (the timeout, or the store stopping). The wait looks at the database before it sleeps,
        unless ``vouched()`` says that its notifications have heard every append since ``after_seq`` was the
        game's last (:meth:`hearing_epoch`).

        Appends by other store objects and other processes on the same database wake it too.

        :raises GameNotFound: no such game.
        """
        ...

    def interrupt_waits(self) -> None:
        """Make every :meth:`wait_for_change`, running or to come, return at once: the server is stopping, and
        its watchers must hear so without a task of their own waiting for it."""
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


class SeatBook(Protocol):
    """The seats of a game: claiming them, their tokens, their players' last calls."""

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
        """Turn an open seat (``None``: the lowest open one) into a taken one, under the API key ``key_id`` ("":
        none), for the app's ``player`` ("": anonymous); returns the game and the seat.

        A ``request_id`` already used to claim a seat in this game returns that seat again.

        :raises GameNotFound: no such game.
        :raises SeatUnavailable: the seat is not open, or no seat is, or the game is over.
        """
        ...

    async def seat_bots(
        self, game_id: str, expected_last_seq: int, bots: Mapping[int, str], rules: bytes
    ) -> GameRecord:
        """Give open seats to the server's bots (``bots``: seat to bot name) and store the game's setup that
        names them (``rules``), all or nothing, while the game is at ``expected_last_seq``: a table waiting for
        friends started with bots. Returns the game.

        :raises GameNotFound: no such game.
        :raises VersionConflict: the game is over or moved past ``expected_last_seq``: nothing written.
        :raises SeatUnavailable: one of the seats is not open (a friend took it): nothing written.
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

    async def touch_seats(self, sightings: Sequence[Sighting]) -> None:
        """Record when each seat's player was last seen (presence), all in one write; a sighting older than the
        one stored never moves it back."""
        ...


class GameDirectory(Protocol):
    """Games as a collection: listing the open ones, counting a creator's, linking rematches, closing the
    abandoned games and removing the old ones."""

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


class KeyRing(Protocol):
    """API keys: made, looked up, listed and revoked."""

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


class Deadlines(Protocol):
    """Each game's next turn-clock deadline, and the games whose deadline passed."""

    async def set_deadline(self, game_id: str, last_seq: int, deadline_us: int | None) -> bool:
        """Set the game's next deadline if its last seq is still ``last_seq``; False (nothing written) if not."""
        ...

    async def due_games(self, now_us: int, limit: int) -> tuple[list[str], int | None]:
        """Up to ``limit`` unfinished games whose deadline is at or before ``now_us`` (earliest first), and the
        earliest deadline after ``now_us`` (None if no game has one)."""
        ...


class PlayerBook(Protocol):
    """Players an app vouches for: its signing keys, its players' names, ratings and finished games."""

    async def add_signing_key(self, key: SigningKeyRecord) -> None:
        """Register an app's signing key.

        :raises VersionConflict: the app already has a key of this ``kid``.
        """
        ...

    async def signing_keys(self, app: str | None = None, kid: str | None = None) -> list[SigningKeyRecord]:
        """The signing keys of ``app`` (None: every app's), only the one of ``kid`` when given."""
        ...

    async def revoke_signing_key(self, app: str, kid: str, revoked_at: str) -> SigningKeyRecord | None:
        """Refuse the key from now on (a second revocation keeps the first time); None: no such key."""
        ...

    async def name_player(self, app: str, player: str, display_name: str) -> None:
        """Record (or update) the display name of an app's player."""
        ...

    async def player(self, app: str, player: str) -> tuple[str, list[RatingRecord]] | None:
        """An app's player's display name and ratings (by table size); None: never seen."""
        ...

    async def rating(self, app: str, players: int, player: str) -> RatingRecord | None:
        """A player's rating at a table size; None before its first rated match there."""
        ...

    async def leaderboard(
        self, app: str, players: int, offset: int, limit: int
    ) -> tuple[list[tuple[RatingRecord, str]], int]:
        """A page of the ranking (each rating with its player's display name), best first, and how many are
        ranked."""
        ...

    async def rank_of(self, rating: RatingRecord) -> int:
        """How many players of its app and table size rank before ``rating``'s (its rank is this plus one)."""
        ...

    async def player_matches(
        self, app: str, player: str, after: tuple[int, str] | None, limit: int
    ) -> list[PlayerMatchRecord]:
        """A player's finished games, newest first, after the (ended_us, game_id) of a page's last one."""
        ...

    async def unresulted_games(self, ended_from_us: int, limit: int) -> list[tuple[str, int]]:
        """Finished games with a player's seat, ended at ``ended_from_us`` or later, not counted yet, in the order
        they ended: each game's id and when it ended."""
        ...

    async def record_result(
        self,
        game_id: str,
        app: str,
        ended_us: int,
        matches: Sequence[PlayerMatchRecord],
        ratings: Sequence[RatingRecord],
    ) -> bool:
        """Count a finished game once: its players' history rows and their new ratings, with the mark that it was
        counted, in one transaction. False (and nothing written) when it was counted before."""
        ...

    async def clear_results(self) -> None:
        """Forget every rating, history row and mark (ratings are then rebuilt from the event log)."""
        ...


class TicketBook(Protocol):
    """Quick-match tickets, and the lease that lets one matcher run at a time."""

    async def open_ticket(self, ticket: TicketRecord) -> None:
        """Store a new waiting ticket.

        :raises TicketAlreadyOpen: the player has another waiting ticket.
        """
        ...

    async def tickets(
        self,
        *,
        ticket_id: str | None = None,
        player: tuple[str, str] | None = None,
        request_id: str | None = None,
        waiting: bool = False,
    ) -> list[TicketRecord]:
        """Tickets, oldest first: one by id, an (app, player)'s (with ``request_id``: of that request), or every
        waiting one."""
        ...

    async def end_ticket(self, ticket_id: str, state: str) -> bool:
        """Move a waiting ticket to ``state`` (expired, cancelled); False when it was no longer waiting."""
        ...

    async def match_tickets(self, game_id: str, seats: Sequence[tuple[str, int]]) -> bool:
        """Match every ticket of ``seats`` (ticket, seat) to the game, all or none: False, and nothing changed,
        when one of them is no longer waiting."""
        ...

    async def touch_ticket(self, ticket_id: str, seen_us: int, follower: int | None = None) -> bool:
        """Note that a stream follows the waiting ticket, alive at ``seen_us``, which becomes that stream's mark.
        ``follower`` None: a stream takes the ticket over (``seen_us`` only moves forward; False when the ticket is
        no longer waiting); else the heartbeat of the stream whose mark it is: False, and nothing changed, when
        another stream has touched the ticket since."""
        ...

    async def drop_ticket(self, ticket_id: str, follower: int) -> bool:
        """Cancel a waiting ticket whose stream ended, unless another stream touched it after that stream's mark
        ``follower`` (a client that lost its stream and opened another): whether it was cancelled."""
        ...

    async def forget_tickets(self, opened_before_us: int) -> int:
        """Delete the finished tickets opened before this time; how many."""
        ...

    async def take_lease(self, name: str, holder: str, until_us: int, now_us: int) -> bool:
        """Hold the lease ``name`` until ``until_us`` if it is free, expired or already ``holder``'s."""
        ...

    async def release_lease(self, name: str, holder: str) -> bool:
        """Let go of the lease ``name`` if ``holder`` holds it (a replica stopping): another may take it at once."""
        ...


class EventStore(GameLog, SeatBook, GameDirectory, KeyRing, Deadlines, PlayerBook, TicketBook, Protocol):
    """Everything the service needs from a store, and its life: a health check and a close."""

    async def ping(self) -> None:
        """Check that the backend answers.

        :raises StoreUnavailable: it does not.
        """
        ...

    async def close(self) -> None:
        """Release connections and threads; the store must not be used afterwards."""
        ...


__all__ = ["Deadlines", "EventStore", "GameDirectory", "GameLog", "KeyRing", "SeatBook"]
