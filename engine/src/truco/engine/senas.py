"""Señas: the silent signs of 000's table that tell a teammate what one holds.

Only the sender's teammates ever see a seña. A seña must be true of the sender's unplayed cards: lying to
one's own partner helps no one, and it keeps the list of legal señas short.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Sequence
from typing import Final

from .cards import DECK, Card, piezas
from .tantos import envido_points


class Sena(enum.Enum):
    """A seña and, in its docstring, the gesture of 000's table."""

    __hash__ = object.__hash__  # members are singletons; Enum's own hash is a Python-level call

    PIEZA_2 = "PIEZA_2"
    """Levantar las cejas: the 2 of the muestra (or the 12 that replaces it)."""
    PIEZA_4 = "PIEZA_4"
    """Beso: the 4 of the muestra."""
    PIEZA_5 = "PIEZA_5"
    """Arrugar la nariz: the 5 of the muestra."""
    PIEZA_11 = "PIEZA_11"
    """Guiñada del ojo derecho: the 11 of the muestra."""
    PIEZA_10 = "PIEZA_10"
    """Guiñada del ojo izquierdo: the 10 of the muestra."""
    MATA_1 = "MATA_1"
    """Mueca de labios hacia la derecha: the 1 of espada or of basto."""
    MATA_7 = "MATA_7"
    """Mueca de labios hacia la izquierda: the 7 of espada or of oro."""
    CHICA_3 = "CHICA_3"
    """Morder el labio inferior: any 3."""
    CHICA_2 = "CHICA_2"
    """Boca levemente abierta: any 2 that is not a pieza."""
    CHICA_1 = "CHICA_1"
    """Sacar la punta de la lengua: the 1 of copa or of oro."""
    NEGRAS = "NEGRAS"
    """Ambos ojos cerrados: nothing above the chicas (only figures and common cards)."""
    ENVIDO = "ENVIDO"
    """Lamer el labio superior: many envido points (27 or more)."""


MANY_ENVIDO_POINTS: Final = 27
"""From how many envido points the ENVIDO seña is true: a pieza, or a pair of seven and six."""

_PIEZA_SENAS: Final = (Sena.PIEZA_2, Sena.PIEZA_4, Sena.PIEZA_5, Sena.PIEZA_11, Sena.PIEZA_10)
"""In the order of :func:`truco.engine.cards.piezas`."""

_NAMED_CARDS: Final = {
    **{Card.parse(text): Sena.MATA_1 for text in ("1e", "1b")},
    **{Card.parse(text): Sena.MATA_7 for text in ("7e", "7o")},
    **{Card.parse(text): Sena.CHICA_1 for text in ("1c", "1o")},
    **{card: Sena.CHICA_3 for card in DECK if card.rank == 3},
    **{card: Sena.CHICA_2 for card in DECK if card.rank == 2},
}
"""The cards 000's table names outside the piezas; every other card is negra or común."""


def _card_senas(muestra: Card) -> tuple[Sena | None, ...]:
    row = [_NAMED_CARDS.get(card) for card in DECK]
    for pieza, sena in zip(piezas(muestra), _PIEZA_SENAS, strict=True):
        row[pieza.index] = sena
    return tuple(row)


_CARD_SENA: Final = tuple(_card_senas(muestra) for muestra in DECK)


def true_senas(unplayed: Sequence[Card], muestra: Card) -> frozenset[Sena]:
    """Every seña true of the sender's unplayed cards: one per named card, NEGRAS when none is named, and
    ENVIDO while all three cards are in hand and they make many envido points."""
    row = _CARD_SENA[muestra.index]
    found = {sena for card in unplayed if (sena := row[card.index]) is not None}
    if not found and unplayed:
        found.add(Sena.NEGRAS)
    if len(unplayed) == 3 and _many_points(tuple(unplayed), muestra):
        found.add(Sena.ENVIDO)
    return frozenset(found)


@functools.lru_cache(maxsize=4096)
def _many_points(cards: tuple[Card, ...], muestra: Card) -> bool:
    """Cached: legal señas are listed on every decision, and the hand does not change until a card is played."""
    return envido_points(cards, muestra) >= MANY_ENVIDO_POINTS
