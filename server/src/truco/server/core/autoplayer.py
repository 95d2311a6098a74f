"""The autoplayer: the stretches of a match in which only the server's bots play, in bounded steps.

A move that leaves a match waiting for bots only (a seat taken over, every seat away, a game of bots) does not
play it to the end inside the request: the game is queued here (:class:`BotTurns`), and the autoplayer plays one
step of at most ``referee.AUTOMATIC_MOVES_PER_STEP`` moves per queued game in turn, each step one commit, then
pauses at least as long as the step took, so such matches get at most half of the process's time whatever their
number. A bot that thinks (the expert) is asked in a process pool (:mod:`truco.server.core.thinking`), never on the
event loop. Any replica that reads such a game queues it: one left half-played by a replica that stopped goes
on as soon as someone watches or views it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
import traceback

import structlog

from truco.engine import events as ev
from truco.engine import execute_legal
from truco.server.core.bounded import Bounded
from truco.server.core.commits import Commits
from truco.server.core.referee import bots_due, bots_only, thinker_due
from truco.server.core.snapshots import Snapshot, Snapshots
from truco.server.core.thinking import Thinkers
from truco.server.store.errors import VersionConflict
from truco.server.store.records import now_us

PAUSE_SECONDS = 0.005
"""The autoplayer's shortest pause between two steps. It also pauses at least as long as the step took, so
matches between bots only get at most half of the process's time, whatever their number: callers keep the
rest. A step's wait for a thinking bot counts in a match nobody sits at, so such matches get at most half of the
thinking pool too; in a match a player sits at, the player is waiting for that move, and the pause makes up only
for the rest of the step."""


def paced(snapshot: Snapshot) -> frozenset[int]:
    """The game's away seats whose stand-in keeps a person's pace now (the timekeeper plays those)."""
    return snapshot.book.paced(snapshot.state, snapshot.setup.pace, now_us())


CREATORS_KEPT = 65_536
"""Games whose creator the queue remembers (the latest created on this process); any other counts as nobody's."""


class BotTurns:
    """The games waiting for the server's bots, each queued once until the autoplayer takes it.

    Games a person sits at (a bot rival or partner to move while the person waits) come first, so that however
    many matches of bots only run, a player's bot answers after at most the decision under way. Matches of bots
    only share what is left by their creator in turn (an API key, or an address when anonymous): one step of one
    game of each creator before any creator's next, so no caller's many games slow another's few."""

    def __init__(self) -> None:
        self._people: collections.deque[str] = collections.deque()
        self._bots: dict[str, collections.deque[str]] = {}
        """Each creator's games of bots only waiting, by creator."""
        self._turn: collections.deque[str] = collections.deque()
        """The creators with games of bots only waiting, the next to be served first."""
        self._creators: Bounded[str, str] = Bounded(CREATORS_KEPT)
        self._queued: set[str] = set()
        self._ready = asyncio.Event()
        self._person_waits = asyncio.Event()
        self.closed = False

    def created(self, game_id: str, creator: str) -> None:
        """``game_id`` was created by ``creator`` (whom quotas charge): its matches of bots only take its turns."""
        self._creators.put(game_id, creator)

    def offer(self, game_id: str, snapshot: Snapshot) -> None:
        """Queue the game if it waits for the server's bots (a deal, or bots only; not a paced stand-in, which
        the timekeeper plays). Never for the first deal: that is CreateGame's, or the join's that fills the table
        (a table waiting for friends waits for no bot; queued, it would be stepped on every read of it)."""
        if self.closed or game_id in self._queued or snapshot.state.hands_dealt == 0:
            return
        if not bots_due(snapshot.state, snapshot.setup, paced(snapshot)):
            return
        self._queued.add(game_id)
        if bots_only(snapshot.state, snapshot.setup):
            creator = self._creators.peek(game_id) or ""
            waiting = self._bots.get(creator)
            if waiting is None:
                waiting = self._bots[creator] = collections.deque()
                self._turn.append(creator)
            waiting.append(game_id)
        else:
            self._people.append(game_id)
            self._person_waits.set()
        self._ready.set()

    async def next(self) -> str:
        while not (self._people or self._turn):
            self._ready.clear()
            await self._ready.wait()
        game_id = self._people.popleft() if self._people else self._next_of_bots()
        self._queued.discard(game_id)
        return game_id

    def _next_of_bots(self) -> str:
        creator = self._turn.popleft()
        waiting = self._bots[creator]
        game_id = waiting.popleft()
        if waiting:
            self._turn.append(creator)
        else:
            del self._bots[creator]
        return game_id

    async def rest(self, seconds: float) -> None:
        """Pause ``seconds``, or less if a game a person sits at is queued meanwhile: the pause keeps matches of
        bots only from taking the process, never a person waiting for a bot."""
        if self._people:
            return
        self._person_waits.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._person_waits.wait()

    def __len__(self) -> int:
        return len(self._people) + sum(len(waiting) for waiting in self._bots.values())


class Autoplayer:
    """Plays the queued games' bot-only stretches, one step per game in turn."""

    def __init__(self, turns: BotTurns, snapshots: Snapshots, commits: Commits, thinkers: Thinkers) -> None:
        self.turns = turns
        self._snapshots = snapshots
        self._commits = commits
        self.thinkers = thinkers
        self._task: asyncio.Task[None] | None = None
        self._log = structlog.get_logger("truco.server")

    def start(self) -> None:
        """Start playing the games queued, and those queued later (the task waits for them at no cost)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="truco-autoplayer")

    async def _run(self) -> None:
        while not self.turns.closed:
            game_id = await self.turns.next()
            started = time.perf_counter()
            waited = 0.0
            try:
                waited = await self.step(game_id)
            except Exception as error:  # a store outage or a bug: the game resumes when it is next looked at
                self._log.error(
                    "autoplay step failed",
                    game=game_id,
                    error=repr(error),
                    traceback="".join(traceback.format_exception(error)),
                )
            await self.turns.rest(max(PAUSE_SECONDS, time.perf_counter() - started - waited))

    async def step(self, game_id: str) -> float:
        """Play one step of a game waiting for bots. Losing the append to another replica or to a seat's move is
        fine: the next look decides again. The seconds of the step the pause need not make up for: its wait for a
        thinking bot when a player sits at the table (see :data:`PAUSE_SECONDS`)."""
        snapshot = await self._snapshots.get(game_id)
        stand_ins = paced(snapshot)
        if not bots_due(snapshot.state, snapshot.setup, stand_ins):
            return 0.0
        state = snapshot.state.copy()
        events: list[ev.Event] = []
        waited = 0.0
        thinker = thinker_due(state, snapshot.setup, stand_ins)
        if thinker is not None:  # one move of a bot that thinks, asked off the event loop (thinking.py)
            asked = time.perf_counter()
            events = execute_legal(state, await self.thinkers.decide(state, *thinker))  # one of its legal actions
            if not bots_only(snapshot.state, snapshot.setup):
                waited = time.perf_counter() - asked
        try:
            await self._commits.commit(game_id, snapshot, state, events, bot_moves=1 if events else 0)
        except VersionConflict:
            await self._snapshots.get(game_id)  # re-read; queues the game again if it still waits for bots
        return waited

    async def close(self) -> None:
        """Stop playing (a step under way is dropped: any replica takes the game up when it is next read)."""
        self.turns.closed = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.thinkers.close()


__all__ = ["PAUSE_SECONDS", "Autoplayer", "BotTurns", "paced"]
