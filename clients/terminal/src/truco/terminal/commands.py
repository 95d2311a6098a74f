"""The terminal client's subcommands, one small function each: ``play`` and ``selfplay``. Each adds its
subparser and a ``run`` that imports the command's module only when it runs, so a program that registers them
(``truco-terminal``, and the server's ``truco``) starts without loading grpc for its other commands."""

from __future__ import annotations

import argparse
import os

from truco.commandline import LEVEL_CHOICES, Subcommands, UsageError, duration, positive
from truco.engine.rules import VALID_PLAYERS, VALID_TARGETS


def play(commands: Subcommands) -> None:
    """``play``: the subcommand of ``truco-terminal`` and of the server's ``truco``."""
    parser = commands.add_parser(
        "play",
        help="play a match in the terminal against the server's bots (or join a game)",
        description="Creates a game on the server with bots in every other seat (or joins --game) and lets you "
        "play it: cards shown with their names, the muestra's piezas and the matas marked, options numbered.",
    )
    parser.add_argument("--server", required=True, metavar="ADDR", help="the server, host:port")
    parser.add_argument("--players", type=int, choices=VALID_PLAYERS, default=2)
    parser.add_argument("--bots", choices=("random", "heuristic"), default="heuristic", help="the server's bots")
    parser.add_argument(
        "--level",
        choices=LEVEL_CHOICES,
        metavar="LEVEL",
        help="the server's bots' level, for every bot seat: beginner, intermediate or expert (instead of --bots)",
    )
    parser.add_argument("--seat", type=int, metavar="N", help="your seat (default 0; with --game, the first open)")
    parser.add_argument("--game", metavar="NAME", help="join this game (games/ID) instead of creating one")
    parser.add_argument("--name", default="human", help="your name at the table")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="quick match: look for players of your level (with --player-token) instead of creating a game",
    )
    parser.add_argument(
        "--player-token",
        metavar="JWT",
        default=os.environ.get("TRUCO_PLAYER_TOKEN"),
        help="your player token, the JWT your app signed for you (default: $TRUCO_PLAYER_TOKEN)",
    )
    parser.add_argument(
        "--bots-after",
        type=duration,
        metavar="SECONDS",
        help="with --quick: let the server's bots fill the table after this wait (an unrated match)",
    )
    parser.add_argument(
        "--lang",
        choices=("es", "en"),
        help="the table's language: es, Rioplatense Spanish (the default), or en; without it, en when LC_ALL, "
        "LC_MESSAGES or LANG starts with en",
    )
    parser.set_defaults(run=_run_play)


def _run_play(args: argparse.Namespace) -> int:
    if args.game is None and args.seat is not None and not 0 <= args.seat < args.players:
        raise UsageError(f"--seat must be 0 to {args.players - 1} with --players {args.players}")
    if args.quick and not args.player_token:
        raise UsageError("--quick needs a player token: --player-token JWT or $TRUCO_PLAYER_TOKEN")
    if args.quick and args.game is not None:
        raise UsageError("--quick finds a game: leave --game out")
    from .play import PlayOptions, run

    return run(
        PlayOptions(
            server=args.server,
            players=args.players,
            bots=args.bots,
            level=args.level,
            seat=args.seat,
            game=args.game,
            player_name=args.name,
            lang=args.lang,
            quick=args.quick,
            player_token=args.player_token,
            bots_after=args.bots_after,
        )
    )


def selfplay(commands: Subcommands) -> None:
    """``selfplay``: the subcommand of ``truco-terminal`` and of the server's ``truco``."""
    parser = commands.add_parser(
        "selfplay",
        help="play whole matches through the server, one client per seat (a load generator)",
        description="Creates N games with every seat human; each seat joins with its own client and plays with "
        "an in-process bot. Prints each final score and a summary (moves/s, latencies, version races, errors "
        "by reason).",
    )
    parser.add_argument("--server", required=True, metavar="ADDR", help="the server, host:port")
    parser.add_argument("--players", type=int, choices=VALID_PLAYERS, default=2)
    parser.add_argument("--games", type=positive, default=1, metavar="N")
    parser.add_argument("--bots", choices=("random", "heuristic"), default="random")
    parser.add_argument(
        "--level",
        choices=LEVEL_CHOICES,
        metavar="LEVEL",
        help="every seat's bot by level: beginner, intermediate or expert (instead of --bots)",
    )
    parser.add_argument("--concurrency", type=positive, default=1, metavar="K", help="games played at once")
    parser.add_argument("--target", type=int, choices=VALID_TARGETS, metavar="T", help="points to win (default 30)")
    parser.add_argument("--seed", type=int, metavar="S", help="seed the bots' choices")
    parser.add_argument(
        "--clock",
        type=duration,
        metavar="SECONDS",
        help="create the games with this decision clock and the takeover policy (default: the server's)",
    )
    parser.add_argument(
        "--drop-seat",
        type=int,
        metavar="N",
        help="seat N's client stops acting after its first move, as a player who walks away",
    )
    parser.add_argument(
        "--retries",
        type=int,
        default=4,
        metavar="R",
        help="retries of each call on UNAVAILABLE, same request id, backoff up to 3 s (default 4; more rides out "
        "a longer outage)",
    )
    parser.set_defaults(run=_run_selfplay)


def _run_selfplay(args: argparse.Namespace) -> int:
    if args.drop_seat is not None and not 0 <= args.drop_seat < args.players:
        raise UsageError(f"--drop-seat must be 0 to {args.players - 1} with --players {args.players}")
    from .selfplay import SelfplayOptions, run

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
