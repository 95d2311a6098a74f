"""The ``truco`` command: one module (or function) per subcommand, listed in :data:`COMMANDS`.

``play`` and ``selfplay`` are the terminal client's (truco-terminal), registered from :mod:`truco.terminal.commands`
so both programs offer the same flags; the rest need the engine (``eval``, ``simulate``) or the server.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from truco.terminal import commands as terminal
from truco.terminal.commandline import Command, build_parser, run

from . import __version__, arena, evaluate, gc, keys, serve, simulate

COMMANDS: tuple[Command, ...] = (
    evaluate.command,
    simulate.command,
    serve.command,
    keys.command,
    gc.command,
    terminal.play,
    terminal.selfplay,
    arena.register,
)
"""Every subcommand, in the order ``truco --help`` lists them. A new one is a function that adds its parser and
sets ``run`` (see :mod:`truco.terminal.commandline`), listed here."""


def main(argv: Sequence[str] | None = None) -> int:
    return run(parser(), argv)


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
