"""The quotas and caps a server enforces (``limits.py`` enforces them). Free of gRPC, so the ``truco`` command
can show the defaults without importing it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


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
    server_watch_streams: int = 10_000  #: WatchGame streams open at once, all callers together
    player_calls_per_second: float = 20.0  #: sustained calls per second of one player (seat token or connection)
    player_burst: int = 40  #: one player's calls allowed at once above its sustained rate

    @classmethod
    def unlimited(cls) -> Limits:
        return cls(**{item.name: 0 for item in dataclasses.fields(cls)})


__all__ = ["Limits"]
