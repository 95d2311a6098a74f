"""The client side without the real server: card and command helpers, error parsing, retries and watch resumes
against a scripted in-process server, the proto-to-engine view used by selfplay, and the play renderer."""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

import grpc
import grpc.aio
import pytest
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from truco import wire
from truco.bots import HeuristicBot
from truco.engine import DECK, Game, RuleSet
from truco.engine.cards import RANKS
from truco.terminal import play as play_ui
from truco.terminal import selfplay
from truco.terminal.voices import ENGLISH
from truco_client import (
    GAME_HEADER,
    WRAPPERS,
    CardError,
    IllegalMove,
    NotFound,
    ResourceExhausted,
    TrucoClient,
    TrucoError,
    Unavailable,
    VersionConflict,
    answer,
    answer_perros,
    call,
    card,
    card_name,
    card_text,
    commit_events,
    describe,
    error_from_status,
    fixed_deal,
    from_rpc_error,
    is_my_turn,
    is_over,
    legal_of,
    mazo,
    parse_cards,
    per_event,
    perros,
    pick_action,
    plain_bot,
    play,
    sena,
    skip_perros,
)
from truco_client.v1 import (
    cards_pb2,
    commands_pb2,
    events_pb2,
    game_service_pb2,
    game_service_pb2_grpc,
    players_pb2,
    rules_pb2,
    rules_service_pb2,
    views_pb2,
)
from truco_client.versions import VersionsSeen

ALL_TEXTS = [f"{rank}{letter}" for letter in "eboc" for rank in RANKS]

# --- Cards ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ALL_TEXTS)
def test_card_round_trips_every_card_of_the_deck(text: str) -> None:
    assert card_text(card(text)) == text


def test_card_reads_rank_and_suit() -> None:
    assert card("1e") == cards_pb2.Card(rank=1, suit=cards_pb2.SUIT_ESPADA)
    assert card(" 12C ") == cards_pb2.Card(rank=12, suit=cards_pb2.SUIT_COPA)
    assert card(cards_pb2.Card(rank=7, suit=cards_pb2.SUIT_ORO)) == card("7o")


@pytest.mark.parametrize("text", ["8e", "9b", "13c", "0o", "01e", "1x", "e1", "", "e", "１e"])
def test_card_refuses_what_is_not_a_card(text: str) -> None:
    with pytest.raises(CardError):
        card(text)


def test_card_text_refuses_a_malformed_card() -> None:
    with pytest.raises(CardError):
        card_text(cards_pb2.Card(rank=1))
    with pytest.raises(CardError):
        card_text(cards_pb2.Card(rank=8, suit=cards_pb2.SUIT_ORO))


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("1e", "1 de espada"),
        ("7o", "7 de oro"),
        ("10c", "sota de copa"),
        ("11b", "caballo de basto"),
        ("12o", "rey de oro"),
    ],
)
def test_card_name_is_short_spanish(text: str, name: str) -> None:
    assert card_name(text) == name


def test_parse_cards_and_fixed_deal() -> None:
    assert [card_text(c) for c in parse_cards("1e 2e  3e")] == ["1e", "2e", "3e"]
    deal = fixed_deal(["1e 2e 3e", ["4c", "5c", card("6c")]], "7o")
    assert [[card_text(c) for c in hand.cards] for hand in deal.hands] == [["1e", "2e", "3e"], ["4c", "5c", "6c"]]
    assert card_text(deal.muestra) == "7o"


# --- Commands ------------------------------------------------------------------------------------------------


def test_command_builders_set_exactly_one_kind() -> None:
    assert play("1e") == commands_pb2.Command(play_card=commands_pb2.PlayCard(card=card("1e")))
    assert call("truco").call.call == commands_pb2.CALL_KIND_TRUCO
    assert call("vale cuatro").call.call == commands_pb2.CALL_KIND_VALE_CUATRO
    assert call("Contra-Flor al resto").call.call == commands_pb2.CALL_KIND_CONTRA_FLOR_AL_RESTO
    assert call(commands_pb2.CALL_KIND_ENVIDO).call.call == commands_pb2.CALL_KIND_ENVIDO
    assert answer(True).answer.accept is True
    assert answer(False).WhichOneof("kind") == "answer"
    assert mazo().WhichOneof("kind") == "go_to_mazo"
    assert sena("pieza 2").send_sena.sena == commands_pb2.SENA_PIEZA_2
    assert perros().WhichOneof("kind") == "call_perros"
    assert skip_perros().WhichOneof("kind") == "skip_perros"
    assert answer_perros(True, False).answer_perros == commands_pb2.AnswerPerros(accept_envido=True)


def test_command_builders_refuse_unknown_names() -> None:
    with pytest.raises(ValueError, match="unknown call"):
        call("retrucazo")
    with pytest.raises(ValueError, match="unknown seña"):
        sena("wink")
    with pytest.raises(CardError):
        play("8e")


def test_describe_says_each_command_in_one_line() -> None:
    assert [describe(c) for c in (play("12c"), call("real envido"), answer(True), answer(False), mazo())] == [
        "play 12c",
        "call real envido",
        "quiero",
        "no quiero",
        "me voy al mazo",
    ]
    assert describe(sena("mata_1")) == "seña mata 1"
    assert describe(answer_perros(False, True)) == "answer perros: envido no quiero, truco quiero"
    assert describe(commands_pb2.Command()) == "empty command"


# --- Errors --------------------------------------------------------------------------------------------------


def _status(code: grpc.StatusCode, message: str, reason: str, **metadata: str) -> status_pb2.Status:
    detail = any_pb2.Any()
    detail.Pack(error_details_pb2.ErrorInfo(reason=reason, domain="truco.v1", metadata=metadata))
    return status_pb2.Status(code=code.value[0], message=message, details=[detail])


def _rpc_error(code: grpc.StatusCode, message: str, status: status_pb2.Status | None) -> grpc.aio.AioRpcError:
    trailers = grpc.aio.Metadata()
    if status is not None:
        trailers.add("grpc-status-details-bin", status.SerializeToString())
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), trailers, details=message)


@pytest.mark.parametrize(
    ("code", "cls", "reason"),
    [
        (grpc.StatusCode.ABORTED, VersionConflict, "VERSION_CONFLICT"),
        (grpc.StatusCode.FAILED_PRECONDITION, IllegalMove, "CARD_NOT_IN_HAND"),
        (grpc.StatusCode.NOT_FOUND, NotFound, "GAME_NOT_FOUND"),
        (grpc.StatusCode.UNAVAILABLE, Unavailable, "STORE_UNAVAILABLE"),
    ],
)
def test_from_rpc_error_reads_the_status_details(code: grpc.StatusCode, cls: type[TrucoError], reason: str) -> None:
    error = from_rpc_error(_rpc_error(code, "the message", _status(code, "the message", reason, version="7")))
    assert type(error) is cls
    assert (error.code, error.reason, error.message, error.metadata) == (code, reason, "the message", {"version": "7"})
    assert error.domain == "truco.v1"
    assert str(error) == f"{code.name} {reason}: the message"


def test_from_rpc_error_without_details_keeps_code_and_message() -> None:
    error = from_rpc_error(_rpc_error(grpc.StatusCode.UNAUTHENTICATED, "who are you", None))
    assert (error.code, error.reason, error.message, error.metadata) == (
        grpc.StatusCode.UNAUTHENTICATED,
        "",
        "who are you",
        {},
    )


def test_from_rpc_error_reads_a_status_whose_message_differs() -> None:
    status = _status(grpc.StatusCode.FAILED_PRECONDITION, "inner message", "NOT_YOUR_TURN")
    error = from_rpc_error(_rpc_error(grpc.StatusCode.FAILED_PRECONDITION, "outer message", status))
    assert isinstance(error, IllegalMove)
    assert (error.reason, error.message) == ("NOT_YOUR_TURN", "outer message")


def test_error_from_status_prefers_the_truco_domain_and_falls_back_to_the_base_class() -> None:
    other = any_pb2.Any()
    other.Pack(error_details_pb2.ErrorInfo(reason="QUOTA", domain="example.com"))
    ours = _status(grpc.StatusCode.INTERNAL, "boom", "BUG")
    status = status_pb2.Status(code=13, message="boom", details=[other, *ours.details])
    error = error_from_status(grpc.StatusCode.INTERNAL, "boom", status)
    assert type(error) is TrucoError
    assert error.reason == "BUG"


# --- Retries and watch resumes, against a scripted server ---------------------------------------------------


class ScriptedGames(game_service_pb2_grpc.GameServiceServicer):
    """Fails the first calls as told, and records what it was sent."""

    def __init__(self) -> None:
        self.submits: list[game_service_pb2.SubmitCommandRequest] = []
        self.submit_failures: list[grpc.StatusCode] = []
        self.watches: list[int] = []
        self.per_commit: list[bool] = []
        self.released = False
        self.watch_failure = grpc.StatusCode.UNAVAILABLE
        self.metadata: list[dict[str, str]] = []
        self.reads: list[tuple[str, str, int]] = []
        self.read_version = 2
        self.quota_delays: list[float] = []
        self.plays: list[list[game_service_pb2.PlayGameRequest]] = []  # what each PlayGame stream was sent
        self.play_break = False

    async def SubmitCommand(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        self.submits.append(request)
        self.metadata.append({k: v for k, v in context.invocation_metadata() if isinstance(v, str)})
        if self.quota_delays:  # as the server refuses past a quota: ErrorInfo, then RetryInfo
            delay = self.quota_delays.pop(0)
            status = _status(grpc.StatusCode.RESOURCE_EXHAUSTED, "slow down", "QUOTA_EXCEEDED", quota="q")
            retry = any_pb2.Any()
            retry.Pack(error_details_pb2.RetryInfo(retry_delay={"seconds": int(delay), "nanos": int(delay % 1 * 1e9)}))
            status.details.append(retry)
            await context.abort_with_status(_as_grpc_status(status))
        if self.submit_failures:
            code = self.submit_failures.pop(0)
            if code is grpc.StatusCode.ABORTED:  # as the server says it: the game's version with the conflict
                conflict = _status(code, "moved on", "VERSION_CONFLICT", version=str(request.expected_version + 3))
                await context.abort_with_status(_as_grpc_status(conflict))
            await context.abort_with_status(_as_grpc_status(_status(code, "scripted", "SCRIPTED")))
        return game_service_pb2.SubmitCommandResponse(version=request.expected_version + 1)

    async def GetGameView(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        self.reads.append(("GetGameView", request.name, request.min_version))
        return game_service_pb2.GetGameViewResponse(public=views_pb2.MatchView(version=self.read_version))

    async def ListLegalActions(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        self.reads.append(("ListLegalActions", request.name, request.min_version))
        return game_service_pb2.ListLegalActionsResponse(version=self.read_version)

    async def WatchGame(self, request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        """Versions 1 to 3, then the stream breaks; a resumed one goes on to 5. With ``per_commit`` (unless the
        server plays a released one, ``released``) the events come in commits of up to two, each with the seat's
        view after its last event; else one event per message, as the released stream sends them."""
        self.watches.append(request.after_version)
        self.per_commit.append(request.per_commit)
        last = 5 if len(self.watches) > 1 else 3
        versions = list(range(request.after_version + 1, last + 1))
        if request.per_commit and not self.released:
            for start in range(0, len(versions), 2):
                commit = versions[start : start + 2]
                yield game_service_pb2.WatchGameResponse(
                    events=[events_pb2.Event(version=version) for version in commit],
                    seat=views_pb2.SeatView(public=views_pb2.MatchView(version=commit[-1])),
                )
        else:
            for version in versions:
                yield game_service_pb2.WatchGameResponse(event=events_pb2.Event(version=version))
        if len(self.watches) == 1:
            await context.abort(self.watch_failure, "going away")

    async def PlayGame(self, requests: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        """A session: the commit of versions 1-2 (unless resumed past them); then each command is answered (a
        quota refusal while ``quota_delays`` lasts; CARD_NOT_IN_HAND for ``expected_version`` 99; else accepted at
        ``expected_version + 1``, with the commit of version 3, and the match ends). With ``play_break`` the
        first stream breaks (UNAVAILABLE) on its first command, unanswered."""
        self.metadata.append({k: v for k, v in context.invocation_metadata() if isinstance(v, str)})
        received: list[game_service_pb2.PlayGameRequest] = []
        self.plays.append(received)
        async for request in requests:
            received.append(request)
            if request.WhichOneof("kind") == "start":
                if request.start.after_version < 2:
                    versions = range(request.start.after_version + 1, 3)
                    commit = game_service_pb2.WatchGameResponse(
                        events=[events_pb2.Event(version=version) for version in versions],
                        seat=views_pb2.SeatView(public=views_pb2.MatchView(version=2)),
                    )
                    yield game_service_pb2.PlayGameResponse(commit=commit)
                continue
            command = request.command
            if self.play_break and len(self.plays) == 1:
                await context.abort(grpc.StatusCode.UNAVAILABLE, "going away")
            outcome = game_service_pb2.PlayGameOutcome(request_id=command.request_id)
            if self.quota_delays:
                delay = self.quota_delays.pop(0)
                outcome.error.CopyFrom(
                    game_service_pb2.CommandError(
                        code=grpc.StatusCode.RESOURCE_EXHAUSTED.value[0],
                        reason="QUOTA_EXCEEDED",
                        message="slow down",
                        metadata={"quota": "q"},
                        retry_delay={"seconds": int(delay), "nanos": int(delay % 1 * 1e9)},
                    )
                )
                yield game_service_pb2.PlayGameResponse(outcome=outcome)
                continue
            if command.expected_version == 99:
                outcome.error.CopyFrom(
                    game_service_pb2.CommandError(
                        code=grpc.StatusCode.FAILED_PRECONDITION.value[0],
                        reason="CARD_NOT_IN_HAND",
                        message="not yours",
                        metadata={"card": "1e"},
                    )
                )
                yield game_service_pb2.PlayGameResponse(outcome=outcome)
                continue
            outcome.version = command.expected_version + 1
            yield game_service_pb2.PlayGameResponse(outcome=outcome)
            commit = game_service_pb2.WatchGameResponse(
                events=[events_pb2.Event(version=3)], seat=views_pb2.SeatView(public=views_pb2.MatchView(version=3))
            )
            yield game_service_pb2.PlayGameResponse(commit=commit)
            return


def _as_grpc_status(status: status_pb2.Status) -> grpc.Status:
    from grpc_status import rpc_status

    return rpc_status.to_status(status)


class Recorder(grpc.aio.ServerInterceptor):
    """Records the metadata of every call the server is sent, answered or not, by method name."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, str]]] = []

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler | None]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        metadata = {key: value for key, value in details.invocation_metadata or () if isinstance(value, str)}
        self.calls.append((details.method.rsplit("/", 1)[-1], metadata))
        return await continuation(details)


@pytest.fixture
async def recorded() -> AsyncIterator[tuple[ScriptedGames, Recorder, str]]:
    servicer, recorder = ScriptedGames(), Recorder()
    server = grpc.aio.server(interceptors=[recorder])
    game_service_pb2_grpc.add_GameServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    yield servicer, recorder, f"127.0.0.1:{port}"
    await server.stop(None)


@pytest.fixture
def scripted(recorded: tuple[ScriptedGames, Recorder, str]) -> tuple[ScriptedGames, str]:
    servicer, _, target = recorded
    return servicer, target


async def test_submit_retries_unavailable_with_the_same_request_id(scripted: tuple[ScriptedGames, str]) -> None:
    servicer, target = scripted
    servicer.submit_failures = [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNAVAILABLE]
    async with TrucoClient(target, token="t0k", backoff=0.01) as client:
        response = await client.submit("g1", play("1e"), expected_version=4)
    assert response.version == 5
    assert len(servicer.submits) == 3
    assert len({r.request_id for r in servicer.submits}) == 1
    assert servicer.submits[0].name == "games/g1"
    assert all(m.get("authorization") == "Bearer t0k" for m in servicer.metadata)


async def test_submit_retries_a_call_cut_by_a_replica_shutting_down(scripted: tuple[ScriptedGames, str]) -> None:
    """CANCELLED from the other side (a replica stopping cancels what it cannot finish) is retried with the
    same request id, which the server applies once; an INTERNAL error the server answers itself is not."""
    servicer, target = scripted
    servicer.submit_failures = [grpc.StatusCode.CANCELLED]
    async with TrucoClient(target, token="t", backoff=0.01) as client:
        assert (await client.submit("games/g1", mazo(), expected_version=1)).version == 2
        assert len(servicer.submits) == 2 and len({r.request_id for r in servicer.submits}) == 1
        servicer.submit_failures = [grpc.StatusCode.INTERNAL]
        with pytest.raises(TrucoError):
            await client.submit("games/g1", mazo())
    assert len(servicer.submits) == 3


async def test_a_quota_refusal_is_retried_after_its_retry_info_delay_with_the_same_request_id(
    scripted: tuple[ScriptedGames, str],
) -> None:
    servicer, target = scripted
    servicer.quota_delays = [0.3]
    async with TrucoClient(target, token="t", backoff=0.01) as client:
        started = asyncio.get_running_loop().time()
        assert (await client.submit("games/g1", mazo(), expected_version=1)).version == 2
        waited = asyncio.get_running_loop().time() - started
    assert waited >= 0.3
    assert len(servicer.submits) == 2 and len({r.request_id for r in servicer.submits}) == 1


async def test_a_quota_refusal_longer_than_the_clients_bound_is_raised_at_once(
    scripted: tuple[ScriptedGames, str],
) -> None:
    servicer, target = scripted
    servicer.quota_delays = [30.0]
    async with TrucoClient(target, token="t", max_quota_wait=5) as client:
        with pytest.raises(ResourceExhausted) as caught:
            await client.submit("games/g1", mazo())
    assert (caught.value.reason, caught.value.retry_delay) == ("QUOTA_EXCEEDED", 30.0)
    assert len(servicer.submits) == 1


def test_every_rpc_of_the_service_has_a_wrapper() -> None:
    methods = {
        f"{service.full_name}/{method.name}"
        for module in (game_service_pb2, rules_service_pb2, players_pb2)
        for service in module.DESCRIPTOR.services_by_name.values()
        for method in service.methods
    }
    assert set(WRAPPERS) == methods
    for wrapper in WRAPPERS.values():
        assert callable(getattr(TrucoClient, wrapper, None)), wrapper


def test_pickers_choose_among_the_legal_actions_on_the_seats_turn() -> None:
    hand = views_pb2.HandView(pending=views_pb2.PendingCall(call=commands_pb2.CALL_KIND_FALTA_ENVIDO))
    public = views_pb2.MatchView(to_act=[1], hand=hand)
    actions = [answer(True), answer(False), call("vale cuatro"), mazo()]
    view = views_pb2.SeatView(seat=1, public=public, legal_actions=actions)
    assert is_my_turn(view) and not is_over(view)
    assert plain_bot(view) == answer(False)  # a falta envido is declined
    assert pick_action(view) == answer(True)
    assert pick_action(view, ("call",)) == call("vale cuatro")
    assert legal_of(view, "answer") == [answer(True), answer(False)]
    only_mazo = views_pb2.SeatView(seat=1, public=public, legal_actions=[mazo()])
    assert pick_action(only_mazo, ("play_card",)) == mazo()
    # Legal señas alone are no turn: a plain bot waits.
    waiting = views_pb2.SeatView(seat=0, public=public, legal_actions=[sena("pieza 2")])
    assert not is_my_turn(waiting) and plain_bot(waiting) is None and pick_action(waiting) == sena("pieza 2")


async def test_submit_does_not_retry_an_illegal_move(scripted: tuple[ScriptedGames, str]) -> None:
    servicer, target = scripted
    servicer.submit_failures = [grpc.StatusCode.FAILED_PRECONDITION]
    async with TrucoClient(target, token="t", backoff=0.01) as client:
        with pytest.raises(IllegalMove) as caught:
            await client.submit("games/g1", play("1e"), request_id="fixed-id")
    assert caught.value.reason == "SCRIPTED"
    assert [r.request_id for r in servicer.submits] == ["fixed-id"]


async def test_retries_are_bounded(scripted: tuple[ScriptedGames, str]) -> None:
    servicer, target = scripted
    servicer.submit_failures = [grpc.StatusCode.UNAVAILABLE] * 5
    async with TrucoClient(target, token="t", retries=2, backoff=0.01) as client:
        with pytest.raises(Unavailable):
            await client.submit("games/g1", mazo())
    assert len(servicer.submits) == 3


async def test_watch_resumes_after_the_last_version_received(scripted: tuple[ScriptedGames, str]) -> None:
    servicer, target = scripted
    async with TrucoClient(target, token="t", backoff=0.01) as client:
        items = [item async for item in client.watch("games/g1")]
    assert [item.event.version for item in items] == [1, 2, 3, 4, 5]
    assert servicer.watches == [0, 3]
    assert servicer.per_commit == [True, True], "the watch asks for one message per commit"
    # A commit's view goes with its last event (both views: a seat's holds the public one); the others have none.
    with_views = [(item.event.version, item.seat.public.version, item.public.version) for item in items]
    assert [versions for versions in with_views if versions[1]] == [(2, 2, 2), (3, 3, 3), (5, 5, 5)]
    assert not any(item.HasField("seat") or item.HasField("public") for item in items if item.event.version in (1, 4))


async def test_watch_commits_hands_each_commit_whole_and_resumes_in_the_middle_of_one(
    scripted: tuple[ScriptedGames, str],
) -> None:
    servicer, target = scripted
    resumed: list[int] = []
    async with TrucoClient(target, token="t", backoff=0.01) as client:
        commits = client.watch_commits("g1", 1, on_resume=lambda after, _: resumed.append(after))
        messages = [message async for message in commits]
        # After the stream: the newest version any commit told of is what the next read asks for at least.
        await client.get_view("g1")
    assert [[event.version for event in commit_events(m)] for m in messages] == [[2, 3], [4, 5]]
    assert [m.seat.public.version for m in messages] == [3, 5]
    assert servicer.watches == [1, 3] and resumed == [3]
    assert servicer.reads[-1] == ("GetGameView", "games/g1", 5)


async def test_watch_reads_a_released_server_that_sends_one_event_per_message(
    scripted: tuple[ScriptedGames, str],
) -> None:
    """A server older than ``per_commit`` ignores it: each message is then a commit of one event."""
    servicer, target = scripted
    servicer.released = True
    async with TrucoClient(target, token="t", backoff=0.01) as client:
        assert [item.event.version async for item in client.watch("g1")] == [1, 2, 3, 4, 5]
        commits = [[e.version for e in commit_events(m)] async for m in client.watch_commits("g2")]
    assert commits == [[1], [2], [3], [4], [5]]


def test_per_event_gives_a_spectators_view_to_the_last_event_only() -> None:
    public = views_pb2.MatchView(version=7)
    message = game_service_pb2.WatchGameResponse(events=[events_pb2.Event(version=v) for v in (6, 7)], public=public)
    items = per_event(message)
    assert [(item.event.version, item.HasField("public"), item.HasField("seat")) for item in items] == [
        (6, False, False),
        (7, True, False),
    ]
    assert items[-1].public == public
    assert per_event(game_service_pb2.WatchGameResponse(public=public)) == []


async def test_every_call_about_one_game_names_it_for_the_balancer(
    recorded: tuple[ScriptedGames, Recorder, str],
) -> None:
    """``x-truco-game: games/{id}`` on every call about one game (a balancer hashes it to keep the game on one
    replica); none on CreateGame, ListGames and the rules calculator. Calls the fake does not answer are sent all
    the same (UNIMPLEMENTED)."""
    _, recorder, target = recorded
    async with TrucoClient(target, token="t", api_key="k", retries=1, backoff=0.01) as client:
        calls: list[Awaitable[object]] = [
            client.create_game(),
            client.join_game("g1"),
            client.get_view("g1"),
            client.legal_actions("games/g1"),
            client.submit("g1", mazo(), expected_version=1),
            client.get_game("g1"),
            client.leave_game("g1"),
            client.resume_seat("g1"),
            client.rematch("g1"),
            client.start_with_bots("g1"),
            client.evaluate_hand("1o", "2o 7e 3c"),
            client.compare_cards("1o", "2o", "1e"),
        ]
        for pending in calls:
            with contextlib.suppress(TrucoError):
                await pending
        with contextlib.suppress(TrucoError):
            _ = [game async for game in client.list_games()]
        _ = [item async for item in client.with_token(None).watch("g1", 3)]
        async with client.play("g1") as session:
            await anext(aiter(session.commits()))
    sent = {method: metadata.get(GAME_HEADER) for method, metadata in recorder.calls}
    assert sent == {
        "CreateGame": None,
        "JoinGame": "games/g1",
        "GetGameView": "games/g1",
        "ListLegalActions": "games/g1",
        "SubmitCommand": "games/g1",
        "GetGame": "games/g1",
        "LeaveGame": "games/g1",
        "ResumeSeat": "games/g1",
        "Rematch": "games/g1",
        "StartWithBots": "games/g1",
        "EvaluateHand": None,
        "CompareCards": None,
        "ListGames": None,
        "WatchGame": "games/g1",
        "PlayGame": "games/g1",
    }
    assert all(metadata.get("x-api-key") == "k" for _, metadata in recorder.calls), "the key still goes on all"


async def test_a_session_starts_first_and_answers_each_submit_with_its_outcome(
    scripted: tuple[ScriptedGames, str],
) -> None:
    servicer, target = scripted
    async with TrucoClient(target, token="t0k", backoff=0.01) as client, client.play("g1") as session:
        with pytest.raises(IllegalMove) as refused:
            await session.submit(play("1e"), expected_version=99)
        assert (refused.value.reason, refused.value.metadata) == ("CARD_NOT_IN_HAND", {"card": "1e"})
        assert await session.submit(play("2e"), expected_version=2, request_id="r-2") == 3
        commits = [[event.version for event in commit.events] async for commit in session.commits()]
        with pytest.raises(IllegalMove) as over:
            await session.submit(play("3e"), expected_version=3)
        assert over.value.reason == "MATCH_OVER"
        await client.get_view("g1")
    assert commits == [[1, 2], [3]]
    [stream] = servicer.plays
    assert stream[0].start == game_service_pb2.PlayGameStart(name="games/g1", after_version=0)
    assert [message.WhichOneof("kind") for message in stream] == ["start", "command", "command"]
    assert stream[2].command.request_id == "r-2"
    assert servicer.metadata[0]["authorization"] == "Bearer t0k"
    assert servicer.metadata[0][GAME_HEADER] == "games/g1"
    assert servicer.reads[-1] == ("GetGameView", "games/g1", 3), "what the session saw, a read asks for"


async def test_a_sessions_quota_refusal_is_sent_again_after_its_delay_with_the_same_request_id(
    scripted: tuple[ScriptedGames, str],
) -> None:
    servicer, target = scripted
    servicer.quota_delays = [0.05, 0.05]
    async with TrucoClient(target, token="t", backoff=0.01) as client, client.play("g1") as session:
        began = asyncio.get_running_loop().time()
        assert await session.submit(play("1e"), expected_version=2) == 3
        waited = asyncio.get_running_loop().time() - began
    commands = [message.command for message in servicer.plays[0][1:]]
    assert len(commands) == 3 and len({command.request_id for command in commands}) == 1
    assert waited >= 0.1


async def test_a_sessions_quota_refusal_longer_than_the_clients_bound_is_raised(
    scripted: tuple[ScriptedGames, str],
) -> None:
    servicer, target = scripted
    servicer.quota_delays = [30.0]
    async with TrucoClient(target, token="t", backoff=0.01) as client, client.play("g1") as session:
        with pytest.raises(ResourceExhausted) as refused:
            await session.submit(play("1e"), expected_version=2)
    assert refused.value.retry_delay == 30.0 and refused.value.metadata == {"quota": "q"}


async def test_a_broken_session_resumes_after_the_last_version_and_sends_the_pending_command_again(
    scripted: tuple[ScriptedGames, str],
) -> None:
    servicer, target = scripted
    servicer.play_break = True
    resumed: list[int] = []
    async with (
        TrucoClient(target, token="t", backoff=0.01) as client,
        client.play("g1", on_resume=lambda after, _: resumed.append(after)) as session,
    ):
        first = [event.version for event in (await anext(aiter(session.commits()))).events]
        assert await session.submit(play("1e"), expected_version=2, request_id="again") == 3
        versions = [item.event.version async for item in session.events()]
    assert first == [1, 2] and versions == [3]
    assert resumed == [2]
    assert [stream[0].start.after_version for stream in servicer.plays] == [0, 2]
    assert [stream[1].command.request_id for stream in servicer.plays] == ["again", "again"]


async def test_watch_resumes_after_a_replica_cancelled_it(scripted: tuple[ScriptedGames, str]) -> None:
    servicer, target = scripted
    servicer.watch_failure = grpc.StatusCode.CANCELLED
    async with TrucoClient(target, token="t", backoff=0.01) as client:
        versions = [item.event.version async for item in client.watch("games/g1")]
    assert versions == [1, 2, 3, 4, 5]
    assert servicer.watches == [0, 3]


async def test_reads_send_the_newest_version_seen_of_their_game_as_min_version(
    scripted: tuple[ScriptedGames, str],
) -> None:
    """Whatever the client saw last (a reply, a streamed event, another seat's client on its channel), its next
    read of that game asks for no older: a replica may answer it from memory but never from before."""
    servicer, target = scripted
    async with TrucoClient(target, token="t", backoff=0.01) as client:
        await client.get_view("g1")  # nothing seen: read the newest
        await client.legal_actions("g1")  # the view said 2
        await client.submit("g1", mazo(), expected_version=6)  # the reply says 7
        await client.get_view("games/g1")
        await client.get_view("g2")  # another game
        assert [item.event.version async for item in client.watch("g1")] == [1, 2, 3, 4, 5]
        servicer.read_version = 9
        await client.with_token("other").legal_actions("g1")
        await client.get_view("g1")  # the other seat's client saw 9
        servicer.submit_failures = [grpc.StatusCode.ABORTED]
        with pytest.raises(VersionConflict):
            await client.submit("g1", mazo(), expected_version=10)  # the conflict tells of 13
        await client.legal_actions("g1")
    assert servicer.reads == [
        ("GetGameView", "games/g1", 0),
        ("ListLegalActions", "games/g1", 2),
        ("GetGameView", "games/g1", 7),
        ("GetGameView", "games/g2", 0),
        ("ListLegalActions", "games/g1", 7),
        ("GetGameView", "games/g1", 9),
        ("ListLegalActions", "games/g1", 13),
    ]


def test_versions_seen_keep_the_highest_and_forget_the_least_recently_seen_game() -> None:
    seen = VersionsSeen(max_games=2)
    seen.saw("games/a", 5)
    seen.saw("games/a", 3)
    seen.saw("games/b", 1)
    seen.saw("games/a", 0)  # seen again: the most recent now
    seen.saw("games/c", 4)
    assert [seen.of(name) for name in ("games/a", "games/b", "games/c")] == [5, 0, 4]


async def test_unreachable_server_is_unavailable_after_retries() -> None:
    async with TrucoClient("127.0.0.1:1", timeout=1.0, retries=1, backoff=0.01) as client:
        with pytest.raises(Unavailable):
            await client.get_view("games/g1")


# --- selfplay: the proto view the bots read ------------------------------------------------------------------


def _engine_game(players: int = 2, seed: int = 3) -> Game:
    game = Game(RuleSet(players=players))
    order = list(DECK)
    random.Random(seed).shuffle(order)
    game.deal(order, salt="0" * 32)
    return game


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_wire_seat_view_decodes_to_the_engine_seat_view(players: int) -> None:
    game = _engine_game(players)
    rng = random.Random(1)
    for _ in range(12):  # a few moves in, so rounds, calls and scores are not empty
        actions = [a for s in range(players) for a in game.view(s).legal_actions]
        if not actions or game.state.hand is None or game.state.hand.ended:
            break
        game.execute(rng.choice(actions))
    for seat in range(players):
        original = game.view(seat)
        rebuilt = wire.seat_view_from_pb(wire.seat_view_to_pb(original, "games/x"))
        hand = original.public.hand
        assert hand is not None and rebuilt.public.hand == hand
        assert replace(rebuilt, public=original.public) == original
        assert replace(rebuilt.public, hand=hand, next_dealer=original.public.next_dealer) == original.public


def test_selfplay_choice_is_the_heuristic_bots_choice() -> None:
    game = _engine_game(2, seed=11)
    view = game.view(0)
    pb = wire.seat_view_to_pb(view, "games/x")
    expected = HeuristicBot().choose(view.legal_actions, lambda: view, random.Random(5))
    actions = selfplay.playable(pb)
    chosen = selfplay.choose("heuristic", pb, actions, random.Random(5))
    assert wire.command_from_pb(chosen, 0) == expected
    assert selfplay.choose("random", pb, actions, random.Random(5)) in actions


def test_selfplay_leaves_out_senas_once_one_was_sent() -> None:
    view = views_pb2.SeatView(legal_actions=[sena("negras"), sena("envido")])
    assert selfplay.playable(view) == list(view.legal_actions)
    assert selfplay.playable(view, sena_sent=True) == []
    view.legal_actions.append(play("1e"))
    assert selfplay.playable(view, sena_sent=True) == [play("1e")]


# --- truco play: the renderer --------------------------------------------------------------------------------


def _table_view() -> views_pb2.SeatView:
    hand = views_pb2.HandView(
        number=3,
        dealer=1,
        mano=0,
        seats=[0, 1],
        muestra=card("4o"),
        rounds=[
            views_pb2.Round(
                plays=[views_pb2.Play(seat=0, card=card("3e")), views_pb2.Play(seat=1, card=card("5o"))],
                finished=True,
                winner_team=1,
            ),
            views_pb2.Round(plays=[views_pb2.Play(seat=1, card=card("6c"))]),
        ],
        truco_value=1,
        pending=views_pb2.PendingCall(call=commands_pb2.CALL_KIND_TRUCO, seat=1, team=1),
        envido_closed=True,
        points=[0, 0],
    )
    public = views_pb2.MatchView(
        game="games/abc",
        rules=rules_pb2.RuleSet(players=2, target=30),
        version=17,
        phase=views_pb2.PHASE_PLAYING,
        scores=[
            views_pb2.TeamScore(team=0, points=12, standing=views_pb2.STANDING_MALAS),
            views_pb2.TeamScore(team=1, points=17, standing=views_pb2.STANDING_BUENAS),
        ],
        hand=hand,
        to_act=[0],
    )
    return views_pb2.SeatView(
        seat=0,
        team=0,
        public=public,
        cards=[card("12c"), card("2o"), card("1e")],
        envido=7,
        legal_actions=[answer(True), answer(False), call("retruco"), mazo(), play("2o")],
    )


def test_render_view_shows_the_table_and_numbered_options() -> None:
    text = ENGLISH.render_view(_table_view(), {1: "heuristic bot"})
    assert text.splitlines()[0] == "Score: team 0 (us) 12 malas · team 1 (them) 17 buenas · playing to 30"
    assert "Muestra: 4o (4 de oro) · piezas 2o 12o 5o 11o 10o" in text
    assert "Round 1: you 3e (3 de espada), seat 1 (heuristic bot) 5o (5 de oro, pieza) → team 1 (them)" in text
    assert "Round 2: seat 1 (heuristic bot) 6c (6 de copa)" in text
    assert "Pending: seat 1 (heuristic bot) called truco — your team must answer" in text
    # Strongest first: the pieza, the mata, then the rey.
    assert "Your cards: 2o (2 de oro, pieza) · 1e (1 de espada, mata) · 12c (rey de copa)" in text
    assert "envido" not in text.split("Your cards")[1].split("Your options")[0]  # closed: no "You have envido"
    assert text.endswith(
        "Your options:\n   1) quiero\n   2) no quiero\n   3) call retruco\n   4) me voy al mazo\n"
        "   5) play 2o (2 de oro, pieza)"
    )


def test_the_envido_line_shows_until_the_envido_closes_and_a_flor_says_it_sings_itself() -> None:
    view = _table_view()
    view.public.hand.envido_closed = False
    assert ENGLISH.tantos_line(view) == "You have envido 7"
    assert "You have envido 7" in ENGLISH.render_view(view)
    view.public.hand.envido_closed = True
    assert ENGLISH.tantos_line(view) is None
    view.ClearField("envido")
    view.flor = 29
    line = ENGLISH.tantos_line(view)
    assert line == "You have flor (29 points): it is sung by itself the first time you act this hand"
    assert line in ENGLISH.render_view(view)
    view.public.hand.flor_sung.append(0)  # sung: nothing more to say
    assert ENGLISH.tantos_line(view) is None


def test_the_cards_among_the_options_come_in_the_order_of_your_cards() -> None:
    view = _table_view()
    view.ClearField("legal_actions")
    view.legal_actions.extend([call("envido"), play("12c"), play("1e"), play("2o"), mazo()])
    ordered = play_ui.ordered_options(view)
    assert ordered == [call("envido"), play("2o"), play("1e"), play("12c"), mazo()]
    shown = play_ui.prompt_view(view)
    assert shown is not None and list(shown.legal_actions) == ordered
    text = ENGLISH.render_view(shown)
    hand = [c.split(" (")[0] for c in text.split("Your cards: ")[1].splitlines()[0].split(" · ")]
    offered = [line.split("play ")[1].split(" (")[0] for line in text.splitlines() if ") play " in line]
    assert hand == offered == ["2o", "1e", "12c"]


def test_selfplay_counts_version_races_apart_from_errors() -> None:
    stats = selfplay.Stats(games=1, finished=1, moves=10, latencies=[0.01])
    stats.error(VersionConflict(grpc.StatusCode.ABORTED, "VERSION_CONFLICT", "game is at version 9"))
    stats.error(VersionConflict(grpc.StatusCode.ABORTED, "VERSION_CONFLICT", "game is at version 12"))
    summary = selfplay.format_summary(stats, 1.0)
    assert "errors    none" in summary
    races = r"^races     2 moves chosen on a view another seat had just changed \(VERSION_CONFLICT; expected"
    assert re.search(races, summary, re.MULTILINE)
    stats.error(IllegalMove(grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN", "not your turn"))
    assert "errors    NOT_YOUR_TURN 1" in selfplay.format_summary(stats, 1.0)


def test_render_view_without_options_and_at_the_end() -> None:
    view = _table_view()
    assert "Your options" not in ENGLISH.render_view(view, options=False)
    view.ClearField("legal_actions")
    view.public.to_act[:] = [1]
    assert ENGLISH.render_view(view, {1: "random bot"}).splitlines()[-1] == "Waiting for seat 1 (random bot)."
    view.public.phase = views_pb2.PHASE_MATCH_OVER
    view.public.winner_team = 1
    assert ENGLISH.render_view(view).splitlines()[-1] == "Match over: team 1 (them) won — you lose."


def test_describe_event_for_what_the_others_do() -> None:
    played = events_pb2.Event(version=9, card_played=events_pb2.CardPlayed(seat=1, card=card("7o")))
    called = events_pb2.Event(call_made=events_pb2.CallMade(seat=0, call=commands_pb2.CALL_KIND_ENVIDO))
    scored = events_pb2.Event(
        points_scored=events_pb2.PointsScored(team=1, points=2, reason=events_pb2.SCORE_REASON_TRUCO_DECLINED)
    )
    parda = events_pb2.Event(round_ended=events_pb2.RoundEnded(round=1))
    labels = {1: "random bot"}
    assert ENGLISH.describe_event(played, 0, labels) == "seat 1 (random bot) played 7o (7 de oro)"
    assert ENGLISH.describe_event(called, 0, labels) == "you called envido!"
    assert ENGLISH.describe_event(scored, 0, labels) == "+2 for team 1 (them) (truco declined)"
    assert ENGLISH.describe_event(parda, 0) == "Round 2: parda"
    assert ENGLISH.describe_event(events_pb2.Event(match_started=events_pb2.MatchStarted())) is None


def test_parse_choice_explains_refused_input() -> None:
    assert play_ui.parse_choice(" 3 ", 5) == 2
    with pytest.raises(ValueError, match="type the number of an option, 1 to 5"):
        play_ui.parse_choice("truco", 5)
    with pytest.raises(ValueError, match="there is no option 6: choose 1 to 5"):
        play_ui.parse_choice("6", 5)
    with pytest.raises(ValueError, match="there is no option 0"):
        play_ui.parse_choice("0", 5)


def test_bot_labels_name_the_servers_bots() -> None:
    game = game_service_pb2.Game(
        seats=[
            game_service_pb2.SeatInfo(seat=0, kind=game_service_pb2.SEAT_KIND_TAKEN, player_name="ana"),
            game_service_pb2.SeatInfo(
                seat=1, kind=game_service_pb2.SEAT_KIND_BOT, bot=game_service_pb2.BOT_KIND_HEURISTIC
            ),
        ]
    )
    assert ENGLISH.bot_labels(game) == {0: "ana", 1: "heuristic bot"}


def test_seat_labels_name_partners_and_bots() -> None:
    labels = {1: "random bot", 2: "heuristic bot"}
    assert [ENGLISH.seat_label(s, 0, labels) for s in range(4)] == [
        "you",
        "seat 1 (random bot)",
        "seat 2 (partner, heuristic bot)",
        "seat 3",
    ]
    flor = events_pb2.Event(flor_sung=events_pb2.FlorSung(seat=0))
    mazo_ = events_pb2.Event(went_to_mazo=events_pb2.WentToMazo(seat=3))
    assert ENGLISH.describe_event(flor, 0) == "you sing flor"
    assert ENGLISH.describe_event(flor, 1) == "seat 0 sings flor"
    assert ENGLISH.describe_event(mazo_, 0) == "seat 3 se va al mazo"


def test_prompt_view_asks_only_with_real_options() -> None:
    view = views_pb2.SeatView(legal_actions=[sena("negras"), sena("envido")])
    assert play_ui.prompt_view(view) is None  # señas alone: the others are playing, do not ask
    view.legal_actions.extend([play("1e"), mazo()])
    asked = play_ui.prompt_view(view)
    assert asked is not None and list(asked.legal_actions) == list(view.legal_actions)
    after_sena = play_ui.prompt_view(view, sena_sent=True)
    assert after_sena is not None and list(after_sena.legal_actions) == [play("1e"), mazo()]
    assert len(view.legal_actions) == 4  # the view itself is left alone


def test_a_stream_a_proxy_cut_is_reopened_and_an_answer_is_not() -> None:
    """nginx cuts a stream whose replica died in one of three ways; each is reopened with the same request id.
    A status the server sent (its ErrorInfo says so) is an answer, not a cut, whatever its code or message."""
    from truco_client.client import TrucoClient

    client = TrucoClient("127.0.0.1:1", retries=3)
    cut = [
        _rpc_error(grpc.StatusCode.CANCELLED, "Cancelled", None),
        _rpc_error(grpc.StatusCode.INTERNAL, "Received RST_STREAM with error code 2", None),
        _rpc_error(grpc.StatusCode.UNKNOWN, "Stream removed (Data frame with END_STREAM flag received)", None),
        _rpc_error(grpc.StatusCode.UNAVAILABLE, "Socket closed", None),
    ]
    answered = [
        _rpc_error(grpc.StatusCode.UNKNOWN, "Stream removed", _status(grpc.StatusCode.UNKNOWN, "?", "INTERNAL")),
        _rpc_error(grpc.StatusCode.INTERNAL, "boom", _status(grpc.StatusCode.INTERNAL, "boom", "INTERNAL")),
        _rpc_error(grpc.StatusCode.INVALID_ARGUMENT, "Stream removed", None),
        _rpc_error(grpc.StatusCode.NOT_FOUND, "no such ticket", _status(grpc.StatusCode.NOT_FOUND, "x", "NOT_FOUND")),
        _rpc_error(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded", None),  # the caller's own timeout
    ]
    assert [client._resume_wait(e, 0)[1] is not None for e in cut] == [True] * 4
    assert [client._resume_wait(e, 0)[1] is not None for e in answered] == [False] * 5
    assert client._resume_wait(cut[2], 3)[1] is None  # its retries spent
