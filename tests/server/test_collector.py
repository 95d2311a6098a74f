"""The garbage collector on a clock (truco.server.runtime.collector): the automatic collector is off while the schedule
runs, cyclic garbage is still collected, the young, old and whole-heap collections at their cadence, a young
collection's survivors go straight to the old generation, an old collection's survivors are frozen (and still
freed when they die, and reached by the whole-heap collection when they die in a cycle), every collection's
pause and the loop's lateness are reported (the server's histograms), and the collector is given back."""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from truco.server.core.metrics import Metrics
from truco.server.runtime.app import collector_schedule
from truco.server.runtime.collector import (
    MAX_OLD_BUDGET,
    MIN_OLD_BUDGET,
    OLD_BOUNDS,
    PROMOTIONS_BOUND_OLD,
    CollectorSchedule,
    next_old_interval,
    old_budget,
)


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


async def _young_ticks(schedule: CollectorSchedule, count: int) -> None:
    """Until ``count`` more young collections have run."""
    target = schedule.young_collections + count
    await _until(lambda: schedule.young_collections >= target)


def _in_generation(thing: object, generation: int) -> bool:
    return any(found is thing for found in gc.get_objects(generation=generation))


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
        async with CollectorSchedule(young_seconds=0.02, old_seconds=0.1, full_seconds=0.2) as schedule:
            assert gc.isenabled()  # until the loop's next turn: the caller goes on at once
            await asyncio.sleep(0)
            assert not gc.isenabled()
            garbage = _cycle()
            assert garbage() is not None  # nothing collects it on allocation
            await _until(lambda: garbage() is None)
            # Each at its cadence: young ones every 0.02 s, the old generation's every 0.1 s, the whole heap after
            # 0.2 s (each in place of a young one).
            await _until(lambda: schedule.full_collections >= 1 and schedule.old_collections >= 1)
            assert schedule.young_collections >= 1
        assert gc.isenabled()

    _run(scenario, enabled=True)


def test_an_old_collection_reaches_garbage_that_outlived_the_younger_ones() -> None:
    async def scenario() -> None:
        schedule = CollectorSchedule(young_seconds=0.01, old_seconds=1.0, full_seconds=600.0)
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
            await _until(lambda: schedule.young_collections >= 3 or schedule.old_collections >= 1)
            if not schedule.old_collections:  # (a machine too slow for three turns in a second proves nothing)
                assert garbage() is not None, "a young collection reached the oldest generation"
            await _until(lambda: garbage() is None)
            assert schedule.old_collections >= 1
        finally:
            await schedule.stop()

    _run(scenario)


@pytest.mark.skipif(sys.version_info >= (3, 14), reason="3.14's incremental collector has no middle generation")
def test_a_young_collections_survivors_go_straight_to_the_old_generation() -> None:
    """No middle generation fills between collections: collecting it once a second, a second's survivors at a
    time, stopped the loop for tens of ms at a thousand matches."""

    async def scenario() -> None:
        schedule = CollectorSchedule(young_seconds=0.01, old_seconds=600.0, full_seconds=600.0)
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
    with pytest.raises(ValueError):
        CollectorSchedule(old_seconds=0)


def test_the_old_generations_survivors_are_frozen_so_the_next_collection_walks_only_the_newer() -> None:
    """An old collection's survivors leave the collector's sight: the next walks what was promoted since."""

    async def scenario() -> None:
        schedule = CollectorSchedule(young_seconds=0.01, old_seconds=0.1, full_seconds=600.0)
        schedule.start()
        await asyncio.sleep(0)
        try:
            survivor = [_Node()]
            await _until(lambda: _in_generation(survivor[0], 2))
            frozen = gc.get_freeze_count()
            await _until(lambda: schedule.old_collections >= 1)
            assert not _in_generation(survivor[0], 2), "still walked"
            assert gc.get_freeze_count() > frozen
            newer = [_Node()]
            newer[0].other = newer[0]  # a cycle promoted after the freeze: the next old collection frees it
            garbage = weakref.ref(newer[0])
            await _until(lambda: _in_generation(newer[0], 2))
            newer.clear()
            await _until(lambda: garbage() is None)
            # What was frozen still dies as soon as nothing refers to it.
            gone = weakref.ref(survivor[0])
            survivor.clear()
            assert gone() is None
        finally:
            await schedule.stop()

    _run(scenario)


def test_the_whole_heap_collection_reaches_cycles_that_died_frozen() -> None:
    async def scenario() -> None:
        schedule = CollectorSchedule(young_seconds=0.01, old_seconds=0.05, full_seconds=1.0)
        schedule.start()
        await asyncio.sleep(0)
        try:
            held = [_Node()]
            held[0].other = held[0]
            garbage = weakref.ref(held[0])
            await _until(lambda: schedule.old_collections >= 2)  # promoted, then frozen alive
            assert not _in_generation(held[0], 2)
            held.clear()
            await _until(lambda: schedule.old_collections >= 4 or schedule.full_collections >= 1)
            if not schedule.full_collections:
                assert garbage() is not None, "an old collection reached the frozen part"
            await _until(lambda: garbage() is None)
            assert schedule.full_collections >= 1
        finally:
            await schedule.stop()

    _run(scenario)


def test_every_collection_and_every_ticks_lateness_is_reported() -> None:
    pauses: list[tuple[int, float]] = []
    lateness: list[float] = []

    async def scenario() -> None:
        schedule = CollectorSchedule(
            young_seconds=0.01,
            old_seconds=0.05,
            full_seconds=0.2,
            pause=lambda generation, seconds: pauses.append((generation, seconds)),
            lateness=lateness.append,
        )
        async with schedule:
            await _until(lambda: schedule.full_collections >= 1)
            gc.collect(0)  # any collection, not only the schedule's
        young = sum(1 for generation, _ in pauses if generation == 1)
        full = sum(1 for generation, _ in pauses if generation == 2)
        assert young >= schedule.young_collections
        assert full >= schedule.old_collections + schedule.full_collections + 1  # and the one at the start
        assert any(generation == 0 for generation, _ in pauses)
        assert all(seconds >= 0 for _, seconds in pauses)
        ticks = schedule.young_collections + schedule.old_collections + schedule.full_collections
        assert len(lateness) >= ticks - 1
        assert all(seconds >= 0 for seconds in lateness)
        assert schedule._timed not in gc.callbacks, "the hook outlived the schedule"

    _run(scenario)


def test_the_servers_schedule_fills_the_pause_and_lateness_histograms() -> None:
    metrics = Metrics.create()

    async def scenario() -> None:
        async with collector_schedule(metrics, 0.2) as schedule:
            await _until(lambda: schedule.full_collections >= 1)

    _run(scenario)
    sample = metrics.registry.get_sample_value
    assert (sample("truco_gc_pause_seconds_count", {"generation": "2"}) or 0) >= 2
    assert (sample("truco_gc_pause_seconds_count", {"generation": "1"}) or 0) >= 1
    assert (sample("truco_loop_lateness_seconds_count") or 0) >= 1


def test_the_old_collections_interval_follows_their_pauses_toward_the_target() -> None:
    assert next_old_interval(2.0, 0.05, target=0.025) == 1.0  # twice too long: half the interval
    assert next_old_interval(2.0, 0.0125, target=0.025) == 4.0
    assert next_old_interval(2.0, 1.0, target=0.025) == 1.0  # at most a factor 2 a time
    assert next_old_interval(2.0, 0.0, target=0.025) == 4.0
    assert next_old_interval(OLD_BOUNDS[0], 1.0) == OLD_BOUNDS[0]
    assert next_old_interval(OLD_BOUNDS[1], 0.0) == OLD_BOUNDS[1]


def test_a_small_heaps_old_collections_grow_apart() -> None:
    async def scenario() -> None:
        async with CollectorSchedule(young_seconds=0.01, old_seconds=0.05, old_pause=1.0) as schedule:
            await _until(lambda: schedule.old_collections >= 2)
            assert schedule.old_seconds > 0.05  # a test's heap walks in far less than a second
            # What the young collections promote stays far below the budget: the old part is never counted.
            assert schedule.young_collections > 0 and (schedule.old_counts == 0 or not PROMOTIONS_BOUND_OLD)

    _run(scenario)


@pytest.mark.skipif(not PROMOTIONS_BOUND_OLD, reason="3.14's incremental collector: the old part is always counted")
def test_garbage_that_dies_young_never_brings_a_count() -> None:
    """The bound on the old generation's unfrozen part grows by what each young collection promotes: the young
    objects less the unreachable ones it found. A budget's worth of cycles dying young every tick promotes none of
    them, so the old part is never counted; survivors do raise the bound, which stays at or above the count."""

    async def scenario() -> None:
        schedule = CollectorSchedule(young_seconds=0.01, old_seconds=0.05, old_bounds=(30.0, 60.0))
        async with schedule:
            await _until(lambda: schedule.old_collections >= 1)
            for _ in range(5):
                for _ in range(schedule.old_budget):
                    last = _cycle()  # only the last one's weak reference is kept: the rest is garbage at once
                await _young_ticks(schedule, 2)
                assert last() is None
            assert schedule.old_counts == 0 and schedule.old_collections == 1
            kept = [_Node() for _ in range(1_000)]
            await _young_ticks(schedule, 2)
            unfrozen = len(gc.get_objects(generation=2))
            assert unfrozen >= len(kept) and schedule._unfrozen_at_most >= unfrozen

    _run(scenario)


def test_a_burst_of_survivors_brings_the_old_collection_early() -> None:
    """Steps grown far apart while little survives (here 30 s at least) would walk a burst's survivors in one
    long step: once the unfrozen old objects pass the budget, the step comes at the next count instead."""

    async def scenario() -> None:
        schedule = CollectorSchedule(young_seconds=0.01, old_seconds=0.05, old_bounds=(30.0, 60.0))
        async with schedule:
            await _until(lambda: schedule.old_collections >= 1)
            assert schedule.old_seconds >= 30.0 and schedule.early_old_collections == 0
            burst = [_Node() for _ in range(schedule.old_budget + 1_000)]
            await _until(lambda: schedule.old_collections >= 2, seconds=10.0)
            assert schedule.early_old_collections == 1 and schedule.old_counts == 1
            assert not _in_generation(burst[0], 2)  # walked once, then frozen

    _run(scenario)


def test_the_budget_is_what_the_last_walk_covers_in_twice_the_target() -> None:
    assert old_budget(80_000, 0.050, target=0.025) == 80_000
    assert old_budget(40_000, 0.050, target=0.025) == 40_000
    assert old_budget(10, 0.0) == MIN_OLD_BUDGET  # too short a walk to time: the floor
    assert old_budget(100_000, 0.002) == MAX_OLD_BUDGET  # a cache-warm walk's rate: the ceiling
