"""determinize: the state a seat's view would come from, given the cards it cannot see, plays on exactly as the real
one: the same legal actions for every seat, the same view for the seat, the same events to the end of the hand and
the same next deal."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from truco.engine import (
    Card,
    Deal,
    MatchState,
    Phase,
    RuleSet,
    SeatCommand,
    SeatView,
    SendSena,
    actors,
    determinize,
    execute_legal,
    legal_actions,
    seat_view,
    start_match,
    team_of,
)
from truco.engine.events import Event, HandEnded
from truco.engine.state import fold

from .scenario_helpers import shuffled_deal


def hidden_of(state: MatchState, seat: int) -> dict[int, list[Card]]:
    hand = state.hand
    assert hand is not None
    return {other: list(hand.unplayed[other]) for other in hand.seats if other != seat}


def without_senas(actions: list[SeatCommand]) -> list[SeatCommand]:
    return [action for action in actions if not isinstance(action, SendSena)]


def public_part(view: SeatView) -> SeatView:
    """What determinize promises to rebuild: all but the last hand's summary and the next dealer (between hands)."""
    return replace(view, public=replace(view.public, last_hand=None, next_dealer=None))


def normalized(events: list[Event]) -> list[Event]:
    """A shown hand lists its cards in another order in an imagined deal: compare the cards as sets."""
    return [
        replace(e, shown=tuple((s, tuple(sorted(cards))) for s, cards in e.shown)) if isinstance(e, HandEnded) else e
        for e in events
    ]


def check_plays_on_alike(real: MatchState, seat: int, rng: random.Random) -> None:
    view = seat_view(real, seat, proofs=False)
    imagined = determinize(view, hidden_of(real, seat) if real.phase is Phase.PLAYING else {})
    if real.phase is Phase.PLAYING:  # between hands the imagined state keeps no ended hand: nothing to show
        assert public_part(seat_view(imagined, seat, proofs=False)) == public_part(view)
    for other in range(real.rules.players):
        if team_of(other) == team_of(seat):
            assert legal_actions(imagined, other) == legal_actions(real, other)
        else:  # the rivals' señas are never seen: the imagined rivals may send theirs again
            assert without_senas(legal_actions(imagined, other)) == without_senas(legal_actions(real, other))
    # Play both on with the same commands to the end of the hand, then the same deal.
    real, imagined = real.copy(), imagined
    hands = real.hands_dealt
    while real.phase is not Phase.MATCH_OVER:
        waiting = actors(real)
        assert actors(imagined) == waiting
        if not waiting:
            if real.hands_dealt > hands:
                break
            command: Deal | object = shuffled_deal(rng)
            assert imagined.plan == real.plan
        else:
            command = rng.choice(legal_actions(real, rng.choice(waiting)))
        assert normalized(execute_legal(imagined, command)) == normalized(execute_legal(real, command))  # type: ignore[arg-type]
    assert imagined.scores == real.scores and imagined.phase is real.phase


RULES = [
    RuleSet(players=2),
    RuleSet(players=2, flor=False, target=15),
    RuleSet(players=4),
    RuleSet(players=4, perros=True),
    RuleSet(players=6),
    RuleSet(players=6, perros=True, target=20),
]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.players}p-flor{r.flor}-perros{r.perros}-to{r.target}")
def test_an_imagined_table_with_the_real_cards_plays_on_as_the_real_one(rules: RuleSet) -> None:
    rng = random.Random(rules.players * 1000 + rules.target)
    checked = 0
    for _ in range(15):
        state = fold(start_match(rules))
        while state.phase is not Phase.MATCH_OVER:
            waiting = actors(state)
            if not waiting:
                execute_legal(state, shuffled_deal(rng))
                continue
            seat = rng.choice(waiting)
            if rng.random() < 0.3:
                check_plays_on_alike(state, seat, rng)
                checked += 1
            execute_legal(state, rng.choice(legal_actions(state, seat)))
    assert checked > 60


def test_the_hidden_cards_must_fit_the_view() -> None:
    rng = random.Random(3)
    state = fold(start_match(RuleSet(players=2)))
    execute_legal(state, shuffled_deal(rng))
    view = seat_view(state, 0, proofs=False)
    hidden = hidden_of(state, 0)
    with pytest.raises(ValueError, match="unplayed cards"):
        determinize(view, {1: hidden[1][:2]})
    with pytest.raises(ValueError, match="dealt twice"):
        determinize(view, {1: [view.cards[0], *hidden[1][1:]]})
    with pytest.raises(ValueError, match="dealt twice"):
        determinize(view, {1: [view.public.hand.muestra, *hidden[1][1:]]})  # type: ignore[union-attr]
