"""The life of a game after and around its match: abandoned games closed, old games removed.

* **Abandoned**: a game whose table did not fill (a seat is still open) ``abandon_after`` seconds after its
  creation is closed: it becomes over and closed, is never listed again and cannot be joined; it stays readable.
  Its match could never start, so the players who did join lose nothing.
* **Retention**: games that are over (finished or closed) and ended more than ``retention`` seconds ago are
  removed from the store with their events (``truco serve --retention`` or ``truco gc``). A game that is not
  over is never removed, whatever its age.

Both are single statements on the store, so any replica may run them at any time, and several at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import structlog

from truco.server.core.metrics import Metrics
from truco.server.store.interface import GameDirectory
from truco.server.store.records import now_us

DELETE_BATCH = 500


def created_before(seconds: float) -> str:
    """The ``created_at`` text of a game created ``seconds`` ago (the store's sortable format)."""
    return (datetime.now(UTC) - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


async def close_abandoned(store: GameDirectory, after_seconds: float) -> list[str]:
    """Close the games whose table did not fill within ``after_seconds`` of their creation."""
    return await store.close_abandoned(created_before(after_seconds))


async def collect_garbage(store: GameDirectory, older_than_seconds: float, batch: int = DELETE_BATCH) -> int:
    """Remove every over game that ended more than ``older_than_seconds`` ago; how many were removed."""
    cutoff = now_us() - round(older_than_seconds * 1_000_000)
    removed = 0
    while True:
        ids = await store.delete_games(cutoff, batch)
        removed += len(ids)
        if len(ids) < batch:
            return removed


@dataclass
class Housekeeper:
    """What the timekeeper runs now and then: close abandoned games, remove those past retention."""

    store: GameDirectory
    metrics: Metrics
    abandon_after: float | None = None
    retention: float | None = None

    async def __call__(self) -> None:
        log = structlog.get_logger("truco.server.core.lifecycle")
        if self.abandon_after is not None:
            closed = await close_abandoned(self.store, self.abandon_after)
            if closed:
                self.metrics.games_removed.labels("closed").inc(len(closed))
                log.info("closed abandoned games", count=len(closed))
        if self.retention is not None:
            removed = await collect_garbage(self.store, self.retention)
            if removed:
                self.metrics.games_removed.labels("removed").inc(removed)
                log.info("removed old games", count=removed, retention_seconds=self.retention)


__all__ = ["Housekeeper", "close_abandoned", "collect_garbage", "created_before"]
