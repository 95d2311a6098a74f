"""The gRPC service end to end: real servers on loopback, real clients, on SQLite and on PostgreSQL.

Every test runs once per backend (the module-scoped ``stores`` fixture): a temporary SQLite file, or a fresh
PostgreSQL database created through the session's ``postgres_url``. Most tests share two in-process servers on
one store (``server``, which accepts scripted deals, and ``replica``, which does not); the tests that kill or
stop a server start their own, in process or as a ``truco serve`` child. Failures are checked by status code
and by the ErrorInfo reason of the google.rpc.Status in the trailers, exactly.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import json
import os
import random
import re
import signal
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from truco.server.core import snapshots as snapshots_module
from truco.server.runtime.app import stop_signals
from truco.server.store import core as store_core
from truco.server.store.records import StoredEvent
from truco.server.store.signals import wait_until_after
from truco_client import verify_proof
from truco_client.v1 import (
    cards_pb2,
    commands_pb2,
    events_pb2,
    game_service_pb2,
    rules_pb2,
    rules_service_pb2,
    views_pb2,
)

from ..fair_deals import DealRecord, assert_private, assert_sealed, deals_from, sealed_salts, without_own_proofs
from ..players import (
    Player,
    Table,
    Watcher,
    bearer,
    create_game,
    fails,
    failure_of,
    join,
    new_id,
    open_table,
    public_events,
    reconnect,
    replay,
)
from ..random_play import Move, play_to_end, play_until, step, unchanged
from ..servers import InProcessServer, LoopThread, ProcessServer, Stores, wait_until
from ..wire_builders import answer, call, card, cards_in, fixed_deal, kind_of, mazo, play, sena, text_of, texts

OK = grpc.StatusCode.OK
INVALID_ARGUMENT = grpc.StatusCode.INVALID_ARGUMENT
FAILED_PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION
NOT_FOUND = grpc.StatusCode.NOT_FOUND
ABORTED = grpc.StatusCode.ABORTED
UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED
PERMISSION_DENIED = grpc.StatusCode.PERMISSION_DENIED
RESOURCE_EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED
UNAVAILABLE = grpc.StatusCode.UNAVAILABLE
UNEXPECTED = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}

MATCH_OVER = views_pb2.PHASE_MATCH_OVER
TARGET = 15

# Scripted deals without flor (no three cards of a suit, no pieza: the muestra is a copa and nobody holds a copa).
MUESTRA = "7c"
HANDS_2 = ("1e 7b 3o", "6e 12b 5o")
HANDS_4 = ("1e 7b 3o", "6e 12b 5o", "2e 4b 7o", "11e 10b 6o")
DEAL_2 = fixed_deal(HANDS_2, MUESTRA)
DEAL_4 = fixed_deal(HANDS_4, MUESTRA)


pytestmark = pytest.mark.usefixtures("server_log")  # in-process servers log to a file, not stdout

# --- Fixtures --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def server_loop() -> Iterator[LoopThread]:
    loop = LoopThread()
    yield loop
    loop.close()


@pytest.fixture(scope="module")
def shared_store(stores: Stores) -> str:
    return stores.new_url()


@pytest.fixture(scope="module")
def server(server_loop: LoopThread, shared_store: str) -> Iterator[InProcessServer]:
    """The module's main server: scripted deals allowed, metrics on a port of its own."""
    started = InProcessServer(server_loop, shared_store, allow_fixed_deals=True, metrics=True)
    yield started
    started.stop()


@pytest.fixture(scope="module")
def replica(server_loop: LoopThread, shared_store: str) -> Iterator[InProcessServer]:
    """A second server on the same store, started without --allow-fixed-deals."""
    started = InProcessServer(server_loop, shared_store)
    yield started
    started.stop()


@pytest.fixture
def start_server(server_loop: LoopThread) -> Iterator[Callable[..., InProcessServer]]:
    """Start dedicated in-process servers (for tests that stop them); all are stopped at the end."""
    started: list[InProcessServer] = []

    def start(store: str, **options: Any) -> InProcessServer:
        started.append(InProcessServer(server_loop, store, **options))
        return started[-1]

    yield start
    for running in started:
        running.stop()


@pytest.fixture
def start_process(tmp_path: Path) -> Iterator[Callable[..., ProcessServer]]:
    """Start ``truco serve`` children; every one still running is killed at the end."""
    started: list[ProcessServer] = []

    def start(store: str, **options: Any) -> ProcessServer:
        started.append(ProcessServer(store, tmp_path, **options))
        return started[-1]

    yield start
    for running in started:
        running.kill()


@pytest.fixture
def tables() -> Iterator[Callable[..., Table]]:
    """``open_table`` whose channels are closed at the end."""
    opened: list[Table] = []

    def make(address: str, players: int, **options: Any) -> Table:
        opened.append(open_table(address, players, **options))
        return opened[-1]

    yield make
    for table in opened:
        table.close()


def scripted(tables: Callable[..., Table], server: InProcessServer, players: int = 2) -> Table:
    """A table whose first hand is dealt from HANDS_2 / HANDS_4 (seat 0 is the mano)."""
    return tables(server.address, players, target=TARGET, fixed_deals=[DEAL_2 if players == 2 else DEAL_4])


def spectator_log(table: Table) -> list[game_service_pb2.WatchGameResponse]:
    """Every message a spectator's watch from version 0 delivers, up to the current version."""
    return replay(table.spectator, table.name, table.version())


def played(log: list[game_service_pb2.WatchGameResponse], text: str, after_version: int = 0) -> int:
    """How many times the log shows ``text`` played after ``after_version``."""
    return sum(
        1
        for item in log
        if item.event.version > after_version
        and kind_of(item.event) == "card_played"
        and text_of(item.event.card_played.card) == text
    )


# --- 1. Whole matches ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_whole_match_with_every_seat_on_its_own_channel(
    server: InProcessServer, tables: Callable[..., Table], players: int
) -> None:
    table = tables(server.address, players, target=TARGET)
    watchers = [player.watch(table.name) for player in table.players]
    spectating = table.spectator.watch(table.name)

    moves = play_to_end(table, rng=random.Random(players))  # random legal moves (no seña): mazos, declines...

    final = table.public()
    assert final.phase == MATCH_OVER
    for watcher in (*watchers, spectating):
        watcher.wait_finished()  # a watch ends by itself once the match is over
        assert watcher.error is None, watcher.error
    events = spectating.events
    assert [event.version for event in events] == list(range(1, final.version + 1))
    for watcher in watchers:  # nobody sent a seña: every seat sees the spectator's log, plus its own proofs
        assert [without_own_proofs(e) for e in watcher.events] == events
    assert kind_of(events[0]) == "match_started"

    # The deals, from each seat's own proofs: every proof anyone got opens its HandDealt commitment.
    deals = deals_from(events, {seat: watcher.events for seat, watcher in enumerate(watchers)})
    assert deals and all(deal.revealed for deal in deals.values())
    sealed = {seat: sealed_salts(deals, seat) for seat in (None, *range(players))}
    assert any(sealed.values()), "no card stayed sealed in a whole match: the check proves nothing"

    # No view anyone ever received shows another seat's unplayed cards; each seat holds exactly its own.
    _assert_nothing_unseen_shown(moves, watchers, spectating, deals, sealed)

    # Each response's events are the log's, at the same versions; its version is its last event's.
    by_version = {event.version: event for event in events}
    for move in moves:
        assert move.response.events, "an accepted command produced no event"
        assert move.response.version == move.response.events[-1].version
        for event in move.response.events:
            assert by_version[event.version] == without_own_proofs(event)

    # One team reached the target, the other did not.
    scores = {score.team: score.points for score in final.scores}
    assert final.HasField("winner_team")
    assert scores[final.winner_team] == TARGET
    assert scores[1 - final.winner_team] < TARGET
    assert kind_of(events[-1]) == "match_ended" and events[-1].match_ended.winner_team == final.winner_team
    for player in table.players:
        view = player.seat_view(table.name)
        assert view.public == final and not view.legal_actions


def _assert_nothing_unseen_shown(
    moves: list[Move],
    watchers: list[Watcher],
    spectating: Watcher,
    deals: dict[int, DealRecord],
    sealed: dict[int | None, list[str]],
) -> None:
    """Every view, reply and watched item of a match (the moves' and each watch's) shows its receiver no card of
    another seat's unplayed hand, and no salt that would open one."""
    for number, move in enumerate(moves):
        assert not move.spectator.HasField("seat"), "a spectator got a seat view"
        assert move.before.seat.public == move.before.public
        assert_private(move.spectator, move.spectator.public, None, deals, f"spectator before move {number}")
        assert_private(move.before.seat, move.before.public, move.seat, deals, f"seat {move.seat} before {number}")
        for event in move.response.events:  # a response may span a hand's end: its HandEnded reveals that deal
            if kind_of(event) == "hand_dealt":
                assert not event.hand_dealt.order and not event.hand_dealt.salt
        assert_private(move.response.view, move.response.view.public, move.seat, deals, f"view after {number}")
        assert_sealed(move.spectator, sealed[None], f"spectator before move {number}")
        assert_sealed(move.before, sealed[move.seat], f"seat {move.seat} before {number}")
        assert_sealed(move.response, sealed[move.seat], f"seat {move.seat}'s reply to move {number}")
    for seat, watcher in enumerate(watchers):
        for item in watcher.items:
            where = f"seat {seat}'s watch at version {item.event.version}"
            assert item.seat.seat == seat and item.seat.public == item.public, where
            assert_private(item, item.public, seat, deals, where)
            assert_private(item.seat, item.public, seat, deals, where)
            assert_sealed(item, sealed[seat], where)
    for item in spectating.items:
        assert not item.HasField("seat")
        assert_private(item, item.public, None, deals, f"spectator's watch at version {item.event.version}")
        assert_sealed(item, sealed[None], f"spectator's watch at version {item.event.version}")


def test_a_spectator_gets_the_public_view_only(server: InProcessServer, tables: Callable[..., Table]) -> None:
    table = scripted(tables, server)
    watched = table.spectator.view(table.name)
    assert not watched.HasField("seat")
    assert watched.public == table.players[0].seat_view(table.name).public
    assert set(texts(cards_in(watched))) == {MUESTRA}
    assert fails(lambda: table.spectator.legal(table.name)).kind == (UNAUTHENTICATED, "TOKEN_MISSING")


def test_polled_views_stay_each_seats_own_and_follow_every_move(
    server: InProcessServer, tables: Callable[..., Table]
) -> None:
    """Polls of an unchanged game are answered from the view built before (by seq, seat and clocks): never
    another seat's, and never one from before a move."""
    table = scripted(tables, server)
    mano, rival = table.players
    for _ in range(3):  # polled again and again, interleaved: each seat keeps getting its own hand
        assert set(texts(mano.seat_view(table.name).cards)) == set(HANDS_2[0].split())
        assert set(texts(rival.seat_view(table.name).cards)) == set(HANDS_2[1].split())
        assert set(texts(cards_in(table.spectator.view(table.name)))) == {MUESTRA}
        assert [text_of(a.play_card.card) for a in mano.legal(table.name).actions if a.HasField("play_card")]
        assert not rival.legal(table.name).actions
    before = mano.seat_view(table.name).public.version
    mano.submit(table.name, play("1e"), expected_version=before)
    after = mano.view(table.name)
    assert after.seat.public.version > before
    assert set(texts(after.seat.cards)) == {"7b", "3o"}
    assert rival.seat_view(table.name).public.version == after.seat.public.version
    assert rival.legal(table.name).actions
    assert table.spectator.view(table.name).public == after.public


def store_reads(server: InProcessServer) -> float:
    """How many times the server has read a game's events from the store."""
    registry = server.server.metrics.registry
    return registry.get_sample_value("truco_store_latency_seconds_count", {"operation": "read"}) or 0.0


def test_reads_at_a_version_seen_are_never_older_and_answer_from_memory_while_notifications_vouch(
    server: InProcessServer,
    shared_store: str,
    stores: Stores,
    start_server: Callable[..., InProcessServer],
    tables: Callable[..., Table],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``min_version``: a read on another replica never answers older than the version given (the caller's own
    move made elsewhere included). On PostgreSQL, a replica whose copy was checked against the store answers
    from memory until a notification tells of a newer move; trust is made to last here, so that only the
    notification can end it. SQLite hears no other process, so it always reads (about 10 us)."""
    monkeypatch.setattr(snapshots_module, "TRUST_SECONDS", 3600.0)
    replica = start_server(shared_store)
    table = scripted(tables, server)
    mano, rival = table.players
    spectator = Player(replica.address)
    seen = spectator.view(table.name).public.version

    def reads_of_one_view(min_version: int) -> tuple[float, game_service_pb2.GetGameViewResponse]:
        before = store_reads(replica)
        answer = spectator.view(table.name, min_version)
        return store_reads(replica) - before, answer

    if stores.backend == "postgres":
        # The replica starts listening on its first read: from then on a checked copy is vouched for.
        deadline = time.monotonic() + 10
        while reads_of_one_view(seen)[0] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [reads_of_one_view(seen)[0] for _ in range(3)] == [0, 0, 0]
    else:
        assert [reads_of_one_view(seen)[0] for _ in range(3)] == [1, 1, 1]

    # A move made on the other server: the replica learns of it by notification alone, and reads it then.
    moved = mano.submit(table.name, play("1e")).version
    deadline = time.monotonic() + 10
    while (answer := reads_of_one_view(seen)[1]).public.version < moved and time.monotonic() < deadline:
        time.sleep(0.01)
    assert answer.public.version == moved

    # The caller's own move, made elsewhere: a read at its version shows it at once, notified or not.
    answered = rival.submit(table.name, play("6e")).version
    rival_on_replica = Player(replica.address, rival.seat, rival.token)
    view = rival_on_replica.view(table.name, min_version=answered)
    assert view.seat.public.version >= answered
    assert "6e" not in texts(view.seat.cards)
    assert rival_on_replica.legal(table.name, min_version=answered).version >= answered
    assert fails(lambda: spectator.view(table.name, min_version=-1)).kind == (INVALID_ARGUMENT, "MALFORMED_REQUEST")


def test_a_move_vouches_for_the_state_it_made_so_its_watchers_and_readers_need_no_store_read(
    server: InProcessServer, stores: Stores, tables: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watch woken by a move made on this server takes the state the move cached, with no store read (on any
    store: the wake names the move's seq). On PostgreSQL, an append that passed its sequence check is also a
    check against the store: until a notification tells of a newer move, a read at the new version is answered
    from memory, and the watch goes back to sleep without looking at the database (a notification wakes it).
    SQLite hears no other process, so such a read and the watch's next wait look at the file (about 10 us on the
    loop's thread)."""
    monkeypatch.setattr(snapshots_module, "TRUST_SECONDS", 3600.0)
    table = scripted(tables, server)
    game_id = table.name.removeprefix("games/")
    # The server is shared by this module's tests, whose games (clocks, bots) may read in the background: only this
    # game's reads count.
    reads_of_game = _counted_reads(server, monkeypatch)
    looks_at_game = _counted_looks(monkeypatch)
    store = server.server.store
    mano, rival = table.players
    watcher = rival.watch(table.name)

    async def listening() -> bool:
        return server.server.store.hearing_epoch() is not None  # asking starts the listener

    async def asleep() -> bool:
        # Asked on the loop, between its steps: a wait that counts the game watched has begun its look, if any.
        return game_id in store._signals._watchers

    # Until the store listens, nothing is vouched for (a move's append as well): the race this test must not run.
    if stores.backend == "postgres":
        assert wait_until(lambda: server.loop.run(listening()))
    first = mano.submit(table.name, play("1e")).version
    watcher.wait_version(first)
    assert wait_until(lambda: server.loop.run(asleep()))
    before, looks_before = reads_of_game.count(game_id), looks_at_game.count(game_id)
    moved = rival.submit(table.name, play("6e")).version
    watcher.wait_version(moved)
    assert reads_of_game.count(game_id) == before, "the watch's wake-up read the store"
    assert wait_until(lambda: server.loop.run(asleep()))
    looks = looks_at_game.count(game_id) - looks_before
    if stores.backend == "postgres":
        assert looks == 0
    else:
        assert looks >= 1  # its look before it sleeps (and one per wake-up by the poller, if any)
    assert mano.view(table.name, min_version=moved).seat.public.version == moved
    reads = reads_of_game.count(game_id) - before
    assert reads == (0 if stores.backend == "postgres" else 1)


def _counted_reads(server: InProcessServer, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the games the server's snapshots read from the store, appended as they are read."""
    snapshots = server.server.games.snapshots
    timed_read = snapshots._timed_read
    reads: list[str] = []

    async def counted(read_id: str, after_seq: int) -> list[StoredEvent]:
        reads.append(read_id)
        return await timed_read(read_id, after_seq)

    monkeypatch.setattr(snapshots, "_timed_read", counted)
    return reads


def _counted_looks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the games whose waits looked at the database before they slept, appended as each look begins."""
    store_module = store_core  # both backends' waits run through the core's wait_for_change
    real_wait = store_module.wait_until_after
    looks: list[str] = []

    async def counting_wait(*args: Any) -> int | None:
        signals, look_id, after_seq, timeout, last_seq, *vouched = args

        async def look() -> int:
            looks.append(look_id)
            return await last_seq()

        return await real_wait(signals, look_id, after_seq, timeout, look, *vouched)

    monkeypatch.setattr(store_module, "wait_until_after", counting_wait)
    return looks


# --- 2. Security -----------------------------------------------------------------------------------------------


def test_a_token_of_one_game_is_refused_on_another(server: InProcessServer, tables: Callable[..., Table]) -> None:
    first, second = scripted(tables, server), scripted(tables, server)
    intruder = first.players[0]
    denied = (PERMISSION_DENIED, "TOKEN_NOT_FOR_GAME")
    with unchanged(second):
        assert fails(lambda: intruder.submit(second.name, play(HANDS_2[0].split()[0]))).kind == denied
        assert fails(lambda: intruder.view(second.name)).kind == denied
        assert fails(lambda: intruder.legal(second.name)).kind == denied
        watch = intruder.watch(second.name)
        watch.wait_finished()
        assert watch.error is not None and failure_of(watch.error).kind == denied


def test_a_token_nobody_was_given_is_refused(server: InProcessServer, tables: Callable[..., Table]) -> None:
    table = scripted(tables, server)
    stranger = Player(server.address, token="not-a-token-this-server-gave")
    try:
        with unchanged(table):
            failure = fails(lambda: stranger.submit(table.name, play("1e")))
        assert failure.kind == (PERMISSION_DENIED, "TOKEN_NOT_FOR_GAME")
    finally:
        stranger.close()


def test_submitting_without_a_token_is_unauthenticated(server: InProcessServer, tables: Callable[..., Table]) -> None:
    table = scripted(tables, server)
    with unchanged(table):
        assert fails(lambda: table.spectator.submit(table.name, play("1e"))).kind == (UNAUTHENTICATED, "TOKEN_MISSING")


@pytest.mark.parametrize(
    "header", ["Basic dXNlcjpwYXNz", "Bearer", "Bearer    ", "token-without-a-scheme", "Bearer: x"]
)
def test_a_malformed_authorization_header_is_unauthenticated(
    server: InProcessServer, tables: Callable[..., Table], header: str
) -> None:
    table = scripted(tables, server)
    games = table.spectator.games
    metadata = (("authorization", header),)
    request = table.spectator.request(table.name, play("1e"))
    malformed = (UNAUTHENTICATED, "TOKEN_MALFORMED")
    with unchanged(table):
        assert fails(lambda: games.SubmitCommand(request, metadata=metadata, timeout=10)).kind == malformed
        view_request = game_service_pb2.GetGameViewRequest(name=table.name)
        assert fails(lambda: games.GetGameView(view_request, metadata=metadata, timeout=10)).kind == malformed


def test_playing_another_seats_card_is_refused_and_changes_nothing(
    server: InProcessServer, tables: Callable[..., Table]
) -> None:
    table = scripted(tables, server, players=4)
    mano = table.players[0]
    for text in [*" ".join(HANDS_4[1:]).split(), MUESTRA]:  # the muestra is nobody's card either
        command = play(text)
        with unchanged(table):
            failure = fails(lambda: mano.submit(table.name, command))  # noqa: B023 - called at once
        assert failure.kind == (FAILED_PRECONDITION, "CARD_NOT_IN_HAND"), text
    # The seat still plays its own card normally afterwards.
    assert mano.submit(table.name, play("1e")).version == table.game.version + 1


def test_acting_out_of_turn_is_refused_and_changes_nothing(
    server: InProcessServer, tables: Callable[..., Table]
) -> None:
    table = scripted(tables, server)
    with unchanged(table):
        failure = fails(lambda: table.players[1].submit(table.name, play("6e")))
    assert failure.kind == (FAILED_PRECONDITION, "NOT_YOUR_TURN")
    rival = table.players[1]
    for command, reason in (
        (call(commands_pb2.CALL_KIND_TRUCO), "NOT_YOUR_TURN"),
        (mazo(), "NOT_YOUR_TURN"),
        (answer(True), "NO_CALL_PENDING"),
    ):
        with unchanged(table):
            assert fails(lambda: rival.submit(table.name, command)).kind == (FAILED_PRECONDITION, reason)  # noqa: B023


@pytest.mark.parametrize("offset", [-1, 1, 1000])
def test_a_stale_expected_version_is_aborted_and_changes_nothing(
    server: InProcessServer, tables: Callable[..., Table], offset: int
) -> None:
    table = scripted(tables, server)
    version = table.version()
    mano = table.players[0]
    with unchanged(table):
        failure = fails(lambda: mano.submit(table.name, play("1e"), expected_version=version + offset))
    assert failure.kind == (ABORTED, "VERSION_CONFLICT")
    assert failure.metadata.get("version") == str(version)
    assert mano.submit(table.name, play("1e"), expected_version=version).version == version + 1


def test_a_sena_reaches_only_the_senders_teammates(server: InProcessServer, tables: Callable[..., Table]) -> None:
    table = scripted(tables, server, players=4)
    name = table.name
    watchers = [player.watch(name) for player in table.players]
    spectating = table.spectator.watch(name)
    version = table.version()
    for watcher in (*watchers, spectating):
        watcher.wait_version(version)
    sender, teammate, rivals = table.players[0], table.players[2], (table.players[1], table.players[3])
    signals = [action for action in sender.seat_view(name).legal_actions if action.HasField("send_sena")]
    assert signals, "seat 0 holds 1e and 3o: it has señas to send"
    sent = signals[0].send_sena.sena
    rival_views = [rival.view(name).SerializeToString() for rival in rivals]
    public_before = table.spectator.view(name).SerializeToString()

    response = sender.submit(name, signals[0], expected_version=version)

    assert response.version == version, "a seña must not move the version"
    assert [kind_of(e) for e in response.events] == ["sena_sent"] and response.events[0].version == version
    assert [(s.seat, s.sena) for s in teammate.seat_view(name).senas] == [(0, sent)]
    assert [rival.view(name).SerializeToString() for rival in rivals] == rival_views
    assert table.spectator.view(name).SerializeToString() == public_before
    assert all(rival.legal(name).version == version for rival in rivals)

    # The next real move is version + 1 for everyone; only team 0's streams carried the seña before it.
    sender.submit(name, play("1e"), expected_version=version)
    for watcher in (*watchers, spectating):
        watcher.wait_version(version + 1)
    for seat, watcher in enumerate(watchers):
        senas = [e for e in watcher.events if kind_of(e) == "sena_sent"]
        if seat % 2 == 0:
            assert [(e.version, e.sena_sent.seat, e.sena_sent.sena) for e in senas] == [(version, 0, sent)]
        else:
            assert not senas, f"rival seat {seat} saw the seña"
            assert all(not item.seat.senas for item in watcher.items)
        assert [e.version for e in public_events(watcher.items)] == list(range(1, version + 2))
    assert not any(kind_of(e) == "sena_sent" for e in spectating.events)
    assert [e.version for e in spectating.events] == list(range(1, version + 2))

    # A late watch from the start keeps the same secret; a teammate's has it.
    for seat, player in enumerate((*table.players, table.spectator)):
        log = replay(player, name, version + 1)
        has_sena = any(kind_of(item.event) == "sena_sent" for item in log)
        assert has_sena == (seat in (0, 2)), f"late watch of {'spectator' if seat == 4 else f'seat {seat}'}"
    for watcher in (*watchers, spectating):
        watcher.cancel()


def test_watches_of_rivals_and_spectators_never_carry_another_seats_cards(
    server: InProcessServer, tables: Callable[..., Table]
) -> None:
    table = scripted(tables, server, players=4)
    watchers = [player.watch(table.name) for player in table.players]
    spectating = table.spectator.watch(table.name)
    hands = {seat: set(hand.split()) for seat, hand in enumerate(HANDS_4)}
    moves = play_until(table, lambda t: t.public().hand.number > 1)  # the whole first hand and the next deal
    last = moves[-1].response.version
    for seat, watcher in enumerate((*watchers, spectating)):
        watcher.wait_version(last)
        for item in watcher.items:
            event = item.event
            if kind_of(event) == "hand_dealt":
                assert not event.hand_dealt.order and not event.hand_dealt.salt
            if item.public.hand.number != 1 or item.public.hand.ended:
                continue
            shown = set(texts(cards_in(item)))
            played_now = {text_of(p.card) for r in item.public.hand.rounds for p in r.plays}
            for other, cards in hands.items():
                if other != seat:
                    assert not shown & (cards - played_now), f"watch of seat {seat} shows seat {other}'s cards"
            if seat < 4:
                assert set(texts(item.seat.cards)) == hands[seat] - played_now
        watcher.cancel()


# --- 3. Idempotency --------------------------------------------------------------------------------------------


def test_a_repeated_submit_request_id_applies_once(server: InProcessServer, tables: Callable[..., Table]) -> None:
    table = scripted(tables, server)
    mano, rival = table.players
    version = table.version()
    request = mano.request(table.name, play("1e"), expected_version=version)

    first = mano.games.SubmitCommand(request, metadata=mano.metadata, timeout=10)
    views = [p.view(table.name).SerializeToString() for p in table.players]
    again = mano.games.SubmitCommand(request, metadata=mano.metadata, timeout=10)

    assert again.SerializeToString() == first.SerializeToString()
    assert first.version == version + 1 and table.version() == first.version
    assert [p.view(table.name).SerializeToString() for p in table.players] == views
    # Still the recorded result after the game moved on, from another channel of the same seat.
    rival.submit(table.name, play("6e"))
    other_channel = Player(server.address, mano.seat, mano.token)
    try:
        later = other_channel.games.SubmitCommand(request, metadata=mano.metadata, timeout=10)
    finally:
        other_channel.close()
    assert later.SerializeToString() == first.SerializeToString()
    assert played(spectator_log(table), "1e") == 1


def test_a_repeated_request_id_of_a_command_legal_again_changes_nothing(
    server: InProcessServer, tables: Callable[..., Table]
) -> None:
    """A retry decided again on the state its original made (this server cached it) may be legal again: a seat
    that went to the mazo is the mano of the next hand and may go again. The store answers with what the original
    recorded and writes nothing; the state the retry decided must not be taken for the game's either."""
    table = scripted(tables, server)
    mano, rival = table.players
    mano.submit(table.name, play("1e"))
    request = rival.request(table.name, mazo(), 0, new_id())
    first = rival.games.SubmitCommand(request, metadata=rival.metadata, timeout=10)
    assert any(action.HasField("go_to_mazo") for action in rival.legal(table.name).actions), "the retry is legal again"
    views = [p.view(table.name).SerializeToString() for p in table.players]
    spectator = table.spectator.view(table.name).SerializeToString()

    again = rival.games.SubmitCommand(request, metadata=rival.metadata, timeout=10)

    assert again.SerializeToString() == first.SerializeToString()
    assert table.version() == first.version
    assert [p.view(table.name).SerializeToString() for p in table.players] == views
    assert table.spectator.view(table.name).SerializeToString() == spectator
    # The next move is decided on the game as stored: its reply's view agrees with the store's log.
    rival.submit(table.name, mazo())
    log = spectator_log(table)
    assert log[-1].public == table.spectator.view(table.name).public


@pytest.mark.parametrize("expected_version", [True, False], ids=["with-version", "without-version"])
def test_a_retry_racing_its_original_gets_the_same_response(
    server: InProcessServer, tables: Callable[..., Table], expected_version: bool
) -> None:
    """A client that retries (same request id) while the original is still in flight gets the same result."""
    table = scripted(tables, server)
    second_channels = [Player(server.address, p.seat, p.token) for p in table.players]
    try:
        for _ in range(6):
            public = table.public()
            seat = public.to_act[0]
            view = table.players[seat].seat_view(table.name)
            request = table.players[seat].request(
                table.name, view.legal_actions[0], public.version if expected_version else 0, new_id()
            )
            calls = [table.players[seat].submit_future(request), second_channels[seat].submit_future(request)]
            outcomes = []
            for future in calls:
                try:
                    outcomes.append(future.result().SerializeToString())
                except grpc.RpcError as error:
                    outcomes.append(failure_of(error))
            assert outcomes[0] == outcomes[1], f"the original and its retry got different answers: {outcomes}"
            if view.legal_actions[0].HasField("play_card"):
                text = text_of(view.legal_actions[0].play_card.card)
                assert played(spectator_log(table), text, after_version=public.version) == 1
    finally:
        for player in second_channels:
            player.close()


def test_a_request_id_reused_for_another_command_is_refused(
    server: InProcessServer, tables: Callable[..., Table]
) -> None:
    """errors.proto, REQUEST_ID_REUSED: the same request id with another command is refused and applies
    nothing, whether that other command is illegal now (off turn) or legal (the seat's next card)."""
    table = scripted(tables, server)
    mano, rival = table.players
    reused = new_id()
    first = mano.submit(table.name, play("1e"), 0, reused)

    def refused_with_reused_id() -> None:
        version, log = table.version(), spectator_log(table)
        with pytest.raises(grpc.RpcError) as raised:
            mano.submit(table.name, play("7b"), 0, reused)
        failure = failure_of(raised.value)
        assert (failure.code, failure.reason) == (INVALID_ARGUMENT, "REQUEST_ID_REUSED"), failure
        assert (table.version(), spectator_log(table)) == (version, log), "nothing applied"

    refused_with_reused_id()  # off turn: the rules refuse it, the stored id is found afterwards
    rival.submit(table.name, play("6e"))
    refused_with_reused_id()  # on turn: legal, refused by the append's stored id
    assert mano.submit(table.name, play("1e"), 0, reused).SerializeToString() == first.SerializeToString()
    assert played(spectator_log(table), "7b") == 0
    mano.submit(table.name, play("7b"), 0, new_id())
    assert played(spectator_log(table), "7b") == 1


def test_a_repeated_create_request_id_returns_the_same_game(server: InProcessServer) -> None:
    request_id = new_id()
    first = create_game(server.address, 2, request_id=request_id)
    again = create_game(server.address, 2, request_id=request_id)
    assert again.name == first.name
    assert create_game(server.address, 2).name != first.name


def test_a_repeated_join_request_id_returns_the_same_seat(server: InProcessServer) -> None:
    game = create_game(server.address, 4)
    request_id = new_id()
    first = join(server.address, game.name, request_id=request_id)
    again = join(server.address, game.name, request_id=request_id)
    other = join(server.address, game.name)
    try:
        assert first.seat == again.seat == 0
        assert other.seat == 1
        assert again.seat_view(game.name).seat == 0
    finally:
        for player in (first, again, other):
            player.close()


def test_a_repeated_join_request_id_returns_the_same_token(server: InProcessServer) -> None:
    """game_service.proto, JoinGameRequest.request_id: "the same request id sent again returns the same seat and
    token". Today a retry hands out a new token and revokes the first one, so whoever replays a join request id
    (request ids are in the server's log lines) takes the seat over from the player who joined."""
    game = create_game(server.address, 2)
    request_id = new_id()
    first = join(server.address, game.name, request_id=request_id)
    again = join(server.address, game.name, request_id=request_id)
    try:
        assert first.seat == again.seat
        first_view = first.view(game.name)  # PERMISSION_DENIED today: the retry replaced the token
        assert first_view.seat.seat == first.seat
        assert again.token == first.token
    finally:
        first.close()
        again.close()


def test_replaying_another_seats_request_id_never_returns_its_view(
    server: InProcessServer, tables: Callable[..., Table]
) -> None:
    """SubmitCommandResponse.view is "the caller's view": another seat reusing a request id must never get the
    first seat's response (its cards, its legal actions)."""
    table = scripted(tables, server)
    mano, rival = table.players
    request = mano.request(table.name, play("1e"))
    mano.games.SubmitCommand(request, metadata=mano.metadata, timeout=10)
    try:
        response = rival.games.SubmitCommand(request, metadata=rival.metadata, timeout=10)
    except grpc.RpcError as error:
        assert failure_of(error).code not in UNEXPECTED
        return
    assert response.view.seat == rival.seat, f"seat 1 got seat {response.view.seat}'s view"
    assert not set(texts(response.view.cards)) & set(HANDS_2[0].split()), "seat 1 got seat 0's cards"


# --- 4. Races --------------------------------------------------------------------------------------------------


def race(calls: list[tuple[Player, game_service_pb2.SubmitCommandRequest]]) -> list[Any]:
    """Send the requests at once; each outcome is a response or the Failure it got."""
    futures = [player.submit_future(request) for player, request in calls]
    outcomes: list[Any] = []
    for future in futures:
        try:
            outcomes.append(future.result())
        except grpc.RpcError as error:
            outcomes.append(failure_of(error))
    return outcomes


LOSING = {
    True: {(ABORTED, "VERSION_CONFLICT")},  # with expected_version the loser always finds a newer version
    False: {(ABORTED, "VERSION_CONFLICT"), (FAILED_PRECONDITION, "NO_CALL_PENDING")},
}


@pytest.mark.parametrize("expected_version", [True, False], ids=["with-version", "without-version"])
@pytest.mark.parametrize("instances", ["one-server", "two-servers"])
def test_teammates_racing_to_answer_the_same_truco(
    server: InProcessServer, replica: InProcessServer, expected_version: bool, instances: str
) -> None:
    for _ in range(4):
        table = open_table(server.address, 4, target=TARGET, fixed_deals=[DEAL_4])
        seat_3 = table.players[3]
        if instances == "two-servers":
            seat_3 = Player(replica.address, seat_3.seat, seat_3.token)
            table.players.append(seat_3)  # closed with the table
        try:
            truco = call(commands_pb2.CALL_KIND_TRUCO)
            version = table.players[0].submit(table.name, truco).version
            requests = [
                (p, p.request(table.name, answer(True), version if expected_version else 0))
                for p in (table.players[1], seat_3)
            ]
            outcomes = race(requests)
            wins = [o for o in outcomes if isinstance(o, game_service_pb2.SubmitCommandResponse)]
            losses = [o.kind for o in outcomes if not isinstance(o, game_service_pb2.SubmitCommandResponse)]
            assert len(wins) == 1, outcomes
            assert len(losses) == 1 and losses[0] in LOSING[expected_version], losses
            log = spectator_log(table)
            accepted = [item for item in log if kind_of(item.event) == "call_accepted"]
            assert len(accepted) == 1 and accepted[0].event.call_accepted.call == commands_pb2.CALL_KIND_TRUCO
            assert table.version() == wins[0].version
        finally:
            table.close()


@pytest.mark.parametrize("instances", ["one-server", "two-servers"])
def test_the_same_play_sent_twice_at_once_is_played_once(
    server: InProcessServer, replica: InProcessServer, tables: Callable[..., Table], instances: str
) -> None:
    table = tables(server.address, 2, target=TARGET)
    twins = [
        Player(replica.address if instances == "two-servers" else server.address, p.seat, p.token)
        for p in table.players
    ]
    try:
        for _ in range(8):
            public = table.public()
            seat = public.to_act[0]
            view = table.players[seat].seat_view(table.name)
            plays = [a for a in view.legal_actions if a.HasField("play_card")]
            if not plays:  # a call to answer first (a rival flor sung): answer it, then race the plays again
                table.players[seat].submit(table.name, view.legal_actions[0])
                continue
            command = plays[0]
            text = text_of(command.play_card.card)
            requests = [(p, p.request(table.name, command, public.version)) for p in (table.players[seat], twins[seat])]
            outcomes = race(requests)
            wins = [o for o in outcomes if isinstance(o, game_service_pb2.SubmitCommandResponse)]
            losses = [o for o in outcomes if not isinstance(o, game_service_pb2.SubmitCommandResponse)]
            assert len(wins) == 1, outcomes
            assert losses[0].kind == (ABORTED, "VERSION_CONFLICT"), losses
            assert played(spectator_log(table), text, after_version=public.version) == 1
            assert table.version() == wins[0].version
    finally:
        for twin in twins:
            twin.close()


# --- 5. Durability ---------------------------------------------------------------------------------------------


def test_kill_9_mid_match_loses_no_acknowledged_move(
    stores: Stores, start_process: Callable[..., ProcessServer]
) -> None:
    store = stores.new_url()
    first = start_process(store)
    table = open_table(first.address, 2, target=TARGET)
    acknowledged: list[Move] = []
    stopped: list[BaseException] = []

    def drive() -> None:
        try:
            while step_and_record():
                pass
        except grpc.RpcError as error:
            stopped.append(error)

    def step_and_record() -> bool:
        move = step(table)
        if move is None:
            return False
        acknowledged.append(move)
        return True

    driver = threading.Thread(target=drive, daemon=True)
    driver.start()
    assert wait_until(lambda: len(acknowledged) >= 12, timeout=60), "the match did not get going"
    first.kill()  # kill -9 while the driver keeps sending moves
    driver.join(60)
    assert stopped, "the driver should have lost its server"
    table.close()

    second = start_process(store)
    again = reconnect(table, second.address)
    try:
        last = acknowledged[-1].response
        public = again.public()
        assert public.version >= last.version, f"acknowledged version {last.version}, recovered {public.version}"
        log = replay(again.spectator, again.name, public.version)
        by_version = {item.event.version: item.event for item in log}
        assert sorted(by_version) == list(range(1, public.version + 1))
        for move in acknowledged:
            for event in move.response.events:
                seen = without_own_proofs(event)
                assert by_version[event.version] == seen, f"acknowledged event {event.version} changed"
        for player in again.players:  # the tokens survived too
            view = player.seat_view(again.name)
            assert view.public == public
        if public.version == last.version:
            assert again.players[acknowledged[-1].seat].seat_view(again.name) == last.view
        play_to_end(again)
        final = again.public()
        assert final.phase == MATCH_OVER
        assert max(score.points for score in final.scores) == TARGET
        assert second.terminate() == 0
    finally:
        again.close()


# --- 6. Watch --------------------------------------------------------------------------------------------------


def test_a_watch_from_zero_delivers_every_event_once_in_order(
    server: InProcessServer, tables: Callable[..., Table]
) -> None:
    table = scripted(tables, server, players=4)
    teammate = table.players[2].watch(table.name)
    moves = play_until(table, lambda t: t.version() >= 4)
    signal = next(a for a in table.players[0].seat_view(table.name).legal_actions if a.HasField("send_sena"))
    table.players[0].submit(table.name, signal)
    moves += play_until(table, lambda t: t.public().hand.number >= 2)
    version = table.version()
    teammate.wait_version(version)
    versions = [item.event.version for item in teammate.items]
    kinds = [kind_of(item.event) for item in teammate.items]
    assert kinds.count("sena_sent") == 1
    at = kinds.index("sena_sent")
    assert versions[at] == versions[at - 1], "a seña carries the version of the event before it"
    assert versions[:at] + versions[at + 1 :] == list(range(1, version + 1))
    by_version = {
        item.event.version: without_own_proofs(item.event)
        for item in teammate.items
        if kind_of(item.event) != "sena_sent"
    }
    for move in moves:
        for event in move.response.events:
            assert by_version[event.version] == without_own_proofs(event)  # each seat gets its own proofs
    teammate.cancel()


def test_a_watch_the_client_cancels_leaves_nothing_waiting(
    server: InProcessServer, tables: Callable[..., Table]
) -> None:
    """A watch waits for the next move inside its own call (the server's stop ends every wait through the store,
    with no task per wait); when the client goes away mid-wait, the wait ends with the stream, or each cancelled
    watch would keep a wait on its game until the server stops."""

    table = scripted(tables, server)
    game_id = table.name.removeprefix("games/")

    def waits() -> int:
        """The waits for this game's next move, as live coroutines of the stores' one waiting loop."""

        async def count() -> int:
            return sum(
                1
                for o in gc.get_objects()
                if inspect.iscoroutine(o)
                and o.cr_code is wait_until_after.__code__
                and o.cr_frame is not None
                and o.cr_frame.f_locals.get("game_id") == game_id
            )

        return server.loop.run(count())

    watchers = [table.players[0].watch(table.name) for _ in range(3)]
    for watcher in watchers:
        watcher.wait_for(lambda w: len(w.items) >= 1, what="the first event")
    deadline = time.monotonic() + 10
    while waits() < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert waits() == 3
    for watcher in watchers:
        watcher.call.cancel()
    deadline = time.monotonic() + 10
    while waits() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert waits() == 0


@pytest.mark.parametrize("how", ["cancel", "close-channel"])
def test_a_resumed_watch_misses_nothing_and_repeats_nothing(
    server: InProcessServer, tables: Callable[..., Table], how: str
) -> None:
    table = tables(server.address, 2, target=TARGET)
    seat = table.players[0]
    connection = Player(server.address, seat.seat, seat.token)
    first = connection.watch(table.name)

    def drive() -> None:
        # To version 45, or to the match's end if a fast match (random play to 15) gets there first.
        while table.version() < 45 and step(table) is not None:
            pass

    driver = threading.Thread(target=drive, daemon=True)
    driver.start()  # moves keep coming while the watcher drops and comes back
    first.wait_version(12)
    if how == "cancel":
        first.cancel()
    else:
        connection.close()
        first.wait_finished()
    received = list(first.items)
    resumed = seat.watch(table.name, after_version=received[-1].event.version)
    driver.join(60)
    assert not driver.is_alive()
    version = table.version()
    assert received[-1].event.version < version, "the watcher did not drop mid-stream"
    resumed.wait_version(version)
    resumed.cancel()
    again = Player(server.address, seat.seat, seat.token)
    try:
        full = replay(again, table.name, version)
    finally:
        again.close()
        connection.close()
    combined = [item.SerializeToString() for item in [*received, *resumed.items] if item.event.version <= version]
    assert combined == [item.SerializeToString() for item in full]
    assert [item.event.version for item in full] == list(range(1, version + 1))


def test_a_watch_sees_moves_made_through_another_server_process(
    server: InProcessServer, shared_store: str, start_process: Callable[..., ProcessServer]
) -> None:
    other = start_process(shared_store)
    table = open_table(other.address, 2, target=TARGET)
    here = reconnect(table, server.address)
    try:
        for watched, moving in ((here, table), (table, here)):  # both directions: in process <-> child process
            watcher = watched.spectator.watch(table.name, after_version=moving.version())
            for _ in range(6):
                move = step(moving)
                assert move is not None
                acknowledged = time.monotonic()
                watcher.wait_version(move.response.version, timeout=10)
                assert watcher.arrivals[-1] - acknowledged < 2.5, "the other instance's move arrived late"
            watcher.cancel()
            versions = [item.event.version for item in watcher.items]
            assert versions == list(range(versions[0], versions[0] + len(versions)))
    finally:
        here.close()
        table.close()


def test_a_graceful_stop_ends_watches_with_the_version_to_resume_from(
    server: InProcessServer,
    shared_store: str,
    start_server: Callable[..., InProcessServer],
    tables: Callable[..., Table],
) -> None:
    stopping = start_server(shared_store)
    table = tables(server.address, 2, target=TARGET)
    play_until(table, lambda t: t.version() >= 6)
    version = table.version()
    there = reconnect(table, stopping.address)
    watchers = [there.spectator.watch(table.name), there.players[1].watch(table.name)]
    for watcher in watchers:
        watcher.wait_version(version)

    stopping.begin_stop(grace=5)

    for watcher in watchers:
        watcher.wait_finished(timeout=15)
        assert watcher.error is not None, "the watch ended without a status"
        failure = failure_of(watcher.error)
        assert failure.kind == (UNAVAILABLE, "SERVER_SHUTTING_DOWN")
        assert failure.metadata["version"] == str(version)
    stopping.stop()
    there.close()
    # Resuming elsewhere from that version delivers exactly what came next.
    resumed = table.players[1].watch(table.name, after_version=version)
    move = step(table)
    assert move is not None
    resumed.wait_version(move.response.version)
    assert [item.event.version for item in resumed.items] == list(range(version + 1, move.response.version + 1))
    resumed.cancel()


# --- 7. Malformed and oversized requests -----------------------------------------------------------------------

BAD_NAMES = ["", "abc", "game/abc", "games/", "games/a b", "games/a/b", "GAMES/abc", "games/../x", "games/" + "x" * 65]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_name_that_is_not_games_id_is_invalid(
    server: InProcessServer, tables: Callable[..., Table], name: str
) -> None:
    table = scripted(tables, server)
    seat = table.players[0]
    invalid = (INVALID_ARGUMENT, "INVALID_NAME")
    assert fails(lambda: seat.view(name)).kind == invalid
    assert fails(lambda: table.spectator.view(name)).kind == invalid
    assert fails(lambda: seat.legal(name)).kind == invalid
    assert fails(lambda: seat.submit(name, play("1e"))).kind == invalid
    join_request = game_service_pb2.JoinGameRequest(name=name, request_id=new_id())
    assert fails(lambda: seat.games.JoinGame(join_request, timeout=10)).kind == invalid
    watch = seat.watch(name)
    watch.wait_finished()
    assert watch.error is not None and failure_of(watch.error).kind == invalid


def test_an_unknown_game_is_not_found(server: InProcessServer, tables: Callable[..., Table]) -> None:
    table = scripted(tables, server)
    seat = table.players[0]
    name = "games/" + new_id()
    missing = (NOT_FOUND, "GAME_NOT_FOUND")
    assert fails(lambda: table.spectator.view(name)).kind == missing
    assert fails(lambda: seat.view(name)).kind == missing
    assert fails(lambda: seat.legal(name)).kind == missing
    assert fails(lambda: seat.submit(name, play("1e"))).kind == missing
    join_request = game_service_pb2.JoinGameRequest(name=name, request_id=new_id())
    assert fails(lambda: seat.games.JoinGame(join_request, timeout=10)).kind == missing
    watch = table.spectator.watch(name)
    watch.wait_finished()
    assert watch.error is not None and failure_of(watch.error).kind == missing


@pytest.mark.parametrize(
    "command",
    [
        None,
        commands_pb2.Command(),
        play("8e"),
        commands_pb2.Command(play_card=commands_pb2.PlayCard(card=cards_pb2.Card(rank=9, suit=cards_pb2.SUIT_ORO))),
        commands_pb2.Command(play_card=commands_pb2.PlayCard(card=cards_pb2.Card(rank=1))),
        commands_pb2.Command(play_card=commands_pb2.PlayCard()),
        call(commands_pb2.CALL_KIND_UNSPECIFIED),
        call(77),
        sena(commands_pb2.SENA_UNSPECIFIED),
    ],
    ids=["no-command", "no-kind", "rank-8", "rank-9", "no-suit", "no-card", "no-call", "unknown-call", "no-sena"],
)
def test_a_malformed_command_is_invalid_and_changes_nothing(
    server: InProcessServer, tables: Callable[..., Table], command: commands_pb2.Command | None
) -> None:
    table = scripted(tables, server)
    with unchanged(table):
        failure = fails(lambda: table.players[0].submit(table.name, command))
    assert failure.kind == (INVALID_ARGUMENT, "MALFORMED_REQUEST")


@pytest.mark.parametrize(
    ("rules", "reason"),
    [
        (rules_pb2.RuleSet(players=3, target=25), "MALFORMED_REQUEST"),
        (rules_pb2.RuleSet(players=3), "MALFORMED_REQUEST"),
        (rules_pb2.RuleSet(players=2, target=25), "MALFORMED_REQUEST"),
        (rules_pb2.RuleSet(players=8, target=30), "MALFORMED_REQUEST"),
        (rules_pb2.RuleSet(players=-2), "MALFORMED_REQUEST"),
        (rules_pb2.RuleSet(falta_envido=9), "MALFORMED_REQUEST"),
    ],
)
def test_impossible_rules_are_invalid(server: InProcessServer, rules: rules_pb2.RuleSet, reason: str) -> None:
    player = Player(server.address)
    try:
        request = game_service_pb2.CreateGameRequest(request_id=new_id(), rules=rules)
        assert fails(lambda: player.games.CreateGame(request, timeout=10)).kind == (INVALID_ARGUMENT, reason)
    finally:
        player.close()


def test_scripted_deals_need_a_server_that_allows_them(replica: InProcessServer) -> None:
    player = Player(replica.address)
    try:
        request = game_service_pb2.CreateGameRequest(request_id=new_id(), rules=rules_pb2.RuleSet(players=2))
        request.fixed_deals.append(DEAL_2)
        failure = fails(lambda: player.games.CreateGame(request, timeout=10))
        assert failure.kind == (FAILED_PRECONDITION, "FIXED_DEALS_DISABLED")
    finally:
        player.close()


def test_a_scripted_deal_is_dealt_as_written(server: InProcessServer, tables: Callable[..., Table]) -> None:
    second = fixed_deal(("4e 5b 6o", "10e 11b 12o"), "1c")  # hand 2: seat 1 is the mano
    table = tables(server.address, 2, target=TARGET, fixed_deals=[DEAL_2, second])
    for seat, hand in enumerate(HANDS_2):
        view = table.players[seat].seat_view(table.name)
        assert texts(view.cards) == hand.split()
        assert text_of(view.public.hand.muestra) == MUESTRA
    table.players[0].submit(table.name, mazo())  # the mano concedes the hand: hand 2 is dealt
    for seat, hand in ((1, "4e 5b 6o"), (0, "10e 11b 12o")):
        view = table.players[seat].seat_view(table.name)
        assert view.public.hand.number == 2 and view.public.hand.mano == 1
        assert texts(view.cards) == hand.split()
        assert text_of(view.public.hand.muestra) == "1c"


def test_a_four_player_scripted_deal_follows_the_seats_from_the_mano(
    server: InProcessServer, tables: Callable[..., Table]
) -> None:
    table = scripted(tables, server, players=4)
    for seat, hand in enumerate(HANDS_4):
        assert texts(table.players[seat].seat_view(table.name).cards) == hand.split()


@pytest.mark.parametrize(
    "deal",
    [
        fixed_deal(("1e 2e 3e", "1e 5b 6b"), "7c"),  # a card twice
        fixed_deal(("1e 2e 3e", "4b 5b 6b"), "3e"),  # the muestra in a hand
        fixed_deal(("1e 2e", "4b 5b 6b"), "7c"),  # two cards
        fixed_deal(("1e 2e 3e",), "7c"),  # one hand
    ],
)
def test_an_impossible_scripted_deal_is_invalid(server: InProcessServer, deal: game_service_pb2.FixedDeal) -> None:
    player = Player(server.address)
    try:
        request = game_service_pb2.CreateGameRequest(request_id=new_id(), rules=rules_pb2.RuleSet(players=2))
        request.fixed_deals.append(deal)
        assert fails(lambda: player.games.CreateGame(request, timeout=10)).kind == (INVALID_ARGUMENT, "INVALID_DEAL")
    finally:
        player.close()


def test_a_request_over_64_kib_is_resource_exhausted(server: InProcessServer, tables: Callable[..., Table]) -> None:
    table = scripted(tables, server)
    player = table.players[0]
    create = game_service_pb2.CreateGameRequest(request_id="x" * (65 * 1024), rules=rules_pb2.RuleSet(players=2))
    assert fails(lambda: player.games.CreateGame(create, timeout=10)).code == RESOURCE_EXHAUSTED
    with unchanged(table):
        submit = player.request(table.name, play("1e"), request_id="y" * (65 * 1024))
        big = fails(lambda: player.games.SubmitCommand(submit, metadata=player.metadata, timeout=10))
    assert big.code == RESOURCE_EXHAUSTED
    # Just under the limit the request is read, and its 60 KiB request id refused before any store sees it.
    with unchanged(table):
        near = fails(lambda: player.submit(table.name, play("1e"), request_id="z" * (60 * 1024)))
    assert near.kind == (INVALID_ARGUMENT, "INVALID_REQUEST_ID")
    assert player.submit(table.name, play("1e")).version == table.game.version + 1


def test_joining_a_seat_that_cannot_be_taken_is_refused(server: InProcessServer, tables: Callable[..., Table]) -> None:
    game = create_game(server.address, 4)
    player = Player(server.address)
    try:

        def join_as(seat: int | None, player_name: str = "p") -> game_service_pb2.JoinGameResponse:
            request = game_service_pb2.JoinGameRequest(name=game.name, request_id=new_id(), player_name=player_name)
            if seat is not None:
                request.seat = seat
            return player.games.JoinGame(request, timeout=10)

        assert fails(lambda: join_as(4)).kind == (INVALID_ARGUMENT, "INVALID_SEAT")
        assert fails(lambda: join_as(-1)).kind == (INVALID_ARGUMENT, "INVALID_SEAT")
        assert fails(lambda: join_as(0, "x" * 65)).kind == (INVALID_ARGUMENT, "PLAYER_NAME_TOO_LONG")
        assert join_as(2).seat == 2
        assert fails(lambda: join_as(2)).kind == (FAILED_PRECONDITION, "SEAT_UNAVAILABLE")
        assert sorted(join_as(None).seat for _ in range(3)) == [0, 1, 3]
        assert fails(lambda: join_as(None)).kind == (FAILED_PRECONDITION, "SEAT_UNAVAILABLE")
    finally:
        player.close()


def test_list_games_pages_through_open_games_only(server: InProcessServer) -> None:
    mine = [create_game(server.address, 2).name for _ in range(3)]
    full = create_game(server.address, 2)
    seated = [join(server.address, full.name) for _ in range(2)]
    player = Player(server.address)
    try:
        listed: list[str] = []
        token = ""
        for _ in range(1000):
            page = player.games.ListGames(game_service_pb2.ListGamesRequest(page_size=7, page_token=token), timeout=10)
            assert len(page.games) <= 7
            assert all(any(s.kind == game_service_pb2.SEAT_KIND_OPEN for s in g.seats) for g in page.games)
            listed += [g.name for g in page.games]
            token = page.next_page_token
            if not token:
                break
        assert len(listed) == len(set(listed)), "a game was listed twice"
        assert set(mine) <= set(listed) and full.name not in listed
        bad_size = game_service_pb2.ListGamesRequest(page_size=-1)
        assert fails(lambda: player.games.ListGames(bad_size, timeout=10)).kind == (
            INVALID_ARGUMENT,
            "INVALID_PAGE_SIZE",
        )
    finally:
        player.close()
        for seat in seated:
            seat.close()


def open_game_names(player: Player) -> list[str]:
    names: list[str] = []
    token = ""
    for _ in range(1000):
        page = player.games.ListGames(game_service_pb2.ListGamesRequest(page_size=100, page_token=token), timeout=10)
        names += [game.name for game in page.games]
        token = page.next_page_token
        if not token:
            return names
    raise AssertionError("ListGames never reached its last page")


def test_list_games_lists_the_newest_first(server: InProcessServer) -> None:
    """game_service.proto, ListGames: "Open games (a seat free, not over), newest first"."""
    created = [create_game(server.address, 2).name for _ in range(6)]
    player = Player(server.address)
    try:
        listed = [name for name in open_game_names(player) if name in created]
    finally:
        player.close()
    assert listed == created[::-1], "games created one after another are not listed newest first"


UNARY_METHODS: dict[str, type[Message]] = {
    "/truco.v1.GameService/CreateGame": game_service_pb2.CreateGameRequest,
    "/truco.v1.GameService/JoinGame": game_service_pb2.JoinGameRequest,
    "/truco.v1.GameService/GetGameView": game_service_pb2.GetGameViewRequest,
    "/truco.v1.GameService/ListLegalActions": game_service_pb2.ListLegalActionsRequest,
    "/truco.v1.GameService/SubmitCommand": game_service_pb2.SubmitCommandRequest,
    "/truco.v1.GameService/ListGames": game_service_pb2.ListGamesRequest,
    "/truco.v1.RulesService/EvaluateHand": rules_service_pb2.EvaluateHandRequest,
    "/truco.v1.RulesService/CompareCards": rules_service_pb2.CompareCardsRequest,
}
WATCH_METHOD = "/truco.v1.GameService/WatchGame"


def valid_requests(table: Table) -> dict[str, bytes]:
    """One well-formed request per method, to mutate."""
    name = table.name
    return {
        "/truco.v1.GameService/CreateGame": game_service_pb2.CreateGameRequest(
            request_id="r", rules=rules_pb2.RuleSet(players=4, target=30), fixed_deals=[DEAL_2]
        ).SerializeToString(),
        "/truco.v1.GameService/JoinGame": game_service_pb2.JoinGameRequest(
            name=name, request_id="j", seat=1, player_name="p"
        ).SerializeToString(),
        "/truco.v1.GameService/GetGameView": game_service_pb2.GetGameViewRequest(name=name).SerializeToString(),
        "/truco.v1.GameService/ListLegalActions": game_service_pb2.ListLegalActionsRequest(
            name=name
        ).SerializeToString(),
        "/truco.v1.GameService/SubmitCommand": table.players[0]
        .request(name, play("1e"), expected_version=3, request_id="s")
        .SerializeToString(),
        "/truco.v1.GameService/ListGames": game_service_pb2.ListGamesRequest(page_size=3).SerializeToString(),
        "/truco.v1.RulesService/EvaluateHand": rules_service_pb2.EvaluateHandRequest(
            muestra=card("1o"), cards=[card("2o"), card("7e"), card("3c")]
        ).SerializeToString(),
        "/truco.v1.RulesService/CompareCards": rules_service_pb2.CompareCardsRequest(
            muestra=card("1o"), first=card("2o"), second=card("7e")
        ).SerializeToString(),
        WATCH_METHOD: game_service_pb2.WatchGameRequest(name=name, after_version=2).SerializeToString(),
    }


def mutate(data: bytes, rng: random.Random) -> bytes:
    raw = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        choice = rng.random()
        if raw and choice < 0.4:
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        elif raw and choice < 0.6:
            del raw[rng.randrange(len(raw))]
        elif choice < 0.8:
            raw.insert(rng.randrange(len(raw) + 1), rng.randrange(256))
        else:
            raw += rng.randbytes(rng.randint(1, 8))
    return bytes(raw)


def raw_call(channel: grpc.Channel, method: str, data: bytes, metadata: tuple[tuple[str, str], ...]) -> grpc.StatusCode:
    """Send ``data`` as the serialized request (identity serializers); the status code of the answer."""
    try:
        if method == WATCH_METHOD:
            stream = channel.unary_stream(method)(data, metadata=metadata, timeout=0.5)
            for _ in stream:
                pass
        else:
            channel.unary_unary(method)(data, metadata=metadata, timeout=10)
    except grpc.RpcError as error:
        assert isinstance(error, grpc.Call)
        return error.code()
    return OK


def test_random_bytes_never_get_unknown_or_internal(server: InProcessServer, tables: Callable[..., Table]) -> None:
    table = scripted(tables, server)
    seat = table.players[0]
    rng = random.Random(20240601)
    samples = valid_requests(table)
    methods = sorted(samples)
    bad: list[str] = []
    codes: dict[grpc.StatusCode, int] = {}
    for attempt in range(360):
        method = methods[attempt % len(methods)]
        data = rng.randbytes(rng.randint(0, 64)) if attempt % 3 == 0 else mutate(samples[method], rng)
        metadata = rng.choice([(), seat.metadata, (("authorization", "Basic abc"),)])
        code = raw_call(seat.channel, method, data, metadata)
        codes[code] = codes.get(code, 0) + 1
        if code in UNEXPECTED:
            bad.append(f"{method} {data.hex()} -> {code.name}")
    assert not bad, f"{len(bad)} of 360 requests got UNKNOWN/INTERNAL, e.g. {bad[:5]} (all codes: {codes})"


def test_odd_but_well_formed_requests_never_get_unknown_or_internal(
    server: InProcessServer, tables: Callable[..., Table]
) -> None:
    table = scripted(tables, server)
    seat = table.players[0]
    rng = random.Random(7)

    def any_card() -> cards_pb2.Card:
        return cards_pb2.Card(rank=rng.randint(-2, 14), suit=rng.randint(0, 6))

    def any_text() -> str:
        return "".join(rng.choice("ab/_-9 é\x00games") for _ in range(rng.randint(0, 12)))

    requests: list[tuple[str, Message, tuple[tuple[str, str], ...]]] = []
    for _ in range(40):
        requests.append(
            (
                "/truco.v1.GameService/ListGames",
                game_service_pb2.ListGamesRequest(page_size=rng.randint(-5, 500), page_token=any_text()),
                (),
            )
        )
        join_request = game_service_pb2.JoinGameRequest(
            name=rng.choice([table.name, any_text()]), request_id=any_text(), player_name=any_text() * 10
        )
        if rng.random() < 0.7:
            join_request.seat = rng.randint(-3, 8)
        requests.append(("/truco.v1.GameService/JoinGame", join_request, ()))
        command = rng.choice(
            [
                commands_pb2.Command(play_card=commands_pb2.PlayCard(card=any_card())),
                call(rng.randint(-1, 12)),
                sena(rng.randint(-1, 15)),
                commands_pb2.Command(answer_perros=commands_pb2.AnswerPerros(accept_envido=True)),
                commands_pb2.Command(call_perros=commands_pb2.CallPerros()),
            ]
        )
        submit = seat.request(table.name, command, expected_version=rng.choice([0, -1, 2**62, 1]))
        requests.append(("/truco.v1.GameService/SubmitCommand", submit, seat.metadata))
        create = game_service_pb2.CreateGameRequest(
            rules=rules_pb2.RuleSet(players=rng.choice([0, 2, 4, 6, 5]), target=rng.choice([0, 15, 16, 60, -1])),
            bots=[game_service_pb2.BotSeat(seat=rng.randint(-1, 6), kind=rng.randint(0, 4))],
        )
        requests.append(("/truco.v1.GameService/CreateGame", create, ()))
        evaluate = rules_service_pb2.EvaluateHandRequest(
            muestra=any_card(), cards=[any_card() for _ in range(rng.randint(0, 5))]
        )
        requests.append(("/truco.v1.RulesService/EvaluateHand", evaluate, ()))
    bad = []
    for method, message, metadata in requests:
        code = raw_call(seat.channel, method, message.SerializeToString(), metadata)
        if code in UNEXPECTED:
            bad.append(f"{method}({message}) -> {code.name}".replace("\n", " "))
    assert not bad, f"{len(bad)} of {len(requests)} well-formed requests got UNKNOWN/INTERNAL: {bad[:5]}"


def test_a_bad_page_token_is_invalid_argument(server: InProcessServer) -> None:
    """A page token the server did not hand out is a malformed request (the proto names no reason for it)."""
    player = Player(server.address)
    try:
        request = game_service_pb2.ListGamesRequest(page_token="not-a-cursor")
        failure = fails(lambda: player.games.ListGames(request, timeout=10))
        assert failure.code == INVALID_ARGUMENT, failure
        assert failure.reason in {"INVALID_PAGE_TOKEN", "MALFORMED_REQUEST"}, failure
    finally:
        player.close()


# --- 8. Operations ---------------------------------------------------------------------------------------------


def health_check(address: str, service: str) -> int:
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=10).status


def test_health_is_serving(server: InProcessServer) -> None:
    for service in ("", "truco.v1.GameService", "truco.v1.RulesService", "liveness"):
        assert health_check(server.address, service) == health_pb2.HealthCheckResponse.SERVING, service
    with grpc.insecure_channel(server.address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        unknown = health_pb2.HealthCheckRequest(service="truco.v1.NoSuchService")
        with pytest.raises(grpc.RpcError) as raised:
            stub.Check(unknown, timeout=10)
    assert isinstance(raised.value, grpc.Call) and raised.value.code() == NOT_FOUND


def test_health_watch_turns_not_serving_once_a_stop_begins(
    shared_store: str, start_server: Callable[..., InProcessServer]
) -> None:
    """Once a stop begins new calls are refused, so a Watch opened before is how a client sees NOT_SERVING."""
    stopping = start_server(shared_store)
    channel = grpc.insecure_channel(stopping.address)
    stub = health_pb2_grpc.HealthStub(channel)
    try:
        streams = {service: stub.Watch(health_pb2.HealthCheckRequest(service=service)) for service in ("", "liveness")}
        for service, stream in streams.items():
            try:
                first = next(stream)
            except grpc.RpcError as error:
                assert isinstance(error, grpc.Call)
                pytest.fail(f"Health.Watch({service!r}) failed: {error.code().name} {error.details()}")
            assert first.status == health_pb2.HealthCheckResponse.SERVING, service
        done = stopping.begin_stop(grace=3)
        for service, stream in streams.items():
            assert next(stream).status == health_pb2.HealthCheckResponse.NOT_SERVING, service
        done.result(30)
    finally:
        channel.close()


def test_no_health_check_answers_serving_once_a_stop_begins(
    shared_store: str, start_server: Callable[..., InProcessServer], tables: Callable[..., Table]
) -> None:
    stopping = start_server(shared_store)
    table = tables(stopping.address, 2, target=TARGET)
    watcher = table.spectator.watch(table.name)  # an open stream keeps the server in its grace period
    watcher.wait_version(table.version())
    assert health_check(stopping.address, "") == health_pb2.HealthCheckResponse.SERVING
    done = stopping.begin_stop(grace=3)
    watcher.wait_finished()  # told to resume elsewhere: the stop is under way
    assert watcher.error is not None and failure_of(watcher.error).kind == (UNAVAILABLE, "SERVER_SHUTTING_DOWN")
    answers = []
    for service in ("", "truco.v1.GameService", "liveness"):
        try:
            answers.append(health_check(stopping.address, service))
        except grpc.RpcError as error:
            assert isinstance(error, grpc.Call)
            answers.append(error.code())
    assert health_pb2.HealthCheckResponse.SERVING not in answers, answers
    done.result(30)


def test_reflection_lists_both_services(server: InProcessServer) -> None:
    with grpc.insecure_channel(server.address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        requests = iter(
            [
                reflection_pb2.ServerReflectionRequest(list_services=""),
                reflection_pb2.ServerReflectionRequest(file_containing_symbol="truco.v1.GameService"),
            ]
        )
        listed, described = list(stub.ServerReflectionInfo(requests, timeout=10))
    services = {service.name for service in listed.list_services_response.service}
    assert {"truco.v1.GameService", "truco.v1.RulesService", "grpc.health.v1.Health"} <= services
    assert described.file_descriptor_response.file_descriptor_proto


Samples = dict[str, list[tuple[dict[str, str], float]]]


def scrape(port: int) -> Samples:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer_:
        text = answer_.read().decode()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return samples


def total(samples: Samples, name: str, **labels: str) -> float:
    return sum(value for found, value in samples.get(name, []) if all(found.get(k) == v for k, v in labels.items()))


def test_metrics_count_calls_matches_and_events(server: InProcessServer, tables: Callable[..., Table]) -> None:
    assert server.metrics_port
    before = scrape(server.metrics_port)
    table = scripted(tables, server)
    response = table.players[0].submit(table.name, play("1e"))
    fails(lambda: table.players[0].submit(table.name, play("6e")))
    handled = "grpc_server_handled_total"
    submit = {"grpc_service": "truco.v1.GameService", "grpc_method": "SubmitCommand"}
    # A call is counted when its handler returns, which may be just after the client has its answer.
    deadline = time.monotonic() + 10
    while True:
        after = scrape(server.metrics_port)
        counted = total(after, handled, grpc_code="FAILED_PRECONDITION", **submit)
        if counted > total(before, handled, grpc_code="FAILED_PRECONDITION", **submit) or time.monotonic() > deadline:
            break
        time.sleep(0.01)

    assert total(after, "truco_matches_started_total") >= total(before, "truco_matches_started_total") + 1
    appended = total(after, "truco_events_appended_total") - total(before, "truco_events_appended_total")
    assert appended >= len(response.events)
    for code in ("OK", "FAILED_PRECONDITION"):
        assert total(after, handled, grpc_code=code, **submit) >= total(before, handled, grpc_code=code, **submit) + 1
    assert all("grpc_code" in labels for labels, _ in after[handled])
    assert total(after, "grpc_server_handling_seconds_count", **submit) >= 2
    assert "grpc_server_handling_seconds_bucket" in after


def test_a_failed_call_is_never_counted_as_ok(server: InProcessServer) -> None:
    """grpc_server_handled_total counts each call under the code the client received, even when a handler failed
    unexpectedly (here: a page token that is not a cursor, and a Health.Watch)."""
    port = server.metrics_port
    assert port
    player = Player(server.address)
    health = health_pb2_grpc.HealthStub(player.channel)
    probes: list[tuple[str, str, Callable[[], object]]] = [
        (
            "truco.v1.GameService",
            "ListGames",
            lambda: player.games.ListGames(game_service_pb2.ListGamesRequest(page_token="%%"), timeout=10),
        ),
        ("grpc.health.v1.Health", "Watch", lambda: next(health.Watch(health_pb2.HealthCheckRequest(), timeout=2))),
    ]
    wrong: list[str] = []
    try:
        for service, method, probe in probes:
            before = scrape(port)
            try:
                probe()
                continue  # the call did not fail: nothing to check
            except grpc.RpcError as error:
                assert isinstance(error, grpc.Call)
                received = error.code().name

            def counted(service: str = service, method: str = method, before: Samples = before) -> dict[str, float]:
                grew = {
                    found["grpc_code"]: value - total(before, "grpc_server_handled_total", **found)
                    for found, value in scrape(port).get("grpc_server_handled_total", [])
                    if found.get("grpc_service") == service and found.get("grpc_method") == method
                }
                return {code: value for code, value in grew.items() if value}

            wait_until(lambda: bool(counted()), timeout=5)
            if counted() != {received: 1}:
                wrong.append(f"{service}/{method}: the client got {received}, the metrics counted {counted()}")
    finally:
        player.close()
    assert not wrong, wrong


CARD_TEXT = re.compile(r"(?<![0-9A-Za-z])(?:1[012]|[1-7])[ebocEBOC](?![0-9A-Za-z])")


def test_logs_are_json_lines_without_tokens_or_cards(
    stores: Stores, start_process: Callable[..., ProcessServer]
) -> None:
    serving = start_process(stores.new_url())
    table = open_table(serving.address, 2, target=TARGET)
    try:
        held = set()
        for player in table.players:
            held |= set(texts(player.seat_view(table.name).cards))
        rival_card = texts(table.players[1].seat_view(table.name).cards)[0]
        fails(lambda: table.players[0].submit(table.name, play(rival_card)))  # CARD_NOT_IN_HAND
        fails(lambda: table.players[1].submit(table.name, play(rival_card)))  # NOT_YOUR_TURN
        fails(lambda: table.spectator.submit(table.name, play(rival_card)))  # TOKEN_MISSING
        for _ in range(6):
            assert step(table) is not None
        watcher = table.players[0].watch(table.name)
        watcher.wait_version(table.version())
        watcher.cancel()
        salts = {p.salt for player in table.players for p in player.seat_view(table.name).own_proofs}
        assert serving.terminate() == 0
    finally:
        table.close()
    text = serving.stderr_text()
    lines = [line for line in text.splitlines() if line.strip()]
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            pytest.fail(f"a log line is not JSON: {line!r}")
    rpcs = [record for record in records if record.get("event") == "rpc"]
    assert rpcs
    for record in rpcs:
        assert {"method", "code", "latency_ms"} <= record.keys(), record
        assert isinstance(record["latency_ms"], int | float)
    codes = {(record["method"], record["code"]) for record in rpcs}
    assert ("truco.v1.GameService/SubmitCommand", "FAILED_PRECONDITION") in codes
    assert ("truco.v1.GameService/SubmitCommand", "UNAUTHENTICATED") in codes
    assert ("truco.v1.GameService/JoinGame", "OK") in codes
    for player in table.players:
        assert player.token and player.token not in text, "a seat token is in the log"
    assert not CARD_TEXT.findall(text), f"card text in the log: {sorted(set(CARD_TEXT.findall(text)))}"
    assert held and not any(re.search(rf"(?<![0-9A-Za-z]){c}(?![0-9A-Za-z])", text) for c in held)
    assert salts and not any(salt in text for salt in salts), "a card's fair-deal salt is in the log"


# --- 9. RulesService -------------------------------------------------------------------------------------------


def test_evaluate_hand(server: InProcessServer) -> None:
    player = Player(server.address)
    try:
        request = rules_service_pb2.EvaluateHandRequest(muestra=card("1o"), cards=[card(t) for t in ("2o", "7e", "3c")])
        result = player.rules.EvaluateHand(request, timeout=10)
        assert result.HasField("envido") and result.envido == 37
        assert not result.flor and not result.HasField("flor_points")
        assert list(result.strength) == [19, 12, 10]
        assert list(result.piezas) == [True, False, False]
        with_flor = rules_service_pb2.EvaluateHandRequest(
            muestra=card("1o"), cards=[card(t) for t in ("2o", "5o", "3c")]
        )
        flor = player.rules.EvaluateHand(with_flor, timeout=10)
        assert flor.flor and flor.HasField("flor_points") and not flor.HasField("envido")
    finally:
        player.close()


@pytest.mark.parametrize(
    ("muestra", "hand"),
    [
        ("1o", "2o 2o 3c"),
        ("1o", "1o 7e 3c"),
        ("1o", "2o 7e"),
        ("1o", "2o 7e 3c 4c"),
        ("1o", "8e 7e 3c"),
        ("0o", "2o 7e 3c"),
    ],
    ids=["repeated", "the-muestra", "two-cards", "four-cards", "rank-8", "muestra-rank-0"],
)
def test_evaluating_an_impossible_hand_is_invalid(server: InProcessServer, muestra: str, hand: str) -> None:
    player = Player(server.address)
    try:
        request = rules_service_pb2.EvaluateHandRequest(muestra=card(muestra), cards=[card(t) for t in hand.split()])
        assert fails(lambda: player.rules.EvaluateHand(request, timeout=10)).code == INVALID_ARGUMENT
    finally:
        player.close()


def test_compare_cards(server: InProcessServer) -> None:
    player = Player(server.address)
    try:

        def compare(first: str, second: str, muestra: str = "1o") -> rules_service_pb2.CompareCardsResponse:
            request = rules_service_pb2.CompareCardsRequest(
                muestra=card(muestra), first=card(first), second=card(second)
            )
            return player.rules.CompareCards(request, timeout=10)

        assert (
            compare("2o", "7e").result,
            compare("2o", "7e").first_strength,
            compare("2o", "7e").second_strength,
        ) == (
            1,
            19,
            12,
        )
        assert compare("7e", "2o").result == -1
        assert compare("3c", "3e").result == 0
        assert compare("1e", "1b").result == 1  # the 1 of espadas is the top mata
        bad = rules_service_pb2.CompareCardsRequest(muestra=card("1o"), first=card("2o"), second=cards_pb2.Card(rank=8))
        assert fails(lambda: player.rules.CompareCards(bad, timeout=10)).kind == (INVALID_ARGUMENT, "MALFORMED_REQUEST")
    finally:
        player.close()


def test_the_rules_service_needs_no_token(server: InProcessServer) -> None:
    player = Player(server.address)
    try:
        request = rules_service_pb2.EvaluateHandRequest(muestra=card("1o"), cards=[card(t) for t in ("2o", "7e", "3c")])
        assert player.rules.EvaluateHand(request, metadata=bearer("whatever"), timeout=10).envido == 37
    finally:
        player.close()


# --- Issue 7 over gRPC: envido closed after quiero, a rival flor answered, views without guessing -----------------

FLOR_MUESTRA = "1c"  # piezas 2c 4c 5c 11c 10c: none below; 7e 6e 5e is a flor of 38, 7o 6o 4o one of 37
FLOR_BY_SEAT = game_service_pb2.FixedDeal(  # named by seat, in any order: the server deals them from the mano
    seat_hands=[
        game_service_pb2.SeatHand(seat=1, cards=[card(t) for t in ["7o", "6o", "4o"]]),
        game_service_pb2.SeatHand(seat=0, cards=[card(t) for t in ["7e", "6e", "5e"]]),
    ],
    muestra=card(FLOR_MUESTRA),
)


def answer_to(accept: bool, kind: int) -> commands_pb2.Command:
    return commands_pb2.Command(answer=commands_pb2.Answer(accept=accept, call=kind))


def test_envido_after_quiero_is_refused_and_answers_name_their_call(
    server: InProcessServer, tables: Callable[..., Table]
) -> None:
    table = scripted(tables, server)
    mano, pie = table.players
    mano.submit(table.name, call(commands_pb2.CALL_KIND_TRUCO))
    legal = list(pie.legal(table.name).actions)
    assert answer_to(True, commands_pb2.CALL_KIND_TRUCO) in legal  # the legal answer names the truco
    assert call(commands_pb2.CALL_KIND_ENVIDO) in legal  # el envido está primero
    with unchanged(table):  # a quiero meant for another call is refused
        failure = fails(lambda: pie.submit(table.name, answer_to(True, commands_pb2.CALL_KIND_ENVIDO)))
    assert failure.kind == (FAILED_PRECONDITION, "CALL_MISMATCH")
    reply = pie.submit(table.name, answer_to(True, commands_pb2.CALL_KIND_TRUCO))
    assert [kind_of(e) for e in reply.events] == ["call_accepted"]
    assert reply.view.public.hand.envido_closed
    for seat, player in enumerate(table.players):
        with unchanged(table):
            failure = fails(lambda: player.submit(table.name, call(commands_pb2.CALL_KIND_ENVIDO)))  # noqa: B023
        assert failure.kind[1] == "ENVIDO_CLOSED" or (seat == 1 and failure.kind[1] == "NOT_YOUR_TURN")


def test_stack_of_pending_calls_over_grpc(server: InProcessServer, tables: Callable[..., Table]) -> None:
    table = scripted(tables, server)
    mano, pie = table.players
    mano.submit(table.name, call(commands_pb2.CALL_KIND_TRUCO))
    pie.submit(table.name, call(commands_pb2.CALL_KIND_REAL_ENVIDO))
    hand = table.public().hand
    stack = [(p.call, p.seat, p.team, p.value) for p in hand.pending_calls]
    assert stack == [(commands_pb2.CALL_KIND_TRUCO, 0, 0, 2), (commands_pb2.CALL_KIND_REAL_ENVIDO, 1, 1, 3)]
    assert hand.pending == hand.pending_calls[-1] and not hand.HasField("turn")


def test_rival_flor_answered_and_the_last_hand_summary_over_grpc(
    server: InProcessServer, tables: Callable[..., Table]
) -> None:
    table = tables(server.address, 2, target=TARGET, fixed_deals=[FLOR_BY_SEAT])
    mano, pie = table.players
    view = mano.seat_view(table.name)
    assert texts(view.cards) == ["7e", "6e", "5e"]  # the hands named by seat reached their seats
    assert all(verify_proof(view.public.hand.commitments, p) for p in view.own_proofs)
    mano.submit(table.name, play("5e"))
    reply = pie.submit(table.name, play("4o"))  # sings the second flor: the mano's team answers it
    assert [kind_of(e) for e in reply.events] == ["flor_sung", "card_played", "round_ended", "call_made"]
    assert reply.events[-1].call_made.call == commands_pb2.CALL_KIND_FLOR
    view = mano.seat_view(table.name)
    pending = view.public.hand.pending
    assert (pending.call, pending.seat, pending.value) == (commands_pb2.CALL_KIND_FLOR, 1, 6)
    raises = [commands_pb2.CALL_KIND_CON_FLOR_ENVIDO, commands_pb2.CALL_KIND_CONTRA_FLOR]
    raises.append(commands_pb2.CALL_KIND_CONTRA_FLOR_AL_RESTO)
    expected = [answer_to(True, commands_pb2.CALL_KIND_FLOR), *(call(k) for k in raises), mazo()]
    assert list(view.legal_actions) == expected  # con flor quiero or a raise: never no quiero
    with unchanged(table):
        failure = fails(lambda: mano.submit(table.name, answer(False)))
    assert failure.kind == (FAILED_PRECONDITION, "FLOR_RAISE_INVALID")
    mano.submit(table.name, call(commands_pb2.CALL_KIND_CONTRA_FLOR))
    reply = pie.submit(table.name, answer(True))
    scored = [(e.points_scored.team, e.points_scored.points) for e in reply.events if kind_of(e) == "points_scored"]
    assert scored == [(0, 9)]  # 3 + 3 + 3: the mano's 38 beats 37
    reply = mano.submit(table.name, mazo())  # ends hand 1 and deals hand 2 in the same move
    summary = reply.view.public.last_hand
    assert summary.number == 1 and summary.winner_team == 1 and summary.end == events_pb2.HAND_END_MAZO
    assert [r.winner_team for r in summary.rounds] == [0]
    assert [(s.team, s.points, s.reason) for s in summary.scored] == [
        (0, 9, events_pb2.SCORE_REASON_FLOR),
        (1, 1, events_pb2.SCORE_REASON_MAZO),
    ]
    assert [s.seat for s in summary.shown] == [0, 1] and summary.flor_winner_seat == 0
    assert summary.flor_winner_points == 38 and len(summary.proofs) == 6
    assert reply.view.public.hand.number == 2
    assert table.public().last_hand == summary  # every client polling the view sees how hand 1 ended
    new_mano = table.players[table.public().hand.mano]
    new_mano.submit(table.name, new_mano.seat_view(table.name).legal_actions[0])  # the next hand's first action
    assert not table.public().HasField("last_hand")


def test_stop_signals_turn_sigterm_into_a_request_then_give_it_back() -> None:
    """Inside the block SIGTERM sets the event instead of ending the process (without the handler this test's
    process would die); after it the default action is back, for whatever runs next in the process."""

    async def scenario() -> None:
        with stop_signals() as stop:
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.wait_for(stop.wait(), 5)
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL

    before = signal.getsignal(signal.SIGTERM)
    try:
        asyncio.run(scenario())
    finally:
        signal.signal(signal.SIGTERM, before)


def test_a_server_signalled_as_soon_as_it_names_its_port_still_stops_gracefully(tmp_path: Path) -> None:
    """A supervisor or a script may send SIGTERM the moment the port line appears: the signal handlers are in
    place before it is printed, so the stop is the graceful one (exit 0, "shutdown" logged), never the default
    action that kills the process."""
    for attempt in range(3):
        served = ProcessServer(f"sqlite:///{tmp_path}/signalled-{attempt}.db", tmp_path)
        assert served.terminate() == 0
        assert '"event": "shutdown"' in served.stderr_text()
