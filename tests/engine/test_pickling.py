"""Engine values pickle on both builds: a process pool sends match states to its workers and gets commands back
(the server's thinking bots). Compiled by mypyc, frozen dataclasses did not unpickle (the pool's worker died on
the first expert move); ./dev test runs this module on the compiled build too."""

from __future__ import annotations

import pickle
import random
from dataclasses import fields

import pytest

from truco.engine import (
    Phase,
    PlayCard,
    RuleSet,
    actors,
    execute_legal,
    legal_actions,
    seat_view,
    spectator_view,
    start_match,
)
from truco.engine.pickling import value_classes
from truco.engine.state import fold

from .scenario_helpers import shuffled_deal


def round_trip(value: object) -> object:
    return pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def test_every_value_class_takes_its_fields_in_order() -> None:
    names = {value_class.__name__ for value_class in value_classes()}
    assert {"RuleSet", "PlayCard", "Deal", "HandPlan", "PendingCall", "MatchState", "HandDealt", "SeatView"} <= names
    rules = RuleSet(players=4, target=15, perros=True)
    assert round_trip(rules) == rules
    assert [field.name for field in fields(rules)] == list(vars(type(rules))["__match_args__"])


@pytest.mark.parametrize("players", [2, 4, 6])
def test_states_commands_events_and_views_survive_a_pickle_round_trip(players: int) -> None:
    rng = random.Random(players)
    state = fold(start_match(RuleSet(players=players, target=15)))
    checked = 0
    for _ in range(5_000):
        if state.phase is Phase.MATCH_OVER:
            break
        waiting = actors(state)
        if waiting:
            actions = legal_actions(state, waiting[0])
            plays = [action for action in actions if isinstance(action, PlayCard)]  # a long match: many states
            command = rng.choice(plays if plays and rng.random() < 0.8 else actions)
            assert round_trip(seat_view(state, waiting[0])) == seat_view(state, waiting[0])
        else:
            command = shuffled_deal(rng)
        assert round_trip(command) == command
        copy = round_trip(state)
        assert copy == state and copy is not state
        for event in execute_legal(state, command):
            assert round_trip(event) == event
        checked += 1
    assert state.phase is Phase.MATCH_OVER and checked > 20
    assert round_trip(spectator_view(state)) == spectator_view(state)
