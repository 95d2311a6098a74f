"""The stores' shared core: each operation written once, the backends saying only how to reach their database.

The operations themselves are tested on both backends by tests/store/test_store_contract.py; these tests hold the shape.
"""

from __future__ import annotations

import asyncio
import inspect

import pytest

from truco.server.store import EventStore
from truco.server.store.core import SQLStore, run_to_end
from truco.server.store.players import PlayerTables
from truco.server.store.postgres import PostgresStore
from truco.server.store.signals import ChangeSignals
from truco.server.store.sqlite import SQLiteStore

BACKENDS_OWN = {"ping", "close", "hearing_epoch", "recheck_seconds"}
"""What each backend says for itself: its health check, its close, whether it hears every append, how often a
waiter looks again."""


def operations() -> set[str]:
    return {name for name in dir(EventStore) if not name.startswith("_")}


def test_every_operation_is_the_cores_and_no_backend_writes_its_own() -> None:
    names = operations()
    assert {"append", "read", "claim_seat", "delete_games", "revoke_api_key", "wait_for_change"} <= names
    for name in names - BACKENDS_OWN:
        assert name in SQLStore.__dict__ or name in PlayerTables.__dict__, name  # the core's, players' included
        for backend in (SQLiteStore, PostgresStore):
            assert name not in backend.__dict__, f"{backend.__name__}.{name} is written again"
    for backend in (SQLiteStore, PostgresStore):
        assert not inspect.isabstract(backend)


def test_an_operation_runs_to_its_end_on_a_connection_that_never_suspends() -> None:
    async def operation(value: int) -> int:
        return value * 2

    async def refused() -> int:
        raise LookupError("refused")

    assert run_to_end(operation(21)) == 42
    with pytest.raises(LookupError, match="refused"):
        run_to_end(refused())


def test_an_operation_that_awaits_anything_else_is_a_bug_said_at_once() -> None:
    async def suspends() -> int:
        await asyncio.sleep(0)
        return 1

    with pytest.raises(RuntimeError, match="awaited something other than its blocking connection"):
        run_to_end(suspends())


async def test_notifications_of_a_game_being_appended_here_wait_for_the_append_to_return() -> None:
    signals = ChangeSignals()
    heard: list[tuple[str, int]] = []
    signals.on_append(lambda game_id, seq: heard.append((game_id, seq)))
    with signals.appending("g1"):
        signals.notified("g1", 4)
        signals.notified("g1", 3)  # an older notification never lowers what is held back
        signals.notified("g2", 7)  # another game: at once
        assert heard == [("g2", 7)]
    assert heard == [("g2", 7)]  # fired on the loop's next turn, after the append's caller resumed
    await asyncio.sleep(0)
    assert heard == [("g2", 7), ("g1", 4)]


async def test_two_appends_of_one_game_hold_its_notifications_until_the_last_returns() -> None:
    signals = ChangeSignals()
    heard: list[tuple[str, int]] = []
    signals.on_append(lambda game_id, seq: heard.append((game_id, seq)))
    with signals.appending("g1"):
        with signals.appending("g1"):
            signals.notified("g1", 2)
        await asyncio.sleep(0)
        assert heard == []
    await asyncio.sleep(0)
    assert heard == [("g1", 2)]
