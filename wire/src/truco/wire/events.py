"""Events (events.proto), as each audience may see them, to and from the engine's."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from google.protobuf.message import Message

from truco.engine import events as ev
from truco.engine.deal import CardProof
from truco.wire.v1 import events_pb2

from .cards import card_from_pb, card_to_pb, cards_from_pb, cards_to_pb
from .commands import _CALL_TO_PB, _SENA_TO_PB, call_from_pb, sena_from_pb
from .common import DecodeError, _enum_to_pb
from .rules import rules_from_pb, rules_to_pb

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


def _hand_dealt(d: Any) -> ev.HandDealt:
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


def _card_played(played: Any) -> ev.CardPlayed:
    proof = proofs_from_pb([played.proof])[0] if played.HasField("proof") else None
    return ev.CardPlayed(played.seat, card_from_pb(played.card), proof)


def _hand_ended(h: Any) -> ev.HandEnded:
    shown = tuple((s.seat, cards_from_pb(s.cards)) for s in h.shown)
    return ev.HandEnded(_optional(h, "winner_team"), _END_FROM_PB[h.end], shown, proofs_from_pb(h.proofs))


_DECODERS: dict[str, Callable[[Any], ev.Event]] = {
    "match_started": lambda m: ev.MatchStarted(rules_from_pb(m.rules), m.first_dealer),
    "perros_called": lambda m: ev.PerrosCalled(m.seat),
    "perros_skipped": lambda m: ev.PerrosSkipped(m.seat),
    "hand_dealt": _hand_dealt,
    "flor_sung": lambda m: ev.FlorSung(m.seat),
    "card_played": _card_played,
    "round_ended": lambda m: ev.RoundEnded(m.round, _optional(m, "winner_team"), _optional(m, "winning_seat")),
    "call_made": lambda m: ev.CallMade(m.seat, call_from_pb(m.call)),
    "call_accepted": lambda m: ev.CallAccepted(m.seat, call_from_pb(m.call)),
    "call_declined": lambda m: ev.CallDeclined(m.seat, call_from_pb(m.call)),
    "envido_voided": lambda m: ev.EnvidoVoided(),
    "envido_settled": lambda m: ev.EnvidoSettled(m.winner_seat, m.points),
    "flor_settled": lambda m: ev.FlorSettled(_optional(m, "winner_seat"), _optional(m, "points")),
    "perros_answered": lambda m: ev.PerrosAnswered(m.seat, m.en_ley, m.accept_envido, m.accept_truco),
    "went_to_mazo": lambda m: ev.WentToMazo(m.seat),
    "sena_sent": lambda m: ev.SenaSent(m.seat, sena_from_pb(m.sena)),
    "points_scored": lambda m: ev.PointsScored(m.team, m.points, _SCORE_FROM_PB[m.reason]),
    "hand_ended": _hand_ended,
    "match_ended": lambda m: ev.MatchEnded(m.winner_team),
    "clock_expired": lambda m: ev.ClockExpired(m.seat, m.deadline_us, m.forfeit),
    "seat_left": lambda m: ev.SeatLeft(m.seat),
    "seat_resumed": lambda m: ev.SeatResumed(m.seat),
}
"""How each kind of the Event oneof becomes the engine's event, from its own message."""


def event_from_pb(message: events_pb2.Event) -> ev.Event:
    """The engine event of a stored protobuf event (the current schema).

    :raises DecodeError: an event with no kind this version knows.
    """
    kind = message.WhichOneof("kind")
    decode = _DECODERS.get(kind or "")
    if decode is None:
        raise DecodeError(f"stored event has no known kind ({kind!r})")
    return decode(getattr(message, kind or ""))
