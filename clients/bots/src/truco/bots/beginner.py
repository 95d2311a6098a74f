"""The beginner: knows which cards are strong, but plays them plainly and bets only on very good hands.

It leads and follows with its best card (so it wastes its matas on rounds a low card would take), calls the envido
only with 31 points or more yet accepts one from 21, calls truco only with three matas and accepts it with any figure
or better, never raises, never bluffs, never sends a seña: a table a newcomer can beat while learning.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from truco.engine import (
    Answer,
    AnswerPerros,
    Call,
    CallKind,
    Family,
    PlayCard,
    SeatCommand,
    SkipPerros,
    strength,
)

from .base import ViewSource
from .sure import accept_sure_truco

STRONG: Final = 11
GOOD: Final = 9
FAIR: Final = 7
"""The strength of a 12: a beginner takes its figures for fighting cards."""
ENVIDO_CALL: Final = 31
ENVIDO_ACCEPT: Final = 21


class BeginnerBot:
    name = "beginner"

    def choose(self, actions: Sequence[SeatCommand], view: ViewSource, rng: random.Random) -> SeatCommand:
        seat_view = view()
        hand = seat_view.public.hand
        if hand is None or not seat_view.cards:
            return _skip(actions)
        muestra = hand.muestra
        powers = [strength(card, muestra) for card in seat_view.cards]
        strong = sum(1 for p in powers if p >= STRONG)
        good = sum(1 for p in powers if p >= GOOD)
        fair = sum(1 for p in powers if p >= FAIR)
        tanto = seat_view.envido if seat_view.envido is not None else 0
        for action in actions:
            if isinstance(action, AnswerPerros) and action.accept_envido == (tanto >= ENVIDO_ACCEPT) and (
                action.accept_truco == (good >= 1)
            ):
                return action
        pending = hand.pending
        if pending is not None and any(isinstance(a, Answer) for a in actions):
            sure = accept_sure_truco(actions, seat_view)
            if sure is not None:
                return sure
            family = pending.call.family
            if family is Family.ENVIDO:
                return _answer(actions, seat_view.flor is None and tanto >= ENVIDO_ACCEPT)
            if family is Family.FLOR:
                return _answer(actions, True)
            return _answer(actions, fair >= 1)
        for action in actions:
            if isinstance(action, Call) and action.call is CallKind.ENVIDO and tanto >= ENVIDO_CALL:
                return action
            if isinstance(action, Call) and action.call is CallKind.TRUCO and strong >= 3:
                return action
        plays = _plays(actions)
        if plays:
            return max(plays, key=lambda play: strength(play.card, muestra))
        return _skip(actions)


def _plays(actions: Sequence[SeatCommand]) -> list[PlayCard]:
    return [action for action in actions if isinstance(action, PlayCard)]


def _skip(actions: Sequence[SeatCommand]) -> SeatCommand:
    """No perros, and otherwise the first action offered that bets nothing."""
    for action in actions:
        if isinstance(action, SkipPerros):
            return action
    for action in actions:
        if isinstance(action, Answer) and action.accept:
            return action
    return actions[0]


def _answer(actions: Sequence[SeatCommand], accept: bool) -> SeatCommand:
    answers = [action for action in actions if isinstance(action, Answer)]
    return next((a for a in answers if a.accept == accept), answers[0])
