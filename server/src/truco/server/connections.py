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
import ipaddress
import os
import resource
import socket
import struct
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

import structlog

from .quotas import ConnectionLimits

RESERVED_DESCRIPTORS = 64
"""Descriptors never given to client connections (at least this many, or a fiftieth of the limit): the store's
files and connections, the metrics port, log files, and the connection of a health check arriving when every
client connection is taken."""
DEFAULT_PER_ADDRESS = 256
"""Connections one client address may hold on a port (fewer when a port's share of the budget is small: an
eighth of it). A phone holds one; a carrier's NAT puts many players behind one address."""
GUARD_INTERVAL_SECONDS = 1.0
GUARD_BUSY_INTERVAL_SECONDS = 0.1
"""How often the gRPC guard reads the port's connections: every second, and ten times as often while it is
shutting a client's surplus (a client that reconnects as fast as it is cut off is met as fast)."""


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


def client_group(address: str) -> str:
    """Whom a connection counts against: an IPv4 address (also when written as IPv4-mapped IPv6), or the /64
    of an IPv6 address; anything else (a Unix socket) as written."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


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

    def close(self) -> None:
        release, self._release = self._release, None
        if release is not None:
            release()
        super().close()


class GuardedListener(socket.socket):
    """A listening socket whose ``accept`` (what asyncio's servers call) refuses a connection past the caps:
    it is closed at once and the next pending one is tried. The connections it admits are counted until they
    close, and kept by their peer address so that :meth:`shut` can cut one (a request that stalls its body)."""

    def __init__(self, sock: socket.socket, counts: ConnectionCounts, refused: Refused) -> None:
        super().__init__(sock.family, sock.type, sock.proto, fileno=sock.detach())
        self.counts = counts
        self._refused = refused
        self._open: dict[tuple[str, int], _TrackedSocket] = {}

    def accept(self) -> tuple[socket.socket, Any]:
        while True:
            fd, address = self._accept()  # type: ignore[attr-defined]  # BlockingIOError: none pending
            group = client_group(str(address[0]))
            over = self.counts.admit(group)
            if over is None:
                conn = _TrackedSocket(self.family, self.type, self.proto, fileno=fd)
                peer = (str(address[0]), int(address[1]))
                self._open[peer] = conn
                conn._release = partial(self._forget, group, peer)
                return conn, address
            os.close(fd)
            self._refused(over)

    def _forget(self, group: str, peer: tuple[str, int]) -> None:
        self.counts.release(group)
        self._open.pop(peer, None)

    def shut(self, host: str, port: int) -> bool:
        """Cut the connection from ``host``:``port`` (both directions): its server sees it end and closes it."""
        conn = self._open.get((host, port))
        if conn is None:
            return False
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_RDWR)
        return True


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


_ESTABLISHED = "01"


def _address(hex_address: str) -> str:
    """An address as /proc/net/tcp{,6} writes it (little-endian 32-bit words in hexadecimal) in text form."""
    raw = bytes.fromhex(hex_address)
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    return str(ipaddress.ip_address(words))


def established(port: int, tables: Iterable[str] = ("/proc/net/tcp", "/proc/net/tcp6")) -> Iterator[tuple[str, int]]:
    """The accepted connections to local ``port`` in this network namespace: (client address, socket inode)."""
    suffix = f":{port:04X}"
    for table in tables:
        try:
            with open(table) as lines:
                next(lines, None)
                for line in lines:
                    fields = line.split()
                    if len(fields) > 9 and fields[3] == _ESTABLISHED and fields[1].endswith(suffix):
                        inode = int(fields[9])
                        if inode:  # 0: still in the listen queue, not accepted yet (nobody's to shut)
                            yield _address(fields[2].partition(":")[0]), inode
        except OSError:
            continue


def crowded(connections: Iterable[tuple[str, int]], per_address: int) -> list[set[int]]:
    """The inodes of each client group holding more than ``per_address`` of ``connections``."""
    groups: dict[str, set[int]] = {}
    for address, inode in connections:
        groups.setdefault(client_group(address), set()).add(inode)
    return [inodes for inodes in groups.values() if len(inodes) > per_address]


_LAST_DATA_RECV = struct.Struct("=I")
_LAST_DATA_RECV_OFFSET = 52
"""``tcpi_last_data_recv`` in Linux's ``struct tcp_info``: milliseconds since the connection last received data."""


def silent_for_ms(sock: socket.socket) -> int:
    """How long the peer of ``sock`` has sent nothing, in milliseconds (0 where the system does not tell)."""
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _LAST_DATA_RECV_OFFSET + 4)
    except (OSError, AttributeError):
        return 0
    if len(info) < _LAST_DATA_RECV_OFFSET + 4:
        return 0
    return int(_LAST_DATA_RECV.unpack_from(info, _LAST_DATA_RECV_OFFSET)[0])


def owned_sockets(inodes: set[int]) -> dict[int, socket.socket]:
    """This process's sockets with these inodes, each a duplicate descriptor (the caller closes them): checked
    after duplicating, so a descriptor closed and reused meanwhile is never taken for another."""
    found: dict[int, socket.socket] = {}
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return found
    for name in names:
        try:
            link = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if not link.startswith("socket:[") or int(link[8:-1]) not in inodes:
            continue
        try:
            duplicate = os.dup(int(name))
        except OSError:
            continue
        inode = os.fstat(duplicate).st_ino
        if inode in inodes and inode not in found:
            found[inode] = socket.socket(fileno=duplicate)
        else:
            os.close(duplicate)
    return found


def shed(groups: Iterable[set[int]], per_address: int) -> int:
    """Shut this process's connections past ``per_address`` in each group, those silent the longest first (a
    client's busy connections keep working); how many were shut."""
    shut = 0
    for inodes in groups:
        owned = owned_sockets(inodes)
        try:
            by_silence = sorted(owned.values(), key=silent_for_ms)
            for sock in by_silence[per_address:]:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                    shut += 1
        finally:
            for sock in owned.values():
                sock.close()
    return shut


class GrpcConnectionGuard:
    """Holds each client address to ``per_address`` connections of this process on the gRPC port, by shutting
    those past it, the longest silent first. The kernel's table of the port (one read) finds the crowded
    addresses; only for those does the guard look at which connections are its own. Off where
    ``/proc/net/tcp`` does not exist (not Linux)."""

    def __init__(self, port: int, per_address: int, refused: Callable[[int], None]) -> None:
        self.port = port
        self.per_address = per_address
        self._refused = refused
        self._task: asyncio.Task[None] | None = None
        self._log = structlog.get_logger("truco.server.connections")

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

    def check(self) -> int:
        """One look: shut this process's connections past the cap; how many."""
        groups = crowded(established(self.port), self.per_address)
        shut = shed(groups, self.per_address) if groups else 0
        if shut:
            self._refused(shut)
        return shut

    async def _run(self) -> None:
        while True:
            try:
                busy = self.check() > 0
            except Exception:  # never let the guard die: it is the only per-address cap on the port
                self._log.warning("connection guard failed", exc_info=True)
                busy = False
            await asyncio.sleep(GUARD_BUSY_INTERVAL_SECONDS if busy else GUARD_INTERVAL_SECONDS)


__all__ = [
    "ConnectionCounts",
    "ConnectionLimits",
    "ConnectionPlan",
    "GrpcConnectionGuard",
    "GuardedListener",
    "client_group",
    "crowded",
    "established",
    "grpc_options",
    "open_descriptors",
    "plan",
    "raise_open_files_limit",
    "shed",
]
