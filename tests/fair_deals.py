"""The fair deal checked from the outside: every proof opens its commitment, and no seat sees a card it may not."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from google.protobuf.message import Message

from truco_client.v1 import (
    events_pb2,
    views_pb2,
)

from .wire_builders import cards_in, kind_of, text_of, texts


@dataclass
class DealRecord:
    """One hand's deal as the seats learn it: HandDealt's seats and per-card commitments, each seat's own proofs
    (its HandDealt projection), and the proofs made public (the muestra, played cards, shown hands)."""

    number: int
    seats: tuple[int, ...]
    commitments: tuple[str, ...]
    hands: dict[int, frozenset[str]] = field(default_factory=dict)
    muestra: str = ""
    salts: dict[int, str] = field(default_factory=dict)  # position -> salt, of every dealt card
    owner: dict[int, int] = field(default_factory=dict)  # position -> seat whose card it is
    public: set[int] = field(default_factory=set)  # positions made public
    revealed: bool = False  # every seat's hand is known (from the seats' own proofs)


def proof_opens(commitments: Sequence[str], proof: events_pb2.CardProof) -> bool:
    """The documented per-card commitment, computed here independently of the server and of the SDK."""
    text = f"{proof.position}|{text_of(proof.card)}|{proof.salt}"
    return hashlib.sha256(text.encode("ascii")).hexdigest() == commitments[proof.position]


def deals_from(
    events: Iterable[events_pb2.Event], own_events: dict[int, Sequence[events_pb2.Event]]
) -> dict[int, DealRecord]:
    """The deals of a full event log (a spectator's), with every seat's own cards from the seats' logs. Checks
    that clients never receive a deal's order or secret, that every proof opens its commitment (each seat's own
    cards, the muestra, every played card, the shown hands) and that each proof names the card it proves."""
    deals: dict[int, DealRecord] = {}
    current: DealRecord | None = None
    for event in events:
        kind = kind_of(event)
        if kind == "hand_dealt":
            dealt = event.hand_dealt
            assert not dealt.order and not dealt.salt, f"HandDealt {dealt.number} carries the deck order or secret"
            assert not dealt.own, f"the spectator receives proofs of hand {dealt.number}'s cards"
            assert len(dealt.commitments) == 40 and len(set(dealt.commitments)) == 40
            digest = hashlib.sha256(" ".join(dealt.commitments).encode("ascii")).hexdigest()
            assert dealt.commitment == digest, "the deal's fingerprint is not its commitments' digest"
            current = DealRecord(dealt.number, tuple(dealt.seats), tuple(dealt.commitments))
            n = len(current.seats)
            assert dealt.muestra.position == 3 * n and proof_opens(current.commitments, dealt.muestra)
            current.muestra = text_of(dealt.muestra.card)
            current.public.add(dealt.muestra.position)
            deals[dealt.number] = current
        elif kind == "card_played":
            assert current is not None
            proof = event.card_played.proof
            assert text_of(proof.card) == text_of(event.card_played.card) and proof_opens(current.commitments, proof)
            current.public.add(proof.position)
        elif kind == "hand_ended":
            assert current is not None
            ended = event.hand_ended
            assert not ended.order and not ended.salt, "HandEnded reveals the deal"
            shown = [text_of(c) for hand in ended.shown for c in hand.cards]
            assert [text_of(p.card) for p in ended.proofs] == shown
            for proof in ended.proofs:
                assert proof_opens(current.commitments, proof), "a shown card does not open its commitment"
                current.public.add(proof.position)
    for seat, seat_events in own_events.items():
        for event in seat_events:
            if kind_of(event) != "hand_dealt":
                continue
            dealt = event.hand_dealt
            deal = deals[dealt.number]
            assert bool(dealt.own) == (seat in deal.seats), f"seat {seat}'s own proofs of hand {dealt.number}"
            for proof in dealt.own:
                assert proof_opens(deal.commitments, proof), f"seat {seat}'s own card does not open its commitment"
                deal.salts[proof.position] = proof.salt
                deal.owner[proof.position] = seat
            if dealt.own:
                deal.hands[seat] = frozenset(text_of(p.card) for p in dealt.own)
    for deal in deals.values():
        deal.revealed = set(deal.hands) == set(deal.seats)
    return deals


def without_own_proofs(event: events_pb2.Event) -> events_pb2.Event:
    """``event`` without the proofs only its seat receives (a HandDealt's ``own``)."""
    if kind_of(event) != "hand_dealt" or not event.hand_dealt.own:
        return event
    copy = events_pb2.Event()
    copy.CopyFrom(event)
    del copy.hand_dealt.own[:]
    return copy


def sealed_salts(deals: dict[int, DealRecord], seat: int | None) -> list[str]:
    """The salts of every card ``seat`` never saw: another seat's card never played nor shown."""
    return [
        salt
        for deal in deals.values()
        for position, salt in deal.salts.items()
        if position not in deal.public and deal.owner[position] != seat
    ]


def assert_sealed(message: Message, salts: Sequence[str], where: str) -> None:
    """``message`` holds none of ``salts`` (the proof of a card its receiver never saw), in any field."""
    data = message.SerializeToString()
    leaked = [salt for salt in salts if salt.encode("ascii") in data]
    assert not leaked, f"{where}: receives the salt of {len(leaked)} card(s) it never saw"


def assert_private(
    message: Message, public: views_pb2.MatchView, seat: int | None, deals: dict[int, DealRecord], where: str
) -> None:
    """``message`` (a seat's view, a spectator's view, a watch message...) shows no card of another seat that is
    still unplayed; a seat view holds exactly the seat's own unplayed cards."""
    if not public.HasField("hand"):
        return
    hand = public.hand
    deal = deals[hand.number]
    assert deal.revealed, f"{where}: hand {hand.number}'s hands are not all known"
    assert text_of(hand.muestra) == deal.muestra, f"{where}: the muestra differs from the revealed deal"
    played = {text_of(p.card) for r in hand.rounds for p in r.plays}
    if isinstance(message, views_pb2.SeatView):
        own = deal.hands.get(message.seat, frozenset())
        assert set(texts(message.cards)) == own - played, f"{where}: seat {message.seat} holds {texts(message.cards)}"
    assert not hand.revealed_order and not hand.revealed_salt, f"{where}: the deal is revealed"
    assert tuple(hand.commitments) == deal.commitments, f"{where}: the view's commitments differ from HandDealt's"
    if hand.ended:
        return
    hidden: set[str] = set()
    for other, cards in deal.hands.items():
        if other != seat:
            hidden |= cards - played
    leaked = set(texts(cards_in(message, frozenset({"last_hand"})))) & hidden  # last_hand: the previous deal
    assert not leaked, f"{where}: seat {seat} sees {sorted(leaked)} of another seat"
