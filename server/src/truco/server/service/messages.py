"""The server's protobuf messages: stored events (:class:`StoredEvents`), the setups stored before setups had a
schema of their own (:func:`legacy_setup`), requests' values (game names, setups, clocks) and the Game resource.
Engine values convert through :mod:`truco.wire` (re-exported here for the servicers); views and replies are
built in :mod:`truco.server.service.projections`.

Decoding client input raises :class:`DecodeError` (mapped to INVALID_ARGUMENT) or, for a well-formed value
the service refuses, :class:`~truco.server.core.reasons.ServiceFailure`; encoding never fails. Events are stored
with :data:`EVENT_SCHEMA`; :func:`decode_event` reads every schema version ever written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from google.protobuf import duration_pb2, timestamp_pb2

from truco import wire
from truco.engine import MatchState, SeatView, SpectatorView, spectator_view
from truco.engine import events as ev
from truco.server.core.clocks import DEFAULT_TAKEOVER_BOT, NO_CLOCKS, Clocks, ClockSettings
from truco.server.core.identities import PLAYER_PREFIX
from truco.server.core.reasons import ServiceFailure, ServiceReason
from truco.server.core.seats import host
from truco.server.core.setups import FixedDeal, Setup
from truco.server.store.records import SEAT_BOT, SEAT_OPEN, SEAT_TAKEN, GameRecord, SeatRecord
from truco.wire import (
    DecodeError,
    call_from_pb,
    card_from_pb,
    card_to_pb,
    cards_from_pb,
    cards_to_pb,
    command_from_pb,
    command_to_pb,
    commands_to_pb,
    event_from_pb,
    event_to_pb,
    hand_view_to_pb,
    phase_to_pb,
    rules_from_pb,
    rules_to_pb,
    sena_from_pb,
)
from truco.wire.v1 import events_pb2, game_service_pb2, views_pb2

EVENT_SCHEMA = 2
"""Version of the stored event encoding. Bump it when an event's meaning changes, and teach decode_event the
old one: stored matches must replay forever.

- 0: the bare message of the event's kind.
- 1: the ``Event`` envelope; the whole-deck commitment, and ``HandEnded`` revealed the deal's order and salt.
- 2: per-card commitments (derived from the recorded order and secret when projected); ``HandEnded`` reveals
  nothing but the shown hands."""


# --- Stored events -----------------------------------------------------------------------------------------------


def encode_event(event: ev.Event) -> tuple[str, int, bytes]:
    """(kind, schema, payload) for the store."""
    return type(event).__name__, EVENT_SCHEMA, event_to_pb(event).SerializeToString()


_ENVELOPE_FIELDS = {
    field.message_type.name: field.name
    for field in events_pb2.Event.DESCRIPTOR.oneofs_by_name["kind"].fields
    if field.message_type is not None
}
"""The ``Event`` oneof field of each event kind (``CardPlayed`` -> ``card_played``)."""


def _upcast_schema0(kind: str, payload: bytes) -> bytes:
    """Schema 0 -> 1. Schema 0 stores the bare message of the event's kind (``events_pb2.CardPlayed``...);
    schema 1 wraps it in the ``Event`` envelope, whose oneof names the kind and which carries a version."""
    name = _ENVELOPE_FIELDS.get(kind)
    if name is None:
        raise DecodeError(f"stored event of unknown kind {kind!r} (schema 0)")
    envelope = events_pb2.Event()
    getattr(envelope, name).MergeFromString(payload)
    return envelope.SerializeToString()


def _upcast_schema1(kind: str, payload: bytes) -> bytes:
    """Schema 1 -> 2. Schema 1's ``HandDealt.commitment`` hashed the whole deck and its ``HandEnded`` revealed
    the deal's order and salt to everyone: both are dropped, so a replayed old match follows the per-card scheme
    (its commitments recomputed from the recorded order and secret) and reveals no card the rules keep hidden."""
    if kind not in ("HandDealt", "HandEnded"):
        return payload
    envelope = events_pb2.Event.FromString(payload)
    if kind == "HandDealt":
        envelope.hand_dealt.ClearField("commitment")
    else:
        envelope.hand_ended.ClearField("order")
        envelope.hand_ended.ClearField("salt")
    return envelope.SerializeToString()


_UPCASTERS: dict[int, Callable[[str, bytes], bytes]] = {0: _upcast_schema0, 1: _upcast_schema1}
"""For each old schema, the function that rewrites a payload of that schema into the next one."""


def decode_event(kind: str, schema: int, payload: bytes) -> ev.Event:
    """The engine event stored as ``payload``; every schema ever written stays readable.

    An older schema is upcast one step at a time (:data:`_UPCASTERS`) to :data:`EVENT_SCHEMA`, then decoded;
    a schema this code does not know (a newer server wrote it) is refused, never misread.

    :raises DecodeError: for an unknown schema or a payload that is not an event of ``kind``.
    """
    if not 0 <= schema <= EVENT_SCHEMA:
        raise DecodeError(f"stored event {kind} has unknown schema {schema}")
    while schema < EVENT_SCHEMA:
        payload = _UPCASTERS[schema](kind, payload)
        schema += 1
    message = events_pb2.Event()
    message.ParseFromString(payload)
    return event_from_pb(message)


# --- Games -------------------------------------------------------------------------------------------------------

NAME_PREFIX = "games/"
_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
BOT_KINDS = {game_service_pb2.BOT_KIND_RANDOM: "random", game_service_pb2.BOT_KIND_HEURISTIC: "heuristic"}
"""The bots a request may seat, to their truco.bots names."""
BOT_KINDS_PB = {name: kind for kind, name in BOT_KINDS.items()}
BOT_LEVELS = {
    game_service_pb2.BOT_LEVEL_BEGINNER: "beginner",
    game_service_pb2.BOT_LEVEL_INTERMEDIATE: "heuristic",
    game_service_pb2.BOT_LEVEL_EXPERT: "expert",
}
"""The bot that plays each level (truco.bots.LEVEL_BOTS), by truco.bots name: a level, when given, decides."""
BOT_LEVELS_PB = {name: level for level, name in BOT_LEVELS.items()}
STORED_KIND_FALLBACK = game_service_pb2.BOT_KIND_HEURISTIC
"""The kind named beside a level no kind names (a takeover bot of the expert level), so a client from before
levels reads a bot kind it knows."""


def bot_from_pb(kind: game_service_pb2.BotKind, level: game_service_pb2.BotLevel) -> str | None:
    """The truco.bots name of a bot given by kind and level (the level decides when set); None when neither is
    one the server knows."""
    if level:
        return BOT_LEVELS.get(level)
    return BOT_KINDS.get(kind)


def bot_to_pb(name: str) -> tuple[game_service_pb2.BotKind, game_service_pb2.BotLevel]:
    """The kind and level that name the bot ``name`` (the kind unspecified for a bot only a level names)."""
    return (
        BOT_KINDS_PB.get(name, game_service_pb2.BOT_KIND_UNSPECIFIED),
        BOT_LEVELS_PB.get(name, game_service_pb2.BOT_LEVEL_UNSPECIFIED),
    )


_SEAT_KINDS = {
    SEAT_OPEN: game_service_pb2.SEAT_KIND_OPEN,
    SEAT_TAKEN: game_service_pb2.SEAT_KIND_TAKEN,
    SEAT_BOT: game_service_pb2.SEAT_KIND_BOT,
}


def game_id_from_name(name: str) -> str:
    """The id in ``games/{id}``. :raises ServiceFailure: INVALID_NAME for another shape."""
    game_id = name[len(NAME_PREFIX) :] if name.startswith(NAME_PREFIX) else ""
    if not _GAME_ID.fullmatch(game_id):
        raise ServiceFailure(
            ServiceReason.INVALID_NAME, "a game's name is games/{id}, the id made of letters, digits, - and _"
        )
    return game_id


def min_version_from_pb(min_version: int) -> int:
    """A read's ``min_version``. :raises ServiceFailure: MALFORMED_REQUEST when negative."""
    if min_version < 0:
        raise ServiceFailure(ServiceReason.MALFORMED_REQUEST, "min_version: a version seen, or 0; never negative")
    return min_version


def setup_from_pb(request: game_service_pb2.CreateGameRequest) -> Setup:
    """The setup a CreateGame asks for. :raises ServiceFailure: for impossible bot seats or deals."""
    rules = rules_from_pb(request.rules)
    bots: dict[int, str] = {}
    for bot in request.bots:
        if not 0 <= bot.seat < rules.players or bot.seat in bots:
            raise ServiceFailure(
                ServiceReason.INVALID_BOT_SEAT, f"bot seat {bot.seat} is not a free seat of {rules.players} players"
            )
        name = bot_from_pb(bot.kind, bot.level)
        if name is None:
            raise ServiceFailure(
                ServiceReason.INVALID_BOT_KIND,
                "give each bot a level (BEGINNER, INTERMEDIATE or EXPERT) or a kind (RANDOM or HEURISTIC)",
            )
        bots[bot.seat] = name
    deals: list[FixedDeal] = []
    for index, deal in enumerate(request.fixed_deals):
        if deal.hands and deal.seat_hands:
            raise ServiceFailure(
                ServiceReason.INVALID_DEAL, f"fixed_deals[{index}]: give the hands from the mano or by seat, not both"
            )
        listed = deal.seat_hands or deal.hands
        hands = tuple(cards_from_pb(h.cards, f"fixed_deals[{index}] card") for h in listed)
        seats = tuple(h.seat for h in deal.seat_hands)
        if len(set(seats)) != len(seats) or not all(0 <= seat < rules.players for seat in seats):
            raise ServiceFailure(
                ServiceReason.INVALID_DEAL, f"fixed_deals[{index}]: each seat_hands seat once, 0 to {rules.players - 1}"
            )
        muestra = card_from_pb(deal.muestra, f"fixed_deals[{index}].muestra")
        cards = [card for hand in hands for card in hand] + [muestra]
        if len(hands) not in (2, rules.players) or any(len(hand) != 3 for hand in hands):
            raise ServiceFailure(
                ServiceReason.INVALID_DEAL, f"fixed_deals[{index}]: three cards for each player of the hand"
            )
        if len(set(cards)) != len(cards):
            raise ServiceFailure(ServiceReason.INVALID_DEAL, f"fixed_deals[{index}]: a card appears twice")
        deals.append((hands, muestra, seats))
    clock = clock_settings_from_pb(request.clock) if request.HasField("clock") else None
    return Setup(rules, bots, tuple(deals), clock)


def legacy_setup(data: bytes) -> Setup:
    """A setup stored before setups had a schema of their own (:mod:`truco.server.core.setups`): the game's
    serialized CreateGameRequest, read as the request was."""
    return setup_from_pb(game_service_pb2.CreateGameRequest.FromString(data))


def _seat_level(seat: SeatRecord, state: MatchState, takeover: str) -> game_service_pb2.BotLevel:
    """The level of the bot that plays ``seat``: its own, or while it is taken over, the ``takeover`` bot's."""
    if seat.kind == SEAT_BOT:
        return bot_to_pb(seat.bot)[1]
    if seat.seat in state.away:
        return bot_to_pb(takeover)[1]
    return game_service_pb2.BOT_LEVEL_UNSPECIFIED


def game_to_pb(
    record: GameRecord,
    state: MatchState,
    clock: ClockSettings | None = None,
    present: Mapping[int, bool] | None = None,
    takeover: str = DEFAULT_TAKEOVER_BOT,
) -> game_service_pb2.Game:
    """The game resource: its seats from the store's record (``present``: who is at the table), its version and
    scores from its state, its clock settings (``takeover``: the bot that stands in for an away seat, see
    :meth:`truco.server.core.setups.Setup.takeover_bot`) and rematch links."""
    name = NAME_PREFIX + record.game_id
    first = host(record.seats)
    game = game_service_pb2.Game(
        name=name,
        rules=rules_to_pb(state.rules),
        seats=[
            game_service_pb2.SeatInfo(
                seat=s.seat,
                kind=_SEAT_KINDS[s.kind],
                bot=BOT_KINDS_PB.get(s.bot, game_service_pb2.BOT_KIND_UNSPECIFIED),
                bot_level=_seat_level(s, state, takeover),
                player_name=s.player_name,
                present=bool(present and present.get(s.seat)),
                taken_over=s.seat in state.away,
                host=s.seat == first,
                player=PLAYER_PREFIX + s.player if s.player else "",
            )
            for s in record.seats
        ],
        version=state.version,
        phase=phase_to_pb(state.phase),
        scores=wire.match_view_to_pb(spectator_view(state), name).scores,
        public=record.public,
        previous_game=NAME_PREFIX + record.previous_game if record.previous_game else "",
        next_game=NAME_PREFIX + record.next_game if record.next_game else "",
        closed=record.closed,
    )
    if clock is not None:
        game.clock.CopyFrom(clock_settings_to_pb(clock, takeover))
    return game


def events_to_pb(events: Sequence[tuple[ev.Event, int]]) -> list[events_pb2.Event]:
    """Events as a seat may see them, each with the public version after it (see views.events_for)."""
    return [event_to_pb(event, version) for event, version in events]


class StoredEvents:
    """Events as the store keeps them: the ``truco.v1.Event`` envelope of schema :data:`EVENT_SCHEMA`."""

    encode = staticmethod(encode_event)
    decode = staticmethod(decode_event)


STORED_EVENTS = StoredEvents()


# --- Views with the clocks ---------------------------------------------------------------------------------------


def fill_match_view(out: views_pb2.MatchView, view: SpectatorView, game: str, clocks: Clocks = NO_CLOCKS) -> None:
    """The public view (:func:`truco.wire.fill_match_view`) with the game's clocks at this version, written into the
    empty message ``out`` (a reply's field): no copy."""
    wire.fill_match_view(out, view, game)
    add_clocks(out, clocks)


def fill_seat_view(out: views_pb2.SeatView, view: SeatView, game: str, clocks: Clocks = NO_CLOCKS) -> None:
    """The seat's view (:func:`truco.wire.fill_seat_view`) with the game's clocks at this version, written into the
    empty message ``out``."""
    wire.fill_seat_view(out, view, game)
    add_clocks(out.public, clocks)


def add_clocks(view: views_pb2.MatchView, clocks: Clocks) -> views_pb2.MatchView:
    """``view`` with the running clock and each seat's takeover and reserve (see :class:`Clocks`)."""
    if clocks.running is not None:
        running = clocks.running
        view.clock.CopyFrom(
            views_pb2.TurnClock(
                seats=list(running.seats),
                started=timestamp_to_pb(running.started_us),
                deadline=timestamp_to_pb(running.deadline_us),
                stand_in=running.stand_in,
            )
        )
    for seat in clocks.seats:
        status = view.seats.add(seat=seat.seat, taken_over=seat.taken_over)
        if seat.reserve_left_us is not None:
            status.reserve_left.CopyFrom(duration_to_pb(seat.reserve_left_us))
        if seat.grace_until_us is not None:
            status.grace_until.CopyFrom(timestamp_to_pb(seat.grace_until_us))
    return view


# --- Clock settings ----------------------------------------------------------------------------------------------

_US = 1_000_000
_POLICIES = (
    game_service_pb2.CLOCK_POLICY_UNSPECIFIED,
    game_service_pb2.CLOCK_POLICY_TAKEOVER,
    game_service_pb2.CLOCK_POLICY_FORFEIT,
)


def duration_us(message: duration_pb2.Duration) -> int:
    return message.seconds * _US + message.nanos // 1000


def duration_to_pb(us: int) -> duration_pb2.Duration:
    return duration_pb2.Duration(seconds=us // _US, nanos=(us % _US) * 1000)


def timestamp_to_pb(us: int) -> timestamp_pb2.Timestamp:
    return timestamp_pb2.Timestamp(seconds=us // _US, nanos=(us % _US) * 1000)


def clock_settings_from_pb(message: game_service_pb2.ClockSettings) -> ClockSettings | None:
    """The clock settings a CreateGame asks for; None for a zero decision time (no clocks).

    :raises ServiceFailure: INVALID_CLOCK for negative times, an unknown policy or bot.
    """
    decision, reserve = duration_us(message.decision), duration_us(message.reserve)
    if decision < 0 or reserve < 0:
        raise ServiceFailure(ServiceReason.INVALID_CLOCK, "clock.decision and clock.reserve cannot be negative")
    if message.on_expiry not in _POLICIES:
        raise ServiceFailure(ServiceReason.INVALID_CLOCK, "clock.on_expiry must be TAKEOVER or FORFEIT")
    if message.takeover_level and message.takeover_level not in BOT_LEVELS:
        raise ServiceFailure(
            ServiceReason.INVALID_CLOCK, "clock.takeover_level must be BEGINNER, INTERMEDIATE or EXPERT"
        )
    if not message.takeover_level and message.takeover_bot and message.takeover_bot not in BOT_KINDS:
        raise ServiceFailure(ServiceReason.INVALID_CLOCK, "clock.takeover_bot must be RANDOM or HEURISTIC")
    if decision == 0:
        return None
    bot = bot_from_pb(message.takeover_bot, message.takeover_level)  # None: the game's level
    return ClockSettings(decision, reserve, message.on_expiry == game_service_pb2.CLOCK_POLICY_FORFEIT, bot)


def clock_settings_to_pb(settings: ClockSettings, takeover: str | None = None) -> game_service_pb2.ClockSettings:
    """The clock settings of a game, naming the bot that takes a seat over: the settings' own, else
    ``takeover`` (the game's level), else the server's default."""
    bot = settings.bot or takeover or DEFAULT_TAKEOVER_BOT
    message = game_service_pb2.ClockSettings(
        decision=duration_to_pb(settings.decision_us),
        on_expiry=game_service_pb2.CLOCK_POLICY_FORFEIT if settings.forfeit else game_service_pb2.CLOCK_POLICY_TAKEOVER,
        takeover_bot=bot_to_pb(bot)[0] or STORED_KIND_FALLBACK,
        takeover_level=bot_to_pb(bot)[1],
    )
    if settings.reserve_us:
        message.reserve.CopyFrom(duration_to_pb(settings.reserve_us))
    return message


__all__ = [
    "EVENT_SCHEMA",
    "DecodeError",
    "add_clocks",
    "call_from_pb",
    "card_from_pb",
    "card_to_pb",
    "cards_from_pb",
    "cards_to_pb",
    "clock_settings_from_pb",
    "clock_settings_to_pb",
    "command_from_pb",
    "command_to_pb",
    "commands_to_pb",
    "decode_event",
    "encode_event",
    "event_from_pb",
    "event_to_pb",
    "fill_seat_view",
    "hand_view_to_pb",
    "phase_to_pb",
    "rules_from_pb",
    "rules_to_pb",
    "sena_from_pb",
]
