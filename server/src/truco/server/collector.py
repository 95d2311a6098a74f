"""Python's garbage collector on a clock instead of on allocations, so that no collection pauses the event loop
for long.

CPython starts a young collection when the tracked objects allocated since the last one, less those freed,
pass a threshold. A server's freed objects are mostly old ones (the snapshot a move replaces, the message a
stream sent), so the count barely rises while the young generation fills with everything still waiting: parked
streams, their awaitables, the newest snapshots. At 850 two-player matches it held 145,000 objects when a
young collection finally ran, about every 10 s, and each such collection stopped the loop for 50-170 ms,
longer than the whole budget of a move's p99 (bench/README.md, "The collector on a clock").

Here the collector is driven by time: the young generation every :data:`YOUNG_SECONDS`, the middle one every
:data:`MIDDLE_EVERY` young collections, the whole heap every :data:`FULL_SECONDS`; what the start allocated
(modules, descriptors, connections) is frozen out of its sight. Each collection is then small: a few ms for the
young one, a few tens for the middle one, and the full one is rare.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time

YOUNG_SECONDS = 0.1
"""How often the young generation is collected: what a tenth of a second of play leaves alive."""
MIDDLE_EVERY = 10
"""The middle generation is collected instead of the young one every this many turns (once a second)."""
FULL_SECONDS = 600.0
"""How often the whole heap is collected: the garbage that outlived two collections (rare cycles: a finished
stream's, an exception's traceback) waits at most this long."""


class CollectorSchedule:
    """Runs the collector on a clock while started (or inside ``async with``); the automatic collector is off
    meanwhile."""

    def __init__(
        self,
        young_seconds: float = YOUNG_SECONDS,
        middle_every: int = MIDDLE_EVERY,
        full_seconds: float = FULL_SECONDS,
    ) -> None:
        if young_seconds <= 0 or middle_every < 1 or full_seconds <= 0:
            raise ValueError("the collector's intervals must be positive")
        self.young_seconds = young_seconds
        self.middle_every = middle_every
        self.full_seconds = full_seconds
        self.collections = [0, 0, 0]
        """Collections run by the schedule, per generation."""
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
        turn = 0
        full_at = time.monotonic() + self.full_seconds
        while True:
            await asyncio.sleep(self.young_seconds)
            turn += 1
            if time.monotonic() >= full_at:
                generation = 2
                full_at = time.monotonic() + self.full_seconds
            elif turn % self.middle_every == 0:
                generation = 1
            else:
                generation = 0
            gc.collect(generation)
            self.collections[generation] += 1


__all__ = ["FULL_SECONDS", "MIDDLE_EVERY", "YOUNG_SECONDS", "CollectorSchedule"]
