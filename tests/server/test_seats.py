"""Presence: players' sightings are remembered at once and written to the store together, not one write each."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from truco.server.core import seats as seats_module
from truco.server.core.seats import Seats
from truco.server.store.records import SEAT_OPEN, GameRecord, SeatRecord, Sighting, now_us
from truco.server.store.sqlite import SQLiteStore


class CountingStore(SQLiteStore):
    """The real SQLite store, counting the writes of sightings."""

    writes: list[list[Sighting]]

    async def touch_seats(self, sightings: Sequence[Sighting]) -> None:
        self.writes.append(list(sightings))
        await super().touch_seats(sightings)


class Later:
    """The time ``seconds`` from now, in microseconds: a clock for Seats that need time to have passed."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __call__(self) -> int:
        return now_us() + round(self.seconds * 1_000_000)


async def table_of_four(tmp_path: Path) -> CountingStore:
    store = await CountingStore.open(str(tmp_path / "events.db"))
    store.writes = []
    seats = tuple(SeatRecord(seat, SEAT_OPEN, "", "", b"") for seat in range(4))
    await store.create_game(GameRecord("g1", "2025-01-01T12:00:00.000000Z", b"rules", 4, seats, 0, False), [], None)
    for seat in range(4):
        await store.claim_seat("g1", seat, f"hash-{seat}".encode(), f"player {seat}", None)
    return store


async def test_sightings_count_at_once_and_are_written_together(tmp_path: Path) -> None:
    store = await table_of_four(tmp_path)
    try:
        seats = Seats(store, None, presence_seconds=30.0)
        claimed = await store.get_game("g1")
        for seat in (0, 2, 3):
            seats.seen("g1", seat)
            seats.seen("g1", seat)  # seen again within the window: nothing new to write
        assert store.writes == []  # a call never waits for a write of its sighting
        await seats.write_sightings()
        assert [sorted((game, seat) for game, seat, _ in write) for write in store.writes] == [
            [("g1", 0), ("g1", 2), ("g1", 3)]
        ]
        stored = await store.get_game("g1")
        assert [s.seen_us > c.seen_us for s, c in zip(stored.seats, claimed.seats, strict=True)] == [
            True,
            False,
            True,
            True,
        ]
        await seats.write_sightings()
        assert len(store.writes) == 1  # nothing seen since: no write
    finally:
        await store.close()


async def test_this_replica_counts_its_sightings_before_they_are_written(tmp_path: Path) -> None:
    store = await table_of_four(tmp_path)
    try:
        later = Later(seconds=0.55)  # every claim is out of the window
        seats = Seats(store, None, presence_seconds=0.5, clock=later)
        seats.seen("g1", 1)
        assert seats.present(await store.get_game("g1")) == {0: False, 1: True, 2: False, 3: False}
        assert store.writes == []
    finally:
        await store.close()


async def test_the_writer_writes_every_interval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seats_module, "SIGHTINGS_SECONDS", 0.05)
    store = await table_of_four(tmp_path)
    seats = Seats(store, None, presence_seconds=30.0)
    try:
        seats.start()
        for seat in (0, 1):
            seats.seen("g1", seat)
            for _ in range(200):
                if len(store.writes) > seat:
                    break
                await asyncio.sleep(0.01)
        assert [[(game, seat) for game, seat, _ in write] for write in store.writes] == [[("g1", 0)], [("g1", 1)]]
    finally:
        await seats.close()
        await store.close()


async def test_closing_writes_the_last_sightings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seats_module, "SIGHTINGS_SECONDS", 3600.0)
    store = await table_of_four(tmp_path)
    try:
        seats = Seats(store, None, presence_seconds=3600.0)
        seats.start()
        seats.seen("g1", 3)
        await asyncio.sleep(0.01)
        assert store.writes == []
        await seats.close()
        assert [[(game, seat) for game, seat, _ in write] for write in store.writes] == [[("g1", 3)]]
    finally:
        await store.close()


async def test_an_open_watch_keeps_its_player_present_without_waking_and_its_end_is_a_sighting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(seats_module, "SIGHTINGS_SECONDS", 0.02)
    monkeypatch.setattr(seats_module, "MIN_SIGHTINGS_SECONDS", 0.02)
    store = await table_of_four(tmp_path)
    window = 0.1
    later = Later(seconds=2 * window)  # the claims are out of the window from the start
    seats = Seats(store, None, presence_seconds=window, clock=later)
    try:
        seats.start()
        with seats.watching("g1", 2):
            for _ in range(200):  # a sighting written every quarter window, nothing else running but the writer
                if len([seat for write in store.writes for _, seat, _ in write if seat == 2]) >= 4:
                    break
                await asyncio.sleep(0.01)
            assert seats.present(await store.get_game("g1")) == {0: False, 1: False, 2: True, 3: False}
            # Another replica (a Seats of its own) agrees.
            assert Seats(store, None, presence_seconds=window, clock=later).present(await store.get_game("g1"))[2]
            ended = later()
        await seats.close()
        assert (await store.get_game("g1")).seats[2].seen_us >= ended  # the watch's end is its last sighting
        later.seconds += 2 * window  # the window passes with no watch
        elsewhere = Seats(store, None, presence_seconds=window, clock=later)
        assert not elsewhere.present(await store.get_game("g1"))[2]
        assert not seats.present(await store.get_game("g1"))[2]
    finally:
        await seats.close()
        await store.close()
