"""truco arena --gauntlet: a bot against every rival style, each pairing's win rate with its interval, and the
habits a strong player would call unsound, counted over the bots' real decisions."""

from __future__ import annotations

import json
import random
from functools import partial

import pytest

from truco.bots import STYLES, make_bot
from truco.bots.habits import Habits
from truco.cli.arena import GAUNTLET, ArenaOptions, run_gauntlet, wilson
from truco.cli.main import main
from truco.engine import (
    Call,
    CallKind,
    Card,
    Family,
    Game,
    GoToMazo,
    Phase,
    PlayCard,
    RuleSet,
    actors,
    execute_legal,
    legal_actions,
    seat_view,
    start_match,
)
from truco.engine.state import fold

from ..engine.scenario_helpers import deal, game_at, new_game, play, shuffled_deal

FIGURES = {"falta_share_malas", "early_mazo_per_hand", "bluff_truco_per_hand", "truco_calls_per_hand", "wasted_share"}


def test_a_tiny_gauntlet_reports_every_rival_and_the_habits_of_the_expert_and_the_heuristic() -> None:
    result = run_gauntlet(ArenaOptions("expert", "", matches=2, seed=4, target=15, playouts=24), progress=False)
    assert [p["rival"] for p in result["pairings"]] == list(GAUNTLET)
    for pairing in result["pairings"]:
        assert pairing["matches"] == 2 and 0 <= pairing["wins"] <= 2
        assert pairing["ci95"] == pytest.approx(wilson(pairing["wins"], 2), abs=1e-4)
        assert set(pairing["habits"]) == {"expert", pairing["rival"]}
    habits = result["habits"]
    assert set(habits) == {"expert", "heuristic"} and all(set(h) >= FIGURES for h in habits.values())
    # Counted over every decision the expert took in its pairings, and over every hand it was dealt.
    counts = habits["expert"]["counts"]
    assert counts["decisions"] == sum(p["decision_time"]["expert"]["decisions"] for p in result["pairings"])
    assert counts["hands"] == sum(p["habits"]["expert"]["counts"]["hands"] for p in result["pairings"]) > 12
    heuristic = next(p for p in result["pairings"] if p["rival"] == "heuristic")
    assert habits["heuristic"] == heuristic["habits"]["heuristic"]


def test_the_command_runs_a_gauntlet_or_refuses_a_muddle(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arena", "--gauntlet", "heuristic", "--matches", "2", "--seed", "1", "--target", "15", "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["gauntlet"] == "heuristic" and len(result["pairings"]) == len(GAUNTLET) - 1
    assert main(["arena", "--gauntlet", "expert", "heuristic", "--matches", "2"]) == 2
    assert main(["arena", "expert", "--matches", "2"]) == 2


def test_a_part_of_the_gauntlet_repeats_the_whole_ones_pairings(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["arena", "--gauntlet", "heuristic", "--matches", "2", "--seed", "3", "--target", "15", "--playouts", "24"]
    args.append("--json")
    assert main([*args, "--rivals", "rock,careful"]) == 0
    part = json.loads(capsys.readouterr().out)
    assert [p["rival"] for p in part["pairings"]] == ["rock", "careful"]
    assert [p["seed"] for p in part["pairings"]] == [3 + GAUNTLET.index("rock"), 3 + GAUNTLET.index("careful")]
    whole = run_gauntlet(ArenaOptions("heuristic", "", matches=2, seed=3, target=15, playouts=24), progress=False)
    same = ("rival", "seed", "wins", "mean_margin", "habits")  # all but the decisions' times
    assert [{k: p[k] for k in same} for p in whole["pairings"] if p["rival"] in ("rock", "careful")] == [
        {k: p[k] for k in same} for p in sorted(part["pairings"], key=lambda p: GAUNTLET.index(p["rival"]))
    ]
    exploitability = part["envido_exploitability"]
    assert exploitability["faltas"] == [1, 15] and exploitability["max_per_hand"] <= 0.02
    with pytest.raises(SystemExit):
        main([*args, "--rivals", "nobody"])


def test_the_arena_measures_the_envido_equilibrium(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--exploitability", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["unit"] == "points per hand" and figures["faltas"] == [1, 30]
    assert 0 < figures["mean_per_hand"] <= figures["max_per_hand"] <= 0.02
    assert main(["arena", "--exploitability"]) == 0
    assert "points per hand" in capsys.readouterr().out


def test_the_habits_match_a_recount_of_a_whole_match_of_decisions() -> None:
    """A maniac calls everything (a careful caller answers it): a recount of their calls and hands, done here on
    the match's decisions, agrees with what the habits counted."""
    rules = RuleSet(players=2, target=15)
    rng = random.Random(5)
    state = fold(start_match(rules))
    habits = Habits()
    bots = [make_bot("maniac"), make_bot("careful")]
    hands = calls_malas = faltas = trucos = 0
    while state.phase is not Phase.MATCH_OVER:
        waiting = actors(state)
        if not waiting:
            execute_legal(state, shuffled_deal(rng))
            habits.hands += 1
            hands += 1
            continue
        seat = waiting[0]
        action = bots[seat].choose(legal_actions(state, seat), partial(seat_view, state, seat, proofs=False), rng)
        habits.record(seat_view(state, seat, proofs=False), action)
        if isinstance(action, Call) and action.call.family is Family.ENVIDO and max(state.scores) < 8:
            calls_malas += 1
            faltas += action.call is CallKind.FALTA_ENVIDO
        trucos += isinstance(action, Call) and action.call.family is Family.TRUCO
        execute_legal(state, action)
    counts = habits.figures()["counts"]
    assert (counts["hands"], counts["envido_calls_malas"], counts["falta_calls_malas"]) == (hands, calls_malas, faltas)
    assert counts["truco_calls"] == trucos > 0 and counts["envido_calls_malas"] > 0


def _recorded(game: Game, seat: int, action: Call | GoToMazo | PlayCard) -> dict[str, int]:
    habits = Habits()
    habits.record(game.view(seat), action)
    counts: dict[str, int] = habits.figures()["counts"]
    return counts


def test_a_falta_counts_while_both_teams_are_en_malas_only() -> None:
    for scores, counted in (((3, 10), 1), ((3, 15), 0)):
        game = game_at(scores)
        deal(game, [["7e", "6e", "4o"], ["4b", "5o", "6c"]], "1c")
        counts = _recorded(game, 0, Call(0, CallKind.FALTA_ENVIDO))
        assert (counts["envido_calls_malas"], counts["falta_calls_malas"]) == (counted, counted)


def test_an_early_mazo_a_bluff_and_a_wasted_pieza_are_told_apart_from_sound_play() -> None:
    game = new_game()
    deal(game, [["4b", "5o", "6c"], ["2c", "3e", "3o"]], "4c")  # 2 de copa: the top pieza under a copa muestra
    assert _recorded(game, 0, GoToMazo(0))["early_mazos"] == 1
    assert _recorded(game, 0, Call(0, CallKind.TRUCO))["bluff_trucos"] == 1  # a 4, a 5 and a 6: nothing to back it
    play(game, 0, "6c")
    wasted = _recorded(game, 1, PlayCard(1, Card.parse("2c")))
    cheapest = _recorded(game, 1, PlayCard(1, Card.parse("3e")))
    assert (wasted["responding_plays"], wasted["wasted_plays"]) == (1, 1)
    assert (cheapest["responding_plays"], cheapest["wasted_plays"]) == (1, 0)
    assert _recorded(game, 1, Call(1, CallKind.TRUCO))["bluff_trucos"] == 0
    later = _recorded(game, 1, GoToMazo(1))
    assert later["early_mazos"] == 1  # seat 1 has not played a card yet
    play(game, 1, "3e")
    assert _recorded(game, 1, GoToMazo(1))["early_mazos"] == 0


def test_with_four_players_only_the_last_rival_facing_play_of_a_round_responds() -> None:
    """A card that beats the table while a rival is still to play may lose the round: spending a pieza there is
    no waste. Once every rival has played, it is, as with two players."""
    game = new_game(players=4)
    deal(game, [["6c", "5o", "4e"], ["4b", "6o", "7c"], ["5b", "6e", "12o"], ["2c", "3e", "3o"]], "4c")
    order = [(game.state.hand.mano + step) % 4 for step in range(4)]  # type: ignore[union-attr]
    first, second, third, last = order
    play(game, first, "6c")
    early = _recorded(game, second, PlayCard(second, Card.parse("6o")))
    assert (early["responding_plays"], early["wasted_plays"]) == (0, 0)  # the third seat, a rival, is to play
    play(game, second, "4b")
    play(game, third, "5b")
    wasted = _recorded(game, last, PlayCard(last, Card.parse("2c")))
    cheapest = _recorded(game, last, PlayCard(last, Card.parse("3e")))
    assert (wasted["responding_plays"], wasted["wasted_plays"]) == (1, 1)
    assert (cheapest["responding_plays"], cheapest["wasted_plays"]) == (1, 0)


def test_every_style_is_a_bot_that_plays_a_whole_match() -> None:
    for name in STYLES:
        bot = make_bot(name)
        rules = RuleSet(players=4, target=15)
        rng = random.Random(2)
        state = fold(start_match(rules))
        while state.phase is not Phase.MATCH_OVER:
            waiting = actors(state)
            if not waiting:
                execute_legal(state, shuffled_deal(rng))
                continue
            seat = waiting[0]
            actions = legal_actions(state, seat)
            choice = bot.choose(actions, partial(seat_view, state, seat, proofs=False), rng)
            assert choice in actions
            execute_legal(state, choice)
