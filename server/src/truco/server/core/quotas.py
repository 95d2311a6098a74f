"""The quotas and caps a server enforces (``admission.py`` and ``connections.py`` enforce them). Free of gRPC and of
the server's other modules, so the ``truco`` command can show the defaults without importing them."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

WATCH_STREAM_BYTES = 64 * 1024
"""About what an open WatchGame stream costs the server (its connection, call and buffers), measured."""
WATCH_MEMORY_SHARE = 4
"""The server-wide watch cap, when derived, lets watches take a quarter of the memory the process may use."""


@dataclass(frozen=True)
class Limits:
    """Quotas and caps; 0 turns one off. Per app (API key, or address when anonymous) unless said otherwise;
    a key may carry its own app totals (``app_quotas.AppQuotas``)."""

    calls_per_second: float = 200.0  #: sustained calls per second (GameService and RulesService)
    burst: int = 400  #: calls allowed at once above the sustained rate
    games_per_minute: float = 30.0  #: CreateGame calls per minute (bursts of up to this many)
    open_games: int = 100  #: unfinished games a caller created (counted in the store, across replicas)
    calls_in_flight: int = 64  #: unary calls a caller has running at once
    watch_streams: int = 32  #: WatchGame streams a caller holds open
    watch_streams_per_connection: int = 16  #: WatchGame streams one connection holds open
    server_calls_in_flight: int = 1000  #: unary calls running at once, all callers together
    server_watch_streams: int | None = None
    """WatchGame streams open at once, all callers together; None: a quarter of the memory the process may use
    (:func:`derived_watch_cap`)."""
    watch_streams_per_key: int = 5000  #: WatchGame streams one API key's callers hold open, all addresses together
    joins_per_minute: float = 60.0  #: JoinGame calls per minute of an anonymous caller (keyless: per address)
    player_calls_per_second: float = 20.0  #: sustained calls per second of one player (seat token or connection)
    player_burst: int = 40  #: one player's calls allowed at once above its sustained rate
    table_players_per_minute: float = 10.0
    """New players of the web table (``POST /table/player-token`` without a credential) minted per minute for one
    client address, in bursts of up to this many; a known player's next token is charged only the call rate."""

    @classmethod
    def unlimited(cls) -> Limits:
        return cls(**{item.name: 0 for item in dataclasses.fields(cls)})

    def server_watch_cap(self) -> int:
        return self.server_watch_streams if self.server_watch_streams is not None else derived_watch_cap()


def memory_limit() -> int:
    """The bytes this process may use: its cgroup's memory limit (a container's), else the machine's memory."""
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as limit:
                text = limit.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 1 << 60:  # cgroup v1 writes a huge number for "no limit"
            return int(text)
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 4 << 30


def derived_watch_cap() -> int:
    """The server-wide watch cap for this process's memory (at least 100)."""
    return max(100, memory_limit() // WATCH_MEMORY_SHARE // WATCH_STREAM_BYTES)


@dataclass(frozen=True)
class ConnectionLimits:
    """What ``truco serve`` allows at the connection level; 0 (the caps' default) derives a cap from the
    open-files limit (:func:`plan`)."""

    max_connections: int = 0  #: connections open at once on both ports together; 0: derived from RLIMIT_NOFILE
    per_address: int = 0  #: connections one client address (IPv6: its /64) holds on a port; 0: derived
    head_timeout: float = 5.0  #: seconds a web connection may take to send a request head (and idle between)
    body_timeout: float = 10.0  #: seconds a web request may take to send its body, once its head arrived
    handshake_timeout: float = 5.0  #: seconds a gRPC connection may take to start HTTP/2 after connecting
    idle_timeout: float = 300.0  #: seconds a connection may stay open with no call in flight (both ports)
    quiet_timeout: float = 20.0
    """Seconds a connection may stay open without ever making a call (a preface, then nothing), on both ports."""

    @classmethod
    def unlimited(cls) -> ConnectionLimits:
        """No caps (the timeouts stay: they only close what is silent)."""
        return cls(max_connections=-1, per_address=-1)


__all__ = ["ConnectionLimits", "Limits", "derived_watch_cap", "memory_limit"]
