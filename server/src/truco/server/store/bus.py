"""Moves heard through NATS: each append is published, after its commit, on the subject of its game's hash
bucket (``truco.moves.<bucket>``), and a replica subscribes only to the buckets of the games it has watchers or
sessions for, so it hears of its own games' moves rather than every move of the cluster (PostgreSQL's
LISTEN/NOTIFY delivers every move to every listening process, and serialises the notifying commits).

What a message carries is only a cue (``game_id:last_seq``): the store stays the truth. A watcher woken by it
reads the events after the version it sent last, so a message lost, late or twice changes nothing but when the
watcher looks. While the bus is down (or was never reached) the stores it serves wake their waiters every
:data:`POLL_SECONDS` to look at the database themselves (a bounded poll, counted in ``polls``); when it comes
back, every waiter looks once more, so nothing committed meanwhile is missed, and versions keep anything from
being sent twice.

``nats-py`` is imported only here and only when a bus is configured (the server's ``nats`` extra).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

BUCKETS = 1 << 20
"""Game-hash buckets (subjects). A replica that watches ``g`` of the cluster's ``G`` games hears each subscribed
bucket's every game: about ``g * (1 + G / BUCKETS)`` games' moves while ``g`` is far below ``BUCKETS``. With a
million buckets, 100,000 matches cost a replica 1.1 times its own games' moves (the goal is 1.2)."""
SUBJECT_PREFIX = "truco.moves."
POLL_SECONDS = 1.0
"""While the bus is down, how often waiters look at the store themselves."""
LINGER_SECONDS = 30.0
"""How long a bucket stays subscribed after its last waiter left: a session waits again right after each move,
and a subscription each time would cost a round trip to the bus per move."""
CONNECT_RETRY_MAX_S = 5.0
FLUSH_TIMEOUT_S = 2.0


def bucket_of(game_id: str) -> int:
    """The game's bucket: the same in every process and every language (BLAKE2b of the id, 8 bytes)."""
    return int.from_bytes(hashlib.blake2b(game_id.encode(), digest_size=8).digest(), "big") % BUCKETS


def subject_of(game_id: str) -> str:
    return f"{SUBJECT_PREFIX}{bucket_of(game_id)}"


class BusListener(Protocol):
    """A store the bus tells of its games' moves, and when its waiters must look at the database themselves."""

    def owns(self, game_id: str) -> bool:
        """Whether the game is this store's (one shard's store among several on one bus)."""
        ...

    def heard(self, game_id: str, last_seq: int) -> None:
        """Another process appended to the game; its last seq is now ``last_seq``."""
        ...

    def wake_all(self) -> None:
        """Every waiter looks at the database: the bus went down, is still down (each poll), or came back."""
        ...


@dataclass
class BusStats:
    """What the server's metrics report of its bus."""

    up: bool = False
    heard: int = 0
    """Messages heard: moves of other processes in the subscribed buckets (the deliveries to this process)."""
    published: int = 0
    polls: int = 0
    """Polls made while the bus was down (each wakes every waiter to look at the store)."""
    buckets: int = 0
    """Buckets subscribed now."""


@dataclass
class _Bucket:
    subscription: Any
    waiters: int = 0
    idle_since: float | None = None


@dataclass
class NatsBus:
    """One connection to NATS for a server process, shared by the stores of every shard. Build it with
    :meth:`start`."""

    url: str
    stats: BusStats = field(default_factory=BusStats)
    _listeners: list[BusListener] = field(default_factory=list)
    _buckets: dict[int, _Bucket] = field(default_factory=dict)
    _client: Any = None
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _subscribing: asyncio.Lock = field(default_factory=asyncio.Lock)
    _closed: bool = False

    @classmethod
    async def start(cls, url: str) -> NatsBus:
        """A bus on the NATS server(s) at ``url`` (``nats://host:4222``, several separated by commas). One that
        cannot be reached now is not an error: the stores poll until it answers.

        :raises ValueError: nats-py is not installed."""
        try:
            import nats  # noqa: F401  (here, not in the connecting task: a missing extra must stop the start)
        except ImportError as exc:
            raise ValueError("--bus needs nats-py, the server's nats extra: pip install 'truco-server[nats]'") from exc
        bus = cls(url)
        bus._tasks.append(asyncio.create_task(bus._connect(), name="truco-bus-connect"))
        bus._tasks.append(asyncio.create_task(bus._poll_while_down(), name="truco-bus-poll"))
        bus._tasks.append(asyncio.create_task(bus._forget_idle(), name="truco-bus-linger"))
        return bus

    def listen(self, listener: BusListener) -> None:
        self._listeners.append(listener)

    @property
    def up(self) -> bool:
        return self.stats.up

    async def _connect(self) -> None:
        import nats

        delay = 0.1
        while not self._closed:
            try:
                self._client = await nats.connect(
                    servers=[server.strip() for server in self.url.split(",")],
                    no_echo=True,  # this process's own appends are fired where they are made
                    allow_reconnect=True,
                    max_reconnect_attempts=-1,
                    reconnect_time_wait=0.5,
                    connect_timeout=2,
                    ping_interval=5,
                    max_outstanding_pings=2,
                    disconnected_cb=self._disconnected,
                    reconnected_cb=self._reconnected,
                    error_cb=self._error,
                    name="truco-server",
                )
            except Exception:  # nats raises its own and OS errors for an unreachable server: retried, not fatal
                await asyncio.sleep(delay)
                delay = min(delay * 2, CONNECT_RETRY_MAX_S)
                continue
            # Buckets asked for while it was unreachable were recorded: subscribe them now.
            for number, bucket in list(self._buckets.items()):
                if bucket.subscription is None:
                    bucket.subscription = await self._client.subscribe(f"{SUBJECT_PREFIX}{number}", cb=self._on_message)
            await self._reconnected()
            return

    async def _disconnected(self) -> None:
        self._changed(False)

    async def _reconnected(self) -> None:
        # nats-py sends the subscriptions again before this: a round trip makes sure the server has them, and
        # only then do waiters look (what was appended before that look is in the store, after it on the bus).
        with contextlib.suppress(Exception):
            await self._client.flush(timeout=FLUSH_TIMEOUT_S)
        self._changed(True)

    async def _error(self, error: Exception) -> None:
        pass  # disconnections are reported by their own callback; the rest is retried by the client

    def _changed(self, up: bool) -> None:
        self.stats.up = up
        self._wake_all()

    def _wake_all(self) -> None:
        for listener in self._listeners:
            listener.wake_all()

    async def _poll_while_down(self) -> None:
        while True:
            await asyncio.sleep(POLL_SECONDS)
            if not self.stats.up:
                self.stats.polls += 1
                self._wake_all()

    async def _forget_idle(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(LINGER_SECONDS / 4)
            now = loop.time()
            for number, bucket in list(self._buckets.items()):
                if bucket.waiters == 0 and bucket.idle_since is not None and now - bucket.idle_since > LINGER_SECONDS:
                    del self._buckets[number]
                    if bucket.subscription is not None:
                        with contextlib.suppress(Exception):
                            await bucket.subscription.unsubscribe()
            self.stats.buckets = len(self._buckets)

    @contextlib.asynccontextmanager
    async def interest(self, game_id: str) -> AsyncIterator[None]:
        """Hear the game's bucket for as long as this lasts (and :data:`LINGER_SECONDS` after): subscribed, and
        the server sure to have the subscription, before it yields, so a look at the store made then misses no
        move (the move is in the store, or its message comes)."""
        number = bucket_of(game_id)
        bucket = self._buckets.get(number)
        if bucket is None:
            bucket = self._buckets[number] = _Bucket(None)
            self.stats.buckets = len(self._buckets)
        bucket.waiters += 1
        try:
            if bucket.subscription is None and self._client is not None:
                async with self._subscribing:
                    if bucket.subscription is None:
                        subject = f"{SUBJECT_PREFIX}{number}"
                        bucket.subscription = await self._client.subscribe(subject, cb=self._on_message)
                        if self.stats.up:
                            with contextlib.suppress(Exception):  # down meanwhile: the waiters poll
                                await self._client.flush(timeout=FLUSH_TIMEOUT_S)
            yield
        finally:
            bucket.waiters -= 1
            if not bucket.waiters:
                bucket.idle_since = asyncio.get_running_loop().time()

    async def _on_message(self, message: Any) -> None:
        game_id, _, seq = message.data.decode(errors="replace").rpartition(":")
        try:
            last_seq = int(seq)
        except ValueError:
            return
        self.stats.heard += 1
        for listener in self._listeners:
            if listener.owns(game_id):
                listener.heard(game_id, last_seq)

    async def publish(self, game_id: str, last_seq: int) -> None:
        """Tell the game's bucket that its last seq is now ``last_seq`` (after the commit: only what is stored is
        announced). Never fails: while the bus is down the client keeps what fits in its buffer for when it
        returns, and the other processes' waiters poll meanwhile. It waits for no round trip."""
        client = self._client
        if client is None:
            return
        self.stats.published += 1
        with contextlib.suppress(Exception):
            await client.publish(subject_of(game_id), f"{game_id}:{last_seq}".encode())

    async def close(self) -> None:
        self._closed = True
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.close()


__all__ = ["BUCKETS", "POLL_SECONDS", "BusListener", "BusStats", "NatsBus", "bucket_of", "subject_of"]
