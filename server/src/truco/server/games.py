"""The game application: matches live in the event store; this module loads, decides, drives and projects.

No state that matters stays in the process. A small cache of rebuilt states is keyed by the last event
sequence number and topped up from the store on every request, so a move costs the same late in a match as
early, and any replica can answer any request.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import secrets
import struct
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial

import grpc

from truco.bots import make_bot
from truco.engine import (
    DECK,
    Card,
    Deal,
    MatchState,
    Phase,
    RuleSet,
    RuleViolation,
    SeatCommand,
    actors,
    evolve,
    execute,
    legal_actions,
    order_for_hands,
    seat_view,
    spectator_view,
    start_match,
    team_of,
)
from truco.engine import events as ev
from truco.engine.views import event_for
from truco_client.v1 import events_pb2, game_service_pb2

from . import codec
from .auth import BEARER_HINT, TokenIssuer, bearer_token, token_hash
from .errors import ServiceError, invalid
from .metrics import Metrics
from .store.base import (
    AppendResult,
    EventStore,
    GameRecord,
    NewEvent,
    SeatRecord,
    StoredEvent,
    VersionConflict,
    decode_cursor,
)

NAME_PREFIX = "games/"
_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_AUTOMATIC_MOVES = 100_000
"""Bots and deals applied after one command; an all-bot game plays to its end within one request."""
APPEND_ATTEMPTS = 4
"""Tries of a move: one on the cached state, then on the store's, re-read after each append that lost a race."""
MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 20
MAX_PLAYER_NAME = 64
BOT_KINDS = {game_service_pb2.BOT_KIND_RANDOM: "random", game_service_pb2.BOT_KIND_HEURISTIC: "heuristic"}
BOT_KINDS_PB = {name: kind for kind, name in BOT_KINDS.items()}


def game_id_from_name(name: str) -> str:
    """The id in ``games/{id}``. :raises ServiceError: INVALID_ARGUMENT for another shape."""
    game_id = name[len(NAME_PREFIX) :] if name.startswith(NAME_PREFIX) else ""
    if not _GAME_ID.fullmatch(game_id):
        raise invalid("INVALID_NAME", "a game's name is games/{id}, the id made of letters, digits, - and _")
    return game_id


@dataclass(frozen=True, slots=True)
class Setup:
    """What a game was created with, stored with it: rules, bot seats and scripted deals."""

    rules: RuleSet
    bots: dict[int, str]
    fixed_deals: tuple[tuple[tuple[tuple[Card, ...], ...], Card], ...]

    def to_bytes(self) -> bytes:
        message = game_service_pb2.CreateGameRequest(
            rules=codec.rules_to_pb(self.rules),
            bots=[game_service_pb2.BotSeat(seat=s, kind=BOT_KINDS_PB[k]) for s, k in sorted(self.bots.items())],
            fixed_deals=[
                game_service_pb2.FixedDeal(
                    hands=[game_service_pb2.DealtHand(cards=codec.cards_to_pb(h)) for h in hands],
                    muestra=codec.card_to_pb(muestra),
                )
                for hands, muestra in self.fixed_deals
            ],
        )
        return message.SerializeToString()

    @classmethod
    def from_request(cls, request: game_service_pb2.CreateGameRequest) -> Setup:
        """:raises ServiceError: INVALID_ARGUMENT for impossible rules, bot seats or deals."""
        rules = codec.rules_from_pb(request.rules)
        bots: dict[int, str] = {}
        for bot in request.bots:
            if not 0 <= bot.seat < rules.players or bot.seat in bots:
                raise invalid("INVALID_BOT_SEAT", f"bot seat {bot.seat} is not a free seat of {rules.players} players")
            if bot.kind not in BOT_KINDS:
                raise invalid("INVALID_BOT_KIND", "bot kind must be RANDOM or HEURISTIC")
            bots[bot.seat] = BOT_KINDS[bot.kind]
        deals = []
        for index, deal in enumerate(request.fixed_deals):
            hands = tuple(codec.cards_from_pb(h.cards, f"fixed_deals[{index}] card") for h in deal.hands)
            muestra = codec.card_from_pb(deal.muestra, f"fixed_deals[{index}].muestra")
            cards = [card for hand in hands for card in hand] + [muestra]
            if len(hands) not in (2, rules.players) or any(len(hand) != 3 for hand in hands):
                raise invalid("INVALID_DEAL", f"fixed_deals[{index}]: three cards for each player of the hand")
            if len(set(cards)) != len(cards):
                raise invalid("INVALID_DEAL", f"fixed_deals[{index}]: a card appears twice")
            deals.append((hands, muestra))
        return cls(rules, bots, tuple(deals))

    @classmethod
    def from_bytes(cls, data: bytes) -> Setup:
        message = game_service_pb2.CreateGameRequest()
        message.ParseFromString(data)
        return cls.from_request(message)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A game's state rebuilt up to event ``seq``. Never mutated: newer events make a new snapshot."""

    setup: Setup
    seq: int
    state: MatchState
    events: tuple[ev.Event, ...]


class Games:
    """The operations of the game service, free of gRPC: the servicer only converts and delegates."""

    def __init__(
        self,
        store: EventStore,
        metrics: Metrics,
        *,
        allow_fixed_deals: bool = False,
        cache_size: int = 2048,
        tokens: TokenIssuer | None = None,
    ) -> None:
        self.store = store
        self.tokens = tokens or TokenIssuer()
        self.metrics = metrics
        self.allow_fixed_deals = allow_fixed_deals
        self._cache: OrderedDict[str, Snapshot] = OrderedDict()
        self._cache_size = cache_size
        self._seats: dict[tuple[str, bytes], int] = {}
        self._bot_rng = random.Random(secrets.randbits(64))
        self._seat_moves = metrics.commands_applied.labels("seat")
        self._bot_moves = metrics.commands_applied.labels("bot")
        self.stopping = asyncio.Event()

    # --- Loading ---------------------------------------------------------------------------------------------

    async def snapshot(self, game_id: str) -> Snapshot:
        """The game's latest state: the cached snapshot topped up with the events stored since."""
        cached = self._cache.get(game_id)
        if cached is None:
            record = await self.store.get_game(game_id)
            cached = Snapshot(Setup.from_bytes(record.rules), 0, MatchState(), ())
        stored = await self._timed_read(game_id, cached.seq)
        if not stored:
            self._remember(game_id, cached)
            return cached
        state = cached.state.copy()
        new_events = []
        for item in stored:
            event = codec.decode_event(item.kind, item.schema, item.payload)
            evolve(state, event)
            new_events.append(event)
        snapshot = Snapshot(cached.setup, stored[-1].seq, state, cached.events + tuple(new_events))
        self._remember(game_id, snapshot)
        return snapshot

    async def _timed_read(self, game_id: str, after_seq: int) -> list[StoredEvent]:
        started = time.perf_counter()
        try:
            return await self.store.read(game_id, after_seq)
        finally:
            self.metrics.store_latency.labels("read").observe(time.perf_counter() - started)

    def _remember(self, game_id: str, snapshot: Snapshot) -> None:
        self._cache[game_id] = snapshot
        self._cache.move_to_end(game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    # --- Seats -------------------------------------------------------------------------------------------------

    async def caller_seat(
        self, game_id: str, metadata: Iterable[tuple[str, str | bytes]] | None, *, required: bool
    ) -> int | None:
        """The seat the caller's token holds in this game; None for a spectator (no token) when allowed."""
        token = bearer_token(metadata)
        if token is None:
            if required:
                raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING", BEARER_HINT)
            return None
        key = (game_id, token_hash(token))
        seat = self._seats.get(key)
        if seat is None:
            await self.store.get_game(game_id)  # an unknown game is NOT_FOUND, not a bad token
            seat = await self.store.seat_for_token(game_id, key[1])
            if seat is None:
                raise ServiceError(
                    grpc.StatusCode.PERMISSION_DENIED, "TOKEN_NOT_FOR_GAME", "this token holds no seat in this game"
                )
            self._seats[key] = seat
        return seat

    # --- Operations --------------------------------------------------------------------------------------------

    async def create(self, request: game_service_pb2.CreateGameRequest) -> game_service_pb2.Game:
        setup = Setup.from_request(request)
        if setup.fixed_deals and not self.allow_fixed_deals:
            raise ServiceError(
                grpc.StatusCode.FAILED_PRECONDITION,
                "FIXED_DEALS_DISABLED",
                "scripted deals need a server started with --allow-fixed-deals",
            )
        state = MatchState()
        events = start_match(setup.rules)
        for event in events:
            evolve(state, event)
        automatic, bot_moves = self._drive(state, setup)
        events += automatic
        game_id = uuid.uuid4().hex
        seats = tuple(
            SeatRecord(seat, "bot", setup.bots[seat], "", b"")
            if seat in setup.bots
            else SeatRecord(seat, "open", "", "", b"")
            for seat in range(setup.rules.players)
        )
        record = GameRecord(
            game_id=game_id,
            created_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),  # sortable, and distinct in practice
            rules=setup.to_bytes(),
            players=setup.rules.players,
            seats=seats,
            last_seq=0,
            over=state.phase is Phase.MATCH_OVER,
        )
        records = [record for _, _, record in self._encode(events)]
        stored = await self.store.create_game(record, records, request.request_id or None)
        if stored.game_id == game_id:
            self._bot_moves.inc(bot_moves)
            self.metrics.matches_started.inc()
            self.metrics.events_appended.inc(len(events))
            if state.phase is Phase.MATCH_OVER:
                self.metrics.matches_finished.inc()
        return game_to_pb(stored, await self.snapshot(stored.game_id))

    async def join(self, game_id: str, request: game_service_pb2.JoinGameRequest) -> tuple[int, str, Snapshot]:
        if len(request.player_name) > MAX_PLAYER_NAME:
            raise invalid("PLAYER_NAME_TOO_LONG", f"player_name has at most {MAX_PLAYER_NAME} characters")
        record = await self.store.get_game(game_id)
        wanted = request.seat if request.HasField("seat") else None
        if wanted is not None and not 0 <= wanted < record.players:
            raise invalid("INVALID_SEAT", f"seat must be 0 to {record.players - 1}")
        request_id = request.request_id or None
        token = self.tokens.for_join(game_id, request_id)
        digest = token_hash(token)
        _, seat = await self.store.claim_seat(game_id, wanted, digest, request.player_name, request_id)
        if await self.store.seat_for_token(game_id, digest) != seat:
            # A retry reached a replica with another token key: the seat is re-keyed with this answer's token.
            await self.store.set_seat_token(game_id, seat, digest)
            self._seats = {key: s for key, s in self._seats.items() if key[0] != game_id or s != seat}
        self._seats[(game_id, digest)] = seat
        return seat, token, await self.snapshot(game_id)

    async def submit(
        self, game_id: str, seat: int, request: game_service_pb2.SubmitCommandRequest
    ) -> game_service_pb2.SubmitCommandResponse:
        # Request ids are scoped to the seat: another seat replaying one must never receive this seat's view.
        request_id = f"{seat}:{request.request_id}" if request.request_id else None
        if not request.HasField("command"):
            raise invalid("MALFORMED_REQUEST", "command: set exactly one kind of command")
        command = codec.command_from_pb(request.command, seat)
        for attempt in range(APPEND_ATTEMPTS):
            # First try on the cached state: the append checks atomically that the store has no newer event,
            # so a move costs one store round trip. Any failure re-reads the store before it is believed.
            cached = self._cache.get(game_id) if attempt == 0 else None
            snapshot = cached or await self.snapshot(game_id)
            try:
                state, events, bot_moves = self._decide(snapshot, command, request.expected_version)
            except (ServiceError, RuleViolation):
                if cached is not None:
                    continue  # the cache may be behind another replica's moves
                # A retry of a request already applied fails against the newer state: answer as the first time.
                replay = await self.store.find_response(game_id, request_id) if request_id else None
                if replay is not None:
                    return game_service_pb2.SubmitCommandResponse.FromString(replay)
                raise
            encoded = self._encode(events)
            response = game_service_pb2.SubmitCommandResponse(
                version=state.version,
                events=self.project(encoded, seat, snapshot.state.version),
                view=codec.seat_view_to_pb(seat_view(state, seat), NAME_PREFIX + game_id),
            )
            payload = response.SerializeToString()
            try:
                result = await self._append(game_id, snapshot.seq, encoded, request_id, payload, state)
            except VersionConflict:
                if attempt + 1 == APPEND_ATTEMPTS:
                    raise ServiceError(
                        grpc.StatusCode.ABORTED, "VERSION_CONFLICT", "another move was accepted at the same time: retry"
                    ) from None
                continue
            if result.response != payload:  # our request id was applied by an earlier try
                return game_service_pb2.SubmitCommandResponse.FromString(result.response)
            self._seat_moves.inc()
            self._bot_moves.inc(bot_moves)
            self._remember(game_id, Snapshot(snapshot.setup, result.last_seq, state, snapshot.events + tuple(events)))
            return response
        raise AssertionError("unreachable")

    def _decide(
        self, snapshot: Snapshot, command: SeatCommand, expected_version: int
    ) -> tuple[MatchState, list[ev.Event], int]:
        """The state and events after ``command`` and the bot moves and deals it triggers (on a copy), and how
        many bot moves there were."""
        version = snapshot.state.version
        if expected_version and expected_version != version:
            raise ServiceError(
                grpc.StatusCode.ABORTED,
                "VERSION_CONFLICT",
                f"the game is at version {version}, not {expected_version}: re-read and retry",
                {"version": str(version)},
            )
        state = snapshot.state.copy()
        events = execute(state, command)
        automatic, bot_moves = self._drive(state, snapshot.setup)
        return state, events + automatic, bot_moves

    async def _append(
        self,
        game_id: str,
        expected_seq: int,
        encoded: Sequence[tuple[ev.Event, events_pb2.Event, NewEvent]],
        request_id: str | None,
        response: bytes,
        state: MatchState,
    ) -> AppendResult:
        started = time.perf_counter()
        over = state.phase is Phase.MATCH_OVER
        try:
            records = [record for _, _, record in encoded]
            result = await self.store.append(game_id, expected_seq, records, request_id, response, over)
        finally:
            self.metrics.store_latency.labels("append").observe(time.perf_counter() - started)
        self.metrics.events_appended.inc(len(encoded))
        if over and any(isinstance(event, ev.MatchEnded) for event, _, _ in encoded):
            self.metrics.matches_finished.inc()
        return result

    async def watch(
        self, game_id: str, seat: int | None, after_version: int, poll_seconds: float = 5.0
    ) -> AsyncIterator[game_service_pb2.WatchGameResponse]:
        """Every event after ``after_version`` as ``seat`` may see it, then new ones as they are stored."""
        name = NAME_PREFIX + game_id
        state = MatchState()
        sent = 0
        while True:
            snapshot = await self.snapshot(game_id)
            for event in snapshot.events[sent:]:
                evolve(state, event)
                sent += 1
                visible = event_for(event, seat)
                # A seña keeps the version of the event before it, so a resumed watch does not repeat it.
                if visible is None or state.version <= after_version:
                    continue
                yield game_service_pb2.WatchGameResponse(
                    event=codec.event_to_pb(visible, state.version),
                    seat=codec.seat_view_to_pb(seat_view(state, seat), name) if seat is not None else None,
                    public=codec.match_view_to_pb(spectator_view(state), name),
                )
            if state.phase is Phase.MATCH_OVER:
                return
            if self.stopping.is_set():
                raise ServiceError(
                    grpc.StatusCode.UNAVAILABLE,
                    "SERVER_SHUTTING_DOWN",
                    f"this server is shutting down: resume the watch from version {state.version}",
                    {"version": str(state.version)},
                )
            waiter = asyncio.ensure_future(self.store.wait_for_change(game_id, snapshot.seq, poll_seconds))
            stopper = asyncio.ensure_future(self.stopping.wait())
            await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
            for task in (waiter, stopper):
                task.cancel()

    async def list_open(self, page_size: int, page_token: str) -> tuple[list[game_service_pb2.Game], str]:
        if page_size < 0:
            raise invalid("INVALID_PAGE_SIZE", "page_size cannot be negative")
        size = min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        if page_token:
            try:
                decode_cursor(page_token)
            except ValueError:
                raise invalid("INVALID_PAGE_TOKEN", "page_token must be a next_page_token from ListGames") from None
        records, cursor = await self.store.list_open_games(size, page_token or None)
        return [game_to_pb(record, await self.snapshot(record.game_id)) for record in records], cursor or ""

    async def describe(self, game_id: str) -> game_service_pb2.Game:
        """The game resource: its seats from the store, its version and scores from the events."""
        record = await self.store.get_game(game_id)
        return game_to_pb(record, await self.snapshot(game_id))

    # --- The referee's helpers -------------------------------------------------------------------------------

    def _drive(self, state: MatchState, setup: Setup) -> tuple[list[ev.Event], int]:
        """Deal when a deal is due and let bots move while only bots are awaited; the events and bot moves."""
        out: list[ev.Event] = []
        moves = 0
        for _ in range(MAX_AUTOMATIC_MOVES):
            if state.phase is Phase.MATCH_OVER:
                break
            waiting = actors(state)
            if not waiting:
                out += execute(state, self._deal(state, setup))
                continue
            if any(seat not in setup.bots for seat in waiting):
                break  # a human may act: bots never answer for a team in which a human can
            seat = waiting[0]
            choice: SeatCommand = make_bot(setup.bots[seat]).choose(
                legal_actions(state, seat), partial(seat_view, state, seat), self._bot_rng
            )
            out += execute(state, choice)
            moves += 1
        return out, moves

    def _deal(self, state: MatchState, setup: Setup) -> Deal:
        """A deck shuffled by the OS's secure random source (or the next scripted deal) and a secret salt."""
        # One read of the OS's secure random source: 40 random 64-bit sort keys give a uniform permutation
        # (a tie has probability below 2**-53) without the 39 separate reads random.SystemRandom would make.
        keys = struct.unpack("40Q", os.urandom(8 * len(DECK)))
        order = [DECK[i] for i in sorted(range(len(DECK)), key=keys.__getitem__)]
        number = state.hands_dealt
        plan = state.plan
        if number < len(setup.fixed_deals) and plan is not None:
            hands, muestra = setup.fixed_deals[number]
            if len(hands) == len(plan.seats):
                order = list(order_for_hands(hands, muestra, rest=order))
        return Deal(tuple(order), secrets.token_hex(16))

    @staticmethod
    def _encode(events: Sequence[ev.Event]) -> list[tuple[ev.Event, events_pb2.Event, NewEvent]]:
        """Each event as the protobuf message and the stored record: encoded once, for storage and replies."""
        out = []
        for event in events:
            message = codec.event_to_pb(event)
            audience = team_of(event.seat) if isinstance(event, ev.SenaSent) else None
            record = NewEvent(type(event).__name__, codec.EVENT_SCHEMA, message.SerializeToString(), audience)
            out.append((event, message, record))
        return out

    @staticmethod
    def project(
        encoded: Sequence[tuple[ev.Event, events_pb2.Event, NewEvent]], seat: int | None, version_before: int
    ) -> list[events_pb2.Event]:
        """The events as ``seat`` may see them (views.event_for decides), each with the public version after
        it. Reuses the encoded message of an event seen whole, setting its version: call it after storing."""
        version = version_before
        out = []
        for event, message, _ in encoded:
            if not isinstance(event, ev.SenaSent):
                version += 1
            visible = event_for(event, seat)
            if visible is None:
                continue
            if visible is not event:  # redacted (a deal's order and salt): encode what the seat may see
                message = codec.event_to_pb(visible)
            message.version = version
            out.append(message)
        return out


_SEAT_KINDS = {
    "open": game_service_pb2.SEAT_KIND_OPEN,
    "taken": game_service_pb2.SEAT_KIND_TAKEN,
    "bot": game_service_pb2.SEAT_KIND_BOT,
}


def game_to_pb(record: GameRecord, snapshot: Snapshot) -> game_service_pb2.Game:
    state = snapshot.state
    name = NAME_PREFIX + record.game_id
    return game_service_pb2.Game(
        name=name,
        rules=codec.rules_to_pb(state.rules),
        seats=[
            game_service_pb2.SeatInfo(
                seat=s.seat,
                kind=_SEAT_KINDS[s.kind],
                bot=BOT_KINDS_PB.get(s.bot, game_service_pb2.BOT_KIND_UNSPECIFIED),
                player_name=s.player_name,
            )
            for s in record.seats
        ],
        version=state.version,
        phase=codec.phase_to_pb(state.phase),
        scores=codec.match_view_to_pb(spectator_view(state), name).scores,
    )
