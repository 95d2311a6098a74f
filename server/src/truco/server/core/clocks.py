"""Turn clocks: the settings a game is created with, the clock book folded from the event log, and the
timekeeper that fires expired clocks.

Nothing here lives only in a process. Every stored event carries the time it was appended (``at_us``); the
:class:`ClockBook` is a fold over the log (one batch of events per append), so any replica rebuilds the same
clock from the store, and a restarted server loses none. The next deadline of each game is also kept in its
store record (``deadline_us``, indexed): the :class:`Timekeeper` of every replica asks the store for due
games and fires them; the firing is an ordinary append guarded by the game's last seq, so when two replicas
fire one clock, exactly one append is applied and the other finds the game moved on.

The engine never reads a clock: the time a clock ran out enters the log as data, in ``ClockExpired``.

The same book paces the stand-in (:class:`StandIn`): a seat whose player left or ran out of time is played by
the clock's bot one decision every few seconds, as a person would, for a grace period in which its player can
come back to the same match; its moves are fired by the timekeeper like a clock that ran out.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

import structlog

from truco.engine import MatchState, Phase, actors
from truco.engine import events as ev
from truco.server.store.interface import Deadlines
from truco.server.store.records import now_us

US = 1_000_000
DEFAULT_TAKEOVER_BOT = "heuristic"
"""The stand-in of a game with no bot seats whose clocks name no bot (the intermediate level)."""
STAND_IN_PACE_US = 3 * US
"""The stand-in's time per decision by default: a person's pace, so a match does not run away from its player."""
AWAY_GRACE_US = 300 * US
"""How long by default the stand-in plays at that pace after a seat went away."""
NOT_DECISIONS = (ev.SenaSent, ev.SeatLeft, ev.SeatResumed)
"""Events that make no decision of the match: a seña, a seat handed to its bot or taken back. An append of
nothing else neither restarts the running clock nor charges a reserve."""


@dataclass(frozen=True, slots=True)
class ClockSettings:
    """A game's turn clocks: ``decision_us`` per decision, a per-seat ``reserve_us`` for the whole match, and
    what expiry does: a ``bot`` takes the seat over (None: the game's level, see
    :meth:`truco.server.core.setups.Setup.takeover_bot`), or (``forfeit``) the seat's team concedes."""

    decision_us: int
    reserve_us: int = 0
    forfeit: bool = False
    bot: str | None = None

    @classmethod
    def seconds(cls, decision: float, reserve: float = 0.0, *, forfeit: bool = False) -> ClockSettings:
        return cls(round(decision * US), round(reserve * US), forfeit)


@dataclass(frozen=True, slots=True)
class StandIn:
    """How the server's bot plays a seat whose player is away (left, or ran out of time): one decision every
    ``pace_us`` for ``grace_us`` after the seat went away, so that its player, back within the grace, finds the
    same match; after it, at the bots' speed, so an empty table does not hold the others (the player may still
    take the seat back while the match lasts)."""

    pace_us: int = STAND_IN_PACE_US
    grace_us: int = AWAY_GRACE_US

    @classmethod
    def seconds(cls, pace: float, grace: float) -> StandIn:
        return cls(round(pace * US), round(grace * US))


@dataclass(frozen=True, slots=True)
class Clock:
    """The clock running now: the seats it times, when the decision started and when it runs out.
    ``stand_in``: it times the stand-in's move of an away seat (its pace), not a player's decision."""

    seats: tuple[int, ...]
    started_us: int
    deadline_us: int
    stand_in: bool = False


@dataclass(frozen=True, slots=True)
class SeatClock:
    """What the log says of one seat: whether a bot plays it, what is left of its reserve (None: none), and
    while a bot plays it, until when the stand-in keeps a person's pace for its player (None: not away)."""

    seat: int
    taken_over: bool
    reserve_left_us: int | None
    grace_until_us: int | None = None


@dataclass(frozen=True, slots=True)
class Clocks:
    """The clocks of a game at one version, as views show them: the clock running (if any) and each seat's."""

    running: Clock | None
    seats: tuple[SeatClock, ...]


NO_CLOCKS = Clocks(None, ())


@dataclass(frozen=True, slots=True)
class ClockBook:
    """What the clocks need from the log: when the last decision started (the last append of public events),
    which player seats the match has waited for since, how much of its reserve each seat has used, since when
    each away seat is away, and which away seats the match waits for when it waits for no player."""

    started_us: int = 0
    waiting: tuple[int, ...] = ()
    used_us: tuple[tuple[int, int], ...] = ()
    away_us: tuple[tuple[int, int], ...] = ()
    stand_ins: tuple[int, ...] = ()

    def used(self, seat: int) -> int:
        return dict(self.used_us).get(seat, 0)

    def grace_until(self, seat: int, stand_in: StandIn, now_us: int) -> int:
        """When the stand-in stops keeping a person's pace for ``seat`` (away from ``now_us`` if not known)."""
        return dict(self.away_us).get(seat, now_us) + stand_in.grace_us

    def paced(self, state: MatchState, stand_in: StandIn, now_us: int) -> frozenset[int]:
        """The away seats the stand-in plays at a person's pace at ``now_us``: those still in their grace (a
        seat just gone, not yet in the book, is)."""
        return frozenset(s for s in state.away if self.grace_until(s, stand_in, now_us) > now_us)

    def _away_after(self, at_us: int, events: Sequence[ev.Event]) -> tuple[tuple[int, int], ...]:
        away = dict(self.away_us)
        for event in events:
            if isinstance(event, ev.SeatLeft) or (isinstance(event, ev.ClockExpired) and not event.forfeit):
                away.setdefault(event.seat, at_us)
            elif isinstance(event, ev.SeatResumed):
                away.pop(event.seat, None)
        return tuple(sorted(away.items()))

    def advance(
        self,
        at_us: int,
        events: Sequence[ev.Event],
        state: MatchState,
        bots: Mapping[int, str],
        settings: ClockSettings | None,
        joined: Mapping[int, int],
    ) -> ClockBook:
        """The book after one append of ``events`` at ``at_us`` that left the match in ``state``.

        Only a decision restarts the clock: an append of :data:`NOT_DECISIONS` alone keeps when the running
        decision started. A decision that took longer than the decision time draws the excess from the reserve
        of the seat that made it (the first waited-for seat that acted, else the first waited-for seat).
        """
        if all(isinstance(event, ev.SenaSent) for event in events):
            return self  # a seña is not a decision, and rivals must not see it move any clock
        waiting: tuple[int, ...] = ()
        stand_ins: tuple[int, ...] = ()
        if state.phase is not Phase.MATCH_OVER:
            waiting = tuple(s for s in actors(state) if s not in bots and s not in state.away)
            if not waiting:  # a player to act comes first: bots never answer for a team a player can
                stand_ins = tuple(s for s in actors(state) if s in state.away)
        away = self._away_after(at_us, events)
        if all(isinstance(event, NOT_DECISIONS) for event in events):
            # The decision the match waits for is still to be made: its clock runs on from when it started
            # (a partner leaving and resuming every few seconds must not hold the waited-on seat's clock).
            return ClockBook(self.started_us, waiting, self.used_us, away, stand_ins)
        used = dict(self.used_us)
        if settings is not None and settings.reserve_us and self.waiting:
            start = self._start(joined)
            if start is not None:
                acted = [getattr(e, "seat", None) for e in events]
                seat = next((s for s in acted if s in self.waiting), self.waiting[0])
                excess = at_us - start - settings.decision_us
                if excess > 0:
                    used[seat] = min(settings.reserve_us, used.get(seat, 0) + excess)
        return ClockBook(at_us, waiting, tuple(sorted(used.items())), away, stand_ins)

    def _start(self, joined: Mapping[int, int]) -> int | None:
        """When the current decision's clock started: the last append, or the last join if the table filled up
        later; None until every seat has a player (clocks run only at a full table)."""
        times = list(joined.values())
        if not self.waiting or not times or min(times) == 0:
            return None
        return max(self.started_us, *times)

    def running(
        self, settings: ClockSettings | None, joined: Mapping[int, int], stand_in: StandIn | None = None
    ) -> Clock | None:
        """The clock running now, if any: a player's, or (given ``stand_in``) the stand-in's pace."""
        if not self.waiting and self.stand_ins and stand_in is not None:
            return Clock(self.stand_ins, self.started_us, self.started_us + stand_in.pace_us, stand_in=True)
        if settings is None or not self.waiting:
            return None
        start = self._start(joined)
        if start is None:
            return None
        reserve = max(settings.reserve_us - self.used(seat) for seat in self.waiting)
        return Clock(self.waiting, start, start + settings.decision_us + max(0, reserve))

    def reserve_left(self, settings: ClockSettings | None, seat: int) -> int | None:
        if settings is None or not settings.reserve_us:
            return None
        return max(0, settings.reserve_us - self.used(seat))

    def clocks(
        self,
        state: MatchState,
        settings: ClockSettings | None,
        joined: Mapping[int, int],
        stand_in: StandIn | None = None,
    ) -> Clocks:
        """What views show: the running clock (the stand-in's pace too, given ``stand_in``), and each seat's
        takeover, reserve and grace (nothing in a game without clocks where no seat was ever taken over)."""
        if settings is None and not state.away:
            return NO_CLOCKS
        since = dict(self.away_us)
        seats = tuple(
            SeatClock(
                seat,
                seat in state.away,
                self.reserve_left(settings, seat),
                since[seat] + stand_in.grace_us if stand_in is not None and seat in since else None,
            )
            for seat in range(state.rules.players)
        )
        return Clocks(self.running(settings, joined, stand_in), seats)


def fold_batches(
    book: ClockBook,
    batches: Sequence[tuple[int, Sequence[ev.Event], MatchState]],
    bots: Mapping[int, str],
    settings: ClockSettings | None,
    joined: Mapping[int, int],
) -> ClockBook:
    """The book after each (time, events, state after them) batch in turn."""
    for at_us, events, state in batches:
        book = book.advance(at_us, events, state, bots, settings, joined)
    return book


# --- The timekeeper -----------------------------------------------------------------------------------------

Fire = Callable[[str], Awaitable[bool]]
"""Fire a game's clock if it is due: True when this call's firing was applied."""


LOOKING = 2**63
"""The timekeeper's next look while it is looking: every deadline set meanwhile wakes it again."""


class Alarm:
    """How the moves of this process tell the timekeeper of the deadlines they set: it looks again at once for
    a deadline before its next look (:meth:`ring`), and only then. Made before the game application and the
    timekeeper, so that each is built with it and neither needs the other."""

    def __init__(self) -> None:
        self._rung = asyncio.Event()
        self.next_look_us = LOOKING
        """When the timekeeper looks next (LOOKING: it is looking, or about to)."""

    def ring(self, deadline_us: int | None = None) -> None:
        """A deadline was set here: look again now if it falls before the next look (None: look again now).
        Turn clocks run for seconds while the timekeeper looks at least every ``idle_seconds``, so most moves
        ring nothing (a store query per move would cost more than the move's own append)."""
        if deadline_us is None or deadline_us < self.next_look_us:
            self._rung.set()

    def reset(self) -> None:
        self._rung.clear()

    async def wait(self) -> None:
        await self._rung.wait()


@dataclass
class TimekeeperStats:
    fired: int = 0
    lost: int = 0


class Timekeeper:
    """Fires expired clocks, on every replica: asks the store for due games, fires each (an append guarded by
    the game's last seq), then sleeps until the next known deadline, at most ``idle_seconds``; a local append
    that sets an earlier deadline rings its :class:`Alarm`. Other replicas' deadlines are seen within
    ``idle_seconds`` (their own timekeepers fire them on time). At start it looks at once: clocks that ran
    out while no server was up fire then.

    ``housekeeping`` (closing abandoned games, removing old ones) runs every ``housekeeping_seconds``.
    """

    def __init__(
        self,
        store: Deadlines,
        fire: Fire,
        *,
        alarm: Alarm | None = None,
        idle_seconds: float = 1.0,
        housekeeping: Callable[[], Awaitable[None]] | None = None,
        housekeeping_seconds: float = 30.0,
        batch: int = 100,
    ) -> None:
        self.store = store
        self.fire = fire
        self.idle_seconds = idle_seconds
        self.housekeeping = housekeeping
        self.housekeeping_seconds = housekeeping_seconds
        self.batch = batch
        self.stats = TimekeeperStats()
        self.alarm = alarm or Alarm()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self._next_housekeeping = 0.0
        self._backoff: dict[str, int] = {}
        self._log = structlog.get_logger("truco.server.core.clocks")

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="truco-timekeeper")

    async def stop(self) -> None:
        """Stop the loop and wait for it: it checks ``_stopping`` before every tick too, so a cancellation lost
        in a race (a ring of the alarm in the same loop step) cannot keep it, and the server's shutdown behind it,
        running."""
        self._stopping = True
        self.alarm.ring()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._stopping:
            self.alarm.reset()  # before looking: a deadline set while it looks makes it look again at once
            try:
                wait = await self.tick()
                if self.housekeeping is not None and loop.time() >= self._next_housekeeping:
                    self._next_housekeeping = loop.time() + self.housekeeping_seconds
                    await self.housekeeping()
            except asyncio.CancelledError:
                raise
            except Exception:  # a store outage: keep trying, the clocks are in the store
                self._log.warning("timekeeper tick failed", exc_info=True)
                wait = self.idle_seconds
            if self._stopping:
                return
            self.alarm.next_look_us = now_us() + round(max(0.0, wait) * US)
            # asyncio.timeout, not asyncio.wait_for: on Python 3.11, wait_for returns normally when it is
            # cancelled in the loop step its awaitable finishes (a ring then), and the cancellation is lost.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, wait)):
                    await self.alarm.wait()
            self.alarm.next_look_us = LOOKING  # a deadline set while it looks may be missed by that look: ring again

    async def tick(self) -> float:
        """Fire every due clock; the seconds until the next known deadline (at most ``idle_seconds``)."""
        now = now_us()
        due, following = await self.store.due_games(now, self.batch)
        tried = 0
        for game_id in due:
            if self._backoff.get(game_id, 0) > now:
                continue
            tried += 1
            try:
                if await self.fire(game_id):
                    self.stats.fired += 1
                else:
                    self.stats.lost += 1
                self._backoff.pop(game_id, None)
            except Exception:  # one broken game must not stop the others' clocks
                self._log.warning("clock firing failed", game=game_id, exc_info=True)
                self._backoff[game_id] = now + 5 * US
        if len(due) == self.batch and tried:
            return 0.0
        if len(self._backoff) > 10_000:
            self._backoff = {g: t for g, t in self._backoff.items() if t > now}
        if following is None:
            return self.idle_seconds
        return min(self.idle_seconds, (following - now_us()) / US)


__all__ = [
    "NO_CLOCKS",
    "Alarm",
    "Clock",
    "ClockBook",
    "ClockSettings",
    "Clocks",
    "SeatClock",
    "StandIn",
    "Timekeeper",
    "fold_batches",
]
