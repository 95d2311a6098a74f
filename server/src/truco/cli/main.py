"""The ``truco`` command: ``truco eval`` (the rules calculator) and ``truco simulate`` (bots at full speed)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TextIO

from truco.engine import (
    Card,
    CardParseError,
    HandError,
    HandEvaluation,
    RuleSet,
    RuleSetError,
    evaluate_hand,
    is_pieza,
    piezas,
)
from truco.engine.rules import VALID_PLAYERS, VALID_TARGETS
from truco.server.quotas import ConnectionLimits, Limits

from . import __version__, arena


class UsageError(Exception):
    """A mistake in what the user typed: reported in one line, exit status 2, no traceback."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.run(args)
        return status
    except UsageError as error:
        print(f"truco {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"truco {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


class _Version(argparse.Action):
    """``truco --version``: the version, and whether the engine and the bots run compiled or as pure Python
    (looked up only when asked, so other commands do not import every module for it)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=str(kwargs.get("help")))

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from .builds import describe

        print(f"truco {__version__} ({describe()})")  # on standard output, as argparse's own version action
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="truco", description="Truco Uruguayo (truco con muestra): rules engine and tools."
    )
    parser.add_argument("--version", action=_Version, help="show the version and the engine's build, and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    evaluate = commands.add_parser(
        "eval",
        help="envido, flor and card strengths of a hand under a muestra",
        description="The rules calculator. Cards are number then suit letter: e espada, b basto, o oro, "
        "c copa (1e, 7o, 12c).",
        epilog="examples:\n  truco eval --muestra 1o 2o 7e 3c\n"
        "  printf '1o 2o 7e 3c\\n4e 4c 5c 6c\\n' | truco eval --batch",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    evaluate.add_argument("--muestra", metavar="CARD", help="the muestra (the card turned up)")
    evaluate.add_argument("cards", nargs="*", metavar="CARD", help="the three cards of the hand")
    evaluate.add_argument(
        "--batch",
        action="store_true",
        help="read one hand per line from standard input as 'MUESTRA C1 C2 C3'; write one JSON object per line",
    )
    evaluate.add_argument("--json", action="store_true", help="print the single hand as JSON")
    evaluate.add_argument("--sin-flor", action="store_true", help="evaluate for a match played without flor")
    evaluate.set_defaults(run=_run_eval)

    simulate = commands.add_parser(
        "simulate",
        help="play whole matches between bots and report speed and outcomes",
        description="Plays N whole matches in process between bots, with a progress bar on a terminal.",
    )
    simulate.add_argument("--players", type=int, choices=VALID_PLAYERS, default=2)
    simulate.add_argument("--games", type=_positive, default=100, metavar="N")
    simulate.add_argument("--seed", type=int, default=0, metavar="S")
    simulate.add_argument("--target", type=int, choices=VALID_TARGETS, default=30, metavar="T")
    simulate.add_argument(
        "--bots",
        choices=("random", "heuristic", "mixed"),
        default="random",
        help="random: uniformly random legal moves (mazo included); heuristic: knows envido, flor and card "
        "strength; mixed: one team each",
    )
    simulate.add_argument(
        "--level",
        action="append",
        choices=LEVEL_CHOICES,
        metavar="LEVEL",
        help="the bots' level: beginner, intermediate or expert; once for every bot seat, or once per bot seat in "
        "seat order (instead of --bots)",
    )
    simulate.add_argument("--json", action="store_true", help="print the report as one JSON object")
    simulate.add_argument("--no-progress", action="store_true", help="never draw the progress bar")
    simulate.set_defaults(run=_run_simulate)

    serve = commands.add_parser(
        "serve",
        help="run the gRPC rules service (and, with --web-port, Connect/gRPC-Web and the web table)",
        description="The authoritative Truco Uruguayo service over gRPC (health, reflection, Prometheus metrics); "
        "with --web-port, the same service over Connect and gRPC-Web for browsers and curl, and the web table.",
    )
    serve.add_argument(
        "--store",
        default=os.environ.get("TRUCO_STORE", "sqlite:///truco.db"),
        metavar="URL",
        help="event store: sqlite:///path/truco.db (default, embedded) or postgresql://user:pass@host/db",
    )
    serve.add_argument(
        "--host", default="[::]", help="address every listener binds: gRPC, web and metrics (default all)"
    )
    serve.add_argument("--port", type=int, default=50051, help="gRPC port; 0 picks a free one (default 50051)")
    serve.add_argument("--metrics-port", type=int, default=9090, help="Prometheus /metrics port; -1 disables it")
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
    serve.add_argument(
        "--allow-fixed-deals",
        action="store_true",
        help="accept scripted deals in CreateGame (for client test suites; never in production)",
    )
    serve.add_argument("--grace", type=float, default=20.0, help="seconds in-flight calls get on SIGTERM")
    serve.add_argument(
        "--require-api-key",
        action="store_true",
        help="refuse CreateGame and JoinGame without an API key (x-api-key metadata, from 'truco keys create'); "
        "without it the server runs in anonymous development mode",
    )
    limits = serve.add_argument_group(
        "quotas and rate limits",
        "Per app: its API key (all its players together; a key may have its own, see 'truco keys create'), or "
        "the client address for calls without one; and per player: a seat token, or a connection for calls "
        "without one. 0 turns a limit off. Past a limit a call fails with RESOURCE_EXHAUSTED, reason "
        "QUOTA_EXCEEDED, and says when to retry.",
    )
    defaults = Limits()
    for flag, attribute, kind, what in (
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
    ):
        default = getattr(defaults, attribute)
        limits.add_argument(flag, type=kind, default=default, metavar="N", help=f"{what} (default {default:g})")
    limits.add_argument(
        "--no-limits",
        action="store_true",
        help="turn every quota and connection cap off (benchmarks and test suites; never in production)",
    )
    connections = serve.add_argument_group(
        "connections",
        "Caps on open connections, per client address (an IPv6 address counts by its /64) and in all, on each "
        "port, and timeouts that close silent connections. The soft open-files limit is raised to the hard one "
        "at start; 0 derives a cap from it, keeping descriptors back for the store, metrics and health checks.",
    )
    connection_defaults = ConnectionLimits()
    connection_flags: tuple[tuple[str, str, Callable[[str], float], str], ...] = (
        ("--max-connections", "max_connections", int, "connections on both ports together (0: derived)"),
        ("--connections-per-address", "per_address", int, "connections of one client address per port (0: derived)"),
        ("--head-timeout", "head_timeout", _duration, "seconds a web client may take to send a request head"),
        ("--body-timeout", "body_timeout", _duration, "seconds a web request may take to send its body"),
        ("--handshake-timeout", "handshake_timeout", _duration, "seconds a gRPC client may take to start HTTP/2"),
        ("--idle-timeout", "idle_timeout", _duration, "seconds a gRPC connection may stay open with no call"),
    )
    for flag, attribute, parse, what in connection_flags:
        default = getattr(connection_defaults, attribute)
        connections.add_argument(flag, type=parse, default=default, metavar="N", help=f"{what} (default {default:g})")
    serve.add_argument(
        "--workers",
        type=_positive,
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
    clocks = serve.add_argument_group(
        "turn clocks and the life of games",
        "Durations are seconds, or a number with s, m, h or d (90s, 10m, 7d). The clock options apply to games "
        "created without clock settings of their own; a game can ask for none.",
    )
    clocks.add_argument(
        "--clock",
        type=_duration,
        default=DEFAULT_CLOCK,
        metavar="TIME",
        help=f"time per decision (default {DEFAULT_CLOCK:g}s; 0: no clocks)",
    )
    clocks.add_argument(
        "--clock-reserve",
        type=_duration,
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
        "--presence",
        type=_duration,
        default=30.0,
        metavar="TIME",
        help="a seat is present while it watches the game or called within this time (default 30s)",
    )
    clocks.add_argument(
        "--abandon-after",
        type=_duration,
        default=DEFAULT_ABANDON,
        metavar="TIME",
        help=f"close games whose table did not fill within this time (default {DEFAULT_ABANDON:g}s; 0: never)",
    )
    clocks.add_argument(
        "--retention",
        type=_duration,
        metavar="TIME",
        help="remove finished and closed games this long after they ended (default: keep them); live games never",
    )
    serve.set_defaults(run=_run_serve)

    keys = commands.add_parser(
        "keys",
        help="create, list and revoke API keys (client credentials of third-party apps)",
        description="API keys identify the apps that call the service (sent as 'x-api-key: <key>' metadata). The "
        "store keeps only a hash of each key: 'create' shows a key once. A revoked key is refused by every "
        "replica within a few seconds.",
    )
    keys.add_argument(
        "--store",
        default=os.environ.get("TRUCO_STORE", "sqlite:///truco.db"),
        metavar="URL",
        help="the server's event store (default $TRUCO_STORE or sqlite:///truco.db)",
    )
    key_commands = keys.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    create = key_commands.add_parser("create", help="make a key and print it (once)")
    create.add_argument("--name", required=True, help="what the key is for, e.g. the app's name")
    create.add_argument("--json", action="store_true", help="print the key and its id as JSON")
    own = create.add_argument_group(
        "the app's own totals", "All the key's players together; unset: the server's flag of the same name."
    )
    for flag, kind in KEY_QUOTA_FLAGS:
        own.add_argument(flag, type=kind, metavar="N")
    key_commands.add_parser("list", help="every key: id, name, created, revoked")
    revoke = key_commands.add_parser("revoke", help="refuse a key from now on")
    revoke.add_argument("key_id", metavar="KEY_ID", help="the key's id (from 'list')")
    keys.set_defaults(run=_run_keys)

    gc = commands.add_parser(
        "gc",
        help="remove finished and closed games older than a limit from an event store",
        description="Removes every game that is over (finished, or closed unplayed) and ended more than "
        "--older-than ago, with its events. Games still in play are never removed. Safe while servers run.",
    )
    gc.add_argument(
        "--store",
        default=os.environ.get("TRUCO_STORE", "sqlite:///truco.db"),
        metavar="URL",
        help="event store: sqlite:///path/truco.db (default) or postgresql://user:pass@host/db",
    )
    gc.add_argument("--older-than", type=_duration, required=True, metavar="TIME", help="e.g. 30d, 12h, 0")
    gc.set_defaults(run=_run_gc)

    play = commands.add_parser(
        "play",
        help="play a match in the terminal against the server's bots (or join a game)",
        description="Creates a game on the server with bots in every other seat (or joins --game) and lets you "
        "play it: cards shown with their names, the muestra's piezas marked, options numbered.",
    )
    play.add_argument("--server", required=True, metavar="ADDR", help="the server, host:port")
    play.add_argument("--players", type=int, choices=VALID_PLAYERS, default=2)
    play.add_argument("--bots", choices=("random", "heuristic"), default="heuristic", help="the server's bots")
    play.add_argument(
        "--level",
        action="append",
        choices=LEVEL_CHOICES,
        metavar="LEVEL",
        help="the server's bots' level: beginner, intermediate or expert; once for every bot seat, or once per bot "
        "seat in seat order (instead of --bots)",
    )
    play.add_argument("--seat", type=int, metavar="N", help="your seat (default 0; with --game, the first open)")
    play.add_argument("--game", metavar="NAME", help="join this game (games/ID) instead of creating one")
    play.add_argument("--name", default="human", help="your name at the table")
    play.set_defaults(run=_run_play)

    selfplay = commands.add_parser(
        "selfplay",
        help="play whole matches through the server, one client per seat (a load generator)",
        description="Creates N games with every seat human; each seat joins with its own client and plays with "
        "an in-process bot. Prints each final score and a summary (moves/s, latencies, errors by reason).",
    )
    selfplay.add_argument("--server", required=True, metavar="ADDR", help="the server, host:port")
    selfplay.add_argument("--players", type=int, choices=VALID_PLAYERS, default=2)
    selfplay.add_argument("--games", type=_positive, default=1, metavar="N")
    selfplay.add_argument("--bots", choices=("random", "heuristic"), default="random")
    selfplay.add_argument(
        "--level",
        choices=LEVEL_CHOICES,
        metavar="LEVEL",
        help="every seat's bot by level: beginner, intermediate or expert (instead of --bots)",
    )
    selfplay.add_argument("--concurrency", type=_positive, default=1, metavar="K", help="games played at once")
    selfplay.add_argument("--target", type=int, choices=VALID_TARGETS, metavar="T", help="points to win (default 30)")
    selfplay.add_argument("--seed", type=int, metavar="S", help="seed the bots' choices")
    selfplay.add_argument(
        "--clock",
        type=_duration,
        metavar="SECONDS",
        help="create the games with this decision clock and the takeover policy (default: the server's)",
    )
    selfplay.add_argument(
        "--drop-seat",
        type=int,
        metavar="N",
        help="seat N's client stops acting after its first move, as a player who walks away",
    )
    selfplay.add_argument(
        "--retries",
        type=int,
        default=4,
        metavar="R",
        help="retries of each call on UNAVAILABLE, same request id, backoff up to 3 s (default 4; more rides out "
        "a longer outage)",
    )
    selfplay.set_defaults(run=_run_selfplay)

    arena.register(commands)
    return parser


KEY_QUOTA_FLAGS: tuple[tuple[str, type[float] | type[int]], ...] = (
    ("--calls-per-second", float),
    ("--burst", int),
    ("--games-per-minute", float),
    ("--open-games", int),
    ("--calls-in-flight", int),
    ("--watch-streams", int),
    ("--watch-streams-per-key", int),
)
"""The app totals a key may carry of its own (truco.server.app_quotas.AppQuotas), as ``truco serve`` flags."""
DEFAULT_CLOCK = 30.0
"""``truco serve``'s time per decision, in seconds."""
LEVEL_CHOICES = ("beginner", "intermediate", "expert")
"""The bot levels (truco.bots.Level) a command line may choose."""
DEFAULT_RESERVE = 120.0
"""``truco serve``'s per-match reserve of each seat, in seconds."""
DEFAULT_ABANDON = 600.0
"""``truco serve`` closes games nobody joined after this many seconds."""
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def _levels(given: list[str] | None, seats: int) -> list[str]:
    """``--level`` given once (every bot seat) or once per bot seat. :raises UsageError: for another count."""
    if not given:
        return []
    if len(given) == 1:
        return given * seats
    if len(given) != seats:
        raise UsageError(f"--level: give one level for every bot seat, or one for each of the {seats} bot seats")
    return given


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _duration(text: str) -> float:
    """Seconds, or a number with a unit: s, m, h, d."""
    unit = _UNITS.get(text[-1:].lower())
    try:
        value = float(text[:-1] if unit else text) * (unit or 1.0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (seconds, or 90s, 10m, 12h, 7d)") from None
    if value < 0:
        raise argparse.ArgumentTypeError("cannot be negative")
    return value


# --- truco eval -----------------------------------------------------------------------------------------------


def _parse_hand(words: Sequence[str], with_flor: bool) -> HandEvaluation:
    if len(words) != 4:
        raise UsageError(f"expected a muestra and three cards, got {len(words)} card(s)")
    try:
        muestra, *cards = (Card.parse(word) for word in words)
        return evaluate_hand(muestra, cards, with_flor=with_flor)
    except (CardParseError, HandError) as error:
        raise UsageError(str(error)) from None


def evaluation_json(evaluation: HandEvaluation) -> dict[str, object]:
    """The JSON line of ``truco eval --batch``."""
    return {
        "envido": evaluation.envido,
        "flor": evaluation.flor,
        "flor_points": evaluation.flor_points,
        "strength": list(evaluation.strength),
    }


def _run_eval(args: argparse.Namespace) -> int:
    with_flor = not args.sin_flor
    if args.batch:
        if args.cards or args.muestra:
            raise UsageError("--batch reads hands from standard input; give no cards on the command line")
        return _eval_batch(sys.stdin, sys.stdout, with_flor)
    if args.muestra is None:
        raise UsageError("give --muestra CARD and the hand's three cards (or --batch)")
    evaluation = _parse_hand([args.muestra, *args.cards], with_flor)
    if args.json:
        print(json.dumps(evaluation_json(evaluation)))
    else:
        print(format_evaluation(evaluation))
    return 0


def _eval_batch(source: TextIO, sink: TextIO, with_flor: bool) -> int:
    for number, line in enumerate(source, start=1):
        words = line.split()
        if not words:
            continue
        try:
            evaluation = _parse_hand(words, with_flor)
        except UsageError as error:
            sink.flush()
            print(f"truco eval: line {number}: {error}: {line.strip()!r}", file=sys.stderr)
            return 1
        sink.write(json.dumps(evaluation_json(evaluation)) + "\n")
    return 0


def format_evaluation(evaluation: HandEvaluation) -> str:
    muestra = evaluation.muestra
    lines = [
        f"muestra   {muestra}   piezas {' '.join(str(p) for p in piezas(muestra))}",
        f"hand      {' '.join(str(c) for c in evaluation.cards)}",
        f"envido    {evaluation.envido if evaluation.envido is not None else '- (flor: no envido is played)'}",
        f"flor      {'yes, ' + str(evaluation.flor_points) + ' points' if evaluation.flor else 'no'}",
        "strength  "
        + ", ".join(
            f"{card} {value}{' (pieza)' if is_pieza(card, muestra) else ''}"
            for card, value in zip(evaluation.cards, evaluation.strength, strict=True)
        )
        + "   (bigger wins a round; equal is a parda)",
    ]
    return "\n".join(lines)


# --- truco simulate -------------------------------------------------------------------------------------------


def _run_simulate(args: argparse.Namespace) -> int:
    from .simulate import format_report, simulate

    try:
        RuleSet(players=args.players, target=args.target)
    except RuleSetError as error:
        raise UsageError(str(error)) from None
    report = simulate(
        players=args.players,
        games=args.games,
        seed=args.seed,
        target=args.target,
        bots=args.bots,
        progress=False if args.no_progress else None,
        levels=tuple(_levels(args.level, args.players)),
    )
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        print(format_report(report))
    return 0


# --- truco play and truco selfplay (gRPC clients: grpc is imported only here) ------------------------------------


def _run_serve(args: argparse.Namespace) -> int:
    from truco.server.app import ConfigError, ServeConfig, main
    from truco.server.clocks import ClockSettings
    from truco.server.workers import WorkersError, resolve_workers, serve_workers

    clock = (
        ClockSettings.seconds(args.clock, args.clock_reserve, forfeit=args.clock_policy == "forfeit")
        if args.clock > 0
        else None
    )
    limits = Limits.unlimited() if args.no_limits else Limits(
        calls_per_second=args.calls_per_second,
        burst=args.burst,
        player_calls_per_second=args.player_calls_per_second,
        player_burst=args.player_burst,
        games_per_minute=args.games_per_minute,
        open_games=args.open_games,
        calls_in_flight=args.calls_in_flight,
        watch_streams=args.watch_streams,
        watch_streams_per_connection=args.watch_streams_per_connection,
        watch_streams_per_key=args.watch_streams_per_key,
        joins_per_minute=args.joins_per_minute,
    )
    config = ServeConfig(
        store=args.store,
        host=args.host,
        port=args.port,
        metrics_port=None if args.metrics_port < 0 else args.metrics_port,
        web_port=None if args.web_port < 0 else args.web_port,
        cors_origins=tuple(args.cors_origin),
        web_assets=args.web_assets,
        allow_fixed_deals=args.allow_fixed_deals,
        grace_seconds=args.grace,
        log_format=args.log_format,
        require_api_key=args.require_api_key,
        limits=limits,
        connections=_connection_limits(args),
        clock=clock,
        presence_seconds=args.presence,
        abandon_after=args.abandon_after or None,
        retention=args.retention,
    )
    try:
        workers = resolve_workers(config.store, args.workers)
    except WorkersError as error:
        raise UsageError(str(error)) from None
    try:
        return main(config) if workers == 1 else serve_workers(config, workers)
    except WorkersError as error:  # a worker that could not start (its error is logged above)
        raise UsageError(str(error)) from None
    except (ValueError, ConfigError) as error:  # an unknown store URL, a missing token key
        raise UsageError(str(error)) from None


def _connection_limits(args: argparse.Namespace) -> ConnectionLimits:
    timeouts = {
        "head_timeout": args.head_timeout,
        "body_timeout": args.body_timeout,
        "handshake_timeout": args.handshake_timeout,
        "idle_timeout": args.idle_timeout,
    }
    if args.no_limits:
        return replace(ConnectionLimits.unlimited(), **timeouts)
    return ConnectionLimits(max_connections=args.max_connections, per_address=args.connections_per_address, **timeouts)


def _run_keys(args: argparse.Namespace) -> int:
    import asyncio

    from truco.server.app_quotas import AppQuotas
    from truco.server.keys import create_key, now, printable
    from truco.server.store import ApiKeyNotFound, StoreUnavailable, open_store

    async def run() -> int:
        store = await open_store(args.store)
        try:
            if args.keys_command == "create":
                names = [flag[2:].replace("-", "_") for flag, _ in KEY_QUOTA_FLAGS]
                own = {name: getattr(args, name) for name in names}
                quotas = AppQuotas(**{name: value for name, value in own.items() if value is not None})
                record, key = await create_key(store, args.name, quotas)
                if args.json:
                    print(json.dumps({"key_id": record.key_id, "name": record.name, "key": key, "quotas": own}))
                else:
                    print(f"API key {record.key_id} ({record.name}, {quotas.describe()}); shown only now, keep it "
                          f"secret:\n{key}")
            elif args.keys_command == "list":
                for item in await store.list_api_keys():
                    state = f"revoked {item.revoked_at}" if item.revoked_at else "active"
                    own_quotas = AppQuotas.from_json(item.quotas).describe()
                    print(f"{item.key_id}  {item.created_at}  {state:<36}  {printable(item.name)}  ({own_quotas})")
            else:
                try:
                    record = await store.revoke_api_key(args.key_id, now())
                except ApiKeyNotFound:
                    raise UsageError(f"no API key {args.key_id!r} (see 'truco keys list')") from None
                print(f"API key {record.key_id} ({record.name}) revoked at {record.revoked_at}")
        finally:
            await store.close()
        return 0

    try:
        return asyncio.run(run())
    except (ValueError, StoreUnavailable) as error:
        raise UsageError(str(error)) from None


def _run_gc(args: argparse.Namespace) -> int:
    import asyncio

    from truco.server.lifecycle import collect_garbage
    from truco.server.store import open_store

    async def run() -> int:
        store = await open_store(args.store)
        try:
            return await collect_garbage(store, args.older_than)
        finally:
            await store.close()

    try:
        removed = asyncio.run(run())
    except ValueError as error:  # an unknown store URL
        raise UsageError(str(error)) from None
    print(f"truco gc: removed {removed} games that ended more than {args.older_than:g}s ago")
    return 0


def _run_play(args: argparse.Namespace) -> int:
    from .play import PlayOptions, run

    if args.game is None and args.seat is not None and not 0 <= args.seat < args.players:
        raise UsageError(f"--seat must be 0 to {args.players - 1} with --players {args.players}")
    return run(
        PlayOptions(
            server=args.server,
            players=args.players,
            bots=args.bots,
            levels=tuple(_levels(args.level, args.players - 1)),
            seat=args.seat,
            game=args.game,
            player_name=args.name,
        )
    )


def _run_selfplay(args: argparse.Namespace) -> int:
    from .selfplay import SelfplayOptions, run

    if args.drop_seat is not None and not 0 <= args.drop_seat < args.players:
        raise UsageError(f"--drop-seat must be 0 to {args.players - 1} with --players {args.players}")

    return run(
        SelfplayOptions(
            server=args.server,
            players=args.players,
            games=args.games,
            bots=args.level or args.bots,
            concurrency=args.concurrency,
            target=args.target,
            seed=args.seed,
            clock=args.clock,
            drop_seat=args.drop_seat,
            retries=args.retries,
        )
    )
