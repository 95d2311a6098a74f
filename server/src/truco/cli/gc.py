"""``truco gc``: remove old finished and closed games from an event store."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from truco.commandline import Subcommands, duration

from .stores import add_store_option, with_store

if TYPE_CHECKING:
    from truco.server.store import EventStore


def command(commands: Subcommands) -> None:
    gc = commands.add_parser(
        "gc",
        help="remove finished and closed games older than a limit from an event store",
        description="Removes every game that is over (finished, or closed unplayed) and ended more than "
        "--older-than ago, with its events. Games still in play are never removed. Safe while servers run.",
    )
    add_store_option(gc, "the event store")
    gc.add_argument("--older-than", type=duration, required=True, metavar="TIME", help="e.g. 30d, 12h, 0")
    gc.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from truco.server.core.lifecycle import collect_garbage

    async def work(store: EventStore) -> int:
        return await collect_garbage(store, args.older_than)

    removed = with_store(args.store, work)
    print(f"truco gc: removed {removed} games that ended more than {args.older_than:g}s ago")
    return 0
