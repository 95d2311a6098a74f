"""Señas: the silent signs of 000's table that tell a teammate what one holds.

Only the sender's teammates ever see a seña. A seña must be true of the sender's unplayed cards: lying to
one's own partner helps no one, and it keeps the list of legal señas short.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Final

from .cards import Card, is_pieza, piezas
from .tantos import envido_points


class Sena(enum.Enum):
    """A seña and, in its docstring, the gesture of 000's table."""

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

_MATAS_1: Final = frozenset(Card.parse(c) for c in ("1e", "1b"))
_MATAS_7: Final = frozenset(Card.parse(c) for c in ("7e", "7o"))
_CHICAS_1: Final = frozenset(Card.parse(c) for c in ("1c", "1o"))


def _holds_pieza(position: int) -> Callable[[Sequence[Card], Card], bool]:
    def holds(cards: Sequence[Card], muestra: Card) -> bool:
        return piezas(muestra)[position] in cards

    return holds


def _holds_plain(rank: int) -> Callable[[Sequence[Card], Card], bool]:
    def holds(cards: Sequence[Card], muestra: Card) -> bool:
        return any(card.rank == rank and not is_pieza(card, muestra) for card in cards)

    return holds


def _holds_any(group: frozenset[Card]) -> Callable[[Sequence[Card], Card], bool]:
    def holds(cards: Sequence[Card], muestra: Card) -> bool:
        return any(card in group and not is_pieza(card, muestra) for card in cards)

    return holds


def _is_negras(cards: Sequence[Card], muestra: Card) -> bool:
    return not any(_TRUTH[sena](cards, muestra) for sena in _CARD_SENAS if sena is not Sena.NEGRAS)


def _many_points(cards: Sequence[Card], muestra: Card) -> bool:
    return len(cards) == 3 and envido_points(cards, muestra) >= MANY_ENVIDO_POINTS


_TRUTH: Final[dict[Sena, Callable[[Sequence[Card], Card], bool]]] = {
    **{
        sena: _holds_pieza(position)
        for position, sena in enumerate(
            (Sena.PIEZA_2, Sena.PIEZA_4, Sena.PIEZA_5, Sena.PIEZA_11, Sena.PIEZA_10)
        )
    },
    Sena.MATA_1: _holds_any(_MATAS_1),
    Sena.MATA_7: _holds_any(_MATAS_7),
    Sena.CHICA_3: _holds_plain(3),
    Sena.CHICA_2: _holds_plain(2),
    Sena.CHICA_1: _holds_any(_CHICAS_1),
    Sena.NEGRAS: _is_negras,
    Sena.ENVIDO: _many_points,
}
_CARD_SENAS: Final = tuple(sena for sena in Sena if sena is not Sena.ENVIDO)



def is_true(sena: Sena, unplayed: Sequence[Card], muestra: Card) -> bool:
    """Whether ``sena`` truthfully describes the sender's unplayed cards under ``muestra``.

    The ENVIDO seña speaks of the whole hand, so it is true only while all three cards are unplayed.
    """
    return _TRUTH[sena](unplayed, muestra)


def true_senas(unplayed: Sequence[Card], muestra: Card) -> tuple[Sena, ...]:
    """Every seña true of these cards, in the table's order."""
    return tuple(sena for sena in Sena if _TRUTH[sena](unplayed, muestra))
