"""PlayGame: a seat's whole match on one bidirectional stream (issue 20, item 5). The same commits a per-commit
WatchGame sends, the outcome of each command as SubmitCommand would answer it, the same quotas and secrecy; a
refused command never ends the stream. The Python SDK's session (``TrucoClient.play``) plays whole matches on it;
the other SDKs' are played in test_sdks."""

from __future__ import annotations

import asyncio
import dataclasses
import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import aclosing
from dataclasses import dataclass, field

import grpc
import pytest

from truco.server.core.quotas import Limits
from truco_client import IllegalMove, TrucoClient, VersionConflict, is_my_turn, is_over, plain_bot, play
from truco_client.sessions import PlaySession
from truco_client.v1 import game_service_pb2 as gs
from truco_client.v1 import views_pb2

from ..players import Player, Watcher, bearer, failure_of, new_id, open_table
from ..servers import InProcessServer, LoopThread, wait_until

TIMEOUT = 30.0
PATH = "/truco.v1.GameService/PlayGame"


@pytest.fixture(scope="module")
def server(loop: LoopThread, tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessServer]:
    started = InProcessServer(loop, f"sqlite:///{tmp_path_factory.mktemp('play') / 'truco.db'}")
    yield started
    started.stop()


@dataclass
class Stream:
    """A raw PlayGame call: messages sent through a queue, responses pumped by a thread until the call ends."""

    address: str
    metadata: tuple[tuple[str, str], ...]
    sent: queue.Queue[gs.PlayGameRequest | None] = field(default_factory=queue.Queue)
    received: queue.Queue[gs.PlayGameResponse | grpc.RpcError | None] = field(default_factory=queue.Queue)
    commits: list[gs.WatchGameResponse] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.channel = grpc.insecure_channel(self.address)
        method = self.channel.stream_stream(
            PATH,
            request_serializer=gs.PlayGameRequest.SerializeToString,
            response_deserializer=gs.PlayGameResponse.FromString,
        )
        self.call = method(iter(self.sent.get, None), metadata=self.metadata, timeout=TIMEOUT)
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        try:
            for response in self.call:
                self.received.put(response)
            self.received.put(None)
        except grpc.RpcError as error:
            self.received.put(error)

    def start(self, name: str, after_version: int = 0) -> Stream:
        self.sent.put(gs.PlayGameRequest(start=gs.PlayGameStart(name=name, after_version=after_version)))
        return self

    def command(self, command: object, expected_version: int = 0, request_id: str | None = None) -> str:
        request_id = new_id() if request_id is None else request_id
        message = gs.PlayGameCommand(request_id=request_id, expected_version=expected_version, command=command)
        self.sent.put(gs.PlayGameRequest(command=message))
        return request_id

    def next(self) -> gs.PlayGameResponse | grpc.RpcError | None:
        return self.received.get(timeout=TIMEOUT)

    def outcome(self) -> gs.PlayGameOutcome:
        """The next outcome (the commits before it are kept in ``commits``)."""
        while True:
            item = self.next()
            assert isinstance(item, gs.PlayGameResponse), f"the stream ended: {item}"
            if item.WhichOneof("kind") == "outcome":
                return item.outcome
            self.commits.append(item.commit)

    def until_version(self, version: int) -> None:
        while not self.commits or self.commits[-1].events[-1].version < version:
            item = self.next()
            assert isinstance(item, gs.PlayGameResponse), f"the stream ended: {item}"
            if item.WhichOneof("kind") == "commit":
                self.commits.append(item.commit)

    def ending(self) -> grpc.RpcError | None:
        """How the call ended (None: OK); the commits before the end are kept in ``commits``."""
        while True:
            item = self.next()
            if not isinstance(item, gs.PlayGameResponse):
                return item
            if item.WhichOneof("kind") == "commit":
                self.commits.append(item.commit)

    def close(self) -> None:
        self.sent.put(None)
        self.call.cancel()
        self.channel.close()


def stream_of(player: Player, name: str) -> Stream:
    return Stream(player.address, (*player.metadata, ("x-truco-game", name)))


def card_not_held(view: views_pb2.SeatView) -> object:
    held = {(card.suit, card.rank) for card in view.cards}
    for suit in range(1, 5):
        for rank in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12):
            if (suit, rank) not in held:
                return play(f"{rank}{'eboc'[suit - 1]}")
    raise AssertionError("a hand holds every card")


async def next_commit(session: PlaySession) -> gs.WatchGameResponse | None:
    """The session's next commit; None once its stream has ended."""
    async with aclosing(session.commits()) as commits:
        async for commit in commits:
            return commit
    return None


async def play_seats(
    address: str, tokens: list[str], name: str, ready: Callable[[], object]
) -> list[list[gs.WatchGameResponse]]:
    """Every seat plays its whole match on its own session with the plain bot: each seat's commits. No seat moves
    before every session has its first message (what was committed before it began) and ``ready()`` returned."""
    opened = asyncio.Barrier(len(tokens))

    async def seat(token: str) -> list[gs.WatchGameResponse]:
        async with TrucoClient(address, token=token) as client, client.play(name) as session:
            first = await next_commit(session)
            assert first is not None, "a session begins with what was committed before it"
            seen = [first]
            await opened.wait()
            await asyncio.to_thread(ready)
            view = first.seat
            while not is_over(view):
                if is_my_turn(view) and (command := plain_bot(view)) is not None:
                    try:
                        await session.submit(command, expected_version=view.public.version)
                    except (VersionConflict, IllegalMove) as error:
                        assert error.reason in ("VERSION_CONFLICT", "MATCH_OVER"), error
                commit = await next_commit(session)
                if commit is None:
                    break
                seen.append(commit)
                view = commit.seat
        return seen

    return await asyncio.gather(*(seat(token) for token in tokens))


def test_seats_play_a_whole_match_on_sessions_and_see_what_their_watch_sees(server: InProcessServer) -> None:
    table = open_table(server.address, 2)
    watchers = [Watcher(player, table.name, per_commit=True) for player in table.players]
    spectator = Watcher(table.spectator, table.name, per_commit=True)
    tokens = [player.token for player in table.players]
    assert all(tokens)

    def streams_open() -> None:
        # A stream's first message covers every commit made before it began: all five have theirs before a move.
        assert wait_until(lambda: all(w.items for w in (*watchers, spectator))), "a watch sent nothing"

    commits = asyncio.run(play_seats(server.address, [t for t in tokens if t], table.name, streams_open))
    final = table.public()
    assert final.phase == views_pb2.PHASE_MATCH_OVER
    for watcher in (*watchers, spectator):
        watcher.wait_finished(TIMEOUT)
    for seat, seen in enumerate(commits):
        # The same commits, byte for byte, as the seat's own per-commit watch: one projection, one secrecy.
        assert [c.SerializeToString() for c in seen] == [c.SerializeToString() for c in watchers[seat].items]
        assert seen[-1].seat.public.phase == views_pb2.PHASE_MATCH_OVER
        assert all(c.HasField("seat") and not c.HasField("public") for c in seen)
    assert spectator.items[-1].public.version == final.version


def test_refused_commands_are_answered_on_the_stream_which_goes_on(server: InProcessServer) -> None:
    table = open_table(server.address, 2)
    mano = table.players[table.public().to_act[0]]
    view = mano.seat_view(table.name)
    stream = stream_of(mano, table.name).start(table.name)
    try:
        illegal = stream.command(card_not_held(view), view.public.version)
        refused = stream.outcome()
        assert refused.request_id == illegal and refused.version == 0
        assert (refused.error.code, refused.error.reason) == (
            grpc.StatusCode.FAILED_PRECONDITION.value[0],
            "CARD_NOT_IN_HAND",
        )
        stale = stream.command(plain_bot(view), view.public.version + 5)
        conflict = stream.outcome()
        assert (conflict.request_id, conflict.error.reason) == (stale, "VERSION_CONFLICT")
        assert conflict.error.metadata["version"] == str(view.public.version)
        stream.command(plain_bot(view), view.public.version, request_id="")
        assert stream.outcome().error.reason == "INVALID_REQUEST_ID"
        stream.command(plain_bot(view), view.public.version, request_id="bad id!")
        assert stream.outcome().error.reason == "INVALID_REQUEST_ID"
        empty = gs.PlayGameCommand(request_id=new_id(), expected_version=view.public.version)
        stream.sent.put(gs.PlayGameRequest(command=empty))
        assert stream.outcome().error.reason == "MALFORMED_REQUEST"
        assert table.public().version == view.public.version, "a refusal changes nothing"
        accepted = stream.command(plain_bot(view), view.public.version)
        outcome = stream.outcome()
        assert outcome.request_id == accepted and not outcome.HasField("error")
        assert outcome.version > view.public.version
        assert outcome.version <= table.public().version
        stream.until_version(outcome.version)
    finally:
        stream.close()


def test_a_request_id_applies_once_on_the_stream_and_through_submit(server: InProcessServer) -> None:
    table = open_table(server.address, 2)
    mano = table.players[table.public().to_act[0]]
    view = mano.seat_view(table.name)
    request_id = new_id()
    reply = mano.submit(table.name, plain_bot(view), view.public.version, request_id)
    stream = stream_of(mano, table.name).start(table.name)
    try:
        stream.command(plain_bot(view), view.public.version, request_id)
        again = stream.outcome()
        assert (again.request_id, again.version) == (request_id, reply.version)
        assert not again.HasField("error")
        assert table.public().version == reply.version, "applied once"
    finally:
        stream.close()


def test_a_request_id_reused_for_another_command_is_refused_on_the_stream(server: InProcessServer) -> None:
    table = open_table(server.address, 2)
    mano = table.players[table.public().to_act[0]]
    view = mano.seat_view(table.name)
    request_id = new_id()
    reply = mano.submit(table.name, plain_bot(view), view.public.version, request_id)
    other = next(action for action in view.legal_actions if action != plain_bot(view))
    stream = stream_of(mano, table.name).start(table.name)
    try:
        stream.command(other, 0, request_id)
        refused = stream.outcome()
        assert (refused.request_id, refused.error.reason) == (request_id, "REQUEST_ID_REUSED")
        assert table.public().version == reply.version, "nothing applied"
    finally:
        stream.close()


def test_a_spectators_session_watches_and_its_commands_are_refused(server: InProcessServer) -> None:
    table = open_table(server.address, 2)
    spectator = stream_of(table.spectator, table.name).start(table.name)
    try:
        spectator.command(play("1e"))
        refused = spectator.outcome()
        assert (refused.error.code, refused.error.reason) == (grpc.StatusCode.UNAUTHENTICATED.value[0], "TOKEN_MISSING")
        mano = table.players[table.public().to_act[0]]
        view = mano.seat_view(table.name)
        version = mano.submit(table.name, plain_bot(view), view.public.version).version
        spectator.until_version(version)
        assert all(c.HasField("public") and not c.HasField("seat") for c in spectator.commits)
    finally:
        spectator.close()


@pytest.mark.parametrize("first", ["command", "nothing"])
def test_a_stream_that_does_not_start_with_start_fails(server: InProcessServer, first: str) -> None:
    table = open_table(server.address, 2)
    stream = stream_of(table.players[0], table.name)
    if first == "command":
        stream.command(play("1e"))
    stream.sent.put(None)  # half-close
    ended = stream.ending()
    assert ended is not None
    assert failure_of(ended).kind == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    stream.close()


def test_a_second_start_ends_the_stream(server: InProcessServer) -> None:
    table = open_table(server.address, 2)
    stream = stream_of(table.players[0], table.name).start(table.name).start(table.name)
    ended = stream.ending()
    assert ended is not None
    assert failure_of(ended).kind == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    stream.close()


def test_a_session_of_an_unknown_game_or_with_another_games_token_fails(server: InProcessServer) -> None:
    table = open_table(server.address, 2)
    other = open_table(server.address, 2)
    unknown = stream_of(Player(server.address), "games/nope").start("games/nope")
    ended = unknown.ending()
    assert ended is not None and failure_of(ended).kind == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
    unknown.close()
    foreign = Stream(server.address, bearer(other.players[0].token or "")).start(table.name)
    ended = foreign.ending()
    assert ended is not None and failure_of(ended).kind == (grpc.StatusCode.PERMISSION_DENIED, "TOKEN_NOT_FOR_GAME")
    foreign.close()


def test_a_sessions_commands_are_charged_to_its_players_quota(
    loop: LoopThread, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # A burst of 5: setting the table up takes 4 anonymous calls (create, two joins, a read), which may share one
    # connection (gRPC Python shares a subchannel between channels to one address) and so one player's bucket.
    limits = dataclasses.replace(Limits.unlimited(), player_calls_per_second=1.0, player_burst=5)
    limited = InProcessServer(loop, f"sqlite:///{tmp_path_factory.mktemp('quota') / 'truco.db'}", limits=limits)
    try:
        table = open_table(limited.address, 2)
        mano = table.players[table.players[0].seat_view(table.name).public.to_act[0]]
        view = mano.seat_view(table.name)
        stream = stream_of(mano, table.name).start(table.name)  # the stream's start is a call of the player's
        try:
            refusals = []
            for _ in range(8):
                stream.command(card_not_held(view), view.public.version)
                refusals.append(stream.outcome().error)
            quota = [error for error in refusals if error.reason == "QUOTA_EXCEEDED"]
            assert quota, [error.reason for error in refusals]
            assert quota[0].code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
            assert quota[0].metadata["quota"] == "player_calls_per_second"
            assert quota[0].retry_delay.seconds + quota[0].retry_delay.nanos > 0
            assert {error.reason for error in refusals} <= {"QUOTA_EXCEEDED", "CARD_NOT_IN_HAND"}
        finally:
            stream.close()
    finally:
        limited.stop()


def test_a_stopping_server_ends_sessions_with_the_version_to_resume_after(
    loop: LoopThread, tmp_path_factory: pytest.TempPathFactory
) -> None:
    stopping = InProcessServer(loop, f"sqlite:///{tmp_path_factory.mktemp('stop') / 'truco.db'}")
    table = open_table(stopping.address, 2)
    mano = table.players[table.public().to_act[0]]
    view = mano.seat_view(table.name)
    stream = stream_of(mano, table.name).start(table.name)
    stream.command(plain_bot(view), view.public.version)
    version = stream.outcome().version
    stream.until_version(version)
    stopping.stop(grace=5.0)
    ended = stream.ending()
    assert ended is not None
    failure = failure_of(ended)
    assert failure.kind == (grpc.StatusCode.UNAVAILABLE, "SERVER_SHUTTING_DOWN")
    assert failure.metadata["version"] == str(version)
    stream.close()


def test_the_move_that_ends_the_match_is_answered_before_the_stream_ends(server: InProcessServer) -> None:
    """Every seat plays on a raw stream of its own: each command's outcome arrives, the last one's too, and then
    the stream ends OK (the match's last commit is on it)."""
    table = open_table(server.address, 2)
    streams = {player.seat: stream_of(player, table.name).start(table.name) for player in table.players}
    try:
        while (public := table.public()).phase != views_pb2.PHASE_MATCH_OVER:
            seat = public.to_act[0]
            view = table.players[seat].seat_view(table.name)
            command = plain_bot(view)
            assert command is not None
            sent = streams[seat].command(command, view.public.version)
            outcome = streams[seat].outcome()
            assert (outcome.request_id, outcome.HasField("error")) == (sent, False), outcome
        last = streams[seat]
        assert outcome.version == table.public().version
        assert last.ending() is None, "the stream ends OK after the match's last commit"
        assert last.commits[-1].seat.public.phase == views_pb2.PHASE_MATCH_OVER
    finally:
        for stream in streams.values():
            stream.close()


def _watchers(server: InProcessServer) -> float:
    return float(server.server.games.metrics.watchers._value.get())


def _server_watch_slots(server: InProcessServer) -> int:
    return sum(server.server.admission.server_watches.held.values())


@pytest.mark.parametrize("ending", ["cancel", "half-close", "malformed"])
def test_a_session_gives_back_its_watch_slot_however_it_ends(server: InProcessServer, ending: str) -> None:
    table = open_table(server.address, 2)
    before = (_watchers(server), _server_watch_slots(server))
    stream = stream_of(table.players[0], table.name).start(table.name)
    assert wait_until(lambda: _watchers(server) == before[0] + 1), "the session is a watcher while it lasts"
    if ending == "cancel":
        stream.call.cancel()
    elif ending == "half-close":
        stream.sent.put(None)
        # A half-closed session still hears the game's commits.
        mano = table.players[table.public().to_act[0]]
        view = mano.seat_view(table.name)
        version = mano.submit(table.name, plain_bot(view), view.public.version).version
        stream.until_version(version)
        stream.call.cancel()
    else:
        stream.sent.put(gs.PlayGameRequest(start=gs.PlayGameStart(name=table.name)))  # a second start
        ended = stream.ending()
        assert ended is not None and failure_of(ended).reason == "MALFORMED_REQUEST"
    assert wait_until(lambda: (_watchers(server), _server_watch_slots(server)) == before), (
        _watchers(server),
        _server_watch_slots(server),
        before,
    )
    stream.close()
