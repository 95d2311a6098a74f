"""No bot declines a truco when the hand is a sure win from its seat's view (the stand-in that takes a seat
included, whichever bot it is), and what the bots call sure is: every world the view leaves possible wins."""

from __future__ import annotations

import random

import pytest

from truco.bots import make_bot
from truco.bots.sure import sure_win
from truco.engine import (
    Answer,
    Call,
    CallKind,
    Family,
    Game,
    Phase,
    PlayCard,
    RuleSet,
    SeatCommand,
    SeatView,
    actors,
    determinize,
    execute_legal,
    seat_view,
    start_match,
)
from truco.engine.state import fold

from .position_suite import bounds, world_count, worlds
from .scenario_helpers import call, deal, new_game, play, shuffled_deal


def won_primera_holding_the_top_pieza() -> Game:
    """Seat 1 took the first round with a 3 and holds the 2 de copa (the top pieza under the 4 de copa): seat 0
    calls truco after seat 1 led a 7 de basto in the second round."""
    game = new_game(flor=False)
    deal(game, [["6b", "4o", "5o"], ["2c", "3e", "7b"]], "4c")
    play(game, 0, "6b")
    play(game, 1, "3e")
    play(game, 1, "7b")
    call(game, 0, CallKind.TRUCO)
    return game


@pytest.mark.parametrize("name", ["beginner", "heuristic", "expert", "careful", "rock", "maniac"])
def test_no_bot_declines_a_truco_it_wins_for_sure(name: str) -> None:
    game = won_primera_holding_the_top_pieza()
    view = game.view(1)
    assert sure_win(view)
    for seed in range(3):
        choice = make_bot(name).choose(view.legal_actions, lambda: view, random.Random(seed))
        assert choice == Answer(1, True, CallKind.TRUCO) or isinstance(choice, Call), choice  # quiero, or raise


def test_a_sure_win_is_won_in_every_world_the_view_leaves_possible() -> None:
    game = won_primera_holding_the_top_pieza()
    view = game.view(1)
    start = (view.public.scores[0], view.public.scores[1])
    for world in worlds(view):
        state = determinize(view, world)
        execute_legal(state, Answer(1, True, CallKind.TRUCO))
        worst, _ = bounds(state, view.team, start)
        assert worst == 2  # the truco's two points, however anybody plays on


def test_no_hand_is_sure_before_a_round_is_won_or_without_the_top_card() -> None:
    game = new_game(flor=False)
    deal(game, [["6b", "4o", "5o"], ["2c", "3e", "7b"]], "4c")
    assert not sure_win(game.view(1))  # the top pieza, but two rounds still to win
    play(game, 0, "6b")
    play(game, 1, "3e")
    assert sure_win(game.view(1))
    weaker = new_game(flor=False)
    deal(weaker, [["6b", "4o", "5o"], ["3c", "3e", "7b"]], "4c")
    play(weaker, 0, "6b")
    play(weaker, 1, "3e")
    assert not sure_win(weaker.view(1))  # a round won, but a mata or a pieza unseen beats what it holds


def test_every_hand_called_sure_in_real_matches_is_won_in_every_world() -> None:
    """Heuristic matches of 2 and 4 players: wherever sure_win says so (and the worlds are few enough to go
    through), some play or quiero of the seat wins the hand in every world its view allows."""
    checked = 0
    for players, seed in [(2, s) for s in range(60)] + [(4, s) for s in range(10)]:
        rng = random.Random(seed)
        state = fold(start_match(RuleSet(players=players, flor=False, senas=False)))
        bot = make_bot("heuristic")
        while state.phase is not Phase.MATCH_OVER:
            waiting = actors(state)
            if not waiting:
                execute_legal(state, shuffled_deal(rng))
                continue
            seat = waiting[0]
            view = seat_view(state, seat, proofs=False)
            hand = view.public.hand
            pending = hand.pending if hand is not None else None
            if sure_win(view) and world_count(view) <= 400 and (pending is None or pending.call.family is Family.TRUCO):
                options = [a for a in view.legal_actions if isinstance(a, PlayCard) or (_accepts(a))]
                assert any(_wins_everywhere(view, option) for option in options), view
                checked += 1
            execute_legal(state, bot.choose(view.legal_actions, lambda view=view: view, rng))  # type: ignore[misc]
    assert checked >= 8, checked


def _accepts(action: SeatCommand) -> bool:
    return isinstance(action, Answer) and action.accept


def _wins_everywhere(view: SeatView, action: SeatCommand) -> bool:
    start = (view.public.scores[0], view.public.scores[1])
    for world in worlds(view):
        state = determinize(view, world)
        execute_legal(state, action)
        if bounds(state, view.team, start)[0] <= 0:
            return False
    return True
