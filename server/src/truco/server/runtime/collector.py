"""Python's garbage collector on a clock instead of on allocations, so that no collection pauses the event loop
for long.

CPython starts a young collection when the tracked objects allocated since the last one, less those freed,
pass a threshold. A server's freed objects are mostly old ones (the snapshot a move replaces, the message a
stream sent), so the count barely rises while the young generation fills with everything still waiting: parked
streams, their awaitables, the newest snapshots. At 850 two-player matches it held 145,000 objects when a
young collection finally ran, about every 10 s, and each such collection stopped the loop for 50-170 ms,
longer than the whole budget of a move's p99 (bench/journal/2026-12-02-collector-on-a-clock.md).

Here the collector is driven by time: the young generation every :data:`YOUNG_SECONDS`, and what survives it
goes straight to the old generation. CPython's middle generation, collected once a second, held a whole
second's survivors and stopped the loop for 27-73 ms at 1,300 matches.

The old generation is collected in steps: every step walks only what was promoted since the last one and is
still alive, then freezes the survivors (``gc.freeze()``), out of every later collection's sight. Walking the
whole heap instead stopped the loop for 0.56-1.81 s at 2,500 two-player matches (about 800,000 objects), every
10 minutes; a step walks a few seconds' survivors, and its interval follows its CPU time toward
:data:`OLD_PAUSE` (bench/journal/2026-12-06-collector-and-capacity.md). The interval alone lags a change of pace:
steps grown 15 s apart while play was slow walked a burst's survivors in one 115 ms step at 2,500 matches. So a
step also comes early once the old generation's unfrozen part holds what the last step's walking rate covers in
twice :data:`OLD_PAUSE`, at most :data:`MAX_OLD_BUDGET` objects. Counting that part lists it (2-4 ms at 100,000
objects), so it is counted only when it may have passed the budget: each young collection adds what it promoted
(the young objects listed before it, less the unreachable ones it found), an upper bound that costs a list of the
young generation, and only once that bound passes the budget is the part counted, at most every
:data:`COUNT_SECONDS`. Promotions by anyone else's ``gc.collect()`` escape the bound until the next step.

What was frozen is still freed the moment nothing refers to it; only a cycle among frozen objects that dies is
left for the whole-heap collection, which runs only if asked for (``truco serve --full-collection``): two
minutes at 2,500 matches left 7-63 such objects, against hundreds of thousands of live ones.

On Python 3.14, whose collector is incremental, ``gc.collect(1)`` is the young generation and an increment of
the old one, and generations 1 and 2 name its two old spaces, which swap: the young collections' promotions are no
bound on ``gc.get_objects(2)`` there, so the old part is counted every :data:`COUNT_SECONDS` instead (the
project's CI runs 3.11 only; the schedule's other steps hold, and freezing still hides the old).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import math
import sys
import time
from collections.abc import Callable

import structlog

YOUNG_SECONDS = 0.05
"""How often the young generation is collected: what a twentieth of a second of play leaves alive. Twice as often
as the 0.1 s it was halves each pause (p50 3 against 7-8 ms at 2,500 two-player matches) and costs less in all
(1.7 against 2.2 s of every 31): a young generation's walk grows faster than its size. The survivors
are promoted to the old generation at once (``gc.collect(1)`` with the middle generation always empty)."""
OLD_SECONDS = 2.0
"""How long after the start the old generation is first collected: what was promoted to it since and is still
alive, walked once and then frozen (out of every later collection's sight). From then on the interval follows
the pauses (:func:`next_old_interval`)."""
OLD_PAUSE = 0.025
"""The CPU time an old collection aims for: a quarter of the 100 ms a collection may stop the loop at most, as the
walk's length varies with what a moment's play leaves (at 2,500 matches the interval settled at 2-3 s)."""
LONG_PAUSE = 0.1
"""An old collection that stops the loop longer than this is logged, with its CPU time."""
OLD_BOUNDS = (0.25, 60.0)
"""The old collections' shortest and longest interval, in seconds."""
COUNT_SECONDS = 0.1
"""How often, at most, the old generation's unfrozen objects are counted, for a step to come early: a list of
pointers to them, far cheaper than walking them, yet 2-4 ms at 100,000. Counted every 0.1 s whatever the
promotions, the counts took 4 % of the loop's time at 2,500 matches (py-spy, 2026-12-06); counted every 0.5 s,
a burst (2,500 matches set up in 30 s) still piled up a 135 ms step between two counts."""
PROMOTIONS_BOUND_OLD = sys.version_info < (3, 14)
"""Whether the young collections' promotions bound the old generation's unfrozen part (not with the incremental
collector of 3.14, whose generations 1 and 2 are its two old spaces)."""
MIN_OLD_BUDGET = 20_000
"""The fewest unfrozen old objects that bring a step early: below it a walk takes a few ms at most."""
MAX_OLD_BUDGET = 100_000
"""The most: a walk of a large heap's objects costs up to 0.7 µs each (the whole heap at 2,500 matches, out of
the CPU's caches), 70 ms for these. The rate a small, cache-warm walk shows is ten times that and would let a
burst pile up past 100 ms (one step of 115-135 ms while 2,500 matches were set up in 30 s)."""
FULL_SECONDS = math.inf
"""How often the whole heap is collected, the frozen part too, by default never: what it reaches is the cyclic
garbage among what was frozen (a cycle that lived past an old collection, then died), 7-63 objects in two
minutes at 2,500 matches, for a stop of the loop of 0.56-1.81 s."""


def old_budget(walked: int, cpu: float, target: float = OLD_PAUSE) -> int:
    """How many unfrozen old objects bring the next step early: what the last step's walking rate covers in twice
    the target, from :data:`MIN_OLD_BUDGET` (a walk too short to time says little of the rate) to
    :data:`MAX_OLD_BUDGET`."""
    rate = walked / max(cpu, 1e-3)
    return min(MAX_OLD_BUDGET, max(MIN_OLD_BUDGET, int(rate * 2 * target)))


def next_old_interval(
    interval: float, pause: float, target: float = OLD_PAUSE, bounds: tuple[float, float] = OLD_BOUNDS
) -> float:
    """The next old collection's interval, from the last one's and how long that collection took: what it walks
    grows with the interval, so the interval moves toward the target pause, by at most a factor 2 a time."""
    factor = min(2.0, max(0.5, target / max(pause, 1e-6)))
    return min(max(interval * factor, bounds[0]), bounds[1])


Pause = Callable[[int, float], None]
"""Told of every collection: its generation (0, 1 or 2) and the seconds it stopped the loop."""
Lateness = Callable[[float], None]
"""Told, at each of the schedule's ticks, how many seconds late the loop woke it."""


class CollectorSchedule:
    """Runs the collector on a clock while started (or inside ``async with``); the automatic collector is off
    meanwhile. ``pause`` and ``lateness``, if given, hear how long each collection took and how late each tick
    woke (the loop's lag from everything else)."""

    def __init__(
        self,
        young_seconds: float = YOUNG_SECONDS,
        full_seconds: float = FULL_SECONDS,
        *,
        old_seconds: float = OLD_SECONDS,
        old_pause: float = OLD_PAUSE,
        old_bounds: tuple[float, float] = OLD_BOUNDS,
        pause: Pause | None = None,
        lateness: Lateness | None = None,
    ) -> None:
        if young_seconds <= 0 or old_seconds <= 0 or full_seconds <= 0:
            raise ValueError("the collector's intervals must be positive")
        self.young_seconds = young_seconds
        self.old_seconds = old_seconds
        """The old collections' interval now (it follows their pauses)."""
        self.old_pause = old_pause
        self.old_bounds = old_bounds
        self.old_budget = MIN_OLD_BUDGET
        """How many unfrozen old objects bring the next old collection early (it follows their walking rate)."""
        self.early_old_collections = 0
        """Old collections brought early by the old generation's size rather than by the interval."""
        self.old_counts = 0
        """Counts of the old generation's unfrozen objects (each lists them all), to bring a step early."""
        self.full_seconds = full_seconds
        self.young_collections = 0
        """Young collections run by the schedule."""
        self.old_collections = 0
        """Collections of the old generation's unfrozen part run by the schedule."""
        self.full_collections = 0
        """Collections of the whole heap run by the schedule (the first one, at the start, not counted)."""
        self._pause = pause
        self._lateness = lateness
        self._started_at = 0.0
        self._task: asyncio.Task[None] | None = None
        self._give_back = False
        self._count_at = 0.0
        self._unfrozen_at_most = 0
        """An upper bound on the old generation's unfrozen objects: what the young collections promoted since the
        last step or count (some may have died since)."""

    def start(self) -> None:
        """Take over from the automatic collector, on the running loop, from its next turn: the first collection
        (of everything, before what exists is frozen) takes tens of ms, and must not delay what the caller does
        next, such as announcing its port."""
        if self._task is None:
            if self._pause is not None:
                gc.callbacks.append(self._timed)
            self._task = asyncio.get_running_loop().create_task(self._run(), name="truco-collector")

    async def __aenter__(self) -> CollectorSchedule:
        self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def stop(self) -> None:
        """Give the collector back to CPython as it was (what the schedule froze stays frozen)."""
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._timed)
        if self._give_back:
            self._give_back = False
            gc.enable()

    def _timed(self, phase: str, info: dict[str, int]) -> None:
        """gc.callbacks' hook: the pause of every collection, by generation."""
        if phase == "start":
            self._started_at = time.perf_counter()
        elif self._pause is not None:
            self._pause(info["generation"], time.perf_counter() - self._started_at)

    async def _run(self) -> None:
        gc.collect()
        gc.freeze()
        self._give_back = gc.isenabled()
        gc.disable()
        loop = asyncio.get_running_loop()
        old_at = time.monotonic() + self.old_seconds
        full_at = time.monotonic() + self.full_seconds
        self._count_at = time.monotonic() + COUNT_SECONDS
        while True:
            asleep = loop.time()
            await asyncio.sleep(self.young_seconds)
            if self._lateness is not None:
                self._lateness(max(0.0, loop.time() - asleep - self.young_seconds))
            now = time.monotonic()
            if now >= full_at:
                self._collect_all()
                old_at, full_at = now + self.old_seconds, now + self.full_seconds
            elif now >= old_at:
                self._collect_old(len(gc.get_objects(generation=2)))
                old_at = now + self.old_seconds
            elif (unfrozen := self._old_past_budget(now)) is not None:
                self._collect_old(unfrozen)  # early: counted just now, with nothing run in between
                old_at = now + self.old_seconds
            else:
                # The young generation with the (empty) middle one: survivors go to the old generation now.
                young = len(gc.get_objects(generation=0)) + len(gc.get_objects(generation=1))
                self._unfrozen_at_most += max(0, young - gc.collect(1))
                self.young_collections += 1

    def _old_past_budget(self, now: float) -> int | None:
        """The old generation's unfrozen objects when they may have passed the budget, it is time to count them,
        and they do pass it; else None."""
        if (PROMOTIONS_BOUND_OLD and self._unfrozen_at_most < self.old_budget) or now < self._count_at:
            return None
        self._count_at = now + COUNT_SECONDS
        unfrozen = self._unfrozen_at_most = len(gc.get_objects(generation=2))
        self.old_counts += 1
        if unfrozen < self.old_budget:
            return None
        self.early_old_collections += 1
        return unfrozen

    def _collect_old(self, walked: int) -> None:
        """Collect the young generation and the old one's unfrozen part (``walked`` objects), freeze the
        survivors, and set the next interval from the collection's CPU time (its wall time also counts the waits
        of a busy machine's scheduler, which a shorter interval would not shorten)."""
        began, cpu_began = time.perf_counter(), time.thread_time()
        gc.collect(2)
        cpu, seconds = time.thread_time() - cpu_began, time.perf_counter() - began
        gc.freeze()
        self._unfrozen_at_most = 0
        self.old_collections += 1
        interval = self.old_seconds
        self.old_seconds = next_old_interval(self.old_seconds, cpu, self.old_pause, self.old_bounds)
        self.old_budget = old_budget(walked, cpu, self.old_pause)
        if seconds > LONG_PAUSE:
            structlog.get_logger("truco.collector").info(
                "long old-generation step", seconds=round(seconds, 4), cpu_seconds=round(cpu, 4), interval=interval
            )

    def _collect_all(self) -> None:
        """Collect the whole heap, the frozen part too, then freeze its survivors again."""
        frozen = gc.get_freeze_count()
        gc.unfreeze()
        began, cpu_began = time.perf_counter(), time.thread_time()
        found = gc.collect(2)
        cpu, seconds = time.thread_time() - cpu_began, time.perf_counter() - began
        gc.freeze()
        self._unfrozen_at_most = 0
        self.full_collections += 1
        structlog.get_logger("truco.collector").info(
            "whole heap collected",
            seconds=round(seconds, 4),
            cpu_seconds=round(cpu, 4),
            unreachable=found,
            frozen_before=frozen,
        )


__all__ = [
    "COUNT_SECONDS",
    "FULL_SECONDS",
    "LONG_PAUSE",
    "MAX_OLD_BUDGET",
    "MIN_OLD_BUDGET",
    "OLD_BOUNDS",
    "OLD_PAUSE",
    "OLD_SECONDS",
    "PROMOTIONS_BOUND_OLD",
    "YOUNG_SECONDS",
    "CollectorSchedule",
    "Lateness",
    "Pause",
    "next_old_interval",
    "old_budget",
]
