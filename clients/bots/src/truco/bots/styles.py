"""The rival styles of the arena's gauntlet: players a bot meets at a real table, beside the levels' bots.

``careful``: the heuristic's play with a careful player's answers (:mod:`truco.bots.careful`): envido and falta by
its points and the stakes at this score, truco bluffs called with any fair card, never an early fold.
``maniac``: bets and raises on anything, accepts everything.
``rock``: never bluffs, bets only on strong hands, and folds a weak hand before playing a card.
``released-expert``: the expert as released before the gauntlet (its imagined rivals accept any envido from 26 or
27 and fold truco without a mata; it takes the first of equally valued actions), kept to measure progress against.

None of them is a level a player picks; they play in the arena only.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final

from truco.engine import (
    Answer,
    Call,
    CallKind,
    Family,
    GoToMazo,
    PlayCard,
    SeatCommand,
    SeatView,
    strength,
)

from .base import Bot, ViewSource
from .careful import FAIR, STRONG, accepts_envido, accepts_truco
from .expert import ExpertBot
from .heuristic import HeuristicBot
from .sure import accept_sure_truco

ROCK_ENVIDO_CALL: Final = 30
ROCK_ENVIDO_ACCEPT: Final = 29
ROCK_FOLD_ENVIDO: Final = 25
"""A rock folds a hand without a 2 or better and with fewer envido points than this, before its first card."""


def _counts(view: SeatView) -> tuple[int, int, int, int]:
    """(matas and piezas, cards of a 2 or better, rounds won, rounds lost) of the seat, as its view shows."""
    hand = view.public.hand
    assert hand is not None
    powers = [strength(card, hand.muestra) for card in view.cards]
    won = sum(1 for r in hand.results if r == view.team)
    lost = sum(1 for r in hand.results if r is not None and r != view.team)
    return sum(p >= STRONG for p in powers), sum(p >= FAIR for p in powers), won, lost


def _answer(actions: Sequence[SeatCommand], accept: bool) -> SeatCommand | None:
    answers = [a for a in actions if isinstance(a, Answer)]
    if not answers:
        return None
    return next((a for a in answers if a.accept == accept), answers[0])


class CarefulBot(HeuristicBot):
    """The careful caller: the heuristic, answering bets as a careful player does."""

    name = "careful"

    def choose(self, actions: Sequence[SeatCommand], view: ViewSource, rng: random.Random) -> SeatCommand:
        seat_view = view()
        hand = seat_view.public.hand
        pending = hand.pending if hand is not None else None
        if hand is not None and pending is not None and any(isinstance(a, Answer) for a in actions):
            sure = accept_sure_truco(actions, seat_view)
            if sure is not None:
                return sure
            call = pending.call
            if call.family is Family.ENVIDO and seat_view.flor is None:
                chain = hand.envido_chain
                points = seat_view.envido or 0
                public = seat_view.public
                accept = accepts_envido(
                    public.rules, public.scores, seat_view.team, chain, points, hand.mano == seat_view.seat, hand.pico
                )
                raise_ = self._bet(actions, seat_view.envido, None)
                if accept and raise_ is not None and points >= 31 and raise_.call is not CallKind.FALTA_ENVIDO:
                    return raise_
                return _answer(actions, accept) or actions[0]
            if call.family is Family.TRUCO:
                strong, fair, won, lost = _counts(seat_view)
                raise_ = next((a for a in actions if isinstance(a, Call) and a.call.family is Family.TRUCO), None)
                if raise_ is not None and strong + won >= 3:
                    return raise_
                return _answer(actions, accepts_truco(strong, fair, won, lost, call)) or actions[0]
        return super().choose(actions, lambda: seat_view, rng)


class ManiacBot(HeuristicBot):
    """Bets and raises on anything it may, accepts every bet, and plays its cards as the heuristic does."""

    name = "maniac"

    def choose(self, actions: Sequence[SeatCommand], view: ViewSource, rng: random.Random) -> SeatCommand:
        calls = [a for a in actions if isinstance(a, Call)]
        if calls:
            return calls[int(rng.random() * len(calls))]
        accept = _answer(actions, True)
        if accept is not None:
            return accept
        return super().choose(actions, view, rng)


class RockBot(HeuristicBot):
    """Never bluffs: bets only on strong hands, declines what it cannot back, folds weak hands early."""

    name = "rock"

    def choose(self, actions: Sequence[SeatCommand], view: ViewSource, rng: random.Random) -> SeatCommand:
        seat_view = view()
        hand = seat_view.public.hand
        if hand is None or not seat_view.cards:
            return super().choose(actions, lambda: seat_view, rng)
        strong, fair, won, _ = _counts(seat_view)
        points = seat_view.envido or 0
        pending = hand.pending
        if pending is not None and any(isinstance(a, Answer) for a in actions):
            sure = accept_sure_truco(actions, seat_view)
            if sure is not None:
                return sure
            if pending.call.family is Family.ENVIDO:
                return _answer(actions, points >= ROCK_ENVIDO_ACCEPT) or actions[0]
            if pending.call.family is Family.TRUCO:
                return _answer(actions, strong >= 2 or (strong >= 1 and (won > 0 or fair >= 2))) or actions[0]
        for action in actions:
            if isinstance(action, Call) and action.call is CallKind.ENVIDO and points >= ROCK_ENVIDO_CALL:
                return action
            if isinstance(action, Call) and action.call is CallKind.TRUCO and strong + won >= 3:
                return action
        mazo = next((a for a in actions if isinstance(a, GoToMazo)), None)
        first_card = len(seat_view.cards) == 3 and any(isinstance(a, PlayCard) for a in actions)
        if mazo is not None and first_card and fair == 0 and points < ROCK_FOLD_ENVIDO and seat_view.flor is None:
            return mazo
        plain = [a for a in actions if not isinstance(a, Call)]
        return super().choose(plain or actions, lambda: seat_view, rng)


def released_expert() -> Bot:
    """The expert as released before the gauntlet (see the module's description)."""
    return ExpertBot(released=True)


STYLES: Final[dict[str, Callable[[], Bot]]] = {
    "careful": CarefulBot,
    "maniac": ManiacBot,
    "rock": RockBot,
    "released-expert": released_expert,
}
"""The styles by name, each a function that makes a new bot of it."""
