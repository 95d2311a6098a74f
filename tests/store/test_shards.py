"""Games sharded over two real PostgreSQL clusters (store/shards.py): the whole store contract holds on the
sharded store, each game lives whole in the shard its id names, a retried create lands where the first did, the
lobby is one exact newest-first order across shards, and a shard that is down fails only its own games."""

from __future__ import annotations

import asyncio
import subprocess
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from psycopg import sql

from truco.server.core.reasons import ServiceReason
from truco.server.service.errors import Code, from_exception
from truco.server.store import EventStore, GameNotFound, ShardUnavailable, StoreUnavailable, open_store
from truco.server.store.shards import ShardedStore, is_sharded, parse_shard_map

from ..conftest import POSTGRES_CLUSTER_SCRIPT, postgres_cluster
from .test_store_contract import StoreContract, events, new_game

Cluster = tuple[str, str]


@pytest.fixture(scope="module")
def clusters() -> Iterator[tuple[Cluster, Cluster]]:
    """Two PostgreSQL clusters of this module's own (one is halted by a test): the shards' primaries."""
    with postgres_cluster() as first, postgres_cluster() as second:
        yield first, second


def fresh_database(admin_url: str) -> str:
    name = f"truco_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return urlunsplit(urlsplit(admin_url)._replace(path=f"/{name}"))


def drop_database(url: str, admin_url: str) -> None:
    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def shard_urls(clusters: tuple[Cluster, Cluster]) -> Iterator[tuple[str, str]]:
    """A new database in each cluster: shard s0 in the first, s1 in the second."""
    (_, first), (_, second) = clusters
    made = fresh_database(first), fresh_database(second)
    yield made
    for url, admin in zip(made, (first, second), strict=True):
        drop_database(url, admin)


class TestShardedStore(StoreContract):
    """Every test of the store contract, on a store of two shards (ids like ``g1`` placed by their hash)."""

    @pytest.fixture
    def store_url(self, shard_urls: tuple[str, str]) -> str:
        return " ".join(shard_urls)

    async def make_store(self) -> EventStore:
        return await open_store(self.url)


@pytest.fixture
async def sharded(shard_urls: tuple[str, str]) -> AsyncIterator[ShardedStore]:
    store = await open_store(" ".join(shard_urls))
    assert isinstance(store, ShardedStore)
    yield store
    await store.close()


def games_in(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {str(row[0]) for row in conn.execute("SELECT game_id FROM games")}


async def test_each_game_lives_whole_in_the_shard_its_id_names(
    sharded: ShardedStore, shard_urls: tuple[str, str]
) -> None:
    made = []
    for number in range(40):
        game_id = sharded.new_game_id(f"request-{number}")
        await sharded.create_game(new_game(game_id), events("E1"), f"request-{number}")
        await sharded.append(game_id, 1, events("E2"), None, b"", False)
        made.append(game_id)
    by_prefix = {name: {g for g in made if g.startswith(f"{name}-")} for name in sharded.names}
    assert set(sharded.names) == {"s0", "s1"}
    assert all(by_prefix.values()), "forty request ids all hashed to one shard"
    for name, url in zip(sharded.names, shard_urls, strict=True):
        assert games_in(url) == by_prefix[name]
        with psycopg.connect(url) as conn:
            events_of = {str(g) for (g,) in conn.execute("SELECT DISTINCT game_id FROM events")}
        assert events_of == by_prefix[name]


async def test_a_retried_create_lands_on_the_first_shard_and_returns_the_first_game(sharded: ShardedStore) -> None:
    first_id = sharded.new_game_id("create-once")
    again_id = sharded.new_game_id("create-once")
    assert first_id != again_id and first_id.split("-")[0] == again_id.split("-")[0]
    first = await sharded.create_game(new_game(first_id), events("E1"), "create-once")
    again = await sharded.create_game(new_game(again_id), events("E1"), "create-once")
    assert again.game_id == first.game_id == first_id
    with pytest.raises(GameNotFound):
        await sharded.get_game(again_id)


async def test_the_lobby_is_one_newest_first_order_across_shards(sharded: ShardedStore) -> None:
    made = []
    for minute in range(7):
        game_id = sharded.new_game_id(f"lobby-{minute}")
        await sharded.create_game(new_game(game_id, f"2025-01-01T12:{minute:02d}:00.000000Z"), [], None)
        made.append(game_id)
    assert {g.split("-")[0] for g in made} == {"s0", "s1"}
    seen, cursor = [], None
    while True:
        page, cursor = await sharded.list_open_games(3, cursor)
        seen += [game.game_id for game in page]
        if cursor is None:
            break
    assert seen == made[::-1]
    assert await sharded.count_unfinished_games("") == 7


async def test_a_shard_that_is_down_fails_only_its_own_games(
    sharded: ShardedStore, clusters: tuple[Cluster, Cluster]
) -> None:
    ids = {name: f"{name}-{uuid.uuid4().hex}" for name in sharded.names}
    for game_id in ids.values():
        await sharded.create_game(new_game(game_id), events("E1"), None)
    (_, _), (second_dir, _) = clusters
    script = ["bash", str(POSTGRES_CLUSTER_SCRIPT)]
    subprocess.run([*script, "halt", second_dir], check=True, capture_output=True, timeout=120)
    try:
        with pytest.raises(ShardUnavailable) as down:
            await sharded.append(ids["s1"], 1, events("E2"), "r1", b"", False)
        assert down.value.shard == "s1"
        refusal = from_exception(down.value)
        assert (refusal.code, refusal.reason, refusal.metadata) == (
            Code.UNAVAILABLE,
            ServiceReason.SHARD_UNAVAILABLE.value,
            {"shard": "s1"},
        )
        # The other shard's games answer as before; the lobby lists them; the replica stays up.
        await sharded.append(ids["s0"], 1, events("E2"), None, b"", False)
        assert [e.kind for e in await sharded.read(ids["s0"])] == ["E1", "E2"]
        assert [g.game_id for g in (await sharded.list_open_games(10, None))[0]] == [ids["s0"]]
        await sharded.ping()
        # A create whose request id hashes to the down shard fails with its name; one without goes elsewhere
        # only if chance picks the up shard, so it is not asserted.
        request = next(f"r{n}" for n in range(100) if sharded.new_game_id(f"r{n}").startswith("s1-"))
        with pytest.raises(ShardUnavailable):
            await sharded.create_game(new_game(sharded.new_game_id(request)), [], request)
    finally:
        subprocess.run([*script, "resume", second_dir], check=True, capture_output=True, timeout=120)
    # Back: the retried append applies once.
    for _ in range(50):
        try:
            result = await sharded.append(ids["s1"], 1, events("E2"), "r1", b"", False)
            break
        except StoreUnavailable:
            await asyncio.sleep(0.1)
    assert result.last_seq == 2
    assert [e.kind for e in await sharded.read(ids["s1"])] == ["E1", "E2"]


async def test_every_shard_down_is_unavailable(sharded: ShardedStore, clusters: tuple[Cluster, Cluster]) -> None:
    script = ["bash", str(POSTGRES_CLUSTER_SCRIPT)]
    for cluster_dir, _ in clusters:
        subprocess.run([*script, "halt", cluster_dir], check=True, capture_output=True, timeout=120)
    try:
        with pytest.raises(StoreUnavailable):
            await sharded.ping()
        with pytest.raises(StoreUnavailable):
            await sharded.list_open_games(5, None)
    finally:
        for cluster_dir, _ in clusters:
            subprocess.run([*script, "resume", cluster_dir], check=True, capture_output=True, timeout=120)


def test_a_shard_map_file_names_the_shards(tmp_path: Path) -> None:
    path = tmp_path / "shards.toml"
    path.write_text('[shards]\nnorth = "postgresql://a/truco"\nsouth = "postgres://b/truco"\n')
    url = f"shards:{path}"
    assert is_sharded(url)
    assert parse_shard_map(url).urls == (("north", "postgresql://a/truco"), ("south", "postgres://b/truco"))
    assert parse_shard_map("postgresql://a/x  postgresql://b/y").names == ("s0", "s1")
    assert not is_sharded("postgresql://a/x")


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('[shards]\nonly = "postgresql://a/t"\n', "at least two"),
        ('[shards]\nA-1 = "postgresql://a/t"\nb = "postgresql://b/t"\n', "bad shard name"),
        ('[shards]\na = "sqlite:///x.db"\nb = "postgresql://b/t"\n', "is a PostgreSQL database"),
        ("[other]\n", r"needs a \[shards\] table"),
        ("[shards\n", "cannot read"),
    ],
)
def test_a_bad_shard_map_is_refused(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / "shards.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=error):
        parse_shard_map(f"shards:{path}")


def test_the_kubernetes_shard_map_is_one_the_server_reads(tmp_path: Path) -> None:
    """deploy/k8s/sharded's ConfigMap holds a map `--store shards:` accepts, without passwords."""
    import yaml

    configmap = yaml.safe_load((Path(__file__).parents[2] / "deploy/k8s/sharded/shards-configmap.yaml").read_text())
    path = tmp_path / "shards.toml"
    path.write_text(configmap["data"]["shards.toml"])
    shard_map = parse_shard_map(f"shards:{path}")
    assert shard_map.names == ("s0", "s1")
    assert all(urlsplit(url).password is None for _, url in shard_map.urls)
