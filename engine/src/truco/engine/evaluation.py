"""The rules calculator: everything the rules say about one hand under a muestra, for settling disputes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._inits import HandEvaluationInit
from .cards import Card, is_pieza, strength
from .tantos import envido_points, flor_points, has_flor


class HandError(ValueError):
    """Raised for a hand that cannot be dealt: not three cards, or a card repeated (the muestra included)."""


@dataclass(init=False, frozen=True, slots=True)
class HandEvaluation(HandEvaluationInit):
    """What one hand is worth.

    :ivar envido: envido points; None for a hand with flor (no envido is played with flor).
    :ivar flor: whether the hand has flor.
    :ivar flor_points: the flor's points; None without flor.
    :ivar strength: each card's trick strength, in the hand's order: bigger wins, equal is a parda.
    :ivar piezas: whether each card is a pieza.
    """

    muestra: Card
    cards: tuple[Card, ...]
    envido: int | None
    flor: bool
    flor_points: int | None
    strength: tuple[int, ...]
    piezas: tuple[bool, ...]


def evaluate_hand(muestra: Card, cards: Sequence[Card], *, with_flor: bool = True) -> HandEvaluation:
    """Evaluate a three-card hand; ``with_flor=False`` for matches without flor (every hand has envido).

    :raises HandError: unless ``cards`` are three distinct cards other than the muestra.
    """
    if len(cards) != 3:
        raise HandError(f"a hand has 3 cards, not {len(cards)}")
    if len({muestra, *cards}) != 4:
        raise HandError("a card appears twice (the muestra is not in any hand)")
    flor = with_flor and has_flor(cards, muestra)
    return HandEvaluation(
        muestra=muestra,
        cards=tuple(cards),
        envido=None if flor else envido_points(cards, muestra),
        flor=flor,
        flor_points=flor_points(cards, muestra) if flor else None,
        strength=tuple(strength(card, muestra) for card in cards),
        piezas=tuple(is_pieza(card, muestra) for card in cards),
    )


def compare_cards(first: Card, second: Card, muestra: Card) -> int:
    """1 if ``first`` beats ``second`` under ``muestra``, -1 if it loses, 0 for a parda."""
    a, b = strength(first, muestra), strength(second, muestra)
    return (a > b) - (a < b)
