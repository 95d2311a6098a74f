"""The TypeScript, Go, Java, Kotlin and Python SDKs against a real ``truco serve`` with its default settings
(quotas on, default clocks: no ``--no-limits``, no think time), through ``scripts/sdk-play``.

Each SDK is built first (npm ci + tsc, go build, mvn package: installs on a clean machine, reuses later), then
its example bot plays whole matches, the five SDKs at once on one server as one app's players: 2 players by
polling, 2, 4 and 6 players waiting for their turns on WatchGame streams (one message per commit, which the
SDK hands one event at a time), and 2 and 4 players each seat on one PlayGame session (commands in, commits
out), each with an illegal card refused with CARD_NOT_IN_HAND. Then each SDK plays 4 players from watches, and
again from sessions, while its server is killed (SIGKILL) and restarted on the same port and store mid-match: it
must resume its streams, retry its calls (a session: send again the command it had no outcome for) and finish.
Every watching bot reports the versions of the events its seat 0 was handed: every event of the match from its
start, in order, each once, across the restart too. The TypeScript, Go, Java and Kotlin bots also quick-match
(PlayerService's FindMatch, each with a player token of one app) into one rated table of four and play it out. The
TypeScript SDK also plays over the web port's Connect and gRPC-Web protocols, as in a browser. The SDK code
generated from proto/ must be what ``scripts/gen-sdks`` makes now, and each SDK's own unit tests (against
in-memory fakes: what it sends, such as ``min_version``, quota retries, a wrapper for every RPC) pass.

Toolchains (node, go, java, mvn) are required: under CI these tests run, never skip.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import jwt
import pytest

from truco_client.v1 import game_service_pb2, game_service_pb2_grpc, players_pb2, players_pb2_grpc, views_pb2

from ..servers import TRUCO, ProcessServer

ROOT = Path(__file__).resolve().parents[2]
SDK_PLAY = ROOT / "scripts" / "sdk-play"
GEN_SDKS = ROOT / "scripts" / "gen-sdks"
LANGUAGES = ("ts", "go", "java", "kotlin", "python")
FIRST_RUN_SECONDS = 1200.0
"""The first run installs and builds every SDK (npm, Go modules, Maven artifacts) on a clean machine."""
MATCH_SECONDS = 240.0
OVER = views_pb2.PHASE_MATCH_OVER
GAME_LINE = re.compile(r"bot\([\w-]+\): game (games/\S+)")


@dataclass
class BotRun:
    """One ``scripts/sdk-play`` process, its stderr pumped by a thread so a test can wait for a line."""

    lang: str
    process: subprocess.Popen[str]
    stderr: list[str] = field(default_factory=list)
    lines: queue.Queue[str | None] = field(default_factory=queue.Queue)

    @classmethod
    def start(cls, lang: str, address: str, *options: str, env: dict[str, str] | None = None) -> BotRun:
        process = subprocess.Popen(
            [str(SDK_PLAY), lang, address, *options],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        run = cls(lang, process)
        threading.Thread(target=run._pump, name=f"sdk-play-{lang}", daemon=True).start()
        return run

    def _pump(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def game(self, timeout: float) -> str:
        """The game the bot created (from its ``game games/...`` line)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                line = None
            if line is None:
                raise AssertionError(f"{self.lang}: no game line; stderr:\n{''.join(self.stderr)[-4000:]}")
            match = GAME_LINE.search(line)
            if match:
                return match.group(1)

    def result(self, timeout: float) -> tuple[int, dict[str, object]]:
        """The exit status and the one JSON line the bot printed."""
        # Not communicate(): it would read and close stderr under the pumping thread. The one JSON line fits in
        # the stdout pipe's buffer, so waiting first cannot block the bot.
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            tail = "".join(self.stderr)[-4000:]
            raise AssertionError(f"{self.lang}: no result in {timeout} s; stderr:\n{tail}") from None
        assert self.process.stdout is not None
        stdout = self.process.stdout.read()
        lines = [line for line in stdout.splitlines() if line.strip()]
        tail = "".join(self.stderr)[-4000:]
        assert len(lines) == 1, f"{self.lang}: stdout is not one line: {stdout!r}; stderr:\n{tail}"
        return self.process.returncode, json.loads(lines[0])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def built() -> None:
    """Every SDK's bot built first (in parallel; sdk-play takes turns on a lock), so the matches start together."""
    builds = [
        subprocess.Popen([str(SDK_PLAY), lang, "--build-only"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
        for lang in LANGUAGES
    ]
    for lang, build in zip(LANGUAGES, builds, strict=True):
        _, stderr = build.communicate(timeout=FIRST_RUN_SECONDS)
        assert build.returncode == 0, f"{lang} did not build:\n{stderr[-6000:]}"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ProcessServer]:
    """``truco serve`` with its defaults: quotas on, 30 s clocks."""
    running = ProcessServer(f"sqlite:///{tmp_path / 'sdk.db'}", tmp_path, web=True, limits=True)
    yield running
    running.kill()


QUICK_LANGUAGES = ("ts", "go", "java", "kotlin")
"""The SDKs whose example bots play a quick match with --quick (Python's is `truco play --quick`, tested apart)."""
KEY_ID = re.compile(r"API key ([0-9a-f]{12}) ")


def signing_app(store: str, workdir: Path) -> tuple[str, bytes]:
    """An app's API key and an HS256 key it signs player tokens with, registered as an operator does (README:
    "Players, quick match and rankings"): the key's id and the secret."""
    created = subprocess.run(
        [str(TRUCO), "keys", "--store", store, "create", "--name", "sdk players"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    key = KEY_ID.search(created.stdout)
    assert created.returncode == 0 and key, created.stdout + created.stderr
    secret = os.urandom(32).hex().encode()
    (workdir / "player-secret").write_bytes(secret)
    add = [str(TRUCO), "keys", "--store", store, "signing-key", "add", key.group(1), "--kid", "sdk-1"]
    added = subprocess.run(
        [*add, "--hmac-secret-file", str(workdir / "player-secret")], capture_output=True, text=True, timeout=60
    )
    assert added.returncode == 0, added.stdout + added.stderr
    return key.group(1), secret


def player_token(key_id: str, secret: bytes, sub: str) -> str:
    """A player token as an app's backend mints one: HS256, an hour long."""
    now = int(time.time())
    claims = {"iss": key_id, "sub": sub, "name": sub, "aud": "truco", "iat": now, "exp": now + 3600}
    return jwt.encode(claims, secret, algorithm="HS256", headers={"kid": "sdk-1"})


def public_view(address: str, name: str) -> views_pb2.MatchView:
    """The spectator's view of a game (no token)."""
    with grpc.insecure_channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        response = stub.GetGameView(game_service_pb2.GetGameViewRequest(name=name), timeout=20)
        view: views_pb2.MatchView = response.public
        return view


def cards_played_by_seat(address: str, name: str) -> dict[int, int]:
    """How many cards each seat has played so far, read from a spectator's WatchGame up to the current version."""
    until = public_view(address, name).version
    played: dict[int, int] = {}
    if until == 0:
        return played
    with grpc.insecure_channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        request = game_service_pb2.WatchGameRequest(name=name, after_version=0, per_commit=True)
        for message in stub.WatchGame(request, timeout=20):
            for event in message.events:
                if event.HasField("card_played"):
                    played[event.card_played.seat] = played.get(event.card_played.seat, 0) + 1
            if message.events and message.events[-1].version >= until:
                return played
    return played


def assert_finished(lang: str, status: int, result: dict[str, object], players: int) -> None:
    assert result["sdk"] == lang
    assert result["over"] is True, result
    assert result["illegal_reason"] == "CARD_NOT_IN_HAND", result
    assert result["players"] == players, result
    scores = result["scores"]
    assert isinstance(scores, list) and len(scores) == 2 and max(scores) >= 30 > min(scores), result
    assert status == 0, result


def assert_watched_every_event(lang: str, result: dict[str, object], final_version: int) -> list[int]:
    """Seat 0's watch (one message per commit underneath, handed one event at a time) delivered every event from
    where it started to the match's last, in order, each once (señas aside: they keep the version before them)."""
    watched = result["watched"]
    assert isinstance(watched, list) and watched, f"{lang}: no watched events: {result}"
    assert watched == list(range(watched[0], final_version + 1)), f"{lang}: events lost, repeated or out of order"
    return watched


def test_generated_sdk_code_is_what_the_protos_generate() -> None:
    result = subprocess.run(
        [str(GEN_SDKS), "--check"], cwd=ROOT, capture_output=True, text=True, timeout=FIRST_RUN_SECONDS
    )
    assert result.returncode == 0, result.stdout + result.stderr[-6000:]


@pytest.mark.parametrize("lang", ["ts", "go", "java", "kotlin"])
def test_each_sdks_own_unit_tests_pass(built: None, lang: str) -> None:
    result = subprocess.run(
        [str(SDK_PLAY), lang, "--unit-tests"], cwd=ROOT, capture_output=True, text=True, timeout=FIRST_RUN_SECONDS
    )
    assert result.returncode == 0, f"{lang}:\n{result.stdout[-6000:]}\n{result.stderr[-6000:]}"


@pytest.mark.parametrize(
    ("players", "mode"), [(2, "poll"), (2, "watch"), (4, "watch"), (6, "watch"), (2, "session"), (4, "session")]
)
def test_each_sdks_example_finishes_its_match_against_a_default_server(
    built: None, server: ProcessServer, players: int, mode: str
) -> None:
    # The five at once, each its own game on the one server: one app (one address) with up to 15 players. "watch":
    # each seat waits on a WatchGame stream and moves with SubmitCommand; "session": both on one PlayGame stream.
    options = ["--players", str(players), *([f"--{mode}"] if mode != "poll" else [])]
    watch = mode != "poll"
    runs = [BotRun.start(lang, server.address, *options) for lang in LANGUAGES]
    try:
        for run in runs:
            status, result = run.result(FIRST_RUN_SECONDS)
            assert_finished(run.lang, status, result, players=players)
            final = public_view(server.address, str(result["game"]))
            assert final.phase == views_pb2.PHASE_MATCH_OVER
            assert [score.points for score in sorted(final.scores, key=lambda s: s.team)] == result["scores"]
            if watch:
                assert_watched_every_event(run.lang, result, final.version)
    finally:
        for run in runs:
            run.stop()


@pytest.mark.parametrize("mode", ["watch", "session"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_sdk_plays_four_players_from_streams_that_resume_after_a_server_restart(
    built: None, tmp_path: Path, server: ProcessServer, lang: str, mode: str
) -> None:
    # "session": each seat's PlayGame stream resumes, and sends again the command whose outcome it had not heard.
    run = BotRun.start(lang, server.address, "--players", "4", f"--{mode}")
    restarted: ProcessServer | None = None
    try:
        name = run.game(FIRST_RUN_SECONDS)
        deadline = time.monotonic() + MATCH_SECONDS
        # A bot seat makes at most one move before it opens its watch: a second card means its stream is open.
        while min(cards_played_by_seat(server.address, name).get(seat, 0) for seat in (0, 2)) < 2:
            assert time.monotonic() < deadline, "the match did not get going"
            time.sleep(0.01)
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(30)
        restarted = ProcessServer(server.store, tmp_path, port=server.port, limits=True)
        before = public_view(restarted.address, name)
        assert before.phase != OVER, f"the match ended before the restart (version {before.version})"

        status, result = run.result(MATCH_SECONDS)
        assert_finished(lang, status, result, players=4)
        resumes = result["resumes"]
        assert isinstance(resumes, int) and resumes >= 2, f"{lang}: both seats' watches must resume: {result}"
        final = public_view(restarted.address, name)
        assert final.phase == views_pb2.PHASE_MATCH_OVER
        assert final.version > before.version
        # Every event in order across the restart: the watch started before it and resumed to the match's end.
        assert assert_watched_every_event(lang, result, final.version)[0] <= before.version
    finally:
        run.stop()
        if restarted is not None:
            restarted.kill()


@pytest.mark.parametrize("protocol", ["connect", "grpc-web"])
def test_the_typescript_sdk_plays_over_the_browser_protocols_of_the_web_port(
    built: None, server: ProcessServer, protocol: str
) -> None:
    # The browser's path: the same client over a Connect or gRPC-Web transport (HTTP/1.1), watch streams included.
    assert server.web_port is not None
    address = f"127.0.0.1:{server.web_port}"
    run = BotRun.start("ts", address, "--players", "4", "--watch", "--protocol", protocol)
    try:
        status, result = run.result(MATCH_SECONDS)
        assert_finished("ts", status, result, players=4)
        final = public_view(server.address, str(result["game"]))
        assert final.phase == OVER
        assert_watched_every_event("ts", result, final.version)
    finally:
        run.stop()


def test_four_sdks_quick_match_into_one_rated_table_of_four(built: None, tmp_path: Path) -> None:
    """The TypeScript, Go, Java and Kotlin example bots each open a quick-match ticket (--quick) for a table of 4
    with a player token of one app, against a server with its defaults: the matcher seats the four at one game (no
    bot: they only wait for players), each plays its seat to the end (an illegal card refused on the way), and the
    match is rated: each player's GetPlayer shows one match at 4 players."""
    store = f"sqlite:///{tmp_path / 'quick.db'}"
    key_id, secret = signing_app(store, tmp_path)
    running = ProcessServer(store, tmp_path, limits=True)
    subs = {lang: f"{lang}-player" for lang in QUICK_LANGUAGES}
    options = ["--quick", "--players", "4", "--bots-after", "120"]
    runs = [
        BotRun.start(lang, running.address, *options, env={"TRUCO_PLAYER_TOKEN": player_token(key_id, secret, sub)})
        for lang, sub in subs.items()
    ]
    try:
        results = {}
        for run in runs:
            status, result = run.result(FIRST_RUN_SECONDS)
            assert_finished(run.lang, status, result, players=4)
            assert result["quick"] is True, result
            results[run.lang] = result
        assert len({result["game"] for result in results.values()}) == 1, results
        assert sorted(seat for result in results.values() for seat in result["seats"]) == [0, 1, 2, 3], results
        with grpc.insecure_channel(running.address) as channel:
            stub = players_pb2_grpc.PlayerServiceStub(channel)
            for sub in subs.values():
                token = player_token(key_id, secret, sub)
                request = players_pb2.GetPlayerRequest(name="players/me")
                deadline = time.monotonic() + 30
                # The matcher counts a finished game into the ratings within a moment of its end.
                while True:
                    player = stub.GetPlayer(request, metadata=[("x-player-token", token)], timeout=10).player
                    if player.ratings or time.monotonic() > deadline:
                        break
                    time.sleep(0.2)
                assert [(r.players, r.matches) for r in player.ratings] == [(4, 1)], (sub, player)
    finally:
        for run in runs:
            run.stop()
        running.kill()
