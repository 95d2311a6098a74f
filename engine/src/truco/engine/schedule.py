"""Who deals and who plays the next hand: the dealer's rotation and, with six players, pico a pico.

While both teams are en malas, each redondilla (three against three) is followed by three pico a pico hands,
each player against the rival seated opposite, starting with the seat after the redondilla's dealer. Once a
team is en buenas only redondillas are played, and pico hands not yet dealt are dropped (000).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ._inits import HandPlanInit
from .rules import RuleSet


@dataclass(init=False, frozen=True, slots=True)
class HandPlan(HandPlanInit):
    """The next hand's dealer and players.

    :ivar seats: the players from the mano, in playing order.
    :ivar pico: a pico a pico hand (two of six players).
    :ivar rotation_dealer: the dealer of the last full-table hand, from which the rotation goes on.
    :ivar pico_left: pico a pico hands still to come after this one, as (mano, rival) pairs.
    """

    dealer: int
    seats: tuple[int, ...]
    pico: bool
    rotation_dealer: int
    pico_left: tuple[tuple[int, int], ...] = ()

    def __copy__(self) -> HandPlan:
        return self  # immutable: a copy may share it

    def __deepcopy__(self, memo: object) -> HandPlan:
        return self


def full_table(rules: RuleSet, dealer: int) -> HandPlan:
    """A hand for every seat, the mano being the seat after ``dealer``."""
    n = rules.players
    key = n * 8 + dealer
    plan = _FULL_TABLES.get(key)
    if plan is None:  # plans are immutable: one per table size and dealer
        plan = _FULL_TABLES[key] = HandPlan(dealer, tuple([(dealer + 1 + k) % n for k in range(n)]), False, dealer)
    return plan


_FULL_TABLES: Final[dict[int, HandPlan]] = {}  # Final: compiled, a C static


def first_hand(rules: RuleSet, first_dealer: int) -> HandPlan:
    return full_table(rules, first_dealer)


def _pico(pairs: tuple[tuple[int, int], ...], rotation_dealer: int) -> HandPlan:
    (mano, rival), rest = pairs[0], pairs[1:]
    return HandPlan(rival, (mano, rival), True, rotation_dealer, rest)


def next_hand(rules: RuleSet, last: HandPlan, scores: tuple[int, int]) -> HandPlan:
    """The hand after ``last``, given the scores once ``last`` ended."""
    if rules.plays_pico_a_pico and max(scores) < rules.buenas_from:  # both teams en malas
        if not last.pico:
            d = last.dealer
            pairs = tuple(((d + k) % 6, (d + k + 3) % 6) for k in (1, 2, 3))
            return _pico(pairs, last.dealer)
        if last.pico_left:
            return _pico(last.pico_left, last.rotation_dealer)
    return full_table(rules, (last.rotation_dealer + 1) % rules.players)
