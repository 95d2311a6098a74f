"""Connection-level limits: no client can hold the descriptors every other caller, and the health check, need.

A server process has a fixed number of file descriptors (``RLIMIT_NOFILE``), and every open connection holds
one whether or not it ever sends a byte. So, on both ports:

* at start the soft open-files limit is raised to the hard one (:func:`raise_open_files_limit`), and a part of
  it is kept back (:data:`RESERVED_DESCRIPTORS`) for the store, the metrics port, logs and the health check's
  own connection: the connection budget is what is left (:func:`plan`);
* each port takes at most its share of that budget, and one client address (an IPv6 address counts by its /64,
  which one subscriber usually holds whole) at most ``per_address`` connections of it (:func:`client_group`);
* silent connections are closed: on the web port a request head must arrive within ``head_timeout`` and its body
  within ``body_timeout``; on the gRPC port the HTTP/2 handshake within ``handshake_timeout``, and a connection
  with no call for ``idle_timeout`` is closed (gRPC's max-connection-idle; clients reconnect on their own).

The web port is served by Python, so it refuses a connection past a cap as it accepts it
(:class:`GuardedListener`). gRPC's core accepts its connections itself and caps only their total
(``grpc.max_allowed_incoming_connections``), so :class:`GrpcConnectionGuard` reads the kernel's table of the
port's connections (``/proc/net/tcp``) and shuts those of a client address past its cap, the longest silent
first.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import socket
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import structlog

from truco.server.core.quotas import ConnectionLimits
from truco.server.doors import socket_diag
from truco.server.doors.socket_diag import Connection
from truco.server.limits.forwarding import client_group

RESERVED_DESCRIPTORS = 64
"""Descriptors never given to client connections (at least this many, or a fiftieth of the limit): the store's
files and connections, the metrics port, log files, and the connection of a health check arriving when every
client connection is taken."""
DEFAULT_PER_ADDRESS = 256
"""Connections one client address may hold on a port (fewer when a port's share of the budget is small: an
eighth of it). A phone holds one; a carrier's NAT puts many players behind one address."""
HEALTH_CONNECTIONS = 64
"""Connections the health listener takes at once: a kubelet's probes open one or two each."""
GUARD_INTERVAL_SECONDS = 1.0
GUARD_BUSY_INTERVAL_SECONDS = 0.1
"""How often the gRPC guard reads the port's connections: every second, and ten times as often while it is
shutting connections (a client that reconnects as fast as it is cut off is met as fast)."""
GUARD_DUTY = 20
"""The guard rests at least this many times as long as a look took: it takes at most a twentieth of a core."""


@dataclass(frozen=True)
class ConnectionPlan:
    """The caps a server runs with, from :class:`ConnectionLimits` and the descriptors it has; None: no cap."""

    grpc: int | None  #: connections on the gRPC port
    web: int | None  #: connections on the web port
    per_address: int | None  #: connections of one client address on each port
    descriptors: int  #: the soft open-files limit the plan was made for


def raise_open_files_limit() -> tuple[int, int]:
    """Raise the soft open-files limit to the hard one (a common soft default, 1,024, is a few hundred
    connections); the soft limit before and after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if sys.platform == "darwin":  # macOS refuses a soft limit above OPEN_MAX however high the hard one is
        target = min(target, 10_240)
    if target > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return soft, resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def open_descriptors() -> int:
    """How many descriptors this process holds now (0 where the system does not tell)."""
    try:
        return len(os.listdir("/proc/self/fd")) - 1  # the listing's own descriptor
    except OSError:
        return 0


def plan(limits: ConnectionLimits, *, web: bool, descriptors: int | None = None, in_use: int = 0) -> ConnectionPlan:
    """The caps for a server with a web port or not, given its soft open-files limit and the descriptors it
    already holds: what is left after the reserve, split evenly between the ports unless ``max_connections``
    says how many in all."""
    limit = descriptors if descriptors is not None else resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if limits.max_connections < 0:
        total = None
    elif limits.max_connections:
        total = limits.max_connections
    else:
        total = max(2, limit - in_use - max(RESERVED_DESCRIPTORS, limit // 50))
    grpc_share = None if total is None else (total + 1) // 2 if web else total
    web_share = None if total is None or not web else total - (total + 1) // 2
    if limits.per_address < 0:
        per_address = None
    elif limits.per_address:
        per_address = limits.per_address
    else:
        smallest = min(share for share in (grpc_share, web_share, 1 << 30) if share is not None)
        per_address = max(8, min(DEFAULT_PER_ADDRESS, smallest // 8))
    return ConnectionPlan(grpc_share, web_share, per_address, limit)


class ConnectionCounts:
    """Open connections, per client group and in all, against the caps (None: no cap)."""

    def __init__(self, total: int | None, per_group: int | None) -> None:
        self.total_cap = total
        self.group_cap = per_group
        self.total = 0
        self.groups: dict[str, int] = {}

    def admit(self, group: str) -> str | None:
        """Count a new connection of ``group``; None when admitted, else the cap it would pass."""
        if self.total_cap is not None and self.total >= self.total_cap:
            return "total"
        held = self.groups.get(group, 0)
        if self.group_cap is not None and held >= self.group_cap:
            return "per_address"
        self.groups[group] = held + 1
        self.total += 1
        return None

    def release(self, group: str) -> None:
        left = self.groups[group] - 1
        if left:
            self.groups[group] = left
        else:
            del self.groups[group]
        self.total -= 1


Refused = Callable[[str], None]
"""Told the cap (``total`` or ``per_address``) a connection was refused for."""


class _TrackedSocket(socket.socket):
    """An accepted connection that gives its place back when it is closed (asyncio's transports close the
    socket they were given)."""

    _release: Callable[[], None] | None = None
    accepted: float = 0.0

    def close(self) -> None:
        self.give_back()
        super().close()

    def give_back(self) -> None:
        release, self._release = self._release, None
        if release is not None:
            release()


class GuardedListener(socket.socket):
    """A listening socket whose ``accept`` (what asyncio's servers call) enforces a :class:`Policy`:

    * past a client group's cap a connection is closed at once, and the next pending one tried;
    * past the port's cap the connection that has been open longest without making a call gives way (shut,
      its place given to the newcomer); with none such, the newcomer is closed;
    * :meth:`sweep` (once a second) shuts connections that made no call within ``quiet_seconds`` of being
      accepted, and those with no call open for ``idle_seconds`` (an HTTP/2 connection with no stream is
      otherwise kept for ever).

    The connections it admits are counted until they close, and kept by their peer address so that
    :meth:`shut` can cut one (a request that stalls its body). The door tells :attr:`activity` of each call."""

    def __init__(
        self, sock: socket.socket, counts: ConnectionCounts, refused: Refused, policy: Policy | None = None
    ) -> None:
        super().__init__(sock.family, sock.type, sock.proto, fileno=sock.detach())
        self.counts = counts
        self._refused = refused
        self.policy = policy or Policy(counts.total_cap, counts.group_cap, 20.0, 300.0)
        self.activity = Activity()
        self._open: dict[str, _TrackedSocket] = {}
        self._quiet: OrderedDict[str, _TrackedSocket] = OrderedDict()
        """The connections that never made a call, oldest first."""
        self._idle_since: dict[str, float] = {}
        """When each connection with no call open ended its last one (the gRPC port leaves this to gRPC's own
        max-connection-idle, so its door does not time every call)."""

    def accept(self) -> tuple[socket.socket, Any]:
        while True:
            fd, address = self._accept()  # type: ignore[attr-defined]  # BlockingIOError: none pending
            group = client_group(str(address[0]))
            over = self.counts.admit(group)
            if over == "total" and self._evict_quietest():
                over = self.counts.admit(group)
            if over is None:
                conn = _TrackedSocket(self.family, self.type, self.proto, fileno=fd)
                peer = socket_diag.peer_string(str(address[0]), int(address[1]))
                conn.accepted = time.monotonic()
                self._open[peer] = self._quiet[peer] = conn
                conn._release = partial(self._forget, group, peer)
                return conn, address
            os.close(fd)
            self._refused(over)

    def _forget(self, group: str, peer: str) -> None:
        self.counts.release(group)
        self._open.pop(peer, None)
        self._quiet.pop(peer, None)
        self.activity.forget(peer)
        self._idle_since.pop(peer, None)

    def _evict_quietest(self) -> bool:
        """Shut the connection open longest without a call and give its place back now; False: none."""
        if not self._quiet:
            return False
        _, conn = self._quiet.popitem(last=False)
        shut([conn])
        conn.give_back()
        self._refused("evicted")
        return True

    def called(self, peer: str) -> None:
        """A call began on the connection ``peer`` (a gRPC peer string)."""
        self._quiet.pop(peer, None)
        self.activity.begin(peer)

    def ended(self, peer: str) -> None:
        """A call ended on the connection ``peer``: with none left open, it is idle from now."""
        if peer in self._open:
            self.activity.end(peer)
            if peer not in self.activity.open:
                self._idle_since[peer] = time.monotonic()

    def sweep(self) -> int:
        """Shut the connections quiet or idle past the policy's limits; how many."""
        now = time.monotonic()
        chosen = []
        for conn in self._quiet.values():
            if now - conn.accepted < self.policy.quiet_seconds:
                break
            chosen.append(conn)
        for peer, since in self._idle_since.items():
            if peer not in self.activity.open and now - since >= self.policy.idle_seconds:
                chosen.append(self._open[peer])
        for conn in chosen:
            conn.give_back()
        return shut(chosen)

    def shut(self, host: str, port: int) -> bool:
        """Cut the connection from ``host``:``port`` (both directions): its server sees it end and closes it."""
        conn = self._open.get(socket_diag.peer_string(host, port))
        if conn is None:
            return False
        return shut([conn]) > 0


# --- The gRPC port -----------------------------------------------------------------------------------------------


def grpc_options(limits: ConnectionLimits, cap: int | None) -> list[tuple[str, int]]:
    """gRPC's channel arguments for the connection limits: the total cap (checked before the handshake), the
    handshake and idle timeouts, and keepalive enforcement (a client pinging more often than every 10 s, or
    with no call open, is sent away after two strikes)."""
    options = [
        ("grpc.server_handshake_timeout_ms", round(limits.handshake_timeout * 1000)),
        ("grpc.max_connection_idle_ms", round(limits.idle_timeout * 1000)),
        ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
        ("grpc.http2.max_ping_strikes", 2),
        ("grpc.keepalive_permit_without_calls", 0),
    ]
    if cap is not None:
        options.append(("grpc.max_allowed_incoming_connections", cap))
    return options


def health_options(limits: ConnectionLimits, *, exclusive: bool = True) -> list[tuple[str, int]]:
    """gRPC's channel arguments for the health listener: a small cap of its own, and probes' connections
    closed soon after their last check. ``exclusive``: bound without SO_REUSEPORT (gRPC's default), so that a
    second server on the host cannot silently take half of another's probes on a fixed port (``--workers``
    share it, as they share every port)."""
    return [
        *([("grpc.so_reuseport", 0)] if exclusive else []),
        ("grpc.max_allowed_incoming_connections", HEALTH_CONNECTIONS),
        ("grpc.server_handshake_timeout_ms", round(limits.handshake_timeout * 1000)),
        ("grpc.max_connection_idle_ms", round(min(limits.idle_timeout, limits.quiet_timeout) * 1000)),
    ]


class Activity:
    """Which connections of a port have made a call, and how many calls each has open now, as its door tells
    (:meth:`begin` and :meth:`end` around every call; connections by their gRPC peer string). The guard keeps
    only the connections still open (:meth:`keep`), so this stays as small as the port's connections."""

    __slots__ = ("called", "open")

    def __init__(self) -> None:
        self.called: set[str] = set()
        self.open: dict[str, int] = {}

    def begin(self, peer: str) -> None:
        self.called.add(peer)
        self.open[peer] = self.open.get(peer, 0) + 1

    def end(self, peer: str) -> None:
        left = self.open.get(peer, 1) - 1
        if left > 0:
            self.open[peer] = left
        else:
            self.open.pop(peer, None)

    def keep(self, present: set[str]) -> None:
        """Forget the connections that are no longer open."""
        self.called &= present

    def forget(self, peer: str) -> None:
        """Forget the connection ``peer``, closed."""
        self.called.discard(peer)
        self.open.pop(peer, None)


@dataclass(frozen=True)
class Policy:
    """What a port's guard enforces; None: no such cap."""

    cap: int | None  #: connections on the port
    per_address: int | None  #: connections of one client group
    quiet_seconds: float  #: how long a connection that never made a call may stay
    idle_seconds: float  #: how long a connection with no call open may stay after its last one

    @property
    def headroom(self) -> int:
        """Places kept free below the cap for newcomers: gRPC refuses a connection past its cap before any code
        of ours sees it, so the guard makes room ahead, at the expense of connections that never called."""
        return 0 if self.cap is None else max(4, self.cap // 50)


def victims(
    found: Sequence[Connection], activity: Activity, first_seen: dict[str, float], now: float, policy: Policy
) -> list[Connection]:
    """The connections to shut:

    * those that never made a call within ``quiet_seconds`` of being first seen (a preface, then nothing);
    * a client group's surplus past ``per_address``: those with no call open first, then those silent longest
      (a spectator's or a waiting session's connection is busy, whatever its silence);
    * while the port is within its headroom of the cap, the longest silent of those that never made a call.
    """
    chosen: dict[int, Connection] = {}
    quiet = [c for c in found if c.peer not in activity.called]
    for connection in quiet:
        if now - first_seen.get(connection.peer, now) >= policy.quiet_seconds:
            chosen[connection.inode] = connection
    if policy.per_address is not None:
        groups: dict[str, list[Connection]] = {}
        for connection in found:
            groups.setdefault(client_group(connection.address), []).append(connection)
        for members in groups.values():
            if len(members) > policy.per_address:
                members.sort(key=lambda c: (c.peer not in activity.open, c.silent_ms))
                chosen.update((c.inode, c) for c in members[policy.per_address :])
    if policy.cap is not None:
        surplus = len(found) - len(chosen) - (policy.cap - policy.headroom)
        if surplus > 0:
            spare = sorted((c for c in quiet if c.inode not in chosen), key=lambda c: -c.silent_ms)
            chosen.update((c.inode, c) for c in spare[:surplus])
    return list(chosen.values())


def shut(sockets: Iterable[socket.socket]) -> int:
    """Shut ``sockets`` both ways (their server sees them end and closes them); how many could be."""
    done = 0
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
            done += 1
    return done


def guard_pause(busy: bool, took: float) -> float:
    """How long the guard waits before its next look, after one that took ``took`` seconds: its interval, but
    never less than :data:`GUARD_DUTY` times what a look costs (reading 10,000 connections takes tens of
    milliseconds, on the thread pool but holding the interpreter's lock while it parses)."""
    return max(GUARD_BUSY_INTERVAL_SECONDS if busy else GUARD_INTERVAL_SECONDS, took * GUARD_DUTY)


class GrpcConnectionGuard:
    """Enforces a :class:`Policy` on the gRPC port, whose connections gRPC's core accepts itself: once a second
    (ten times a second while it is shedding) it reads the port's connections from the kernel's socket
    diagnostics off the event loop (:func:`~truco.server.doors.socket_diag.connections`, in a thread), chooses
    (:func:`victims`, from what the door told :class:`Activity`) and shuts the chosen ones this process holds.
    Off where the kernel has no such tables (not Linux)."""

    def __init__(self, port: int, policy: Policy, activity: Activity, refused: Callable[[str, int], None]) -> None:
        self.port = port
        self.policy = policy
        self.activity = activity
        self._refused = refused
        self._first_seen: dict[str, float] = {}
        self._foreign: set[int] = set()
        """Inodes of connections another process holds (a worker sharing the port): never ours to shut."""
        self._task: asyncio.Task[None] | None = None
        self._log = structlog.get_logger("truco.server.doors.connections")

    @staticmethod
    def available() -> bool:
        return os.path.exists("/proc/net/tcp") and os.path.isdir("/proc/self/fd")

    def start(self) -> None:
        if self._task is None and self.available():
            self._task = asyncio.create_task(self._run(), name="truco-connection-guard")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def check(self) -> int:
        """One look: shut this process's connections the policy chooses; how many."""
        found = await asyncio.to_thread(socket_diag.connections, self.port)
        now = time.monotonic()
        present = {connection.peer for connection in found}
        self.activity.keep(present)
        first_seen = {peer: self._first_seen.get(peer, now) for peer in present}
        self._first_seen = first_seen
        self._foreign &= {connection.inode for connection in found}
        mine = [connection for connection in found if connection.inode not in self._foreign]
        chosen = victims(mine, self.activity, first_seen, now, self.policy)
        if not chosen:
            return 0
        done = await asyncio.to_thread(self._shut, [connection.inode for connection in chosen])
        if done:
            self._refused("evicted", done)
        return done

    def _shut(self, inodes: list[int]) -> int:
        done, foreign = socket_diag.shut_owned(inodes)
        self._foreign |= foreign
        return done

    async def _run(self) -> None:
        while True:
            started = time.perf_counter()
            try:
                busy = await self.check() > 0
            except Exception:  # never let the guard die: it is the only per-address cap on the port
                self._log.warning("connection guard failed", exc_info=True)
                busy = False
            await asyncio.sleep(guard_pause(busy, time.perf_counter() - started))


__all__ = [
    "Activity",
    "ConnectionCounts",
    "ConnectionLimits",
    "ConnectionPlan",
    "GrpcConnectionGuard",
    "GuardedListener",
    "Policy",
    "client_group",
    "grpc_options",
    "guard_pause",
    "health_options",
    "open_descriptors",
    "plan",
    "raise_open_files_limit",
    "shut",
    "victims",
]
