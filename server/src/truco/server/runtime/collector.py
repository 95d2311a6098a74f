"""Python's garbage collector on a clock instead of on allocations, so that no collection pauses the event loop
for long.

CPython starts a young collection when the tracked objects allocated since the last one, less those freed,
pass a threshold. A server's freed objects are mostly old ones (the snapshot a move replaces, the message a
stream sent), so the count barely rises while the young generation fills with everything still waiting: parked
streams, their awaitables, the newest snapshots. At 850 two-player matches it held 145,000 objects when a
young collection finally ran, about every 10 s, and each such collection stopped the loop for 50-170 ms,
longer than the whole budget of a move's p99 (bench/journal/2026-12-02-collector-on-a-clock.md).

Here the collector is driven by time: the young generation every :data:`YOUNG_SECONDS`, the whole heap every
:data:`FULL_SECONDS`; what the start allocated (modules, descriptors, connections) is frozen out of its sight.
What survives a young collection goes straight to the old generation. CPython's middle generation, collected
once a second, held a whole second's survivors and stopped the loop for 27-73 ms at 1,300 matches. Promoting
them at once leaves little garbage for later, because what lives a twentieth of a second here mostly lives for
minutes (a parked stream, a game's state): after two minutes at 1,300 matches the full collection found 182
objects, against 126 with the middle generation (one sample). What cyclic garbage does outlive a young
collection waits for the full one, so it is bounded by its rate over :data:`FULL_SECONDS`. The young collection
takes a few ms; the full one walks the whole heap (250-450 ms at 1,300 matches), every 10 minutes.

On Python 3.14, whose collector is incremental, ``gc.collect(1)`` is the young generation and an increment of
the old one, with no middle generation either: the same schedule holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time

YOUNG_SECONDS = 0.05
"""How often the young generation is collected: what a twentieth of a second of play leaves alive. Twice as often
as the 0.1 s it was halves each pause (p50 3 against 7-8 ms at 2,500 two-player matches) and costs less in all
(1.7 against 2.2 s of every 31): a young generation's walk grows faster than its size. The survivors
are promoted to the old generation at once (``gc.collect(1)`` with the middle generation always empty)."""
FULL_SECONDS = 600.0
"""How often the whole heap is collected: the garbage that outlived a young collection (rare cycles: a finished
stream's, an exception's traceback) waits at most this long."""


class CollectorSchedule:
    """Runs the collector on a clock while started (or inside ``async with``); the automatic collector is off
    meanwhile."""

    def __init__(
        self,
        young_seconds: float = YOUNG_SECONDS,
        full_seconds: float = FULL_SECONDS,
    ) -> None:
        if young_seconds <= 0 or full_seconds <= 0:
            raise ValueError("the collector's intervals must be positive")
        self.young_seconds = young_seconds
        self.full_seconds = full_seconds
        self.young_collections = 0
        """Young collections run by the schedule."""
        self.full_collections = 0
        """Collections of the whole heap run by the schedule (the first one, at the start, not counted)."""
        self._task: asyncio.Task[None] | None = None
        self._give_back = False

    def start(self) -> None:
        """Take over from the automatic collector, on the running loop, from its next turn: the first collection
        (of everything, before what exists is frozen) takes tens of ms, and must not delay what the caller does
        next, such as installing its signal handlers (a SIGTERM before them would kill the process unlogged)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="truco-collector")

    async def __aenter__(self) -> CollectorSchedule:
        self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def stop(self) -> None:
        """Give the collector back to CPython as it was."""
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        if self._give_back:
            self._give_back = False
            gc.enable()

    async def _run(self) -> None:
        gc.collect()
        gc.freeze()
        self._give_back = gc.isenabled()
        gc.disable()
        full_at = time.monotonic() + self.full_seconds
        while True:
            await asyncio.sleep(self.young_seconds)
            if time.monotonic() >= full_at:
                gc.collect(2)
                self.full_collections += 1
                full_at = time.monotonic() + self.full_seconds
            else:
                # The young generation with the (empty) middle one: survivors go to the old generation now.
                gc.collect(1)
                self.young_collections += 1


__all__ = ["FULL_SECONDS", "YOUNG_SECONDS", "CollectorSchedule"]
