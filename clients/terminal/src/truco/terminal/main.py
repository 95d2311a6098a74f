"""``truco-terminal``: the terminal client's own command (``play``, ``selfplay``). The server's ``truco`` command
offers the same two subcommands, registered from the same modules."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from truco.commandline import Command, build_parser, run

from . import __version__, commands
from .commandline import explain_failure

COMMANDS: tuple[Command, ...] = (commands.play, commands.selfplay)
"""The subcommands, in the order ``--help`` lists them; a new one is a function like these, added here."""


def parser() -> argparse.ArgumentParser:
    return build_parser(
        "truco-terminal",
        "Truco Uruguayo in the terminal, against a server's bots or with other players.",
        COMMANDS,
        lambda p: p.add_argument("--version", action="version", version=f"truco-terminal {__version__}"),
    )


def main(argv: Sequence[str] | None = None) -> int:
    return run(parser(), argv, explain_failure)
