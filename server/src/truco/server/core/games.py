"""The game application: the operations of the game service over engine, referee and store values.

Matches live in the event store; nothing that matters stays in the process. Each operation reads a game
(:mod:`~truco.server.core.snapshots`), decides with the engine, and moves it on through the one commit path
(:mod:`~truco.server.core.commits`); stretches of bots only are the autoplayer's (:mod:`~truco.server.core.autoplayer`),
seats and tokens are :mod:`~truco.server.core.seats`'. Free of gRPC and protobuf: the server injects how events,
setups and replies are encoded (:class:`~truco.server.core.encodings.Encodings`), and its ports convert requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import secrets
from collections.abc import AsyncGenerator, Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial

from truco.bots import THINKING_BOTS
from truco.engine import (
    MatchState,
    Phase,
    RuleViolation,
    SeatCommand,
    absence,
    evolve,
    execute,
    execute_legal,
    start_match,
)
from truco.engine import events as ev
from truco.server.core.auth import TokenIssuer, token_hash
from truco.server.core.autoplayer import Autoplayer, BotTurns
from truco.server.core.clocks import NO_CLOCKS, Alarm, ClockBook, Clocks, ClockSettings, StandIn
from truco.server.core.commits import Commits
from truco.server.core.encodings import Encodings
from truco.server.core.idempotency import command_digest, stamped, unstamp
from truco.server.core.identities import PlayerId
from truco.server.core.joins import check_join_retry
from truco.server.core.keys import ApiKeys
from truco.server.core.matchmaking import join_request_id
from truco.server.core.metrics import Metrics
from truco.server.core.ratings import Outcome, outcome_of
from truco.server.core.reasons import ServiceFailure, ServiceReason
from truco.server.core.referee import bot_choice, drive
from truco.server.core.seats import Seats, host, joined_times
from truco.server.core.setups import Setup, setup_to_bytes
from truco.server.core.snapshots import CACHE_ENTRIES, Snapshot, Snapshots
from truco.server.core.thinking import Thinkers
from truco.server.store.errors import SeatUnavailable, VersionConflict
from truco.server.store.interface import EventStore
from truco.server.store.records import (
    SEAT_BOT,
    SEAT_OPEN,
    SEAT_TAKEN,
    GameRecord,
    SeatRecord,
    TicketRecord,
    decode_cursor,
    now_us,
)

APPEND_ATTEMPTS = 4
"""Tries of a move: one on the cached state, then on the store's, re-read after each append that lost a race."""
TABLE_LOOK_SECONDS = 0.4
"""How often a watch that follows the table (``Games.watch(table=True)``) looks at its seats while one is open:
a friend's arrival reaches every page within a second, at one store read per look of such a watch."""
MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 20


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
class Progress:
    """What a watch has to send: the events of ``after`` past ``before`` (None: the watch's first look, from the
    game's start), with the game's clocks at ``after``."""

    before: Snapshot | None
    after: Snapshot
    clocks: Clocks


class Games:
    """The game service's operations, wired at construction to their collaborators."""

    def __init__(
        self,
        store: EventStore,
        metrics: Metrics,
        encodings: Encodings,
        *,
        allow_fixed_deals: bool = False,
        cache_size: int = CACHE_ENTRIES,
        tokens: TokenIssuer | None = None,
        default_clock: ClockSettings | None = None,
        presence_seconds: float = 30.0,
        keys: ApiKeys | None = None,
        alarm: Alarm | None = None,
        stand_in: StandIn | None = None,
    ) -> None:
        self.store = store
        self.metrics = metrics
        self.encodings = encodings
        self.tokens = tokens or TokenIssuer()
        self.allow_fixed_deals = allow_fixed_deals
        self.default_clock = default_clock
        """The clocks of games created without clock settings of their own (None: none)."""
        self.stand_in = stand_in or StandIn()
        """The stand-in's pace and grace of games created without their own."""
        self.alarm = alarm or Alarm()
        """Rung with each deadline this process sets (the timekeeper listens)."""
        self.stopping = asyncio.Event()
        rng = random.Random(secrets.randbits(64))
        self.seats = Seats(store, keys, presence_seconds)
        self.turns = BotTurns()
        self.snapshots = Snapshots(
            store, encodings.events, encodings.legacy_setup, self.seats, metrics, self.turns.offer, size=cache_size
        )
        self.commits = Commits(
            store, encodings.events, self.snapshots, self.seats, metrics, self.alarm, self.turns.offer, rng
        )
        self.autoplayer = Autoplayer(self.turns, self.snapshots, self.commits, Thinkers(seed=secrets.randbits(64)))
        self._rng = rng
        self._seat_moves = metrics.commands_applied.labels("seat")

    def start(self) -> None:
        """Start the autoplayer and the writer of players' sightings (in the running event loop)."""
        self.autoplayer.start()
        self.seats.start()

    def stop_watches(self) -> None:
        """Tell every watch, now and from now on, that this server is stopping (SERVER_SHUTTING_DOWN)."""
        self.stopping.set()
        self.store.interrupt_waits()

    async def close(self) -> None:
        """Stop the watches and the autoplayer; write the last sightings."""
        self.stop_watches()
        await self.autoplayer.close()
        await self.seats.close()

    # --- Reads and seats ---------------------------------------------------------------------------------------

    async def snapshot(self, game_id: str, min_version: int = 0) -> Snapshot:
        """The game's latest state (see :meth:`Snapshots.get`)."""
        return await self.snapshots.get(game_id, min_version)

    async def caller_seat(self, game_id: str, token: str | None, *, required: bool) -> int | None:
        """The seat ``token`` holds in this game; None for a spectator (see :meth:`Seats.of_token`)."""
        return await self.seats.of_token(game_id, token, required=required)

    async def require_app(self, game_id: str, app: str) -> None:
        """Refuse a player token in another app's game (see :meth:`Seats.require_app`)."""
        await self.seats.require_app(game_id, app)

    async def require_visible(self, game_id: str, viewer: str) -> None:
        """Refuse a private game to another app's callers (see :meth:`Seats.require_visible`)."""
        await self.seats.require_visible(game_id, viewer)

    def seen(self, game_id: str, seat: int) -> None:
        self.seats.seen(game_id, seat)

    def present(self, record: GameRecord) -> dict[int, bool]:
        return self.seats.present(record)

    async def clocks(self, game_id: str, snapshot: Snapshot) -> Clocks:
        """The game's clocks at the snapshot, as views show them."""
        if snapshot.setup.clock is None and not snapshot.state.away:
            return NO_CLOCKS
        setup = snapshot.setup
        return snapshot.book.clocks(snapshot.state, setup.clock, await self.seats.joined(game_id), setup.pace)

    # --- Creating and joining ------------------------------------------------------------------------------------

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
        if setup.stand_in is None:
            setup = replace(setup, stand_in=self.stand_in)
        seats = tuple(
            SeatRecord(seat, SEAT_BOT, setup.bots[seat], "", b"")
            if seat in setup.bots
            else SeatRecord(seat, SEAT_OPEN, "", "", b"")
            for seat in range(setup.rules.players)
        )
        stored = await self._create(setup, seats, request_id, owner=owner, creator=creator, public=public)
        self.turns.created(stored.game_id, creator)
        return stored, await self.snapshots.get(stored.game_id)  # queues the game for the autoplayer if due

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
        first_dealer: int | None = None,
    ) -> GameRecord:
        """Store a new game with ``seats`` and its first events (the start, the deals, bot moves); its first hand
        is dealt by ``first_dealer`` (None: the engine's, the last seat)."""
        state = MatchState()
        events: list[ev.Event] = (
            start_match(setup.rules) if first_dealer is None else [ev.MatchStarted(setup.rules, first_dealer)]
        )
        for event in events:
            evolve(state, event)
        # A game with a player's seat open deals when the last one sits down (join): nobody plays beside an empty chair.
        automatic, bot_moves = drive(state, setup, self._rng, seated=all(s.kind != SEAT_OPEN for s in seats))
        events += automatic
        game_id = self.store.new_game_id(request_id)
        at = now_us()
        joined = joined_times(seats)
        book = ClockBook().advance(at, events, state, setup.playing(state), setup.clock, joined)
        clock = book.running(setup.clock, joined)
        record = GameRecord(
            game_id=game_id,
            created_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),  # sortable, and distinct in practice
            rules=setup_to_bytes(setup),
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
        stored = await self.store.create_game(record, self.commits.records(events, at), request_id)
        if stored.game_id == game_id:
            # What the store now holds is what was just decided: cache it, and the new game costs no store read.
            kept = self.snapshots.read_setup(stored.rules)  # as a rebuild from the store would have it
            self.snapshots.remember(game_id, Snapshot(kept, stored.last_seq, state, tuple(events), book))
            self.seats.note_joined(game_id, stored.seats)
            self.metrics.commands_applied.labels("bot").inc(bot_moves)
            self.metrics.matches_started.inc()
            self.commits.counted(events)
            if clock is not None:
                self.alarm.ring(clock.deadline_us)
        return stored

    async def join(
        self,
        game_id: str,
        seat: int | None,
        player_name: str,
        request_id: str | None,
        key_id: str = "",
        player: PlayerId | None = None,
    ) -> tuple[int, str, Snapshot]:
        """Take ``seat`` (None: any open seat) under the API key ``key_id`` ("": none), in a game that key may
        see (:meth:`Seats.require_visible`): the seat, its token and the game; for ``player``, a player of the
        game's app, when given. (The name was checked with the request: ``validation.check_player_name``.)"""
        await self.seats.require_visible(game_id, key_id)
        if player is not None:
            await self.seats.require_app(game_id, player.app)
            await self.store.name_player(player.app, player.sub, player.display_name)
            player_name = player_name or player.display_name
        cached = self.snapshots.cached(game_id)
        players = cached.setup.rules.players if cached is not None else (await self.store.get_game(game_id)).players
        if seat is not None and not 0 <= seat < players:
            raise ServiceFailure(ServiceReason.INVALID_SEAT, f"seat must be 0 to {players - 1}")
        token = self.tokens.for_join(game_id, request_id, key_id)
        digest = token_hash(token)
        sub = player.sub if player is not None else ""
        asked_us = now_us()
        claimed, taken = await self.store.claim_seat(game_id, seat, digest, player_name, request_id, key_id, sub)
        if claimed.seats[taken].token_hash != digest:
            # A retry reached a process with another token key (a restart or a replica without the shared
            # TRUCO_TOKEN_KEY). Re-keying the seat would lock its holder out, and replicas that remember the old
            # token would still accept it: the seat keeps its token and the retry is refused.
            raise ServiceFailure(
                ServiceReason.JOIN_NOT_REPEATABLE,
                "this request id already took a seat, but this server cannot issue its token again (its token "
                "key changed: set the same TRUCO_TOKEN_KEY on every replica); the first token still holds the seat",
            )
        if claimed.seats[taken].joined_us < asked_us:  # taken before this call: the request id's second join
            check_join_retry(claimed.seats[taken], sub, self.seats.last_seen(game_id, taken), now_us())
        self.seats.remember(game_id, digest, (taken, claimed.seats[taken].key_id))
        joined = self.seats.note_joined(game_id, claimed.seats)
        snapshot = await self._deal_when_seated(game_id, joined)
        # Clocks run at a full table: the last join starts the clock of the decision the match waits for.
        clock = snapshot.book.running(snapshot.setup.clock, joined)
        if clock is not None and await self.store.set_deadline(game_id, snapshot.seq, clock.deadline_us):
            self.alarm.ring(clock.deadline_us)
        return taken, token, snapshot

    # --- Quick match and ratings (truco.server.core.matchmaking) -------------------------------------------------

    async def create_table(self, setup: Setup, request_id: str, app: str) -> str:
        """Create a quick match's game for ``app`` (its request id makes a retry find the same game): its id. Its
        creator is the matcher, not the app: quick matches do not count against the app's own open-games quota."""
        record, _ = await self.create(setup, request_id, owner=app, creator=f"quick:{app}", default_clock=True)
        return record.game_id

    async def join_ticket(self, game_id: str, seat: int, ticket: TicketRecord) -> str:
        """Seat a matched ticket's player (again: the same seat token each time): the seat token."""
        player = PlayerId(ticket.app, ticket.player, ticket.display_name)
        request_id = join_request_id(ticket.ticket_id)
        _, token, _ = await self.join(game_id, seat, ticket.display_name, request_id, ticket.app, player)
        return token

    async def outcome(self, game_id: str) -> Outcome | None:
        """What a finished game's event log says of its players (None: it ended unplayed)."""
        # The whole log: who left is anywhere in the match, and a cached game keeps only its last events.
        snapshot = await self.snapshots.reaching(await self.snapshots.get(game_id), game_id, 0)
        record = await self.store.get_game(game_id)
        last = await self.store.read(game_id, max(0, snapshot.seq - 1))
        return outcome_of(record, snapshot.state, snapshot.events, last[-1].at_us if last else 0)

    async def _deal_when_seated(self, game_id: str, joined: dict[int, int]) -> Snapshot:
        """The game after a join: dealt now if that join filled the table of a match not dealt yet (a commit of
        no events of its own: the referee deals, and the bots move up to the first player)."""
        for _ in range(APPEND_ATTEMPTS):
            snapshot = await self.snapshots.get(game_id)
            if snapshot.state.hands_dealt or min(joined.values(), default=1) == 0:
                return snapshot
            try:
                await self.commits.commit(game_id, snapshot, snapshot.state.copy(), [])
            except VersionConflict:
                continue  # another join or replica dealt first: look again
        return await self.snapshots.get(game_id)

    async def start_with_bots(self, game_id: str, seat: int) -> tuple[GameRecord, Snapshot]:
        """Deal a table waiting for friends now, the server's bots at the game's level (:attr:`Setup.table_bot`)
        in the seats still open: asked by ``seat``, which must be the table's host (:func:`host`). A friend who
        sits down meanwhile keeps the seat, and the bots take the others.

        :raises ServiceFailure: NOT_TABLE_HOST, GAME_ALREADY_STARTED (dealt: the table filled, or was started).
        """
        for _ in range(APPEND_ATTEMPTS):
            record = await self.store.get_game(game_id)
            snapshot = await self.snapshots.get(game_id)  # after the record: a deal it shows filled those seats
            if seat != host(record.seats):
                raise ServiceFailure(ServiceReason.NOT_TABLE_HOST, "only the player who sat down first may start")
            open_seats = [s.seat for s in record.seats if s.kind == SEAT_OPEN]
            if snapshot.state.hands_dealt or record.over or not open_seats:
                raise ServiceFailure(ServiceReason.GAME_ALREADY_STARTED, "the match was already dealt")
            setup = snapshot.setup.with_bots(open_seats)
            bots = {open_seat: setup.bots[open_seat] for open_seat in open_seats}
            try:
                seated = await self.store.seat_bots(game_id, snapshot.seq, bots, setup_to_bytes(setup))
            except (VersionConflict, SeatUnavailable):
                continue  # a friend sat down, or the game moved on: look again
            joined = self.seats.note_joined(game_id, seated.seats)
            # The deal is committed from the new setup: the bots move in it, and the snapshot after keeps it.
            started = replace(snapshot, setup=self.snapshots.read_setup(seated.rules), memo={})
            try:
                committed = await self.commits.commit(game_id, started, started.state.copy(), [])
            except VersionConflict:
                committed = None
            dealt = committed.snapshot if committed is not None else await self._deal_when_seated(game_id, joined)
            return seated, dealt
        raise ServiceFailure(ServiceReason.VERSION_CONFLICT, "the table kept changing: retry")

    # --- Moves -------------------------------------------------------------------------------------------------

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
        digest = command_digest(command)
        for attempt in range(APPEND_ATTEMPTS):
            # First try on the cached state: the append checks atomically that the store has no newer event,
            # so a move costs one store round trip. Any failure re-reads the store before it is believed.
            cached = self.snapshots.cached(game_id) if attempt == 0 else None
            snapshot = cached or await self.snapshots.get(game_id)
            try:
                state, events = self._decide(snapshot, command, expected_version)
            except (ServiceFailure, RuleViolation):
                if cached is not None:
                    continue  # the cache may be behind another replica's moves
                # A retry of a request already applied fails against the newer state: answer as the first time.
                replay = await self.store.find_response(game_id, scoped_id) if scoped_id else None
                if replay is not None:
                    return Replayed(unstamp(replay, digest))
                raise
            before = snapshot.state
            reply = stamped(digest, partial(self.encodings.reply, game_id, seat, before))
            try:
                committed = await self.commits.commit(
                    game_id, snapshot, state, events, request_id=scoped_id, reply=reply
                )
            except VersionConflict:
                if attempt + 1 == APPEND_ATTEMPTS:
                    raise ServiceFailure(
                        ServiceReason.VERSION_CONFLICT, "another move was accepted at the same time: retry"
                    ) from None
                continue
            assert committed is not None  # a seat's command always decides an event
            if committed.result.replayed:  # our request id was applied by an earlier try
                return Replayed(unstamp(committed.result.response, digest))
            self._seat_moves.inc()
            answer = unstamp(committed.reply, digest)
            return Move(game_id, seat, before.version, committed.events, committed.snapshot.state, answer)
        raise AssertionError("unreachable")

    @staticmethod
    def _decide(snapshot: Snapshot, command: SeatCommand, expected_version: int) -> tuple[MatchState, list[ev.Event]]:
        """The state and events after ``command`` (on a copy), if the game is at ``expected_version``."""
        version = snapshot.state.version
        if expected_version and expected_version != version:
            raise ServiceFailure(
                ServiceReason.VERSION_CONFLICT,
                f"the game is at version {version}, not {expected_version}: re-read and retry",
                {"version": str(version)},
            )
        state = snapshot.state.copy()
        return state, execute(state, command)

    async def arbitrate(
        self,
        game_id: str,
        decide: Callable[[MatchState], list[ev.Event]],
        snapshot: Snapshot | None = None,
    ) -> Snapshot:
        """Commit the events ``decide`` returns for the game's state (a referee's decision: a clock that ran
        out, a seat left or taken back), guarded by the snapshot's seq; no events, no commit.

        :raises VersionConflict: the game moved on since ``snapshot`` (given by the caller): nothing written.
        """
        given = snapshot is not None
        for _ in range(1 if given else APPEND_ATTEMPTS):
            current = snapshot if snapshot is not None else await self.snapshots.get(game_id)
            state = current.state.copy()
            events = decide(state)
            if not events:
                return current
            for event in events:
                evolve(state, event)
            try:
                committed = await self.commits.commit(game_id, current, state, events)
            except VersionConflict:
                if given:
                    raise
                snapshot = None
                continue
            assert committed is not None
            return committed.snapshot
        raise ServiceFailure(ServiceReason.VERSION_CONFLICT, "the game kept moving: retry")

    async def fire_clock(self, game_id: str) -> bool:
        """Fire the game's clock if it ran out: True when this call's ClockExpired (or, when the clock was the
        stand-in's pace, its move) was the one applied."""
        snapshot = await self.snapshots.get(game_id)
        setup = snapshot.setup
        joined = await self.seats.joined(game_id, snapshot.book.waiting)
        clock = snapshot.book.running(setup.clock, joined, setup.pace)
        if clock is None or clock.deadline_us > now_us():
            # The stored deadline is stale (a move raced it, or the match is over): store the right one.
            await self.store.set_deadline(game_id, snapshot.seq, clock.deadline_us if clock is not None else None)
            return False
        if clock.stand_in:
            return await self._stand_in_move(game_id, snapshot, clock.seats[0])
        if setup.clock is None:
            return False  # a player's clock runs only in a game with clock settings
        forfeit = setup.clock.forfeit
        try:
            await self.arbitrate(
                game_id,
                lambda state: absence.expire_clock(state, clock.seats[0], clock.deadline_us, forfeit=forfeit),
                snapshot,
            )
        except VersionConflict:
            self.metrics.clock_firings.labels("lost").inc()
            return False
        self.metrics.clock_firings.labels("forfeit" if forfeit else "takeover").inc()
        return True

    async def _stand_in_move(self, game_id: str, snapshot: Snapshot, seat: int) -> bool:
        """The stand-in's move for an away seat, its pace run out: True when it was applied. The commit's drive
        goes on with the bots and deals that follow, up to the next player or paced stand-in."""
        bot = snapshot.setup.playing(snapshot.state)[seat]
        state = snapshot.state.copy()
        if bot in THINKING_BOTS:
            command = await self.autoplayer.thinkers.decide(state, seat, bot)
        else:
            command = bot_choice(state, seat, bot, self._rng)
        try:
            await self.commits.commit(game_id, snapshot, state, execute_legal(state, command), bot_moves=1)
        except VersionConflict:
            self.metrics.clock_firings.labels("lost").inc()
            return False
        self.metrics.clock_firings.labels("stand_in").inc()
        return True

    async def leave(self, game_id: str, seat: int) -> Snapshot:
        """The seat's player leaves: a bot plays the seat until it resumes (nothing when already away)."""
        return await self.arbitrate(game_id, lambda state: absence.leave(state, seat))

    async def resume(self, game_id: str, seat: int) -> Snapshot:
        """The seat's player takes it back from the bot (nothing when it was not taken over)."""
        return await self.arbitrate(game_id, lambda state: absence.resume(state, seat))

    async def rematch(self, game_id: str) -> tuple[GameRecord, Snapshot]:
        """The next game of a finished one: the same setup (scripted deals aside) and seats, each player's
        token holding its seat there too; the games name each other. Every call gets the same next game.

        :raises ServiceFailure: GAME_NOT_FINISHED for a game in play or closed.
        """
        record = await self.store.get_game(game_id)
        if record.closed or not record.over:
            raise ServiceFailure(ServiceReason.GAME_NOT_FINISHED, "only a finished game has a rematch")
        if not record.next_game:
            old = self.snapshots.read_setup(record.rules)
            started = (await self.snapshots.reaching(await self.snapshots.get(game_id), game_id, 0)).events[0]
            # The deal passes on: the rematch's first hand is dealt by the seat after the one that dealt first.
            first_dealer = (started.first_dealer + 1) % record.players if isinstance(started, ev.MatchStarted) else None
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
                first_dealer=first_dealer,
            )
            self.turns.created(created.game_id, record.creator)
            await self.store.link_next_game(game_id, created.game_id)
            record = await self.store.get_game(game_id)
        return await self.game(record.next_game)

    # --- Watching and listing ----------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _counted_watch(self) -> Iterator[None]:
        self.metrics.watchers.inc()
        try:
            yield
        finally:
            self.metrics.watchers.dec()

    async def watch(self, game_id: str, seat: int | None, *, table: bool = False) -> AsyncGenerator[Progress]:
        """The game as it is now, then each time it moves (one commit, or several while the watcher was busy),
        until the match ends; the watch of ``seat`` keeps its player present, and every watch counts in the
        ``truco_watchers`` gauge while it lasts (a WatchGame stream or a PlayGame session). Every watcher of a game
        in this process reads the same snapshots, so what is projected from them is projected once
        (:mod:`truco.server.service.projections`). A watch sleeps until the store wakes it: an idle stream costs nothing
        but a look every ``recheck_seconds`` of the store. With ``table``, while a seat is open the watch also
        looks at the seats every :data:`TABLE_LOOK_SECONDS` and sends a Progress with no new events (``before`` is
        ``after``) when one was taken. :raises ServiceFailure: SERVER_SHUTTING_DOWN."""
        before: Snapshot | None = None
        learned: int | None = None
        seats = await self._open_seats(game_id) if table else None
        with (
            self.seats.watching(game_id, seat) if seat is not None else contextlib.nullcontext(),
            self._counted_watch(),
        ):
            while True:
                # A wake that named a seq this process has cached (its own commit, the usual case) needs no store
                # read: anything newer is found by the next wait's look before it sleeps. Otherwise, after the
                # first look, what the store's notifications vouch for is the newest (no read per wake).
                cached = self.snapshots.cached(game_id)
                if learned is not None and cached is not None and cached.seq >= learned:
                    snapshot = cached
                else:
                    snapshot = await self.snapshots.get(game_id, before.state.version if before is not None else 0)
                if before is None or snapshot.seq > before.seq:
                    # What the watcher has not had, from the store when the cached game no longer keeps it.
                    shown = await self.snapshots.reaching(snapshot, game_id, before.seq if before is not None else 0)
                    yield Progress(before, shown, await self.clocks(game_id, snapshot))
                    before = snapshot
                if snapshot.state.phase is Phase.MATCH_OVER:
                    return
                if self.stopping.is_set():
                    version = snapshot.state.version
                    raise ServiceFailure(
                        ServiceReason.SERVER_SHUTTING_DOWN,
                        f"this server is shutting down: resume the watch from version {version}",
                        {"version": str(version)},
                    )
                # Returns at once when the server stops (stop_watches): no task of its own per wait. While the
                # store's notifications vouch for what was just sent, the wait does not look at the store first.
                vouched = partial(self.snapshots.vouches, game_id, snapshot)
                wait = min(TABLE_LOOK_SECONDS if seats is not None else math.inf, self.store.recheck_seconds)
                learned = await self.store.wait_for_change(game_id, snapshot.seq, wait, vouched)
                if seats is not None and learned is None:
                    now = await self._open_seats(game_id)
                    if now != seats:  # a seat taken, no move made: the views' clocks and the seats' names change
                        yield Progress(snapshot, snapshot, await self.clocks(game_id, snapshot))
                    seats = now

    async def _open_seats(self, game_id: str) -> tuple[tuple[int, str, str], ...] | None:
        """Who sits where (seat, kind, name) while a seat is open; None once the table is full (it stays full)."""
        seats = (await self.store.get_game(game_id)).seats
        if all(s.kind != SEAT_OPEN for s in seats):
            self.seats.note_joined(game_id, seats)
            return None
        return tuple((s.seat, s.kind, s.player_name) for s in seats)

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
        return [(record, await self.snapshots.get(record.game_id)) for record in records], cursor or ""

    async def game(self, game_id: str) -> tuple[GameRecord, Snapshot]:
        """The game's record (seats, links, closed) and its latest snapshot."""
        record = await self.store.get_game(game_id)
        return record, await self.snapshots.get(game_id)


__all__ = ["Games", "Move", "Progress", "Replayed"]
