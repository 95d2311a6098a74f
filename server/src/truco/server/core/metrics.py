"""Prometheus metrics with the usual gRPC names (``grpc_server_*``, labelled with the protocol) and the service's
own (``truco_*``), in one registry per server. The pipeline (``pipeline.Observer``) counts and times calls;
the game application, the store and the connection limits the rest."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


@dataclass
class Metrics:
    """Every metric of one server, in its own registry (tests start several servers in one process)."""

    registry: CollectorRegistry
    started: Counter
    handled: Counter
    handling_seconds: Histogram
    msg_sent: Counter
    matches_started: Counter
    matches_finished: Counter
    events_appended: Counter
    commands_applied: Counter
    games_rebuilt: Counter
    store_latency: Histogram
    store_up: Gauge
    watchers: Gauge
    clock_firings: Counter
    games_removed: Counter
    connections_refused: Counter
    bus_up: Gauge
    bus_heard: Counter
    bus_polls: Counter
    bus_buckets: Gauge
    matcher_leading: Gauge
    matcher_matched: Counter
    gc_pause: Histogram
    loop_lateness: Histogram

    @classmethod
    def create(cls) -> Metrics:
        registry = CollectorRegistry()
        made: dict[str, Any] = {
            attribute: kind(name, text, labels, registry=registry, **options)
            for attribute, kind, name, text, labels, options in DEFINITIONS
        }
        return cls(registry=registry, **made)


_RPC = ("grpc_type", "grpc_service", "grpc_method", "protocol")
"""An RPC's labels. protocol: grpc on the gRPC port; connect, grpc-web or grpc on the web port."""
_HANDLED = (*_RPC[:3], "grpc_code", _RPC[3])
_LATENCY = {"buckets": _LATENCY_BUCKETS}
_PAUSE = {"buckets": (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5)}
"""Finer around 100 ms: the longest a collection may stop the loop (bench/README.md, the collector)."""

DEFINITIONS: tuple[tuple[str, type[Counter | Gauge | Histogram], str, str, tuple[str, ...], dict[str, Any]], ...] = (
    ("started", Counter, "grpc_server_started", "RPCs started on the server.", _RPC, {}),
    ("handled", Counter, "grpc_server_handled", "RPCs completed on the server, by code.", _HANDLED, {}),
    (
        "handling_seconds",
        Histogram,
        "grpc_server_handling_seconds",
        "Latency of RPCs handled by the server (streams: until the stream ends).",
        _RPC,
        _LATENCY,
    ),
    ("msg_sent", Counter, "grpc_server_msg_sent", "Stream messages sent by the server.", _RPC, {}),
    ("matches_started", Counter, "truco_matches_started", "Matches created.", (), {}),
    ("matches_finished", Counter, "truco_matches_finished", "Matches that reached their target.", (), {}),
    ("events_appended", Counter, "truco_events_appended", "Events appended to the event store.", (), {}),
    (
        "commands_applied",
        Counter,
        "truco_commands_applied",
        "Moves applied, by a seat's client or a server bot.",
        ("by",),
        {},
    ),
    (
        "games_rebuilt",
        Counter,
        "truco_games_rebuilt",
        "Games rebuilt from the start of their stored log: not in this process's memory (after a restart, a game"
        " another replica served, or more games in play than the process keeps).",
        (),
        {},
    ),
    ("store_latency", Histogram, "truco_store_latency_seconds", "Event store latency.", ("operation",), _LATENCY),
    # Under `truco serve --workers N` (Prometheus multiprocess mode) the host reports the lowest store_up and the
    # sum of watchers over its live workers; with one process these settings change nothing.
    (
        "store_up",
        Gauge,
        "truco_store_up",
        "1 while the event store answers, 0 otherwise.",
        (),
        {"multiprocess_mode": "livemin"},
    ),
    ("watchers", Gauge, "truco_watchers", "Open WatchGame streams.", (), {"multiprocess_mode": "livesum"}),
    (
        "clock_firings",
        Counter,
        "truco_clock_firings",
        "Expired turn clocks this server fired, by outcome: takeover or forfeit when its firing was applied, lost"
        " when another replica's (or a move) got there first.",
        ("outcome",),
        {},
    ),
    (
        "games_removed",
        Counter,
        "truco_games_removed",
        "Games closed unplayed (closed) or removed by retention (removed).",
        ("how",),
        {},
    ),
    (
        "connections_refused",
        Counter,
        "truco_connections_refused",
        "Client connections refused or cut by the connection limits, by port (grpc, web) and cap: total,"
        " per_address (a client address past its cap), evicted (shut: it never made a call, or made room).",
        ("port", "cap"),
        {},
    ),
    # Moves heard through NATS (--bus; store/bus.py): present only with a bus.
    (
        "bus_up",
        Gauge,
        "truco_bus_up",
        "1 while the NATS bus is connected; 0 while it is down and watchers poll the store every second.",
        (),
        {"multiprocess_mode": "livemin"},
    ),
    (
        "bus_heard",
        Counter,
        "truco_bus_heard",
        "Moves of other processes heard on the bus (the deliveries to this process: its subscribed buckets').",
        (),
        {},
    ),
    (
        "bus_polls",
        Counter,
        "truco_bus_polls",
        "Polls of the store made while the bus was down (each wakes every watcher to look at the store).",
        (),
        {},
    ),
    (
        "bus_buckets",
        Gauge,
        "truco_bus_buckets",
        "Game-hash buckets this process subscribes to (those of the games it has watchers or sessions for).",
        (),
        {"multiprocess_mode": "livesum"},
    ),
    # Quick match (core/matchmaking.py): one matcher at a time across the replicas, where the lease row says.
    (
        "matcher_leading",
        Gauge,
        "truco_matcher_leading",
        "1 while this process holds the matcher's lease (runs the cluster's one matcher), 0 otherwise.",
        (),
        {"multiprocess_mode": "livesum"},
    ),
    (
        "matcher_matched",
        Counter,
        "truco_matcher_tickets_matched",
        "Quick-match tickets this process's matcher seated in a game.",
        (),
        {},
    ),
    # The process's garbage collector on its clock (runtime/collector.py): each collection stops the event loop.
    (
        "gc_pause",
        Histogram,
        "truco_gc_pause_seconds",
        "How long each garbage collection stopped the event loop, by generation (0: young, 2: old).",
        ("generation",),
        _PAUSE,
    ),
    (
        "loop_lateness",
        Histogram,
        "truco_loop_lateness_seconds",
        "How late the event loop woke the collector's 50 ms tick: the loop's lag from everything but collections.",
        (),
        _PAUSE,
    ),
)
"""Each metric: the Metrics attribute, its kind, name, help text, labels and options."""


__all__ = ["Metrics"]
