"""One contract for every event store backend: each backend's test class only says how to open its store.

Every test runs on a database of its own (a new SQLite file, a new PostgreSQL database). "Another replica"
is a second store object on the same database, and "another process" is a real child process.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import dataclasses
import re
import secrets
import socket
import sqlite3
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from psycopg import sql

from truco.server.store import (
    ApiKeyNotFound,
    ApiKeyRecord,
    AppendResult,
    EventStore,
    GameNotFound,
    GameRecord,
    NewEvent,
    SeatRecord,
    SeatUnavailable,
    StoredEvent,
    StoreRejected,
    StoreUnavailable,
    VersionConflict,
    open_store,
)
from truco.server.store import postgres as postgres_backend
from truco.server.store import sqlite as sqlite_backend
from truco.server.store.core import Connection
from truco.server.store.errors import TicketAlreadyOpen
from truco.server.store.postgres import PostgresStore
from truco.server.store.records import (
    TICKET_CANCELLED,
    TICKET_EXPIRED,
    TICKET_MATCHED,
    TICKET_WAITING,
    PlayerMatchRecord,
    RatingRecord,
    SigningKeyRecord,
    TicketRecord,
    now_us,
)
from truco.server.store.sqlite import SQLiteStore

#: Run by a child process to append one event: a writer the store under test cannot see in memory.
APPEND_FROM_ANOTHER_PROCESS = """
import asyncio, sys
from truco.server.store import NewEvent, open_store

async def main(url: str, game_id: str, expected: str) -> None:
    store = await open_store(url)
    try:
        await store.append(game_id, int(expected), [NewEvent("SentFromAfar", 1, b"far", None)], None, b"", False)
    finally:
        await store.close()

asyncio.run(main(*sys.argv[1:]))
"""


def seats(*kinds: str) -> tuple[SeatRecord, ...]:
    return tuple(
        SeatRecord(i, kind, "random" if kind == "bot" else "", "Bot" if kind == "bot" else "", b"")
        for i, kind in enumerate(kinds)
    )


def new_game(
    game_id: str,
    created_at: str = "2025-01-01T12:00:00.000000Z",
    seat_kinds: Sequence[str] = ("open", "open"),
    over: bool = False,
) -> GameRecord:
    return GameRecord(game_id, created_at, b"rules:" + game_id.encode(), len(seat_kinds), seats(*seat_kinds), 0, over)


def events(*names: str, audience: int | None = None) -> list[NewEvent]:
    return [NewEvent(name, 1, f"payload of {name}".encode(), audience) for name in names]


def kinds(stored: Sequence[StoredEvent]) -> list[str]:
    return [event.kind for event in stored]


class StoreContract(abc.ABC):
    """The behaviour every :class:`EventStore` must have. Subclasses give ``store_url`` and ``make_store``."""

    url: str

    @abc.abstractmethod
    async def make_store(self) -> EventStore:
        """A new store object on this test's database (a second call: another replica on the same data)."""

    @pytest.fixture(autouse=True)
    async def _opened_stores(self, store_url: str) -> AsyncIterator[None]:
        self.url = store_url
        self.opened: list[EventStore] = []
        yield
        for store in self.opened:
            await store.close()

    async def open(self) -> EventStore:
        store = await self.make_store()
        self.opened.append(store)
        return store

    async def game_with_events(self, store: EventStore, game_id: str = "g1", count: int = 1) -> GameRecord:
        return await store.create_game(new_game(game_id), events(*(f"E{i}" for i in range(1, count + 1))), None)

    # Create, read, get.

    async def test_create_then_read_and_get_round_trip(self) -> None:
        store = await self.open()
        game = new_game("g1", seat_kinds=("open", "bot", "open", "open"))
        first = [NewEvent("GameCreated", 1, b"\x00\xffrules", None), NewEvent("SenaSent", 2, b"wink", 1)]

        created = await store.create_game(game, first, "create-1")

        assert created == GameRecord("g1", game.created_at, game.rules, 4, game.seats, last_seq=2, over=False)
        assert await store.get_game("g1") == created
        assert await store.read("g1") == [
            StoredEvent("g1", 1, "GameCreated", 1, b"\x00\xffrules", None),
            StoredEvent("g1", 2, "SenaSent", 2, b"wink", 1),
        ]
        assert created.open

    async def test_a_game_without_events_has_last_seq_zero(self) -> None:
        store = await self.open()
        created = await store.create_game(new_game("g1"), [], None)
        assert created.last_seq == 0
        assert await store.read("g1") == []

    async def test_create_is_idempotent_by_request_id(self) -> None:
        # Ids as the service makes them (new_game_id): a retry makes a new one, which a sharded store places
        # on the same shard as the first.
        store, replica = await self.open(), await self.open()
        g1, g2 = store.new_game_id("create-1"), replica.new_game_id("create-1")
        original = await store.create_game(new_game(g1), events("GameCreated"), "create-1")

        again = await replica.create_game(new_game(g2), events("GameCreated", "Other"), "create-1")

        assert again == original
        assert kinds(await store.read(g1)) == ["GameCreated"]
        with pytest.raises(GameNotFound):
            await store.get_game(g2)

    async def test_concurrent_creates_with_one_request_id_make_one_game(self) -> None:
        store, replica = await self.open(), await self.open()
        g1, g2 = store.new_game_id("create-1"), replica.new_game_id("create-1")
        first, second = await asyncio.gather(
            store.create_game(new_game(g1), events("GameCreated"), "create-1"),
            replica.create_game(new_game(g2), events("GameCreated"), "create-1"),
        )
        assert first == second
        other = g2 if first.game_id == g1 else g1
        with pytest.raises(GameNotFound):
            await store.get_game(other)

    async def test_new_game_ids_are_fresh_and_valid_names(self) -> None:
        store = await self.open()
        made = {store.new_game_id(request) for request in ("a", "a", None, None)}
        assert len(made) == 4
        assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", game_id) for game_id in made)

    async def test_create_with_a_used_game_id_conflicts_and_changes_nothing(self) -> None:
        store = await self.open()
        original = await store.create_game(new_game("g1"), events("GameCreated"), "create-1")
        with pytest.raises(VersionConflict):
            await store.create_game(new_game("g1", seat_kinds=("bot", "bot")), events("X", "Y"), "create-2")
        assert await store.get_game("g1") == original
        assert kinds(await store.read("g1")) == ["GameCreated"]

    async def test_unknown_game_raises_game_not_found_everywhere(self) -> None:
        store = await self.open()
        await self.game_with_events(store)
        with pytest.raises(GameNotFound):
            await store.read("nope")
        with pytest.raises(GameNotFound):
            await store.get_game("nope")
        with pytest.raises(GameNotFound):
            await store.append("nope", 0, events("E"), None, b"", False)
        with pytest.raises(GameNotFound):
            await store.claim_seat("nope", None, b"hash", "Ana", None)
        with pytest.raises(GameNotFound):
            await store.seat_for_token("nope", b"hash")
        with pytest.raises(GameNotFound):
            await store.wait_for_change("nope", 0, 0.1)

    # Append.

    async def test_appends_get_contiguous_seqs(self) -> None:
        store = await self.open()
        await self.game_with_events(store)

        assert await store.append("g1", 1, events("E2", "E3"), None, b"r1", False) == AppendResult(3, b"r1")
        assert await store.append("g1", 3, events("E4"), None, b"r2", False) == AppendResult(4, b"r2")

        stored = await store.read("g1")
        assert [e.seq for e in stored] == [1, 2, 3, 4]
        assert kinds(stored) == ["E1", "E2", "E3", "E4"]
        assert kinds(await store.read("g1", after_seq=2)) == ["E3", "E4"]
        assert await store.read("g1", after_seq=4) == []
        assert (await store.get_game("g1")).last_seq == 4

    async def test_append_keeps_the_audience_of_each_event(self) -> None:
        store = await self.open()
        await self.game_with_events(store)
        await store.append("g1", 1, [*events("Public"), *events("ToTeam0", audience=0)], None, b"", False)
        await store.append("g1", 3, events("ToTeam1", audience=1), None, b"", False)
        assert [(e.kind, e.audience) for e in await store.read("g1")] == [
            ("E1", None),
            ("Public", None),
            ("ToTeam0", 0),
            ("ToTeam1", 1),
        ]

    async def test_stale_append_conflicts_and_writes_nothing(self) -> None:
        store = await self.open()
        await self.game_with_events(store, count=3)
        for stale in (0, 2, 4):
            with pytest.raises(VersionConflict):
                await store.append("g1", stale, events("Late"), "late-request", b"late", True)
        assert kinds(await store.read("g1")) == ["E1", "E2", "E3"]
        game = await store.get_game("g1")
        assert (game.last_seq, game.over) == (3, False)
        # The failed request id was not recorded: the same id with the right seq now appends.
        assert await store.append("g1", 3, events("OnTime"), "late-request", b"ok", False) == AppendResult(4, b"ok")

    @pytest.mark.parametrize("replicas", [False, True], ids=["one-store", "two-stores"])
    async def test_concurrent_appends_at_one_seq_exactly_one_wins(self, replicas: bool) -> None:
        store = await self.open()
        other = await self.open() if replicas else store
        await self.game_with_events(store)
        for round_ in range(5):
            expected = 1 + round_
            outcomes = await asyncio.gather(
                store.append("g1", expected, events(f"A{round_}"), None, b"a", False),
                other.append("g1", expected, events(f"B{round_}"), None, b"b", False),
                return_exceptions=True,
            )
            wins = [o for o in outcomes if isinstance(o, AppendResult)]
            assert [w.last_seq for w in wins] == [expected + 1], outcomes
            assert sum(isinstance(o, VersionConflict) for o in outcomes) == 1, outcomes
        stored = await store.read("g1")
        assert [e.seq for e in stored] == list(range(1, 7))

    async def test_append_is_idempotent_by_request_id(self) -> None:
        store, replica = await self.open(), await self.open()
        await self.game_with_events(store)
        first = await store.append("g1", 1, events("Played"), "req-1", b"response-1", False)
        await store.append("g1", 2, events("Next"), "req-2", b"response-2", False)

        # A retry, even with another expected seq, other events and another response, gets the first answer,
        # marked as replayed; so does one at the game's current seq (its events would fit: they are not written).
        assert first == AppendResult(2, b"response-1") and not first.replayed
        replayed = AppendResult(2, b"response-1", replayed=True)
        assert await store.append("g1", 1, events("Played"), "req-1", b"response-x", True) == replayed
        assert await replica.append("g1", 7, events("Other"), "req-1", b"", False) == replayed
        assert await store.append("g1", 3, events("Again"), "req-1", b"response-y", True) == replayed
        assert await replica.append("g1", 3, events("Again"), "req-1", b"response-y", True) == replayed

        assert kinds(await store.read("g1")) == ["E1", "Played", "Next"]
        game = await store.get_game("g1")
        assert (game.last_seq, game.over) == (3, False)

    async def test_find_response_gives_the_recorded_response(self) -> None:
        store = await self.open()
        await self.game_with_events(store)
        await store.append("g1", 1, events("Played"), "req-1", b"response-1", False)
        await store.append("g1", 2, events("Unnamed"), None, b"response-2", False)
        assert await store.find_response("g1", "req-1") == b"response-1"
        assert await store.find_response("g1", "req-2") is None
        assert await store.find_response("other-game", "req-1") is None

    async def test_request_ids_belong_to_their_game(self) -> None:
        store = await self.open()
        await self.game_with_events(store, "g1")
        await self.game_with_events(store, "g2")
        await store.append("g1", 1, events("InG1"), "req-1", b"g1", False)
        assert await store.append("g2", 1, events("InG2"), "req-1", b"g2", False) == AppendResult(2, b"g2")
        assert kinds(await store.read("g2")) == ["E1", "InG2"]

    async def test_concurrent_retries_of_one_request_append_once(self) -> None:
        store, replica = await self.open(), await self.open()
        await self.game_with_events(store)
        results = await asyncio.gather(
            store.append("g1", 1, events("Played"), "req-1", b"response-1", False),
            replica.append("g1", 1, events("Played"), "req-1", b"response-1", False),
        )
        assert sorted(results, key=lambda result: result.replayed) == [
            AppendResult(2, b"response-1"),
            AppendResult(2, b"response-1", replayed=True),
        ]
        assert kinds(await store.read("g1")) == ["E1", "Played"]

    async def test_concurrent_appends_stand_or_fall_alone(self) -> None:
        """Appends arriving together (one group commit on SQLite) each get their own outcome: a stale one, one
        to an unknown game and a retried request id do not take the others down or in."""
        store = await self.open()
        for game in ("g1", "g2", "g3", "g4"):
            await self.game_with_events(store, game)
        outcomes = await asyncio.gather(
            store.append("g1", 1, events("G1"), "r1", b"g1", False),
            store.append("g2", 1, events("G2"), None, b"g2", False),
            store.append("g2", 1, events("G2-late"), None, b"late", False),  # the same seq: loses to the one above
            store.append("g3", 7, events("Stale"), None, b"stale", False),
            store.append("nope", 1, events("Nowhere"), None, b"", False),
            store.append("g4", 1, events("G4"), None, b"g4", True),
            store.append("g1", 1, events("G1"), "r1", b"g1-retry", False),  # a retry: the first answer again
            return_exceptions=True,
        )
        # Which of two racing appends wins is the store's choice (PostgreSQL runs them on separate connections);
        # what is promised is that exactly one does, and that the retry gets the winner's answer.
        first, retry = outcomes[0], outcomes[6]
        assert isinstance(first, AppendResult) and isinstance(retry, AppendResult)
        assert (first.last_seq, first.response) == (retry.last_seq, retry.response)
        assert (first.last_seq, first.response) in ((2, b"g1"), (2, b"g1-retry"))
        assert sorted([first.replayed, retry.replayed]) == [False, True], "exactly one wrote"
        g2_winners = [o for o in outcomes[1:3] if isinstance(o, AppendResult)]
        g2_losers = [o for o in outcomes[1:3] if isinstance(o, VersionConflict)]
        assert len(g2_winners) == 1 and len(g2_losers) == 1
        assert isinstance(outcomes[3], VersionConflict)
        assert isinstance(outcomes[4], GameNotFound)
        assert outcomes[5] == AppendResult(2, b"g4")
        assert kinds(await store.read("g1")) == ["E1", "G1"]
        g2_kind = "G2" if g2_winners[0].response == b"g2" else "G2-late"
        assert g2_winners[0].last_seq == 2
        assert kinds(await store.read("g2")) == ["E1", g2_kind]
        assert kinds(await store.read("g3")) == ["E1"]
        assert (await store.get_game("g4")).over

    async def test_a_cancelled_append_leaves_the_others_answered(self) -> None:
        store = await self.open()
        for game in ("g1", "g2", "g3"):
            await self.game_with_events(store, game)
        first = asyncio.ensure_future(store.append("g1", 1, events("Cancelled"), None, b"", False))
        others = asyncio.gather(
            store.append("g2", 1, events("G2"), None, b"g2", False),
            store.append("g3", 1, events("G3"), None, b"g3", False),
        )
        first.cancel()
        assert await others == [AppendResult(2, b"g2"), AppendResult(2, b"g3")]
        with contextlib.suppress(asyncio.CancelledError):
            await first
        # A cancelled caller may or may not have been appended (as over a network): never half of it.
        assert kinds(await store.read("g1")) in (["E1"], ["E1", "Cancelled"])

    async def test_a_read_sees_at_once_what_another_replica_appended(self) -> None:
        """Read-your-writes across replicas: a client whose move another server acknowledged reads it here at
        once, without waiting for any notification."""
        store, replica = await self.open(), await self.open()
        await self.game_with_events(store)
        assert await store.read("g1", 1) == []
        for seq in range(1, 6):
            await replica.append("g1", seq, events(f"Far{seq}"), None, b"", False)
            assert kinds(await store.read("g1", seq)) == [f"Far{seq}"]
            assert await store.read("g1", seq + 1) == []

    async def test_a_read_sees_at_once_what_another_process_appended(self) -> None:
        store = await self.open()
        await self.game_with_events(store)
        assert await store.read("g1", 1) == []
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-c", APPEND_FROM_ANOTHER_PROCESS, self.url, "g1", "1", stderr=asyncio.subprocess.PIPE
        )
        _, stderr = await child.communicate()
        assert child.returncode == 0, stderr.decode()
        assert kinds(await store.read("g1", 1)) == ["SentFromAfar"]

    async def test_append_sets_the_over_flag(self) -> None:
        store = await self.open()
        await self.game_with_events(store)
        await store.append("g1", 1, events("MatchWon"), None, b"", True)
        game = await store.get_game("g1")
        assert game.over
        assert not game.open

    # Seats.

    async def test_claim_a_given_seat(self) -> None:
        store = await self.open()
        await store.create_game(new_game("g1", seat_kinds=("open", "open", "open", "open")), [], None)

        game, seat = await store.claim_seat("g1", 2, b"hash-ana", "Ana", None)

        assert seat == 2
        assert game.seats[2] == SeatRecord(2, "taken", "", "Ana", b"hash-ana")
        assert [s.kind for s in game.seats] == ["open", "open", "taken", "open"]
        assert await store.get_game("g1") == game

    async def test_claim_without_a_seat_takes_the_lowest_open_one(self) -> None:
        store = await self.open()
        await store.create_game(new_game("g1", seat_kinds=("bot", "open", "open", "open")), [], None)
        await store.claim_seat("g1", 2, b"h2", "Bea", None)

        assert (await store.claim_seat("g1", None, b"h1", "Ana", None))[1] == 1
        game, seat = await store.claim_seat("g1", None, b"h3", "Carla", None)
        assert seat == 3
        assert not game.open
        with pytest.raises(SeatUnavailable):
            await store.claim_seat("g1", None, b"h4", "Dora", None)

    async def test_claim_refuses_seats_that_are_not_open(self) -> None:
        store = await self.open()
        await store.create_game(new_game("g1", seat_kinds=("open", "bot")), [], None)
        await store.claim_seat("g1", 0, b"hash-ana", "Ana", None)
        for seat in (0, 1, 2, -1):
            with pytest.raises(SeatUnavailable):
                await store.claim_seat("g1", seat, b"hash-bea", "Bea", None)
        assert (await store.get_game("g1")).seats[0] == SeatRecord(0, "taken", "", "Ana", b"hash-ana")

    async def test_claim_refuses_a_game_that_is_over(self) -> None:
        store = await self.open()
        await store.create_game(new_game("g1", over=True), [], None)
        with pytest.raises(SeatUnavailable):
            await store.claim_seat("g1", None, b"hash", "Ana", None)

    async def test_claim_is_idempotent_by_request_id(self) -> None:
        store, replica = await self.open(), await self.open()
        await store.create_game(new_game("g1", seat_kinds=("open", "open", "open")), [], None)
        first_game, first_seat = await store.claim_seat("g1", None, b"hash-ana", "Ana", "join-1")

        again_game, again_seat = await replica.claim_seat("g1", None, b"hash-ana", "Ana", "join-1")

        assert (again_seat, again_game) == (first_seat, first_game) == (0, first_game)
        assert [s.kind for s in again_game.seats] == ["taken", "open", "open"]
        assert (await store.claim_seat("g1", None, b"hash-bea", "Bea", "join-2"))[1] == 1

    async def test_concurrent_claims_of_one_seat_exactly_one_wins(self) -> None:
        store, replica = await self.open(), await self.open()
        await store.create_game(new_game("g1"), [], None)
        outcomes = await asyncio.gather(
            store.claim_seat("g1", 1, b"hash-ana", "Ana", None),
            replica.claim_seat("g1", 1, b"hash-bea", "Bea", None),
            return_exceptions=True,
        )
        assert sum(isinstance(o, SeatUnavailable) for o in outcomes) == 1, outcomes
        winner = next(o for o in outcomes if isinstance(o, tuple))
        assert winner[1] == 1
        assert (await store.get_game("g1")).seats[1] == winner[0].seats[1]

    async def test_concurrent_claims_of_any_seat_get_different_seats(self) -> None:
        store, replica = await self.open(), await self.open()
        await store.create_game(new_game("g1", seat_kinds=("open", "open", "open")), [], None)
        claims = await asyncio.gather(
            store.claim_seat("g1", None, b"hash-ana", "Ana", None),
            replica.claim_seat("g1", None, b"hash-bea", "Bea", None),
        )
        assert sorted(seat for _, seat in claims) == [0, 1]

    async def test_seat_bots_gives_the_open_seats_to_bots_with_the_new_setup(self) -> None:
        store, replica = await self.open(), await self.open()
        await store.create_game(new_game("g1", seat_kinds=("open", "bot", "open", "open")), events("E1"), None)
        await store.claim_seat("g1", 0, b"hash-ana", "Ana", None)

        game = await store.seat_bots("g1", 1, {2: "expert", 3: "expert"}, b"rules:with-bots")

        expected = [("taken", ""), ("bot", "random"), ("bot", "expert"), ("bot", "expert")]
        assert [(s.kind, s.bot) for s in game.seats] == expected
        assert game.seats[0] == SeatRecord(0, "taken", "", "Ana", b"hash-ana")
        assert game.rules == b"rules:with-bots"
        assert not game.open
        assert await replica.get_game("g1") == game
        assert (await replica.list_open_games(10, None))[0] == []

    async def test_seat_bots_changes_nothing_when_a_seat_was_taken_or_the_game_moved(self) -> None:
        store = await self.open()
        await store.create_game(new_game("g1", seat_kinds=("open", "open", "open")), events("E1"), None)
        await store.claim_seat("g1", 1, b"hash-bea", "Bea", None)
        before = await store.get_game("g1")
        with pytest.raises(SeatUnavailable):
            await store.seat_bots("g1", 1, {1: "heuristic", 2: "heuristic"}, b"rules:new")
        with pytest.raises(VersionConflict):
            await store.seat_bots("g1", 0, {2: "heuristic"}, b"rules:new")  # the game is at seq 1
        await store.append("g1", 1, events("E2"), None, b"", True)
        with pytest.raises(VersionConflict):
            await store.seat_bots("g1", 2, {2: "heuristic"}, b"rules:new")  # over
        with pytest.raises(GameNotFound):
            await store.seat_bots("nope", 0, {0: "heuristic"}, b"rules:new")
        after = await store.get_game("g1")
        assert (after.rules, after.seats) == (before.rules, before.seats)

    async def test_a_claim_racing_seat_bots_gets_the_seat_or_finds_it_a_bots(self) -> None:
        store, replica = await self.open(), await self.open()
        for attempt in range(5):
            game_id = f"g{attempt}"
            await store.create_game(new_game(game_id, seat_kinds=("taken", "open")), events("E1"), None)
            outcomes = await asyncio.gather(
                store.seat_bots(game_id, 1, {1: "heuristic"}, b"rules:new"),
                replica.claim_seat(game_id, 1, b"hash-bea", "Bea", None),
                return_exceptions=True,
            )
            assert sum(isinstance(o, SeatUnavailable) for o in outcomes) == 1, outcomes
            seat = (await store.get_game(game_id)).seats[1]
            bots_won = isinstance(outcomes[1], SeatUnavailable)
            assert (seat.kind, seat.bot if bots_won else seat.player_name) == (
                ("bot", "heuristic") if bots_won else ("taken", "Bea")
            )

    async def test_claim_needs_a_token_hash(self) -> None:
        store = await self.open()
        await store.create_game(new_game("g1"), [], None)
        with pytest.raises(ValueError, match="token_hash"):
            await store.claim_seat("g1", 0, b"", "Ana", None)

    async def test_seat_for_token(self) -> None:
        store = await self.open()
        await store.create_game(new_game("g1", seat_kinds=("open", "open", "bot")), [], None)
        await store.create_game(new_game("g2"), [], None)
        await store.claim_seat("g1", 1, b"hash-ana", "Ana", None)

        assert await store.seat_for_token("g1", b"hash-ana") == 1
        assert await store.seat_for_token("g1", b"hash-bea") is None
        assert await store.seat_for_token("g1", b"") is None
        assert await store.seat_for_token("g2", b"hash-ana") is None

    async def test_set_seat_token_replaces_the_hash_of_a_taken_seat(self) -> None:
        store = await self.open()
        await store.create_game(new_game("g1", seat_kinds=("open", "open", "bot")), [], None)
        await store.claim_seat("g1", 0, b"old-hash", "Ana", "join-1")

        await store.set_seat_token("g1", 0, b"new-hash")

        assert await store.seat_for_token("g1", b"new-hash") == 0
        assert await store.seat_for_token("g1", b"old-hash") is None
        assert (await store.get_game("g1")).seats[0] == SeatRecord(0, "taken", "", "Ana", b"new-hash")
        for seat in (1, 2, 5):
            with pytest.raises(SeatUnavailable):
                await store.set_seat_token("g1", seat, b"hash")
        with pytest.raises(GameNotFound):
            await store.set_seat_token("nope", 0, b"hash")
        with pytest.raises(ValueError, match="token_hash"):
            await store.set_seat_token("g1", 0, b"")

    # Listing open games.

    async def test_list_open_games_newest_first_in_pages(self) -> None:
        store = await self.open()
        stamps = [f"2025-01-0{day}T10:00:00.000000Z" for day in range(1, 8)]
        for i, stamp in enumerate(stamps):
            await store.create_game(new_game(f"g{i}", stamp), [], None)
        # Two games created in the same microsecond: the game id breaks the tie.
        await store.create_game(new_game("tie-a", stamps[3]), [], None)
        await store.create_game(new_game("tie-b", stamps[3]), [], None)
        expected = ["g6", "g5", "g4", "tie-b", "tie-a", "g3", "g2", "g1", "g0"]

        listed, pages, cursor = [], 0, None
        while True:
            page, cursor = await store.list_open_games(2, cursor)
            assert 1 <= len(page) <= 2
            listed += [game.game_id for game in page]
            pages += 1
            if cursor is None:
                break
        assert listed == expected
        assert pages == 5

        everything, cursor = await store.list_open_games(100, None)
        assert [g.game_id for g in everything] == expected
        assert cursor is None
        assert everything[0] == await store.get_game("g6")

    async def test_list_open_games_leaves_out_full_and_finished_games(self) -> None:
        store = await self.open()
        await store.create_game(new_game("open", "2025-01-01T00:00:01.000000Z"), [], None)
        await store.create_game(new_game("created-over", "2025-01-01T00:00:02.000000Z", over=True), [], None)
        await store.create_game(new_game("bots", "2025-01-01T00:00:03.000000Z", ("bot", "bot")), [], None)
        await store.create_game(new_game("filled", "2025-01-01T00:00:04.000000Z", ("open", "bot")), events("E"), None)
        await store.create_game(new_game("ended", "2025-01-01T00:00:05.000000Z"), events("E"), None)
        await store.create_game(new_game("half", "2025-01-01T00:00:06.000000Z"), [], None)
        await store.claim_seat("filled", None, b"hash-ana", "Ana", None)
        await store.append("ended", 1, events("MatchWon"), None, b"", True)
        await store.claim_seat("half", 0, b"hash-bea", "Bea", None)

        page, cursor = await store.list_open_games(10, None)

        assert [g.game_id for g in page] == ["half", "open"]
        assert cursor is None

    async def test_list_open_games_with_nothing_open(self) -> None:
        store = await self.open()
        assert await store.list_open_games(5, None) == ([], None)

    async def test_list_open_games_rejects_bad_arguments(self) -> None:
        store = await self.open()
        with pytest.raises(ValueError, match="page_size"):
            await store.list_open_games(0, None)
        for cursor in ("not a cursor!", "bm9wZQ", ""):
            with pytest.raises(ValueError, match="cursor"):
                await store.list_open_games(5, cursor)

    async def test_list_open_games_shows_a_viewer_its_own_and_the_public_games(self) -> None:
        store = await self.open()
        for i, (owner, public) in enumerate([("k1", False), ("k2", False), ("k2", True), ("", False), ("", True)]):
            game = new_game(f"g{i}", f"2025-01-01T00:00:0{i}.000000Z")
            game = dataclasses.replace(game, owner=owner, creator=f"key:{owner}", public=public)
            await store.create_game(game, [], None)

        async def listed(viewer: str | None) -> list[str]:
            return [game.game_id for game in (await store.list_open_games(10, None, viewer))[0]]

        assert await listed("k1") == ["g4", "g2", "g0"]
        assert await listed("k2") == ["g4", "g2", "g1"]
        assert await listed("") == ["g4", "g3", "g2"]
        assert await listed(None) == ["g4", "g3", "g2", "g1", "g0"]
        page, cursor = await store.list_open_games(1, None, "k2")
        assert [g.game_id for g in page] == ["g4"] and cursor is not None
        assert [g.game_id for g in (await store.list_open_games(5, cursor, "k2"))[0]] == ["g2", "g1"]
        record = await store.get_game("g2")
        assert (record.owner, record.creator, record.public) == ("k2", "key:k2", True)

    async def test_count_unfinished_games_by_creator(self) -> None:
        store = await self.open()
        for i, creator in enumerate(["peer:a", "peer:a", "peer:b", "peer:a"]):
            await store.create_game(dataclasses.replace(new_game(f"g{i}"), creator=creator), events("E"), None)
        await store.append("g1", 1, events("MatchWon"), None, b"", True)
        assert await store.count_unfinished_games("peer:a") == 2
        assert await store.count_unfinished_games("peer:b") == 1
        assert await store.count_unfinished_games("peer:c") == 0

    # API keys.

    async def test_api_keys_are_created_found_by_hash_listed_and_revoked(self) -> None:
        store, replica = await self.open(), await self.open()
        first = ApiKeyRecord("k1", "app one", b"hash-1", "2025-01-01T00:00:00.000000Z")
        second = ApiKeyRecord("k2", "app two", b"hash-2", "2025-01-02T00:00:00.000000Z", quotas='{"burst": 900}')
        await store.create_api_key(second)
        await store.create_api_key(first)
        assert await replica.api_key_by_hash(b"hash-1") == first
        assert await replica.api_key_by_hash(b"hash-3") is None
        assert await replica.list_api_keys() == [first, second]

        revoked = await replica.revoke_api_key("k1", "2025-02-01T00:00:00.000000Z")
        assert revoked == dataclasses.replace(first, revoked_at="2025-02-01T00:00:00.000000Z")
        # Revoking again keeps the first revocation time.
        assert await store.revoke_api_key("k1", "2025-03-01T00:00:00.000000Z") == revoked
        assert await store.api_key_by_hash(b"hash-1") == revoked
        with pytest.raises(ApiKeyNotFound):
            await store.revoke_api_key("nope", "2025-02-01T00:00:00.000000Z")
        with pytest.raises(VersionConflict):
            await store.create_api_key(dataclasses.replace(first, secret_hash=b"other"))

    # Values a backend cannot hold.

    async def test_a_value_the_backend_cannot_hold_is_rejected_never_unavailable(self) -> None:
        """A 60 KB request id or a NUL byte in a name is refused for good (StoreRejected) or stored; never
        StoreUnavailable, which tells clients to retry the same call."""
        store = await self.open()
        await store.create_game(new_game("g1", seat_kinds=("open", "open", "open")), events("E"), None)
        attempts: list[Callable[[], Awaitable[object]]] = [
            lambda: store.create_game(new_game("g2"), [], secrets.token_urlsafe(45_000)),
            lambda: store.claim_seat("g1", 0, b"hash", "Ana\x00", None),
            lambda: store.append("g1", 1, events("E2"), "x\x00y", b"", False),
        ]
        for attempt in attempts:
            with contextlib.suppress(StoreRejected):
                await attempt()
        await store.ping()

    # Waiting for changes.

    async def test_wait_returns_at_once_when_the_game_is_ahead(self) -> None:
        store = await self.open()
        await self.game_with_events(store, count=2)
        started = time.monotonic()
        # Each returns the last seq it learned: here by looking.
        assert await store.wait_for_change("g1", 1, timeout=10) == 2
        assert await store.wait_for_change("g1", 0, timeout=10) == 2
        assert time.monotonic() - started < 1

    async def test_wait_times_out_when_nothing_happens(self) -> None:
        store = await self.open()
        await self.game_with_events(store, "g1")
        await self.game_with_events(store, "g2")
        waiter = asyncio.create_task(store.wait_for_change("g1", 1, timeout=0.6))
        await asyncio.sleep(0.1)
        await store.append("g2", 1, events("ElsewhereOnly"), None, b"", False)  # another game's news
        await asyncio.sleep(0.2)
        assert not waiter.done()
        started = time.monotonic()
        assert await waiter is None  # it learned no newer seq
        assert 0.1 < time.monotonic() - started < 2

    async def test_wait_wakes_on_an_append_by_the_same_store(self) -> None:
        store = await self.open()
        await self.game_with_events(store)
        await self.assert_append_wakes(store, lambda: store.append("g1", 1, events("E2"), None, b"", False))

    async def test_wait_wakes_on_an_append_by_another_store_object(self) -> None:
        store, replica = await self.open(), await self.open()
        await self.game_with_events(store)
        await self.assert_append_wakes(store, lambda: replica.append("g1", 1, events("E2"), None, b"", False))

    async def test_wait_wakes_on_an_append_by_another_process(self) -> None:
        store = await self.open()
        await self.game_with_events(store)

        async def append_elsewhere() -> None:
            child = await asyncio.create_subprocess_exec(
                sys.executable, "-c", APPEND_FROM_ANOTHER_PROCESS, self.url, "g1", "1", stderr=asyncio.subprocess.PIPE
            )
            _, stderr = await child.communicate()
            assert child.returncode == 0, stderr.decode()

        await self.assert_append_wakes(store, append_elsewhere)
        assert kinds(await store.read("g1", 1)) == ["SentFromAfar"]

    async def test_appends_are_heard_by_the_store_that_made_them(self) -> None:
        store = await self.open()
        heard: list[tuple[str, int]] = []
        store.on_append(lambda game_id, last_seq: heard.append((game_id, last_seq)))
        await self.game_with_events(store)
        await store.append("g1", 1, events("E2", "E3"), None, b"", False)
        assert ("g1", 3) in heard
        assert all(seq <= 3 for _, seq in heard)

    async def test_many_waiters_on_one_game_all_wake(self) -> None:
        store, replica = await self.open(), await self.open()
        await self.game_with_events(store)
        waiters = [asyncio.create_task(s.wait_for_change("g1", 1, timeout=30)) for s in (store, replica) * 3]
        await asyncio.sleep(0.2)
        assert not any(w.done() for w in waiters)
        await replica.append("g1", 1, events("E2"), None, b"", False)
        await asyncio.wait_for(asyncio.gather(*waiters), timeout=2)

    async def assert_append_wakes(self, store: EventStore, append: Callable[[], Awaitable[object]]) -> None:
        """Start a long wait after seq 1, check it waits, run ``append()``; the wait must end soon after."""
        waiter = asyncio.create_task(store.wait_for_change("g1", 1, timeout=30))
        await asyncio.sleep(0.2)
        assert not waiter.done()
        await append()
        appended = time.monotonic()
        learned = await asyncio.wait_for(waiter, timeout=2)
        assert time.monotonic() - appended < 1
        assert (await store.get_game("g1")).last_seq == 2
        assert learned == 2, "the wait returns the seq it learned: the append's"

    # Durability and life cycle.

    # Deadlines, presence and the life of games (turn clocks, abandoned games, retention, rematches).

    async def test_events_keep_their_append_time(self) -> None:
        store = await self.open()
        await store.create_game(new_game("g1"), [NewEvent("Started", 1, b"s", None, 111)], None)
        await store.append("g1", 1, [NewEvent("Moved", 1, b"m", None, 222)], None, b"", False)
        assert [(e.kind, e.at_us) for e in await store.read("g1")] == [("Started", 111), ("Moved", 222)]

    async def test_due_games_come_from_deadlines_set_by_appends(self) -> None:
        store, replica = await self.open(), await self.open()
        await self.game_with_events(store, "early")
        await self.game_with_events(store, "late")
        await self.game_with_events(store, "none")
        await store.append("early", 1, events("E2"), None, b"", False, deadline_us=1_000)
        await store.append("late", 1, events("E2"), None, b"", False, deadline_us=5_000)
        assert await replica.due_games(999, 10) == ([], 1_000)
        assert await replica.due_games(1_000, 10) == (["early"], 5_000)
        assert await replica.due_games(9_000, 10) == (["early", "late"], None)
        assert await replica.due_games(9_000, 1) == (["early"], None)
        await store.append("late", 2, events("E3"), None, b"", True, deadline_us=6_000)  # over: no deadline
        assert await replica.due_games(9_000, 10) == (["early"], None)

    async def test_set_deadline_is_guarded_by_the_last_seq(self) -> None:
        store = await self.open()
        await self.game_with_events(store, "g1", count=2)
        assert not await store.set_deadline("g1", 1, 10)
        assert await store.due_games(100, 10) == ([], None)
        assert await store.set_deadline("g1", 2, 10)
        assert await store.due_games(100, 10) == (["g1"], None)
        assert (await store.get_game("g1")).deadline_us == 10
        assert await store.set_deadline("g1", 2, None)
        assert await store.due_games(100, 10) == ([], None)

    async def test_claims_and_touches_stamp_the_seat(self) -> None:
        store = await self.open()
        await store.create_game(new_game("g1"), [], None)
        before = (await store.get_game("g1")).seats[0]
        assert (before.joined_us, before.seen_us) == (0, 0)
        await store.claim_seat("g1", 0, b"hash-a", "Ana", None)
        joined = (await store.get_game("g1")).seats[0]
        assert joined.joined_us > 0 and joined.seen_us >= joined.joined_us
        await store.claim_seat("g1", 1, b"hash-b", "Beto", None)
        at = (await store.get_game("g1")).seats[1].seen_us  # the later of the two claims
        await store.touch_seats([("g1", 0, at + 5), ("g1", 1, at + 7)])  # one write for both
        await store.touch_seats([("g1", 0, at + 1)])  # an older sighting never goes back in time
        seats = (await store.get_game("g1")).seats
        assert (seats[0].seen_us, seats[1].seen_us) == (at + 5, at + 7)

    async def test_close_abandoned_closes_the_games_whose_table_never_filled(self) -> None:
        store = await self.open()
        await store.create_game(new_game("nobody", "2025-01-01T00:00:00.000000Z"), [], None)
        await store.create_game(new_game("half", "2025-01-01T00:00:00.000000Z"), [], None)
        await store.claim_seat("half", 1, b"hash", "Ana", None)  # one of two seats: the match can never start
        await store.create_game(new_game("full", "2025-01-01T00:00:00.000000Z"), [], None)
        await store.claim_seat("full", 0, b"hash-0", "Ana", None)
        await store.claim_seat("full", 1, b"hash-1", "Beto", None)
        await store.create_game(new_game("young", "2025-06-01T00:00:00.000000Z"), [], None)
        await store.create_game(new_game("bots", "2025-01-01T00:00:00.000000Z", ("bot", "bot")), [], None)
        assert sorted(await store.close_abandoned("2025-03-01T00:00:00.000000Z")) == ["half", "nobody"]
        closed = await store.get_game("nobody")
        assert closed.over and closed.closed and not closed.open
        assert (await store.get_game("half")).closed
        assert not (await store.get_game("full")).over and not (await store.get_game("young")).over
        assert [g.game_id for g in (await store.list_open_games(10, None))[0]] == ["young"]
        with pytest.raises(SeatUnavailable):
            await store.claim_seat("nobody", 0, b"hash", "Ana", None)
        assert await store.close_abandoned("2025-03-01T00:00:00.000000Z") == []

    async def test_delete_games_removes_only_games_that_are_over(self) -> None:
        store = await self.open()
        await self.game_with_events(store, "live")
        await store.claim_seat("live", 0, b"hash", "Ana", None)
        await store.claim_seat("live", 1, b"hash-1", "Beto", None)  # a full table: never abandoned
        await self.game_with_events(store, "finished")
        await store.claim_seat("finished", 0, b"hash", "Ana", "claim-1")
        await store.append("finished", 1, events("End"), "move-1", b"ok", True)
        await store.create_game(new_game("closed", "2025-01-01T00:00:00.000000Z"), [], None)
        await store.close_abandoned("2025-03-01T00:00:00.000000Z")
        assert await store.delete_games(now_us() - 60_000_000, 10) == [], "ended less than a minute ago"
        assert sorted(await store.delete_games(now_us() + 1, 10)) == ["closed", "finished"]
        for gone in ("closed", "finished"):
            with pytest.raises(GameNotFound):
                await store.read(gone)
        assert kinds(await store.read("live")) == ["E1"]
        assert await store.delete_games(now_us() + 1, 10) == []

    async def test_the_next_game_is_linked_once(self) -> None:
        store, replica = await self.open(), await self.open()
        await store.create_game(new_game("first"), [], None)
        follower = new_game("second")
        await store.create_game(
            GameRecord(
                follower.game_id,
                follower.created_at,
                follower.rules,
                2,
                follower.seats,
                0,
                False,
                previous_game="first",
            ),
            [],
            None,
        )
        assert await store.link_next_game("first", "second") == "second"
        assert await replica.link_next_game("first", "other") == "second"
        assert (await store.get_game("first")).next_game == "second"
        assert (await store.get_game("second")).previous_game == "first"
        with pytest.raises(GameNotFound):
            await store.link_next_game("missing", "second")

    async def test_data_survives_closing_and_reopening(self) -> None:
        store = await self.make_store()
        await store.create_game(new_game("g1"), events("GameCreated"), "create-1")
        await store.append("g1", 1, events("Played"), "req-1", b"response-1", False)
        await store.claim_seat("g1", 0, b"hash-ana", "Ana", "join-1")
        game, stored = await store.get_game("g1"), await store.read("g1")
        await store.close()

        fresh = await self.open()
        assert await fresh.get_game("g1") == game
        assert await fresh.read("g1") == stored
        assert await fresh.append("g1", 1, [], "req-1", b"", False) == AppendResult(2, b"response-1", replayed=True)
        assert await fresh.claim_seat("g1", None, b"hash-ana", "Ana", "join-1") == (game, 0)

    async def test_stores_opened_together_on_a_new_database_all_work(self) -> None:
        stores = await asyncio.gather(*(self.make_store() for _ in range(3)))
        self.opened += stores
        await stores[0].create_game(new_game("g1"), events("GameCreated"), None)
        await stores[1].append("g1", 1, events("Played"), None, b"", False)
        assert kinds(await stores[2].read("g1")) == ["GameCreated", "Played"]
        for store in stores:
            await store.ping()

    async def test_a_closed_store_is_unavailable(self) -> None:
        store = await self.make_store()
        await store.create_game(new_game("g1"), [], None)
        await store.close()
        with pytest.raises(StoreUnavailable):
            await store.get_game("g1")

    # Players, tickets and the matcher's lease (issue 36).

    async def test_a_player_has_one_waiting_ticket_and_tables_match_all_or_none(self) -> None:
        store = await self.open()
        await store.open_ticket(ticket("t1", "ana"))
        with pytest.raises(TicketAlreadyOpen) as already:
            await store.open_ticket(ticket("t2", "ana"))
        assert already.value.ticket_id == "t1"
        await store.open_ticket(ticket("t3", "ben"))
        await store.open_ticket(ticket("t4", "cid"))
        assert await store.end_ticket("t4", TICKET_CANCELLED)
        assert not await store.end_ticket("t4", TICKET_EXPIRED)  # no longer waiting: unchanged
        # One ticket of the table is no longer waiting: nobody is matched.
        assert not await store.match_tickets("g1", [("t1", 0), ("t4", 1)])
        assert [t.state for t in await store.tickets(ticket_id="t1")] == [TICKET_WAITING]
        assert await store.match_tickets("g1", [("t1", 0), ("t3", 1)])
        assert not await store.match_tickets("g2", [("t1", 0)])  # never in two matches
        matched = (await store.tickets(ticket_id="t3"))[0]
        assert (matched.state, matched.game_id, matched.seat) == (TICKET_MATCHED, "g1", 1)
        assert await store.tickets(waiting=True) == []
        await store.open_ticket(ticket("t5", "ana"))  # ana's ticket was matched: she may look again
        assert [t.ticket_id for t in await store.tickets(player=("app", "ana"))] == ["t1", "t5"]

    async def test_a_ticket_is_dropped_only_by_the_stream_that_touched_it_last(self) -> None:
        store = await self.open()
        await store.open_ticket(ticket("t1", "ana"))  # seen_us 0: the first stream's mark
        assert await store.touch_ticket("t1", 10, 0)  # its heartbeat: its mark is 10
        assert await store.touch_ticket("t1", 20)  # the client opened FindMatch again: a second stream takes over
        assert not await store.touch_ticket("t1", 30, 10)  # the first stream's next beat: no longer its ticket
        assert not await store.drop_ticket("t1", 10)  # nor is it the first stream's to drop when it ends
        assert await store.touch_ticket("t1", 30, 20)
        assert not await store.touch_ticket("t1", 25)  # a take-over never moves seen_us back
        assert await store.drop_ticket("t1", 30)
        assert [t.state for t in await store.tickets(ticket_id="t1")] == [TICKET_CANCELLED]
        assert not await store.touch_ticket("t1", 40)  # no longer waiting: nothing to take over

    async def test_one_replica_holds_the_lease_until_it_lapses(self) -> None:
        first, second = await self.open(), await self.open()
        assert await first.take_lease("matcher", "a", 2_000, 1_000)
        assert not await second.take_lease("matcher", "b", 2_500, 1_500)
        assert await first.take_lease("matcher", "a", 3_000, 2_000)  # renewed by its holder
        assert await second.take_lease("matcher", "b", 5_000, 3_001)  # lapsed: taken over
        assert not await first.take_lease("matcher", "a", 5_000, 3_002)
        assert not await first.release_lease("matcher", "a")  # not its own any more: unchanged
        assert await second.release_lease("matcher", "b")  # its holder stopping
        assert await first.take_lease("matcher", "a", 6_000, 3_003)  # free at once, long before 5_000

    async def test_a_result_is_recorded_once_and_ranked(self) -> None:
        store = await self.open()
        ratings = [RatingRecord("app", 2, name, mu, 1.0, 1, 1) for name, mu in (("ana", 30.0), ("ben", 20.0))]
        history = [PlayerMatchRecord("app", "ana", "g1", 2, 0, True, True, 5, (15, 3), ("ana", "ben"), 30.0, 1.0)]
        assert await store.record_result("g1", "app", 5, history, ratings)
        assert not await store.record_result("g1", "app", 5, history, [RatingRecord("app", 2, "ana", 0.0, 1.0)])
        assert await store.rating("app", 2, "ana") == ratings[0]
        page, total = await store.leaderboard("app", 2, 0, 10)
        assert total == 2 and [r.player for r, _ in page] == ["ana", "ben"]
        assert await store.rank_of(ratings[1]) == 1
        assert await store.player_matches("app", "ana", None, 10) == history
        assert await store.player_matches("app", "ana", (5, "g1"), 10) == []
        await store.clear_results()
        assert await store.rating("app", 2, "ana") is None
        assert await store.record_result("g1", "app", 5, history, ratings)  # a rebuild counts it again

    async def test_signing_keys_are_per_app_and_revoked_for_good(self) -> None:
        store = await self.open()
        key = SigningKeyRecord("app", "k1", "HS256", b"s" * 32, "2026-01-01T00:00:00.000000Z")
        await store.add_signing_key(key)
        await store.add_signing_key(dataclasses.replace(key, app="other"))
        with pytest.raises(VersionConflict):
            await store.add_signing_key(key)
        revoked = await store.revoke_signing_key("app", "k1", "2026-01-02T00:00:00.000000Z")
        assert revoked is not None and revoked.revoked_at == "2026-01-02T00:00:00.000000Z"
        assert (await store.signing_keys("other", "k1"))[0].revoked_at is None
        assert await store.revoke_signing_key("app", "k9", "x") is None


def ticket(ticket_id: str, player: str) -> TicketRecord:
    return TicketRecord(ticket_id, "app", player, player.title(), "{}", 2, (), 0.0, 1, 10**15, None, "heuristic")


class TestSQLiteStore(StoreContract):
    @pytest.fixture
    def store_url(self, tmp_path: Path) -> str:
        return f"sqlite:///{tmp_path / 'events.db'}"

    async def make_store(self) -> EventStore:
        return await SQLiteStore.open(str(Path(self.url.removeprefix("sqlite:///"))))

    async def test_a_committed_append_whose_caller_gave_up_still_wakes_the_waiters(self) -> None:
        # A move whose call was cancelled (a deadline, a dropped connection) after it was queued is committed by
        # the group commit all the same: its game's watchers must hear of it at once, not at their next look.
        store = await self.open()
        await self.game_with_events(store, "g1", 1)
        waiter = asyncio.create_task(store.wait_for_change("g1", 1, 30))
        await asyncio.sleep(0.05)  # the waiter has looked and sleeps
        append = asyncio.create_task(store.append("g1", 1, events("E2"), None, b"", False))
        await asyncio.sleep(0)  # queued for the next group commit
        append.cancel()
        await asyncio.wait_for(waiter, timeout=5)
        assert [event.seq for event in await store.read("g1")] == [1, 2]

    async def test_the_file_is_in_wal_mode_with_every_migration(self) -> None:
        await asyncio.gather(*(self.open() for _ in range(3)))
        conn = sqlite3.connect(self.url.removeprefix("sqlite:///"))
        try:
            assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
            versions = [v for (v,) in conn.execute("SELECT version FROM schema_version ORDER BY version")]
        finally:
            conn.close()
        assert versions == list(range(1, len(sqlite_backend.MIGRATIONS) + 1))

    async def test_it_never_vouches_for_a_cache(self) -> None:
        """Other processes on the file are heard of only by polling: silence proves nothing, so readers read."""
        store = await self.open()
        await self.game_with_events(store)
        await store.wait_for_change("g1", 0, timeout=1)
        assert store.hearing_epoch() is None

    async def test_a_relative_path_is_relative_to_the_working_directory(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.chdir(tmp_path)
        store = await open_store("sqlite:///relative.db")
        self.opened.append(store)
        await store.create_game(new_game("g1"), [], None)
        assert (tmp_path / "relative.db").is_file()

    async def test_an_in_memory_store_works(self) -> None:
        store = await open_store("sqlite:///:memory:")
        self.opened.append(store)
        await self.game_with_events(store)
        await store.append("g1", 1, events("E2"), "req", b"r", False)
        assert kinds(await store.read("g1")) == ["E1", "E2"]

    async def test_appends_waiting_together_share_one_commit(self, monkeypatch: pytest.MonkeyPatch) -> None:
        store = await self.open()
        assert isinstance(store, SQLiteStore)
        for game in range(12):
            await self.game_with_events(store, f"g{game}")
        batches: list[int] = []
        appends_in = SQLiteStore._appends_in

        def counted(
            self: SQLiteStore,
            conn: sqlite3.Connection,
            requests: Sequence[sqlite_backend._AppendRequest],
            *,
            isolated: bool,
        ) -> list[object]:
            batches.append(len(requests))
            return appends_in(self, conn, requests, isolated=isolated)  # type: ignore[return-value]

        monkeypatch.setattr(SQLiteStore, "_appends_in", counted)
        results = await asyncio.gather(
            *(store.append(f"g{game}", 1, events(f"M{game}"), None, b"", False) for game in range(12))
        )
        assert [r.last_seq for r in results] == [2] * 12
        assert sum(batches) == 12
        assert len(batches) < 12, batches  # the first commit goes alone; those queued meanwhile go together

    async def test_an_append_refused_after_writing_is_undone_alone_in_its_group(self) -> None:
        """A retried request id met at a newer seq is found only once the game's row was updated: the group
        is run again in savepoints, and the others of the group still stand."""
        store = await self.open()
        for game in ("g0", "g1", "g2"):
            await self.game_with_events(store, game)
        await store.append("g1", 1, events("First"), "r1", b"first", False)
        outcomes = await asyncio.gather(
            store.append("g0", 1, events("G0"), None, b"g0", False),  # the four go in one group commit
            store.append("g2", 1, events("Before"), None, b"g2", False),
            store.append("g1", 2, events("Again"), "r1", b"again", False),  # r1 was applied at seq 1
            store.append("g2", 2, events("After"), None, b"g2-after", False),
        )
        assert outcomes == [
            AppendResult(2, b"g0"),
            AppendResult(2, b"g2"),
            AppendResult(2, b"first", replayed=True),
            AppendResult(3, b"g2-after"),
        ]
        assert kinds(await store.read("g1")) == ["E1", "First"]
        assert kinds(await store.read("g2")) == ["E1", "Before", "After"]

    async def test_a_read_with_nothing_new_does_not_go_to_the_worker(self, monkeypatch: pytest.MonkeyPatch) -> None:
        store = await self.open()
        assert isinstance(store, SQLiteStore)
        await self.game_with_events(store, count=2)
        worker_reads: list[int] = []
        read = SQLiteStore._read

        async def counted(self: SQLiteStore, conn: Connection, game_id: str, after_seq: int) -> list[StoredEvent]:
            worker_reads.append(after_seq)
            return await read(self, conn, game_id, after_seq)

        monkeypatch.setattr(SQLiteStore, "_read", counted)
        assert await store.read("g1", 2) == []
        assert worker_reads == []
        assert kinds(await store.read("g1", 1)) == ["E2"]
        assert worker_reads == [1]
        with pytest.raises(GameNotFound):
            await store.read("nope", 3)

    async def test_a_writer_holding_the_lock_does_not_stall_a_read(self) -> None:
        """WAL readers never wait for writers: another process in the middle of a write transaction (holding
        the write lock) does not hold up the read's check on the event loop, nor change what it sees."""
        store = await self.open()
        await self.game_with_events(store)
        writer = sqlite3.connect(self.url.removeprefix("sqlite:///"), isolation_level=None)
        try:
            writer.execute("BEGIN IMMEDIATE")
            writer.execute("UPDATE games SET last_seq = 9 WHERE game_id = 'g1'")
            started = time.monotonic()
            assert await store.read("g1", 1) == []
            assert time.monotonic() - started < sqlite_backend.BUSY_TIMEOUT_MS / 1000
            writer.execute("ROLLBACK")
        finally:
            writer.close()

    async def test_a_file_that_cannot_be_opened_is_unavailable(self, tmp_path: Path) -> None:
        with pytest.raises(StoreUnavailable, match="unable to open"):
            await open_store(f"sqlite:///{tmp_path / 'missing-dir' / 'events.db'}")


class TestPostgresStore(StoreContract):
    @pytest.fixture
    def store_url(self, postgres_url: str) -> Iterator[str]:
        name = f"truco_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        yield urlunsplit(urlsplit(postgres_url)._replace(path=f"/{name}"))
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))

    async def make_store(self) -> EventStore:
        return await PostgresStore.open(self.url)

    async def test_the_database_has_every_migration_once(self) -> None:
        await asyncio.gather(*(self.open() for _ in range(3)))
        async with await psycopg.AsyncConnection.connect(self.url) as conn:
            cur = await conn.execute("SELECT version FROM schema_version ORDER BY version")
            versions = [v for (v,) in await cur.fetchall()]
        assert versions == list(range(1, len(postgres_backend.MIGRATIONS) + 1))

    async def test_ids_and_names_postgres_cannot_hold_are_rejected(self) -> None:
        """A 60 KB random request id overflows a btree index row and text cannot hold NUL: both are permanent."""
        store = await self.open()
        await store.create_game(new_game("g1"), events("E"), None)
        with pytest.raises(StoreRejected):
            await store.create_game(new_game("g2"), [], secrets.token_urlsafe(45_000))
        with pytest.raises(StoreRejected):
            await store.claim_seat("g1", 0, b"hash", "Ana\x00", None)
        with pytest.raises(StoreRejected):
            await store.append("g1", 1, events("E2"), "x\x00y", b"", False)
        assert await store.read("g1", 1) == []

    async def test_an_unreachable_server_is_unavailable(self) -> None:
        with socket.socket() as probe:  # a port nobody listens on: bound, then released
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        store = await open_store(f"postgresql://postgres@127.0.0.1:{port}/truco")
        self.opened.append(store)
        with pytest.raises(StoreUnavailable, match="unreachable"):
            await store.ping()
        with pytest.raises(StoreUnavailable):
            await store.get_game("g1")

    async def test_waits_and_calls_survive_lost_connections(self) -> None:
        store, replica = await self.open(), await self.open()
        await self.game_with_events(store)
        await store.wait_for_change("g1", 0, timeout=1)  # the listening connection is now up
        await self.end_every_connection()
        await self.assert_append_wakes(store, lambda: replica.append("g1", 1, events("E2"), None, b"", False))
        assert kinds(await store.read("g1")) == ["E1", "E2"]

    async def test_reads_answer_at_once_after_every_pooled_connection_was_ended(self) -> None:
        """A restart ends every connection the pool holds. The first read that finds one ended has the others
        checked at once; without that, each dead connection lent in turn made the pool wait 1, 2, 4 s, past its
        timeout, and a read could also meet one whose end had not reached the socket yet."""
        store = await PostgresStore.open(self.url, max_connections=4)
        self.opened.append(store)
        await self.game_with_events(store)
        for _ in range(5):
            await asyncio.gather(*(store.read("g1") for _ in range(4)))  # the pool holds four connections
            await self.end_every_connection()
            assert kinds(await store.read("g1")) == ["E1"]

    async def test_appends_by_replicas_are_heard_and_a_lost_listener_starts_a_new_epoch(self) -> None:
        store, replica = await self.open(), await self.open()
        await self.game_with_events(store)
        heard: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
        store.on_append(lambda game_id, last_seq: heard.put_nowait((game_id, last_seq)))
        epoch = await self.hearing(store)
        await replica.append("g1", 1, events("E2"), None, b"", False)
        assert await asyncio.wait_for(heard.get(), timeout=5) == ("g1", 2)
        assert store.hearing_epoch() == epoch
        await self.end_every_connection()
        # What was heard before the cut vouches for nothing after it: the epoch, once back, is another.
        deadline = time.monotonic() + 10
        while store.hearing_epoch() in (None, epoch) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert store.hearing_epoch() not in (None, epoch)
        await replica.append("g1", 2, events("E3"), None, b"", False)
        assert await asyncio.wait_for(heard.get(), timeout=5) == ("g1", 3)

    async def end_every_connection(self) -> None:
        """What a database restart or a network cut does to every open connection to the test's database."""
        async with await psycopg.AsyncConnection.connect(self.url, autocommit=True) as admin:
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )

    @staticmethod
    async def hearing(store: EventStore) -> int:
        """The store's epoch once it listens (asking starts the listener)."""
        deadline = time.monotonic() + 10
        while (epoch := store.hearing_epoch()) is None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert epoch is not None
        return epoch

    async def test_the_postgres_scheme_alias_opens_the_same_database(self) -> None:
        store = await self.open()
        await store.create_game(new_game("g1"), [], None)
        alias = await open_store(self.url.replace("postgresql://", "postgres://", 1))
        self.opened.append(alias)
        assert (await alias.get_game("g1")).game_id == "g1"


@pytest.mark.parametrize("url", ["mysql://localhost/truco", "sqlite.db", "", "memory://"])
async def test_open_store_rejects_an_unknown_scheme(url: str) -> None:
    with pytest.raises(ValueError, match="unknown event store URL"):
        await open_store(url)


async def test_open_store_rejects_an_sqlite_url_without_a_path() -> None:
    with pytest.raises(ValueError, match="bad SQLite URL"):
        await open_store("sqlite://")


async def test_sqlite_checkpoints_the_wal_beside_the_appends(tmp_path: Path) -> None:
    """The WAL reaches the database file within a few checkpoint intervals though it stays far below SQLite's own
    checkpoint size: the store's checkpointer did it, on its own thread, not an append (whose commit SQLite's
    automatic checkpoint would stall behind an fsync of the whole file)."""
    path = tmp_path / "events.db"
    store = await SQLiteStore.open(str(path))
    try:
        await store.create_game(new_game("g1"), events("Started"), None)
        size = path.stat().st_size
        payload = [NewEvent("Moved", 1, secrets.token_bytes(4096), None) for _ in range(16)]
        for seq in range(1, 1 + 10 * len(payload), len(payload)):
            await store.append("g1", seq, payload, None, b"", False)
        deadline = time.monotonic() + 10  # seconds: ten checkpoint intervals
        while path.stat().st_size < size + 10 * 16 * 4096 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert path.stat().st_size >= size + 10 * 16 * 4096
    finally:
        await store.close()


async def test_sqlite_close_commits_and_answers_the_appends_still_queued(tmp_path: Path) -> None:
    """Appends queued behind a group commit when the store closes are committed and answered, none left waiting,
    and the file holds each; an append after close is refused."""
    path = tmp_path / "events.db"
    store = await SQLiteStore.open(str(path))
    for game in range(40):
        await store.create_game(new_game(f"g{game}"), events("Started"), None)
    appends = [
        asyncio.ensure_future(store.append(f"g{game}", 1, events(f"M{game}"), None, b"", False)) for game in range(40)
    ]
    await asyncio.sleep(0)  # each is queued; the first group commit is on its way
    await store.close()
    assert all(append.done() for append in appends)
    assert [append.result().last_seq for append in appends] == [2] * 40
    with pytest.raises(StoreUnavailable):
        await store.append("g0", 2, events("Late"), None, b"", False)
    reopened = await SQLiteStore.open(str(path))
    try:
        assert [kinds(await reopened.read(f"g{game}")) for game in range(40)] == [
            ["Started", f"M{game}"] for game in range(40)
        ]
    finally:
        await reopened.close()


async def test_sqlite_appends_never_starve_the_other_calls_of_the_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While appends keep arriving faster than they commit (each group commit slowed to 20 ms), a read on the
    worker waits for a group commit or so, not for the queue of appends to empty: it is answered while appends
    are still waiting."""
    store = await SQLiteStore.open(str(tmp_path / "events.db"))
    try:
        await store.create_game(new_game("g1"), events("Started"), None)
        append_batch = SQLiteStore._append_batch

        def slow(self: SQLiteStore, requests: Sequence[sqlite_backend.Append]) -> list[object]:
            time.sleep(0.02)
            return append_batch(self, requests)  # type: ignore[return-value]

        monkeypatch.setattr(SQLiteStore, "_append_batch", slow)
        appends: list[asyncio.Future[AppendResult]] = []

        async def keep_appending() -> None:
            for _ in range(1000):  # 2 s at most, the read's answer should come within a few commits
                appends.append(asyncio.ensure_future(store.append("g1", 1, events("Again"), None, b"", False)))
                await asyncio.sleep(0.002)

        producer = asyncio.ensure_future(keep_appending())
        await asyncio.sleep(0.05)
        read = await asyncio.wait_for(store.read("g1"), timeout=10)
        waiting = sum(not append.done() for append in appends)
        producer.cancel()
        await asyncio.gather(producer, *appends, return_exceptions=True)
        assert read[0].kind == "Started"
        assert waiting > 0  # answered with appends still queued: it did not wait for them all
    finally:
        await store.close()
