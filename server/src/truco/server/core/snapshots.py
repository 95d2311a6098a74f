"""Rebuilt games: a bounded cache of match states, each keyed by the last event it folds, topped up from the
store on every read, so a move costs the same late in a match as early and any replica answers any request.

A read that names a version the caller has seen (``min_version``) is answered from memory when the store vouches
for the cache: the store's notifications (PostgreSQL's LISTEN) have heard every append since the snapshot was
last checked, with no gap (:meth:`~truco.server.store.EventStore.hearing_epoch`) and none past it, within
the last :data:`TRUST_SECONDS`. The cache is only ever a copy: dropping any entry changes no answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace

from truco.engine import MatchState, evolve
from truco.engine import events as ev
from truco.server.core.bounded import Bounded
from truco.server.core.clocks import ClockBook
from truco.server.core.encodings import EventCodec
from truco.server.core.metrics import Metrics
from truco.server.core.quotas import memory_limit
from truco.server.core.seats import Seats
from truco.server.core.setups import LegacySetup, Setup, setup_from_bytes
from truco.server.store.interface import GameLog
from truco.server.store.records import StoredEvent

TRUST_SECONDS = 2.0
"""How long a check against the store vouches for a cached game on notifications alone. A notification
connection can die without an error for a while (a silent network fault); a reader then waits at most this long
for a move made on another replica, and a watch that went to sleep on this vouching at most this and the store's
``recheck_seconds``."""
CACHE_ENTRIES = 16_384
"""The most games a process keeps rebuilt: what bounds its memory if many games stop midway (about 25-30 KiB a
game of two). A move of a game not kept reads its whole log from the store and replays it, so this must exceed the
games in play on one process by far: the 2,048 kept before were missed on nearly every move past about 2,100
two-player matches (a quarter more CPU per move at 2,500, bench/journal/2026-12-02-game-cache-knee.md)."""
SNAPSHOT_BYTES = 8 * 1024
EVENT_BYTES = 320
"""What a cached game weighs: about this much for its state and views, and this much for each event it keeps
(measured with tracemalloc: 25-30 KiB for a short two-player match, about 265 KiB for one of 70 hands when every
event was kept; :data:`TAIL_EVENTS` now holds any game under about 90 KiB)."""
MEMORY_SHARE = 8
"""The cache may weigh at most an eighth of the memory the process may use (:func:`~.quotas.memory_limit`): a
few callers leaving long matches half-played cannot fill the process's memory with them."""
TAIL_EVENTS = 128
"""The events a cached game keeps: at least its last this many, at most twice as many (cut once they reach that,
so a move copies no more than a short tuple). Readers that need older events (a watch that starts, or one that
fell behind the tail) read them from the store (:meth:`Snapshots.reaching`): a match of 70 hands weighs what a
match of 10 does."""
FINISHED_ENTRIES = 1024
"""The most finished games a process keeps, the latest: their last watchers and readers find them, and the cache
holds the games in play, not every game the process saw end."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A game's state rebuilt up to event ``seq``. Never mutated: newer events make a new snapshot."""

    setup: Setup
    seq: int
    state: MatchState
    events: tuple[ev.Event, ...]
    book: ClockBook = field(default_factory=ClockBook)
    memo: dict[Hashable, object] = field(default_factory=dict, compare=False, repr=False)
    """What the doors derive from this snapshot (a seat's view projected and serialized, a watch message), kept
    with it so that every reply and stream that needs it reuses it: it is dropped with the snapshot."""

    @property
    def first_seq(self) -> int:
        """The seq of the event before ``events[0]``: a cached game keeps only its last events (:func:`tail`)."""
        return self.seq - len(self.events)

    def events_after(self, seq: int) -> tuple[ev.Event, ...] | None:
        """The events past ``seq`` (a seq this snapshot reaches); None when they start before the events kept."""
        start = seq - self.first_seq
        return self.events[start:] if start >= 0 else None


def tail(events: tuple[ev.Event, ...]) -> tuple[ev.Event, ...]:
    """The events a cached game keeps (:data:`TAIL_EVENTS`)."""
    return events[-TAIL_EVENTS:] if len(events) >= 2 * TAIL_EVENTS else events


Loaded = Callable[[str, Snapshot], None]
"""Told of every snapshot read or made (the autoplayer's cue: a game may wait for the server's bots)."""


class Snapshots:
    """The cache of rebuilt games over the store."""

    def __init__(
        self,
        store: GameLog,
        events: EventCodec,
        legacy_setup: LegacySetup,
        seats: Seats,
        metrics: Metrics,
        loaded: Loaded,
        *,
        size: int = CACHE_ENTRIES,
        finished_size: int = FINISHED_ENTRIES,
        budget_bytes: int | None = None,
    ) -> None:
        self.store = store
        self._events = events
        self._legacy_setup = legacy_setup
        self._seats = seats
        self._loaded_hook = loaded
        self.budget_bytes = memory_limit() // MEMORY_SHARE if budget_bytes is None else budget_bytes
        """What the cached games weigh together (:func:`weight`)."""
        self._cache: Bounded[str, Snapshot] = Bounded(
            size, weigh=weight, budget=self.budget_bytes, evicted=lambda game_id, _: self._evicted(game_id)
        )
        # The finished games of _cache, held to a bound of their own: past it, the oldest leaves the cache.
        self._finished: Bounded[str, bool] = Bounded(finished_size, evicted=lambda game_id, _: self._drop(game_id))
        # What makes a cached snapshot current without a store read (see vouches): when it was last checked
        # against the store, and the newest seq the store's notifications told of since. Kept only for games
        # cached or being loaded, so both stay as small as the cache.
        self._checked: dict[str, tuple[int, float]] = {}
        self._heard_seq: dict[str, int] = {}
        self._loading: dict[str, int] = {}
        self._read_latency = metrics.store_latency.labels("read")
        self._rebuilt = metrics.games_rebuilt
        store.on_append(self._on_append)

    def cached(self, game_id: str) -> Snapshot | None:
        """The cached snapshot, which may be behind the store (a move's first try: the append checks)."""
        return self._cache.peek(game_id)

    async def get(self, game_id: str, min_version: int = 0) -> Snapshot:
        """The game's latest state: the cached snapshot topped up with the events stored since.

        With ``min_version`` (a public version the caller has seen), a cached snapshot at least that new which
        the store's notifications vouch for is returned as it is, without a store read.
        """
        cached = self._cache.peek(game_id)
        if cached is not None and 0 < min_version <= cached.state.version and self.vouches(game_id, cached):
            self._cache.get(game_id)  # now the most recently used
            self._loaded_hook(game_id, cached)
            return cached
        # Taken before the read: notifications heard from here on are recorded against what the read returns.
        epoch, trusted_until = self.store.hearing_epoch(), time.monotonic() + TRUST_SECONDS
        self._loading[game_id] = self._loading.get(game_id, 0) + 1
        try:
            snapshot = await self._top_up(game_id, cached)
            if epoch is None:
                self._checked.pop(game_id, None)  # notifications may have been missed during this read
            else:
                self._checked[game_id] = (epoch, trusted_until)
        finally:
            # After _top_up cached the snapshot, so what was heard during the read stays recorded with it.
            self._loaded(game_id)
        self._loaded_hook(game_id, snapshot)
        return snapshot

    def read_setup(self, data: bytes) -> Setup:
        return setup_from_bytes(data, self._legacy_setup)

    async def _top_up(self, game_id: str, cached: Snapshot | None) -> Snapshot:
        """``cached`` (or the game from its start) with the events stored after it, remembered in the cache."""
        fresh = cached is None
        if cached is None:
            self._rebuilt.inc()
            record = await self.store.get_game(game_id)
            cached = Snapshot(self.read_setup(record.rules), 0, MatchState(), ())
        stored = await self._timed_read(game_id, cached.seq)
        if not stored:
            self.remember(game_id, cached)
            return cached
        state = cached.state.copy()
        new_events: list[ev.Event] = []
        book = cached.book
        setup = cached.setup
        if not fresh and not cached.state.hands_dealt:
            # A table waiting for friends may have been started with bots (Games.start_with_bots) since it was
            # cached: its stored setup names them now. Read once per game and process, at its first deal.
            setup = self.read_setup((await self.store.get_game(game_id)).rules)
        joined = await self._seats.joined(game_id, (0,)) if setup.clock is not None else {}
        batch: list[ev.Event] = []
        for index, item in enumerate(stored):
            event = self._events.decode(item.kind, item.schema, item.payload)
            evolve(state, event)
            new_events.append(event)
            batch.append(event)
            # One append shares one time: the clock book advances once per append, after its last event.
            if index + 1 == len(stored) or stored[index + 1].at_us != item.at_us:
                book = book.advance(item.at_us, batch, state, setup.playing(state), setup.clock, joined)
                batch = []
        snapshot = Snapshot(setup, stored[-1].seq, state, tail(cached.events + tuple(new_events)), book)
        self.remember(game_id, snapshot)
        return snapshot

    async def reaching(self, snapshot: Snapshot, game_id: str, seq: int) -> Snapshot:
        """``snapshot`` with its events from past ``seq`` on: itself when it keeps them, else a copy (with the same
        memo) whose older events were read from the store. Never cached: the cache keeps the tail."""
        if snapshot.first_seq <= seq:
            return snapshot
        stored = await self._timed_read(game_id, seq)
        older = tuple(
            self._events.decode(item.kind, item.schema, item.payload)
            for item in stored
            if item.seq <= snapshot.first_seq
        )
        if len(older) != snapshot.first_seq - seq:
            raise RuntimeError(f"game {game_id!r}: the store holds no events {seq + 1}-{snapshot.first_seq}")
        return replace(snapshot, events=older + snapshot.events)

    async def _timed_read(self, game_id: str, after_seq: int) -> list[StoredEvent]:
        started = time.perf_counter()
        try:
            return await self.store.read(game_id, after_seq)
        finally:
            self._read_latency.observe(time.perf_counter() - started)

    def remember(self, game_id: str, snapshot: Snapshot) -> None:
        """Keep ``snapshot`` (a newer one than the cache's: a slower load never puts back an older state)."""
        cached = self._cache.peek(game_id)
        if cached is not None and cached.seq > snapshot.seq:
            snapshot = cached
        if snapshot.state.winner is not None:  # first: the oldest finished game makes room before any in play
            self._finished.put(game_id, True)
        self._cache.put(game_id, snapshot)

    @property
    def weight(self) -> int:
        """What the cached games weigh together (:func:`weight`)."""
        return self._cache.weight

    def _drop(self, game_id: str) -> None:
        self._cache.pop(game_id)
        self._evicted(game_id)

    def _evicted(self, game_id: str) -> None:
        self._finished.pop(game_id)
        self._forget_hearing(game_id)

    def appended(self, game_id: str, snapshot: Snapshot, epoch: int | None) -> None:
        """Keep ``snapshot``, which this process has just appended (``epoch``: the store's hearing epoch taken
        before the append). The append's sequence check proved the store held nothing newer when it committed,
        and anything appended since is heard of: a check against the store, as a read would have made."""
        self.remember(game_id, snapshot)
        if epoch is not None and epoch == self.store.hearing_epoch() and self._cache.peek(game_id) is snapshot:
            self._checked[game_id] = (epoch, time.monotonic() + TRUST_SECONDS)

    def vouches(self, game_id: str, snapshot: Snapshot) -> bool:
        """Whether ``snapshot`` is the game's newest state as far as the store can tell without a read: it is as
        new as the cached one, which was checked against the store lately, the store has heard every append since
        without a gap, and none of them went past it. (Never on a store without a hearing epoch, such as SQLite.)"""
        cached = self._cache.peek(game_id)
        checked = self._checked.get(game_id)
        return (
            cached is not None
            and cached.seq <= snapshot.seq
            and checked is not None
            and checked[0] == self.store.hearing_epoch()
            and time.monotonic() < checked[1]
            and self._heard_seq.get(game_id, 0) <= snapshot.seq
        )

    def _on_append(self, game_id: str, last_seq: int) -> None:
        tracked = game_id in self._cache or game_id in self._loading
        if tracked and last_seq > self._heard_seq.get(game_id, 0):
            self._heard_seq[game_id] = last_seq

    def _loaded(self, game_id: str) -> None:
        left = self._loading.pop(game_id) - 1
        if left:
            self._loading[game_id] = left
        elif game_id not in self._cache:
            self._forget_hearing(game_id)

    def _forget_hearing(self, game_id: str) -> None:
        # Out of the cache and not loading, a game's notifications are no longer recorded: nothing may vouch
        # for it until it is checked against the store again.
        if game_id not in self._loading:
            self._checked.pop(game_id, None)
            self._heard_seq.pop(game_id, None)


def weight(snapshot: Snapshot) -> int:
    """About how many bytes a cached game holds (:data:`SNAPSHOT_BYTES`, :data:`EVENT_BYTES`)."""
    return SNAPSHOT_BYTES + EVENT_BYTES * len(snapshot.events)


__all__ = ["CACHE_ENTRIES", "FINISHED_ENTRIES", "TAIL_EVENTS", "TRUST_SECONDS", "Snapshot", "Snapshots", "tail"]
