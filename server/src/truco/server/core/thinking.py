"""Bots that think decide in a bounded process pool, off the event loop.

The expert bot searches for tens of milliseconds a move (``truco.bots.THINKING_BOTS``). Played inside a request,
or even in a thread (which holds the interpreter's lock while it searches), it would stall every other game the
process serves. So the referee never plays it (:func:`truco.server.core.referee.drive` stops before its move) and
the autoplayer asks :class:`Thinkers` instead: the match state goes to a worker process, which shows the bot the
seat's view only (:func:`truco.bots.choose_for`) and sends back its command. The pool is small and started on
first use, so a server whose games have no thinking bot never starts it, and a burst of expert games queues for
its cores instead of taking the event loop's.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from truco.bots import choose_for
from truco.engine import MatchState, SeatCommand

THINKING_PROCESSES = 1
"""Worker processes of a server process's pool: at most this many cores go to thinking bots at once."""


class Thinkers:
    """A process pool that asks thinking bots for their moves."""

    def __init__(self, processes: int = THINKING_PROCESSES, seed: int | None = None) -> None:
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None
        self._rng = random.Random(seed)

    async def decide(self, state: MatchState, seat: int, bot: str) -> SeatCommand:
        """The move ``bot`` makes for ``seat`` of ``state`` (one of its legal actions), thought in the pool.

        A pool whose worker died (killed, out of memory) is broken for good: it is replaced, and the move asked
        once more of the new one. :raises BrokenProcessPool: when the new one breaks too."""
        seed = self._rng.getrandbits(64)
        try:
            return await self._ask(state, seat, bot, seed)
        except BrokenProcessPool:
            return await self._ask(state, seat, bot, seed)  # in a new pool

    async def _ask(self, state: MatchState, seat: int, bot: str, seed: int) -> SeatCommand:
        pool = self._started()
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, choose_for, state, seat, bot, seed)
        except BrokenProcessPool:
            if self._pool is pool:
                self.close()  # the next ask starts a new one
            raise

    def _started(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn, not fork: a forked copy of a process running gRPC's threads is not safe.
            self._pool = ProcessPoolExecutor(self.processes, mp_context=multiprocessing.get_context("spawn"))
        return self._pool

    def close(self) -> None:
        """Stop the pool's processes (a decision under way is dropped: the autoplayer asks again later)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
