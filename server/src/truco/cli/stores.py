"""The ``--store`` option of the commands that open the event store themselves (``keys``, ``gc``), and the one
way they open it: an unknown URL is a usage error, a store that cannot be reached one line and exit status 1."""

from __future__ import annotations

import argparse
import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from truco.commandline import Failure, UsageError

if TYPE_CHECKING:
    from truco.server.store import EventStore

T = TypeVar("T")
DEFAULT_STORE = "sqlite:///truco.db"


def add_store_option(parser: argparse.ArgumentParser, what: str = "the server's event store") -> None:
    parser.add_argument(
        "--store",
        default=os.environ.get("TRUCO_STORE", DEFAULT_STORE),
        metavar="URL",
        help=f"{what}: sqlite:///path/truco.db (default $TRUCO_STORE or {DEFAULT_STORE}), "
        "postgresql://user:pass@host/db, or games sharded over several PostgreSQL databases: their URLs "
        "separated by spaces (one argument), or shards:PATH naming a TOML shard map",
    )


def with_store(url: str, work: Callable[[EventStore], Awaitable[T]]) -> T:
    """Open the store at ``url``, run ``work`` on it, close it."""
    from truco.server.store import StoreError, open_store

    async def run() -> T:
        store = await open_store(url)
        try:
            return await work(store)
        finally:
            await store.close()

    try:
        return asyncio.run(run())
    except ValueError as error:  # an unknown store URL
        raise UsageError(str(error)) from None
    except StoreError as error:  # unreachable, refused, or a file that cannot be opened
        raise Failure(str(error)) from None
