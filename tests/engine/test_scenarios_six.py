"""Six players: redondillas and pico a pico hands while both teams are en malas, only redondillas once a
team is en buenas; pico falta envido 6 and contra flor al resto 12."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from truco.engine import (
    DECK,
    Answer,
    Call,
    CallKind,
    Card,
    FaltaEnvido,
    Game,
    GoToMazo,
    PlayCard,
    Reason,
    ScoreReason,
    Sena,
    SendSena,
)
from truco.engine.events import (
    EnvidoSettled,
    Event,
    FlorSettled,
    HandDealt,
    HandEnded,
    MatchEnded,
    PointsScored,
)

from .scenario_helpers import answer, call, concede_hands, deal, last_deal, new_game, play, refused, scored

T = CallKind


def _pico_pairs(dealer: int) -> list[tuple[int, int]]:
    """The three pico a pico hands after a redondilla dealt by ``dealer``: d+1 vs d+4, d+2 vs d+5, d+3 vs d."""
    return [((dealer + k) % 6, (dealer + k + 3) % 6) for k in (1, 2, 3)]


def _assert_sits_out(game: Game, seat: int) -> None:
    assert game.legal_actions(seat) == []
    assert game.view(seat).cards == ()
    any_card = DECK[0]
    for command in (
        PlayCard(seat, any_card),
        Call(seat, T.TRUCO),
        Call(seat, T.ENVIDO),
        Answer(seat, True),
        GoToMazo(seat),
        SendSena(seat, Sena.NEGRAS),
    ):
        assert refused(game, command) is Reason.NOT_IN_THIS_HAND


def test_pico_a_pico_sequence_values_and_buenas() -> None:
    game = new_game(players=6)
    # Hand 1: the redondilla dealt by seat 5; seat 0 (the mano) goes to mazo.
    concede_hands(game, [1])
    first = last_deal(game)
    assert (first.dealer, first.seats, first.pico) == (5, (0, 1, 2, 3, 4, 5), False)
    assert game.state.scores == [0, 1]

    # Hand 2: pico a pico, seat 0 against seat 3 (seat 3 deals). Falta envido is worth 6.
    deal(game, [["7e", "6e", "1b"], ["5b", "4b", "3o"]], "1c")
    hand = last_deal(game)
    assert (hand.dealer, hand.seats, hand.pico) == (3, (0, 3), True)
    for seat in (1, 2, 4, 5):
        _assert_sits_out(game, seat)
    # No teammate plays a pico hand: no seña can be sent.
    assert refused(game, SendSena(0, Sena.MATA_1)) is Reason.SENA_NOT_ALLOWED
    call(game, 0, T.FALTA_ENVIDO)
    events = answer(game, 3, True)
    assert events[1:] == [EnvidoSettled(0, 33), PointsScored(0, 6, ScoreReason.ENVIDO)]
    play(game, 0, "1b")
    game.execute(GoToMazo(3))  # seat 3 (team 1) leaves: team 0 +1
    assert game.state.scores == [7, 1]

    # Hand 3: seat 1 against seat 4; contra flor al resto is 6 plus the two flores.
    deal(game, [["7e", "6e", "4e"], ["7o", "6o", "5o"]], "1c")  # seat 1: 37, seat 4: 38
    hand = last_deal(game)
    assert (hand.dealer, hand.seats, hand.pico) == (4, (1, 4), True)
    for seat in (0, 2, 3, 5):
        _assert_sits_out(game, seat)
    play(game, 1, "4e")
    call(game, 4, T.CONTRA_FLOR_AL_RESTO)
    events = answer(game, 1, True)
    assert events[1:] == [FlorSettled(4, 38), PointsScored(0, 12, ScoreReason.FLOR)]
    assert game.state.scores == [19, 1]
    game.execute(GoToMazo(4))
    assert game.state.scores == [19, 2]

    # Team 0 is en buenas: the third pico hand (2 against 5) is dropped; the redondilla rotation goes on from
    # seat 5 to seat 0.
    concede_hands(game, [0])
    hand = last_deal(game)
    assert (hand.dealer, hand.seats, hand.pico) == (0, (1, 2, 3, 4, 5, 0), False)
    assert game.state.plan is not None
    assert (game.state.plan.dealer, game.state.plan.pico) == (1, False)


@pytest.mark.parametrize("mode", list(FaltaEnvido))
def test_pico_falta_envido_is_six_whatever_the_target(mode: FaltaEnvido) -> None:
    game = new_game(players=6, target=15, falta_envido=mode)  # a redondilla falta would be 13 (or 15)
    concede_hands(game, [1, 1])  # a redondilla, then the first pico hand
    assert game.state.scores == [0, 2]
    deal(game, [["5b", "4b", "3o"], ["7e", "6e", "1b"]], "1c")  # pico: seat 1 (29) against seat 4 (33)
    assert last_deal(game).seats == (1, 4)
    call(game, 1, T.FALTA_ENVIDO)
    assert scored(answer(game, 4, True)) == [(0, 6, ScoreReason.ENVIDO)]
    assert game.state.scores == [6, 2]


def test_pico_a_pico_off_plays_only_redondillas() -> None:
    game = new_game(players=6, pico_a_pico=False)
    concede_hands(game, [1, 0, 1])
    deals = [e for e in game.events if isinstance(e, HandDealt)]
    assert [(d.dealer, d.pico, len(d.seats)) for d in deals] == [(5, False, 6), (0, False, 6), (1, False, 6)]


# --- A whole match ------------------------------------------------------------------------------------------


@dataclass
class _Schedule:
    """An independent model of rules-decisions.md "Six players", checked hand by hand."""

    rotation: int = 5
    picos: list[tuple[int, int]] = field(default_factory=list)

    def expected(self) -> tuple[int, tuple[int, ...], bool]:
        """(dealer, seats from the mano, pico) of the next hand."""
        if self.picos:
            mano, rival = self.picos[0]
            return rival, (mano, rival), True
        d = self.rotation
        return d, tuple((d + 1 + k) % 6 for k in range(6)), False

    def hand_ended(self, pico: bool, scores: list[int]) -> None:
        malas = max(scores) < 15
        if pico:
            self.picos.pop(0)
        else:
            self.picos = _pico_pairs(self.rotation) if malas else []
            self.rotation = (self.rotation + 1) % 6
        if not malas:
            self.picos = []


def _choose(game: Game, seat: int) -> Call | Answer | PlayCard:
    """A simple deterministic policy: accept every call; in the last pico a pico hand of a set call falta
    envido when one may (so a full set is played first); otherwise play the first unplayed card."""
    actions = game.legal_actions(seat)
    for action in actions:
        if isinstance(action, Answer) and action.accept:
            return action
    hand = game.state.hand
    assert hand is not None
    plan = game.state.plan
    if hand.pico and plan is not None and not plan.pico_left:
        for action in actions:
            if isinstance(action, Call) and action.call is T.FALTA_ENVIDO:
                return action
    for action in actions:
        if isinstance(action, PlayCard):
            return action
    raise AssertionError(f"no card to play among {actions}")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_whole_six_player_match(seed: int) -> None:
    rng = random.Random(seed)
    game = new_game(players=6)
    model = _Schedule()
    kinds: list[str] = []  # "R" redondilla, "P" pico, per hand
    pico_faltas = 0
    redondillas_after_buenas = 0
    while not game.over:
        order: list[Card] = list(DECK)
        rng.shuffle(order)
        game.deal(order, salt=f"{rng.getrandbits(128):032x}")
        dealt = last_deal(game)
        assert (dealt.dealer, dealt.seats, dealt.pico) == model.expected(), f"hand {dealt.number}"
        kinds.append("P" if dealt.pico else "R")
        if max(game.state.scores) >= 15:
            assert not dealt.pico
            redondillas_after_buenas += 1
        outside = [seat for seat in range(6) if seat not in dealt.seats]
        assert len(outside) == (4 if dealt.pico else 0)
        if outside:
            _assert_sits_out(game, outside[0])
        while True:
            hand = game.state.hand
            assert hand is not None
            if hand.ended:
                break
            before = list(game.state.scores)
            (seat, *_) = game.actors()
            events: list[Event] = game.execute(_choose(game, seat))
            for settled in (e for e in events if isinstance(e, EnvidoSettled)):
                assert dealt.pico  # the policy calls falta envido only in pico hands
                winner_team = settled.winner_seat % 2
                credited = [e for e in events if isinstance(e, PointsScored) and e.reason is ScoreReason.ENVIDO]
                assert credited == [PointsScored(winner_team, min(6, 30 - before[winner_team]), ScoreReason.ENVIDO)]
                pico_faltas += 1
            if outside:
                assert all(game.legal_actions(s) == [] for s in outside)
        ended = [e for e in game.events if isinstance(e, HandEnded)][-1]
        assert {seat for seat, _ in ended.shown} <= set(dealt.seats)  # only this hand's seats are shown
        model.hand_ended(dealt.pico, game.state.scores)
    assert max(game.state.scores) == 30
    assert Game.from_events(game.events).state == game.state  # the log replays to the same match
    assert isinstance(game.events[-1], MatchEnded)
    assert game.events[-1].winner_team == game.state.scores.index(30)
    text = "".join(kinds)
    assert text.startswith("RPPPR"), text
    assert "P" in text and redondillas_after_buenas > 0, text
    assert pico_faltas > 0
