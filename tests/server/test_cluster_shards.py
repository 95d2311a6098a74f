"""Faults under load on the sharded cluster as users run it: ``scripts/cluster up --shards 2 --bus nats`` starts two
PostgreSQL primaries (fsync on), a nats-server, two ``truco serve`` replicas and nginx on loopback; ``truco
selfplay`` plays concurrent matches through nginx while nats-server, a replica or a shard's primary is killed with
SIGKILL. After each: every game finished, every acknowledged move is stored exactly once (counted over both
shards), every match replays through the engine; and while one shard's primary is down, the other shard's games
keep moving.

Needs nginx, PostgreSQL and nats-server (installed with apt-get by the scripts when missing, as root); without
them the module is skipped, except under CI=true, where it fails.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from truco_client.v1 import game_service_pb2 as gs
from truco_client.v1 import game_service_pb2_grpc as gsg

from ..cluster_helpers import (
    ROOT,
    Load,
    assert_exactly_once_and_sound,
    load_cluster_script,
    wait_for_moves,
    wait_health,
)
from ..players import failure_of

pytestmark = pytest.mark.xdist_group("cluster-shards")

cluster_script = load_cluster_script()
REPLICAS = 2
GAMES = 12


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if cluster_script.find_nginx() is None and (os.geteuid() != 0 or shutil.which("apt-get") is None):
        _unavailable("nginx is not installed and cannot be (needs root and apt-get)")
    directory = tmp_path_factory.mktemp("cluster-shards") / "state"
    command = [str(ROOT / "scripts" / "cluster")]
    options = ["--replicas", str(REPLICAS), "--shards", "2", "--bus", "nats", "--state", str(directory)]
    up = subprocess.run([*command, "up", *options], capture_output=True, text=True, timeout=900)
    if up.returncode != 0:
        _unavailable(f"scripts/cluster up --shards 2 --bus nats failed:\n{up.stderr[-3000:]}")
    state = cluster_script.State.load(directory)
    assert len(state.postgres_urls) == 2 and state.nats_url
    try:
        yield state
    finally:
        state = cluster_script.State.load(directory)
        pids = [r.pid for r in state.replicas] + [state.nginx_pid]
        pids += [cluster_script.shard_pid(state, shard) for shard in range(2)]
        down_command = [*command, "down", "--state", str(directory)]
        down = subprocess.run(down_command, capture_output=True, text=True, timeout=300)
        assert down.returncode == 0, down.stderr
        assert not [pid for pid in pids if cluster_script.alive(pid)], "scripts/cluster down left processes"


def test_games_are_spread_over_both_shards_and_each_move_applies_once(cluster: Any) -> None:
    run = Load(cluster.balancer, games=GAMES).finish()
    assert_exactly_once_and_sound(cluster.store, run, GAMES)
    assert {game.split("-")[0] for game in run.games} == {"s0", "s1"}


def test_nats_server_killed_under_load_loses_and_doubles_nothing(cluster: Any) -> None:
    load = Load(cluster.balancer, games=GAMES)
    wait_for_moves(cluster.store, 40)
    cluster_script.nats_script(cluster, "kill")
    time.sleep(3)  # the replicas poll the store meanwhile
    cluster_script.nats_script(cluster, "resume")
    run = load.finish()
    assert_exactly_once_and_sound(cluster.store, run, GAMES)


def test_a_replica_killed_under_load_loses_and_doubles_nothing(cluster: Any) -> None:
    load = Load(cluster.balancer, games=GAMES)
    wait_for_moves(cluster.store, 40)
    victim = cluster.replicas[0]
    cluster_script.stop_replica(victim, signal.SIGKILL)
    run = load.finish()
    assert_exactly_once_and_sound(cluster.store, run, GAMES)
    replica = cluster_script.start_replica(cluster, victim.index, victim.port)
    wait_health([replica.address], "SERVING", 30)


class Table:
    """A match against a server bot on a chosen shard, through the balancer, every call naming its game."""

    def __init__(self, stub: gsg.GameServiceStub, shard: str) -> None:
        self.stub = stub
        bots = [gs.BotSeat(seat=1, kind=gs.BOT_KIND_RANDOM)]
        while True:  # the shard is a hash of the request id: a few tries find each
            created = stub.CreateGame(gs.CreateGameRequest(request_id=uuid.uuid4().hex, bots=bots), timeout=30)
            if created.game.name.removeprefix("games/").startswith(f"{shard}-"):
                break
        self.name = created.game.name
        self.game = [("x-truco-game", self.name)]
        joined = stub.JoinGame(
            gs.JoinGameRequest(name=self.name, seat=0, request_id=uuid.uuid4().hex), metadata=self.game, timeout=30
        )
        self.metadata = [*self.game, ("authorization", f"Bearer {joined.seat_token}")]
        self.view = joined.view

    def move(self) -> None:
        """One move of seat 0 (a card when one is legal), answered within 10 s; first, while the bot is to act (it
        may be mano, or still answering), the seat's view read again until it has a move."""
        deadline = time.monotonic() + 10
        while not self.view.legal_actions:
            assert time.monotonic() < deadline, "the bot never let seat 0 move"
            time.sleep(0.05)
            request = gs.GetGameViewRequest(name=self.name, min_version=self.view.public.version)
            self.view = self.stub.GetGameView(request, metadata=self.metadata, timeout=10).seat
        actions = self.view.legal_actions
        command = next((a for a in actions if a.WhichOneof("kind") == "play_card"), actions[0])
        request = gs.SubmitCommandRequest(
            name=self.name, request_id=uuid.uuid4().hex, expected_version=self.view.public.version, command=command
        )
        self.view = self.stub.SubmitCommand(request, metadata=self.metadata, timeout=10).view


def test_a_shard_primary_killed_stops_only_its_games(cluster: Any) -> None:
    """SIGKILL of shard s1's postmaster under load: while it is down a game of s0 takes moves and one of s1 is
    refused with SHARD_UNAVAILABLE; once it is started again (crash recovery), every game of the load finishes
    with each acknowledged move applied once."""
    channel = grpc.insecure_channel(cluster.balancer)
    stub = gsg.GameServiceStub(channel)
    tables = {shard: Table(stub, shard) for shard in ("s0", "s1")}
    load = Load(cluster.balancer, games=GAMES, retries=30)
    wait_for_moves(cluster.store, 40)
    os.kill(cluster_script.shard_pid(cluster, 1), signal.SIGKILL)
    deadline = time.monotonic() + 30
    while cluster_script.alive(cluster_script.shard_pid(cluster, 1)):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    time.sleep(1.0)  # its backends end with it
    for _ in range(3):
        tables["s0"].move()
    down = tables["s1"]
    try:
        stub.GetGame(gs.GetGameRequest(name=down.name), metadata=down.game, timeout=10)
        raise AssertionError("a game of the shard that is down answered")
    except grpc.RpcError as error:
        failure = failure_of(error)
    assert (failure.code, failure.reason, failure.metadata) == (
        grpc.StatusCode.UNAVAILABLE,
        "SHARD_UNAVAILABLE",
        {"shard": "s1"},
    )
    assert not cluster_script.alive(cluster_script.shard_pid(cluster, 1)), "s1 came back during the checks"
    channel.close()
    cluster_script.shard_script(cluster, 1, "resume")
    run = load.finish()
    assert_exactly_once_and_sound(cluster.store, run, GAMES)
