"""Scripted scenarios at the table: pardas in team games, señas seen only by teammates, and fair dealing."""

from __future__ import annotations

import hashlib
import random

import pytest

from truco.engine import (
    DECK,
    Card,
    Deal,
    GoToMazo,
    HandEnd,
    InvalidCommand,
    PlayCard,
    Reason,
    ScoreReason,
    Sena,
    SendSena,
    commitment,
    deal_hands,
    event_for,
)
from truco.engine.events import FlorSung, HandDealt, HandEnded, PointsScored, RoundEnded, SenaSent

from .scenario_helpers import (
    concede_hands,
    deal,
    hand_of,
    new_game,
    of_type,
    plain_hands,
    play,
    public_hand,
    refused,
)

# --- Pardas -------------------------------------------------------------------------------------------------

PARDAS_MUESTRA = "7e"  # piezas 2e 4e 5e 11e 10e: none in these hands


def test_teammates_tie_takes_the_round_and_a_later_parda_goes_to_round_one() -> None:
    game = new_game(players=4)
    deal(
        game,
        [["4o", "6c", "12b"], ["3b", "1c", "7b"], ["5o", "1o", "11b"], ["3c", "6o", "12c"]],
        PARDAS_MUESTRA,
    )
    play(game, 0, "4o")
    play(game, 1, "3b")
    play(game, 2, "5o")
    events = play(game, 3, "3c")  # seats 1 and 3 tie with the best cards: team 1's round, not a parda
    assert events[-1] == RoundEnded(0, 1, 1)
    assert public_hand(game).turn == 1  # the first of the tied teammates leads
    assert refused(game, PlayCard(0, Card.parse("6c"))) is Reason.NOT_YOUR_TURN
    play(game, 1, "1c")
    play(game, 2, "1o")
    play(game, 3, "6o")
    events = play(game, 0, "6c")  # 1c (team 1) and 1o (team 0) tie: a parda
    assert events[1:3] == [RoundEnded(1, None, None), PointsScored(1, 1, ScoreReason.HAND)]
    ended = of_type(events, HandEnded)
    assert [(e.winner_team, e.end) for e in ended] == [(1, HandEnd.ROUNDS)]  # round 1's winner
    assert public_hand(game).results == (1, None)
    assert game.state.scores == [0, 1]


def test_parda_in_round_one_the_leader_leads_again_and_round_two_decides() -> None:
    game = new_game(players=4)
    deal(
        game,
        [["4o", "2o", "12b"], ["3b", "6b", "1c"], ["3o", "2c", "11b"], ["5c", "7c", "6o"]],
        PARDAS_MUESTRA,
    )
    play(game, 0, "4o")
    play(game, 1, "3b")
    play(game, 2, "3o")
    events = play(game, 3, "5c")  # 3b (team 1) and 3o (team 0): a parda
    assert events[-1] == RoundEnded(0, None, None)
    assert public_hand(game).turn == 0  # seat 0 led the tied round and leads again (not seat 1)
    assert refused(game, PlayCard(1, Card.parse("6b"))) is Reason.NOT_YOUR_TURN
    play(game, 0, "2o")
    play(game, 1, "6b")
    play(game, 2, "2c")
    events = play(game, 3, "7c")  # seats 0 and 2 tie: team 0's round, which decides the hand
    assert RoundEnded(1, 0, 0) in events
    assert [(e.winner_team, e.end) for e in of_type(events, HandEnded)] == [(0, HandEnd.ROUNDS)]
    assert game.state.scores == [1, 0]


def test_three_pardas_go_to_the_mano() -> None:
    game = new_game()
    concede_hands(game, [0])  # in hand 2 seat 1 is the mano
    deal(game, [["3e", "2b", "12o"], ["3o", "2c", "12b"]], PARDAS_MUESTRA)
    for index, (mano_card, pie_card) in enumerate((("3e", "3o"), ("2b", "2c"))):
        play(game, 1, mano_card)
        assert play(game, 0, pie_card)[-1] == RoundEnded(index, None, None)
        assert public_hand(game).turn == 1  # the mano led the parda and leads again
    play(game, 1, "12o")
    events = play(game, 0, "12b")
    assert events[1:3] == [RoundEnded(2, None, None), PointsScored(1, 1, ScoreReason.HAND)]
    assert [(e.winner_team, e.end) for e in of_type(events, HandEnded)] == [(1, HandEnd.ROUNDS)]
    assert public_hand(game).results == (None, None, None)
    assert game.state.scores == [1, 1]


def test_two_pardas_then_round_three_decides() -> None:
    game = new_game()
    deal(game, [["3e", "2b", "4o"], ["3o", "2c", "12b"]], PARDAS_MUESTRA)
    play(game, 0, "3e")
    play(game, 1, "3o")
    play(game, 0, "2b")
    play(game, 1, "2c")
    play(game, 0, "4o")
    events = play(game, 1, "12b")  # 12b beats 4o
    assert [(e.winner_team, e.end) for e in of_type(events, HandEnded)] == [(1, HandEnd.ROUNDS)]
    assert public_hand(game).results == (None, None, 1)


# --- Señas --------------------------------------------------------------------------------------------------

SENAS_MUESTRA = "3b"  # piezas 2b 4b 5b 11b 10b
SENAS_HANDS = [
    ["1e", "7o", "6c"],  # seat 0: MATA_1, MATA_7
    ["4e", "5o", "6e"],  # seat 1: NEGRAS
    ["12o", "3c", "7c"],  # seat 2: CHICA_3, ENVIDO (20 + 3 + 7)
    ["5e", "6o", "10c"],  # seat 3: NEGRAS
]


def test_senas_reach_only_teammates() -> None:
    game = new_game(players=4)
    deal(game, SENAS_HANDS, SENAS_MUESTRA)
    rivals_before = {seat: game.view(seat) for seat in (1, 3)}
    public_before = game.spectator_view()
    assert SendSena(0, Sena.MATA_1) in game.legal_actions(0)
    events = game.execute(SendSena(0, Sena.MATA_1))
    assert events == [SenaSent(0, Sena.MATA_1)]
    (sent,) = events
    assert game.view(2).senas == ((0, Sena.MATA_1),)
    assert game.view(0).senas == ()
    for seat in (1, 3):
        view = game.view(seat)
        assert view.senas == ()
        assert view == rivals_before[seat]  # nothing at all changed for a rival, not even the version
        assert event_for(sent, seat) is None
        assert not any(isinstance(event_for(e, seat), SenaSent) for e in game.events)
    assert game.spectator_view() == public_before
    assert event_for(sent, None) is None
    assert event_for(sent, 2) == sent
    assert event_for(sent, 0) == sent
    # Señas are sent out of turn too, and each teammate sees only the other's.
    assert game.execute(SendSena(2, Sena.CHICA_3)) == [SenaSent(2, Sena.CHICA_3)]
    assert game.view(0).senas == ((2, Sena.CHICA_3),)
    assert game.view(2).senas == ((0, Sena.MATA_1),)
    assert game.execute(SendSena(1, Sena.NEGRAS)) == [SenaSent(1, Sena.NEGRAS)]
    assert game.view(3).senas == ((1, Sena.NEGRAS),)
    assert game.view(0).senas == ((2, Sena.CHICA_3),) and game.view(2).senas == ((0, Sena.MATA_1),)
    assert event_for(game.events[-1], 0) is None and event_for(game.events[-1], 2) is None


def test_a_sena_does_not_sing_the_senders_flor() -> None:
    game = new_game(players=4)
    # Seat 2 holds flor (7e 6e 3e: three espadas) and sends a seña before acting: nothing is sung.
    deal(game, [["1e", "7o", "6c"], ["4o", "5o", "6b"], ["7e", "6e", "3e"], ["5c", "6o", "10c"]], SENAS_MUESTRA)
    assert game.execute(SendSena(2, Sena.CHICA_3)) == [SenaSent(2, Sena.CHICA_3)]
    assert public_hand(game).flor_sung == ()
    play(game, 0, "1e")
    play(game, 1, "4o")
    assert play(game, 2, "3e")[0] == FlorSung(2)


def test_false_or_repeated_senas_are_refused() -> None:
    game = new_game(players=4)
    deal(game, SENAS_HANDS, SENAS_MUESTRA)
    assert refused(game, SendSena(0, Sena.PIEZA_2)) is Reason.SENA_NOT_ALLOWED  # 2b is not in its hand
    assert refused(game, SendSena(0, Sena.NEGRAS)) is Reason.SENA_NOT_ALLOWED  # it holds matas
    assert refused(game, SendSena(1, Sena.MATA_1)) is Reason.SENA_NOT_ALLOWED
    assert refused(game, SendSena(3, Sena.CHICA_3)) is Reason.SENA_NOT_ALLOWED
    game.execute(SendSena(0, Sena.MATA_1))
    assert refused(game, SendSena(0, Sena.MATA_1)) is Reason.SENA_NOT_ALLOWED  # once a hand
    play(game, 0, "7o")
    assert refused(game, SendSena(0, Sena.MATA_7)) is Reason.SENA_NOT_ALLOWED  # 7o was played
    assert SendSena(2, Sena.ENVIDO) in game.legal_actions(2)
    play(game, 1, "4e")
    play(game, 2, "12o")
    assert refused(game, SendSena(2, Sena.ENVIDO)) is Reason.SENA_NOT_ALLOWED  # a card of it was played
    assert game.view(2).senas == ((0, Sena.MATA_1),)


def test_senas_need_a_teammate_and_the_variant() -> None:
    game = new_game()
    deal(game, SENAS_HANDS[:2], SENAS_MUESTRA)
    assert refused(game, SendSena(0, Sena.MATA_1)) is Reason.SENA_NOT_ALLOWED
    assert not any(isinstance(a, SendSena) for a in game.legal_actions(0))
    game = new_game(players=4, senas=False)
    deal(game, SENAS_HANDS, SENAS_MUESTRA)
    assert refused(game, SendSena(0, Sena.MATA_1)) is Reason.SENAS_DISABLED
    assert not any(isinstance(a, SendSena) for a in game.legal_actions(0))


def test_senas_do_not_carry_over_to_the_next_hand() -> None:
    game = new_game(players=4)
    deal(game, SENAS_HANDS, SENAS_MUESTRA)
    game.execute(SendSena(0, Sena.MATA_1))
    game.execute(GoToMazo(0))
    hands, muestra = plain_hands(4)
    deal(game, hands, muestra)
    assert public_hand(game).number == 2
    assert game.view(2).senas == ()


# --- Fair dealing -------------------------------------------------------------------------------------------


def _sha256_commitment(order: tuple[Card, ...], salt: str) -> str:
    """deal.py's documented commitment, computed independently: SHA-256 of salt, ':', the cards by spaces."""
    return hashlib.sha256(f"{salt}:{' '.join(str(card) for card in order)}".encode("ascii")).hexdigest()


@pytest.mark.parametrize("players", [2, 4, 6])
def test_commitment_is_revealed_and_verifies_after_the_hand(players: int) -> None:
    rng = random.Random(players)
    order_list = list(DECK)
    rng.shuffle(order_list)
    order = tuple(order_list)
    salt = f"{rng.getrandbits(128):032x}"
    game = new_game(players=players)
    (dealt,) = of_type(game.deal(order, salt), HandDealt)
    expected = _sha256_commitment(order, salt)
    assert dealt.commitment == expected == commitment(order, salt)
    assert (dealt.order, dealt.salt) == (order, salt)
    hands, muestra = deal_hands(order, players)
    for seat in [*range(players), None]:
        projected = event_for(dealt, seat)
        assert isinstance(projected, HandDealt)
        assert (projected.order, projected.salt, projected.commitment) == ((), "", expected)
    for seat in range(players):
        view = game.view(seat)
        hand = view.public.hand
        assert hand is not None
        assert (hand.commitment, hand.revealed_order, hand.revealed_salt) == (expected, None, None)
        assert view.cards == hands[seat] and hand.muestra == muestra
    spectator_hand = game.spectator_view().hand
    assert spectator_hand is not None and spectator_hand.revealed_order is None

    game.execute(GoToMazo(0))
    (ended,) = of_type(game.events, HandEnded)
    assert (ended.order, ended.salt) == (order, salt)
    assert event_for(ended, 1) == ended
    for seat in range(players):
        hand = public_hand(game, seat)
        assert hand.revealed_order == order and hand.revealed_salt == salt
        assert _sha256_commitment(hand.revealed_order, hand.revealed_salt) == hand.commitment
        # The revealed order deals exactly the hands that were played.
        assert deal_hands(hand.revealed_order, players)[0][seat] == hands[seat]
    tampered = (order[1], order[0], *order[2:])
    assert _sha256_commitment(tampered, salt) != expected


def test_each_hand_has_its_own_commitment() -> None:
    game = new_game()
    concede_hands(game, [0])
    first = of_type(game.events, HandDealt)[0]
    second_salt = "0123456789abcdef" * 2
    game.deal(first.order, salt=second_salt)
    second = of_type(game.events, HandDealt)[1]
    assert second.commitment != first.commitment
    assert second.commitment == _sha256_commitment(first.order, second_salt)
    assert hand_of(game).salt == second_salt


@pytest.mark.parametrize("salt", ["", "0" * 31, "0" * 33, "G" * 32, "A" * 32])
def test_malformed_salt_is_invalid(salt: str) -> None:
    game = new_game()
    with pytest.raises(InvalidCommand) as info:
        game.execute(Deal(DECK, salt))
    assert info.value.reason is Reason.INVALID_DEAL


def test_malformed_order_is_invalid() -> None:
    game = new_game()
    with pytest.raises(InvalidCommand) as info:
        game.execute(Deal((*DECK[:39], DECK[0]), "0" * 32))
    assert info.value.reason is Reason.INVALID_DEAL
