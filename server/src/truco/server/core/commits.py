"""The one way a game moves on: a commit. A seat's move, a referee's decision (a clock that ran out, a player
who left or came back) and an autoplayer's step all end here, in the same order:

1. the server's bots move and the next hand is dealt, while only the server is awaited (:func:`referee.drive`);
2. the clock book advances and gives the game's next deadline;
3. the reply, if the move has one, is encoded with the clocks after it (stored with the move, for retries);
4. the events are appended atomically, guarded by the snapshot's last seq (else :class:`VersionConflict`);
5. the new snapshot is cached, the timekeeper hears of the deadline and the autoplayer of bots that are due.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from truco.engine import MatchState, Phase, audience
from truco.engine import events as ev
from truco.server.core.clocks import Alarm, ClockBook, Clocks
from truco.server.core.encodings import EventCodec
from truco.server.core.metrics import Metrics
from truco.server.core.referee import drive
from truco.server.core.seats import Seats
from truco.server.core.snapshots import Loaded, Snapshot, Snapshots, tail
from truco.server.store.interface import GameLog
from truco.server.store.records import AppendResult, NewEvent, now_us

Reply = Callable[[Sequence[ev.Event], MatchState, Clocks, dict[Hashable, object]], bytes]
"""Encodes the answer to a move from all its events (the bots' and deals' included), the state and clocks after;
what it derives may go in the last argument, the memo of the snapshot the commit makes (Snapshot.memo)."""


@dataclass(frozen=True, slots=True)
class Committed:
    """What a commit stored: the snapshot after it, its events, and the store's answer (``response``: the reply
    stored with the request id). When that id was applied before (``result.replayed``), the store's answer is the
    first one's and nothing was stored: the snapshot is the one the commit started from, with no events."""

    snapshot: Snapshot
    events: tuple[ev.Event, ...]
    result: AppendResult
    reply: bytes


class Commits:
    """Appends what a game's moves decided, with everything that follows from them."""

    def __init__(
        self,
        store: GameLog,
        events: EventCodec,
        snapshots: Snapshots,
        seats: Seats,
        metrics: Metrics,
        alarm: Alarm,
        committed: Loaded,
        rng: random.Random,
    ) -> None:
        self.store = store
        self._events = events
        self._snapshots = snapshots
        self._seats = seats
        self._metrics = metrics
        self._alarm = alarm
        self._committed = committed
        self._rng = rng
        self._bot_moves = metrics.commands_applied.labels("bot")
        self._append_latency = metrics.store_latency.labels("append")

    async def commit(
        self,
        game_id: str,
        base: Snapshot,
        state: MatchState,
        events: Sequence[ev.Event],
        *,
        request_id: str | None = None,
        reply: Reply | None = None,
        bot_moves: int = 0,
    ) -> Committed | None:
        """Commit ``events``, which took ``base``'s state to ``state`` (mutated further by the bots' moves).

        :returns: None when nothing at all was decided (no events, no bot to move).
        :raises VersionConflict: the game moved on since ``base``: nothing was written.
        """
        paced = base.book.paced(state, base.setup.pace, now_us())
        automatic, moved = drive(state, base.setup, self._rng, paced, seated=await self._seated(game_id, state))
        decided = (*events, *automatic)
        if not decided:
            return None
        at = now_us()
        epoch = self.store.hearing_epoch()  # before the append: a gap in hearing from here on voids the check
        book, deadline = await self._book_after(game_id, base, at, decided, state)
        encoded = b""
        memo: dict[Hashable, object] = {}
        if reply is not None:
            clocks = book.clocks(state, base.setup.clock, self._seats.joined_now(game_id), base.setup.pace)
            encoded = reply(decided, state, clocks, memo)
        result = await self._append(game_id, base.seq, decided, request_id, encoded, state, at, deadline)
        if result.replayed:
            # The request id was applied by an earlier try: the store kept that try's events and wrote none of
            # these. What this try decided was never committed, so nothing of it is cached, counted or clocked (a
            # command can be legal again on the state its first try made: a mazo, then the next hand's).
            return Committed(base, (), result, encoded)
        self._bot_moves.inc(bot_moves + moved)
        self.counted(decided)
        if deadline is not None:
            self._alarm.ring(deadline)
        after = Snapshot(base.setup, result.last_seq, state, tail(base.events + decided), book, memo)
        # No await from here to the return: the snapshot is cached before the watchers the append woke resume,
        # so they send it without a store read (Games.watch).
        self._snapshots.appended(game_id, after, epoch)
        self._committed(game_id, after)
        return Committed(after, decided, result, encoded)

    async def _seated(self, game_id: str, state: MatchState) -> bool:
        """Whether the match may deal: once dealt it always may (a seat taken stays taken); before its first
        deal, only when every seat has a player or a bot (the store is read while one looks open)."""
        if state.hands_dealt:
            return True
        return min((await self._seats.joined(game_id, (0,))).values(), default=1) > 0

    async def _book_after(
        self, game_id: str, base: Snapshot, at: int, events: Sequence[ev.Event], state: MatchState
    ) -> tuple[ClockBook, int | None]:
        """The clock book after appending ``events`` at ``at``, and the game's next deadline (a player's clock,
        or the stand-in's pace: games without clocks have that one too)."""
        setup = base.setup
        timed = setup.clock is not None
        joined = await self._seats.joined(game_id, base.book.waiting) if timed else {}
        book = base.book.advance(at, events, state, setup.playing(state), setup.clock, joined)
        if timed:
            joined = await self._seats.joined(game_id, book.waiting)
        clock = book.running(setup.clock, joined, setup.pace)
        return book, clock.deadline_us if clock is not None else None

    async def _append(
        self,
        game_id: str,
        expected_seq: int,
        events: Sequence[ev.Event],
        request_id: str | None,
        response: bytes,
        state: MatchState,
        at_us: int,
        deadline_us: int | None,
    ) -> AppendResult:
        started = time.perf_counter()
        over = state.phase is Phase.MATCH_OVER
        records = self.records(events, at_us)
        try:
            return await self.store.append(game_id, expected_seq, records, request_id, response, over, deadline_us)
        finally:
            self._append_latency.observe(time.perf_counter() - started)

    def records(self, events: Sequence[ev.Event], at_us: int = 0) -> list[NewEvent]:
        """The events as the store keeps them, each with the engine's :func:`~truco.engine.audience` and the
        time they were appended (the clocks' data)."""
        out = []
        for event in events:
            kind, schema, payload = self._events.encode(event)
            out.append(NewEvent(kind, schema, payload, audience(event), at_us))
        return out

    def counted(self, events: Sequence[ev.Event]) -> None:
        """Metrics of stored events: how many, and the matches they finished."""
        self._metrics.events_appended.inc(len(events))
        if any(isinstance(event, ev.MatchEnded) for event in events):
            self._metrics.matches_finished.inc()


__all__ = ["Commits", "Committed", "Reply"]
