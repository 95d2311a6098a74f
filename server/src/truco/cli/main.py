"""The ``truco`` command: one module (or function) per subcommand, listed in :data:`COMMANDS`.

``play`` and ``selfplay`` are the terminal client's (truco-terminal), adopted from :mod:`truco.terminal.commands`
when it is installed (truco-server's ``play`` extra, or ``./dev``), so both programs offer the same flags and fail
alike (both are built on :mod:`truco.commandline`); the rest need the engine (``eval``, ``simulate``) or the
server, and run without the terminal client and the SDK.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from truco.commandline import Command, Explain, build_parser, run

from . import __version__, arena, evaluate, gc, keys, serve, simulate


def player_commands() -> tuple[tuple[Command, ...], Explain | None]:
    """``play`` and ``selfplay`` from truco-terminal, with its account of their failures (the SDK's refused
    calls); none without it."""
    try:
        from truco.terminal import commandline as terminal_line
        from truco.terminal import commands as terminal
    except ModuleNotFoundError as missing:  # truco-server alone: the commands that need no client
        if (missing.name or "").startswith(("truco.terminal", "truco_client")):
            return (), None
        raise
    return (terminal.play, terminal.selfplay), terminal_line.explain_failure


PLAYERS, EXPLAIN = player_commands()

COMMANDS: tuple[Command, ...] = (
    evaluate.command,
    simulate.command,
    serve.command,
    keys.command,
    gc.command,
    *PLAYERS,
    arena.register,
)
"""Every subcommand, in the order ``truco --help`` lists them. A new one is a function that adds its parser and
sets ``run`` (see :mod:`truco.commandline`), listed here."""


def main(argv: Sequence[str] | None = None) -> int:
    return run(parser(), argv, EXPLAIN)


def parser() -> argparse.ArgumentParser:
    return build_parser(
        "truco",
        "Truco Uruguayo (truco con muestra): rules engine and tools.",
        COMMANDS,
        lambda p: p.add_argument(
            "--version", action=_Version, help="show the version and the engine's build, and exit"
        ),
    )


class _Version(argparse.Action):
    """``truco --version``: the version, and whether the engine and the bots run compiled or as pure Python
    (looked up only when asked, so other commands do not import every module for it)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=str(kwargs.get("help")))

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from .builds import describe

        print(f"truco {__version__} ({describe()})")  # on standard output, as argparse's own version action
        parser.exit()
