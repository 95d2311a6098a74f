"""How a careful player answers a bet: by its own points *and* what the bet puts at stake at this score.

A careful player reads the caller's strength from the call (who sings falta envido usually holds 30 or more),
weighs its chance of winning the envido against that reading, and compares the chance of winning the *match*
after accepting (won or lost) with the chance after declining. So it accepts an envido with 27 at 5 to 5, yet
declines a falta envido with the same 27 when the falta decides the match, and accepts a falta it is likely to
lose when declining leaves it lost anyway. Facing truco it calls bluffs with any fair card and never folds a hand
with a 2, a 3 or better. The expert's imagined players (:mod:`truco.bots.playout`) and the gauntlet's careful
caller (:mod:`truco.bots.styles`) answer this way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from truco.engine import CallKind, RuleSet
from truco.engine.envido import accepted_value, declined_value, falta

from .match_odds import win_chance

CALLER_READ: Final = {CallKind.ENVIDO: 27.0, CallKind.REAL_ENVIDO: 29.0, CallKind.FALTA_ENVIDO: 30.5}
"""The envido points a careful player reads in each call (the caller's likely points)."""
READ_SPREAD: Final = 2.0
"""How loosely a call tells the caller's points (the logistic's scale, in points)."""
MANO_EDGE: Final = 0.5
"""Ties go to the mano: half a point of edge for it."""
FAIR: Final = 9
"""The strength of a 2: with a 2, a 3 or better a careful player calls a truco it may be bluffed with."""
STRONG: Final = 11


def envido_win_chance(points: int, call: CallKind, mano: bool) -> float:
    """The chance ``points`` beat a caller who made ``call`` (as a careful player reads it)."""
    edge = points - CALLER_READ.get(call, 27.0) + (MANO_EDGE if mano else -MANO_EDGE)
    return 1.0 / (1.0 + math.exp(-edge / READ_SPREAD))


def accepts_envido(
    rules: RuleSet, scores: Sequence[int], team: int, chain: Sequence[CallKind], points: int, mano: bool, pico: bool
) -> bool:
    """Whether a careful player of ``team`` with ``points`` accepts the envido ``chain`` (its last call pending)
    at ``scores``: when winning the match is likelier accepting than declining."""
    ours, theirs = scores[team], scores[1 - team]
    target = rules.target
    p = envido_win_chance(points, chain[-1], mano)
    gain = accepted_value(chain, falta(rules, scores, pico, team))
    loss = accepted_value(chain, falta(rules, scores, pico, 1 - team))
    accept = p * win_chance(target, ours + gain, theirs) + (1 - p) * win_chance(target, ours, theirs + loss)
    decline = win_chance(target, ours, theirs + declined_value(chain))
    return accept >= decline


def accepts_truco(strong: int, fair: int, won: int, lost: int, call: CallKind) -> bool:
    """Whether a careful player accepts ``call`` holding ``strong`` matas or piezas and ``fair`` cards of a 2
    or better (unplayed), having won ``won`` and lost ``lost`` rounds: a truco with any fair card or a round won,
    a raise only with some strength behind it."""
    if call is CallKind.TRUCO:
        return fair >= 1 or won >= 1 or (strong >= 1 and not lost)
    return strong + won >= 2 or (strong >= 1 and fair >= 2) or (won >= 1 and fair >= 1)
