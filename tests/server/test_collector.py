"""The garbage collector on a clock (truco.server.runtime.collector): the automatic collector is off while the schedule
runs, cyclic garbage is still collected, the young and the full collections at their cadence, a young
collection's survivors go straight to the old generation, and the collector is given back."""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from truco.server.runtime.collector import CollectorSchedule


class _Node:
    def __init__(self) -> None:
        self.other: Any = None


def _cycle() -> weakref.ref[_Node]:
    """A reference cycle nothing else holds: only a collection frees it."""
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    return weakref.ref(first)


async def _until(condition: Any, seconds: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "the schedule never got there"
        await asyncio.sleep(0.01)


def _run(scenario: Callable[[], Coroutine[Any, Any, None]], *, enabled: bool | None = None) -> None:
    """Run ``scenario`` on a loop of its own (the automatic collector on or off first, if ``enabled`` says), then
    give the collector back as it was, with nothing left frozen."""
    was_enabled = gc.isenabled()
    if enabled is not None:
        (gc.enable if enabled else gc.disable)()
    try:
        asyncio.run(scenario())
    finally:
        gc.unfreeze()
        (gc.enable if was_enabled else gc.disable)()


def test_cycles_are_collected_on_the_clock_with_the_automatic_collector_off() -> None:
    async def scenario() -> None:
        async with CollectorSchedule(young_seconds=0.02, full_seconds=0.2) as schedule:
            assert gc.isenabled()  # until the loop's next turn: the caller goes on at once
            await asyncio.sleep(0)
            assert not gc.isenabled()
            garbage = _cycle()
            assert garbage() is not None  # nothing collects it on allocation
            await _until(lambda: garbage() is None)
            # Each at its cadence: young ones every 0.02 s, the full one after 0.2 s (in place of a young one).
            await _until(lambda: schedule.full_collections >= 1 and schedule.young_collections >= 1)
        assert gc.isenabled()

    _run(scenario, enabled=True)


def test_a_full_collection_reaches_garbage_that_outlived_the_younger_ones() -> None:
    async def scenario() -> None:
        schedule = CollectorSchedule(young_seconds=0.01, full_seconds=1.0)
        old = _Node()
        old.other = old  # alive, then promoted out of the young generation by the collections below
        garbage = weakref.ref(old)
        schedule.start()
        await asyncio.sleep(0)  # it has collected once, then frozen: survivors are out of sight from here on
        gc.unfreeze()  # ... but this one must stay visible, to become garbage later
        try:
            gc.collect(0)
            gc.collect(1)  # now in the oldest generation
            del old
            await _until(lambda: schedule.young_collections >= 3 or schedule.full_collections >= 1)
            if not schedule.full_collections:  # (a machine too slow for three turns in a second proves nothing)
                assert garbage() is not None, "a young collection reached the oldest generation"
            await _until(lambda: garbage() is None)
            assert schedule.full_collections >= 1
        finally:
            await schedule.stop()

    _run(scenario)


@pytest.mark.skipif(sys.version_info >= (3, 14), reason="3.14's incremental collector has no middle generation")
def test_a_young_collections_survivors_go_straight_to_the_old_generation() -> None:
    """No middle generation fills between collections: collecting it once a second, a second's survivors at a
    time, stopped the loop for tens of ms at a thousand matches."""

    async def scenario() -> None:
        schedule = CollectorSchedule(young_seconds=0.01, full_seconds=600.0)
        schedule.start()
        await asyncio.sleep(0)  # collected once and frozen: what follows is young
        try:
            survivor = _Node()
            assert any(found is survivor for found in gc.get_objects(generation=0))
            await _until(lambda: schedule.young_collections >= 1)
            assert not any(found is survivor for found in gc.get_objects(generation=1)), "left in the middle"
            assert any(found is survivor for found in gc.get_objects(generation=2))
        finally:
            await schedule.stop()

    _run(scenario)


def test_the_schedule_refuses_intervals_that_would_never_collect() -> None:
    with pytest.raises(ValueError):
        CollectorSchedule(young_seconds=0)
    with pytest.raises(ValueError):
        CollectorSchedule(full_seconds=0)
