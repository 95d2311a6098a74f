"""The Spanish deck, the muestra and its piezas, and the trick order of Truco Uruguayo.

Cards are written number then suit letter: ``1e`` (espada), ``7o`` (oro), ``12c`` (copa), ``4b`` (basto).
Every card is one of 40 interned values, so comparing and hashing cards is cheap.
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterable, Sequence
from typing import Final


class Suit(enum.Enum):
    """The four suits of the Spanish deck, valued by their notation letter."""

    __hash__ = object.__hash__  # members are singletons; Enum's own hash is a Python-level call

    ESPADA = "e"
    BASTO = "b"
    ORO = "o"
    COPA = "c"


RANKS: Final = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
"""The ten ranks of each suit: the 40-card deck has no 8, 9 or jokers."""

SUITS: Final = (Suit.ESPADA, Suit.BASTO, Suit.ORO, Suit.COPA)


class CardParseError(ValueError):
    """Raised for text that is not a card in the project's notation."""


class Card:
    """One card of the 40-card deck, written ``Card(1, Suit.ESPADA)`` or ``Card.parse("1e")``.

    Cards are interned: there are exactly 40 card objects and ``Card(rank, suit)`` returns one of them, so two
    cards are equal exactly when they are the same object (hashing and comparing them costs nothing).

    :ivar rank: 1 to 7, 10, 11 or 12.
    :ivar suit: the card's :class:`Suit`.
    :ivar index: position 0..39 in :data:`DECK` (suit-major), a stable small integer for tables.
    """

    __slots__ = ("_text", "index", "rank", "suit")

    rank: int
    suit: Suit
    index: int
    _text: str

    def __new__(cls, rank: int, suit: Suit) -> Card:
        """The card of that rank and suit. :raises CardParseError: for a rank the deck lacks (8, 9, 13...)."""
        try:
            return _BY_RANK_SUIT[(rank, suit)]
        except (KeyError, TypeError):
            pass
        if rank not in RANKS or not isinstance(suit, Suit):
            suit_name = suit.name.lower() if isinstance(suit, Suit) else repr(suit)
            raise CardParseError(f"there is no {rank!r} of {suit_name} in the 40-card Spanish deck")
        # Not interned yet: only while this module builds DECK, once for each of the 40 cards.
        card = object.__new__(cls)
        card.rank, card.suit = rank, suit
        card.index = SUITS.index(suit) * len(RANKS) + RANKS.index(rank)
        card._text = f"{rank}{suit.value}"
        _BY_RANK_SUIT[(rank, suit)] = card
        return card

    @staticmethod
    def of(rank: int, suit: Suit) -> Card:
        """The same as ``Card(rank, suit)``."""
        return Card(rank, suit)

    @staticmethod
    def parse(text: str) -> Card:
        """The card written as ``text`` (``"1e"``, ``"12c"``; case and surrounding blanks ignored).

        :raises CardParseError: when ``text`` is not a card.

        >>> Card.parse("7O")
        Card('7o')
        """
        cleaned = text.strip().lower()
        number = cleaned[:-1]
        # One spelling per card: ASCII digits without a leading zero ("07o" and "７o" are not cards).
        if not (number.isascii() and number.isdigit()) or number.startswith("0"):
            raise CardParseError(f"{text!r} is not a card: write number then suit letter, like 1e or 12c")
        try:
            suit = Suit(cleaned[-1])
        except ValueError:
            raise CardParseError(
                f"{text!r} has no suit: the suit letters are e (espada), b (basto), o (oro), c (copa)"
            ) from None
        return Card(int(number), suit)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card('{self}')"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __hash__(self) -> int:
        return self.index  # equal cards are one object; compiled, this is C; pure Python uses object's (below)

    def __reduce__(self) -> tuple[object, tuple[int, Suit]]:
        return (Card, (self.rank, self.suit))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self


# Pure Python: identity hashing at C speed instead of a Python-level __hash__ call (cards key hot dicts).
# Compiled by mypyc the type is immutable (TypeError), and its __hash__ above is already C.
with contextlib.suppress(TypeError):
    Card.__hash__ = object.__hash__  # type: ignore[method-assign]

_BY_RANK_SUIT: Final[dict[tuple[int, Suit], Card]] = {}

DECK: Final[tuple[Card, ...]] = tuple(Card(rank, suit) for suit in SUITS for rank in RANKS)
"""The 40 cards, suit-major: espadas 1..12, then bastos, oros, copas."""


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    """Parse several cards. :raises CardParseError: on the first one that is not a card."""
    return tuple(Card.parse(text) for text in texts)


# --- Piezas ---------------------------------------------------------------------------------------------------

PIEZA_RANKS: Final = (2, 4, 5, 11, 10)
"""The piezas of the muestra's suit, highest first."""

PIEZA_ENVIDO_VALUES: Final = (30, 29, 28, 27, 27)
"""Envido value of each pieza, in the order of :data:`PIEZA_RANKS`."""


def piezas(muestra: Card) -> tuple[Card, ...]:
    """The five piezas under ``muestra``, highest first.

    When the muestra is itself a pieza, the 12 of its suit takes that pieza's place and rank.

    >>> [str(c) for c in piezas(Card.parse("4o"))]
    ['2o', '12o', '5o', '11o', '10o']
    """
    return tuple(
        Card(12 if rank == muestra.rank else rank, muestra.suit) for rank in PIEZA_RANKS
    )


# --- Trick strength -------------------------------------------------------------------------------------------

# Strength of the cards that are not piezas, lowest first; cards in one tuple tie (a parda between teams).
_ORDINARY_ORDER: Final[tuple[tuple[str, ...], ...]] = (
    ("4e", "4b", "4o", "4c"),
    ("5e", "5b", "5o", "5c"),
    ("6e", "6b", "6o", "6c"),
    ("7b", "7c"),
    ("10e", "10b", "10o", "10c"),
    ("11e", "11b", "11o", "11c"),
    ("12e", "12b", "12o", "12c"),
    ("1c", "1o"),
    ("2e", "2b", "2o", "2c"),
    ("3e", "3b", "3o", "3c"),
    ("7o",),
    ("7e",),
    ("1b",),
    ("1e",),
)
_ORDINARY_STRENGTH: Final = {
    Card.parse(text).index: level for level, group in enumerate(_ORDINARY_ORDER, start=1) for text in group
}
PIEZA_BASE_STRENGTH: Final = len(_ORDINARY_ORDER) + 1
"""Strength of the lowest pieza; every pieza beats every other card."""


def _strength_row(muestra: Card) -> tuple[int, ...]:
    row = [_ORDINARY_STRENGTH[card.index] for card in DECK]
    for position, pieza in enumerate(piezas(muestra)):
        row[pieza.index] = PIEZA_BASE_STRENGTH + len(PIEZA_RANKS) - 1 - position
    return tuple(row)


_STRENGTH: Final = tuple(_strength_row(muestra) for muestra in DECK)


def strength(card: Card, muestra: Card) -> int:
    """The card's trick strength under ``muestra``: bigger wins a round, equal between teams is a parda.

    >>> strength(Card.parse("2o"), muestra=Card.parse("1o")) > strength(Card.parse("1e"), Card.parse("1o"))
    True
    """
    return _STRENGTH[muestra.index][card.index]


def strength_table(muestra: Card) -> Sequence[int]:
    """Strengths of all 40 cards under ``muestra``, indexed by :attr:`Card.index` (for hot loops)."""
    return _STRENGTH[muestra.index]


# --- Envido and flor value of one card ------------------------------------------------------------------------


def _envido_row(muestra: Card) -> tuple[int, ...]:
    row = [card.rank if card.rank <= 7 else 0 for card in DECK]
    for pieza, value in zip(piezas(muestra), PIEZA_ENVIDO_VALUES, strict=True):
        row[pieza.index] = value
    return tuple(row)


_ENVIDO_VALUE: Final = tuple(_envido_row(muestra) for muestra in DECK)
_PIEZA_MASK: Final = tuple(frozenset(p.index for p in piezas(muestra)) for muestra in DECK)
_PIEZA_ROW: Final = tuple(tuple(card.index in mask for card in DECK) for mask in _PIEZA_MASK)


def envido_value(card: Card, muestra: Card) -> int:
    """Envido value of one card: piezas 30, 29, 28, 27, 27; other cards their number, 10/11/12 worth 0."""
    return _ENVIDO_VALUE[muestra.index][card.index]


def pieza_indexes(muestra: Card) -> frozenset[int]:
    """The :attr:`Card.index` of the five piezas under ``muestra`` (for hot loops)."""
    return _PIEZA_MASK[muestra.index]


def pieza_row(muestra: Card) -> tuple[bool, ...]:
    """Whether each card is a pieza under ``muestra``, indexed by :attr:`Card.index` (for hot loops)."""
    return _PIEZA_ROW[muestra.index]


def is_pieza(card: Card, muestra: Card) -> bool:
    """Whether ``card`` is one of the five piezas under ``muestra``."""
    return card.index in _PIEZA_MASK[muestra.index]
