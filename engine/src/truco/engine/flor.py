"""Flor against flor: the raises (cantos) and what they pay.

Played like the envido chain: con flor envido (+2), contra flor (+3), contra flor al resto (the falta),
each at most once and in that order. Every flor is worth 3 to its team.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .calls import CallKind

FLOR_VALUE: Final = 3
"""What one flor is worth."""

STAKE: Final = {CallKind.CON_FLOR_ENVIDO: 2, CallKind.CONTRA_FLOR: 3}

ORDER: Final = (CallKind.CON_FLOR_ENVIDO, CallKind.CONTRA_FLOR, CallKind.CONTRA_FLOR_AL_RESTO)


def allowed_flor_calls(chain: Sequence[CallKind]) -> tuple[CallKind, ...]:
    """The raises that may open (empty chain) or follow ``chain``: each once, in increasing order."""
    if not chain:
        return ORDER
    return ORDER[ORDER.index(chain[-1]) + 1 :]


def _stakes(chain: Sequence[CallKind]) -> int:
    return sum(STAKE[call] for call in chain)


def accepted_value(chain: Sequence[CallKind], flores: int, falta: int) -> int:
    """Points for the best flor when the last raise is accepted: every flor's 3 plus the chain, where an
    accepted contra flor al resto is worth the falta alone (000: in pico a pico 6 + the two flores = 12)."""
    stake = falta if chain[-1] is CallKind.CONTRA_FLOR_AL_RESTO else _stakes(chain)
    return FLOR_VALUE * flores + stake


def declined_value(chain: Sequence[CallKind], raiser_flores: int) -> int:
    """Points for the raiser's team when its last raise is refused ("con flor me achico"): 3 for each of its
    own flores plus the chain before the refused raise. The refusing team scores none of its flores."""
    return FLOR_VALUE * raiser_flores + _stakes(chain[:-1])


def unraised_value(flores: int) -> int:
    """Points for the best flor when both teams sang and nobody raised: 3 for every flor at the table (002)."""
    return FLOR_VALUE * flores
