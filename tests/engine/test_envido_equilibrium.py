"""The envido and flor solved: the betting games, the CFR+ solver and exploitability on a game with known answers
(Kuhn poker), the shipped table being what scripts/envido-table makes, and the expert following it."""

from __future__ import annotations

import json
import random
from functools import partial

import pytest

from truco.bots import ExpertBot
from truco.bots.betting import Decision, JointHands, Strategy, Terminal, exploitability
from truco.bots.cfr import Solver
from truco.bots.envido_game import envido_distribution, envido_tree, flor_distribution, flor_tree, hands_of
from truco.bots.envido_policy import follow
from truco.bots.envido_solve import FALTAS, TABLE, build, dump, game, key, quantize
from truco.bots.envido_table import measure, row
from truco.engine import Answer, Call, CallKind, Card, Family, PlayCard, RuleSet, legal_actions, seat_view
from truco.engine.envido import falta

from .scenario_helpers import call, deal, game_at

JACK, QUEEN, KING = range(3)


def kuhn() -> tuple[Decision, JointHands]:
    """Kuhn poker (Kuhn 1950): three cards, one each, an ante of 1, one bet of 1."""
    one, two = Terminal(None, 1.0, 1.0), Terminal(None, 2.0, 2.0)
    root = Decision(
        "", 0, ("check", "bet"),
        (
            Decision("c", 1, ("check", "bet"), (one, Decision("cb", 0, ("fold", "call"), (Terminal(-1.0), two)))),
            Decision("b", 1, ("fold", "call"), (Terminal(1.0), two)),
        ),
    )  # fmt: skip
    joint = [[0.0 if i == j else 1 / 6 for j in range(3)] for i in range(3)]
    return root, JointHands(joint, [[i > j for j in range(3)] for i in range(3)])


def kuhn_equilibrium(alpha: float) -> Strategy:
    """One of Kuhn poker's equilibria (Kuhn 1950): the first player bets a jack with ``alpha`` (up to 1/3), a king
    with three times that, and calls with a queen with ``alpha`` + 1/3; the second bets a jack after a check with
    1/3, calls with a queen 1/3 of the time, and always bets and calls with a king."""
    first_bet = [alpha, 0.0, 3 * alpha]
    call_after_check = [0.0, alpha + 1 / 3, 1.0]
    second_bet = [1 / 3, 0.0, 1.0]
    second_call = [0.0, 1 / 3, 1.0]
    return {
        "": [[1 - p for p in first_bet], first_bet],
        "cb": [[1 - p for p in call_after_check], call_after_check],
        "c": [[1 - p for p in second_bet], second_bet],
        "b": [[1 - p for p in second_call], second_call],
    }


def test_exploitability_is_right_on_kuhn_poker() -> None:
    root, hands = kuhn()
    uniform = {k: [[0.5] * 3, [0.5] * 3] for k in ("", "c", "cb", "b")}
    measured = exploitability(root, hands, uniform)
    # OpenSpiel's exploitability of the uniform random policy in kuhn_poker: 0.4583333 (NashConv 0.9166667).
    assert measured.exploitability == pytest.approx(11 / 24)
    assert measured.value == pytest.approx(1 / 8)
    for alpha in (0.0, 1 / 6, 1 / 3):
        exact = exploitability(root, hands, kuhn_equilibrium(alpha))
        assert exact.exploitability == pytest.approx(0.0, abs=1e-12)
        assert exact.value == pytest.approx(-1 / 18)  # the game's value to the first player
    # An alpha above 1/3 is no equilibrium: the second player gains by calling a bet with its queen.
    assert exploitability(root, hands, kuhn_equilibrium(0.5)).exploitability > 0.01


def test_cfr_plus_converges_to_kuhn_pokers_value() -> None:
    root, hands = kuhn()
    solver = Solver(root, hands)
    solver.iterate(300)
    measured = exploitability(root, hands, solver.average())
    assert measured.exploitability < 2e-3
    assert measured.value == pytest.approx(-1 / 18, abs=2e-3)
    rerun = Solver(root, hands)
    rerun.iterate(300)
    assert rerun.average() == solver.average()  # deterministic


def test_the_envido_tree_pays_what_the_engines_rules_do() -> None:
    tree = envido_tree(falta=30)
    pie = tree.children[0]
    assert isinstance(pie, Decision) and pie.key == "P" and pie.children[0] == Terminal(0.0)
    envido = tree.children[1]
    assert isinstance(envido, Decision) and envido.key == "M:E" and envido.actor == 1
    assert envido.actions == ("Q", "N", "E", "R", "F")
    assert envido.children[0] == Terminal(None, 2, 2) and envido.children[1] == Terminal(1.0)
    raised = envido.children[3]  # envido, real envido: the mano answers
    assert isinstance(raised, Decision) and raised.key == "M:E.R" and raised.actor == 0
    assert raised.children[0] == Terminal(None, 5, 5) and raised.children[1] == Terminal(-2.0)
    falta_ = raised.children[2]
    assert isinstance(falta_, Decision) and falta_.children[0] == Terminal(None, 30, 30)
    contest = flor_tree(falta=10)
    assert contest.key == "F" and contest.actor == 1 and contest.actions == ("sing", "CFE", "CF", "CFAR")
    sung = contest.children[0]
    assert isinstance(sung, Decision) and sung.children[0] == Terminal(None, 6, 6)  # two flores, 3 each
    cfar = contest.children[3]
    assert isinstance(cfar, Decision) and cfar.children[0] == Terminal(None, 16, 16)  # the falta and the flores
    assert cfar.children[1] == Terminal(-3.0)  # con flor me achico: the pie's own flor


def test_the_shipped_table_is_what_the_command_makes() -> None:
    shipped = json.loads(TABLE.read_text())
    assert shipped["iterations"] >= 1000 and set(shipped["games"]) == {
        key(flor, value) for flor in (True, False) for value in FALTAS
    }
    assert shipped["points"]["flor"] == list(envido_distribution(True).points)
    assert shipped["points"]["flores"] == list(flor_distribution().points)
    for flor, value in ((True, 30), (False, 4)):
        assert game(value, flor, shipped["iterations"]) == shipped["games"][key(flor, value)]
    head = dump(build((7,), iterations=10))  # the layout the command writes, on a small table
    assert head.startswith('{"method":') and head.count("\n") == 4


def test_thousandths_sum_to_1000_and_drop_the_solvers_residue() -> None:
    assert quantize([0.3333, 0.3333, 0.3334]) == [333, 333, 334]
    assert quantize([0.997, 0.003, 0.0]) == [1000, 0, 0]
    assert sum(quantize([0.2, 0.5, 0.3, 0.0])) == 1000


@pytest.mark.parametrize("value", [30, 15, 6, 2, 1])
def test_the_shipped_table_is_within_the_goal_of_an_equilibrium(value: int) -> None:
    measured = measure(True, value)
    assert measured.per_hand <= 0.02  # bench/README.md records every falta's with truco arena --exploitability
    assert measured.envido.exploitability <= 0.03
    again = exploitability(envido_tree(value), hands_of(envido_distribution(True)), _uniform(envido_tree(value)))
    assert again.exploitability > 10 * measured.envido.exploitability  # a strategy that is no equilibrium


def _uniform(root: Decision) -> Strategy:
    from truco.bots.betting import decisions

    size = len(envido_distribution(True).points)
    return {node.key: [[1 / len(node.actions)] * size for _ in node.actions] for node in decisions(root)}


def _at_first_turn(scores: tuple[int, int], hands: list[list[str]], muestra: str):  # type: ignore[no-untyped-def]
    game = game_at(scores)
    deal(game, hands, muestra)
    return game


def test_the_expert_takes_its_envido_from_the_table() -> None:
    # Mano (seat 1 of a fresh match? the engine says who) with 33 of envido at 0 to 0: whatever the table draws
    # is played, and a falta is never among the mano's openings at a falta of 30.
    game = _at_first_turn((0, 0), [["7e", "6e", "4c"], ["1b", "12o", "5c"]], "1o")
    state = game.state
    hand = state.hand
    assert hand is not None
    mano = hand.mano
    view = seat_view(state, mano, proofs=False)
    assert view.envido == 33
    expected = row(True, falta(state.rules, state.scores, False, 0), False, "M", 33)
    assert expected is not None and expected.parts[3] == 0  # no falta opens at 0 to 0
    seen = set()
    for seed in range(60):
        left = follow(legal_actions(state, mano), view, random.Random(seed))
        calls = [a for a in left if isinstance(a, Call) and a.call.family is Family.ENVIDO]
        if len(left) == 1:
            assert isinstance(left[0], Call) and left[0].call is not CallKind.FALTA_ENVIDO
            seen.add(left[0].call)
        else:
            assert not calls and any(isinstance(a, PlayCard) for a in left)  # passed: the search picks a card
            seen.add(None)
    wanted = {None if i == 0 else (CallKind.ENVIDO, CallKind.REAL_ENVIDO)[i - 1] for i in (0, 1, 2)
              if expected.parts[i] > 0}  # fmt: skip
    assert seen == wanted


def test_the_expert_answers_an_envido_as_the_table_says() -> None:
    # The mano holds 37 (the 2 of the muestra's suit and a 7), plays a card; the pie sings falta envido.
    game = _at_first_turn((0, 0), [["2o", "7e", "6c"], ["1b", "12o", "5c"]], "1o")
    hand = game.state.hand
    assert hand is not None
    mano, pie = hand.mano, 1 - hand.mano
    game.execute(PlayCard(mano, Card.parse("6c")))
    call(game, pie, CallKind.FALTA_ENVIDO)
    state = game.state
    assert seat_view(state, mano, proofs=False).envido == 37
    found = row(True, 30, False, "P:F", 37)
    assert found is not None and found.actions == ("Q", "N") and found.parts == (1000, 0)
    choice = ExpertBot(playouts=8).choose(legal_actions(state, mano), partial(seat_view, state, mano), random.Random(1))
    assert choice == Answer(mano, True, CallKind.FALTA_ENVIDO)


def test_without_two_players_the_search_decides() -> None:
    game = game_at((0, 0), players=4)
    from .scenario_helpers import shuffled_deal

    game.execute(shuffled_deal(random.Random(2)))
    state = game.state
    seat = state.hand.turn  # type: ignore[union-attr]
    assert seat is not None
    actions = legal_actions(state, seat)
    assert follow(actions, seat_view(state, seat, proofs=False), random.Random(0)) == actions
    assert RuleSet(players=4).players == 4
