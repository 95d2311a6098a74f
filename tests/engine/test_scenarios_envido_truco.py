"""Scripted scenarios: envido está primero, envido against flor, falta envido, truco raises, mazo and the
end of a match. Expected scores follow /work/shared/rules-decisions.md."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from truco.engine import (
    Answer,
    Call,
    CallKind,
    Deal,
    FaltaEnvido,
    Family,
    GoToMazo,
    HandEnd,
    Phase,
    PlayCard,
    Reason,
    ScoreReason,
    Sena,
    SendSena,
)
from truco.engine.events import (
    CallAccepted,
    CallDeclined,
    CallMade,
    CardPlayed,
    EnvidoSettled,
    EnvidoVoided,
    FlorSettled,
    FlorSung,
    HandEnded,
    MatchEnded,
    PointsScored,
    RoundEnded,
    WentToMazo,
)
from truco.engine.views import PendingCallView

from .scenario_helpers import (
    SALT,
    answer,
    call,
    cards,
    concede_hands,
    deal,
    game_at,
    hand_of,
    new_game,
    of_type,
    play,
    public_hand,
    refused,
    scored,
)

T = CallKind
MUESTRA = "1c"  # piezas 2c 4c 5c 11c 10c: none in the hands below
MANO_33 = ["7e", "6e", "1b"]  # envido 20 + 7 + 6 = 33, no flor
PIE_29 = ["5b", "4b", "3o"]  # envido 20 + 5 + 4 = 29, no flor
PIE_FLOR = ["5b", "4b", "3b"]  # flor 20 + 5 + 4 + 3 = 32
ENVIDO_FAMILY = {T.ENVIDO, T.REAL_ENVIDO, T.FALTA_ENVIDO}


def _calls(actions: Sequence[object]) -> set[CallKind]:
    """The calls among ``actions`` (legal actions)."""
    return {action.call for action in actions if isinstance(action, Call)}


# --- El envido está primero ---------------------------------------------------------------------------------


def test_envido_esta_primero_accepted_then_truco_still_pending() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    assert call(game, 0, T.TRUCO) == [CallMade(0, T.TRUCO)]
    assert call(game, 1, T.ENVIDO) == [CallMade(1, T.ENVIDO)]  # answered with envido
    assert public_hand(game).pending == PendingCallView(T.ENVIDO, 1, 1, 2)
    assert game.actors() == (0,)
    assert refused(game, PlayCard(0, cards("1b")[0])) is Reason.CALL_PENDING
    assert refused(game, Call(1, T.RETRUCO)) is Reason.CALL_PENDING
    assert answer(game, 0, True) == [
        CallAccepted(0, T.ENVIDO),
        EnvidoSettled(0, 33),
        PointsScored(0, 2, ScoreReason.ENVIDO),
    ]
    # The truco waited: it is still pending against seat 1, who must answer it before anyone plays.
    assert public_hand(game).pending == PendingCallView(T.TRUCO, 0, 0, 2)
    assert game.actors() == (1,)
    assert refused(game, PlayCard(0, cards("1b")[0])) is Reason.CALL_PENDING
    assert refused(game, Call(1, T.ENVIDO)) is Reason.ENVIDO_CLOSED
    assert answer(game, 1, True) == [CallAccepted(1, T.TRUCO)]
    assert public_hand(game).truco_value == 2
    play(game, 0, "1b")
    play(game, 1, "3o")  # 1b beats 3o
    play(game, 0, "7e")
    events = play(game, 1, "5b")  # 7e beats 5b: two rounds to team 0
    assert events[-2:] == [
        PointsScored(0, 2, ScoreReason.HAND),
        HandEnded(0, HandEnd.ROUNDS, ((0, cards(*MANO_33)),)),
    ]
    assert game.state.scores == [4, 0]


def test_envido_esta_primero_declined_then_truco_declined() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.TRUCO)
    call(game, 1, T.ENVIDO)
    assert answer(game, 0, False) == [CallDeclined(0, T.ENVIDO), PointsScored(1, 1, ScoreReason.ENVIDO_DECLINED)]
    assert public_hand(game).pending == PendingCallView(T.TRUCO, 0, 0, 2)
    events = answer(game, 1, False)
    assert events[:2] == [CallDeclined(1, T.TRUCO), PointsScored(0, 1, ScoreReason.TRUCO_DECLINED)]
    ended = of_type(events, HandEnded)
    assert [(e.winner_team, e.end) for e in ended] == [(0, HandEnd.TRUCO_DECLINED)]
    assert game.state.scores == [1, 1]


def test_envido_esta_primero_raised_then_quiero_retruco() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.TRUCO)
    call(game, 1, T.ENVIDO)
    assert call(game, 0, T.REAL_ENVIDO) == [CallMade(0, T.REAL_ENVIDO)]  # the envido chain goes on first
    assert refused(game, Answer(0, True)) is Reason.ANSWER_NOT_YOURS
    assert answer(game, 1, True)[1:] == [EnvidoSettled(0, 33), PointsScored(0, 5, ScoreReason.ENVIDO)]
    # Back to the truco: seat 1 accepts it by raising ("quiero retruco").
    assert call(game, 1, T.RETRUCO) == [CallAccepted(1, T.TRUCO), CallMade(1, T.RETRUCO)]
    assert public_hand(game).truco_value == 2
    events = answer(game, 0, False)
    assert scored(events) == [(1, 2, ScoreReason.TRUCO_DECLINED)]
    assert game.state.scores == [5, 2]


def test_truco_caller_cannot_answer_with_envido_and_later_truco_is_not_answered_with_envido() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.TRUCO)
    assert refused(game, Call(0, T.ENVIDO)) is Reason.CALL_PENDING
    answer(game, 1, True)
    play(game, 0, "1b")
    play(game, 1, "3o")
    # Round 2: a truco raise is answered, but never with envido any more.
    play(game, 0, "7e")
    assert call(game, 1, T.RETRUCO) == [CallMade(1, T.RETRUCO)]
    assert refused(game, Call(0, T.ENVIDO)) is Reason.ENVIDO_CLOSED
    assert T.ENVIDO not in _calls(game.legal_actions(0))


# --- Envido and flor ----------------------------------------------------------------------------------------


def test_flor_sung_closes_the_envido() -> None:
    game = new_game()
    deal(game, [["7e", "6e", "5e"], PIE_29], MUESTRA)  # the mano has flor (38)
    assert refused(game, Call(0, T.ENVIDO)) is Reason.ENVIDO_CLOSED  # never with flor in one's hand
    assert play(game, 0, "5e") == [FlorSung(0), CardPlayed(0, cards("5e")[0])]
    assert public_hand(game, 1).envido_closed
    assert refused(game, Call(1, T.ENVIDO)) is Reason.ENVIDO_CLOSED
    assert refused(game, Call(1, T.FALTA_ENVIDO)) is Reason.ENVIDO_CLOSED
    assert not _calls(game.legal_actions(1)) & ENVIDO_FAMILY
    events = play(game, 1, "3o")  # 3o beats 5e
    assert events[-3:] == [RoundEnded(0, 1, 1), FlorSettled(None, None), PointsScored(0, 3, ScoreReason.FLOR)]
    assert game.state.scores == [3, 0]


@pytest.mark.parametrize("accept", [True, False])
def test_envido_voided_when_the_flor_holder_answers(accept: bool) -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_FLOR], MUESTRA)
    call(game, 0, T.ENVIDO)
    # Seat 1 has not acted yet: answering sings its flor, which voids the envido (quiero or no quiero alike).
    assert answer(game, 1, accept) == [FlorSung(1), EnvidoVoided()]
    assert game.state.scores == [0, 0]
    assert public_hand(game).pending is None
    assert game.actors() == (0,)
    play(game, 0, "1b")
    events = play(game, 1, "3b")  # 1b beats 3b
    assert events[-3:] == [RoundEnded(0, 0, 0), FlorSettled(None, None), PointsScored(1, 3, ScoreReason.FLOR)]
    assert game.state.scores == [0, 3]


def test_flor_holder_cannot_raise_the_envido() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_FLOR], MUESTRA)
    call(game, 0, T.ENVIDO)
    for kind in ENVIDO_FAMILY:
        assert refused(game, Call(1, kind)) is Reason.ENVIDO_CLOSED
    assert not _calls(game.legal_actions(1)) & ENVIDO_FAMILY


@pytest.mark.parametrize("accept", [True, False])
def test_envido_settled_with_a_silent_flor_at_the_table_is_voided(accept: bool) -> None:
    game = new_game(players=4)
    # Seat 3 holds flor (7o 5o 2o: 34) and has not acted when team 1 answers the envido through seat 1.
    deal(game, [MANO_33, PIE_29, ["4e", "6b", "12b"], ["7o", "5o", "2o"]], MUESTRA)
    call(game, 0, T.ENVIDO)
    settle = CallAccepted(1, T.ENVIDO) if accept else CallDeclined(1, T.ENVIDO)
    assert answer(game, 1, accept) == [settle, FlorSung(3), EnvidoVoided()]
    assert game.state.scores == [0, 0]
    play(game, 0, "1b")
    play(game, 1, "3o")
    play(game, 2, "4e")
    events = play(game, 3, "2o")  # 1b is the best card
    assert events[-3:] == [RoundEnded(0, 0, 0), FlorSettled(None, None), PointsScored(1, 3, ScoreReason.FLOR)]
    assert game.state.scores == [0, 3]


def test_envido_esta_primero_voided_by_a_teammates_flor_then_truco_answered() -> None:
    game = new_game(players=4)
    deal(game, [MANO_33, PIE_29, ["7o", "5o", "2o"], ["4e", "6b", "12b"]], MUESTRA)
    call(game, 0, T.TRUCO)
    call(game, 1, T.ENVIDO)
    # Seat 2 (team 0, flor) answers the envido for its team: the flor voids it.
    assert answer(game, 2, True) == [FlorSung(2), EnvidoVoided()]
    assert public_hand(game).pending == PendingCallView(T.TRUCO, 0, 0, 2)
    assert game.actors() == (1, 3)
    assert answer(game, 3, True) == [CallAccepted(3, T.TRUCO)]
    play(game, 0, "1b")
    play(game, 1, "3o")
    play(game, 2, "2o")
    events = play(game, 3, "4e")
    assert events[-3:] == [RoundEnded(0, 0, 0), FlorSettled(None, None), PointsScored(0, 3, ScoreReason.FLOR)]
    assert game.state.scores == [3, 0]


def test_mazo_by_a_flor_holder_answering_an_envido() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_FLOR], MUESTRA)
    call(game, 0, T.ENVIDO)
    events = game.execute(GoToMazo(1))
    assert events[:6] == [
        FlorSung(1),
        EnvidoVoided(),
        WentToMazo(1),
        FlorSettled(None, None),
        PointsScored(1, 3, ScoreReason.FLOR),
        PointsScored(0, 1, ScoreReason.MAZO),
    ]
    assert game.state.scores == [1, 3]


# --- Falta envido and the envido chain ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "scores", "credited"),
    [
        (FaltaEnvido.LEADER_REMAINING, (10, 5), 20),  # malas: what the leader lacks
        (FaltaEnvido.LEADER_REMAINING, (14, 5), 16),
        (FaltaEnvido.LEADER_REMAINING, (20, 12), 10),  # buenas
        (FaltaEnvido.LEADER_REMAINING, (12, 20), 10),  # the leader wins it: the match
        (FaltaEnvido.MATCH_IF_MALAS, (10, 5), 25),  # leader en malas: the whole match
        (FaltaEnvido.MATCH_IF_MALAS, (14, 5), 25),
        (FaltaEnvido.MATCH_IF_MALAS, (15, 5), 15),  # 15 is buenas: back to what the leader lacks
        (FaltaEnvido.MATCH_IF_MALAS, (20, 12), 10),
    ],
)
def test_falta_envido_value(mode: FaltaEnvido, scores: tuple[int, int], credited: int) -> None:
    game = game_at(scores, falta_envido=mode)
    deal(game, [PIE_29, MANO_33], MUESTRA)  # seat 1 wins the envido with 33
    call(game, 0, T.FALTA_ENVIDO)
    events = answer(game, 1, True)
    assert events[:3] == [
        CallAccepted(1, T.FALTA_ENVIDO),
        EnvidoSettled(1, 33),
        PointsScored(1, credited, ScoreReason.ENVIDO),
    ]
    assert game.state.scores == [scores[0], scores[1] + credited]
    if scores[1] + credited == 30:
        assert events[3:] == [
            HandEnded(None, HandEnd.MATCH_ENDED, ((1, cards(*MANO_33)),)),
            MatchEnded(1),
        ]
        assert game.state.phase is Phase.MATCH_OVER
    else:
        assert events[3:] == []


def test_falta_envido_after_played_hands() -> None:
    """The same value when the score comes from hands actually played (20 to 12, buenas: falta 10)."""
    game = new_game()
    concede_hands(game, [0] * 20 + [1] * 12)
    assert game.state.scores == [20, 12]
    assert game.state.plan is not None and game.state.plan.seats == (0, 1)  # hand 33: seat 0 is the mano
    deal(game, [PIE_29, MANO_33], MUESTRA)
    call(game, 0, T.ENVIDO)
    call(game, 1, T.FALTA_ENVIDO)
    events = answer(game, 0, True)
    assert events[1:] == [EnvidoSettled(1, 33), PointsScored(1, 10, ScoreReason.ENVIDO)]
    assert game.state.scores == [20, 22]


@pytest.mark.parametrize(
    ("chain", "accept", "expected"),
    [
        ([T.ENVIDO], True, (0, 2, ScoreReason.ENVIDO)),
        ([T.ENVIDO], False, (0, 1, ScoreReason.ENVIDO_DECLINED)),
        ([T.ENVIDO, T.ENVIDO], True, (0, 4, ScoreReason.ENVIDO)),
        ([T.ENVIDO, T.ENVIDO], False, (1, 2, ScoreReason.ENVIDO_DECLINED)),
        ([T.ENVIDO, T.REAL_ENVIDO], True, (0, 5, ScoreReason.ENVIDO)),
        ([T.ENVIDO, T.REAL_ENVIDO], False, (1, 2, ScoreReason.ENVIDO_DECLINED)),
        ([T.REAL_ENVIDO], False, (0, 1, ScoreReason.ENVIDO_DECLINED)),
        ([T.ENVIDO, T.ENVIDO, T.REAL_ENVIDO], True, (0, 7, ScoreReason.ENVIDO)),
        ([T.ENVIDO, T.ENVIDO, T.REAL_ENVIDO, T.FALTA_ENVIDO], False, (1, 7, ScoreReason.ENVIDO_DECLINED)),
        ([T.ENVIDO, T.FALTA_ENVIDO], True, (0, 20, ScoreReason.ENVIDO)),  # falta alone: 30 - 10
        ([T.FALTA_ENVIDO], False, (0, 1, ScoreReason.ENVIDO_DECLINED)),
    ],
)
def test_envido_chain_values(chain: list[CallKind], accept: bool, expected: tuple[int, int, ScoreReason]) -> None:
    game = game_at((10, 2))
    deal(game, [MANO_33, PIE_29], MUESTRA)  # seat 0 wins any accepted envido
    for index, kind in enumerate(chain):
        call(game, index % 2, kind)
    events = answer(game, len(chain) % 2, accept)
    assert scored(events) == [expected]


def test_envido_chain_raise_limits() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.REAL_ENVIDO)
    assert refused(game, Call(1, T.ENVIDO)) is Reason.ENVIDO_RAISE_INVALID
    assert refused(game, Call(1, T.REAL_ENVIDO)) is Reason.ENVIDO_RAISE_INVALID
    call(game, 1, T.FALTA_ENVIDO)
    assert refused(game, Call(0, T.FALTA_ENVIDO)) is Reason.ENVIDO_RAISE_INVALID
    assert _calls(game.legal_actions(0)) == set()


def test_envido_tie_goes_to_the_seat_nearer_the_mano() -> None:
    game = new_game(players=4)
    concede_hands(game, [0])  # in hand 2 seat 1 is the mano: the order is 1, 2, 3, 0
    # Seat 3 (7e 6e 1b) and seat 0 (7o 6o 2e) both have 33: seat 3 is nearer the mano.
    deal(game, [PIE_29, ["4e", "6b", "12b"], MANO_33, ["7o", "6o", "2e"]], MUESTRA)
    call(game, 1, T.ENVIDO)
    events = answer(game, 0, True)
    assert events == [CallAccepted(0, T.ENVIDO), EnvidoSettled(3, 33), PointsScored(1, 2, ScoreReason.ENVIDO)]
    assert game.state.scores == [1, 2]


def test_envido_called_by_the_third_seat_on_its_turn() -> None:
    game = new_game(players=4)
    deal(game, [MANO_33, PIE_29, ["4e", "6b", "12b"], ["6o", "5o", "12c"]], MUESTRA)
    assert refused(game, Call(2, T.ENVIDO)) is Reason.NOT_YOUR_TURN
    play(game, 0, "1b")
    assert refused(game, Call(0, T.ENVIDO)) is Reason.ENVIDO_CLOSED  # seat 0 played its card
    play(game, 1, "3o")
    assert call(game, 2, T.ENVIDO) == [CallMade(2, T.ENVIDO)]
    assert game.actors() == (1, 3)
    events = answer(game, 3, True)  # seat 0's 33 wins for team 0, though seat 0 already played
    assert events[1:] == [EnvidoSettled(0, 33), PointsScored(0, 2, ScoreReason.ENVIDO)]
    play(game, 2, "4e")
    play(game, 3, "6o")
    assert refused(game, Call(0, T.ENVIDO)) is Reason.ENVIDO_CLOSED


# --- Truco raises -------------------------------------------------------------------------------------------


def test_truco_raises_alternate_between_the_teams() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    assert refused(game, Call(0, T.RETRUCO)) is Reason.TRUCO_OUT_OF_ORDER
    assert refused(game, Call(1, T.TRUCO)) is Reason.NOT_YOUR_TURN
    call(game, 0, T.TRUCO)
    assert refused(game, Call(0, T.RETRUCO)) is Reason.CALL_PENDING  # own call pending
    assert refused(game, Call(1, T.VALE_CUATRO)) is Reason.TRUCO_OUT_OF_ORDER
    assert answer(game, 1, True) == [CallAccepted(1, T.TRUCO)]
    hand = public_hand(game)
    assert (hand.truco_value, hand.truco_owner) == (2, 1)
    # Team 1 accepted: only team 1 may raise; seat 0 is on turn but the retruco is not its to call.
    assert refused(game, Call(0, T.RETRUCO)) is Reason.RAISE_NOT_YOURS
    assert not _calls(game.legal_actions(0)) & {T.TRUCO, T.RETRUCO, T.VALE_CUATRO}
    play(game, 0, "1b")
    assert T.RETRUCO in _calls(game.legal_actions(1))
    assert call(game, 1, T.RETRUCO) == [CallMade(1, T.RETRUCO)]
    # "Quiero vale cuatro": seat 0 accepts the retruco by raising it.
    assert call(game, 0, T.VALE_CUATRO) == [CallAccepted(0, T.RETRUCO), CallMade(0, T.VALE_CUATRO)]
    assert public_hand(game).truco_value == 3
    assert answer(game, 1, True) == [CallAccepted(1, T.VALE_CUATRO)]
    hand = public_hand(game)
    assert (hand.truco_value, hand.truco_owner) == (4, 1)
    for kind in (T.TRUCO, T.RETRUCO, T.VALE_CUATRO):
        assert refused(game, Call(1, kind)) is Reason.TRUCO_AT_MAXIMUM
    play(game, 1, "3o")
    for kind in (T.TRUCO, T.RETRUCO, T.VALE_CUATRO):
        assert refused(game, Call(0, kind)) is Reason.TRUCO_AT_MAXIMUM
    play(game, 0, "7e")
    events = play(game, 1, "5b")
    assert scored(events) == [(0, 4, ScoreReason.HAND)]
    assert game.state.scores == [4, 0]


def test_vale_cuatro_pending_cannot_be_raised() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.TRUCO)
    call(game, 1, T.RETRUCO)
    call(game, 0, T.VALE_CUATRO)
    assert refused(game, Call(1, T.VALE_CUATRO)) is Reason.TRUCO_AT_MAXIMUM


@pytest.mark.parametrize(
    ("chain", "expected"),
    [
        ([T.TRUCO], (0, 1)),
        ([T.TRUCO, T.RETRUCO], (1, 2)),
        ([T.TRUCO, T.RETRUCO, T.VALE_CUATRO], (0, 3)),
    ],
)
def test_no_quiero_pays_the_previous_value(chain: list[CallKind], expected: tuple[int, int]) -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    for index, kind in enumerate(chain):
        call(game, index % 2, kind)
    decliner = len(chain) % 2
    events = answer(game, decliner, False)
    team, points = expected
    assert events[:2] == [
        CallDeclined(decliner, chain[-1]),
        PointsScored(team, points, ScoreReason.TRUCO_DECLINED),
    ]
    assert [(e.winner_team, e.end) for e in of_type(events, HandEnded)] == [(team, HandEnd.TRUCO_DECLINED)]
    assert game.state.scores[team] == points and game.state.scores[1 - team] == 0


def test_retruco_on_turn_declined_pays_two() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.TRUCO)
    answer(game, 1, True)
    play(game, 0, "1b")
    call(game, 1, T.RETRUCO)
    assert scored(answer(game, 0, False)) == [(1, 2, ScoreReason.TRUCO_DECLINED)]


def test_truco_raises_in_four_players_any_teammate_answers_and_raises() -> None:
    game = new_game(players=4)
    deal(game, [MANO_33, PIE_29, ["4e", "6b", "12b"], ["6o", "5o", "12c"]], MUESTRA)
    call(game, 0, T.TRUCO)
    assert game.actors() == (1, 3)
    assert call(game, 3, T.RETRUCO) == [CallAccepted(3, T.TRUCO), CallMade(3, T.RETRUCO)]  # seat 3 answers out of turn
    assert game.actors() == (0, 2)
    assert refused(game, Answer(1, True)) is Reason.ANSWER_NOT_YOURS
    assert answer(game, 2, True) == [CallAccepted(2, T.RETRUCO)]
    hand = public_hand(game)
    assert (hand.truco_value, hand.truco_owner, hand.turn) == (3, 0, 0)
    play(game, 0, "1b")
    assert refused(game, Call(1, T.VALE_CUATRO)) is Reason.RAISE_NOT_YOURS


# --- Me voy al mazo -----------------------------------------------------------------------------------------


def test_mazo_with_pending_envido_counts_it_declined() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.ENVIDO)
    assert refused(game, GoToMazo(0)) is Reason.CALL_PENDING  # the caller waits for the answer
    events = game.execute(GoToMazo(1))
    assert events[:4] == [
        WentToMazo(1),
        CallDeclined(1, T.ENVIDO),
        PointsScored(0, 1, ScoreReason.ENVIDO_DECLINED),
        PointsScored(0, 1, ScoreReason.MAZO),
    ]
    assert [(e.winner_team, e.end) for e in of_type(events, HandEnded)] == [(0, HandEnd.MAZO)]
    assert game.state.scores == [2, 0]


def test_mazo_with_pending_envido_raise_pays_the_chain_before() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.ENVIDO)
    call(game, 1, T.REAL_ENVIDO)
    events = game.execute(GoToMazo(0))
    assert scored(events) == [(1, 2, ScoreReason.ENVIDO_DECLINED), (1, 1, ScoreReason.MAZO)]
    assert game.state.scores == [0, 3]


def test_mazo_with_pending_truco_pays_the_last_accepted_value() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.TRUCO)
    assert scored(game.execute(GoToMazo(1))) == [(0, 1, ScoreReason.MAZO)]
    assert game.state.scores == [1, 0]


def test_mazo_with_pending_retruco_pays_the_accepted_truco() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.TRUCO)
    answer(game, 1, True)
    play(game, 0, "1b")
    call(game, 1, T.RETRUCO)
    assert scored(game.execute(GoToMazo(0))) == [(1, 2, ScoreReason.MAZO)]
    assert game.state.scores == [0, 2]


def test_mazo_with_quiero_retruco_pending_pays_the_truco_it_accepted() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.TRUCO)
    call(game, 1, T.RETRUCO)  # accepts the truco: the hand is worth 2 already
    assert scored(game.execute(GoToMazo(0))) == [(1, 2, ScoreReason.MAZO)]


def test_mazo_with_envido_on_top_of_own_truco() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.TRUCO)
    call(game, 1, T.ENVIDO)
    # Seat 0 may leave while answering the envido: it counts as declined, and team 0's own truco was never
    # accepted, so the hand is worth 1 to team 1.
    events = game.execute(GoToMazo(0))
    assert scored(events) == [(1, 1, ScoreReason.ENVIDO_DECLINED), (1, 1, ScoreReason.MAZO)]
    assert game.state.scores == [0, 2]


def test_mazo_keeps_points_already_settled() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.ENVIDO)
    answer(game, 1, True)  # team 0 +2
    call(game, 0, T.TRUCO)
    answer(game, 1, True)
    play(game, 0, "1b")
    play(game, 1, "3o")
    events = game.execute(GoToMazo(0))  # team 0 gives up a hand worth 2
    assert scored(events) == [(1, 2, ScoreReason.MAZO)]
    assert game.state.scores == [2, 2]
    assert hand_of(game).points == [2, 2]


def test_mazo_with_a_flor_raise_pending_declines_it() -> None:
    game = new_game()
    deal(game, [["7e", "6e", "5e"], ["7o", "6o", "4o"]], MUESTRA)
    play(game, 0, "5e")
    call(game, 1, T.CON_FLOR_ENVIDO)
    events = game.execute(GoToMazo(0))
    assert scored(events) == [(1, 3, ScoreReason.FLOR_DECLINED), (1, 1, ScoreReason.MAZO)]
    assert game.state.scores == [0, 4]


# --- The end of the match -----------------------------------------------------------------------------------


def test_envido_reaching_the_target_ends_the_match_mid_hand() -> None:
    game = game_at((28, 0))
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.TRUCO)
    call(game, 1, T.ENVIDO)  # el envido está primero
    events = answer(game, 0, True)
    order = hand_of(game).order
    assert events == [
        CallAccepted(0, T.ENVIDO),
        EnvidoSettled(0, 33),
        PointsScored(0, 2, ScoreReason.ENVIDO),
        HandEnded(None, HandEnd.MATCH_ENDED, ((0, cards(*MANO_33)),)),
        MatchEnded(0),
    ]
    assert game.over and game.state.winner == 0 and game.state.phase is Phase.MATCH_OVER
    assert game.state.scores == [30, 0]
    view = game.view(1)
    assert view.public.winner == 0 and view.public.scores == (30, 0) and view.legal_actions == ()
    assert game.legal_actions(0) == [] and game.actors() == ()
    for command in (
        PlayCard(0, cards("1b")[0]),
        PlayCard(1, cards("3o")[0]),
        Call(0, T.RETRUCO),
        GoToMazo(0),
        SendSena(0, Sena.MATA_1),
    ):
        assert refused(game, command) is Reason.MATCH_OVER
    assert refused(game, Deal(order, SALT)) is Reason.MATCH_OVER


def test_points_beyond_the_target_are_not_credited() -> None:
    game = game_at((29, 5))
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.ENVIDO)
    call(game, 1, T.REAL_ENVIDO)
    events = answer(game, 0, True)
    assert scored(events) == [(0, 1, ScoreReason.ENVIDO)]
    assert of_type(events, MatchEnded) == [MatchEnded(0)]
    assert game.state.scores == [30, 5]


def test_match_won_by_a_hand_after_played_hands() -> None:
    game = new_game(target=15)
    concede_hands(game, [1] * 13 + [0] * 4)
    assert game.state.scores == [4, 13]
    assert game.state.plan is not None and game.state.plan.seats == (1, 0)  # hand 18: seat 1 is the mano
    deal(game, [MANO_33, PIE_29], MUESTRA)  # seat 1 holds 7e 6e 1b
    call(game, 1, T.TRUCO)
    events = answer(game, 0, False)
    assert scored(events) == [(1, 1, ScoreReason.TRUCO_DECLINED)]
    assert game.state.scores == [4, 14]
    assert not game.over
    deal(game, [PIE_29, MANO_33], MUESTRA)  # hand 19: seat 0 is the mano again, seat 1 holds 7e 6e 1b
    call(game, 0, T.TRUCO)
    answer(game, 1, True)
    play(game, 0, "3o")
    play(game, 1, "1b")
    play(game, 1, "7e")
    events = play(game, 0, "5b")
    assert [type(e).__name__ for e in events[-3:]] == ["PointsScored", "HandEnded", "MatchEnded"]
    assert scored(events) == [(1, 1, ScoreReason.HAND)]  # capped: 2 won, 1 lacking
    assert [(e.winner_team, e.end) for e in of_type(events, HandEnded)] == [(1, HandEnd.ROUNDS)]
    assert game.state.scores == [4, 15] and game.state.winner == 1


# --- Envido closed once a truco is accepted (issue 7) -------------------------------------------------------


def test_envido_is_closed_once_the_truco_is_accepted() -> None:
    """truco → quiero → envido is refused (ENVIDO_CLOSED) for both teams, on their turn or answering a retruco;
    answering the truco with envido before the quiero (el envido está primero) stays legal."""
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.TRUCO)
    assert Call(1, T.ENVIDO) in game.legal_actions(1)  # el envido está primero: still open before the quiero
    assert answer(game, 1, True) == [CallAccepted(1, T.TRUCO)]
    assert public_hand(game).envido_closed
    assert refused(game, Call(0, T.ENVIDO)) is Reason.ENVIDO_CLOSED  # the mano, on its turn, no card played
    assert not any(isinstance(a, Call) and a.call.family is Family.ENVIDO for a in game.legal_actions(0))
    play(game, 0, "1b")
    call(game, 1, T.RETRUCO)
    assert refused(game, Call(0, T.REAL_ENVIDO)) is Reason.ENVIDO_CLOSED  # nor as the answer to the retruco
    assert not any(isinstance(a, Call) and a.call.family is Family.ENVIDO for a in game.legal_actions(0))
    assert not scored(game.events)


def test_envido_esta_primero_stays_legal_and_the_truco_is_answered_after() -> None:
    game = new_game()
    deal(game, [MANO_33, PIE_29], MUESTRA)
    call(game, 0, T.TRUCO)
    assert call(game, 1, T.REAL_ENVIDO) == [CallMade(1, T.REAL_ENVIDO)]
    assert [p.call for p in public_hand(game).pending_calls] == [T.TRUCO, T.REAL_ENVIDO]
    events = answer(game, 0, True)
    assert scored(events) == [(0, 3, ScoreReason.ENVIDO)]
    assert answer(game, 1, True) == [CallAccepted(1, T.TRUCO)]
    assert refused(game, Call(0, T.ENVIDO)) is Reason.ENVIDO_CLOSED
