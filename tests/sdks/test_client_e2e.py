"""The SDK and the ``truco`` client commands against a real server: ``truco serve`` started as a subprocess on a
port it picks, with a SQLite store in a temporary folder."""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from truco_client import (
    IllegalMove,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    TrucoClient,
    Unauthenticated,
    VersionConflict,
    card_text,
    clock_settings,
    commit_events,
    play,
)
from truco_client.v1 import game_service_pb2, views_pb2

ROOT = Path(__file__).resolve().parents[2]
TRUCO = str(Path(sys.executable).with_name("truco"))
LISTENING = re.compile(r"listening on port (\d+)")
FINAL_SCORE = re.compile(r"^game \d+ games/[\w-]+: team 0 \d+ - team 1 \d+, team [01] wins", re.MULTILINE)
START_SECONDS = 30.0


@dataclass
class RunningServer:
    process: subprocess.Popen[str]
    port: int
    lines: queue.Queue[str]

    @property
    def address(self) -> str:
        return f"localhost:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_server(database: Path, port: int = 0) -> RunningServer:
    """``truco serve`` on ``port`` (0: one it picks, read from the first line it prints)."""
    # No metrics endpoint: its fixed default port would clash between servers started side by side.
    command = [TRUCO, "serve", "--store", f"sqlite:///{database}", "--port", str(port), "--metrics-port", "-1"]
    command.append("--no-limits")  # every test client is one anonymous caller from 127.0.0.1
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ}
    )
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    seen: list[str] = []
    while True:
        try:
            line = lines.get(timeout=START_SECONDS)
        except queue.Empty:
            process.kill()
            raise AssertionError(f"truco serve printed no port in {START_SECONDS}s: {''.join(seen)}") from None
        seen.append(line)
        match = LISTENING.search(line)
        if match:
            return RunningServer(process, int(match.group(1)), lines)
        if process.poll() is not None and lines.empty():
            raise AssertionError(f"truco serve exited with {process.returncode}: {''.join(seen)}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = start_server(tmp_path_factory.mktemp("serve") / "t.db")
    yield running
    running.stop()


def over(view: views_pb2.SeatView) -> bool:
    return view.public.phase == views_pb2.PHASE_MATCH_OVER


# --- A whole match through the SDK ---------------------------------------------------------------------------


async def test_a_whole_two_player_match_through_the_sdk(server: RunningServer) -> None:
    async with TrucoClient(server.address) as client:
        game = await client.create_game(rules={"players": 2}, bots={1: "random"})
        assert game.name.startswith("games/")
        seat, token, view = await client.join_game(game.name, seat=0, player_name="test")
        assert (seat, view.seat, len(view.cards)) == (0, 0, 3)
        assert token
        joined_at = view.public.version

        async def watch() -> list[int]:
            versions = []
            async for item in client.watch(game.name, after_version=joined_at):
                versions.append(item.event.version)
                if item.event.WhichOneof("kind") == "match_ended":
                    assert over(item.seat)
            return versions

        watcher = asyncio.create_task(watch())
        moves = 0
        while not over(view):
            assert view.legal_actions, "seat 0 has nothing to do but the match is not over"
            reply = await client.submit(game.name, view.legal_actions[0], expected_version=view.public.version)
            assert reply.version == reply.view.public.version >= view.public.version
            view = reply.view
            moves += 1
            assert moves < 5000
        versions = await asyncio.wait_for(watcher, 30)

    # Every event after the join, once each and in order (two players: no señas, so no repeated version).
    assert versions == list(range(joined_at + 1, view.public.version + 1))
    scores = {s.team: s.points for s in view.public.scores}
    assert max(scores.values()) == view.public.rules.target == 30
    assert scores[view.public.winner_team] == 30


async def test_list_games_shows_an_open_game_and_the_rules_calculator_answers(server: RunningServer) -> None:
    async with TrucoClient(server.address) as client:
        game = await client.create_game(rules={"players": 4}, bots={1: "heuristic"})
        names = [g.name async for g in client.list_games(page_size=1)]
        assert game.name in names
        hand = await client.evaluate_hand("1o", "2o 7e 3c")
        assert (hand.envido, hand.flor, list(hand.strength)) == (37, False, [19, 12, 10])
        duel = await client.compare_cards("1o", "2o", "1e")
        assert duel.result == 1


async def test_the_host_starts_a_table_waiting_for_a_friend_with_bots(server: RunningServer) -> None:
    """start_with_bots: the friend who sat down second may not; the host may, once; the bots take the open seat
    at the level of the game's bots."""
    async with TrucoClient(server.address) as host, TrucoClient(server.address) as friend:
        game = await host.create_game(rules={"players": 4}, bots={3: "heuristic"}, bot_level="beginner")
        await host.join_game(game.name, seat=0, player_name="Ana")
        await friend.join_game(game.name, seat=2, player_name="Bea")
        with pytest.raises(PermissionDenied) as refused:
            await friend.start_with_bots(game.name)
        assert refused.value.reason == "NOT_TABLE_HOST"

        started = await host.start_with_bots(game.name)

        bot, taken = game_service_pb2.SEAT_KIND_BOT, game_service_pb2.SEAT_KIND_TAKEN
        assert [s.kind for s in started.game.seats] == [taken, bot, taken, bot]
        assert started.game.seats[1].bot_level == game_service_pb2.BOT_LEVEL_BEGINNER
        assert len(started.view.cards) == 3
        with pytest.raises(IllegalMove) as again:
            await host.start_with_bots(game.name)
        assert again.value.reason == "GAME_ALREADY_STARTED"


# --- truco selfplay ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "games"), [(2, 2), (4, 1)])
def test_truco_selfplay_plays_whole_games(server: RunningServer, players: int, games: int) -> None:
    command = [TRUCO, "selfplay", "--server", server.address, "--players", str(players), "--games", str(games)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(FINAL_SCORE.findall(result.stdout)) == games, result.stdout
    assert f"games     {games}/{games} finished" in result.stdout


# --- truco play ----------------------------------------------------------------------------------------------


def test_truco_play_a_whole_match_from_piped_input(server: RunningServer) -> None:
    """Typing nonsense is refused with a message; always choosing option 1 plays the match to its end."""
    typed = "truco\n99\n" + "1\n" * 5000
    command = [TRUCO, "play", "--server", server.address, "--bots", "random", "--lang", "en"]
    result = subprocess.run(command, cwd=ROOT, input=typed, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    out = result.stdout
    assert "Refused: type the number of an option" in out
    assert "Refused: there is no option 99" in out
    assert "Your cards: " in out and "Muestra: " in out and "Your options:" in out
    assert re.search(r"Score: team 0 \(us\) \d+ (malas|buenas) · team 1 \(them\) \d+ (malas|buenas)", out)
    assert re.search(r"^seat 1 \(random bot\)( played|:| called| se va)", out, re.MULTILINE)  # the bot's moves
    assert re.search(r"Match over: team [01] \((us|them)\) won — you (win!|lose\.)", out), out[-2000:]


def test_truco_play_speaks_rioplatense_unless_asked_otherwise(server: RunningServer) -> None:
    """The same match with no --lang and no English locale: the table, the events and the prompts in Spanish,
    with voseo."""
    typed = "truco\n99\n" + "1\n" * 5000
    command = [TRUCO, "play", "--server", server.address, "--bots", "random"]
    env = {**os.environ, "LANG": "es_UY.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}
    result = subprocess.run(command, cwd=ROOT, input=typed, capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    out = result.stdout
    assert "No se puede: escribí el número de una opción" in out and "No se puede: no hay opción 99" in out
    assert "Tus cartas: " in out and "Muestra: " in out and "Tus opciones:" in out and "Te toca: elegí" in out
    assert re.search(r"Tanteador: tu equipo \d+ (malas|buenas) · los rivales \d+ (malas|buenas)", out)
    assert re.search(r"^El asiento 1 \(bot al azar\) (juega|canta|quiere|no quiere|se va)", out, re.MULTILINE)
    assert re.search(r"Partido terminado: (tu equipo ganó; ¡ganaste!|los rivales ganaron; perdiste\.)", out)
    assert not re.search(r"\b(Your|you|seat|team)\b", out), "no English left"


async def test_truco_play_lets_the_host_of_a_waiting_table_start_it_with_bots(server: RunningServer) -> None:
    """truco play on a table waiting for friends, as the first to sit down: it says so and offers b, which starts
    the match with the server's bots in the open seats; the match is then played to its end."""
    async with TrucoClient(server.address) as creator:
        game = await creator.create_game(rules={"players": 2})
    typed = "b\n" + "1\n" * 5000
    command = [TRUCO, "play", "--server", server.address, "--game", game.name, "--lang", "en"]
    result = subprocess.run(command, cwd=ROOT, input=typed, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    out = result.stdout
    assert "Not dealt yet: the match starts when every seat is taken." in out
    assert "You sat down first: type b to start now, with bots in the open seats (q quits)." in out
    assert "The match starts: bots take the open seats." in out
    assert re.search(r"^seat 1 \(intermediate bot\)( played|:| called| se va)", out, re.MULTILINE), out[-2000:]
    assert re.search(r"Match over: team [01] \((us|them)\) won — you (win!|lose\.)", out), out[-2000:]


def test_truco_play_leaves_cleanly_at_end_of_input(server: RunningServer) -> None:
    command = [TRUCO, "play", "--server", server.address, "--players", "4", "--seat", "1", "--lang", "en"]
    result = subprocess.run(command, cwd=ROOT, input="", capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "you are seat 1, team 1" in result.stdout
    assert "End of input: leaving the game" in result.stdout
    assert "Traceback" not in result.stderr


async def test_truco_play_seats_the_servers_bots_at_the_level_asked(server: RunningServer) -> None:
    command = [TRUCO, "play", "--server", server.address, "--players", "4", "--seat", "1", "--level", "expert"]
    command += ["--lang", "en"]
    result = subprocess.run(command, cwd=ROOT, input="", capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    found = re.search(r"Game (games/\w+): you are seat 1", result.stdout)
    assert found, result.stdout
    async with TrucoClient(server.address) as client:
        game = await client.get_game(found.group(1))
    levels = {seat.seat: seat.bot_level for seat in game.seats if seat.kind == game_service_pb2.SEAT_KIND_BOT}
    assert levels == dict.fromkeys((0, 2, 3), game_service_pb2.BOT_LEVEL_EXPERT)


# --- Friendly failures: one line, a non-zero status, never a traceback ------------------------------------------

DEAD_SERVER = "localhost:1"
DEAD_STORE = "postgresql://truco@127.0.0.1:1/truco"


def _one_line_failure(command: list[str]) -> str:
    """The one line a failing command prints, in the tables' default language (no English locale set)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    result = subprocess.run(command, cwd=ROOT, input="", capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode != 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (["play", "--server", DEAD_SERVER], r"^truco play: No hay conexión con el servidor en localhost:1 \(UNAVAIL"),
        (["selfplay", "--server", DEAD_SERVER], r"^truco selfplay: No hay conexión con el servidor en localhost:1 \("),
        (["keys", "--store", DEAD_STORE, "list"], r"^truco keys: PostgreSQL is unreachable: .*Connection refused"),
        (["keys", "--store", DEAD_STORE, "create", "--name", "x"], r"^truco keys: PostgreSQL is unreachable"),
        (["gc", "--store", DEAD_STORE, "--older-than", "1d"], r"^truco gc: PostgreSQL is unreachable"),
    ],
)
def test_every_command_turns_an_unreachable_server_or_store_into_one_line(command: list[str], expected: str) -> None:
    assert re.search(expected, _one_line_failure([TRUCO, *command]))


def test_the_terminal_client_turns_an_unreachable_server_into_one_line() -> None:
    terminal = str(Path(sys.executable).with_name("truco-terminal"))
    for command in ("play", "selfplay"):
        line = _one_line_failure([terminal, command, "--server", DEAD_SERVER])
        assert line.startswith(f"truco-terminal {command}: No hay conexión con el servidor en localhost:1"), line


async def test_play_on_a_game_one_has_left_or_that_does_not_exist_is_one_line(server: RunningServer) -> None:
    async with TrucoClient(server.address) as client:
        game = await client.create_game(rules={"players": 2}, bots={1: "random"})
        await client.join_game(game.name, seat=0, player_name="ana")
        await client.leave_game(game.name)  # a bot plays the seat now; no seat is open to join again
    left = await asyncio.to_thread(_one_line_failure, [TRUCO, "play", "--server", server.address, "--game", game.name])
    assert left.startswith(
        f"truco play: No pudiste sentarte en {game.name}: El servidor en {server.address} no aceptó el pedido "
        "(SEAT_UNAVAILABLE: "
    ), left
    gone = await asyncio.to_thread(
        _one_line_failure, [TRUCO, "play", "--server", server.address, "--game", "games/no-such-game"]
    )
    assert "(GAME_NOT_FOUND: " in gone, gone


# --- Error codes ---------------------------------------------------------------------------------------------


async def test_unknown_game_is_not_found(server: RunningServer) -> None:
    async with TrucoClient(server.address) as client:
        with pytest.raises(NotFound) as caught:
            await client.get_view("games/no-such-game")
    assert (caught.value.code, caught.value.reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
    assert caught.value.domain == "truco.v1"


async def test_submit_without_a_token_is_unauthenticated(server: RunningServer) -> None:
    async with TrucoClient(server.address) as client:
        game = await client.create_game(bots={1: "random"})
        with pytest.raises(Unauthenticated) as caught:
            await client.submit(game.name, play("1e"))
    assert (caught.value.code, caught.value.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")


async def test_another_games_token_is_permission_denied(server: RunningServer) -> None:
    async with TrucoClient(server.address) as client:
        first = await client.create_game(bots={1: "random"})
        second = await client.create_game(bots={1: "random"})
        await client.join_game(first.name)
        with pytest.raises(PermissionDenied) as caught:
            await client.legal_actions(second.name)
    assert caught.value.code is grpc.StatusCode.PERMISSION_DENIED
    assert caught.value.reason


async def test_a_card_not_in_hand_is_failed_precondition(server: RunningServer) -> None:
    async with TrucoClient(server.address) as client:
        game = await client.create_game(bots={1: "random"})
        _, _, view = await client.join_game(game.name, seat=0)
        held = {card_text(c) for c in view.cards} | {card_text(view.public.hand.muestra)}
        missing = next(text for text in ("1e", "1b", "7e", "7o", "3c", "2c") if text not in held)
        with pytest.raises(IllegalMove) as caught:
            await client.submit(game.name, play(missing), expected_version=view.public.version)
    assert (caught.value.code, caught.value.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "CARD_NOT_IN_HAND")


async def test_a_stale_expected_version_is_aborted(server: RunningServer) -> None:
    async with TrucoClient(server.address) as client:
        game = await client.create_game(bots={1: "random"})
        _, _, view = await client.join_game(game.name, seat=0)
        with pytest.raises(VersionConflict) as caught:
            await client.submit(game.name, view.legal_actions[0], expected_version=view.public.version - 1)
        assert (caught.value.code, caught.value.reason) == (grpc.StatusCode.ABORTED, "VERSION_CONFLICT")
        unchanged = (await client.get_view(game.name)).seat
        assert unchanged.public.version == view.public.version


async def test_a_malformed_hand_is_invalid_argument(server: RunningServer) -> None:
    async with TrucoClient(server.address) as client:
        with pytest.raises(InvalidArgument) as caught:
            await client.evaluate_hand("1o", "2o 2o 3c")
    assert caught.value.code is grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.reason


async def test_a_watch_from_the_middle_of_a_commit_gets_the_rest_of_it_in_one_message(server: RunningServer) -> None:
    """The SDK's watches ask for one message per commit; resumed at a version inside a commit (as after a
    disconnect, or from a version a per-event watch delivered last), the first message holds the rest of it."""
    async with TrucoClient(server.address) as client:
        game = await client.create_game(bots={1: "random"}, clock=clock_settings(0))
        _, _, view = await client.join_game(game.name, seat=0)
        reply = await client.submit(game.name, view.legal_actions[0], expected_version=view.public.version)
        while len(reply.events) < 3 and not over(reply.view):  # a move that ends a round, a hand, deals...
            view = reply.view
            reply = await client.submit(game.name, view.legal_actions[0], expected_version=view.public.version)
        versions = [event.version for event in reply.events]
        middle = versions[0]  # inside the commit: two events of it or more still to come
        async with contextlib.aclosing(client.watch_commits(game.name, after_version=middle)) as commits:
            first = await anext(commits)
        async with contextlib.aclosing(client.watch(game.name, after_version=middle)) as items:
            flat = [await anext(items) for _ in range(reply.version - middle)]
    assert [event.version for event in commit_events(first)] == list(range(middle + 1, reply.version + 1))
    assert first.seat.public.version == reply.version, "with the seat's view after the commit"
    assert [item.event.version for item in flat] == list(range(middle + 1, reply.version + 1))
    assert flat[-1].seat == first.seat and not any(item.HasField("seat") for item in flat[:-1])


async def test_a_replayed_request_id_applies_the_command_once(server: RunningServer) -> None:
    async with TrucoClient(server.address) as client:
        game = await client.create_game(bots={1: "random"})
        _, _, view = await client.join_game(game.name, seat=0)
        action = view.legal_actions[0]
        first = await client.submit(game.name, action, expected_version=view.public.version, request_id="r-1")
        again = await client.submit(game.name, action, expected_version=view.public.version, request_id="r-1")
        assert again == first
        same = await client.create_game(bots={1: "random"}, request_id="create-once")
        assert (await client.create_game(bots={1: "random"}, request_id="create-once")).name == same.name


# --- Watch resumes across a server restart -------------------------------------------------------------------


async def test_watch_resumes_after_the_server_restarts(tmp_path: Path) -> None:
    database = tmp_path / "restart.db"
    first = start_server(database)
    port = first.port
    second: RunningServer | None = None
    try:
        async with TrucoClient(first.address, retries=10, backoff=0.2) as player:
            game = await player.create_game(bots={1: "random"})
            _, token, view = await player.join_game(game.name, seat=0)
            received: list[int] = []
            progressed = asyncio.Event()

            async def watch() -> None:
                async for item in player.watch(game.name, after_version=view.public.version):
                    received.append(item.event.version)
                    progressed.set()
                    if over(item.seat):
                        return

            watcher = asyncio.create_task(watch())
            reply = await player.submit(game.name, view.legal_actions[0], expected_version=view.public.version)
            await asyncio.wait_for(progressed.wait(), 10)
            before = reply.version

            await asyncio.to_thread(first.stop)
            second = start_server(database, port=port)

            # A move made after the restart (the client retries while the server comes back) reaches the same
            # watch, right after the events it already had.
            view = reply.view
            if not over(view):
                reply = await player.submit(game.name, view.legal_actions[0], expected_version=view.public.version)
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 30
            while (not received or received[-1] < reply.version) and loop.time() < deadline:
                await asyncio.sleep(0.1)
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            assert token
        assert received == list(range(received[0], reply.version + 1)), received
        assert received[-1] > before
    finally:
        first.stop()
        if second is not None:
            second.stop()
