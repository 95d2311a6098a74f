"""Dealing from a recorded deck order, and the fair-dealing commitment.

The engine never shuffles: the caller brings the deck order (from a cryptographically secure source) and a
secret salt in a ``Deal`` command, and the order is recorded in the ``HandDealt`` event, so replays need no
random source. Every seat sees the commitment when the hand is dealt; the order and salt are revealed when
the hand ends, so anyone can check :func:`commitment` against them.
"""

from __future__ import annotations

import hashlib
import operator
import re
from collections.abc import Sequence
from typing import Final

from .cards import DECK, Card

SALT_HEX_LENGTH: Final = 32
"""A salt is 16 random bytes written as 32 lowercase hex digits."""
_NOTATION: Final = operator.attrgetter("_text")
_SALT: Final = re.compile(f"[0-9a-f]{{{SALT_HEX_LENGTH}}}")


def commitment(order: Sequence[Card], salt: str) -> str:
    """SHA-256, in hex, of the salt, a colon, and the 40 cards of the deck order joined by spaces.

    >>> len(commitment(DECK, "00" * 16))
    64
    """
    text = salt + ":" + " ".join(map(_NOTATION, order))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def deck_problem(order: Sequence[Card]) -> str | None:
    """Why ``order`` is not a deck order (None when it is all 40 cards, each once)."""
    if len(order) != len(DECK):
        return f"a deck order has {len(DECK)} cards, not {len(order)}"
    if set(map(type, order)) != {Card} or len(set(order)) != len(DECK):  # cards hash by identity: C-speed
        return "a deck order holds every card exactly once"
    return None


def salt_problem(salt: str) -> str | None:
    """Why ``salt`` is not a salt (None when it is 32 lowercase hex digits)."""
    if not isinstance(salt, str) or _SALT.fullmatch(salt) is None:
        return f"a salt is {SALT_HEX_LENGTH} lowercase hex digits"
    return None


def deal_hands(order: Sequence[Card], players: int) -> tuple[tuple[tuple[Card, ...], ...], Card]:
    """Deal three cards each, one at a time, starting with the mano; then turn up the muestra.

    Position ``k`` of ``order`` goes to the ``k % players``-th player from the mano, for the first
    ``3 * players`` cards; the next card is the muestra.
    """
    hands = tuple(tuple(order[k] for k in range(p, 3 * players, players)) for p in range(players))
    return hands, order[3 * players]


def order_for_hands(
    hands: Sequence[Sequence[Card]], muestra: Card, rest: Sequence[Card] = ()
) -> tuple[Card, ...]:
    """The deck order that deals ``hands`` (from the mano) and ``muestra``; the other cards follow, first
    those of ``rest`` in its order and then the remaining ones in deck order. For scripted deals in tests."""
    players = len(hands)
    front: list[Card] = [hands[k % players][k // players] for k in range(3 * players)] + [muestra]
    used = set(front)
    tail = [card for card in rest if card not in used]
    used.update(tail)
    tail += [card for card in DECK if card not in used]
    return tuple(front + tail)
