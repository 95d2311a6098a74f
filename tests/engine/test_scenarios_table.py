"""Scripted scenarios at the table: pardas in team games, señas seen only by teammates, and fair dealing."""

from __future__ import annotations

import hashlib
import random

import pytest

from truco.engine import (
    DECK,
    Answer,
    Call,
    CallKind,
    Card,
    Deal,
    Game,
    GoToMazo,
    HandEnd,
    InvalidCommand,
    PlayCard,
    Reason,
    ScoreReason,
    Sena,
    SendSena,
    deal_hands,
    event_for,
)
from truco.engine.deal import CardProof, card_salt, deal_commitments, deal_digest, verify
from truco.engine.events import CardPlayed, FlorSung, HandDealt, HandEnded, PointsScored, RoundEnded, SenaSent

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


def _sha256(position: int, card: Card, salt: str) -> str:
    """deal.py's documented per-card commitment, computed independently: SHA-256 of "position|card|salt"."""
    return hashlib.sha256(f"{position}|{card}|{salt}".encode("ascii")).hexdigest()


def _verifies(commitments: tuple[str, ...], proof: CardProof) -> bool:
    return _sha256(proof.position, proof.card, proof.salt) == commitments[proof.position]


@pytest.mark.parametrize("players", [2, 4, 6])
def test_per_card_commitments_seats_check_their_own_cards_and_unseen_cards_stay_sealed(players: int) -> None:
    rng = random.Random(players)
    order_list = list(DECK)
    rng.shuffle(order_list)
    order = tuple(order_list)
    secret = f"{rng.getrandbits(128):032x}"
    game = new_game(players=players, flor=False)  # no flor: nothing is shown at the mazo below
    (dealt,) = of_type(game.deal(order, secret), HandDealt)
    assert (dealt.order, dealt.salt, dealt.commitments) == (order, secret, ())  # recorded: secrets, no projection
    hands, muestra = deal_hands(order, players)
    salts = [card_salt(secret, k) for k in range(40)]
    assert len(set(salts)) == 40 and all(len(salt) == 32 for salt in salts)
    expected = tuple(_sha256(k, card, salts[k]) for k, card in enumerate(order))
    for seat in [*range(players), None]:
        projected = event_for(dealt, seat)
        assert isinstance(projected, HandDealt)
        assert (projected.order, projected.salt, projected.commitments) == ((), "", expected)
        assert projected.muestra == CardProof(3 * players, muestra, salts[3 * players])
        own = projected.own
        if seat is None:
            assert own == ()
            continue
        # Each seat receives its own three cards' proofs, which open the published commitments.
        assert tuple(p.card for p in own) == hands[seat] and all(_verifies(expected, p) for p in own)
        view = game.view(seat)
        assert view.own_proofs == own
        hand = view.public.hand
        assert hand is not None and hand.commitments == expected and hand.muestra == muestra
        assert hand.proofs == (projected.muestra,)
        # Nothing the seat receives holds another seat's card or the salt of a position it does not know.
        known = {p.position for p in own} | {3 * players}
        text = repr((projected, view))
        for k in range(40):
            if k not in known:
                assert salts[k] not in text, f"seat {seat} sees the salt of position {k}"
        for other in range(players):
            if other != seat:
                assert not set(hands[other]) & set(view.cards)

    # A played card becomes public with its proof; a hand gone to the mazo stays sealed for ever.
    first_card = hands[0][0]
    events = game.execute(PlayCard(0, first_card))
    seen = event_for(events[0], 1, hand_of(game))
    assert isinstance(seen, CardPlayed) and seen.proof == CardProof(0, first_card, salts[0])
    assert _verifies(expected, seen.proof)
    ended_events = game.execute(GoToMazo(1))
    (ended,) = of_type(ended_events, HandEnded)
    assert ended.shown == () and event_for(ended, 0, hand_of(game)) == ended  # nothing shown: no proof
    for seat in [*range(players), None]:
        view_text = repr(game.view(seat) if seat is not None else game.spectator_view())
        events_text = repr([event_for(e, seat, hand_of(game)) for e in game.events])
        for k in range(3 * players):
            if k == 0 or (seat is not None and k % players == hand_of(game).seats.index(seat)):
                continue
            assert salts[k] not in view_text + events_text, f"{seat} could open position {k}"
        assert "revealed" not in view_text


def test_shown_hands_come_with_their_proofs() -> None:
    game = new_game()
    deal(game, [["7e", "6e", "1b"], ["5b", "4b", "3o"]], "1c")  # the mano's envido: 33
    game.execute(Call(0, CallKind.ENVIDO))
    game.execute(Answer(1, True))
    game.execute(GoToMazo(0))  # the envido winner's cards are shown, though never played
    hand = hand_of(game)
    (ended,) = of_type(game.events, HandEnded)
    projected = event_for(ended, None, hand)
    assert isinstance(projected, HandEnded)
    commitments = deal_commitments(hand.order, hand.salt)
    assert [p.card for p in projected.proofs] == list(hand.dealt[0])
    assert all(verify(commitments[p.position], p) for p in projected.proofs)
    view_hand = public_hand(game, 1)
    assert {p.card for p in view_hand.proofs} == {*hand.dealt[0], hand.muestra}
    assert not {*hand.dealt[1]} & {p.card for p in view_hand.proofs}  # the loser's hand stays sealed


def test_each_hand_has_its_own_commitments() -> None:
    game = new_game()
    concede_hands(game, [0])
    first = of_type(game.events, HandDealt)[0]
    second_salt = "0123456789abcdef" * 2
    game.deal(first.order, salt=second_salt)
    second = of_type(game.events, HandDealt)[1]
    first_seen, second_seen = event_for(first, None), event_for(second, None)
    assert isinstance(first_seen, HandDealt) and isinstance(second_seen, HandDealt)
    assert not set(first_seen.commitments) & set(second_seen.commitments)
    assert second_seen.commitment == deal_digest(second_seen.commitments) != first_seen.commitment
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


# --- The last hand's summary (issue 7) ------------------------------------------------------------------------


def test_the_last_hand_summary_stays_until_the_next_hands_first_action() -> None:
    """A move that ends a hand also deals the next one in the server: the view keeps how the hand ended (each
    round's winner, points by reason, the hands shown, the envido winner) until the next hand's first action."""
    game = new_game()
    deal(game, [["7e", "6e", "1b"], ["5b", "4b", "3o"]], "1c")  # the mano's envido: 33
    game.execute(Call(0, CallKind.ENVIDO))
    game.execute(Answer(1, True, CallKind.ENVIDO))
    play(game, 0, "1b")
    play(game, 1, "3o")  # 1b beats 3o
    assert game.spectator_view().last_hand is None
    game.execute(Call(0, CallKind.TRUCO))  # seat 0 leads round 2
    game.execute(GoToMazo(1))  # the truco lapses: the hand is worth 1
    hands, muestra = plain_hands(2)
    deal(game, hands, muestra)  # hand 2 is dealt: nobody has acted in it yet
    summary = game.spectator_view().last_hand
    assert summary is not None and summary.number == 1
    assert (summary.winner_team, summary.end, summary.results) == (0, HandEnd.MAZO, (0,))
    assert summary.scored == ((0, 2, ScoreReason.ENVIDO), (0, 1, ScoreReason.MAZO))
    assert summary.points == (3, 0) and summary.envido_winner == (0, 33) and summary.flor_winner is None
    assert summary.shown == ((0, tuple(Card.parse(c) for c in ("7e", "6e", "1b"))),)
    assert [p.card for p in summary.proofs] == [Card.parse(c) for c in ("7e", "6e", "1b")]
    assert game.view(1).public.last_hand == summary  # public: every seat sees the same
    assert public_hand(game).number == 2
    mano = hand_of(game).mano
    play(game, mano, str(hand_of(game).unplayed[mano][0]))  # the next hand's first action
    assert game.spectator_view().last_hand is None


def test_a_hands_proofs_are_derived_once_and_kept_by_its_copies_without_changing_the_state() -> None:
    """A server shows thousands of hands at once, more than a cache of recent deals holds: each hand derives its
    forty salts and commitments the first time a view needs them, keeps them, and hands them to its copies (the
    next move's state); they are a cache, so a state rebuilt from its events still equals it."""
    rng = random.Random(7)
    order_list = list(DECK)
    rng.shuffle(order_list)
    game = new_game(players=2)
    game.deal(tuple(order_list), f"{rng.getrandbits(128):032x}")
    assert hand_of(game).proofs is None
    first = game.view(0).public.hand
    proofs = hand_of(game).proofs
    assert proofs is not None and first is not None and proofs.commitments == first.commitments
    assert proofs.digest == first.commitment
    hand = hand_of(game)
    game.execute(PlayCard(hand.turn, game.view(hand.turn).cards[0]))
    copied = game.state.copy()  # what the server's next move starts from
    assert copied.hand is not None and copied.hand.proofs is proofs
    for seat in (0, 1):
        game.view(seat)
    game.spectator_view()
    assert hand_of(game).proofs is proofs  # derived once: every later view used the hand's own
    replayed = Game.from_events(game.events).state
    assert replayed.hand is not None and replayed.hand.proofs is None
    assert replayed == game.state
