"""Scripted scenarios: flor against flor, unraised and with each raise (con flor envido, contra flor, contra
flor al resto) accepted, declined and re-raised; contra flor al resto in malas and buenas."""

from __future__ import annotations

import pytest

from truco.engine import Answer, Call, CallKind, FaltaEnvido, GoToMazo, HandEnd, Phase, PlayCard, Reason, ScoreReason
from truco.engine.events import (
    CallAccepted,
    CallDeclined,
    CallMade,
    CardPlayed,
    FlorSettled,
    FlorSung,
    HandEnded,
    MatchEnded,
    PointsScored,
    RoundEnded,
)
from truco.engine.views import PendingCallView

from .scenario_helpers import (
    answer,
    call,
    cards,
    concede_hands,
    deal,
    game_at,
    new_game,
    of_type,
    play,
    public_hand,
    refused,
    scored,
)

T = CallKind
MUESTRA = "1c"  # piezas 2c 4c 5c 11c 10c
FLOR_38 = ["7e", "6e", "5e"]  # 20 + 7 + 6 + 5
FLOR_37 = ["7o", "6o", "4o"]  # 20 + 7 + 6 + 4
FLOR_38_ORO = ["7o", "6o", "5o"]
FLOR_37_ESPADA = ["7e", "6e", "4e"]
NO_FLOR = ["5b", "4b", "3o"]
FLOR_RAISES = (T.CON_FLOR_ENVIDO, T.CONTRA_FLOR, T.CONTRA_FLOR_AL_RESTO)


def _flor_calls(game_actions: list[object]) -> set[CallKind]:
    return {a.call for a in game_actions if isinstance(a, Call) and a.call in FLOR_RAISES}


# --- Unraised flores ----------------------------------------------------------------------------------------


def test_single_flor_is_worth_three() -> None:
    game = new_game()
    deal(game, [NO_FLOR, FLOR_37], MUESTRA)
    play(game, 0, "3o")
    events = play(game, 1, "4o")  # 3o beats 4o
    assert events == [
        FlorSung(1),
        CardPlayed(1, cards("4o")[0]),
        RoundEnded(0, 0, 0),
        FlorSettled(None, None),
        PointsScored(1, 3, ScoreReason.FLOR),
    ]
    assert public_hand(game).flor_winner is None


def test_flor_against_flor_unraised_best_flor_takes_three_per_flor() -> None:
    game = new_game()
    deal(game, [FLOR_38, FLOR_37], MUESTRA)
    assert play(game, 0, "5e") == [FlorSung(0), CardPlayed(0, cards("5e")[0])]
    events = play(game, 1, "4o")  # 5e beats 4o; the second flor waits for the first singer's answer
    assert events == [FlorSung(1), CardPlayed(1, cards("4o")[0]), RoundEnded(0, 0, 0), CallMade(1, T.FLOR)]
    assert game.actors() == (0,)
    assert answer(game, 0, True) == [  # con flor quiero: the count
        CallAccepted(0, T.FLOR),
        FlorSettled(0, 38),
        PointsScored(0, 6, ScoreReason.FLOR),
    ]
    assert public_hand(game).flor_winner == (0, 38)
    assert game.state.scores == [6, 0]


def test_flor_against_flor_unraised_the_second_seat_wins() -> None:
    game = new_game()
    deal(game, [FLOR_37_ESPADA, FLOR_38_ORO], MUESTRA)
    play(game, 0, "4e")
    assert play(game, 1, "7o")[-1] == CallMade(1, T.FLOR)
    events = answer(game, 0, True)
    assert events[-2:] == [FlorSettled(1, 38), PointsScored(1, 6, ScoreReason.FLOR)]


def test_flor_tie_goes_to_the_seat_nearer_the_mano() -> None:
    game = new_game()
    concede_hands(game, [1])  # hand 1; in hand 2 seat 1 is the mano
    assert game.state.plan is not None and game.state.plan.seats == (1, 0)
    deal(game, [FLOR_38_ORO, FLOR_38], MUESTRA)  # seat 1: 7o 6o 5o, seat 0: 7e 6e 5e, both 38
    play(game, 1, "5o")
    assert play(game, 0, "5e")[-2:] == [RoundEnded(0, None, None), CallMade(0, T.FLOR)]  # a parda
    events = answer(game, 1, True)
    assert events[-2:] == [FlorSettled(1, 38), PointsScored(1, 6, ScoreReason.FLOR)]
    assert game.state.scores == [0, 7]


def test_flor_tie_with_the_mano_on_seat_zero() -> None:
    game = new_game()
    deal(game, [FLOR_38, FLOR_38_ORO], MUESTRA)
    play(game, 0, "7e")
    play(game, 1, "7o")  # 7e beats 7o
    events = answer(game, 0, True)
    assert events[-2:] == [FlorSettled(0, 38), PointsScored(0, 6, ScoreReason.FLOR)]


def test_flor_with_piezas() -> None:
    # Muestra 1o: piezas 2o 4o 5o 11o 10o. 2o + 4o + 7e: 20 + 10 + 9 + 7 = 46; 5o + 6c 7c: 20 + 8 + 13 = 41.
    game = new_game()
    deal(game, [["2o", "4o", "7e"], ["5o", "6c", "7c"]], "1o")
    play(game, 0, "7e")
    play(game, 1, "6c")
    events = answer(game, 0, True)
    assert events[-2:] == [FlorSettled(0, 46), PointsScored(0, 6, ScoreReason.FLOR)]


def test_flores_of_four_players_unraised() -> None:
    game = new_game(players=4)
    # Team 0: seat 0 (38) and seat 2 (3b 2b 1b: 26); team 1: seat 1 (37); seat 3 has no flor.
    deal(game, [FLOR_38, FLOR_37, ["3b", "2b", "1b"], ["4e", "12b", "3o"]], MUESTRA)
    play(game, 0, "5e")
    assert play(game, 1, "4o")[-1] == CallMade(1, T.FLOR)  # team 0 answers seat 1's flor
    assert game.actors() == (0, 2)
    assert refused(game, PlayCard(2, cards("1b")[0])) is Reason.CALL_PENDING
    assert answer(game, 2, True) == [  # a teammate answers (singing its own flor first): the count
        FlorSung(2),
        CallAccepted(2, T.FLOR),
        FlorSettled(0, 38),
        PointsScored(0, 9, ScoreReason.FLOR),
    ]
    play(game, 2, "1b")
    assert play(game, 3, "4e")[-1] == RoundEnded(0, 0, 2)
    assert public_hand(game).flor_sung == (0, 1, 2)


def test_flores_are_counted_at_the_end_of_the_hand_when_it_ends_in_round_one() -> None:
    game = new_game()
    deal(game, [NO_FLOR, FLOR_37], MUESTRA)
    events = game.execute(GoToMazo(0))  # seat 1 never acted: its flor is still counted
    assert scored(events) == [(1, 3, ScoreReason.FLOR), (1, 1, ScoreReason.MAZO)]
    assert of_type(events, FlorSung) == [FlorSung(1)]
    assert of_type(events, HandEnded)[0].shown == ((1, cards(*FLOR_37)),)


# --- Raises -------------------------------------------------------------------------------------------------

# Seat 0 (the mano) has 38 and seat 1 has 37: seat 0 wins every accepted contest. The score is 0 to 10, so
# the falta (what the leader lacks) is 20.
RAISE_CASES = [
    # (raises alternating from seat 1, accepted?, (team, points, reason))
    ([T.CON_FLOR_ENVIDO], True, (0, 8, ScoreReason.FLOR)),  # 3 + 3 + 2
    ([T.CON_FLOR_ENVIDO], False, (1, 3, ScoreReason.FLOR_DECLINED)),  # "con flor me achico"
    ([T.CONTRA_FLOR], True, (0, 9, ScoreReason.FLOR)),  # 3 + 3 + 3
    ([T.CONTRA_FLOR], False, (1, 3, ScoreReason.FLOR_DECLINED)),
    ([T.CONTRA_FLOR_AL_RESTO], True, (0, 26, ScoreReason.FLOR)),  # 3 + 3 + falta 20
    ([T.CONTRA_FLOR_AL_RESTO], False, (1, 3, ScoreReason.FLOR_DECLINED)),
    ([T.CON_FLOR_ENVIDO, T.CONTRA_FLOR], True, (0, 11, ScoreReason.FLOR)),  # 6 + 2 + 3
    ([T.CON_FLOR_ENVIDO, T.CONTRA_FLOR], False, (0, 5, ScoreReason.FLOR_DECLINED)),  # 3 + 2
    ([T.CON_FLOR_ENVIDO, T.CONTRA_FLOR_AL_RESTO], True, (0, 26, ScoreReason.FLOR)),  # the falta alone
    ([T.CON_FLOR_ENVIDO, T.CONTRA_FLOR_AL_RESTO], False, (0, 5, ScoreReason.FLOR_DECLINED)),
    ([T.CONTRA_FLOR, T.CONTRA_FLOR_AL_RESTO], False, (0, 6, ScoreReason.FLOR_DECLINED)),  # 3 + 3
    ([T.CON_FLOR_ENVIDO, T.CONTRA_FLOR, T.CONTRA_FLOR_AL_RESTO], True, (0, 26, ScoreReason.FLOR)),
    ([T.CON_FLOR_ENVIDO, T.CONTRA_FLOR, T.CONTRA_FLOR_AL_RESTO], False, (1, 8, ScoreReason.FLOR_DECLINED)),
]


@pytest.mark.parametrize(("raises", "accept", "expected"), RAISE_CASES)
def test_flor_raise(raises: list[CallKind], accept: bool, expected: tuple[int, int, ScoreReason]) -> None:
    game = game_at((0, 10))
    deal(game, [FLOR_38, FLOR_37], MUESTRA)
    play(game, 0, "5e")  # sings seat 0's flor
    assert _flor_calls(list(game.legal_actions(1))) == set(FLOR_RAISES)
    assert call(game, 1, raises[0]) == [FlorSung(1), CallMade(1, raises[0])]
    for index, kind in enumerate(raises[1:], start=1):
        assert call(game, index % 2 ^ 1, kind) == [CallMade(index % 2 ^ 1, kind)]
    answerer = len(raises) % 2 ^ 1
    assert public_hand(game).pending is not None
    assert game.actors() == (answerer,)
    events = answer(game, answerer, accept)
    if accept:
        assert events == [CallAccepted(answerer, raises[-1]), FlorSettled(0, 38), PointsScored(*expected)]
        assert public_hand(game).flor_winner == (0, 38)
    else:
        assert events == [CallDeclined(answerer, raises[-1]), FlorSettled(None, None), PointsScored(*expected)]
        assert public_hand(game).flor_winner is None
    team, points, _ = expected
    scores = [0, 10]
    scores[team] += points
    assert game.state.scores == scores
    # The flores are settled: the end of round 1 adds nothing, and no raise may be made again.
    events = play(game, 1, "4o")
    assert scored(events) == []
    assert _flor_calls(list(game.legal_actions(0))) == set()
    assert game.state.scores == scores


def test_flor_raise_refusals() -> None:
    game = new_game()
    deal(game, [FLOR_38, FLOR_37], MUESTRA)
    # No rival flor was sung yet: seat 0 cannot open the contest (and nothing is sung by the refusal).
    assert refused(game, Call(0, T.CON_FLOR_ENVIDO)) is Reason.NO_FLOR_CONTEST
    assert public_hand(game).flor_sung == ()
    play(game, 0, "5e")
    assert refused(game, Call(0, T.CONTRA_FLOR)) is Reason.NOT_YOUR_TURN
    call(game, 1, T.CONTRA_FLOR)
    assert refused(game, Call(1, T.CONTRA_FLOR_AL_RESTO)) is Reason.ANSWER_NOT_YOURS
    assert refused(game, Call(0, T.CON_FLOR_ENVIDO)) is Reason.FLOR_RAISE_INVALID
    assert refused(game, Call(0, T.CONTRA_FLOR)) is Reason.FLOR_RAISE_INVALID
    assert _flor_calls(list(game.legal_actions(0))) == {T.CONTRA_FLOR_AL_RESTO}
    call(game, 0, T.CONTRA_FLOR_AL_RESTO)
    assert _flor_calls(list(game.legal_actions(1))) == set()
    assert refused(game, Call(1, T.CONTRA_FLOR_AL_RESTO)) is Reason.FLOR_RAISE_INVALID


def test_no_flor_contest_without_own_flor() -> None:
    game = new_game()
    deal(game, [FLOR_38, NO_FLOR], MUESTRA)
    play(game, 0, "5e")
    for kind in FLOR_RAISES:
        assert refused(game, Call(1, kind)) is Reason.NO_FLOR_CONTEST


def test_flor_disabled_variant() -> None:
    game = new_game(flor=False)
    deal(game, [FLOR_38, FLOR_37], MUESTRA)
    assert refused(game, Call(0, T.CON_FLOR_ENVIDO)) is Reason.FLOR_DISABLED
    call(game, 0, T.ENVIDO)  # without flor these hands play envido: 7e 6e = 33 against 7o 6o = 33
    events = answer(game, 1, True)
    assert scored(events) == [(0, 2, ScoreReason.ENVIDO)]  # a tie: the mano
    assert of_type(events, FlorSung) == []


def test_flor_answered_after_an_accepted_truco_by_the_first_singer() -> None:
    game = new_game()
    deal(game, [FLOR_38, FLOR_37], MUESTRA)
    assert call(game, 0, T.TRUCO) == [FlorSung(0), CallMade(0, T.TRUCO)]
    # The pie accepts the truco, singing its flor: the mano's team now answers that flor.
    assert answer(game, 1, True) == [FlorSung(1), CallAccepted(1, T.TRUCO), CallMade(1, T.FLOR)]
    assert _flor_calls(list(game.legal_actions(0))) == set(FLOR_RAISES)
    call(game, 0, T.CONTRA_FLOR)
    assert answer(game, 1, False)[-1] == PointsScored(0, 3, ScoreReason.FLOR_DECLINED)


# --- Answering a rival flor (issue 7: rules-decisions "the team that sang first answers it") ----------------


def test_first_singer_answers_a_rival_flor_legal_actions_and_view() -> None:
    """The pie's flor, sung as it plays (even the card that ends round 1), is a call the mano's team answers:
    con flor quiero or any raise, never no quiero; it shows as the pending call, with its owner and value."""
    game = new_game()
    deal(game, [FLOR_38, FLOR_37], MUESTRA)
    play(game, 0, "5e")
    assert play(game, 1, "4o")[-2:] == [RoundEnded(0, 0, 0), CallMade(1, T.FLOR)]  # no count yet: it waits
    hand = public_hand(game)
    assert hand.pending == PendingCallView(T.FLOR, 1, 1, 6) and hand.pending_calls == (hand.pending,)
    assert hand.flor_chain == () and hand.turn is None  # no turn while a call waits for its answer
    assert game.legal_actions(0) == [Answer(0, True, T.FLOR), *(Call(0, k) for k in FLOR_RAISES), GoToMazo(0)]
    assert game.legal_actions(1) == []
    assert refused(game, Answer(0, False)) is Reason.FLOR_RAISE_INVALID
    assert refused(game, PlayCard(0, cards("7e")[0])) is Reason.CALL_PENDING
    assert refused(game, Answer(0, True, T.TRUCO)) is Reason.CALL_MISMATCH


@pytest.mark.parametrize(
    ("raise_", "accept", "expected"),
    [
        (T.CON_FLOR_ENVIDO, True, (0, 8, ScoreReason.FLOR)),  # 3 + 3 + 2, the mano's 38 wins
        (T.CONTRA_FLOR, True, (0, 9, ScoreReason.FLOR)),
        (T.CONTRA_FLOR_AL_RESTO, True, (0, 26, ScoreReason.FLOR)),  # 3 + 3 + falta 20
        (T.CONTRA_FLOR, False, (0, 3, ScoreReason.FLOR_DECLINED)),  # con flor me achico: the raiser's 3
    ],
)
def test_first_singer_raises_a_rival_flor(
    raise_: CallKind, accept: bool, expected: tuple[int, int, ScoreReason]
) -> None:
    game = game_at((0, 10))
    deal(game, [FLOR_38, FLOR_37], MUESTRA)
    play(game, 0, "5e")
    play(game, 1, "4o")
    assert call(game, 0, raise_) == [CallMade(0, raise_)]
    assert public_hand(game).flor_chain == (raise_,)
    assert game.actors() == (1,)
    events = answer(game, 1, accept)
    assert scored(events) == [expected]
    assert public_hand(game).turn == 0  # round 2: the winner of round 1 leads once the flor is settled


def test_second_singer_may_raise_as_it_sings_and_the_first_may_re_raise() -> None:
    game = game_at((0, 10))
    deal(game, [FLOR_38, FLOR_37], MUESTRA)
    play(game, 0, "5e")
    assert call(game, 1, T.CON_FLOR_ENVIDO) == [FlorSung(1), CallMade(1, T.CON_FLOR_ENVIDO)]  # no FLOR call
    assert call(game, 0, T.CONTRA_FLOR) == [CallMade(0, T.CONTRA_FLOR)]
    events = answer(game, 1, True)
    assert scored(events) == [(0, 11, ScoreReason.FLOR)]  # 6 + 2 + 3


def test_mazo_by_the_second_singer_asks_no_answer_and_counts_the_flores() -> None:
    game = new_game()
    deal(game, [FLOR_38, FLOR_37], MUESTRA)
    play(game, 0, "5e")
    events = game.execute(GoToMazo(1))
    assert of_type(events, CallMade) == []
    assert scored(events) == [(0, 6, ScoreReason.FLOR), (0, 1, ScoreReason.MAZO)]


def test_mazo_answering_a_rival_flor_counts_it() -> None:
    game = new_game()
    deal(game, [FLOR_37_ESPADA, FLOR_38_ORO], MUESTRA)
    play(game, 0, "4e")
    play(game, 1, "7o")
    events = game.execute(GoToMazo(0))
    assert scored(events) == [(1, 6, ScoreReason.FLOR), (1, 1, ScoreReason.MAZO)]


def test_four_players_re_raise_by_a_second_flor_pays_each_own_flor() -> None:
    game = new_game(players=4)
    deal(game, [FLOR_38, FLOR_37, ["3b", "2b", "1b"], ["4e", "12b", "3o"]], MUESTRA)
    play(game, 0, "5e")
    assert call(game, 1, T.CON_FLOR_ENVIDO) == [FlorSung(1), CallMade(1, T.CON_FLOR_ENVIDO)]
    assert game.actors() == (0, 2)
    # Seat 2 answers for team 0 by re-raising: its own flor is sung first.
    assert call(game, 2, T.CONTRA_FLOR) == [FlorSung(2), CallMade(2, T.CONTRA_FLOR)]
    assert game.actors() == (1, 3)
    events = answer(game, 3, False)  # seat 3 (no flor) refuses for team 1
    assert events == [
        CallDeclined(3, T.CONTRA_FLOR),
        FlorSettled(None, None),
        PointsScored(0, 8, ScoreReason.FLOR_DECLINED),  # 3 for each of team 0's two flores + 2
    ]


def test_four_players_re_raise_accepted_pays_every_flor() -> None:
    game = new_game(players=4)
    deal(game, [FLOR_38, FLOR_37, ["3b", "2b", "1b"], ["4e", "12b", "3o"]], MUESTRA)
    play(game, 0, "5e")
    call(game, 1, T.CON_FLOR_ENVIDO)
    call(game, 2, T.CONTRA_FLOR)
    events = answer(game, 1, True)
    assert events == [
        CallAccepted(1, T.CONTRA_FLOR),
        FlorSettled(0, 38),
        PointsScored(0, 14, ScoreReason.FLOR),  # 3 flores x 3 + 2 + 3
    ]


# --- Contra flor al resto in malas and in buenas ----------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "scores", "credited"),
    [
        (FaltaEnvido.LEADER_REMAINING, (10, 3), 26),  # 6 + (30 - 10)
        (FaltaEnvido.LEADER_REMAINING, (20, 12), 16),  # 6 + (30 - 20)
        (FaltaEnvido.MATCH_IF_MALAS, (10, 3), 27),  # the whole match (6 + 27, capped at the target)
        (FaltaEnvido.MATCH_IF_MALAS, (20, 12), 16),
    ],
)
def test_contra_flor_al_resto_value(mode: FaltaEnvido, scores: tuple[int, int], credited: int) -> None:
    game = game_at(scores, falta_envido=mode)
    deal(game, [FLOR_37_ESPADA, FLOR_38_ORO], MUESTRA)  # seat 1 has the best flor
    play(game, 0, "4e")
    call(game, 1, T.CONTRA_FLOR_AL_RESTO)
    events = answer(game, 0, True)
    assert events[:3] == [
        CallAccepted(0, T.CONTRA_FLOR_AL_RESTO),
        FlorSettled(1, 38),
        PointsScored(1, credited, ScoreReason.FLOR),
    ]
    assert game.state.scores == [scores[0], scores[1] + credited]
    if scores[1] + credited == 30:
        shown = ((0, cards(*FLOR_37_ESPADA)), (1, cards(*FLOR_38_ORO)))
        assert events[3:] == [HandEnded(None, HandEnd.MATCH_ENDED, shown), MatchEnded(1)]
        assert game.state.phase is Phase.MATCH_OVER
    else:
        assert events[3:] == []


def test_flor_counted_at_the_end_of_round_one_can_end_the_match() -> None:
    game = game_at((27, 0))
    deal(game, [FLOR_38, NO_FLOR], MUESTRA)
    play(game, 0, "5e")
    events = play(game, 1, "3o")  # 3o beats 5e; the hand is undecided when the flor ends the match
    assert events[2:] == [
        FlorSettled(None, None),
        PointsScored(0, 3, ScoreReason.FLOR),
        HandEnded(None, HandEnd.MATCH_ENDED, ((0, cards(*FLOR_38)),)),
        MatchEnded(0),
    ]
    assert game.state.scores == [30, 0] and game.over
    assert refused(game, Call(1, T.TRUCO)) is Reason.MATCH_OVER
