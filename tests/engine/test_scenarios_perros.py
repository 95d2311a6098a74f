"""Echar los perros (004): the dealing team calls contra flor al resto, falta envido and truco before the deal;
the rivals answer en ley (with flor: the contra flor al resto) or a punto (the falta envido), and the truco."""

from __future__ import annotations

import pytest

from truco.engine import (
    AnswerPerros,
    Call,
    CallKind,
    CallPerros,
    Deal,
    Game,
    HandEnd,
    Phase,
    PlayCard,
    Reason,
    ScoreReason,
    SkipPerros,
    order_for_hands,
    parse_cards,
)
from truco.engine.events import (
    EnvidoSettled,
    EnvidoVoided,
    FlorSettled,
    FlorSung,
    HandEnded,
    MatchEnded,
    PerrosAnswered,
    PerrosCalled,
    PerrosSkipped,
    PointsScored,
    RoundEnded,
)

from .scenario_helpers import SALT, cards, deal, game_at, of_type, play, public_hand, refused, scored

T = CallKind
MUESTRA = "1c"
# Seat 0 is the mano and answers the perros; seat 1 deals the first hand and calls them.
A_PUNTO = [["7e", "6e", "1b"], ["5b", "4b", "3o"]]  # no flor: envido 33 against 29
EN_LEY = [["7o", "6o", "4o"], ["5b", "4b", "3e"]]  # seat 0 has flor (37), seat 1 none
BOTH_FLOR = [["7o", "6o", "4o"], ["7e", "6e", "5e"]]  # 37 against the dealer's 38
DEALERS_FLOR = [["7e", "6o", "1b"], ["5b", "4b", "3b"]]  # only the dealer has flor (32); seat 0: envido 7
START = (4, 12)  # falta: 30 - 12 = 18


def _perros_game(hands: list[list[str]], scores: tuple[int, int] = START) -> Game:
    game = game_at(scores, perros=True)
    assert game.state.phase is Phase.AWAITING_PERROS
    assert game.legal_actions(1) == [CallPerros(1), SkipPerros(1)]
    assert game.legal_actions(0) == []
    assert game.execute(CallPerros(1)) == [PerrosCalled(1)]
    deal(game, hands, MUESTRA)
    assert public_hand(game).perros_pending
    assert game.actors() == (0,)
    return game


def test_perros_refusals_before_and_after_the_deal() -> None:
    game = game_at(START, perros=True)
    order = order_for_hands([parse_cards(h) for h in A_PUNTO], parse_cards([MUESTRA])[0])
    assert refused(game, Deal(order, SALT)) is Reason.DEAL_NOT_EXPECTED
    assert refused(game, CallPerros(0)) is Reason.PERROS_NOT_YOUR_TEAM
    assert refused(game, SkipPerros(0)) is Reason.PERROS_NOT_YOUR_TEAM
    assert refused(game, PlayCard(0, order[0])) is Reason.HAND_NOT_IN_PLAY
    game.execute(CallPerros(1))
    assert refused(game, CallPerros(1)) is Reason.PERROS_NOT_NOW
    game.execute(Deal(order, SALT))
    assert refused(game, PlayCard(0, cards("7e")[0])) is Reason.PERROS_ANSWER_PENDING
    assert refused(game, Call(0, T.ENVIDO)) is Reason.PERROS_ANSWER_PENDING
    assert refused(game, AnswerPerros(1, True, True)) is Reason.PERROS_NOT_YOUR_TEAM
    assert set(game.legal_actions(0)) == {AnswerPerros(0, e, t) for e in (True, False) for t in (True, False)}
    assert game.legal_actions(1) == []


def test_perros_disabled() -> None:
    game = game_at(START)
    assert refused(game, CallPerros(1)) is Reason.PERROS_DISABLED
    assert refused(game, SkipPerros(1)) is Reason.PERROS_DISABLED


def test_skip_perros_plays_an_ordinary_hand() -> None:
    game = game_at(START, perros=True)
    assert game.execute(SkipPerros(1)) == [PerrosSkipped(1)]
    deal(game, A_PUNTO, MUESTRA)
    view = public_hand(game)
    assert not view.perros_pending and view.perros_by is None and view.truco_value == 1
    assert refused(game, AnswerPerros(0, True, True)) is Reason.PERROS_NOT_NOW
    game.execute(Call(0, T.ENVIDO))  # the envido is open as usual


def test_a_punto_se_quiere_y_se_quiere() -> None:
    game = _perros_game(A_PUNTO)
    events = game.execute(AnswerPerros(0, True, True))
    assert events == [
        PerrosAnswered(0, False, True, True),
        EnvidoSettled(0, 33),
        PointsScored(0, 18, ScoreReason.ENVIDO),  # the falta: 30 - 12
    ]
    view = public_hand(game)
    assert (view.truco_value, view.truco_owner, view.envido_closed) == (2, 0, True)
    assert refused(game, Call(0, T.ENVIDO)) is Reason.ENVIDO_CLOSED
    assert T.RETRUCO in {a.call for a in game.legal_actions(0) if isinstance(a, Call)}  # team 0 accepted
    play(game, 0, "1b")
    assert refused(game, Call(1, T.RETRUCO)) is Reason.RAISE_NOT_YOURS
    play(game, 1, "3o")
    play(game, 0, "7e")
    events = play(game, 1, "5b")
    assert scored(events) == [(0, 2, ScoreReason.HAND)]
    assert game.state.scores == [24, 12]


def test_a_punto_se_pasa_y_se_pasa() -> None:
    game = _perros_game(A_PUNTO)
    events = game.execute(AnswerPerros(0, False, False))
    assert events[:3] == [
        PerrosAnswered(0, False, False, False),
        PointsScored(1, 1, ScoreReason.ENVIDO_DECLINED),
        PointsScored(1, 1, ScoreReason.TRUCO_DECLINED),
    ]
    assert [(e.winner_team, e.end) for e in of_type(events, HandEnded)] == [(1, HandEnd.TRUCO_DECLINED)]
    assert game.state.scores == [4, 14]
    # The next hand is dealt by seat 0, whose team now decides on the perros.
    assert game.state.phase is Phase.AWAITING_PERROS
    assert game.legal_actions(0) == [CallPerros(0), SkipPerros(0)]


def test_a_punto_se_pasa_y_se_quiere() -> None:
    game = _perros_game(A_PUNTO)
    events = game.execute(AnswerPerros(0, False, True))
    assert events == [PerrosAnswered(0, False, False, True), PointsScored(1, 1, ScoreReason.ENVIDO_DECLINED)]
    assert public_hand(game).truco_value == 2
    play(game, 0, "1b")
    play(game, 1, "3o")
    play(game, 0, "7e")
    assert scored(play(game, 1, "5b")) == [(0, 2, ScoreReason.HAND)]
    assert game.state.scores == [6, 13]


def test_a_punto_se_quiere_y_se_pasa() -> None:
    game = _perros_game(A_PUNTO)
    events = game.execute(AnswerPerros(0, True, False))
    assert events[:4] == [
        PerrosAnswered(0, False, True, False),
        EnvidoSettled(0, 33),
        PointsScored(0, 18, ScoreReason.ENVIDO),
        PointsScored(1, 1, ScoreReason.TRUCO_DECLINED),
    ]
    assert [(e.winner_team, e.end) for e in of_type(events, HandEnded)] == [(1, HandEnd.TRUCO_DECLINED)]
    assert game.state.scores == [22, 13]


def test_a_punto_falta_won_by_the_dealers_ends_the_match() -> None:
    game = _perros_game([A_PUNTO[1], A_PUNTO[0]])  # now the dealer (seat 1) has the 33
    events = game.execute(AnswerPerros(0, True, True))
    assert events == [
        PerrosAnswered(0, False, True, True),
        EnvidoSettled(1, 33),
        PointsScored(1, 18, ScoreReason.ENVIDO),
        HandEnded(None, HandEnd.MATCH_ENDED, ((1, cards(*A_PUNTO[0])),)),
        MatchEnded(1),
    ]
    assert game.state.scores == [4, 30]


def test_en_ley_se_pasa_y_se_quiere() -> None:
    game = _perros_game(EN_LEY)
    events = game.execute(AnswerPerros(0, False, True))
    assert events == [
        PerrosAnswered(0, True, False, True),
        FlorSung(0),
        FlorSettled(None, None),
        PointsScored(1, 1, ScoreReason.FLOR_DECLINED),  # the refused contra flor al resto
    ]
    assert public_hand(game).truco_value == 2
    # Seat 0's flor was refused with the contra flor: it scores nothing at the end of round 1.
    play(game, 0, "7o")
    events = play(game, 1, "3e")
    assert events[-1] == RoundEnded(0, 0, 0)
    play(game, 0, "6o")
    assert scored(play(game, 1, "4b")) == [(0, 2, ScoreReason.HAND)]
    assert game.state.scores == [6, 13]


def test_en_ley_se_quiere_contra_flor_al_resto_accepted() -> None:
    game = _perros_game(EN_LEY)
    events = game.execute(AnswerPerros(0, True, True))
    assert events == [
        PerrosAnswered(0, True, True, True),
        FlorSung(0),
        FlorSettled(0, 37),
        PointsScored(0, 21, ScoreReason.FLOR),  # seat 0's flor 3 + the falta 18
    ]
    assert game.state.scores == [25, 12]
    assert public_hand(game).truco_value == 2


def test_en_ley_se_quiere_against_the_dealers_flor() -> None:
    game = _perros_game(BOTH_FLOR, scores=(4, 6))  # falta 24
    events = game.execute(AnswerPerros(0, True, True))
    shown = ((0, cards(*BOTH_FLOR[0])), (1, cards(*BOTH_FLOR[1])))
    assert events == [
        PerrosAnswered(0, True, True, True),
        FlorSung(0),
        FlorSung(1),
        FlorSettled(1, 38),
        PointsScored(1, 30 - 6, ScoreReason.FLOR),  # 3 + 3 + 24, capped at the target
        HandEnded(None, HandEnd.MATCH_ENDED, shown),
        MatchEnded(1),
    ]


def test_en_ley_se_quiere_y_se_pasa() -> None:
    game = _perros_game(EN_LEY)
    events = game.execute(AnswerPerros(0, True, False))
    assert scored(events) == [(0, 21, ScoreReason.FLOR), (1, 1, ScoreReason.TRUCO_DECLINED)]
    assert game.state.scores == [25, 13]


def test_en_ley_se_pasa_y_se_pasa() -> None:
    game = _perros_game(EN_LEY)
    events = game.execute(AnswerPerros(0, False, False))
    assert scored(events) == [(1, 1, ScoreReason.FLOR_DECLINED), (1, 1, ScoreReason.TRUCO_DECLINED)]
    assert [(e.winner_team, e.end) for e in of_type(events, HandEnded)] == [(1, HandEnd.TRUCO_DECLINED)]
    assert game.state.scores == [4, 14]


def test_en_ley_se_pasa_with_the_dealers_flor_pays_their_flor() -> None:
    game = _perros_game(BOTH_FLOR)
    events = game.execute(AnswerPerros(0, False, True))
    assert events == [
        PerrosAnswered(0, True, False, True),
        FlorSung(0),
        FlorSung(1),
        FlorSettled(None, None),
        PointsScored(1, 3, ScoreReason.FLOR_DECLINED),  # the dealer's own flor; seat 0's scores nothing
    ]


def test_a_punto_with_only_the_dealers_flor_voids_the_falta() -> None:
    game = _perros_game(DEALERS_FLOR)
    events = game.execute(AnswerPerros(0, True, True))
    # A hand with flor plays no envido: the dealer's flor is sung and the falta envido voided.
    assert events == [PerrosAnswered(0, False, True, True), FlorSung(1), EnvidoVoided()]
    play(game, 0, "1b")
    events = play(game, 1, "3b")
    assert scored(events) == [(1, 3, ScoreReason.FLOR)]
    assert game.state.scores == [4, 15]


@pytest.mark.parametrize(("accept_envido", "accept_truco"), [(True, True), (False, True), (False, False)])
def test_perros_in_four_players(accept_envido: bool, accept_truco: bool) -> None:
    game = game_at((4, 12), players=4, perros=True)
    # Seat 3 deals the first hand: team 1 (seats 1 and 3) decides; either may call.
    assert game.legal_actions(1) == [CallPerros(1), SkipPerros(1)]
    assert game.legal_actions(0) == [] and game.legal_actions(2) == []
    game.execute(CallPerros(1))
    deal(game, [A_PUNTO[0], A_PUNTO[1], ["4e", "6b", "12b"], ["6o", "5o", "12c"]], MUESTRA)
    assert game.actors() == (0, 2)
    assert refused(game, AnswerPerros(3, True, True)) is Reason.PERROS_NOT_YOUR_TEAM
    events = game.execute(AnswerPerros(2, accept_envido, accept_truco))  # any seat of team 0 answers
    assert events[0] == PerrosAnswered(2, False, accept_envido, accept_truco)
    expected = [(0, 18, ScoreReason.ENVIDO)] if accept_envido else [(1, 1, ScoreReason.ENVIDO_DECLINED)]
    if not accept_truco:
        expected.append((1, 1, ScoreReason.TRUCO_DECLINED))
    assert scored(events) == expected
    if accept_truco:
        assert (public_hand(game).truco_value, public_hand(game).truco_owner) == (2, 0)
