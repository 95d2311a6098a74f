"""The ``truco`` command: one module (or function) per subcommand, listed in :data:`COMMANDS`.

``play`` and ``selfplay`` are the terminal client's (truco-terminal), adopted from :mod:`truco.terminal.commands`
when it is installed (truco-server's ``play`` extra, or ``./dev``), so both programs offer the same flags; the rest
need the engine (``eval``, ``simulate``) or the server, and run without the terminal client and the SDK.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from . import __version__, arena, evaluate, gc, keys, serve, simulate
from .commandline import Command, Failure, Subcommands, UsageError, build_parser, run

Explain = Callable[[BaseException], "str | None"]
"""The terminal client's account of a failure in one line (None for a bug, whose traceback is worth seeing)."""


def player_commands() -> tuple[Command, ...]:
    """``play`` and ``selfplay`` from truco-terminal, their failures made this program's; none without it."""
    try:
        from truco.terminal import commandline as terminal_line
        from truco.terminal import commands as terminal
    except ModuleNotFoundError as missing:  # truco-server alone: the commands that need no client
        if (missing.name or "").startswith(("truco.terminal", "truco_client")):
            return ()
        raise
    adopt = (terminal_line.UsageError, terminal_line.explain_failure)
    return _adopted(terminal.play, *adopt), _adopted(terminal.selfplay, *adopt)


def _adopted(command: Command, usage_error: type[Exception], explain: Explain) -> Command:
    """``command`` of truco-terminal, whose errors (its own usage errors and failures, and the SDK's refusals,
    which it explains) become this program's, so ``truco play`` fails in one line as ``truco-terminal play``."""

    def register(commands: Subcommands) -> None:
        known = set(commands.choices)
        command(commands)
        for name in set(commands.choices) - known:
            parser = commands.choices[name]
            parser.set_defaults(run=_translated(parser.get_default("run"), usage_error, explain))

    return register


def _translated(
    run_there: Callable[[argparse.Namespace], int], usage_error: type[Exception], explain: Explain
) -> Callable[[argparse.Namespace], int]:
    def run_here(args: argparse.Namespace) -> int:
        try:
            return run_there(args)
        except usage_error as error:
            raise UsageError(str(error)) from None
        except Exception as error:
            line = explain(error)
            if line is None:
                raise
            raise Failure(line) from None

    return run_here


COMMANDS: tuple[Command, ...] = (
    evaluate.command,
    simulate.command,
    serve.command,
    keys.command,
    gc.command,
    *player_commands(),
    arena.register,
)
"""Every subcommand, in the order ``truco --help`` lists them. A new one is a function that adds its parser and
sets ``run`` (see :mod:`truco.cli.commandline`), listed here."""


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
