"""The command-line frame of the ``truco`` and ``truco-terminal`` programs: one module per command registers
itself, and one runner turns any failure a user can meet (a typing mistake, an unreachable store or server, a
refused call) into a single line on standard error and a non-zero exit status, never a traceback.

A command is one function that adds its subparser to the program's subparsers and sets ``run`` on it (importing
what the command needs only when it runs); :func:`build_parser` makes a program of such functions. A program may
explain failures of its own kinds (the terminal client: the SDK's refused calls) with an :data:`Explain` given to
:func:`run`. Both programs are built on this one, so truco-server needs neither the terminal client nor the SDK,
and truco-terminal needs no server.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TypeAlias


class UsageError(Exception):
    """A mistake in what the user typed: reported in one line, exit status 2, no traceback."""


class Failure(Exception):
    """A command that could not do its job for a reason outside the program (a store or server that cannot be
    reached, a call refused): reported in one line, exit status 1, no traceback."""


Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What ``add_subparsers`` returns: where a command adds its parser."""
Command = Callable[[Subcommands], None]
"""A subcommand: adds its parser (``commands.add_parser``) and sets ``run`` (args -> exit status) on it."""
Explain = Callable[[BaseException], "str | None"]
"""A program's account of a failure in one line (None for a bug, whose traceback is worth seeing)."""


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


def run(parser: argparse.ArgumentParser, argv: Sequence[str] | None, explain: Explain | None = None) -> int:
    """Parse ``argv`` and run the chosen command; every failure a user can cause or meet is one line: a
    :class:`UsageError`, a :class:`Failure`, or what ``explain`` gives a line for."""
    args = parser.parse_args(argv)
    name = f"{parser.prog} {args.command}"
    try:
        status: int = args.run(args)
        return status
    except UsageError as error:
        print(f"{name}: {one_line(str(error))}", file=sys.stderr)
        return 2
    except Failure as error:
        print(f"{name}: {one_line(str(error))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:
        line = explain(error) if explain is not None else None
        if line is None:
            raise
        print(f"{name}: {one_line(line)}", file=sys.stderr)
        return 1


def one_line(text: str) -> str:
    """``text`` with its line breaks and runs of blanks made single spaces (a driver's message may span lines).

    >>> one_line("connection refused\\n\\tIs the server running?")
    'connection refused Is the server running?'
    """
    return " ".join(text.split())


# --- Argument types shared by the commands -------------------------------------------------------------------

LEVEL_CHOICES = ("beginner", "intermediate", "expert")
"""The bot levels (truco.bots.Level) a command line may choose."""


def levels(given: list[str] | None, seats: int) -> list[str]:
    """``--level`` given once (every bot seat) or once per bot seat. :raises UsageError: for another count."""
    if not given:
        return []
    if len(given) == 1:
        return given * seats
    if len(given) != seats:
        raise UsageError(f"--level: give one level for every bot seat, or one for each of the {seats} bot seats")
    return given


_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def positive(text: str) -> int:
    """An integer of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def duration(text: str) -> float:
    """Seconds, or a number with a unit: s, m, h, d.

    >>> duration("90s"), duration("10m"), duration("1.5")
    (90.0, 600.0, 1.5)
    """
    unit = _UNITS.get(text[-1:].lower())
    try:
        value = float(text[:-1] if unit else text) * (unit or 1.0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (seconds, or 90s, 10m, 12h, 7d)") from None
    if value < 0:
        raise argparse.ArgumentTypeError("cannot be negative")
    return value
