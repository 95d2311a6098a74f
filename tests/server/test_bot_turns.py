"""The autoplayer's queue: games a person sits at are served before matches of bots only."""

from __future__ import annotations

import asyncio

from truco.engine import MatchState, RuleSet
from truco.server.core.autoplayer import BotTurns
from truco.server.core.setups import Setup
from truco.server.core.snapshots import Snapshot


def _snapshot(bots: dict[int, str], *, hands_dealt: int = 1) -> Snapshot:
    """A game between two hands (the next deal is the server's move) with these bot seats."""
    state = MatchState(rules=RuleSet(players=2), hands_dealt=hands_dealt)
    return Snapshot(Setup(RuleSet(players=2), bots, ()), 1, state, ())


def test_a_table_waiting_for_its_first_deal_waits_for_no_bot() -> None:
    """The first deal is CreateGame's or the last join's: queued, a table waiting for friends would be stepped
    on every read of it."""
    turns = BotTurns()
    turns.offer("waiting", _snapshot({1: "expert"}, hands_dealt=0))
    assert len(turns) == 0


def test_a_game_a_person_sits_at_is_served_before_every_match_of_bots_only() -> None:
    turns = BotTurns()
    for number in range(5):
        turns.offer(f"bots-{number}", _snapshot({0: "expert", 1: "expert"}))
    turns.offer("bots-0", _snapshot({0: "expert", 1: "expert"}))  # queued once
    turns.offer("person", _snapshot({1: "expert"}))

    async def order() -> list[str]:
        return [await turns.next() for _ in range(len(turns))]

    assert asyncio.run(order()) == ["person", "bots-0", "bots-1", "bots-2", "bots-3", "bots-4"]


def test_the_autoplayer_waits_for_a_game_offered_later() -> None:
    async def scenario() -> str:
        turns = BotTurns()
        waiting = asyncio.ensure_future(turns.next())
        await asyncio.sleep(0)
        assert not waiting.done()
        turns.offer("later", _snapshot({1: "expert"}))
        return await asyncio.wait_for(waiting, 5)

    assert asyncio.run(scenario()) == "later"


def test_a_pause_for_matches_of_bots_only_ends_when_a_person_waits() -> None:
    async def scenario() -> tuple[bool, bool]:
        turns = BotTurns()
        pause = asyncio.ensure_future(turns.rest(3600.0))
        await asyncio.sleep(0)
        turns.offer("bots", _snapshot({0: "expert", 1: "expert"}))
        await asyncio.sleep(0)
        paused_for_bots = not pause.done()
        turns.offer("person", _snapshot({1: "expert"}))
        await asyncio.wait_for(pause, 5)
        return paused_for_bots, pause.done()

    assert asyncio.run(scenario()) == (True, True)


def test_matches_of_bots_only_take_turns_by_creator() -> None:
    """One caller's hundred matches of bots only do not make another caller's one wait behind them all."""
    turns = BotTurns()
    for number in range(4):
        turns.created(f"many-{number}", "peer:10.0.0.1")
        turns.offer(f"many-{number}", _snapshot({0: "expert", 1: "expert"}))
    turns.created("one", "key:other")
    turns.offer("one", _snapshot({0: "expert", 1: "expert"}))
    turns.offer("unknown", _snapshot({0: "expert", 1: "expert"}))  # created elsewhere: nobody's, a turn of its own

    async def order() -> list[str]:
        return [await turns.next() for _ in range(len(turns))]

    assert asyncio.run(order()) == ["many-0", "one", "unknown", "many-1", "many-2", "many-3"]
