"""The command line of ``truco-terminal``: one module per command registers itself, and one runner turns any
failure a user can meet (a typing mistake, a refused call, an unreachable server) into a single line on standard
error and a non-zero exit status, never a traceback.

A command is one function that adds its subparser to the program's subparsers and sets ``run`` on it (importing
what the command needs only when it runs); :func:`build_parser` makes a program of such functions. Adding a
command is writing its function and listing it in :data:`truco.terminal.main.COMMANDS`. The server's ``truco``
has a command line of its own (truco.cli.commandline, so truco-server needs no client) and adopts ``play`` and
``selfplay`` from here when this package is installed, their failures explained by :func:`explain_failure`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from truco_client import TrucoError


class UsageError(Exception):
    """A mistake in what the user typed: reported in one line, exit status 2, no traceback."""


class Failure(Exception):
    """A command that could not do its job for a reason outside the program (a refused call, a server or store
    that cannot be reached): reported in one line, exit status 1, no traceback."""


Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What ``add_subparsers`` returns: where a command adds its parser."""
Command = Callable[[Subcommands], None]
"""A subcommand: adds its parser (``commands.add_parser``) and sets ``run`` (args -> exit status) on it."""


def build_parser(
    prog: str,
    description: str,
    commands: Iterable[Command],
    options: Callable[[argparse.ArgumentParser], object] | None = None,
) -> argparse.ArgumentParser:
    """A program of subcommands, one per command function, in the order given; ``options`` adds the program's
    own options (``--version``)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    if options is not None:
        options(parser)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in commands:
        command(subparsers)
    return parser


def run(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> int:
    """Parse ``argv`` and run the chosen command; every failure a user can cause or meet is one line."""
    args = parser.parse_args(argv)
    name = f"{parser.prog} {args.command}"
    try:
        status: int = args.run(args)
        return status
    except UsageError as error:
        print(f"{name}: {one_line(str(error))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:
        line = explain_failure(error)
        if line is None:
            raise
        print(f"{name}: {line}", file=sys.stderr)
        return 1


def explain_failure(error: BaseException) -> str | None:
    """The line for a :class:`Failure` or a call the server refused or never answered; None for anything else
    (a bug: its traceback is worth seeing)."""
    if isinstance(error, Failure):
        return one_line(str(error))
    truco_client = sys.modules.get("truco_client")  # no call was made unless the SDK was imported
    if truco_client is not None and isinstance(error, truco_client.TrucoError):
        return refused(error)
    return None


def refused(error: TrucoError, server: str = "") -> str:
    """``cannot reach the server at localhost:1 (UNAVAILABLE: …)``, or ``the server refused: … (SEAT_UNAVAILABLE)``."""
    import grpc

    where = f" at {server}" if server else ""
    if error.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED) and not error.reason:
        return one_line(f"cannot reach the server{where} ({error.code.name}: {error.message})")
    reason = error.reason or error.code.name
    return one_line(f"the server{where} refused: {error.message} ({reason})")


def one_line(text: str) -> str:
    """``text`` with its line breaks and runs of blanks made single spaces (a driver's message may span lines)."""
    return " ".join(text.split())


# --- Argument types shared by the commands -------------------------------------------------------------------

LEVEL_CHOICES = ("beginner", "intermediate", "expert")
"""The bot levels (truco.bots.Level) a command line may choose."""


_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def positive(text: str) -> int:
    """An integer of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def duration(text: str) -> float:
    """Seconds, or a number with a unit: s, m, h, d."""
    unit = _UNITS.get(text[-1:].lower())
    try:
        value = float(text[:-1] if unit else text) * (unit or 1.0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (seconds, or 90s, 10m, 12h, 7d)") from None
    if value < 0:
        raise argparse.ArgumentTypeError("cannot be negative")
    return value
