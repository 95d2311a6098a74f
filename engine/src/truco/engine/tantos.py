"""Envido and flor points of a three-card hand under a muestra (the "tantos" of rules-decisions.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .cards import Card, envido_value, is_pieza, pieza_row

FLOR_BASE: Final = 20
"""Every flor and every same-suit pair counts 20 on top of its cards."""


def _face_value(card: Card) -> int:
    """A card's number for the tantos, figures (10, 11, 12) worth 0."""
    return card.rank if card.rank <= 7 else 0


def has_flor(hand: Sequence[Card], muestra: Card) -> bool:
    """A hand has flor with three cards of one suit, two or three piezas, or one pieza and two cards of one suit.

    >>> from .cards import parse_cards
    >>> has_flor(parse_cards(["2o", "7c", "6c"]), Card.parse("1o"))
    True
    """
    a, b, c = hand
    if a.suit is b.suit is c.suit:
        return True
    pieza = pieza_row(muestra)
    in_a, in_b, in_c = pieza[a.index], pieza[b.index], pieza[c.index]
    if in_a:
        return in_b or in_c or b.suit is c.suit  # two piezas, or one and two cards of one suit
    if in_b:
        return in_c or a.suit is c.suit
    return in_c and a.suit is b.suit


def envido_points(hand: Sequence[Card], muestra: Card) -> int:
    """Envido points of a hand: with a pieza, its value plus the highest other card; else two cards of one suit
    count 20 plus both; else the highest card. Never above 37.

    The same formula answers for hands with flor when a match plays without flor; other piezas then count
    their face number, as any other card beside the best pieza does, which keeps the 37 maximum.
    """
    piezas_held = [card for card in hand if is_pieza(card, muestra)]
    if piezas_held:
        best = max(piezas_held, key=lambda card: envido_value(card, muestra))
        rest = [card for card in hand if card is not best]
        return envido_value(best, muestra) + max(_face_value(card) for card in rest)
    best_pair = -1
    for i in range(3):
        for j in range(i + 1, 3):
            if hand[i].suit is hand[j].suit:
                best_pair = max(best_pair, FLOR_BASE + _face_value(hand[i]) + _face_value(hand[j]))
    if best_pair >= 0:
        return best_pair
    return max(_face_value(card) for card in hand)


def flor_value(card: Card, muestra: Card) -> int:
    """A card's flor value: a pieza its envido points minus 20 (10, 9, 8, 7, 7), other cards their number."""
    if is_pieza(card, muestra):
        return envido_value(card, muestra) - FLOR_BASE
    return _face_value(card)


def flor_points(hand: Sequence[Card], muestra: Card) -> int:
    """Flor points: 20 plus each card's flor value; 47 at most (the 2, 4 and 5 of the muestra's suit).

    Meaningful only for a hand that :func:`has_flor`.
    """
    return FLOR_BASE + sum(flor_value(card, muestra) for card in hand)
