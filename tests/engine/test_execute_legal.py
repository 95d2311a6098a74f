"""``execute_legal``: the trusted path for commands taken from ``legal_actions`` (bots, simulations, the server's
bot seats and deals) decides exactly what the checked path decides, without checking again."""

from __future__ import annotations

import random

import pytest

from truco.engine import DECK, Deal, Game, RuleSet, RuleViolation, execute, execute_legal, legal_actions


@pytest.mark.parametrize("players", [2, 4, 6])
def test_every_legal_action_gives_the_same_events_and_state_both_ways(players: int) -> None:
    rng = random.Random(players)
    for _ in range(3):
        game = Game(RuleSet(players=players, perros=players == 4))
        while not game.over:
            waiting = game.actors()
            if not waiting:
                order = list(DECK)
                rng.shuffle(order)
                deal = Deal(tuple(order), f"{rng.getrandbits(128):032x}")
                checked, trusted = game.state.copy(), game.state.copy()
                assert execute(checked, deal) == execute_legal(trusted, deal)
                assert checked == trusted
                game.execute_legal(deal)
                continue
            seat = rng.choice(waiting)
            actions = legal_actions(game.state, seat)
            for command in actions:
                checked, trusted = game.state.copy(), game.state.copy()
                assert execute(checked, command) == execute_legal(trusted, command), command
                assert checked == trusted, command
            game.execute_legal(rng.choice(actions))
        assert game.state.winner is not None


def test_the_checked_path_still_refuses_what_is_not_legal() -> None:
    game = Game(RuleSet(players=2))
    order = list(DECK)
    random.Random(1).shuffle(order)
    game.deal(order, "0f" * 16)
    rival = 1 - game.actors()[0]
    command = legal_actions(game.state, game.actors()[0])[0]
    stolen = type(command)(rival, *[getattr(command, f) for f in command.__dataclass_fields__ if f != "seat"])
    before = game.state.copy()
    with pytest.raises(RuleViolation):
        game.execute(stolen)
    assert game.state == before
