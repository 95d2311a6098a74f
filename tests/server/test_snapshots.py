"""The cache of rebuilt games: which games a process keeps in memory, and what it costs when one is not kept."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, cast

import pytest

from truco.engine import MatchState, RuleSet
from truco.engine import events as ev
from truco.server.core import snapshots as snapshots_module
from truco.server.core.metrics import Metrics
from truco.server.core.setups import Setup
from truco.server.core.snapshots import Snapshot, Snapshots, weight
from truco.server.service.projections import ENCODINGS
from truco_client.v1 import game_service_pb2

from ..players import Watcher, create_game, open_table
from ..random_play import play_to_end
from ..servers import InProcessServer, LoopThread


class _Store:
    """What the cache asks of a store before it reads anything: where to send notifications."""

    def on_append(self, heard: Any) -> None:
        pass


def _snapshots(size: int, finished_size: int, budget_bytes: int = 1 << 40) -> Snapshots:
    return Snapshots(
        _Store(),  # type: ignore[arg-type]
        ENCODINGS.events,
        ENCODINGS.legacy_setup,
        None,  # type: ignore[arg-type]  # seats: asked only when a game is read
        Metrics.create(),
        lambda game_id, snapshot: None,
        size=size,
        finished_size=finished_size,
        budget_bytes=budget_bytes,
    )


def _snapshot(seq: int, *, finished: bool = False, events: int = 0) -> Snapshot:
    state = MatchState(rules=RuleSet(players=2), winner=0 if finished else None)
    held = cast("tuple[ev.Event, ...]", (object(),) * events)  # the cache weighs events by their number only
    return Snapshot(Setup(RuleSet(players=2), {}, ()), seq, state, held)


def test_the_cache_is_bounded_by_what_its_games_weigh() -> None:
    """A few long matches left half-played cannot take the process's memory: past the byte budget the least
    recently used games go, whatever their number."""
    long_match = weight(_snapshot(1, events=800))
    cache = _snapshots(size=1000, finished_size=1000, budget_bytes=3 * long_match)
    for game in ("a", "b", "c"):
        cache.remember(game, _snapshot(1, events=800))
    assert cache.weight == 3 * long_match
    cache.remember("d", _snapshot(1, events=800))
    assert [game for game in "abcd" if cache.cached(game)] == ["b", "c", "d"]
    cache.remember("b", _snapshot(2, events=1600))  # b grows: the least recently used others make room
    assert [game for game in "abcd" if cache.cached(game)] == ["b", "d"]
    assert cache.weight == weight(_snapshot(2, events=1600)) + long_match <= cache.budget_bytes


def test_the_cache_keeps_the_games_in_play_and_only_the_latest_finished_games() -> None:
    """Finished games are held apart, the latest few: a process that has seen many games end keeps the games in
    play, which every move needs, not the history (a move of a game not kept replays its whole log)."""
    cache = _snapshots(size=4, finished_size=2)
    for game in ("a", "b", "c"):
        cache.remember(game, _snapshot(5))
    for game in ("x", "y", "z"):
        cache.remember(game, _snapshot(9, finished=True))
    # x went first (the finished bound); then the whole cache's bound dropped the least recently used, a.
    assert [game for game in ("a", "b", "c", "x", "y", "z") if cache.cached(game)] == ["b", "c", "y", "z"]
    cache.remember("b", _snapshot(6))  # a game in play used again is the newest
    cache.remember("d", _snapshot(1))
    assert [game for game in ("b", "c", "d", "y", "z") if cache.cached(game)] == ["b", "d", "y", "z"]
    cache.remember("d", _snapshot(7, finished=True))  # d ends: now the newest finished game, y goes
    assert [game for game in ("b", "d", "y", "z") if cache.cached(game)] == ["b", "d", "z"]


def test_an_older_snapshot_never_replaces_a_newer_one() -> None:
    cache = _snapshots(size=4, finished_size=2)
    newer = _snapshot(8)
    cache.remember("a", newer)
    cache.remember("a", _snapshot(3))
    assert cache.cached("a") is newer


@pytest.fixture(scope="module")
def server(loop: LoopThread, tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessServer]:
    started = InProcessServer(loop, f"sqlite:///{tmp_path_factory.mktemp('snapshots') / 'truco.db'}")
    yield started
    started.stop()


def test_a_game_not_kept_is_rebuilt_from_its_log_once_and_counted(loop: LoopThread, server: InProcessServer) -> None:
    snapshots = server.server.games.snapshots
    registry = server.server.metrics.registry

    def rebuilt() -> float:
        return registry.get_sample_value("truco_games_rebuilt_total") or 0.0

    game_id = create_game(server.address, 2).name.removeprefix("games/")
    before = rebuilt()
    kept = loop.run(snapshots.get(game_id))
    assert rebuilt() == before  # created here: kept from its creation, no replay
    snapshots._drop(game_id)  # as the cache's bound would
    again = loop.run(snapshots.get(game_id))
    assert rebuilt() == before + 1
    assert again.state == kept.state and again.seq == kept.seq
    loop.run(snapshots.get(game_id))
    assert rebuilt() == before + 1


def test_a_long_match_keeps_only_its_last_events_and_every_watch_still_gets_all(
    loop: LoopThread, server: InProcessServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cached game kept every event of its match (about 265 kB for 70 hands). It keeps its last few now; a
    watch from the start, one resumed midway and one that fell behind read the rest from the store, and see
    exactly what a watch that followed every commit saw."""
    monkeypatch.setattr(snapshots_module, "TAIL_EVENTS", 4)
    table = open_table(server.address, 2)
    try:
        live = Watcher(table.spectator, table.name, per_commit=True)
        moves = play_to_end(table, rng=random.Random(7))
        live.wait_finished()
        everything = [(event.version, event.SerializeToString()) for event in live.events]
        cached = server.server.games.snapshots.cached(table.name.removeprefix("games/"))
        assert cached is not None and 4 <= len(cached.events) < 8 < cached.seq  # the tail only
        assert len(moves) > 8 and everything
        for after_version in (0, everything[len(everything) // 2][0]):
            again = Watcher(table.spectator, table.name, after_version, per_commit=True)
            again.wait_finished()
            assert [(e.version, e.SerializeToString()) for e in again.events] == [
                item for item in everything if item[0] > after_version
            ]
    finally:
        table.close()


def test_a_finished_games_outcome_reads_the_events_the_cache_no_longer_keeps(
    loop: LoopThread, server: InProcessServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ratings count a player who left as a loser: the seat's SeatLeft is early in the match, long out of the
    cached game's last events, and the outcome still finds it."""
    monkeypatch.setattr(snapshots_module, "TAIL_EVENTS", 4)
    table = open_table(server.address, 2)
    try:
        leaver = table.players[0]
        leaver.games.LeaveGame(game_service_pb2.LeaveGameRequest(name=table.name), metadata=leaver.metadata)
        leaver.games.ResumeSeat(game_service_pb2.ResumeSeatRequest(name=table.name), metadata=leaver.metadata)
        play_to_end(table, rng=random.Random(3))
        game_id = table.name.removeprefix("games/")
        cached = server.server.games.snapshots.cached(game_id)
        assert cached is not None and not any(isinstance(event, ev.SeatLeft) for event in cached.events)
        outcome = loop.run(server.server.games.outcome(game_id))
        assert outcome is not None and outcome.leavers == frozenset({0})
    finally:
        table.close()
