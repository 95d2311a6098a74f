"""Helpers for the scripted scenario tests: scripted deals, short commands and event filters.

Hands are always written from the mano in playing order, as ``order_for_hands`` expects, so a test reads
like the table: ``deal(game, [["7e", "6e", "1b"], ["5b", "4b", "3o"]], "1c")`` gives the mano 7e 6e 1b.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

import pytest

from truco.engine import (
    DECK,
    Answer,
    Call,
    CallKind,
    Card,
    Command,
    Deal,
    Event,
    Game,
    GoToMazo,
    PlayCard,
    Reason,
    RuleSet,
    RuleViolation,
    ScoreReason,
    order_for_hands,
    parse_cards,
    start_match,
)
from truco.engine.events import HandDealt, PointsScored
from truco.engine.state import HandState
from truco.engine.views import HandView

SALT = "0" * 32
"""The salt of scripted deals (any 32 lowercase hex digits will do)."""

E = TypeVar("E")


def shuffled_deal(rng: random.Random) -> Deal:
    """A deal of a deck shuffled by ``rng``, with a salt from it: random tables that repeat for a seed."""
    order = list(DECK)
    rng.shuffle(order)
    return Deal(tuple(order), f"{rng.getrandbits(128):032x}")


def new_game(players: int = 2, **variants: Any) -> Game:
    """A new match with the default rule set but for ``variants``."""
    return Game(RuleSet(players=players, **variants))


def game_at(scores: tuple[int, int], players: int = 2, **variants: Any) -> Game:
    """A new match whose teams already hold ``scores``, folded from a prefix of events (no hand dealt yet)."""
    rules = RuleSet(players=players, **variants)
    prefix: list[Event] = [*start_match(rules)]
    prefix += [PointsScored(team, points, ScoreReason.HAND) for team, points in enumerate(scores) if points]
    game = Game.from_events(prefix)
    assert game.state.scores == list(scores)
    return game


def cards(*texts: str) -> tuple[Card, ...]:
    return parse_cards(texts)


def deal(game: Game, hands: Sequence[Sequence[str]], muestra: str, salt: str = SALT) -> list[Event]:
    """Deal ``hands`` (each seat's three cards, from the mano in playing order) under ``muestra``."""
    order = order_for_hands([parse_cards(hand) for hand in hands], Card.parse(muestra))
    return game.deal(order, salt=salt)


def play(game: Game, seat: int, card: str) -> list[Event]:
    return game.execute(PlayCard(seat, Card.parse(card)))


def call(game: Game, seat: int, kind: CallKind) -> list[Event]:
    return game.execute(Call(seat, kind))


def answer(game: Game, seat: int, accept: bool) -> list[Event]:
    return game.execute(Answer(seat, accept))


def refused(game: Game, command: Command) -> Reason:
    """The reason ``command`` is refused; the test fails if it is accepted. Checks the game is unchanged."""
    version = game.version
    with pytest.raises(RuleViolation) as info:
        game.execute(command)
    assert game.version == version, "a refused command must not change the game"
    return info.value.reason


def of_type(events: Iterable[object], kind: type[E]) -> list[E]:
    return [event for event in events if isinstance(event, kind)]


def scored(events: Iterable[object]) -> list[tuple[int, int, ScoreReason]]:
    """The points credited by ``events`` as (team, points, reason)."""
    return [(e.team, e.points, e.reason) for e in of_type(events, PointsScored)]


def names(events: Iterable[object]) -> list[str]:
    return [type(event).__name__ for event in events]


def hand_of(game: Game) -> HandState:
    hand = game.state.hand
    assert hand is not None
    return hand


def public_hand(game: Game, seat: int = 0) -> HandView:
    """The public face of the current hand as ``seat`` sees it."""
    hand = game.view(seat).public.hand
    assert hand is not None
    return hand


def plain_hands(players: int) -> tuple[list[list[str]], str]:
    """Hands without flor (one card of each of basto, oro and copa) under an espada muestra: for filler
    hands whose only purpose is to move the score or the dealer on."""
    ranks = ("4", "5", "6", "7", "11", "12")
    return [[f"{rank}b", f"{rank}o", f"{rank}c"] for rank in ranks[:players]], "1e"


def concede_hands(game: Game, winners: Iterable[int]) -> None:
    """Play one filler hand per item of ``winners``: that team takes 1 point when the other goes to mazo."""
    for winner in winners:
        plan = game.state.plan
        assert plan is not None
        hands, muestra = plain_hands(len(plan.seats))
        deal(game, hands, muestra)
        while not hand_of(game).ended:
            seat = hand_of(game).turn
            if seat % 2 != winner:
                game.execute(GoToMazo(seat))
            else:
                game.execute(PlayCard(seat, hand_of(game).unplayed[seat][0]))


def last_deal(game: Game) -> HandDealt:
    return of_type(game.events, HandDealt)[-1]
