"""The server's thinking bots: a thinking bot's move comes from a worker process, a worker that dies (killed, out
of memory) does not stop the bots for good (the next move starts a new pool), and the autoplayer tells a match
nobody sits at (paced to half the server's time, thinking included) from one a player waits in."""

from __future__ import annotations

import os
import random
import signal

from truco.engine import MatchState, RuleSet, actors, execute_legal, legal_actions, start_match
from truco.engine.state import fold
from truco.server.core.clocks import US, ClockSettings
from truco.server.core.referee import Setup, bots_only, thinker_due
from truco.server.core.thinking import Thinkers

from ..engine.scenario_helpers import shuffled_deal


def dealt(players: int, seed: int) -> MatchState:
    state = fold(start_match(RuleSet(players=players)))
    execute_legal(state, shuffled_deal(random.Random(seed)))
    return state


async def test_a_dead_worker_is_replaced_and_the_move_still_comes() -> None:
    thinkers = Thinkers(seed=1)
    try:
        state = dealt(4, 7)
        seat = actors(state)[0]
        first = await thinkers.decide(state, seat, "expert")
        assert first in legal_actions(state, seat)
        pool = thinkers._pool
        assert pool is not None
        for pid in list(pool._processes):  # the worker dies as an OOM kill would end it
            os.kill(pid, signal.SIGKILL)
        second = await thinkers.decide(state, seat, "expert")
        assert second in legal_actions(state, seat)
        assert thinkers._pool is not None and thinkers._pool is not pool
    finally:
        thinkers.close()


def test_a_match_is_bots_only_when_the_server_plays_every_seat_its_bots_and_those_taken_over() -> None:
    state = dealt(4, 3)
    experts = Setup(RuleSet(players=4), {1: "expert", 2: "expert", 3: "expert"}, ())
    assert not bots_only(state, experts)  # a player sits at seat 0: it waits for the bots' moves
    assert bots_only(state, Setup(RuleSet(players=4), dict.fromkeys(range(4), "expert"), ()))
    state.away = frozenset({0})  # the player left: the takeover bot plays the seat, nobody waits
    assert bots_only(state, experts)
    seat = actors(state)[0]  # a taken-over seat plays at the game's level: the expert, thinking in the pool
    assert thinker_due(state, experts) == (seat, "expert")
    named = Setup(RuleSet(players=4), experts.bots, (), ClockSettings(30 * US, bot="heuristic"))
    assert thinker_due(state, named) == ((seat, "expert") if seat != 0 else None)  # the clocks' bot never thinks
