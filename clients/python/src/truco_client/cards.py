"""Cards in the project's notation: number then suit letter (``1e`` espada, ``4b`` basto, ``7o`` oro, ``12c`` copa).

The 40-card Spanish deck has ranks 1 to 7, 10, 11 and 12 in each suit. These helpers only convert between the
notation and ``truco.v1.Card``; the rules (piezas, strengths, envido) are the server's, asked through
``RulesService``.

>>> card_text(card("12c"))
'12c'
>>> card_name("11o")
'caballo de oro'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from .v1 import cards_pb2, game_service_pb2

RANKS: Final = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
"""The ten ranks of each suit."""

SUIT_BY_LETTER: Final[dict[str, cards_pb2.Suit]] = {
    "e": cards_pb2.SUIT_ESPADA,
    "b": cards_pb2.SUIT_BASTO,
    "o": cards_pb2.SUIT_ORO,
    "c": cards_pb2.SUIT_COPA,
}
"""The notation's suit letters."""

LETTER_BY_SUIT: Final = {suit: letter for letter, suit in SUIT_BY_LETTER.items()}

SUIT_NAMES: Final = {
    cards_pb2.SUIT_ESPADA: "espada",
    cards_pb2.SUIT_BASTO: "basto",
    cards_pb2.SUIT_ORO: "oro",
    cards_pb2.SUIT_COPA: "copa",
}
"""Each suit's Spanish name, singular."""

_FIGURES: Final = {10: "sota", 11: "caballo", 12: "rey"}

CardLike = str | cards_pb2.Card
"""A card written in notation (``"1e"``) or already a ``truco.v1.Card``."""


class CardError(ValueError):
    """Text that is not a card of the 40-card deck in the notation (``"8e"``, ``"1x"``, ``"e1"``)."""


def card(value: CardLike) -> cards_pb2.Card:
    """The ``truco.v1.Card`` written as ``value`` (case and surrounding blanks ignored); a Card is copied.

    :raises CardError: when ``value`` is not a card of the deck.

    >>> card("7O")
    rank: 7
    suit: SUIT_ORO
    <BLANKLINE>
    """
    if isinstance(value, cards_pb2.Card):
        card_text(value)  # validates
        return cards_pb2.Card(rank=value.rank, suit=value.suit)
    cleaned = value.strip().lower()
    number, letter = cleaned[:-1], cleaned[-1:]
    if not (number.isascii() and number.isdigit()) or number.startswith("0"):
        raise CardError(f"{value!r} is not a card: write number then suit letter, like 1e or 12c")
    suit = SUIT_BY_LETTER.get(letter)
    if suit is None:
        raise CardError(f"{value!r} has no suit: the suit letters are e (espada), b (basto), o (oro), c (copa)")
    rank = int(number)
    if rank not in RANKS:
        raise CardError(f"there is no {rank} in the 40-card Spanish deck (ranks 1-7, 10, 11, 12)")
    return cards_pb2.Card(rank=rank, suit=suit)


def parse_cards(values: str | Iterable[CardLike]) -> list[cards_pb2.Card]:
    """Several cards, from ``"1e 2e 3e"`` or an iterable of card texts or Cards. :raises CardError:"""
    items: Iterable[CardLike] = values.split() if isinstance(values, str) else values
    return [card(item) for item in items]


def card_text(value: cards_pb2.Card) -> str:
    """The notation of a ``truco.v1.Card``: ``"1e"``. :raises CardError: for a rank or suit the deck lacks."""
    letter = LETTER_BY_SUIT.get(value.suit)
    if letter is None or value.rank not in RANKS:
        raise CardError(f"not a card of the deck: rank {value.rank}, suit {value.suit}")
    return f"{value.rank}{letter}"


def card_name(value: CardLike) -> str:
    """A short Spanish name: ``"1 de espada"``, ``"sota de copa"`` (10), ``"caballo de oro"`` (11), ``"rey de oro"``."""
    pb = card(value)
    rank = _FIGURES.get(pb.rank, str(pb.rank))
    return f"{rank} de {SUIT_NAMES[pb.suit]}"


def fixed_deal(
    hands: Sequence[str | Iterable[CardLike]] | Mapping[int, str | Iterable[CardLike]], muestra: CardLike
) -> game_service_pb2.FixedDeal:
    """A scripted deal for ``create_game(fixed_deals=...)``: each player's three cards, and the muestra. A
    sequence lists the hands from the mano; a mapping names them by seat (the server orders them).

    >>> len(fixed_deal(["1e 2e 3e", "4c 5c 6c"], "7o").hands)
    2
    >>> [h.seat for h in fixed_deal({1: "1e 2e 3e", 0: "4c 5c 6c"}, "7o").seat_hands]
    [1, 0]
    """
    if isinstance(hands, Mapping):
        return game_service_pb2.FixedDeal(
            seat_hands=[game_service_pb2.SeatHand(seat=seat, cards=parse_cards(h)) for seat, h in hands.items()],
            muestra=card(muestra),
        )
    return game_service_pb2.FixedDeal(
        hands=[game_service_pb2.DealtHand(cards=parse_cards(hand)) for hand in hands], muestra=card(muestra)
    )
