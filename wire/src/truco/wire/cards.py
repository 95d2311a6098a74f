"""Cards (cards.proto) to and from the engine's."""

from __future__ import annotations

from collections.abc import Sequence

from truco.engine import (
    DECK,
    Card,
    CardParseError,
    Suit,
)
from truco.wire.v1 import cards_pb2

from .common import DecodeError

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
