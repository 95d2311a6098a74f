"""The game application: matches live in the event store; this module loads, decides, drives and projects.

No state that matters stays in the process. A small cache of rebuilt states is keyed by the last event
sequence number and topped up from the store on every request, so a move costs the same late in a match as
early, and any replica can answer any request.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
import traceback
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

import structlog

from truco.engine import (
    MatchState,
    Phase,
    RuleViolation,
    SeatCommand,
    SeatView,
    SpectatorView,
    absence,
    audience,
    event_for,
    evolve,
    execute,
    execute_legal,
    seat_view,
    spectator_view,
    start_match,
)
from truco.engine import events as ev

from . import codec
from .auth import BEARER_HINT, TokenIssuer, token_hash
from .clocks import NO_CLOCKS, ClockBook, Clocks, ClockSettings
from .keys import ApiKeys
from .metrics import Metrics
from .reasons import ServiceFailure, ServiceReason
from .referee import Setup, bots_due, drive, thinker_due
from .store.base import (
    SEAT_BOT,
    SEAT_OPEN,
    SEAT_TAKEN,
    AppendResult,
    EventStore,
    GameNotFound,
    GameRecord,
    NewEvent,
    SeatRecord,
    StoredEvent,
    VersionConflict,
    decode_cursor,
    now_us,
)
from .thinking import Thinkers

APPEND_ATTEMPTS = 4
"""Tries of a move: one on the cached state, then on the store's, re-read after each append that lost a race."""
TRUST_SECONDS = 2.0
"""How long a check against the store vouches for a cached game on notifications alone. A notification
connection can die without an error for a while (a silent network fault); a reader then waits at most this long
for a move made on another replica."""
MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 20
MAX_PLAYER_NAME = 64
AUTOPLAY_PAUSE_SECONDS = 0.005
"""The autoplayer's shortest pause between two steps. It also pauses at least as long as the step took, so
matches between bots only get at most half of the process's time, whatever their number: callers keep the
rest."""
SEAT_CACHE_ENTRIES = 50_000
"""Token-to-seat lookups remembered (least recently used forgotten first)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A game's state rebuilt up to event ``seq``. Never mutated: newer events make a new snapshot."""

    setup: Setup
    seq: int
    state: MatchState
    events: tuple[ev.Event, ...]
    book: ClockBook = field(default_factory=ClockBook)


@dataclass(frozen=True, slots=True)
class Move:
    """A seat's command applied: ``events`` (the bot moves and deals it triggered included) took the game from
    public version ``version_before`` to ``state``. ``reply`` is the transport's answer, stored for replays."""

    game_id: str
    seat: int
    version_before: int
    events: tuple[ev.Event, ...]
    state: MatchState
    reply: bytes


@dataclass(frozen=True, slots=True)
class Replayed:
    """A request id applied before: ``reply`` is the answer stored then, given again unchanged."""

    reply: bytes


@dataclass(frozen=True, slots=True)
class Watched:
    """One event of a watch as the watcher may see it, the public version after it, and the views then."""

    event: ev.Event
    version: int
    seat: SeatView | None
    public: SpectatorView
    clocks: Clocks = NO_CLOCKS
    """The game's clocks, on the latest event of what was stored (earlier events carry none)."""


ReplyEncoder = Callable[[str, int, MatchState, Sequence[ev.Event], MatchState, Clocks], bytes]
"""The transport's encoding of the answer to a move: (game id, seat, state before, events, state after, the
clocks after)."""


class Games:
    """The operations of the game service over engine, referee and store values, free of gRPC and protobuf:
    the servicer converts requests and replies (truco.server.codec) and delegates here."""

    def __init__(
        self,
        store: EventStore,
        metrics: Metrics,
        encode_reply: ReplyEncoder,
        *,
        allow_fixed_deals: bool = False,
        cache_size: int = 2048,
        tokens: TokenIssuer | None = None,
        default_clock: ClockSettings | None = None,
        presence_seconds: float = 30.0,
        keys: ApiKeys | None = None,
    ) -> None:
        self.store = store
        self.keys = keys
        """Checks that the key a seat was taken under still holds (None: seats are never tied to keys)."""
        self.tokens = tokens or TokenIssuer()
        self.metrics = metrics
        self.encode_reply = encode_reply
        self.allow_fixed_deals = allow_fixed_deals
        self._cache: OrderedDict[str, Snapshot] = OrderedDict()
        self._cache_size = cache_size
        # What makes a cached snapshot current without a store read (see _vouched): when it was last checked
        # against the store, and the newest seq the store's notifications told of since. Kept only for games
        # cached or being loaded, so both stay as small as the cache.
        self._checked: dict[str, tuple[int, float]] = {}
        self._heard_seq: dict[str, int] = {}
        self._loading: dict[str, int] = {}
        store.on_append(self._on_append)
        self._seats: OrderedDict[tuple[str, bytes], tuple[int, str]] = OrderedDict()
        self._visibility: OrderedDict[str, tuple[str, bool]] = OrderedDict()
        self._seat_cache_size = SEAT_CACHE_ENTRIES
        self._autoplay_queue: asyncio.Queue[str] = asyncio.Queue()
        self._autoplay_scheduled: set[str] = set()
        self._autoplayer: asyncio.Task[None] | None = None
        self._bot_rng = random.Random(secrets.randbits(64))
        self._thinkers = Thinkers(seed=secrets.randbits(64))
        self._seat_moves = metrics.commands_applied.labels("seat")
        self._bot_moves = metrics.commands_applied.labels("bot")
        self._read_latency = metrics.store_latency.labels("read")
        self._append_latency = metrics.store_latency.labels("append")
        self.stopping = asyncio.Event()
        self.default_clock = default_clock
        """The clocks of games created without clock settings of their own (None: none)."""
        self.presence_us = round(presence_seconds * 1_000_000)
        self.on_deadline: Callable[[int], None] = lambda deadline_us: None
        """Called with the deadline after this server set a game's (the timekeeper's wake-up)."""
        self._joined: dict[str, dict[int, int]] = {}
        self._touched: dict[tuple[str, int], int] = {}

    # --- Loading ---------------------------------------------------------------------------------------------

    async def snapshot(self, game_id: str, min_version: int = 0) -> Snapshot:
        """The game's latest state: the cached snapshot topped up with the events stored since.

        With ``min_version`` (a public version the caller has seen), a cached snapshot at least that new which
        the store's notifications vouch for is returned as it is, without a store read.
        """
        cached = self._cache.get(game_id)
        if cached is not None and 0 < min_version <= cached.state.version and self._vouched(game_id, cached):
            self._cache.move_to_end(game_id)
            self._autoplay_if_due(game_id, cached)
            return cached
        # Taken before the read: notifications heard from here on are recorded against what the read returns.
        epoch, trusted_until = self.store.hearing_epoch(), time.monotonic() + TRUST_SECONDS
        self._loading[game_id] = self._loading.get(game_id, 0) + 1
        try:
            snapshot = await self._top_up(game_id, cached)
            if epoch is None:
                self._checked.pop(game_id, None)  # notifications may have been missed during this read
            else:
                self._checked[game_id] = (epoch, trusted_until)
        finally:
            # After _top_up cached the snapshot, so what was heard during the read stays recorded with it.
            self._loaded(game_id)
        self._autoplay_if_due(game_id, snapshot)
        return snapshot

    async def _top_up(self, game_id: str, cached: Snapshot | None) -> Snapshot:
        """``cached`` (or the game from its start) with the events stored after it, remembered in the cache."""
        if cached is None:
            record = await self.store.get_game(game_id)
            cached = Snapshot(codec.setup_from_bytes(record.rules), 0, MatchState(), ())
        stored = await self._timed_read(game_id, cached.seq)
        if not stored:
            self._remember(game_id, cached)
            return cached
        state = cached.state.copy()
        new_events: list[ev.Event] = []
        book = cached.book
        setup = cached.setup
        joined = await self.joined(game_id, (0,)) if setup.clock is not None else {}
        batch: list[ev.Event] = []
        for index, item in enumerate(stored):
            event = codec.decode_event(item.kind, item.schema, item.payload)
            evolve(state, event)
            new_events.append(event)
            batch.append(event)
            # One append shares one time: the clock book advances once per append, after its last event.
            if index + 1 == len(stored) or stored[index + 1].at_us != item.at_us:
                book = book.advance(item.at_us, batch, state, setup.playing(state), setup.clock, joined)
                batch = []
        snapshot = Snapshot(setup, stored[-1].seq, state, cached.events + tuple(new_events), book)
        self._remember(game_id, snapshot)
        return snapshot

    async def _timed_read(self, game_id: str, after_seq: int) -> list[StoredEvent]:
        started = time.perf_counter()
        try:
            return await self.store.read(game_id, after_seq)
        finally:
            self._read_latency.observe(time.perf_counter() - started)

    def _remember(self, game_id: str, snapshot: Snapshot) -> None:
        cached = self._cache.get(game_id)
        if cached is None or cached.seq <= snapshot.seq:  # a slower load never puts back an older state
            self._cache[game_id] = snapshot
        self._cache.move_to_end(game_id)
        while len(self._cache) > self._cache_size:
            dropped, _ = self._cache.popitem(last=False)
            self._forget_hearing(dropped)

    def _vouched(self, game_id: str, cached: Snapshot) -> bool:
        """Whether ``cached`` is the game's newest state as far as the store can tell without a read: it was
        checked against the store lately, the store has heard every append since without a gap, and none of
        them went past it."""
        checked = self._checked.get(game_id)
        return (
            checked is not None
            and checked[0] == self.store.hearing_epoch()
            and time.monotonic() < checked[1]
            and self._heard_seq.get(game_id, 0) <= cached.seq
        )

    def _on_append(self, game_id: str, last_seq: int) -> None:
        tracked = game_id in self._cache or game_id in self._loading
        if tracked and last_seq > self._heard_seq.get(game_id, 0):
            self._heard_seq[game_id] = last_seq

    def _loaded(self, game_id: str) -> None:
        left = self._loading.pop(game_id) - 1
        if left:
            self._loading[game_id] = left
        elif game_id not in self._cache:
            self._forget_hearing(game_id)

    def _forget_hearing(self, game_id: str) -> None:
        # Out of the cache and not loading, a game's notifications are no longer recorded: nothing may vouch
        # for it until it is checked against the store again.
        if game_id not in self._loading:
            self._checked.pop(game_id, None)
            self._heard_seq.pop(game_id, None)

    # --- Seats -------------------------------------------------------------------------------------------------

    async def caller_seat(self, game_id: str, token: str | None, *, required: bool) -> int | None:
        """The seat ``token`` holds in this game; None for a spectator (no token) when allowed. A seat taken
        under an API key holds only while the key does (revoked: API_KEY_REVOKED)."""
        if token is None:
            if required:
                raise ServiceFailure(ServiceReason.TOKEN_MISSING, BEARER_HINT)
            return None
        key = (game_id, token_hash(token))
        held = self._seats.get(key)
        if held is not None:
            self._seats.move_to_end(key)
        else:
            record = await self.store.get_game(game_id)  # an unknown game is NOT_FOUND, not a bad token
            found = next((s for s in record.seats if s.kind == SEAT_TAKEN and s.token_hash == key[1]), None)
            if found is None:
                raise ServiceFailure(ServiceReason.TOKEN_NOT_FOR_GAME, "this token holds no seat in this game")
            held = (found.seat, found.key_id)
            self._remember_seat(key, held)
        seat, key_id = held
        if key_id and self.keys is not None:
            await self.keys.check_active(key_id)
        return seat

    def _remember_seat(self, key: tuple[str, bytes], held: tuple[int, str]) -> None:
        # Seat tokens never change once issued (a join retry that cannot reproduce its token is refused), so a
        # remembered seat stays true on every replica; the cache is bounded, least recently used out first.
        self._seats[key] = held
        self._seats.move_to_end(key)
        while len(self._seats) > self._seat_cache_size:
            self._seats.popitem(last=False)

    async def require_visible(self, game_id: str, viewer: str) -> None:
        """A private game is seen, watched and joined only through the API key that created it (``viewer``: the
        caller's key id, "" without one); a public game by anyone. Everyone else is told there is no such game,
        as if it did not exist.

        :raises GameNotFound: no such game, or not one ``viewer`` may see.
        """
        known = self._visibility.get(game_id)
        if known is None:
            record = await self.store.get_game(game_id)
            known = self._visibility[game_id] = (record.owner, record.public)  # neither ever changes
            while len(self._visibility) > SEAT_CACHE_ENTRIES:
                self._visibility.popitem(last=False)
        owner, public = known
        if not public and owner != viewer:
            raise GameNotFound(f"no game {game_id!r}")

    # --- Operations --------------------------------------------------------------------------------------------

    async def create(
        self,
        setup: Setup,
        request_id: str | None,
        *,
        owner: str = "",
        creator: str = "",
        public: bool = False,
        default_clock: bool = False,
    ) -> tuple[GameRecord, Snapshot]:
        """A new game (or the one ``request_id`` created before): its record and its snapshot after the
        referee's first step of deals and bot moves (a match between bots only goes on in the autoplayer).
        ``owner`` is the creating API key's id ("" anonymous), ``creator`` whom quotas charge, ``public`` lists
        it to all; ``default_clock``: the request named no clocks, so the game gets the server's default."""
        if setup.fixed_deals and not self.allow_fixed_deals:
            raise ServiceFailure(
                ServiceReason.FIXED_DEALS_DISABLED, "scripted deals need a server started with --allow-fixed-deals"
            )
        if default_clock and setup.clock is None:
            setup = replace(setup, clock=self.default_clock)
        seats = tuple(
            SeatRecord(seat, SEAT_BOT, setup.bots[seat], "", b"")
            if seat in setup.bots
            else SeatRecord(seat, SEAT_OPEN, "", "", b"")
            for seat in range(setup.rules.players)
        )
        stored = await self._create(setup, seats, request_id, owner=owner, creator=creator, public=public)
        return stored, await self.snapshot(stored.game_id)  # snapshot() queues the autoplayer if due

    async def _create(
        self,
        setup: Setup,
        seats: tuple[SeatRecord, ...],
        request_id: str | None,
        *,
        owner: str,
        creator: str,
        public: bool,
        previous_game: str = "",
    ) -> GameRecord:
        """Store a new game with ``seats`` and its first events (the start, the deals, bot moves)."""
        state = MatchState()
        events = start_match(setup.rules)
        for event in events:
            evolve(state, event)
        automatic, bot_moves = drive(state, setup, self._bot_rng)
        events += automatic
        game_id = uuid.uuid4().hex
        at = now_us()
        joined = joined_times(seats)
        book = ClockBook().advance(at, events, state, setup.playing(state), setup.clock, joined)
        clock = book.running(setup.clock, joined)
        record = GameRecord(
            game_id=game_id,
            created_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),  # sortable, and distinct in practice
            rules=codec.setup_to_bytes(setup),
            players=setup.rules.players,
            seats=seats,
            last_seq=0,
            over=state.phase is Phase.MATCH_OVER,
            owner=owner,
            creator=creator,
            public=public,
            previous_game=previous_game,
            deadline_us=clock.deadline_us if clock is not None else None,
        )
        stored = await self.store.create_game(record, _records(events, at), request_id)
        if stored.game_id == game_id:
            # What the store now holds is what was just decided: cache it, and the new game costs no store read.
            setup = codec.setup_from_bytes(stored.rules)  # as a rebuild from the store would have it
            self._remember(game_id, Snapshot(setup, stored.last_seq, state, tuple(events), book))
            self._joined[game_id] = joined_times(stored.seats)
            self._bot_moves.inc(bot_moves)
            self.metrics.matches_started.inc()
            self.metrics.events_appended.inc(len(events))
            if state.phase is Phase.MATCH_OVER:
                self.metrics.matches_finished.inc()
            if clock is not None:
                self.on_deadline(clock.deadline_us)
        return stored

    async def join(
        self, game_id: str, seat: int | None, player_name: str, request_id: str | None, key_id: str = ""
    ) -> tuple[int, str, Snapshot]:
        """Take ``seat`` (None: any open seat) under the API key ``key_id`` ("": none), in a game that key may
        see (:meth:`require_visible`): the seat, its token and the game."""
        if len(player_name) > MAX_PLAYER_NAME:
            raise ServiceFailure(
                ServiceReason.PLAYER_NAME_TOO_LONG, f"player_name has at most {MAX_PLAYER_NAME} characters"
            )
        await self.require_visible(game_id, key_id)
        cached = self._cache.get(game_id)
        players = cached.setup.rules.players if cached is not None else (await self.store.get_game(game_id)).players
        if seat is not None and not 0 <= seat < players:
            raise ServiceFailure(ServiceReason.INVALID_SEAT, f"seat must be 0 to {players - 1}")
        token = self.tokens.for_join(game_id, request_id)
        digest = token_hash(token)
        claimed, taken = await self.store.claim_seat(game_id, seat, digest, player_name, request_id, key_id)
        if claimed.seats[taken].token_hash != digest:
            # A retry reached a process with another token key (a restart or a replica without the shared
            # TRUCO_TOKEN_KEY). Re-keying the seat would lock its holder out, and replicas that remember the old
            # token would still accept it: the seat keeps its token and the retry is refused.
            raise ServiceFailure(
                ServiceReason.JOIN_NOT_REPEATABLE,
                "this request id already took a seat, but this server cannot issue its token again (its token "
                "key changed: set the same TRUCO_TOKEN_KEY on every replica); the first token still holds the seat",
            )
        self._remember_seat((game_id, digest), (taken, claimed.seats[taken].key_id))
        self._joined[game_id] = joined_times(claimed.seats)
        snapshot = await self.snapshot(game_id)
        # Clocks run at a full table: the last join starts the clock of the decision the match waits for.
        clock = snapshot.book.running(snapshot.setup.clock, self._joined[game_id])
        if clock is not None and await self.store.set_deadline(game_id, snapshot.seq, clock.deadline_us):
            self.on_deadline(clock.deadline_us)
        return taken, token, snapshot

    async def submit(
        self, game_id: str, command: SeatCommand, expected_version: int, request_id: str | None
    ) -> Move | Replayed:
        """Apply ``command`` (and the bot moves and deals it triggers) if the game is at ``expected_version``
        (0: any). A ``request_id`` applied before gets the same answer again.

        :raises RuleViolation: for a move the rules refuse. :raises ServiceFailure: VERSION_CONFLICT.
        """
        seat = command.seat
        # Request ids are scoped to the seat: another seat replaying one must never receive this seat's view.
        scoped_id = f"{seat}:{request_id}" if request_id else None
        for attempt in range(APPEND_ATTEMPTS):
            # First try on the cached state: the append checks atomically that the store has no newer event,
            # so a move costs one store round trip. Any failure re-reads the store before it is believed.
            cached = self._cache.get(game_id) if attempt == 0 else None
            snapshot = cached or await self.snapshot(game_id)
            try:
                state, events, bot_moves = self._decide(snapshot, command, expected_version)
            except (ServiceFailure, RuleViolation):
                if cached is not None:
                    continue  # the cache may be behind another replica's moves
                # A retry of a request already applied fails against the newer state: answer as the first time.
                replay = await self.store.find_response(game_id, scoped_id) if scoped_id else None
                if replay is not None:
                    return Replayed(replay)
                raise
            version_before = snapshot.state.version
            at = now_us()
            book, deadline = await self._book_after(game_id, snapshot, at, events, state)
            clocks = book.clocks(state, snapshot.setup.clock, self._joined.get(game_id, {}))
            reply = self.encode_reply(game_id, seat, snapshot.state, events, state, clocks)
            try:
                result = await self._append(game_id, snapshot.seq, events, scoped_id, reply, state, at, deadline)
            except VersionConflict:
                if attempt + 1 == APPEND_ATTEMPTS:
                    raise ServiceFailure(
                        ServiceReason.VERSION_CONFLICT, "another move was accepted at the same time: retry"
                    ) from None
                continue
            if result.response != reply:  # our request id was applied by an earlier try
                return Replayed(result.response)
            self._seat_moves.inc()
            self._bot_moves.inc(bot_moves)
            after = Snapshot(snapshot.setup, result.last_seq, state, snapshot.events + tuple(events), book)
            self._remember(game_id, after)
            self._autoplay_if_due(game_id, after)
            return Move(game_id, seat, version_before, tuple(events), state, reply)
        raise AssertionError("unreachable")

    def _decide(
        self, snapshot: Snapshot, command: SeatCommand, expected_version: int
    ) -> tuple[MatchState, list[ev.Event], int]:
        """The state and events after ``command`` and the bot moves and deals it triggers (on a copy), and how
        many bot moves there were."""
        version = snapshot.state.version
        if expected_version and expected_version != version:
            raise ServiceFailure(
                ServiceReason.VERSION_CONFLICT,
                f"the game is at version {version}, not {expected_version}: re-read and retry",
                {"version": str(version)},
            )
        state = snapshot.state.copy()
        events = execute(state, command)
        automatic, bot_moves = drive(state, snapshot.setup, self._bot_rng)
        return state, events + automatic, bot_moves

    async def _append(
        self,
        game_id: str,
        expected_seq: int,
        events: Sequence[ev.Event],
        request_id: str | None,
        response: bytes,
        state: MatchState,
        at_us: int,
        deadline_us: int | None,
    ) -> AppendResult:
        started = time.perf_counter()
        over = state.phase is Phase.MATCH_OVER
        records = _records(events, at_us)
        try:
            result = await self.store.append(game_id, expected_seq, records, request_id, response, over, deadline_us)
        finally:
            self._append_latency.observe(time.perf_counter() - started)
        self.metrics.events_appended.inc(len(events))
        if over and any(isinstance(event, ev.MatchEnded) for event in events):
            self.metrics.matches_finished.inc()
        if deadline_us is not None:
            self.on_deadline(deadline_us)
        return result

    async def watch(
        self, game_id: str, seat: int | None, after_version: int, poll_seconds: float = 5.0
    ) -> AsyncIterator[Watched]:
        """Every event after public version ``after_version`` as ``seat`` may see it, then new ones as they are
        stored, until the match ends. :raises ServiceFailure: SERVER_SHUTTING_DOWN."""
        state = MatchState()
        sent = 0
        stored_at_start: int | None = None
        if self.presence_us:
            poll_seconds = min(poll_seconds, self.presence_us / 3_000_000)
        while True:
            if seat is not None:
                await self.seen(game_id, seat)  # an open stream keeps its seat present
            snapshot = await self.snapshot(game_id)
            if stored_at_start is None:
                stored_at_start = len(snapshot.events)
            batch: list[Watched] = []
            for event in snapshot.events[sent:]:
                evolve(state, event)
                sent += 1
                visible = event_for(event, seat, state.hand)  # the hand the event belongs to: proofs
                # A seña keeps the version of the event before it, so a resumed watch does not repeat one stored
                # before it started; one sent while it runs is new, whatever its version.
                if visible is None or (sent <= stored_at_start and state.version <= after_version):
                    continue
                view = seat_view(state, seat) if seat is not None else None
                batch.append(Watched(visible, state.version, view, spectator_view(state)))
            if batch:  # the clocks are the latest: the latest view gets them
                batch[-1] = replace(batch[-1], clocks=await self.clocks(game_id, snapshot))
            for watched in batch:
                yield watched
            if state.phase is Phase.MATCH_OVER:
                return
            if self.stopping.is_set():
                raise ServiceFailure(
                    ServiceReason.SERVER_SHUTTING_DOWN,
                    f"this server is shutting down: resume the watch from version {state.version}",
                    {"version": str(state.version)},
                )
            waiter = asyncio.ensure_future(self.store.wait_for_change(game_id, snapshot.seq, poll_seconds))
            stopper = asyncio.ensure_future(self.stopping.wait())
            try:
                await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                # Also when the stream ends here (the client went away): a stopper left pending would live
                # until the server stops, one per watch ever cancelled.
                for task in (waiter, stopper):
                    task.cancel()

    async def list_open(
        self, page_size: int, page_token: str, viewer: str | None = None
    ) -> tuple[list[tuple[GameRecord, Snapshot]], str]:
        """A page of games with an open seat that ``viewer`` may see (an API key's id, "" for anonymous callers:
        its own and the public ones; None: all), each with its state, and the next page's token ("" at the
        end)."""
        if page_size < 0:
            raise ServiceFailure(ServiceReason.INVALID_PAGE_SIZE, "page_size cannot be negative")
        size = min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        if page_token:
            try:
                decode_cursor(page_token)
            except ValueError:
                raise ServiceFailure(
                    ServiceReason.INVALID_PAGE_TOKEN, "page_token must be a next_page_token from ListGames"
                ) from None
        records, cursor = await self.store.list_open_games(size, page_token or None, viewer)
        return [(record, await self.snapshot(record.game_id)) for record in records], cursor or ""

    async def game(self, game_id: str) -> tuple[GameRecord, Snapshot]:
        """The game's record (seats, links, closed) and its latest snapshot."""
        record = await self.store.get_game(game_id)
        return record, await self.snapshot(game_id)

    def present(self, record: GameRecord) -> dict[int, bool]:
        """Which seats' players are at the table: a bot always; a player seen within the presence window (an
        open WatchGame stream keeps it seen); never an open seat."""
        now = now_us()
        return {
            s.seat: s.kind == SEAT_BOT or (s.kind == SEAT_TAKEN and now - s.seen_us <= self.presence_us)
            for s in record.seats
        }

    # --- Clocks, absent seats and rematches --------------------------------------------------------------------

    async def clocks(self, game_id: str, snapshot: Snapshot) -> Clocks:
        """The game's clocks at the snapshot, as views show them."""
        if snapshot.setup.clock is None and not snapshot.state.away:
            return NO_CLOCKS
        return snapshot.book.clocks(snapshot.state, snapshot.setup.clock, await self.joined(game_id))

    async def _book_after(
        self, game_id: str, snapshot: Snapshot, at: int, events: Sequence[ev.Event], state: MatchState
    ) -> tuple[ClockBook, int | None]:
        """The clock book after appending ``events`` at ``at``, and the game's next deadline."""
        setup = snapshot.setup
        if setup.clock is None:
            return snapshot.book, None
        joined = await self.joined(game_id, snapshot.book.waiting)
        book = snapshot.book.advance(at, events, state, setup.playing(state), setup.clock, joined)
        joined = await self.joined(game_id, book.waiting)
        clock = book.running(setup.clock, joined)
        return book, clock.deadline_us if clock is not None else None

    async def joined(self, game_id: str, seats: Sequence[int] = ()) -> dict[int, int]:
        """When each seat got its player (0: open), from a cache read again while a seat looks open and the
        match waits for ``seats`` (a seat once taken stays taken: a full table is never read again)."""
        known = self._joined.get(game_id)
        if known is None or (seats and min(known.values(), default=0) == 0):
            if len(self._joined) > 4 * self._cache_size:
                self._joined.clear()
            known = self._joined[game_id] = joined_times((await self.store.get_game(game_id)).seats)
        return known

    async def referee(
        self,
        game_id: str,
        decide: Callable[[MatchState], list[ev.Event]],
        snapshot: Snapshot | None = None,
    ) -> Snapshot:
        """Apply the events ``decide`` returns for the game's state (and the bot moves and deals they trigger)
        as one append guarded by the snapshot's seq; no events, no append.

        :raises VersionConflict: the game moved on since ``snapshot`` (given by the caller): nothing written.
        """
        given = snapshot is not None
        for _ in range(1 if given else APPEND_ATTEMPTS):
            current = snapshot if snapshot is not None else await self.snapshot(game_id)
            state = current.state.copy()
            events = decide(state)
            if not events:
                return current
            for event in events:
                evolve(state, event)
            automatic, bot_moves = drive(state, current.setup, self._bot_rng)
            events = events + automatic
            at = now_us()
            book, deadline = await self._book_after(game_id, current, at, events, state)
            try:
                result = await self._append(game_id, current.seq, events, None, b"", state, at, deadline)
            except VersionConflict:
                if given:
                    raise
                snapshot = None
                continue
            self._bot_moves.inc(bot_moves)
            fresh = Snapshot(current.setup, result.last_seq, state, current.events + tuple(events), book)
            self._remember(game_id, fresh)
            self._autoplay_if_due(game_id, fresh)  # every seat away: the bots play on, step by step
            return fresh
        raise ServiceFailure(ServiceReason.VERSION_CONFLICT, "the game kept moving: retry")

    async def fire_clock(self, game_id: str) -> bool:
        """Fire the game's clock if it ran out: True when this call's ClockExpired was the one applied."""
        snapshot = await self.snapshot(game_id)
        setup = snapshot.setup
        clock = snapshot.book.running(setup.clock, await self.joined(game_id, snapshot.book.waiting))
        if setup.clock is None or clock is None or clock.deadline_us > now_us():
            # The stored deadline is stale (a move raced it, or the match is over): store the right one.
            await self.store.set_deadline(game_id, snapshot.seq, clock.deadline_us if clock is not None else None)
            return False
        forfeit = setup.clock.forfeit
        try:
            await self.referee(
                game_id,
                lambda state: absence.expire_clock(state, clock.seats[0], clock.deadline_us, forfeit=forfeit),
                snapshot,
            )
        except VersionConflict:
            self.metrics.clock_firings.labels("lost").inc()
            return False
        self.metrics.clock_firings.labels("forfeit" if forfeit else "takeover").inc()
        return True

    async def leave(self, game_id: str, seat: int) -> Snapshot:
        """The seat's player leaves: a bot plays the seat until it resumes (nothing when already away)."""
        return await self.referee(game_id, lambda state: absence.leave(state, seat))

    async def resume(self, game_id: str, seat: int) -> Snapshot:
        """The seat's player takes it back from the bot (nothing when it was not taken over)."""
        return await self.referee(game_id, lambda state: absence.resume(state, seat))

    async def seen(self, game_id: str, seat: int) -> None:
        """The seat's player called: record its presence (at most a few writes per presence window)."""
        now = now_us()
        key = (game_id, seat)
        if now - self._touched.get(key, 0) < self.presence_us // 4:
            return
        if len(self._touched) > 8 * self._cache_size:
            self._touched.clear()
        self._touched[key] = now
        await self.store.touch_seat(game_id, seat, now)

    async def rematch(self, game_id: str) -> tuple[GameRecord, Snapshot]:
        """The next game of a finished one: the same setup (scripted deals aside) and seats, each player's
        token holding its seat there too; the games name each other. Every call gets the same next game.

        :raises ServiceFailure: GAME_NOT_FINISHED for a game in play or closed.
        """
        record = await self.store.get_game(game_id)
        if record.closed or not record.over:
            raise ServiceFailure(ServiceReason.GAME_NOT_FINISHED, "only a finished game has a rematch")
        if not record.next_game:
            old = codec.setup_from_bytes(record.rules)
            now = now_us()
            seats = tuple(replace(s, joined_us=now if s.kind == SEAT_TAKEN else 0, seen_us=0) for s in record.seats)
            # The request id makes concurrent rematches (and retries) create one game.
            created = await self._create(
                replace(old, fixed_deals=()),
                seats,
                f"rematch:{game_id}",
                owner=record.owner,
                creator=record.creator,
                public=record.public,
                previous_game=game_id,
            )
            await self.store.link_next_game(game_id, created.game_id)
            record = await self.store.get_game(game_id)
        return await self.game(record.next_game)

    # --- The autoplayer: bot-only stretches of a match, played in bounded steps --------------------------------

    def _autoplay_if_due(self, game_id: str, snapshot: Snapshot) -> None:
        """Queue the game for the autoplayer when it waits for bots (any replica that looks at it may play on:
        a game left half-played by a replica that stopped resumes as soon as someone watches or views it)."""
        if game_id in self._autoplay_scheduled or self.stopping.is_set():
            return
        if not bots_due(snapshot.state, snapshot.setup):
            return
        self._autoplay_scheduled.add(game_id)
        self._autoplay_queue.put_nowait(game_id)
        if self._autoplayer is None or self._autoplayer.done():
            self._autoplayer = asyncio.create_task(self._autoplay(), name="truco-autoplayer")

    async def _autoplay(self) -> None:
        """One step per queued game in turn (round robin), then a pause at least as long as the step."""
        while not self.stopping.is_set():
            game_id = await self._autoplay_queue.get()
            self._autoplay_scheduled.discard(game_id)
            started = time.perf_counter()
            try:
                await self.autoplay_step(game_id)
            except Exception as error:  # a store outage or a bug: the game resumes when it is next looked at
                structlog.get_logger("truco.server").error(
                    "autoplay step failed",
                    game=game_id,
                    error=repr(error),
                    traceback="".join(traceback.format_exception(error)),
                )
            await asyncio.sleep(max(AUTOPLAY_PAUSE_SECONDS, time.perf_counter() - started))

    async def autoplay_step(self, game_id: str) -> bool:
        """Play one step (referee.AUTOMATIC_MOVES_PER_STEP) of a game waiting for bots; True if it moved. Losing
        the append to another replica or to a seat's move is fine: the next look decides again."""
        snapshot = await self.snapshot(game_id)
        if not bots_due(snapshot.state, snapshot.setup):
            return False
        state = snapshot.state.copy()
        events: list[ev.Event] = []
        thinker = thinker_due(state, snapshot.setup)
        if thinker is not None:  # one move of a bot that thinks, asked off the event loop (thinking.py)
            events = execute_legal(state, await self._thinkers.decide(state, *thinker))  # one of its legal actions
        automatic, bot_moves = drive(state, snapshot.setup, self._bot_rng)
        events += automatic
        bot_moves += thinker is not None
        if not events:
            return False
        at = now_us()
        book, deadline = await self._book_after(game_id, snapshot, at, events, state)
        try:
            result = await self._append(game_id, snapshot.seq, events, None, b"", state, at, deadline)
        except VersionConflict:
            await self.snapshot(game_id)  # re-read; queues the game again if it still waits for bots
            return False
        self._bot_moves.inc(bot_moves)
        after = Snapshot(snapshot.setup, result.last_seq, state, snapshot.events + tuple(events), book)
        self._remember(game_id, after)
        self._autoplay_if_due(game_id, after)
        return True

    async def close(self) -> None:
        """Stop the autoplayer."""
        self.stopping.set()
        self._thinkers.close()
        if self._autoplayer is not None:
            self._autoplayer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._autoplayer


def joined_times(seats: Sequence[SeatRecord]) -> dict[int, int]:
    """When each seat got its player (0: open); bots, and seats joined before clocks existed, count as joined."""
    return {s.seat: (s.joined_us or 1) if s.kind != SEAT_OPEN else 0 for s in seats}


def _records(events: Sequence[ev.Event], at_us: int = 0) -> list[NewEvent]:
    """The events as the store keeps them, each with the engine's :func:`~truco.engine.audience` and the time
    they were appended (the clocks' data)."""
    out = []
    for event in events:
        kind, schema, payload = codec.encode_event(event)
        out.append(NewEvent(kind, schema, payload, audience(event), at_us))
    return out
