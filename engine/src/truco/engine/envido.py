"""The envido chain (toques): which raise may follow which, and what it pays accepted or declined.

A chain holds envido at most twice and real envido once, in that order, and ends with falta envido
(000's table; 004's examples). Each raise comes from the team that was just challenged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .calls import CallKind
from .rules import FaltaEnvido, RuleSet

STAKE: Final = {CallKind.ENVIDO: 2, CallKind.REAL_ENVIDO: 3}
"""Points each call adds when accepted; falta envido is valued by the score instead."""

MAX_COUNT: Final = {CallKind.ENVIDO: 2, CallKind.REAL_ENVIDO: 1, CallKind.FALTA_ENVIDO: 1}

ORDER: Final = (CallKind.ENVIDO, CallKind.REAL_ENVIDO, CallKind.FALTA_ENVIDO)

PICO_FALTA: Final = 6
"""In pico a pico the falta envido is worth 6 (and contra flor al resto 6 plus the two flores) (000)."""

DECLINED_FIRST_CALL: Final = 1
"""A first call refused pays its caller one point."""


def allowed_envido_calls(chain: Sequence[CallKind]) -> tuple[CallKind, ...]:
    """The calls that may open (empty chain) or raise ``chain``.

    >>> allowed_envido_calls([CallKind.ENVIDO])
    (<CallKind.ENVIDO: 'ENVIDO'>, <CallKind.REAL_ENVIDO: 'REAL_ENVIDO'>, <CallKind.FALTA_ENVIDO: 'FALTA_ENVIDO'>)
    """
    if not chain:
        return ORDER
    last = ORDER.index(chain[-1])
    return tuple(
        call for call in ORDER[last:] if chain.count(call) < MAX_COUNT[call]
    )


def chain_sum(chain: Sequence[CallKind]) -> int:
    """Sum of the fixed stakes of a chain without falta envido."""
    return sum(STAKE[call] for call in chain)


def accepted_value(chain: Sequence[CallKind], falta: int) -> int:
    """Points for the envido winner: the sum of the chain, or the falta alone when falta envido was accepted."""
    if chain[-1] is CallKind.FALTA_ENVIDO:
        return falta
    return chain_sum(chain)


def declined_value(chain: Sequence[CallKind]) -> int:
    """Points for the caller of the refused (last) call: the chain before it, or 1 if it was the first call.

    004: envido-envido no quiero = 2; envido-real envido no quiero = 2.
    """
    before = chain[:-1]
    return chain_sum(before) if before else DECLINED_FIRST_CALL


def falta(rules: RuleSet, scores: Sequence[int], pico: bool, team: int) -> int:
    """The falta ``team`` takes for an accepted falta envido (or contra flor al resto): 6 in pico a pico, else
    what the leader needs; under ``MATCH_IF_MALAS`` while the leader is en malas, what ``team`` needs."""
    if pico:
        return PICO_FALTA
    leader = max(scores)
    if rules.falta_envido is FaltaEnvido.MATCH_IF_MALAS and leader < rules.buenas_from:
        return rules.target - scores[team]
    return rules.target - leader
