"""The server's thinking pool: a thinking bot's move comes from a worker process, and a worker that dies (killed,
out of memory) does not stop the bots for good: the next move starts a new pool."""

from __future__ import annotations

import os
import random
import signal

from truco.engine import DECK, Deal, MatchState, RuleSet, actors, execute_legal, legal_actions, start_match
from truco.engine.state import evolve
from truco.server.thinking import Thinkers


def dealt(players: int, seed: int) -> MatchState:
    state = MatchState()
    for event in start_match(RuleSet(players=players)):
        evolve(state, event)
    order = list(DECK)
    random.Random(seed).shuffle(order)
    execute_legal(state, Deal(tuple(order), "0" * 32))
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
