"""Who sits where: seat tokens to seats, which callers may see a game, when each seat got its player, and which
players are at the table. What the store says of seats, remembered where it never changes (a seat token's seat,
a game's owner) and looked up again where it may (an open seat, a player's last call).
"""

from __future__ import annotations

import asyncio
import contextlib
import traceback
from collections.abc import Callable, Iterator, Sequence

import structlog

from truco.server.core.auth import BEARER_HINT, token_hash
from truco.server.core.bounded import Bounded
from truco.server.core.keys import ApiKeys
from truco.server.core.reasons import ServiceFailure, ServiceReason
from truco.server.store.errors import GameNotFound, StoreRejected, StoreUnavailable
from truco.server.store.interface import EventStore
from truco.server.store.records import SEAT_BOT, SEAT_OPEN, SEAT_TAKEN, GameRecord, SeatRecord, now_us

SEAT_CACHE_ENTRIES = 50_000
"""Token-to-seat lookups and game owners remembered (least recently used forgotten first)."""
TIMES_ENTRIES = 8192
"""Games whose seats' join times are remembered, and (twice as many) seats whose last call is."""
SIGHTINGS_SECONDS = 1.0
"""How often the players seen are written to the store, all in one write (at most; a shorter presence window
writes more often). A write of its own per sighting was one fsynced transaction per seat every few seconds,
about one per move in human-paced play, queued on the same writer as the moves."""
MIN_SIGHTINGS_SECONDS = 0.05
"""However short the presence window, sightings are not written more often than this."""

Held = tuple[int, str]
"""A seat and the API key it was taken under ("" none)."""


def host(seats: Sequence[SeatRecord]) -> int | None:
    """The table's host: the player who sat down first (the lowest seat among equals); None before anyone sat.
    It alone may start a table waiting for friends with bots (``Games.start_with_bots``)."""
    taken = [(s.joined_us, s.seat) for s in seats if s.kind == SEAT_TAKEN]
    return min(taken)[1] if taken else None


def joined_times(seats: Sequence[SeatRecord]) -> dict[int, int]:
    """When each seat got its player (0: open); bots, and seats joined before clocks existed, count as joined."""
    return {s.seat: (s.joined_us or 1) if s.kind != SEAT_OPEN else 0 for s in seats}


class Seats:
    """The seats of every game, over the store."""

    @property
    def cache_size(self) -> int:
        """How many tokens' seats, and games' visibility, this process remembers."""
        return self._held.entries

    @cache_size.setter
    def cache_size(self, entries: int) -> None:
        self._held.entries = self._visibility.entries = entries

    def __init__(
        self,
        store: EventStore,
        keys: ApiKeys | None,
        presence_seconds: float,
        *,
        clock: Callable[[], int] = now_us,
    ) -> None:
        self.store = store
        self.keys = keys
        """Checks that the key a seat was taken under still holds (None: seats are never tied to keys)."""
        self._clock = clock
        """Microseconds since the epoch, as the store stamps joins and sightings (tests move it on)."""
        self.presence_us = round(presence_seconds * 1_000_000)
        self._held: Bounded[tuple[str, bytes], Held] = Bounded(SEAT_CACHE_ENTRIES)
        self._visibility: Bounded[str, tuple[str, bool]] = Bounded(SEAT_CACHE_ENTRIES)
        self._joined: dict[str, dict[int, int]] = {}
        # When this process last saw each seat's player, and the sightings not yet written.
        self._touched: dict[tuple[str, int], int] = {}
        self._sightings: dict[tuple[str, int], int] = {}
        self._watched: dict[tuple[str, int], int] = {}  # open WatchGame streams per seat
        self._writer: asyncio.Task[None] | None = None

    async def of_token(self, game_id: str, token: str | None, *, required: bool) -> int | None:
        """The seat ``token`` holds in this game; None for a spectator (no token) when allowed. A seat taken
        under an API key holds only while the key does (revoked: API_KEY_REVOKED)."""
        if token is None:
            if required:
                raise ServiceFailure(ServiceReason.TOKEN_MISSING, BEARER_HINT)
            return None
        key = (game_id, token_hash(token))
        held = self._held.get(key)
        if held is None:
            record = await self.store.get_game(game_id)  # an unknown game is NOT_FOUND, not a bad token
            found = next((s for s in record.seats if s.kind == SEAT_TAKEN and s.token_hash == key[1]), None)
            if found is None:
                raise ServiceFailure(ServiceReason.TOKEN_NOT_FOR_GAME, "this token holds no seat in this game")
            held = (found.seat, found.key_id)
            self.remember(game_id, key[1], held)
        seat, key_id = held
        if key_id and self.keys is not None:
            await self.keys.check_active(key_id)
        return seat

    def remember(self, game_id: str, digest: bytes, held: Held) -> None:
        """A token's seat, as the store holds it. Seat tokens never change once issued (a join retry that cannot
        reproduce its token is refused), so a remembered seat stays true on every replica."""
        self._held.put((game_id, digest), held)

    async def require_visible(self, game_id: str, viewer: str) -> None:
        """A private game is seen, watched and joined only through the API key that created it (``viewer``: the
        caller's key id, "" without one); a public game by anyone. Everyone else is told there is no such game,
        as if it did not exist.

        :raises GameNotFound: no such game, or not one ``viewer`` may see.
        """
        known = self._visibility.get(game_id)
        if known is None:
            record = await self.store.get_game(game_id)
            known = (record.owner, record.public)  # neither ever changes
            self._visibility.put(game_id, known)
        owner, public = known
        if not public and owner != viewer:
            raise GameNotFound(f"no game {game_id!r}")

    async def require_app(self, game_id: str, app: str) -> None:
        """A player token acts only in its own app's games (the games its app's API key created).

        :raises ServiceFailure: PLAYER_TOKEN_WRONG_APP.
        :raises GameNotFound: no such game.
        """
        known = self._visibility.get(game_id)
        if known is None:
            record = await self.store.get_game(game_id)
            known = (record.owner, record.public)
            self._visibility.put(game_id, known)
        if known[0] != app:
            raise ServiceFailure(ServiceReason.PLAYER_TOKEN_WRONG_APP, "a player token acts only in its app's games")

    async def joined(self, game_id: str, waiting: Sequence[int] = ()) -> dict[int, int]:
        """When each seat got its player (0: open), from a cache read again while a seat looks open and the
        match waits for ``waiting`` seats (a seat once taken stays taken: a full table is never read again)."""
        known = self._joined.get(game_id)
        if known is None or (waiting and min(known.values(), default=0) == 0):
            if len(self._joined) > TIMES_ENTRIES:
                self._joined.clear()
            known = self.note_joined(game_id, (await self.store.get_game(game_id)).seats)
        return known

    def joined_now(self, game_id: str) -> dict[int, int]:
        """The join times known without asking the store (empty: none known)."""
        return self._joined.get(game_id, {})

    def note_joined(self, game_id: str, seats: Sequence[SeatRecord]) -> dict[int, int]:
        """The seats as the store just returned them: when each got its player."""
        times = self._joined[game_id] = joined_times(seats)
        return times

    def seen(self, game_id: str, seat: int) -> None:
        """The seat's player called: record its presence (a few sightings per presence window, written with the
        others by :meth:`write_sightings`)."""
        now = self._clock()
        key = (game_id, seat)
        if now - self._touched.get(key, 0) >= self.presence_us // 4:
            self._sight(key, now)

    def last_seen(self, game_id: str, seat: int) -> int:
        """When this process last recorded the seat's player (microseconds; 0: not lately)."""
        return self._touched.get((game_id, seat), 0)

    @contextlib.contextmanager
    def watching(self, game_id: str, seat: int) -> Iterator[None]:
        """An open WatchGame stream of the seat's player, who is present for as long as it lasts: this replica
        says so at once, and the writer records a sighting of it a few times per presence window, so the
        stream itself never has to wake up to keep its player present. Its end is its player's last sighting."""
        key = (game_id, seat)
        self._watched[key] = self._watched.get(key, 0) + 1
        self.seen(game_id, seat)
        try:
            yield
        finally:
            left = self._watched.pop(key) - 1
            if left:
                self._watched[key] = left
            self._sight(key, self._clock())

    def _sight(self, key: tuple[str, int], at: int) -> None:
        if len(self._touched) > 2 * TIMES_ENTRIES:
            self._touched.clear()
        if len(self._sightings) > 2 * TIMES_ENTRIES:
            self._sightings.clear()  # the store is down this long: presence is what the next sightings say
        self._touched[key] = at
        self._sightings[key] = at

    async def write_sightings(self) -> None:
        """Write the sightings recorded since the last write, in one store call (kept for the next on failure)."""
        if not self._sightings:
            return
        sightings, self._sightings = self._sightings, {}
        try:
            # In one order (game, seat), so that two replicas' writes never wait for each other's rows.
            await self.store.touch_seats([(game_id, seat, at) for (game_id, seat), at in sorted(sightings.items())])
        except StoreRejected:
            raise  # the same rows would be refused again: these sightings are dropped
        except BaseException:
            for key, at in sightings.items():
                self._sightings[key] = max(at, self._sightings.get(key, 0))
            raise

    def start(self) -> None:
        """Write the sightings every :data:`SIGHTINGS_SECONDS` (in the running event loop)."""
        if self._writer is None:
            self._writer = asyncio.create_task(self._write_every(), name="truco-sightings")

    async def close(self) -> None:
        """Stop writing sightings, after a last write of those not written yet (if the store takes it)."""
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        try:
            await self.write_sightings()
        except Exception as error:  # presence is not worth a failed shutdown
            structlog.get_logger("truco.server").warning("last sightings not written", error=repr(error))

    async def _write_every(self) -> None:
        interval = max(MIN_SIGHTINGS_SECONDS, min(SIGHTINGS_SECONDS, self.presence_us / 8_000_000))
        while True:
            await asyncio.sleep(interval)
            for game_id, seat in self._watched:
                self.seen(game_id, seat)
            try:
                await self.write_sightings()
            except StoreUnavailable as error:  # kept, and written with the next ones
                structlog.get_logger("truco.server").warning("sightings not written", error=str(error))
            except Exception as error:  # a bug or a refused row: never the end of presence for this process
                structlog.get_logger("truco.server").error(
                    "sightings not written",
                    error=repr(error),
                    traceback="".join(traceback.format_exception(error)),
                )

    def present(self, record: GameRecord) -> dict[int, bool]:
        """Which seats' players are at the table: a bot always; a player seen within the presence window (an
        open WatchGame stream keeps it seen) by any replica, or by this one since its last write; never an open
        seat."""
        now = self._clock()
        touched, watched = self._touched, self._watched
        return {
            s.seat: s.kind == SEAT_BOT
            or (
                s.kind == SEAT_TAKEN
                and (
                    (record.game_id, s.seat) in watched
                    or now - max(s.seen_us, touched.get((record.game_id, s.seat), 0)) <= self.presence_us
                )
            )
            for s in record.seats
        }


__all__ = ["SEAT_CACHE_ENTRIES", "Seats", "host", "joined_times"]
