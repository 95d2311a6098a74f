"""Playing an imagined hand to its end, fast: the default policy of the expert's search.

Each seat of an imagined table (:func:`truco.engine.determinize`) plays by the rules of thumb of a sound player,
from its own cards and the public facts only (never another seat's cards, even in imagination: a search whose
imagined rivals see through the cards would learn that no bluff ever works). It reads the engine's state
directly instead of building views, since it runs some thousands of times a decision.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final

from truco.engine import (
    DECK,
    Answer,
    AnswerPerros,
    Call,
    CallKind,
    Card,
    Deal,
    Family,
    MatchState,
    Phase,
    PlayCard,
    SeatCommand,
    SkipPerros,
    actors,
    envido_points,
    execute_legal,
    flor_points,
    legal_actions,
    strength,
    team_of,
)
from truco.engine.state import HandState

from .careful import accepts_envido, accepts_truco

STRONG: Final = 11
"""The strength of the 7 of oro: from it up a card is a mata or a pieza."""
GOOD: Final = 9
"""The strength of a 2: the 2s, 3s and up win most rounds."""
ENVIDO_CALLS: Final = ((CallKind.FALTA_ENVIDO, 33), (CallKind.REAL_ENVIDO, 30), (CallKind.ENVIDO, 27))
"""Envido points from which each call is made (the strongest that fits first)."""
ENVIDO_ACCEPT: Final = 27
FALTA_CALL: Final = 33
FLOR_RAISES: Final = ((CallKind.CONTRA_FLOR_AL_RESTO, 40), (CallKind.CONTRA_FLOR, 36), (CallKind.CON_FLOR_ENVIDO, 32))
FLOR_ACCEPT: Final = 33
MAX_MOVES: Final = 400
"""A guard: no hand takes that many moves (an engine bug would otherwise loop for ever)."""


Policy = Callable[[MatchState, int, Sequence[SeatCommand], random.Random], SeatCommand]
"""How an imagined player picks its action: (state, seat, legal actions, rng) to one of the actions."""


def play_out(state: MatchState, rng: random.Random, policy: Policy | None = None) -> None:
    """Play ``state`` on, in place, until the hand in play (or the next one, between hands) has ended or the match
    is over, every seat choosing by ``policy`` (:func:`choose` by default). Deals, between hands, come from
    ``rng``."""
    pick = choose if policy is None else policy
    started = state.phase is Phase.PLAYING
    for _ in range(MAX_MOVES):
        phase = state.phase
        if phase is Phase.MATCH_OVER or (phase is not Phase.PLAYING and started):
            return
        waiting = actors(state)
        if not waiting:
            execute_legal(state, random_deal(rng))
            started = True
            continue
        seat = waiting[0]
        execute_legal(state, pick(state, seat, legal_actions(state, seat), rng))
    raise RuntimeError("an imagined hand did not end: this is an engine bug")


def random_deal(rng: random.Random) -> Deal:
    """A shuffled deck and a made-up secret: an imagined deal."""
    order = list(DECK)
    rng.shuffle(order)
    return Deal(tuple(order), "0" * 32)


def choose(state: MatchState, seat: int, actions: Sequence[SeatCommand], rng: random.Random) -> SeatCommand:
    """A careful player's action for ``seat`` among ``actions`` (never a seña), from its own cards and public
    facts: bets answered by points and stakes (:mod:`truco.bots.careful`), the rest as :func:`released_choose`."""
    hand = state.hand
    if state.phase is not Phase.PLAYING or hand is None or hand.perros_pending:
        return released_choose(state, seat, actions, rng)
    pending = hand.pending
    if pending is None:
        return released_choose(state, seat, actions, rng)
    tanto, has_flor, strong, good, won, lost = _facts(hand, seat)
    call = pending.call
    if call.family is Family.ENVIDO and not has_flor:
        accept = accepts_envido(
            state.rules, state.scores, team_of(seat), hand.envido_chain, tanto, hand.mano == seat, hand.pico
        )
        raise_ = _bet(actions, min(tanto, FALTA_CALL - 1), has_flor, Family.ENVIDO)
        if accept and raise_ is not None and tanto >= 31:
            return raise_
        return _answer(actions, accept)
    if call.family is Family.TRUCO:
        if not has_flor and tanto >= ENVIDO_ACCEPT:
            primero = _bet(actions, min(tanto, FALTA_CALL - 1), has_flor, Family.ENVIDO)
            if primero is not None:
                return primero  # el envido está primero
        if strong + won >= 3 or (won and strong >= 2):
            raise_ = _truco_call(actions)
            if raise_ is not None:
                return raise_
        return _answer(actions, accepts_truco(strong, good, won, lost, call))
    return released_choose(state, seat, actions, rng)


def _facts(hand: HandState, seat: int) -> tuple[int, bool, int, int, int, int]:
    """(tanto, has flor, matas and piezas, cards of a 2 or better, rounds won, rounds lost) of ``seat``."""
    muestra = hand.muestra
    dealt = hand.dealt[seat]
    has_flor = seat in hand.flor_holders
    tanto = flor_points(dealt, muestra) if has_flor else envido_points(dealt, muestra)
    strong = 0
    good = 0
    for card in hand.unplayed[seat]:
        power = strength(card, muestra)
        strong += power >= STRONG
        good += power >= GOOD
    team = team_of(seat)
    won = 0
    lost = 0
    for result in hand.results:
        if result is not None:
            won += result == team
            lost += result != team
    return tanto, has_flor, strong, good, won, lost


def released_choose(
    state: MatchState, seat: int, actions: Sequence[SeatCommand], rng: random.Random
) -> SeatCommand:
    """The released expert's imagined player: accepts any envido from 26 or 27 whatever the stakes, and folds
    truco without a mata or a fair hand (kept for the gauntlet's released expert)."""
    hand = state.hand
    if state.phase is not Phase.PLAYING or hand is None:
        skip = _first_skip(actions)
        return skip if skip is not None else actions[0]
    muestra = hand.muestra
    tanto, has_flor, strong, good, won, lost = _facts(hand, seat)

    if hand.perros_pending:
        return _answer_perros(actions, tanto >= (FLOR_ACCEPT if has_flor else ENVIDO_ACCEPT), strong >= 2)
    pending = hand.pending
    if pending is not None:
        family = pending.call.family
        if family is Family.ENVIDO:
            raise_ = _bet(actions, tanto, has_flor, Family.ENVIDO)
            if raise_ is not None and tanto >= 30:
                return raise_
            return _answer(actions, tanto >= ENVIDO_ACCEPT - (1 if hand.mano == seat else 0))
        if family is Family.FLOR:
            raise_ = _bet(actions, tanto, has_flor, Family.FLOR)
            if raise_ is not None:
                return raise_
            return _answer(actions, pending.call is CallKind.FLOR or tanto >= FLOR_ACCEPT)
        if not has_flor and tanto >= ENVIDO_ACCEPT:
            primero = _bet(actions, tanto, has_flor, Family.ENVIDO)
            if primero is not None:
                return primero  # el envido está primero
        if strong + won >= 3 or (won and strong >= 2):
            raise_ = _truco_call(actions)
            if raise_ is not None:
                return raise_
        return _answer(actions, strong + won >= 2 or (strong >= 1 and not lost) or good + won >= 3)

    bet = _bet(actions, tanto, has_flor, Family.FLOR if has_flor else Family.ENVIDO)
    if bet is not None:
        return bet
    truco = _truco_call(actions)
    if truco is not None and (strong >= 2 or (won and strong >= 1) or (won and good >= 1 and lost == 0)):
        return truco
    play = _play(actions, hand.rounds, len(hand.results) > 0, seat, muestra)
    return play if play is not None else actions[0]


def _first_skip(actions: Sequence[SeatCommand]) -> SeatCommand | None:
    for action in actions:
        if isinstance(action, SkipPerros):
            return action
    return None


def _answer_perros(actions: Sequence[SeatCommand], envido: bool, truco: bool) -> SeatCommand:
    for action in actions:
        if isinstance(action, AnswerPerros) and action.accept_envido == envido and action.accept_truco == truco:
            return action
    return actions[0]


def _answer(actions: Sequence[SeatCommand], accept: bool) -> SeatCommand:
    """Quiero if ``accept`` (or when no quiero is not allowed), else no quiero."""
    fallback: SeatCommand | None = None
    for action in actions:
        if isinstance(action, Answer):
            if action.accept == accept:
                return action
            fallback = action
    return fallback if fallback is not None else actions[0]


def _bet(actions: Sequence[SeatCommand], tanto: int, has_flor: bool, family: Family) -> Call | None:
    """The strongest envido call (or flor raise) that ``tanto`` warrants among ``actions``."""
    thresholds = FLOR_RAISES if family is Family.FLOR else ENVIDO_CALLS
    if (family is Family.FLOR) != has_flor:
        return None
    for kind, threshold in thresholds:
        if tanto >= threshold:
            for action in actions:
                if isinstance(action, Call) and action.call is kind:
                    return action
    return None


def _truco_call(actions: Sequence[SeatCommand]) -> Call | None:
    for action in actions:
        if isinstance(action, Call) and action.call.family is Family.TRUCO:
            return action
    return None


def _play(
    actions: Sequence[SeatCommand], rounds: list[list[tuple[int, Card]]], later_round: bool, seat: int, muestra: Card
) -> PlayCard | None:
    """The cheapest card that takes the round (the lowest when a partner already holds it or none can), and
    leading, the middle card in the first round and the best one after."""
    plays = sorted(
        [action for action in actions if isinstance(action, PlayCard)], key=lambda a: strength(a.card, muestra)
    )
    if not plays:
        return None
    current = rounds[-1]
    if not current:
        return plays[-1] if later_round else plays[len(plays) // 2]
    best = -1
    best_team = -1
    for other, card in current:
        power = strength(card, muestra)
        if power > best:
            best, best_team = power, team_of(other)
    if best_team == team_of(seat):
        return plays[0]
    for play in plays:
        if strength(play.card, muestra) > best:
            return play
    return plays[0]

