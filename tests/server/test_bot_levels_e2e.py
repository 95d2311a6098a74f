"""Bot levels through the service: CreateGame seats bots by level (BotSeat.level), Game shows each seat's
bot_level, turn clocks take a seat over at the level the game chose, and the expert, which thinks in the
server's process pool instead of on its event loop, plays whole matches against a client and against bots."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import grpc
import pytest

from truco_client.v1 import commands_pb2, game_service_pb2, views_pb2

from ..players import RPC_TIMEOUT, Player, fails, join, new_id, rule_set
from ..servers import InProcessServer, LoopThread

EXPERT = game_service_pb2.BOT_LEVEL_EXPERT


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessServer]:
    loop = LoopThread()
    started = InProcessServer(loop, f"sqlite:///{tmp_path_factory.mktemp('levels') / 'truco.db'}")
    yield started
    started.stop()
    loop.close()


def create(server: InProcessServer, players: int, bots: list[game_service_pb2.BotSeat], **request: object) -> (
    game_service_pb2.Game
):
    creator = Player(server.address)
    try:
        message = game_service_pb2.CreateGameRequest(
            request_id=new_id(), rules=rule_set(players, target=15), bots=bots, **request  # type: ignore[arg-type]
        )
        return creator.games.CreateGame(message, timeout=RPC_TIMEOUT).game
    finally:
        creator.close()


def seat_info(server: InProcessServer, name: str) -> list[game_service_pb2.SeatInfo]:
    reader = Player(server.address)
    try:
        return list(reader.games.GetGame(game_service_pb2.GetGameRequest(name=name), timeout=RPC_TIMEOUT).game.seats)
    finally:
        reader.close()


def test_a_bot_seat_by_level_shows_its_level_and_the_kind_that_names_it(server: InProcessServer) -> None:
    game = create(
        server,
        4,
        [
            game_service_pb2.BotSeat(seat=1, level=game_service_pb2.BOT_LEVEL_BEGINNER),
            game_service_pb2.BotSeat(seat=2, level=game_service_pb2.BOT_LEVEL_INTERMEDIATE),
            # A level decides over a kind given beside it.
            game_service_pb2.BotSeat(seat=3, kind=game_service_pb2.BOT_KIND_RANDOM, level=EXPERT),
        ],
    )
    seats = {s.seat: s for s in seat_info(server, game.name)}
    assert seats[0].kind == game_service_pb2.SEAT_KIND_OPEN and seats[0].bot_level == 0
    assert (seats[1].bot, seats[1].bot_level) == (
        game_service_pb2.BOT_KIND_UNSPECIFIED,
        game_service_pb2.BOT_LEVEL_BEGINNER,
    )
    assert (seats[2].bot, seats[2].bot_level) == (
        game_service_pb2.BOT_KIND_HEURISTIC,
        game_service_pb2.BOT_LEVEL_INTERMEDIATE,
    )
    assert (seats[3].bot, seats[3].bot_level) == (game_service_pb2.BOT_KIND_UNSPECIFIED, EXPERT)
    # Kinds as before levels existed: the heuristic is the intermediate level, the random bot has none.
    game = create(
        server,
        2,
        [game_service_pb2.BotSeat(seat=0, kind=game_service_pb2.BOT_KIND_RANDOM),
         game_service_pb2.BotSeat(seat=1, kind=game_service_pb2.BOT_KIND_HEURISTIC)],
    )
    levels = [s.bot_level for s in seat_info(server, game.name)]
    assert levels == [game_service_pb2.BOT_LEVEL_UNSPECIFIED, game_service_pb2.BOT_LEVEL_INTERMEDIATE]


def test_an_unknown_level_or_no_bot_at_all_is_refused(server: InProcessServer) -> None:
    for bot in (game_service_pb2.BotSeat(seat=1, level=9), game_service_pb2.BotSeat(seat=1)):  # type: ignore[arg-type]
        failure = fails(lambda bot=bot: create(server, 2, [bot]))
        assert failure.code == grpc.StatusCode.INVALID_ARGUMENT and failure.reason == "INVALID_BOT_KIND"
    clock = game_service_pb2.ClockSettings(takeover_level=9)  # type: ignore[arg-type]
    clock.decision.seconds = 30
    failure = fails(lambda: create(server, 2, [], clock=clock))
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT and failure.reason == "INVALID_CLOCK"


def test_a_taken_over_seat_plays_at_the_level_the_game_chose(server: InProcessServer) -> None:
    clock = game_service_pb2.ClockSettings(takeover_level=EXPERT)
    clock.decision.nanos = 300_000_000
    game = create(server, 2, [game_service_pb2.BotSeat(seat=1, level=game_service_pb2.BOT_LEVEL_BEGINNER)], clock=clock)
    assert game.clock.takeover_level == EXPERT
    player = join(server.address, game.name, 0)
    try:
        # Seat 0 never moves: its clock runs out and the expert plays it, to the end of the match.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            seats = {s.seat: s for s in seat_info(server, game.name)}
            if seats[0].taken_over:
                assert seats[0].bot_level == EXPERT
                break
            time.sleep(0.05)
        else:
            pytest.fail("seat 0 was never taken over")
        assert wait_for_end(player, game.name).public.winner_team in (0, 1)
    finally:
        player.close()


def wait_for_end(player: Player, name: str, timeout: float = 300.0) -> views_pb2.SeatView:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = player.seat_view(name)
        if view.public.phase == views_pb2.PHASE_MATCH_OVER:
            return view
        time.sleep(0.05)
    raise AssertionError("the match did not end")


def cautious(actions: list[commands_pb2.Command], rng: random.Random) -> commands_pb2.Command:
    """A random card, else no quiero, else any move but a seña or a bet on the whole match: a match of some length
    (a random player that accepts a falta envido can lose the match in its first hand)."""
    cards = [a for a in actions if a.WhichOneof("kind") == "play_card"]
    if cards:
        return rng.choice(cards)
    for action in actions:
        if action.WhichOneof("kind") == "answer" and not action.answer.accept:
            return action
    whole_match = (commands_pb2.CALL_KIND_FALTA_ENVIDO, commands_pb2.CALL_KIND_CONTRA_FLOR_AL_RESTO)
    others = [
        a
        for a in actions
        if a.WhichOneof("kind") != "send_sena" and not (a.WhichOneof("kind") == "call" and a.call.call in whole_match)
    ]
    return rng.choice(others or actions)


def test_a_client_plays_a_whole_match_against_the_expert(server: InProcessServer) -> None:
    game = create(server, 2, [game_service_pb2.BotSeat(seat=1, level=EXPERT)])
    player = join(server.address, game.name, 0)
    rng = random.Random(4)
    moves = 0
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            view = player.seat_view(game.name)
            if view.public.phase == views_pb2.PHASE_MATCH_OVER:
                break
            if 0 not in view.public.to_act or not view.legal_actions:
                time.sleep(0.01)  # the expert thinks in the server's pool: its move comes after the reply
                continue
            command = cautious(list(view.legal_actions), rng)
            player.submit(game.name, command, expected_version=view.public.version)
            moves += 1
        else:
            pytest.fail("the match did not end")
        assert moves > 5
        seats = {s.seat: s for s in seat_info(server, game.name)}
        assert seats[1].bot_level == EXPERT
    finally:
        player.close()


def test_experts_play_a_match_between_bots_to_the_end(server: InProcessServer) -> None:
    game = create(
        server,
        4,
        [game_service_pb2.BotSeat(seat=s, level=EXPERT if s % 2 else game_service_pb2.BOT_LEVEL_BEGINNER)
         for s in range(4)],
    )
    spectator = Player(server.address)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            public = spectator.view(game.name).public
            if public.phase == views_pb2.PHASE_MATCH_OVER:
                assert public.winner_team in (0, 1)
                return
            time.sleep(0.1)
        pytest.fail("the bots' match did not end")
    finally:
        spectator.close()
