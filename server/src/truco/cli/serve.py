"""``truco serve``: the gRPC service (and, with --web-port, Connect, gRPC-Web and the web table)."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from truco.commandline import Subcommands, UsageError, duration, positive

from .stores import add_store_option

if TYPE_CHECKING:
    from truco.server.core.quotas import ConnectionLimits

DEFAULT_CLOCK = 30.0
"""``truco serve``'s time per decision, in seconds."""
DEFAULT_RESERVE = 120.0
"""``truco serve``'s per-match reserve of each seat, in seconds."""
DEFAULT_ABANDON = 600.0
"""``truco serve`` closes games nobody joined after this many seconds."""
DEFAULT_STAND_IN_PACE = 3.0
"""Seconds per decision of the bot playing an away seat (truco.server.core.clocks' default, not imported: the CLI
starts fast)."""
DEFAULT_AWAY_GRACE = 300.0
"""Seconds it keeps that pace after the seat went away."""
LIMIT_FLAGS = (
    ("--calls-per-second", "calls_per_second", float, "an app's sustained calls per second"),
    ("--burst", "burst", int, "an app's calls allowed at once above that rate"),
    ("--player-calls-per-second", "player_calls_per_second", float, "one player's sustained calls per second"),
    ("--player-burst", "player_burst", int, "one player's calls allowed at once above that rate"),
    ("--games-per-minute", "games_per_minute", float, "CreateGame calls per minute"),
    ("--open-games", "open_games", int, "unfinished games created (counted across replicas)"),
    ("--calls-in-flight", "calls_in_flight", int, "calls running at once"),
    ("--watch-streams", "watch_streams", int, "WatchGame streams open at once"),
    ("--watch-streams-per-connection", "watch_streams_per_connection", int, "WatchGame streams per connection"),
    ("--watch-streams-per-key", "watch_streams_per_key", int, "WatchGame streams of one API key, all addresses"),
    ("--joins-per-minute", "joins_per_minute", float, "JoinGame calls per minute without an API key"),
    ("--table-players-per-minute", "table_players_per_minute", float, "new web-table players per minute"),
)
"""The quota flags: flag, attribute of :class:`~truco.server.core.quotas.Limits`, type, what it limits."""
CONNECTION_FLAGS: tuple[tuple[str, str, Callable[[str], float], str], ...] = (
    ("--max-connections", "max_connections", int, "connections on both ports together (0: derived)"),
    ("--connections-per-address", "per_address", int, "connections of one client address per port (0: derived)"),
    ("--head-timeout", "head_timeout", duration, "seconds a web client may take to send a request head"),
    ("--body-timeout", "body_timeout", duration, "seconds a web request may take to send its body"),
    ("--handshake-timeout", "handshake_timeout", duration, "seconds a gRPC client may take to start HTTP/2"),
    ("--idle-timeout", "idle_timeout", duration, "seconds a connection may stay open with no call in flight"),
    ("--quiet-timeout", "quiet_timeout", duration, "seconds a connection may stay open without ever calling"),
)
"""The connection flags: flag, attribute of :class:`~truco.server.core.quotas.ConnectionLimits`, type, what."""


def command(commands: Subcommands) -> None:
    serve = commands.add_parser(
        "serve",
        help="run the gRPC rules service (and, with --web-port, Connect/gRPC-Web and the web table)",
        description="The authoritative Truco Uruguayo service over gRPC (health, reflection, Prometheus metrics); "
        "with --web-port, the same service over Connect and gRPC-Web for browsers and curl, and the web table.",
    )
    _listeners(serve)
    _web(serve)
    _process(serve)
    _limits(serve)
    _connections(serve)
    _clocks(serve)
    serve.set_defaults(run=_run)


def _listeners(serve: argparse.ArgumentParser) -> None:
    add_store_option(serve, "event store")
    serve.add_argument(
        "--bus",
        default=os.environ.get("TRUCO_BUS") or None,
        metavar="URL",
        help="PostgreSQL replicas hear each other's moves through this NATS server (nats://host:4222; commas "
        "between several; default $TRUCO_BUS) instead of LISTEN/NOTIFY; needs the server's nats extra",
    )
    serve.add_argument(
        "--host", default="[::]", help="address every listener binds: gRPC, web and metrics (default all)"
    )
    serve.add_argument("--port", type=int, default=50051, help="gRPC port; 0 picks a free one (default 50051)")
    serve.add_argument("--metrics-port", type=int, default=9090, help="Prometheus /metrics port; -1 disables it")
    serve.add_argument(
        "--health-port",
        type=int,
        default=50052,
        help="a listener of its own for gRPC health checks (grpc.health.v1, also served on the gRPC port), which "
        "no client traffic can fill: point probes here; 0 picks a free one, -1 disables it (default 50052)",
    )
    serve.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="CIDR",
        help="a proxy (an address or network, e.g. 10.0.0.0/8) whose x-forwarded-for names the client: the "
        "per-address quotas and caps then count that client, not the proxy (repeatable; default none)",
    )


def _web(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--web-port",
        type=int,
        default=-1,
        help="port for browsers and curl: Connect, gRPC-Web and gRPC over HTTP/1.1 and HTTP/2, and the web table "
        "at /; 0 picks a free one; -1 (default) disables it (./dev serve uses 8080)",
    )
    serve.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a web origin allowed to call the web port from a browser (repeatable; e.g. http://localhost:5173)",
    )
    serve.add_argument(
        "--web-assets",
        default=os.environ.get("TRUCO_WEB_ASSETS") or None,
        metavar="DIR",
        help="the built web table to serve at / on the web port (default: $TRUCO_WEB_ASSETS, which the container "
        "image sets, else web/dist of this checkout)",
    )


def _process(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--allow-fixed-deals",
        action="store_true",
        help="accept scripted deals in CreateGame (for client test suites; never in production)",
    )
    serve.add_argument("--grace", type=float, default=20.0, help="seconds in-flight calls get on SIGTERM")
    serve.add_argument(
        "--full-collection",
        type=duration,
        default=0.0,
        metavar="TIME",
        help="collect the whole heap this often (e.g. 1d), which stops the server for about a second at 2,500 "
        "matches; 0 (default): never, leaving the few cycles that die among long-lived objects uncollected",
    )
    serve.add_argument(
        "--require-api-key",
        action="store_true",
        help="refuse CreateGame and JoinGame without an API key (x-api-key metadata, from 'truco keys create'); "
        "without it the server runs in anonymous development mode",
    )
    serve.add_argument(
        "--player-audience",
        default="truco",
        metavar="AUD",
        help="the 'aud' claim player tokens must carry (apps sign them for their players; default: truco)",
    )
    serve.add_argument(
        "--workers",
        type=positive,
        default=int(os.environ["TRUCO_WORKERS"]) if os.environ.get("TRUCO_WORKERS") else None,
        metavar="N",
        help="server processes sharing the port, each with its own event loop (default: one per available core "
        "on PostgreSQL, 1 on SQLite, which refuses more)",
    )
    serve.add_argument(
        "--log-format",
        choices=("json", "console"),
        default=os.environ.get("TRUCO_LOG_FORMAT", "json"),
        help="log lines as JSON (default) or for a terminal",
    )


def _limits(serve: argparse.ArgumentParser) -> None:
    from truco.server.core.quotas import Limits

    limits = serve.add_argument_group(
        "quotas and rate limits",
        "Per app: its API key (all its players together; a key may have its own, see 'truco keys create'), or "
        "the client address for calls without one; and per player: a seat token, or a connection for calls "
        "without one. 0 turns a limit off. Past a limit a call fails with RESOURCE_EXHAUSTED, reason "
        "QUOTA_EXCEEDED, and says when to retry.",
    )
    defaults = Limits()
    for flag, attribute, kind, what in LIMIT_FLAGS:
        default = getattr(defaults, attribute)
        limits.add_argument(flag, type=kind, default=default, metavar="N", help=f"{what} (default {default:g})")
    limits.add_argument(
        "--no-limits",
        action="store_true",
        help="turn every quota and connection cap off (benchmarks and test suites; never in production)",
    )


def _connections(serve: argparse.ArgumentParser) -> None:
    from truco.server.core.quotas import ConnectionLimits

    connections = serve.add_argument_group(
        "connections",
        "Caps on open connections, per client address (an IPv6 address counts by its /64) and in all, on each "
        "port, and timeouts that close silent connections. The soft open-files limit is raised to the hard one "
        "at start; 0 derives a cap from it, keeping descriptors back for the store, metrics and health checks.",
    )
    defaults = ConnectionLimits()
    for flag, attribute, parse, what in CONNECTION_FLAGS:
        default = getattr(defaults, attribute)
        connections.add_argument(flag, type=parse, default=default, metavar="N", help=f"{what} (default {default:g})")


def _clocks(serve: argparse.ArgumentParser) -> None:
    clocks = serve.add_argument_group(
        "turn clocks and the life of games",
        "Durations are seconds, or a number with s, m, h or d (90s, 10m, 7d). The clock options apply to games "
        "created without clock settings of their own; a game can ask for none.",
    )
    clocks.add_argument(
        "--clock",
        type=duration,
        default=DEFAULT_CLOCK,
        metavar="TIME",
        help=f"time per decision (default {DEFAULT_CLOCK:g}s; 0: no clocks)",
    )
    clocks.add_argument(
        "--clock-reserve",
        type=duration,
        default=DEFAULT_RESERVE,
        metavar="TIME",
        help=f"each seat's reserve for the whole match, used once a decision runs over (default {DEFAULT_RESERVE:g}s)",
    )
    clocks.add_argument(
        "--clock-policy",
        choices=("takeover", "forfeit"),
        default="takeover",
        help="when a clock runs out: a bot plays the seat until its player resumes (default), or its team concedes",
    )
    clocks.add_argument(
        "--stand-in-pace",
        type=duration,
        default=DEFAULT_STAND_IN_PACE,
        metavar="TIME",
        help="the bot playing a seat whose player left or ran out of time makes one decision every TIME, as a "
        f"person would (default {DEFAULT_STAND_IN_PACE:g}s)",
    )
    clocks.add_argument(
        "--away-grace",
        type=duration,
        default=DEFAULT_AWAY_GRACE,
        metavar="TIME",
        help="it keeps that pace this long after the seat went away, so its player can come back to the same "
        f"match; then it plays at the bots' speed (default {DEFAULT_AWAY_GRACE:g}s)",
    )
    _lifetimes(clocks)


def _lifetimes(clocks: argparse._ArgumentGroup) -> None:
    """The options of how long seats stay present and games stay kept."""
    clocks.add_argument(
        "--presence",
        type=duration,
        default=30.0,
        metavar="TIME",
        help="a seat is present while it watches the game or called within this time (default 30s)",
    )
    clocks.add_argument(
        "--abandon-after",
        type=duration,
        default=DEFAULT_ABANDON,
        metavar="TIME",
        help=f"close games whose table did not fill within this time (default {DEFAULT_ABANDON:g}s; 0: never)",
    )
    clocks.add_argument(
        "--retention",
        type=duration,
        metavar="TIME",
        help="remove finished and closed games this long after they ended (default: keep them); live games never",
    )


def _run(args: argparse.Namespace) -> int:
    from truco.server.core.clocks import ClockSettings, StandIn
    from truco.server.core.quotas import Limits
    from truco.server.runtime.app import ConfigError, ServeConfig, main
    from truco.server.runtime.workers import WorkersError, resolve_workers, serve_workers

    clock = (
        ClockSettings.seconds(args.clock, args.clock_reserve, forfeit=args.clock_policy == "forfeit")
        if args.clock > 0
        else None
    )
    limits = (
        Limits.unlimited()
        if args.no_limits
        else Limits(**{attribute: getattr(args, attribute) for _, attribute, _, _ in LIMIT_FLAGS})
    )
    config = ServeConfig(
        store=args.store,
        bus=args.bus,
        host=args.host,
        port=args.port,
        metrics_port=None if args.metrics_port < 0 else args.metrics_port,
        health_port=None if args.health_port < 0 else args.health_port,
        trusted_proxies=tuple(args.trusted_proxy),
        web_port=None if args.web_port < 0 else args.web_port,
        cors_origins=tuple(args.cors_origin),
        web_assets=args.web_assets,
        allow_fixed_deals=args.allow_fixed_deals,
        grace_seconds=args.grace,
        log_format=args.log_format,
        require_api_key=args.require_api_key,
        player_audience=args.player_audience,
        limits=limits,
        connections=_connection_limits(args),
        clock=clock,
        stand_in=StandIn.seconds(args.stand_in_pace, args.away_grace),
        presence_seconds=args.presence,
        abandon_after=args.abandon_after or None,
        retention=args.retention,
        full_collection_seconds=args.full_collection or math.inf,
    )
    try:
        workers = resolve_workers(config.store, args.workers)
        return main(config) if workers == 1 else serve_workers(config, workers)
    except WorkersError as error:  # a worker that could not start (its error is logged above), or too many
        raise UsageError(str(error)) from None
    except (ValueError, ConfigError) as error:  # an unknown store URL, a missing token key
        raise UsageError(str(error)) from None


def _connection_limits(args: argparse.Namespace) -> ConnectionLimits:
    from truco.server.core.quotas import ConnectionLimits

    timeouts = {
        name: getattr(args, name)
        for name in ("head_timeout", "body_timeout", "handshake_timeout", "idle_timeout", "quiet_timeout")
    }
    if args.no_limits:
        return replace(ConnectionLimits.unlimited(), **timeouts)
    return ConnectionLimits(max_connections=args.max_connections, per_address=args.connections_per_address, **timeouts)
