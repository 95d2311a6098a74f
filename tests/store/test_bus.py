"""Moves heard through NATS (store/bus.py), against a real nats-server and PostgreSQL: replicas wake each other's
watchers through the bus, each hears only the buckets of the games it waits on, and with the bus down watchers
poll the store, counted, and a watcher's versions stay exactly 1, 2, 3... across the outage."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator, Iterator

import pytest

from truco.server.store import EventStore, open_store
from truco.server.store.bus import POLL_SECONDS, NatsBus, bucket_of

from ..conftest import NATS_SERVER_SCRIPT, nats_server
from .test_shards import drop_database, fresh_database
from .test_store_contract import events, new_game

Server = tuple[str, str]


@pytest.fixture(scope="module")
def nats() -> Iterator[Server]:
    with nats_server() as server:
        yield server


@pytest.fixture
def database(postgres_url: str) -> Iterator[str]:
    url = fresh_database(postgres_url)
    yield url
    drop_database(url, postgres_url)


class Replica:
    """A store and its bus, as one server process has them."""

    def __init__(self, store: EventStore, bus: NatsBus) -> None:
        self.store, self.bus = store, bus


@pytest.fixture
async def replicas(database: str, nats: Server) -> AsyncIterator[tuple[Replica, Replica]]:
    made = []
    for _ in range(2):
        bus = await NatsBus.start(nats[1])
        made.append(Replica(await open_store(database, bus=bus), bus))
    for replica in made:
        await until(lambda r=replica: r.bus.up)
    yield made[0], made[1]
    for replica in made:
        await replica.store.close()
        await replica.bus.close()


async def until(condition: object, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


def nats_script(action: str, server: Server) -> None:
    subprocess.run(["bash", str(NATS_SERVER_SCRIPT), action, server[0]], check=True, capture_output=True, timeout=60)


async def test_a_watcher_hears_another_replicas_append_through_the_bus(replicas: tuple[Replica, Replica]) -> None:
    here, there = replicas
    await here.store.create_game(new_game("g1"), events("E1"), None)
    waiting = asyncio.create_task(here.store.wait_for_change("g1", 1, timeout=30))
    await until(lambda: here.bus.stats.buckets == 1)
    await asyncio.sleep(0.05)  # the wait has looked and sleeps
    await there.store.append("g1", 1, events("E2"), None, b"", False)
    assert await asyncio.wait_for(waiting, timeout=5) == 2
    assert here.bus.stats.heard == 1
    assert there.bus.stats.published == 1
    # No NOTIFY and no LISTEN with a bus: the store never vouches for a cache on silence it cannot hear.
    assert here.store.hearing_epoch() is None


async def test_a_replica_hears_only_the_buckets_of_the_games_it_waits_on(replicas: tuple[Replica, Replica]) -> None:
    here, there = replicas
    watched = "g-watched"
    others = [f"g-other-{n}" for n in range(30) if bucket_of(f"g-other-{n}") != bucket_of(watched)]
    for game_id in (watched, *others):
        await there.store.create_game(new_game(game_id), events("E1"), None)
    heard: list[tuple[str, int]] = []
    here.store.on_append(lambda game_id, seq: heard.append((game_id, seq)))
    waiting = asyncio.create_task(here.store.wait_for_change(watched, 2, timeout=30))
    await until(lambda: here.bus.stats.buckets == 1)
    await asyncio.sleep(0.05)
    for seq in (1, 2):
        for game_id in (*others, watched):
            await there.store.append(game_id, seq, events(f"E{seq + 1}"), None, b"", False)
    assert await asyncio.wait_for(waiting, timeout=5) == 3
    await asyncio.sleep(0.2)  # anything else in flight would arrive by now
    assert heard == [(watched, 2), (watched, 3)]
    assert here.bus.stats.heard == 2
    assert there.bus.stats.published == 2 * (len(others) + 1)


async def test_with_the_bus_down_watchers_poll_and_miss_or_repeat_nothing(
    replicas: tuple[Replica, Replica], nats: Server
) -> None:
    here, there = replicas
    await there.store.create_game(new_game("g1"), [], None)
    seen: list[int] = []
    total = 12

    async def watch() -> None:
        version = 0
        while version < total:
            await here.store.wait_for_change("g1", version, timeout=30)
            for event in await here.store.read("g1", version):
                seen.append(event.seq)
                version = event.seq

    async def play() -> None:
        for seq in range(total):
            if seq == 4:
                nats_script("kill", nats)
                await until(lambda: not here.bus.up and not there.bus.up)
            if seq == 8:
                polls = here.bus.stats.polls
                assert polls >= 1, "no poll counted while the bus was down"
                nats_script("resume", nats)
                await until(lambda: here.bus.up and there.bus.up)
            await there.store.append("g1", seq, events(f"E{seq + 1}"), None, b"", False)
            await asyncio.sleep(POLL_SECONDS / 2)

    watcher = asyncio.create_task(watch())
    await play()
    await asyncio.wait_for(watcher, timeout=10)
    assert seen == list(range(1, total + 1))
    assert here.bus.stats.polls >= 1


async def test_sharded_replicas_share_one_bus_and_hear_each_append_once(postgres_url: str, nats: Server) -> None:
    urls = [fresh_database(postgres_url), fresh_database(postgres_url)]
    made = []
    try:
        for _ in range(2):
            bus = await NatsBus.start(nats[1])
            made.append(Replica(await open_store(" ".join(urls), bus=bus), bus))
        here, there = made
        await until(lambda: here.bus.up and there.bus.up)
        game_ids = [here.store.new_game_id(f"create-{n}") for n in range(6)]
        assert {game_id[:2] for game_id in game_ids} == {"s0", "s1"}
        for game_id in game_ids:
            await there.store.create_game(new_game(game_id), events("E1"), None)
        heard: list[tuple[str, int]] = []
        here.store.on_append(lambda game_id, seq: heard.append((game_id, seq)))
        waits = [asyncio.create_task(here.store.wait_for_change(game_id, 1, timeout=30)) for game_id in game_ids]
        await asyncio.sleep(0.3)
        for game_id in game_ids:
            await there.store.append(game_id, 1, events("E2"), None, b"", False)
        assert await asyncio.wait_for(asyncio.gather(*waits), timeout=5) == [2] * len(game_ids)
        assert sorted(heard) == sorted((game_id, 2) for game_id in game_ids)
    finally:
        for replica in made:
            await replica.store.close()
            await replica.bus.close()
        for url in urls:
            drop_database(url, postgres_url)


async def test_a_bus_needs_postgresql(nats: Server) -> None:
    bus = await NatsBus.start(nats[1])
    try:
        with pytest.raises(ValueError, match="SQLite serves one process"):
            await open_store("sqlite:///:memory:", bus=bus)
    finally:
        await bus.close()


def test_buckets_are_stable_and_spread() -> None:
    assert bucket_of("g1") == bucket_of("g1")
    assert len({bucket_of(f"s0-{n:032x}") for n in range(1000)}) > 990
