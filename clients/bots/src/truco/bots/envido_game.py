"""The 2-player envido and flor, as betting games (:mod:`truco.bots.betting`) to solve offline.

What the game keeps of a hand of truco: each player knows its own points (the envido's, or the flor's when both
hold flor) and who is mano; the bets follow the engine's rules (:mod:`truco.engine.envido`,
:mod:`truco.engine.flor`), and the score enters through the falta's value (what the leader needs, 30 en malas at
0 to 0). Payoffs are the points the bets move. What it leaves out: the cards played before a bet (the mano's
first card tells something of its envido), the truco, the muestra's rank (points are dealt from the deck with a
muestra turned, both hands independently: card removal between them is ignored), and the score beyond the falta.

- The envido (neither hand has flor): the mano opens or passes (``M``), then the pie (``P``); each call is
  answered quiero (``Q``), no quiero (``N``) or by a raise (``E``, ``R``, ``F``: envido, real envido, falta).
  When a hand has flor the envido is void and nobody decides anything, unless both have it.
- The flor contest (both hold flor): the mano's flor is sung first; the pie sings its own (``sing``), which
  the mano answers con flor quiero (``Q``) or with a raise, or the pie raises at once (``CFE``, ``CF``,
  ``CFAR``: con flor envido, contra flor, contra flor al resto); each raise is accepted (``Q``), refused (``N``:
  con flor me achico) or raised.
- Echar los perros: the dealer bets the falta (or the contra flor al resto) before seeing a card, so the
  answer is a best response to a dealer's unknown hand (:func:`perros_accepts`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Final

from truco.engine import DECK, CallKind, envido_points, flor_points, has_flor
from truco.engine import envido as envido_rules
from truco.engine import flor as flor_rules

from .betting import Decision, IndependentHands, Node, Terminal

CODES: Final = {
    CallKind.ENVIDO: "E",
    CallKind.REAL_ENVIDO: "R",
    CallKind.FALTA_ENVIDO: "F",
    CallKind.CON_FLOR_ENVIDO: "CFE",
    CallKind.CONTRA_FLOR: "CF",
    CallKind.CONTRA_FLOR_AL_RESTO: "CFAR",
}
"""Each call's action name in the trees."""
KINDS: Final = {code: kind for kind, code in CODES.items()}
PASS: Final = "pass"
SING: Final = "sing"
ACCEPT: Final = "Q"
DECLINE: Final = "N"
MANO: Final = 0
PIE: Final = 1
FLORES: Final = 2
"""Flores at the table in a flor contest between two players."""


@dataclass(frozen=True, slots=True)
class Distribution:
    """Points a hand may hold (increasing) and each one's probability."""

    points: tuple[int, ...]
    probs: tuple[float, ...]

    def index(self, points: int) -> int:
        """The index of ``points`` (the nearest lower known points for a value never dealt)."""
        best = 0
        for i, known in enumerate(self.points):
            if known <= points:
                best = i
        return best


@lru_cache(maxsize=1)
def _deals() -> tuple[Counter[int], Counter[int], Counter[int]]:
    """(envido points of hands without flor, envido points of every hand, flor points of flor hands), counted
    over every muestra and every three cards of the other 39."""
    without: Counter[int] = Counter()
    every: Counter[int] = Counter()
    flores: Counter[int] = Counter()
    for muestra in DECK:
        rest = [card for card in DECK if card != muestra]
        for hand in combinations(rest, 3):
            points = envido_points(hand, muestra)
            every[points] += 1
            if has_flor(hand, muestra):
                flores[flor_points(hand, muestra)] += 1
            else:
                without[points] += 1
    return without, every, flores


def _distribution(counts: Counter[int]) -> Distribution:
    total = sum(counts.values())
    points = tuple(sorted(counts))
    return Distribution(points, tuple(counts[p] / total for p in points))


def envido_distribution(flor: bool) -> Distribution:
    """The envido points of a hand that plays the envido: without flor when the rules play flor."""
    without, every, _ = _deals()
    return _distribution(without if flor else every)


def flor_distribution() -> Distribution:
    """The flor points of a hand with flor."""
    return _distribution(_deals()[2])


def flor_chance() -> float:
    """The chance a hand holds flor."""
    without, every, _ = _deals()
    return 1.0 - sum(without.values()) / sum(every.values())


def hands_of(distribution: Distribution) -> IndependentHands:
    """Both players dealt from ``distribution``."""
    ranks = (distribution.points, distribution.points)
    return IndependentHands(ranks, (distribution.probs, distribution.probs))


def _last_caller(opener: int, chain: Sequence[CallKind]) -> int:
    return opener if len(chain) % 2 == 1 else 1 - opener


def envido_key(opener: int | None, chain: Sequence[CallKind]) -> str:
    """The decision's key: ``M`` and ``P`` for the mano's and pie's openings, else who opened and the chain,
    as ``M:E.R`` (the mano sang envido, the pie raised to real envido: the mano answers)."""
    if opener is None:
        return "P" if chain else "M"
    return ("M" if opener == MANO else "P") + ":" + ".".join(CODES[call] for call in chain)


def _envido_answer(opener: int, chain: tuple[CallKind, ...], falta: int) -> Decision:
    caller = _last_caller(opener, chain)
    accepted = envido_rules.accepted_value(chain, falta)
    declined = envido_rules.declined_value(chain)
    raises = envido_rules.allowed_envido_calls(chain)
    children: list[Node] = [
        Terminal(None, accepted, accepted),
        Terminal(declined if caller == MANO else -declined),
    ]
    children += [_envido_answer(opener, (*chain, call), falta) for call in raises]
    actions = (ACCEPT, DECLINE, *(CODES[call] for call in raises))
    return Decision(envido_key(opener, chain), 1 - caller, actions, tuple(children))


def envido_tree(falta: int) -> Decision:
    """The envido between two hands without flor, the falta worth ``falta``."""
    openings = envido_rules.ORDER
    actions = (PASS, *(CODES[call] for call in openings))
    pie = Decision("P", PIE, actions, (Terminal(0.0), *(_envido_answer(PIE, (call,), falta) for call in openings)))
    return Decision("M", MANO, actions, (pie, *(_envido_answer(MANO, (call,), falta) for call in openings)))


def flor_key(opener: int | None, chain: Sequence[CallKind] = ()) -> str:
    """``F`` for the pie's opening (sing its flor, or raise at once), ``FM`` for the mano's answer to the
    pie's sung flor, else who raised first and the raises: ``FP:CFE.CF`` (the pie raised to con flor envido, the
    mano to contra flor: the pie answers)."""
    if opener is None:
        return "FM" if chain else "F"
    return ("FM" if opener == MANO else "FP") + ":" + ".".join(CODES[call] for call in chain)


def _flor_answer(opener: int, chain: tuple[CallKind, ...], falta: int) -> Decision:
    caller = _last_caller(opener, chain)
    accepted = flor_rules.accepted_value(chain, FLORES, falta)
    declined = flor_rules.declined_value(chain, 1)
    raises = flor_rules.allowed_flor_calls(chain)
    children: list[Node] = [
        Terminal(None, accepted, accepted),
        Terminal(declined if caller == MANO else -declined),
    ]
    children += [_flor_answer(opener, (*chain, call), falta) for call in raises]
    actions = (ACCEPT, DECLINE, *(CODES[call] for call in raises))
    return Decision(flor_key(opener, chain), 1 - caller, actions, tuple(children))


def flor_tree(falta: int) -> Decision:
    """The flor contest, the falta worth ``falta``: the mano's flor is sung; the pie sings its own (``sing``),
    which the mano answers con flor quiero or with a raise, or raises at once."""
    raises = flor_rules.ORDER
    codes = tuple(CODES[call] for call in raises)
    sung = Terminal(None, flor_rules.unraised_value(FLORES), flor_rules.unraised_value(FLORES))
    mano = Decision(
        flor_key(None, (CallKind.FLOR,)),
        MANO,
        (ACCEPT, *codes),
        (sung, *(_flor_answer(MANO, (call,), falta) for call in raises)),
    )
    return Decision(
        flor_key(None), PIE, (SING, *codes), (mano, *(_flor_answer(PIE, (call,), falta) for call in raises))
    )


def perros_accepts(points: int, flor: bool, falta: int, flor_rule: bool = True) -> bool:
    """Whether the rivals of a perros accept its envido part holding ``points`` (of flor when ``flor``) with
    the falta worth ``falta``: the dealer bet before seeing a card, so its hand is any hand, and the answer is
    the one that scores most on average (a declined falta pays 1; a declined contra flor al resto pays the
    dealer's flor if it has one, at least 1; any flor voids the envido)."""
    p_flor = flor_chance() if flor_rule else 0.0
    if flor:
        rival = flor_distribution()
        beaten = sum(p for rank, p in zip(rival.points, rival.probs, strict=True) if rank <= points)
        win_flor = p_flor * (beaten * (3 * FLORES + falta) - (1 - beaten) * (3 * FLORES + falta))
        accept = (1 - p_flor) * (flor_rules.FLOR_VALUE + falta) + win_flor
        decline = -(1 - p_flor) * envido_rules.DECLINED_FIRST_CALL - p_flor * flor_rules.FLOR_VALUE
        return accept >= decline
    rival = envido_distribution(flor_rule)
    beaten = sum(p for rank, p in zip(rival.points, rival.probs, strict=True) if rank <= points)
    # A dealer's flor voids the envido whatever the answer: only hands without one weigh.
    return falta * (2 * beaten - 1) >= -envido_rules.DECLINED_FIRST_CALL
