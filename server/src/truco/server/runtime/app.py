"""``truco serve``: the gRPC server with health, reflection, metrics, limits and a graceful shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from prometheus_client import start_http_server

from truco.server.core.auth import TokenIssuer
from truco.server.core.clocks import Alarm, ClockSettings, StandIn, Timekeeper
from truco.server.core.games import Games
from truco.server.core.keys import ApiKeys
from truco.server.core.lifecycle import Housekeeper
from truco.server.core.matchmaking import Matchmaker
from truco.server.core.metrics import Metrics
from truco.server.core.player_tokens import DEFAULT_AUDIENCE, PlayerTokens
from truco.server.core.quotas import ConnectionLimits, Limits
from truco.server.core.table_players import TablePlayers
from truco.server.doors.connections import (
    Activity,
    ConnectionCounts,
    GrpcConnectionGuard,
    Policy,
    grpc_options,
    health_options,
    open_descriptors,
    plan,
    raise_open_files_limit,
)
from truco.server.doors.grpc_door import GrpcDoor
from truco.server.doors.reflection import DocumentedReflection
from truco.server.doors.web import DEFAULT_WEB_ASSETS, WebLimits, WebServer, build_app
from truco.server.limits.admission import Admission
from truco.server.limits.forwarding import TrustedProxies
from truco.server.runtime.collector import FULL_SECONDS, CollectorSchedule
from truco.server.service.pipeline import Method, Observer, Pipeline, methods_of
from truco.server.service.players import PlayerServicer
from truco.server.service.projections import ENCODINGS
from truco.server.service.servicers import GameServicer, RulesServicer
from truco.server.service.table_players import TableService
from truco.server.store import is_sharded, open_store
from truco.server.store.bus import BusStats, NatsBus
from truco.server.store.errors import StoreUnavailable
from truco.server.store.interface import EventStore
from truco.wire.v1 import game_service_pb2, players_pb2, rules_service_pb2

MAX_REQUEST_BYTES = 64 * 1024
"""The largest request accepted (a command is a few bytes; a create with every scripted deal is a few KiB)."""
MAX_RESPONSE_BYTES = 4 * 1024 * 1024
MAX_STREAMS_PER_CONNECTION = 128
"""HTTP/2's cap on one connection's concurrent streams. The service's own caps (limits.py) are per caller, per
connection and per method class: gRPC's server-wide maximum_concurrent_rpcs is not used, because it counts
health checks too, so any caller able to fill it would fail every probe."""
TOKEN_KEY_ENV = "TRUCO_TOKEN_KEY"
HEALTH_INTERVAL_SECONDS = 2.0
LIVENESS_SERVICE = "liveness"
"""A health name that stays SERVING until shutdown: a store outage makes pods unready, it does not restart them."""
SERVICES = (
    game_service_pb2.DESCRIPTOR.services_by_name["GameService"],
    rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"],
    players_pb2.DESCRIPTOR.services_by_name["PlayerService"],
)
"""The services of the contract, served on both ports."""


@dataclass(frozen=True)
class ServeConfig:
    store: str = "sqlite:///truco.db"
    bus: str | None = None
    """NATS server(s) (``nats://host:4222``, commas between several) through which replicas hear each other's
    moves, on PostgreSQL; None: PostgreSQL's LISTEN/NOTIFY."""
    host: str = "[::]"
    port: int = 50051
    metrics_port: int | None = 9090
    health_port: int | None = None
    """A listener of its own for gRPC health checks, out of every client's reach (probes point here); None: off
    (health is also served on the gRPC port). ``truco serve`` opens it on 50052."""
    shared_ports: bool = False
    """Set by ``--workers``' supervisor: the workers share every port (SO_REUSEPORT), the health port too."""
    trusted_proxies: tuple[str, ...] = ()
    """Networks of proxies whose ``x-forwarded-for`` names the client (per-address quotas and caps)."""
    web_port: int | None = None
    """Connect, gRPC-Web and gRPC over HTTP/1.1 and HTTP/2 plus the web table (truco.server.doors.web); None: off."""
    cors_origins: tuple[str, ...] = ()
    web_assets: str | None = None
    """The built web table served at / on the web port; None: web/dist of the source checkout, if built."""
    allow_fixed_deals: bool = False
    grace_seconds: float = 20.0
    log_format: str = "json"
    require_api_key: bool = False
    """CreateGame and JoinGame need an API key (x-api-key metadata); without it, anonymous development mode."""
    player_audience: str = DEFAULT_AUDIENCE
    """The ``aud`` player tokens must name (truco.server.core.player_tokens)."""
    limits: Limits = field(default_factory=Limits)
    connections: ConnectionLimits = field(default_factory=ConnectionLimits)
    """Connection caps and timeouts on both ports (truco.server.doors.connections)."""
    token_key: str | None = None
    """The secret seat tokens are derived with; None reads ``TRUCO_TOKEN_KEY`` from the environment."""
    clock: ClockSettings | None = None
    """Turn clocks of the games created without clock settings; None (the library default): no clocks.
    ``truco serve`` turns them on (see its --clock options)."""
    stand_in: StandIn = field(default_factory=StandIn)
    """How the bot plays a seat whose player is away, in the games created from now: its pace per decision and
    how long it keeps that pace (``truco serve --stand-in-pace``, ``--away-grace``)."""
    presence_seconds: float = 30.0
    """A seat is present while it watches the game or called within this many seconds."""
    abandon_after: float | None = None
    """Close games in which no seat was joined within this many seconds; None: never."""
    retention: float | None = None
    """Remove finished and closed games that ended more than this many seconds ago; None: keep them."""
    timekeeper_idle: float = 1.0
    """The longest the timekeeper sleeps without asking the store for due clocks (other replicas' deadlines)."""
    housekeeping_seconds: float = 30.0
    """How often abandoned games are closed and old ones removed."""
    full_collection_seconds: float = FULL_SECONDS
    """How often the garbage collector walks the whole heap, the frozen part too (runtime/collector.py); by
    default never."""


class ConfigError(Exception):
    """A configuration the server refuses to start with (reported in one line, no traceback)."""


def token_issuer(config: ServeConfig) -> TokenIssuer:
    """The seat-token issuer, keyed by ``TRUCO_TOKEN_KEY``. On PostgreSQL the server may run as several replicas,
    which must issue the same token for a retried join: without a shared key it refuses to start."""
    shared = config.token_key if config.token_key is not None else os.environ.get(TOKEN_KEY_ENV, "")
    if not shared and (is_sharded(config.store) or config.store.split("://", 1)[0] in ("postgresql", "postgres")):
        raise ConfigError(
            f"{TOKEN_KEY_ENV} is not set: on PostgreSQL every replica must share one token key, or a retried "
            f"JoinGame would get a token that other replicas refuse. Set {TOKEN_KEY_ENV} to the same random "
            "secret (e.g. `openssl rand -base64 32`) on every replica."
        )
    return TokenIssuer.from_secret(shared)


def configure_logging(log_format: str) -> None:
    """Every log line on standard error in one format: the server's own (structlog) and the libraries'
    (psycopg's pool, asyncio: the standard logging module), which would otherwise print plain text."""
    renderer = structlog.processors.JSONRenderer() if log_format == "json" else structlog.dev.ConsoleRenderer()
    stamps: list[structlog.typing.Processor] = [
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[*stamps, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
        # One write per line (print() writes the line and its newline apart): workers share standard error, and
        # two of them logging at once must not splice their lines. (On a pipe only writes up to PIPE_BUF, 4 KiB,
        # are atomic: a longer line can still be split while the pipe is full.)
        logger_factory=structlog.WriteLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[structlog.stdlib.add_logger_name, *stamps],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)


def redact(url: str) -> str:
    """The store URL without its password, for logs (each shard's, for several)."""
    return " ".join(_redact_one(one) for one in url.split())


def _redact_one(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


def grpc_server(door: GrpcDoor, limits: ConnectionLimits, cap: int | None) -> grpc.aio.Server:
    """The gRPC port's server: message and stream bounds, keepalive, connection age, the connection limits."""
    return grpc.aio.server(
        interceptors=[door],
        options=[
            ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
            ("grpc.max_send_message_length", MAX_RESPONSE_BYTES),
            ("grpc.max_concurrent_streams", MAX_STREAMS_PER_CONNECTION),
            ("grpc.keepalive_time_ms", 30_000),
            ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.max_connection_age_ms", 30 * 60_000),
            ("grpc.max_connection_age_grace_ms", 60_000),
            *grpc_options(limits, cap),
        ],
    )


def health_server(servicer: health.aio.HealthServicer, config: ServeConfig) -> grpc.aio.Server:
    """The health checks' own listener (not yet bound): the gRPC port's health servicer, nothing else."""
    # A port the kernel picks (0) is nobody else's, and --workers share theirs: only a single server's fixed port
    # needs binding exclusively.
    exclusive = config.health_port != 0 and not config.shared_ports
    server = grpc.aio.server(options=health_options(config.connections, exclusive=exclusive))
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    return server


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
"""The signals that ask a server for its graceful stop (:func:`stop_signals`)."""


class Server:
    """A running server; ``await Server.start(config)``, then ``await server.stop()`` or ``wait_for_signal(stop)``."""

    bus: NatsBus | None = None
    """The NATS connection the store hears moves through (``--bus``), set by :meth:`start`; None: none."""
    _bus_counted: BusStats | None = None
    """The bus's figures as last copied into the metrics (its counters grow by the difference)."""

    def __init__(self, config: ServeConfig, store: EventStore, metrics: Metrics, tokens: TokenIssuer) -> None:
        self.config = config
        self.store = store
        self.metrics = metrics
        keys = ApiKeys(store)
        alarm = Alarm()
        self.games = Games(
            store,
            metrics,
            ENCODINGS,
            allow_fixed_deals=config.allow_fixed_deals,
            tokens=tokens,
            default_clock=config.clock,
            stand_in=config.stand_in,
            presence_seconds=config.presence_seconds,
            keys=keys,
            alarm=alarm,
        )
        # One admission (keys, quotas, caps) for both ports; health and reflection never go through it.
        self.admission = Admission(
            config.limits,
            keys,
            store,
            require_api_key=config.require_api_key,
            proxies=TrustedProxies.parse(config.trusted_proxies),
            player_tokens=PlayerTokens(store, audience=config.player_audience),
        )
        self.timekeeper = Timekeeper(
            store,
            self.games.fire_clock,
            alarm=alarm,
            idle_seconds=config.timekeeper_idle,
            housekeeping=Housekeeper(store, metrics, config.abandon_after, config.retention),
            housekeeping_seconds=config.housekeeping_seconds,
        )
        self.health = health.aio.HealthServicer()
        self.connection_plan = plan(config.connections, web=config.web_port is not None, in_use=open_descriptors())
        # One servicer of each service, one pipeline (observe, admit, handle) for every door: the gRPC port here,
        # the web port in start(). Their methods come from the services' descriptors: none can be left out.
        self.pipeline = Pipeline(Observer(metrics), self.admission)
        self.services = self._servicers(store)
        self.matchmaker = Matchmaker(
            store, self.games.create_table, self.games.join_ticket, self.games.outcome, metrics=metrics
        )
        self.activity = Activity()
        door = GrpcDoor(self.pipeline, [method for methods in self.services for method in methods], self.activity)
        self.grpc = grpc_server(door, config.connections, self.connection_plan.grpc)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.grpc)
        self.health_server = health_server(self.health, config) if config.health_port is not None else None
        self.health_port: int | None = None
        names = [service.full_name for service in SERVICES]
        self.reflection = DocumentedReflection((*names, health.SERVICE_NAME, reflection.SERVICE_NAME))
        self.reflection.register(self.grpc)
        self.port = 0
        self.metrics_port: int | None = None
        self.web: WebServer | None = None
        self.connection_guard: GrpcConnectionGuard | None = None
        self._metrics_http: Any = None
        self._monitor: asyncio.Task[None] | None = None
        self._stopped = asyncio.Event()

    @classmethod
    async def start(cls, config: ServeConfig) -> Server:
        """:raises ConfigError: a configuration the server refuses (see :func:`token_issuer`)."""
        tokens = token_issuer(config)
        bus = await NatsBus.start(config.bus) if config.bus else None
        try:
            store = await open_store(config.store, bus=bus)
        except BaseException:
            if bus is not None:
                await bus.close()
            raise
        server = cls(config, store, Metrics.create(), tokens)
        server.bus = bus
        server.port = server.grpc.add_insecure_port(f"{config.host}:{config.port}")
        if server.health_server is not None:
            server.health_port = server._bind_health(f"{config.host}:{config.health_port}")
        caps, limits = server.connection_plan, config.connections
        policy = Policy(caps.grpc, caps.per_address, limits.quiet_timeout, limits.idle_timeout)
        refused = server.metrics.connections_refused
        server.connection_guard = GrpcConnectionGuard(
            server.port, policy, server.activity, lambda cap, count: refused.labels("grpc", cap).inc(count)
        )
        if config.metrics_port is not None:
            # The metrics listener binds the same address as gRPC ("[::]" → "::", every address).
            server._metrics_http, _ = start_http_server(
                config.metrics_port, addr=config.host.strip("[]"), registry=server.metrics.registry
            )
            server.metrics_port = server._metrics_http.server_port
        if config.web_port is not None:
            server._start_web(config.web_port)
        await server.grpc.start()
        if server.health_server is not None:
            await server.health_server.start()
        await server.health.set(LIVENESS_SERVICE, health_pb2.HealthCheckResponse.SERVING)
        await server._check_store()
        server._monitor = asyncio.create_task(server._watch_store())
        server.games.start()
        server.timekeeper.start()
        server.matchmaker.start()  # at once: clocks that ran out while no server was up fire now
        if server.connection_guard is not None:
            server.connection_guard.start()
        return server

    def _bind_health(self, address: str) -> int | None:
        """The health listener's port; None, said in a warning, when it cannot be bound (health is still
        served on the gRPC port)."""
        assert self.health_server is not None
        try:
            return self.health_server.add_insecure_port(address)
        except RuntimeError:
            structlog.get_logger("truco.server").warning(
                "health port not bound: another process holds it",
                address=address,
            )
            self.health_server = None
            return None

    def _start_web(self, port: int) -> None:
        limits = WebLimits(MAX_REQUEST_BYTES, MAX_STREAMS_PER_CONNECTION)
        assets = Path(self.config.web_assets) if self.config.web_assets else DEFAULT_WEB_ASSETS
        app = build_app(
            self.pipeline,
            self.services,
            self.reflection,
            limits,
            cors_origins=self.config.cors_origins,
            assets=assets if assets.is_dir() else None,
            table=TableService(TablePlayers(self.store, audience=self.config.player_audience)),
        )
        refused = self.metrics.connections_refused
        self.web = WebServer(
            app,
            self.config.host,
            port,
            limits,
            self.config.grace_seconds,
            self.config.connections,
            ConnectionCounts(self.connection_plan.web, self.connection_plan.per_address),
            lambda cap: refused.labels("web", cap).inc(),
        )
        self.web.start()

    async def _check_store(self) -> None:
        try:
            await self.store.ping()
            up = True
        except StoreUnavailable:
            up = False
        self.metrics.store_up.set(1 if up else 0)
        if self.bus is not None:
            self._count_bus(self.bus.stats)
        status = health_pb2.HealthCheckResponse.SERVING if up else health_pb2.HealthCheckResponse.NOT_SERVING
        for service in ("", *(descriptor.full_name for descriptor in SERVICES)):
            await self.health.set(service, status)

    def _count_bus(self, stats: BusStats) -> None:
        counted = self._bus_counted or BusStats()
        self.metrics.bus_up.set(1 if stats.up else 0)
        self.metrics.bus_buckets.set(stats.buckets)
        self.metrics.bus_heard.inc(stats.heard - counted.heard)
        self.metrics.bus_polls.inc(stats.polls - counted.polls)
        self._bus_counted = BusStats(stats.up, stats.heard, stats.published, stats.polls, stats.buckets)

    async def _watch_store(self) -> None:
        while True:
            await asyncio.sleep(HEALTH_INTERVAL_SECONDS)
            await self._check_store()

    def _servicers(self, store: EventStore) -> list[list[Method]]:
        """Each service's methods, served by one servicer of it."""
        return [
            methods_of(SERVICES[0], GameServicer(self.games)),
            methods_of(SERVICES[1], RulesServicer()),
            methods_of(SERVICES[2], PlayerServicer(self.games, store)),
        ]

    async def stop(self, grace: float | None = None) -> None:
        """Stop taking calls: health turns NOT_SERVING, watchers are told to resume elsewhere, in-flight calls
        get ``grace`` seconds to finish."""
        if self._monitor is not None:
            self._monitor.cancel()
        if self.connection_guard is not None:
            await self.connection_guard.stop()
        await self.matchmaker.stop()
        await self.timekeeper.stop()
        await self.health.enter_graceful_shutdown()
        self.games.stop_watches()
        web_stopped = self.web.stop() if self.web is not None else asyncio.sleep(0)
        await asyncio.gather(self.grpc.stop(self.config.grace_seconds if grace is None else grace), web_stopped)
        if self.health_server is not None:
            await self.health_server.stop(0)
        await self.games.close()
        await self.store.close()
        if self.bus is not None:
            await self.bus.close()
        if self._metrics_http is not None:
            self._metrics_http.shutdown()
            self._metrics_http.server_close()
        self._stopped.set()

    async def wait_for_signal(self, stop: asyncio.Event) -> None:
        """Until ``stop`` is set (by :func:`stop_signals`), then the graceful stop."""
        await stop.wait()
        structlog.get_logger("truco.server").info("shutdown", grace_seconds=self.config.grace_seconds)
        await self.stop()


@contextlib.contextmanager
def stop_signals() -> Iterator[asyncio.Event]:
    """An event SIGTERM and SIGINT set, instead of ending the process, until the block ends (the default actions
    are back then). Enter it before the server starts: a signal sent as soon as a port opens or is announced (by
    a supervisor, an orchestrator, a test) must still get the graceful stop; one that comes during the start
    stops the server as soon as it has started."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, stop.set)
    try:
        yield stop
    finally:
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)


async def serve(config: ServeConfig) -> None:
    configure_logging(config.log_format)
    with stop_signals() as stop:
        await _serve(config, stop)


async def _serve(config: ServeConfig, stop: asyncio.Event) -> None:
    before, after = raise_open_files_limit()
    server = await Server.start(config)
    caps = server.connection_plan
    structlog.get_logger("truco.server").info(
        "connection limits",
        open_files_before=before,
        open_files=after,
        grpc_connections=caps.grpc,
        web_connections=caps.web if server.web is not None else None,
        connections_per_address=caps.per_address,
    )
    metrics = f", metrics on http://localhost:{server.metrics_port}/metrics" if server.metrics_port else ""
    web = f", web table and Connect/gRPC-Web on http://localhost:{server.web.port}/" if server.web else ""
    health = f", health checks on port {server.health_port}" if server.health_port is not None else ""
    # The first line on standard output names the ports, so scripts and tests can start it on port 0.
    mode = "API key required for CreateGame and JoinGame" if config.require_api_key else "anonymous mode"
    print(
        f"truco serve: listening on port {server.port} (store {redact(config.store)}){metrics}{web}{health}; {mode}",
        flush=True,
    )
    async with collector_schedule(server.metrics, config.full_collection_seconds):
        await server.wait_for_signal(stop)


def collector_schedule(metrics: Metrics, full_seconds: float) -> CollectorSchedule:
    """The collector's schedule, its pauses and the loop's lateness in ``metrics``."""
    pauses = {generation: metrics.gc_pause.labels(str(generation)) for generation in range(3)}
    return CollectorSchedule(
        full_seconds=full_seconds,
        pause=lambda generation, seconds: pauses[generation].observe(seconds),
        lateness=metrics.loop_lateness.observe,
    )


def main(config: ServeConfig) -> int:
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(config))
    return 0
