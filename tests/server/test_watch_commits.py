"""WatchGame with ``per_commit``: one message per commit, each view once, projected and serialized once per
audience (issue 20). The released one-message-per-event stream is the other tests' (test_server_e2e)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from truco.server.service.projections import field, watch_messages
from truco_client.v1 import game_service_pb2

from ..players import Player, Watcher, open_table
from ..random_play import play_to_end, step
from ..servers import InProcessServer, LoopThread

TIMEOUT = 30.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessServer]:
    loop = LoopThread()
    started = InProcessServer(loop, f"sqlite:///{tmp_path_factory.mktemp('commits') / 'truco.db'}")
    yield started
    started.stop()
    loop.close()


def test_a_seat_gets_each_commit_in_one_message_with_its_view_once(server: InProcessServer) -> None:
    table = open_table(server.address, 2)
    mano = table.players[0]
    classic = Watcher(mano, table.name)
    commits = Watcher(mano, table.name, per_commit=True)
    spectator = Watcher(Player(server.address), table.name, per_commit=True)
    moves = play_to_end(table, rng=random.Random(7))
    for watcher in (classic, commits, spectator):
        watcher.wait_finished(TIMEOUT)
    assert len(moves) > 5
    # The same events, in the same order with the same versions, as the released stream sends one by one.
    assert [e.SerializeToString() for e in commits.events] == [e.SerializeToString() for e in classic.events]
    assert len(commits.items) < len(classic.items), "a commit's events share one message"
    for item in commits.items:
        assert item.events and not item.HasField("event")
        assert item.HasField("seat") and not item.HasField("public"), "the seat's view holds the public one"
        assert item.seat.public.version == item.events[-1].version or item.events[-1].HasField("sena_sent")
    for item in spectator.items:
        assert item.events and item.HasField("public") and not item.HasField("seat")
    assert commits.items[-1].seat.public.phase == classic.items[-1].public.phase


def test_a_resumed_watch_starts_in_the_middle_of_a_commit(server: InProcessServer) -> None:
    table = open_table(server.address, 2)
    rng = random.Random(3)
    while (move := step(table, rng)) is not None and len(move.response.events) < 3:
        pass  # until a move whose commit holds several events (a round's end, points, a new deal...)
    assert move is not None
    full = Watcher(table.players[1], table.name, per_commit=True)
    full.wait_version(move.response.version)
    versions = [event.version for event in full.events]
    middle = versions[-2]  # inside the last commit
    resumed = Watcher(table.players[1], table.name, after_version=middle, per_commit=True)
    resumed.wait_version(move.response.version)
    assert [e.version for e in resumed.events] == [v for v in versions if v > middle]
    assert len(resumed.items) == 1, "what was missed arrives as one message"
    for watcher in (full, resumed):
        watcher.cancel()


def test_every_spectator_gets_the_same_bytes_built_once(server: InProcessServer) -> None:
    """The server projects a commit once per audience: the messages of two spectators are one object."""
    table = open_table(server.address, 2)
    games = server.server.games
    game_id = table.name.removeprefix("games/")
    step(table, random.Random(1))
    before = server.loop.run(games.snapshots.get(game_id))
    step(table, random.Random(2))
    after = server.loop.run(games.snapshots.get(game_id))
    clocks = server.loop.run(games.clocks(game_id, after))
    first = watch_messages(table.name, None, before, after, clocks, 0, per_commit=True)
    second = watch_messages(table.name, None, before, after, clocks, 0, per_commit=True)
    assert first and first is second
    for seat in (0, 1):
        assert watch_messages(table.name, seat, before, after, clocks, 0, per_commit=True) is not first
    decoded = game_service_pb2.WatchGameResponse.FromString(first[0])
    assert decoded.public.version == after.state.version


def test_the_movers_reply_and_its_watch_share_one_serialized_view(server: InProcessServer) -> None:
    table = open_table(server.address, 2)
    mover = step(table, random.Random(5))
    assert mover is not None
    games = server.server.games
    snapshot = server.loop.run(games.snapshots.get(table.name.removeprefix("games/")))
    seat_views = [key for key in snapshot.memo if isinstance(key, tuple) and key[0] == "seat"]
    assert [key[1] for key in seat_views] == [mover.seat], "the reply projected the mover's view into the memo"
    view = snapshot.memo[seat_views[0]]
    assert isinstance(view, bytes)
    message = watch_messages(table.name, mover.seat, None, snapshot, seat_views[0][2], 0, per_commit=True)[0]
    assert message.endswith(field(2, view)), "the watch carries the very bytes the reply did"
