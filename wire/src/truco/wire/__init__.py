"""The truco.v1 protobuf form of the engine's values, both ways: cards, rules, commands, events and views.

Shared by the server (through :mod:`truco.server.messages`) and the terminal client's over-the-wire bots
(:mod:`truco.terminal.selfplay`), so the wire format has one definition; its own distribution (truco-wire), so
a client needs none of the server's dependencies. Decoding raises :class:`DecodeError` for
a value that is not well formed; encoding never fails.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any, TypeVar, cast

from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper
from google.protobuf.message import Message

from truco.engine import (
    DECK,
    Answer,
    AnswerPerros,
    Call,
    CallKind,
    CallPerros,
    Card,
    CardParseError,
    FaltaEnvido,
    GoToMazo,
    PlayCard,
    RuleSet,
    RuleSetError,
    SeatCommand,
    SeatView,
    Sena,
    SendSena,
    SkipPerros,
    SpectatorView,
    Suit,
)
from truco.engine import events as ev
from truco.engine.deal import CardProof
from truco.engine.state import Phase
from truco.engine.views import HandSummary, HandView, PendingCallView, Standing
from truco.wire.v1 import cards_pb2, commands_pb2, events_pb2, rules_pb2, views_pb2

M = TypeVar("M", bound=Message)


def as_wire(message: Message, kind: type[M]) -> M:
    """``message``, a truco.v1 message of any package generated from the contract (the SDK's ``truco_client.v1``
    for one), typed as this package's ``kind`` for the converters here. The generated packages register the same
    files, and the protobuf runtime keeps one class per message: it is the same object.

    :raises TypeError: a message of another type.
    """
    if message.DESCRIPTOR.full_name != kind.DESCRIPTOR.full_name:
        raise TypeError(f"{message.DESCRIPTOR.full_name} is not a {kind.DESCRIPTOR.full_name}")
    return cast(M, message)


class DecodeError(ValueError):
    """Client input that is not a well-formed value (a card that does not exist, an unset oneof...)."""


E = TypeVar("E", bound=enum.Enum)
P = TypeVar("P", bound=int)


def _enum_to_pb(members: Iterable[E], pb_enum: type[P], prefix: str) -> dict[E, P]:
    """Each engine enum member to the protobuf enum value named ``prefix`` + its value.

    protoc's .pyi types ``Value()`` as a plain int; the value is one of ``pb_enum``'s, hence the cast."""
    wrapper = cast(EnumTypeWrapper, pb_enum)
    return {member: cast(P, wrapper.Value(prefix + str(member.value))) for member in members}


# --- Cards -------------------------------------------------------------------------------------------------------

_SUIT_TO_PB = {
    Suit.ESPADA: cards_pb2.SUIT_ESPADA,
    Suit.BASTO: cards_pb2.SUIT_BASTO,
    Suit.ORO: cards_pb2.SUIT_ORO,
    Suit.COPA: cards_pb2.SUIT_COPA,
}
_SUIT_FROM_PB = {value: suit for suit, value in _SUIT_TO_PB.items()}


_CARD_PB = tuple(cards_pb2.Card(rank=card.rank, suit=_SUIT_TO_PB[card.suit]) for card in DECK)
"""The 40 card messages, built once: protobuf copies a message wherever it is assigned or appended."""


def card_to_pb(card: Card) -> cards_pb2.Card:
    return _CARD_PB[card.index]


def card_from_pb(message: cards_pb2.Card, what: str = "card") -> Card:
    suit = _SUIT_FROM_PB.get(message.suit)
    if suit is None:
        raise DecodeError(f"{what}: suit must be one of ESPADA, BASTO, ORO, COPA")
    try:
        return Card(message.rank, suit)
    except CardParseError as error:
        raise DecodeError(f"{what}: {error}") from None


def cards_to_pb(cards: Sequence[Card]) -> list[cards_pb2.Card]:
    return [card_to_pb(card) for card in cards]


def cards_from_pb(messages: Sequence[cards_pb2.Card], what: str = "card") -> tuple[Card, ...]:
    return tuple(card_from_pb(message, f"{what} {i}") for i, message in enumerate(messages))


# --- Rules -------------------------------------------------------------------------------------------------------

_FALTA_TO_PB = {
    FaltaEnvido.LEADER_REMAINING: rules_pb2.FALTA_ENVIDO_LEADER_REMAINING,
    FaltaEnvido.MATCH_IF_MALAS: rules_pb2.FALTA_ENVIDO_MATCH_IF_MALAS,
}
_FALTA_FROM_PB = {value: falta for falta, value in _FALTA_TO_PB.items()}


def rules_to_pb(rules: RuleSet) -> rules_pb2.RuleSet:
    return rules_pb2.RuleSet(
        players=rules.players,
        target=rules.target,
        falta_envido=_FALTA_TO_PB[rules.falta_envido],
        flor=rules.flor,
        pico_a_pico=rules.pico_a_pico,
        perros=rules.perros,
        senas=rules.senas,
    )


@lru_cache(maxsize=64)
def _rules_pb(rules: RuleSet) -> rules_pb2.RuleSet:
    """:func:`rules_to_pb`, shared: to be copied, never changed (every view carries its match's rules)."""
    return rules_to_pb(rules)


def rules_from_pb(message: rules_pb2.RuleSet) -> RuleSet:
    """A rule set from a request; unset fields take the defaults. :raises DecodeError: for impossible rules."""
    defaults = RuleSet()
    falta = (
        defaults.falta_envido
        if message.falta_envido == rules_pb2.FALTA_ENVIDO_UNSPECIFIED
        else _FALTA_FROM_PB.get(message.falta_envido)
    )
    if falta is None:
        raise DecodeError(f"rules.falta_envido: unknown value {message.falta_envido}")
    try:
        return RuleSet(
            players=message.players or defaults.players,
            target=message.target or defaults.target,
            falta_envido=falta,
            flor=message.flor if message.HasField("flor") else defaults.flor,
            pico_a_pico=message.pico_a_pico if message.HasField("pico_a_pico") else defaults.pico_a_pico,
            perros=message.perros if message.HasField("perros") else defaults.perros,
            senas=message.senas if message.HasField("senas") else defaults.senas,
        )
    except RuleSetError as error:
        raise DecodeError(f"rules: {error}") from None


# --- Commands ----------------------------------------------------------------------------------------------------

_CALL_TO_PB = _enum_to_pb(CallKind, commands_pb2.CallKind, "CALL_KIND_")
_CALL_FROM_PB: dict[int, CallKind] = {value: kind for kind, value in _CALL_TO_PB.items()}
_SENA_TO_PB = _enum_to_pb(Sena, commands_pb2.Sena, "SENA_")
_SENA_FROM_PB: dict[int, Sena] = {value: sena for sena, value in _SENA_TO_PB.items()}


def call_from_pb(value: int) -> CallKind:
    try:
        return _CALL_FROM_PB[value]
    except KeyError:
        raise DecodeError(f"call: unknown call kind {value}") from None


def sena_from_pb(value: int) -> Sena:
    try:
        return _SENA_FROM_PB[value]
    except KeyError:
        raise DecodeError(f"sena: unknown seña {value}") from None


def command_to_pb(command: SeatCommand) -> commands_pb2.Command:
    if isinstance(command, PlayCard):
        return commands_pb2.Command(play_card=commands_pb2.PlayCard(card=card_to_pb(command.card)))
    if isinstance(command, Call):
        return commands_pb2.Command(call=commands_pb2.MakeCall(call=_CALL_TO_PB[command.call]))
    if isinstance(command, Answer):
        answer = commands_pb2.Answer(accept=command.accept)
        if command.call is not None:
            answer.call = _CALL_TO_PB[command.call]
        return commands_pb2.Command(answer=answer)
    if isinstance(command, GoToMazo):
        return commands_pb2.Command(go_to_mazo=commands_pb2.GoToMazo())
    if isinstance(command, SendSena):
        return commands_pb2.Command(send_sena=commands_pb2.SendSena(sena=_SENA_TO_PB[command.sena]))
    if isinstance(command, CallPerros):
        return commands_pb2.Command(call_perros=commands_pb2.CallPerros())
    if isinstance(command, SkipPerros):
        return commands_pb2.Command(skip_perros=commands_pb2.SkipPerros())
    return commands_pb2.Command(
        answer_perros=commands_pb2.AnswerPerros(accept_envido=command.accept_envido, accept_truco=command.accept_truco)
    )


@lru_cache(maxsize=4096)
def _shared_command_pb(command: SeatCommand) -> commands_pb2.Command:
    return command_to_pb(command)


def commands_to_pb(commands: Iterable[SeatCommand]) -> list[commands_pb2.Command]:
    """The messages of ``commands``, for a repeated field to copy (``extend``), never to change: each command's
    message is built once and shared (a seat's legal actions are the same few hundred commands all match long)."""
    return [_shared_command_pb(command) for command in commands]


def command_from_pb(message: commands_pb2.Command, seat: int) -> SeatCommand:
    """The engine command ``message`` asks for on behalf of ``seat``. :raises DecodeError: if malformed."""
    kind = message.WhichOneof("kind")
    if kind == "play_card":
        return PlayCard(seat, card_from_pb(message.play_card.card))
    if kind == "call":
        return Call(seat, call_from_pb(message.call.call))
    if kind == "answer":
        named = message.answer.call
        return Answer(seat, message.answer.accept, call_from_pb(named) if named else None)
    if kind == "go_to_mazo":
        return GoToMazo(seat)
    if kind == "send_sena":
        return SendSena(seat, sena_from_pb(message.send_sena.sena))
    if kind == "call_perros":
        return CallPerros(seat)
    if kind == "skip_perros":
        return SkipPerros(seat)
    if kind == "answer_perros":
        return AnswerPerros(seat, message.answer_perros.accept_envido, message.answer_perros.accept_truco)
    raise DecodeError("command: set exactly one kind of command")


# --- Events ------------------------------------------------------------------------------------------------------

_SCORE_TO_PB = _enum_to_pb(ev.ScoreReason, events_pb2.ScoreReason, "SCORE_REASON_")
_SCORE_FROM_PB: dict[int, ev.ScoreReason] = {value: reason for reason, value in _SCORE_TO_PB.items()}
_END_TO_PB = _enum_to_pb(ev.HandEnd, events_pb2.HandEnd, "HAND_END_")
_END_FROM_PB: dict[int, ev.HandEnd] = {value: end for end, value in _END_TO_PB.items()}


def event_to_pb(event: ev.Event, version: int = 0) -> events_pb2.Event:
    """The protobuf of an engine event, whole (hidden fields included: project it before sending)."""
    out = events_pb2.Event()
    fill_event(out, event, version)
    return out


def fill_event(out: events_pb2.Event, event: ev.Event, version: int = 0) -> None:
    """Write :func:`event_to_pb` of ``event`` into the empty message ``out``, in place."""
    out.version = version
    _ENCODERS[type(event)](out, event)


def _encode_round_ended(out: events_pb2.Event, e: ev.RoundEnded) -> None:
    out.round_ended.round = e.round
    if e.winner_team is not None:
        out.round_ended.winner_team = e.winner_team
    if e.winning_seat is not None:
        out.round_ended.winning_seat = e.winning_seat


def _encode_flor_settled(out: events_pb2.Event, e: ev.FlorSettled) -> None:
    out.flor_settled.SetInParent()
    if e.winner_seat is not None:
        out.flor_settled.winner_seat = e.winner_seat
    if e.points is not None:
        out.flor_settled.points = e.points


def proof_to_pb(proof: CardProof) -> events_pb2.CardProof:
    return events_pb2.CardProof(position=proof.position, card=card_to_pb(proof.card), salt=proof.salt)


@lru_cache(maxsize=2048)
def _shared_proof_pb(proof: CardProof) -> events_pb2.CardProof:
    return proof_to_pb(proof)


def proofs_to_pb(proofs: Iterable[CardProof]) -> list[events_pb2.CardProof]:
    """The messages of ``proofs``, for a repeated field to copy, never to change (shared, like commands')."""
    return [_shared_proof_pb(proof) for proof in proofs]


def proofs_from_pb(messages: Iterable[events_pb2.CardProof]) -> tuple[CardProof, ...]:
    return tuple(CardProof(m.position, card_from_pb(m.card, "proof card"), m.salt) for m in messages)


def _encode_hand_dealt(out: events_pb2.Event, e: ev.HandDealt) -> None:
    message = out.hand_dealt
    message.number = e.number
    message.dealer = e.dealer
    message.seats.extend(e.seats)
    message.pico = e.pico
    message.order.extend(cards_to_pb(e.order))  # recorded only: projections blank the secrets
    message.salt = e.salt
    message.commitment = e.commitment
    message.commitments.extend(e.commitments)
    if e.muestra is not None:
        message.muestra.CopyFrom(proof_to_pb(e.muestra))
    message.own.extend(proofs_to_pb(e.own))


def _encode_card_played(out: events_pb2.Event, e: ev.CardPlayed) -> None:
    message = out.card_played
    message.seat = e.seat
    message.card.CopyFrom(card_to_pb(e.card))
    if e.proof is not None:
        message.proof.CopyFrom(proof_to_pb(e.proof))


def _encode_hand_ended(out: events_pb2.Event, e: ev.HandEnded) -> None:
    message = out.hand_ended
    if e.winner_team is not None:
        message.winner_team = e.winner_team
    message.end = _END_TO_PB[e.end]
    for seat, cards in e.shown:
        message.shown.add(seat=seat, cards=cards_to_pb(cards))
    message.proofs.extend(proofs_to_pb(e.proofs))


_ENCODERS: dict[type, Callable[[events_pb2.Event, Any], None]] = {
    ev.MatchStarted: lambda out, e: out.match_started.CopyFrom(
        events_pb2.MatchStarted(rules=rules_to_pb(e.rules), first_dealer=e.first_dealer)
    ),
    ev.PerrosCalled: lambda out, e: out.perros_called.CopyFrom(events_pb2.PerrosCalled(seat=e.seat)),
    ev.PerrosSkipped: lambda out, e: out.perros_skipped.CopyFrom(events_pb2.PerrosSkipped(seat=e.seat)),
    ev.HandDealt: _encode_hand_dealt,
    ev.FlorSung: lambda out, e: out.flor_sung.CopyFrom(events_pb2.FlorSung(seat=e.seat)),
    ev.CardPlayed: _encode_card_played,
    ev.RoundEnded: _encode_round_ended,
    ev.CallMade: lambda out, e: out.call_made.CopyFrom(events_pb2.CallMade(seat=e.seat, call=_CALL_TO_PB[e.call])),
    ev.CallAccepted: lambda out, e: out.call_accepted.CopyFrom(
        events_pb2.CallAccepted(seat=e.seat, call=_CALL_TO_PB[e.call])
    ),
    ev.CallDeclined: lambda out, e: out.call_declined.CopyFrom(
        events_pb2.CallDeclined(seat=e.seat, call=_CALL_TO_PB[e.call])
    ),
    ev.EnvidoVoided: lambda out, e: out.envido_voided.SetInParent(),
    ev.EnvidoSettled: lambda out, e: out.envido_settled.CopyFrom(
        events_pb2.EnvidoSettled(winner_seat=e.winner_seat, points=e.points)
    ),
    ev.FlorSettled: _encode_flor_settled,
    ev.PerrosAnswered: lambda out, e: out.perros_answered.CopyFrom(
        events_pb2.PerrosAnswered(
            seat=e.seat, en_ley=e.en_ley, accept_envido=e.accept_envido, accept_truco=e.accept_truco
        )
    ),
    ev.WentToMazo: lambda out, e: out.went_to_mazo.CopyFrom(events_pb2.WentToMazo(seat=e.seat)),
    ev.SenaSent: lambda out, e: out.sena_sent.CopyFrom(events_pb2.SenaSent(seat=e.seat, sena=_SENA_TO_PB[e.sena])),
    ev.PointsScored: lambda out, e: out.points_scored.CopyFrom(
        events_pb2.PointsScored(team=e.team, points=e.points, reason=_SCORE_TO_PB[e.reason])
    ),
    ev.HandEnded: _encode_hand_ended,
    ev.MatchEnded: lambda out, e: out.match_ended.CopyFrom(events_pb2.MatchEnded(winner_team=e.winner_team)),
    ev.ClockExpired: lambda out, e: out.clock_expired.CopyFrom(
        events_pb2.ClockExpired(seat=e.seat, deadline_us=e.deadline_us, forfeit=e.forfeit)
    ),
    ev.SeatLeft: lambda out, e: out.seat_left.CopyFrom(events_pb2.SeatLeft(seat=e.seat)),
    ev.SeatResumed: lambda out, e: out.seat_resumed.CopyFrom(events_pb2.SeatResumed(seat=e.seat)),
}


def _optional(message: Message, name: str) -> int | None:
    if not message.HasField(name):
        return None
    value: int = getattr(message, name)
    return value


def event_from_pb(message: events_pb2.Event) -> ev.Event:
    """The engine event of a stored protobuf event (the current schema)."""
    kind = message.WhichOneof("kind")
    if kind == "match_started":
        started = message.match_started
        return ev.MatchStarted(rules_from_pb(started.rules), started.first_dealer)
    if kind == "perros_called":
        return ev.PerrosCalled(message.perros_called.seat)
    if kind == "perros_skipped":
        return ev.PerrosSkipped(message.perros_skipped.seat)
    if kind == "hand_dealt":
        d = message.hand_dealt
        return ev.HandDealt(
            d.number,
            d.dealer,
            tuple(d.seats),
            d.pico,
            cards_from_pb(d.order),
            d.salt,
            commitments=tuple(d.commitments),
            commitment=d.commitment,
            muestra=proofs_from_pb([d.muestra])[0] if d.HasField("muestra") else None,
            own=proofs_from_pb(d.own),
        )
    if kind == "flor_sung":
        return ev.FlorSung(message.flor_sung.seat)
    if kind == "card_played":
        played = message.card_played
        proof = proofs_from_pb([played.proof])[0] if played.HasField("proof") else None
        return ev.CardPlayed(played.seat, card_from_pb(played.card), proof)
    if kind == "round_ended":
        r = message.round_ended
        return ev.RoundEnded(r.round, _optional(r, "winner_team"), _optional(r, "winning_seat"))
    if kind == "call_made":
        return ev.CallMade(message.call_made.seat, call_from_pb(message.call_made.call))
    if kind == "call_accepted":
        return ev.CallAccepted(message.call_accepted.seat, call_from_pb(message.call_accepted.call))
    if kind == "call_declined":
        return ev.CallDeclined(message.call_declined.seat, call_from_pb(message.call_declined.call))
    if kind == "envido_voided":
        return ev.EnvidoVoided()
    if kind == "envido_settled":
        return ev.EnvidoSettled(message.envido_settled.winner_seat, message.envido_settled.points)
    if kind == "flor_settled":
        f = message.flor_settled
        return ev.FlorSettled(_optional(f, "winner_seat"), _optional(f, "points"))
    if kind == "perros_answered":
        a = message.perros_answered
        return ev.PerrosAnswered(a.seat, a.en_ley, a.accept_envido, a.accept_truco)
    if kind == "went_to_mazo":
        return ev.WentToMazo(message.went_to_mazo.seat)
    if kind == "sena_sent":
        return ev.SenaSent(message.sena_sent.seat, sena_from_pb(message.sena_sent.sena))
    if kind == "points_scored":
        p = message.points_scored
        return ev.PointsScored(p.team, p.points, _SCORE_FROM_PB[p.reason])
    if kind == "hand_ended":
        h = message.hand_ended
        shown = tuple((s.seat, cards_from_pb(s.cards)) for s in h.shown)
        return ev.HandEnded(_optional(h, "winner_team"), _END_FROM_PB[h.end], shown, proofs_from_pb(h.proofs))
    if kind == "match_ended":
        return ev.MatchEnded(message.match_ended.winner_team)
    if kind == "clock_expired":
        c = message.clock_expired
        return ev.ClockExpired(c.seat, c.deadline_us, c.forfeit)
    if kind == "seat_left":
        return ev.SeatLeft(message.seat_left.seat)
    if kind == "seat_resumed":
        return ev.SeatResumed(message.seat_resumed.seat)
    raise DecodeError(f"stored event has no known kind ({kind!r})")


# --- Views -------------------------------------------------------------------------------------------------------

_PHASE_TO_PB: dict[Phase, views_pb2.Phase] = _enum_to_pb(
    (phase for phase in Phase if phase is not Phase.NOT_STARTED), views_pb2.Phase, "PHASE_"
)
_PHASE_FROM_PB: dict[int, Phase] = {value: phase for phase, value in _PHASE_TO_PB.items()}
_STANDING_TO_PB = {Standing.MALAS: views_pb2.STANDING_MALAS, Standing.BUENAS: views_pb2.STANDING_BUENAS}
_STANDING_FROM_PB: dict[int, Standing] = {value: standing for standing, value in _STANDING_TO_PB.items()}


def phase_to_pb(phase: Phase) -> views_pb2.Phase:
    return _PHASE_TO_PB.get(phase, views_pb2.PHASE_UNSPECIFIED)


def hand_view_to_pb(hand: HandView) -> views_pb2.HandView:
    out = views_pb2.HandView()
    fill_hand_view(out, hand)
    return out


def fill_hand_view(out: views_pb2.HandView, hand: HandView) -> None:
    """Write ``hand`` into the empty message ``out`` (in place: a view is built where it is sent, never copied)."""
    out.number = hand.number
    out.dealer = hand.dealer
    out.mano = hand.mano
    out.seats.extend(hand.seats)
    out.pico = hand.pico
    out.muestra.CopyFrom(card_to_pb(hand.muestra))
    out.commitment = hand.commitment
    for seat, count in hand.cards_left:
        out.cards_left.add(seat=seat, count=count)
    out.truco_value = hand.truco_value
    out.envido_chain.extend([_CALL_TO_PB[c] for c in hand.envido_chain])
    out.envido_closed = hand.envido_closed
    out.flor_sung.extend(hand.flor_sung)
    out.flor_chain.extend([_CALL_TO_PB[c] for c in hand.flor_chain])
    out.perros_pending = hand.perros_pending
    out.points.extend(hand.points)
    out.ended = hand.ended
    for seat, cards in hand.shown:
        out.shown.add(seat=seat, cards=cards_to_pb(cards))
    out.commitments.extend(hand.commitments)
    out.proofs.extend(proofs_to_pb(hand.proofs))
    out.pending_calls.extend([_pending_to_pb(p) for p in hand.pending_calls])
    for index, plays in enumerate(hand.rounds):
        finished = index < len(hand.results)
        round_pb = out.rounds.add(finished=finished)
        for seat, card in plays:
            round_pb.plays.add(seat=seat, card=card_to_pb(card))
        winner = hand.results[index] if finished else None
        if winner is not None:
            round_pb.winner_team = winner
    if hand.turn is not None:
        out.turn = hand.turn
    if hand.truco_owner is not None:
        out.truco_owner = hand.truco_owner
    if hand.pending is not None:
        out.pending.CopyFrom(_pending_to_pb(hand.pending))
    if hand.envido_winner is not None:
        out.envido_winner_seat, out.envido_winner_points = hand.envido_winner
    if hand.flor_winner is not None:
        out.flor_winner_seat, out.flor_winner_points = hand.flor_winner
    if hand.perros_by is not None:
        out.perros_by = hand.perros_by
    if hand.winner_team is not None:
        out.winner_team = hand.winner_team


def _pending_to_pb(pending: PendingCallView) -> views_pb2.PendingCall:
    return views_pb2.PendingCall(
        call=_CALL_TO_PB[pending.call], seat=pending.seat, team=pending.team, value=pending.value
    )


def _pending_from_pb(message: views_pb2.PendingCall) -> PendingCallView:
    return PendingCallView(call_from_pb(message.call), message.seat, message.team, message.value)


def hand_summary_to_pb(summary: HandSummary) -> views_pb2.HandSummary:
    out = views_pb2.HandSummary(
        number=summary.number,
        rounds=[
            views_pb2.RoundResult(winner_team=w) if w is not None else views_pb2.RoundResult() for w in summary.results
        ],
        points=list(summary.points),
        scored=[views_pb2.HandScore(team=t, points=p, reason=_SCORE_TO_PB[r]) for t, p, r in summary.scored],
        shown=[events_pb2.ShownHand(seat=s, cards=cards_to_pb(c)) for s, c in summary.shown],
        proofs=proofs_to_pb(summary.proofs),
    )
    if summary.winner_team is not None:
        out.winner_team = summary.winner_team
    if summary.end is not None:
        out.end = _END_TO_PB[summary.end]
    if summary.envido_winner is not None:
        out.envido_winner_seat, out.envido_winner_points = summary.envido_winner
    if summary.flor_winner is not None:
        out.flor_winner_seat, out.flor_winner_points = summary.flor_winner
    return out


def hand_summary_from_pb(message: views_pb2.HandSummary) -> HandSummary:
    """The engine's summary of a protobuf one (the inverse of :func:`hand_summary_to_pb`)."""
    return HandSummary(
        number=message.number,
        winner_team=_optional(message, "winner_team"),
        end=_END_FROM_PB.get(message.end),
        results=tuple(_optional(r, "winner_team") for r in message.rounds),
        points=(message.points[0], message.points[1]) if len(message.points) == 2 else (0, 0),
        scored=tuple((s.team, s.points, _SCORE_FROM_PB[s.reason]) for s in message.scored),
        shown=tuple((s.seat, cards_from_pb(s.cards)) for s in message.shown),
        proofs=proofs_from_pb(message.proofs),
        envido_winner=(
            (message.envido_winner_seat, message.envido_winner_points)
            if message.HasField("envido_winner_seat")
            else None
        ),
        flor_winner=(
            (message.flor_winner_seat, message.flor_winner_points) if message.HasField("flor_winner_seat") else None
        ),
    )


def match_view_to_pb(view: SpectatorView, game: str) -> views_pb2.MatchView:
    out = views_pb2.MatchView()
    fill_match_view(out, view, game)
    return out


def fill_match_view(out: views_pb2.MatchView, view: SpectatorView, game: str) -> None:
    """Write the public view of ``game`` into the empty message ``out``, in place."""
    out.game = game
    out.rules.CopyFrom(_rules_pb(view.rules))
    out.version = view.version
    out.phase = phase_to_pb(view.phase)
    for team in (0, 1):
        out.scores.add(team=team, points=view.scores[team], standing=_STANDING_TO_PB[view.standings[team]])
    out.to_act.extend(view.to_act)
    if view.hand is not None:
        fill_hand_view(out.hand, view.hand)
    if view.winner is not None:
        out.winner_team = view.winner
    if view.last_hand is not None:
        out.last_hand.CopyFrom(hand_summary_to_pb(view.last_hand))


def seat_view_to_pb(view: SeatView, game: str) -> views_pb2.SeatView:
    out = views_pb2.SeatView()
    fill_seat_view(out, view, game)
    return out


def fill_seat_view(out: views_pb2.SeatView, view: SeatView, game: str) -> None:
    """Write ``view``, the seat's view of ``game``, into the empty message ``out``, in place."""
    fill_match_view(out.public, view.public, game)
    fill_seat_fields(out, view)


def fill_seat_fields(out: views_pb2.SeatView, view: SeatView) -> None:
    """Write what is the seat's own in ``view`` (all but ``public``) into ``out``, in place: a server that has the
    public view's bytes already appends them (a message's bytes are the concatenation of its fields')."""
    out.seat = view.seat
    out.team = view.team
    out.cards.extend(cards_to_pb(view.cards))
    for seat, sena in view.senas:
        out.senas.add(seat=seat, sena=_SENA_TO_PB[sena])
    out.legal_actions.extend(commands_to_pb(view.legal_actions))
    out.own_proofs.extend(proofs_to_pb(view.own_proofs))
    if view.envido is not None:
        out.envido = view.envido
    if view.flor is not None:
        out.flor = view.flor


def hand_view_from_pb(message: views_pb2.HandView) -> HandView:
    """The engine's hand view of a protobuf one (the inverse of :func:`hand_view_to_pb`)."""
    stack = tuple(_pending_from_pb(p) for p in message.pending_calls)
    return HandView(
        number=message.number,
        dealer=message.dealer,
        mano=message.mano,
        seats=tuple(message.seats),
        pico=message.pico,
        muestra=card_from_pb(message.muestra, "muestra"),
        commitment=message.commitment,
        rounds=tuple(tuple((p.seat, card_from_pb(p.card)) for p in r.plays) for r in message.rounds if r.plays),
        results=tuple(_optional(r, "winner_team") for r in message.rounds if r.finished),
        turn=_optional(message, "turn"),
        cards_left=tuple((c.seat, c.count) for c in message.cards_left),
        truco_value=message.truco_value,
        truco_owner=_optional(message, "truco_owner"),
        pending=_pending_from_pb(message.pending) if message.HasField("pending") else None,
        envido_chain=tuple(call_from_pb(c) for c in message.envido_chain),
        envido_closed=message.envido_closed,
        envido_winner=(
            (message.envido_winner_seat, message.envido_winner_points)
            if message.HasField("envido_winner_seat")
            else None
        ),
        flor_sung=tuple(message.flor_sung),
        flor_chain=tuple(call_from_pb(c) for c in message.flor_chain),
        flor_winner=(
            (message.flor_winner_seat, message.flor_winner_points) if message.HasField("flor_winner_seat") else None
        ),
        perros_by=_optional(message, "perros_by"),
        perros_pending=message.perros_pending,
        points=(message.points[0], message.points[1]) if len(message.points) == 2 else (0, 0),
        ended=message.ended,
        winner_team=_optional(message, "winner_team"),
        shown=tuple((s.seat, cards_from_pb(s.cards)) for s in message.shown),
        pending_calls=stack,
        commitments=tuple(message.commitments),
        proofs=proofs_from_pb(message.proofs),
    )


def match_view_from_pb(message: views_pb2.MatchView) -> SpectatorView:
    """The engine's spectator view of a protobuf match view. ``next_dealer`` is not on the wire: None."""
    scores = {s.team: s.points for s in message.scores}
    standings = {s.team: _STANDING_FROM_PB.get(s.standing, Standing.MALAS) for s in message.scores}
    return SpectatorView(
        rules=rules_from_pb(message.rules),
        version=message.version,
        phase=_PHASE_FROM_PB.get(message.phase, Phase.NOT_STARTED),
        scores=(scores.get(0, 0), scores.get(1, 0)),
        standings=(standings.get(0, Standing.MALAS), standings.get(1, Standing.MALAS)),
        hand=hand_view_from_pb(message.hand) if message.HasField("hand") else None,
        to_act=tuple(message.to_act),
        next_dealer=None,
        winner=_optional(message, "winner_team"),
        last_hand=hand_summary_from_pb(message.last_hand) if message.HasField("last_hand") else None,
    )


def seat_view_from_pb(message: views_pb2.SeatView) -> SeatView:
    """The engine's seat view of a protobuf one: what a bot of :mod:`truco.bots` reads, made of what the seat
    may see and nothing more (the inverse of :func:`seat_view_to_pb`, but for ``next_dealer``)."""
    return SeatView(
        seat=message.seat,
        team=message.team,
        public=match_view_from_pb(message.public),
        cards=cards_from_pb(message.cards),
        envido=_optional(message, "envido"),
        flor=_optional(message, "flor"),
        senas=tuple((s.seat, sena_from_pb(s.sena)) for s in message.senas),
        legal_actions=tuple(command_from_pb(a, message.seat) for a in message.legal_actions),
        own_proofs=proofs_from_pb(message.own_proofs),
    )
