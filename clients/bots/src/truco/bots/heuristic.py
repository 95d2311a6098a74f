"""A simple bot that knows envido, flor and card strength. Not a strong player: a sensible sparring partner.

It bets its tantos by thresholds, calls and accepts truco on the strength of its cards, plays the cheapest
card that wins the round (or its lowest when it cannot win), and sends its teammates its best seña.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final, TypeVar

from truco.engine import (
    Answer,
    AnswerPerros,
    Call,
    CallKind,
    Card,
    Family,
    GoToMazo,
    PlayCard,
    SeatCommand,
    SendSena,
    SkipPerros,
    strength,
)

from .base import ViewSource
from .sure import accept_sure_truco

T = TypeVar("T")

ENVIDO_CALL: Final = {CallKind.FALTA_ENVIDO: 33, CallKind.REAL_ENVIDO: 31, CallKind.ENVIDO: 27}
"""Envido points from which the bot makes each call (the strongest that fits first)."""
ENVIDO_ACCEPT: Final = 27
FLOR_RAISE: Final = {CallKind.CONTRA_FLOR_AL_RESTO: 40, CallKind.CONTRA_FLOR: 36, CallKind.CON_FLOR_ENVIDO: 32}
FLOR_ACCEPT: Final = 33
STRONG_CARD: Final = 11
"""Strength of a 7 of oro: at this strength and above a card is a mata or a pieza."""


class HeuristicBot:
    name = "heuristic"

    def choose(self, actions: Sequence[SeatCommand], view: ViewSource, rng: random.Random) -> SeatCommand:
        seat_view = view()
        hand = seat_view.public.hand
        if hand is None:
            return _first(actions, SkipPerros) or actions[0]
        muestra = hand.muestra
        power = sorted((strength(card, muestra) for card in seat_view.cards), reverse=True)
        strong = sum(1 for p in power if p >= STRONG_CARD)

        sena = _first(actions, SendSena)
        if sena is not None and rng.random() < 0.5:
            return sena

        perros = [a for a in actions if isinstance(a, AnswerPerros)]
        if perros:
            tanto = seat_view.flor if seat_view.flor is not None else (seat_view.envido or 0)
            accept_envido = tanto >= (FLOR_ACCEPT if seat_view.flor is not None else ENVIDO_CALL[CallKind.ENVIDO])
            accept_truco = strong >= 2
            for answer in perros:
                if answer.accept_envido == accept_envido and answer.accept_truco == accept_truco:
                    return answer

        pending = hand.pending
        if pending is not None and any(isinstance(a, Answer) for a in actions):
            sure = accept_sure_truco(actions, seat_view)
            if sure is not None:
                return sure
            return self._answer(actions, pending.call, seat_view.envido, seat_view.flor, strong)

        call = self._bet(actions, seat_view.envido, seat_view.flor)
        if call is not None:
            return call
        truco = _call_of(actions, Family.TRUCO)
        won_rounds = sum(1 for r in hand.results if r == seat_view.team)
        if truco is not None and (strong >= 2 or (won_rounds and strong >= 1)):
            return truco
        play = self._play(actions, hand.rounds, hand.results, muestra)
        return play or _first(actions, GoToMazo) or actions[0]

    def _answer(
        self, actions: Sequence[SeatCommand], call: CallKind, envido: int | None, flor: int | None, strong: int
    ) -> SeatCommand:
        family = call.family
        if family is Family.ENVIDO:
            raise_ = self._bet(actions, envido, flor)
            if raise_ is not None and envido is not None and envido >= ENVIDO_CALL[CallKind.REAL_ENVIDO]:
                return raise_
            return _answer_of(actions, envido is not None and envido >= ENVIDO_ACCEPT)
        if family is Family.FLOR:
            raise_ = _call_of(actions, Family.FLOR)
            if raise_ is not None and flor is not None and flor >= FLOR_RAISE[raise_.call]:
                return raise_
            return _answer_of(actions, call is CallKind.FLOR or (flor is not None and flor >= FLOR_ACCEPT))
        if envido is not None and envido >= ENVIDO_CALL[CallKind.ENVIDO]:
            primero = _call_of(actions, Family.ENVIDO)
            if primero is not None:
                return primero  # el envido está primero
        raise_ = _call_of(actions, Family.TRUCO)
        if raise_ is not None and strong >= 3:
            return raise_
        return _answer_of(actions, strong >= 1)

    def _bet(self, actions: Sequence[SeatCommand], envido: int | None, flor: int | None) -> Call | None:
        calls = {a.call: a for a in actions if isinstance(a, Call)}
        if flor is not None:
            for kind, threshold in FLOR_RAISE.items():
                if kind in calls and flor >= threshold:
                    return calls[kind]
            return None
        if envido is None:
            return None
        for kind, threshold in ENVIDO_CALL.items():
            if kind in calls and envido >= threshold:
                return calls[kind]
        return None

    def _play(
        self,
        actions: Sequence[SeatCommand],
        rounds: tuple[tuple[tuple[int, Card], ...], ...],
        results: tuple[int | None, ...],
        muestra: Card,
    ) -> PlayCard | None:
        plays = [a for a in actions if isinstance(a, PlayCard)]
        if not plays:
            return None
        plays.sort(key=lambda a: strength(a.card, muestra))
        current = rounds[len(results)] if len(rounds) > len(results) else ()
        if not current:
            return plays[-1] if results else plays[len(plays) // 2]
        best = max(strength(card, muestra) for _, card in current)
        for play in plays:
            if strength(play.card, muestra) > best:
                return play
        return plays[0]


def _first(actions: Sequence[SeatCommand], kind: type[T]) -> T | None:
    for action in actions:
        if isinstance(action, kind):
            return action
    return None


def _call_of(actions: Sequence[SeatCommand], family: Family) -> Call | None:
    for action in actions:
        if isinstance(action, Call) and action.call.family is family:
            return action
    return None


def _answer_of(actions: Sequence[SeatCommand], accept: bool) -> SeatCommand:
    """The legal answer (quiero if ``accept``, else no quiero), naming the call it answers; quiero when no
    quiero is not allowed (a sung flor is not declined)."""
    answers = [a for a in actions if isinstance(a, Answer)]
    return next((a for a in answers if a.accept == accept), answers[0])
