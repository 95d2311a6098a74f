"""The hands a seat cannot see, guessed from what its view shows: the expert's sampler.

A guess (a *world*) gives every other seat of the hand its unplayed cards, drawn from the cards the seat has not
seen, and is kept only if it agrees with everything the view tells:

- the cards played, the muestra and the seat's own cards are nobody else's;
- flor: a seat that sang one holds one; a seat that acted while flores were still sung holds none; once the
  flores are settled (or an envido was played out, which a flor would have voided) exactly the singers hold one;
- the envido or flor winner's points, and that nobody before the winner had as many, nobody after more;
- a partner's señas: the card each one names was dealt to it, "negras" means nothing named is left in its hand,
  "envido" means 27 points or more.

Then the rivals' bets weigh the guess, as a player reads them: a rival who raised the envido likely has the
points, one who called truco likely has the cards (:func:`bet_likelihood`). A guess is kept with that likelihood,
so the worlds follow what the rivals' bets say without ruling bluffs out.

Everything here reads the view only: two tables that look the same to the seat get the same guesses.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from truco.engine import (
    DECK,
    CallKind,
    Card,
    Family,
    RuleSet,
    SeatView,
    Sena,
    envido_points,
    flor_points,
    has_flor,
    strength,
    team_of,
)
from truco.engine.senas import MANY_ENVIDO_POINTS, true_senas
from truco.engine.views import HandView

REJECTION_TRIES: Final = 48
"""Random draws for one seat before listing every hand that fits (hands that fit can be rare: a flor of 36)."""
WORLD_TRIES: Final = 24
"""Guesses drawn for one world before keeping one whatever the rivals' bets say of it."""
BLUFF: Final = 0.12
"""How often a call is made without the cards for it, in the rivals' model."""
ENVIDO_CALL_POINTS: Final = {CallKind.ENVIDO: 25, CallKind.REAL_ENVIDO: 28, CallKind.FALTA_ENVIDO: 30}
"""Points about which a player makes each envido call (half do below, half above)."""
STRONG: Final = 11
GOOD: Final = 9
_NAMING: Final = frozenset(Sena) - {Sena.NEGRAS, Sena.ENVIDO}


@dataclass(frozen=True, slots=True)
class SeatClues:
    """What the view says of one other seat's hand.

    :ivar played: its cards played this hand; ``need``: how many it still holds.
    :ivar flor: True: it holds a flor; False: it does not; None: unknown.
    :ivar envido: (points, strict) when its envido points are known to be at most ``points`` (below them when
        ``strict``), or exactly them (``exact``).
    :ivar named: for each seña that names a card, the cards it may be (one was dealt to the seat).
    """

    seat: int
    played: tuple[Card, ...]
    need: int
    flor: bool | None = None
    envido_exact: int | None = None
    envido_cap: int | None = None  # its envido is at most this (no flor hands are compared with the winner)
    flor_exact: int | None = None
    flor_cap: int | None = None
    named: tuple[frozenset[Card], ...] = ()
    negras: bool = False
    many_envido: bool = False

    @property
    def tight(self) -> bool:
        """Whether few hands fit (rejection sampling would be slow): exact points or a flor."""
        return self.envido_exact is not None or self.flor_exact is not None or self.flor is True or bool(self.named)


def clues_of(view: SeatView) -> tuple[list[SeatClues], list[Card]]:
    """The clues on every other seat of the hand in play, and the cards none of them is known not to hold."""
    hand = view.public.hand
    if hand is None:
        return [], []
    played = _played_by(hand)
    facts = _TableFacts.of(view.public.rules, hand)
    clues = [_clues_on(seat, view, hand, played[seat], facts) for seat in hand.seats if seat != view.seat]
    return clues, _unseen(view, hand)


def _played_by(hand: HandView) -> dict[int, list[Card]]:
    """Each seat's cards played this hand, in the order it played them."""
    played: dict[int, list[Card]] = {seat: [] for seat in hand.seats}
    for plays in hand.rounds:
        for seat, card in plays:
            played[seat].append(card)
    return played


def _unseen(view: SeatView, hand: HandView) -> list[Card]:
    """The cards the seat has not seen: not the muestra, not its own, not played."""
    seen = {hand.muestra, *view.cards}
    for plays in hand.rounds:
        seen.update(card for _, card in plays)
    return [card for card in DECK if card not in seen]


@dataclass(frozen=True, slots=True)
class _TableFacts:
    """What the hand says of every seat at once: who has a call to answer, whether an envido was played out, and
    whether every flor held has been sung."""

    flor_rule: bool
    pending: frozenset[int]
    envido_played: bool
    flores_known: bool

    @classmethod
    def of(cls, rules: RuleSet, hand: HandView) -> _TableFacts:
        flor_pending = any(p.call.family is Family.FLOR for p in hand.pending_calls)
        envido_pending = any(p.call.family is Family.ENVIDO for p in hand.pending_calls)
        envido_played = bool(hand.envido_chain) and not envido_pending and hand.perros_by is None
        # When every flor held has been sung: the flores were counted (a winner, a chain answered, the first round
        # over), or an envido was played out (a flor voids it, singing every flor at the table).
        flores_known = rules.flor and (
            (not flor_pending and (hand.flor_winner is not None or bool(hand.flor_chain) or bool(hand.results)))
            or envido_played
            or hand.envido_winner is not None
        )
        return cls(rules.flor, frozenset(p.seat for p in hand.pending_calls), envido_played, flores_known)


def _clues_on(seat: int, view: SeatView, hand: HandView, played: list[Card], facts: _TableFacts) -> SeatClues:
    flor = _holds_flor(seat, hand, facts, _has_acted(seat, hand, played, facts))
    envido_exact, envido_cap = _points_clue(seat, hand.seats, hand.envido_winner)
    flor_exact, flor_cap = _points_clue(seat, hand.seats, hand.flor_winner if flor is True else None)
    senas = [sena for sender, sena in view.senas if sender == seat]
    return SeatClues(
        seat=seat,
        played=tuple(played),
        need=dict(hand.cards_left).get(seat, 0),
        flor=flor,
        envido_exact=envido_exact,
        envido_cap=envido_cap,
        flor_exact=flor_exact,
        flor_cap=flor_cap,
        named=tuple(_named_by(sena, hand.muestra) for sena in senas if sena in _NAMING),
        negras=Sena.NEGRAS in senas,
        many_envido=Sena.ENVIDO in senas,
    )


def _has_acted(seat: int, hand: HandView, played: list[Card], facts: _TableFacts) -> bool:
    """Whether the seat has played a card or has a call to answer; alone against us, a rival that accepted or made
    any bet has acted too."""
    if played or seat in facts.pending:
        return True
    if len(hand.seats) != 2:
        return False
    return hand.truco_owner is not None or facts.envido_played or bool(hand.flor_chain) or len(hand.envido_chain) > 1


def _holds_flor(seat: int, hand: HandView, facts: _TableFacts, acted: bool) -> bool | None:
    """True: it sang a flor; False: it would have sung one by now; None: unknown (or no flor in these rules)."""
    if not facts.flor_rule:
        return None
    if seat in hand.flor_sung:
        return True
    return False if facts.flores_known or acted else None


def _points_clue(seat: int, seats: Sequence[int], winner: tuple[int, int] | None) -> tuple[int | None, int | None]:
    """(exact, cap) of the seat's points from a count's (winner, points): the winner's exactly; a seat before the
    winner had fewer (ties go to the first), a seat after it no more."""
    if winner is None:
        return None, None
    won_by, points = winner
    if seat == won_by:
        return points, None
    return None, points - 1 if seats.index(seat) < seats.index(won_by) else points


def _named_by(sena: Sena, muestra: Card) -> frozenset[Card]:
    """The cards a seña that names a card may stand for."""
    return frozenset(card for card in DECK if sena in _card_senas(card, muestra))


def _card_senas(card: Card, muestra: Card) -> frozenset[Sena]:
    return true_senas((card,), muestra) & _NAMING


def fits(clues: SeatClues, unplayed: Sequence[Card], muestra: Card, flor_rule: bool) -> bool:
    """Whether a seat dealt ``clues.played`` and ``unplayed`` agrees with every clue on it."""
    dealt = (*clues.played, *unplayed)
    if len(dealt) != 3:
        return False
    if clues.flor is not None and has_flor(dealt, muestra) != clues.flor:
        return False
    return (
        _fits_envido(clues, dealt, muestra, flor_rule and has_flor(dealt, muestra))
        and _fits_flor_points(clues, dealt, muestra)
        and _fits_senas(clues, dealt, unplayed, muestra)
    )


def _fits_envido(clues: SeatClues, dealt: Sequence[Card], muestra: Card, holds_flor: bool) -> bool:
    if clues.envido_exact is None and clues.envido_cap is None and not clues.many_envido:
        return True
    if holds_flor:  # envido points are compared only between hands without flor
        return clues.envido_exact is None
    points = envido_points(dealt, muestra)
    if clues.envido_exact is not None and points != clues.envido_exact:
        return False
    if clues.envido_cap is not None and points > clues.envido_cap:
        return False
    return not (clues.many_envido and points < MANY_ENVIDO_POINTS)


def _fits_flor_points(clues: SeatClues, dealt: Sequence[Card], muestra: Card) -> bool:
    if clues.flor_exact is None and clues.flor_cap is None:
        return True
    points = flor_points(dealt, muestra)
    if clues.flor_exact is not None and points != clues.flor_exact:
        return False
    return clues.flor_cap is None or points <= clues.flor_cap


def _fits_senas(clues: SeatClues, dealt: Sequence[Card], unplayed: Sequence[Card], muestra: Card) -> bool:
    """Every card a seña named is among the dealt ones; a seat that signalled negras holds no card worth a seña."""
    if not all(any(card in options for card in dealt) for options in clues.named):
        return False
    return not (clues.negras and any(_card_senas(card, muestra) for card in unplayed))


class Sampler:
    """Draws worlds for one decision: ``draw(rng)`` gives each other seat's unplayed cards."""

    def __init__(self, view: SeatView) -> None:
        self.view = view
        hand = view.public.hand
        assert hand is not None
        self.muestra = hand.muestra
        self.flor_rule = view.public.rules.flor
        clues, self.pool = clues_of(view)
        # The seats few hands fit first: they get their pick of the pool before the others take from it.
        self.clues = sorted(clues, key=lambda c: (not c.tight, c.seat))
        self.listed: dict[int, list[tuple[Card, ...]]] = {}

    def draw(self, rng: random.Random) -> dict[int, list[Card]]:
        """One world, weighed by the rivals' bets (see the module's description)."""
        world: dict[int, list[Card]] = {}
        for _ in range(WORLD_TRIES):
            world = self._consistent(rng)
            if rng.random() < bet_likelihood(self.view, world):
                return world
        return world

    def _consistent(self, rng: random.Random) -> dict[int, list[Card]]:
        for _ in range(WORLD_TRIES):
            world: dict[int, list[Card]] = {}
            free = list(self.pool)
            for clues in self.clues:
                cards = self._seat(clues, free, rng)
                if cards is None:
                    break
                world[clues.seat] = cards
                taken = set(cards)
                free = [card for card in free if card not in taken]
            else:
                return world
        # Nothing fits (a view no real table gives, or very bad luck): the seats' counts at least.
        free = list(self.pool)
        rng.shuffle(free)
        world = {}
        for clues in self.clues:
            world[clues.seat], free = free[: clues.need], free[clues.need :]
        return world

    def _seat(self, clues: SeatClues, free: list[Card], rng: random.Random) -> list[Card] | None:
        if clues.need == 0:
            return [] if fits(clues, (), self.muestra, self.flor_rule) else None
        if len(free) < clues.need:
            return None
        listed = self.listed.get(clues.seat)
        if listed is None:
            for _ in range(REJECTION_TRIES):
                cards = rng.sample(free, clues.need)
                if fits(clues, cards, self.muestra, self.flor_rule):
                    return cards
            # Rare hands: list every one that fits (from the whole pool, once a decision), and draw among them.
            listed = self.listed[clues.seat] = [
                combo
                for combo in itertools.combinations(self.pool, clues.need)
                if fits(clues, combo, self.muestra, self.flor_rule)
            ]
        available = set(free)
        choices = [combo for combo in listed if all(card in available for card in combo)]
        if not choices:
            return None
        return list(choices[int(rng.random() * len(choices))])


def bet_likelihood(view: SeatView, world: dict[int, list[Card]]) -> float:
    """How likely the rivals' open bets are if they hold what ``world`` gives them (1 when nothing is told): a
    call is made with the points or cards for it, or now and then as a bluff."""
    hand = view.public.hand
    if hand is None:
        return 1.0
    rivals = [seat for seat in world if team_of(seat) != view.team]
    if not rivals:
        return 1.0
    muestra = hand.muestra
    played: dict[int, list[Card]] = {}
    for plays in hand.rounds:
        for seat, card in plays:
            played.setdefault(seat, []).append(card)
    likelihood = 1.0
    pending = hand.pending_calls
    envido_calls = [p for p in pending if p.call.family is Family.ENVIDO and team_of(p.seat) != view.team]
    if envido_calls and hand.envido_chain:
        best = max(
            envido_points((*played.get(seat, ()), *world[seat]), muestra)
            for seat in rivals
            if len(played.get(seat, ())) + len(world[seat]) == 3
        )
        # The chain alternates between the teams: the rivals made the last call and every second one before it.
        chain = hand.envido_chain
        for index in range(len(chain) - 1, -1, -2):
            likelihood *= _likely(best, ENVIDO_CALL_POINTS[chain[index]], 2.0)
    truco_by_rivals = any(p.call.family is Family.TRUCO and team_of(p.seat) != view.team for p in pending)
    if truco_by_rivals or (hand.truco_owner is not None and hand.truco_owner != view.team):
        power = 0
        for seat in rivals:
            cards = world[seat]
            power = max(
                power,
                sum(1 for card in cards if strength(card, muestra) >= STRONG) * 2
                + sum(1 for card in cards if GOOD <= strength(card, muestra) < STRONG),
            )
        won = sum(1 for result in hand.results if result is not None and result != view.team)
        likelihood *= _likely(power + 2 * won, 2.5 if truco_by_rivals else 1.5, 0.8)
    return likelihood


def _likely(value: float, middle: float, spread: float) -> float:
    """A call's likelihood given ``value``: BLUFF far below ``middle``, about 1 well above it (a logistic)."""
    x = (value - middle) / spread
    if x > 30:
        return 1.0
    if x < -30:
        return BLUFF
    return BLUFF + (1.0 - BLUFF) / (1.0 + math.exp(-x))
