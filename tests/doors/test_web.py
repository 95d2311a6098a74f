"""The web port (truco.server.doors.web) of a real ``truco serve``: the README's curl examples run as written; Connect
(JSON and binary, unary and server streaming), gRPC-Web and gRPC over HTTP/1.1 and HTTP/2 through the
``connectrpc`` clients; ErrorInfo reasons, CORS, limits, per-protocol metrics and log lines; the web table's
files at ``/``."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from google.rpc import error_details_pb2
from prometheus_client.parser import text_string_to_metric_families
from pyqwest import Client, HTTPTransport, HTTPVersion

from truco_client.v1 import cards_pb2, commands_pb2, game_service_pb2, rules_pb2, rules_service_pb2, views_pb2

from ..connect_client import game_service_client, rules_service_client

ROOT = Path(__file__).resolve().parents[2]
TRUCO = ROOT / ".venv" / "bin" / "truco"
FIRST_LINE = re.compile(
    r"^truco serve: listening on port (\d+) .*metrics on http://localhost:(\d+)/metrics.*http://localhost:(\d+)/"
)
ORIGIN = "http://table.example"
PROTOCOLS = {"connect": ProtocolType.CONNECT, "grpc-web": ProtocolType.GRPC_WEB, "grpc": ProtocolType.GRPC}


@dataclass
class WebServer:
    process: subprocess.Popen[str]
    grpc_port: int
    metrics_port: int
    web_port: int
    stderr: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def log_lines(self) -> list[dict[str, Any]]:
        lines = []
        for line in self.stderr.read_text().splitlines():
            with_brace = line.strip()
            if with_brace.startswith("{"):
                lines.append(json.loads(with_brace))
        return lines


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    work = tmp_path_factory.mktemp("web")
    assets = work / "assets"
    assets.mkdir()
    (assets / "index.html").write_text("<!doctype html><title>truco table</title>")
    stderr = work / "serve.stderr"
    command = [
        str(TRUCO), "serve", "--store", f"sqlite:///{work / 'web.db'}", "--host", "127.0.0.1", "--port", "0",
        "--metrics-port", "0", "--web-port", "0", "--web-assets", str(assets), "--cors-origin", ORIGIN,
        "--grace", "1",
    ]  # fmt: skip
    with stderr.open("wb") as err:
        process = subprocess.Popen(command, cwd=work, stdout=subprocess.PIPE, stderr=err, text=True)
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    out = process.stdout
    threading.Thread(target=lambda: [lines.put(line) for line in out], daemon=True).start()
    try:
        first = lines.get(timeout=60)
    except queue.Empty:
        first = ""
    match = FIRST_LINE.match(first)
    if match is None:
        process.kill()
        raise RuntimeError(f"truco serve did not start: {first!r}\n{stderr.read_text()}")
    ports = [int(group) for group in match.groups()]
    yield WebServer(process, ports[0], ports[1], ports[2], stderr)
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


def _post(url: str, body: bytes, headers: dict[str, str], method: str = "POST") -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=body if method == "POST" else None, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def _reason(error: ConnectError) -> str:
    for detail in error.details:
        if detail.type_name == "google.rpc.ErrorInfo":
            return error_details_pb2.ErrorInfo.FromString(detail.message_bytes).reason
    raise AssertionError(f"no ErrorInfo in {error!r}")


def _client(url: str, http: HTTPVersion) -> Client:
    return Client(HTTPTransport(http_version=http))


def _card(rank: int, suit: int) -> cards_pb2.Card:
    return cards_pb2.Card(rank=rank, suit=suit)


# --- The README's curl examples ----------------------------------------------------------------------------------


def test_readme_curl_examples_run_as_written(server: WebServer, tmp_path: Path) -> None:
    if shutil.which("curl") is None:
        if os.environ.get("CI") == "true":
            raise AssertionError("curl is needed for the README examples")
        pytest.skip("curl is not installed")
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- curl-examples[^>]*-->\n```sh\n(.*?)```\n<!-- /curl-examples -->", readme, re.DOTALL)
    assert block is not None, "README.md lost its curl-examples block"
    script = block.group(1)
    assert script.count("curl ") == 4
    script = script.replace("localhost:8080", f"127.0.0.1:{server.web_port}")
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    # The first reply is EvaluateHand's (as `truco eval --muestra 1o 2o 7e 3c`), the last ListLegalActions'.
    decoder = json.JSONDecoder()
    evaluated, end = decoder.raw_decode(result.stdout)
    assert evaluated == {"envido": 37, "strength": [19, 12, 10], "piezas": [True, False, False]}
    actions = json.loads(result.stdout[end:])
    assert int(actions["version"]) > 0 and actions["actions"], actions  # int64: a JSON string
    assert all(len(action) == 1 for action in actions["actions"])  # each is one command of the oneof
    game = json.loads((tmp_path / "game.json").read_text())["game"]
    assert game["name"].startswith("games/") and game["rules"]["players"] == 2
    seat = json.loads((tmp_path / "seat.json").read_text())
    assert seat.get("seat", 0) == 0 and len(seat["view"]["cards"]) == 3


# --- Every protocol, over HTTP/1.1 and HTTP/2 -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("protocol", "http", "codec"),
    [
        ("connect", HTTPVersion.HTTP1, "json"),
        ("connect", HTTPVersion.HTTP1, "proto"),
        ("connect", HTTPVersion.HTTP2, "proto"),
        ("grpc-web", HTTPVersion.HTTP1, "proto"),
        ("grpc-web", HTTPVersion.HTTP2, "json"),
        ("grpc", HTTPVersion.HTTP2, "proto"),
    ],
)
async def test_a_game_over_each_protocol(server: WebServer, protocol: str, http: HTTPVersion, codec: str) -> None:
    """Create, join, watch (server streaming) and a refused and an accepted move, over one protocol."""
    options: dict[str, Any] = {
        "protocol": PROTOCOLS[protocol],
        "codec": google_protobuf_json_codec() if codec == "json" else google_protobuf_binary_codec(),
        "http_client": _client(server.url, http),
        "timeout_ms": 20_000,
    }
    await _assert_a_hand_evaluated(server.url, options)

    games = game_service_client(server.url, **options)
    created = await games.create_game(
        game_service_pb2.CreateGameRequest(
            rules=rules_pb2.RuleSet(players=2, target=15),
            bots=[game_service_pb2.BotSeat(seat=1, kind=game_service_pb2.BOT_KIND_RANDOM)],
        )
    )
    name = created.game.name
    joined = await games.join_game(game_service_pb2.JoinGameRequest(name=name, seat=0, player_name="web"))
    auth = {"authorization": f"Bearer {joined.seat_token}"}
    view = joined.view
    assert len(view.cards) == 3

    # A card that is not in the hand is refused with the engine's reason, on every protocol.
    refused = await _refusal(
        games, name, commands_pb2.Command(play_card=commands_pb2.PlayCard(card=_card_not_held(view))), auth
    )
    assert refused.code is Code.FAILED_PRECONDITION
    assert _reason(refused) in {"CARD_NOT_IN_HAND", "NOT_YOUR_TURN"}

    # No token: UNAUTHENTICATED with TOKEN_MISSING, as on the gRPC port.
    with pytest.raises(ConnectError) as anonymous:
        await games.list_legal_actions(game_service_pb2.ListLegalActionsRequest(name=name))
    assert anonymous.value.code is Code.UNAUTHENTICATED and _reason(anonymous.value) == "TOKEN_MISSING"

    legal = await games.list_legal_actions(game_service_pb2.ListLegalActionsRequest(name=name), headers=auth)
    assert legal.actions
    moved = await games.submit_command(
        game_service_pb2.SubmitCommandRequest(
            name=name, command=legal.actions[0], expected_version=legal.version, request_id="m1"
        ),
        headers=auth,
    )
    assert moved.version > legal.version

    # WatchGame streams every event from the start with this seat's view; a resumed watch starts after it.
    await _assert_watched_and_resumed(games, name, auth)


async def _assert_a_hand_evaluated(url: str, options: dict[str, Any]) -> None:
    """EvaluateHand of the rules service answers, on these options' protocol."""
    rules = rules_service_client(url, **options)
    evaluated = await rules.evaluate_hand(
        rules_service_pb2.EvaluateHandRequest(
            muestra=_card(1, cards_pb2.SUIT_ORO),
            cards=[_card(2, cards_pb2.SUIT_ORO), _card(7, cards_pb2.SUIT_ESPADA), _card(3, cards_pb2.SUIT_COPA)],
        )
    )
    assert evaluated.envido == 37 and list(evaluated.strength) == [19, 12, 10]


async def _refusal(games: Any, name: str, command: commands_pb2.Command, auth: dict[str, str]) -> ConnectError:
    """The error SubmitCommand answers ``command`` with (the test fails if it is accepted)."""
    with pytest.raises(ConnectError) as refused:
        await games.submit_command(game_service_pb2.SubmitCommandRequest(name=name, command=command), headers=auth)
    return refused.value


def _card_not_held(view: views_pb2.SeatView) -> cards_pb2.Card:
    """A card neither in the seat's hand nor the muestra."""
    muestra = view.public.hand.muestra
    held = {(c.rank, c.suit) for c in view.cards} | {(muestra.rank, muestra.suit)}
    return next(
        _card(rank, suit)
        for rank in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
        for suit in (cards_pb2.SUIT_ESPADA, cards_pb2.SUIT_BASTO, cards_pb2.SUIT_ORO, cards_pb2.SUIT_COPA)
        if (rank, suit) not in held
    )


async def _assert_watched_and_resumed(games: Any, name: str, auth: dict[str, str]) -> None:
    """WatchGame streams the events in order with this seat's view; one resumed after the second starts after it."""
    watched = await asyncio.wait_for(
        _first(games.watch_game(game_service_pb2.WatchGameRequest(name=name), headers=auth), 3), 20
    )
    assert [w.event.version for w in watched] == sorted(w.event.version for w in watched)
    assert all(len(w.seat.cards) <= 3 for w in watched) and watched[0].HasField("public")
    resumed = await asyncio.wait_for(
        _first(
            games.watch_game(
                game_service_pb2.WatchGameRequest(name=name, after_version=watched[1].event.version), headers=auth
            ),
            1,
        ),
        20,
    )
    assert resumed[0].event.version > watched[1].event.version


async def _first(stream: AsyncIterator[game_service_pb2.WatchGameResponse], count: int) -> list[Any]:
    """The first ``count`` items of a watch."""
    got = []
    async for item in stream:
        got.append(item)
        if len(got) == count:
            break
    return got


def test_grpc_web_error_details_reach_the_browser(server: WebServer) -> None:
    """A gRPC-Web error ends the body with a trailer frame (grpc-status, grpc-status-details-bin with the
    ErrorInfo), readable by a page from an allowed origin (CORS headers on the reply)."""
    payload = game_service_pb2.GetGameViewRequest(name="games/nosuchgame").SerializeToString()
    body = b"\x00" + len(payload).to_bytes(4, "big") + payload  # the test's own request: one gRPC-Web frame
    status, headers, reply = _post(
        f"{server.url}/truco.v1.GameService/GetGameView",
        body,
        {"content-type": "application/grpc-web+proto", "x-grpc-web": "1", "origin": ORIGIN},
    )
    assert status == 200 and headers["access-control-allow-origin"] == ORIGIN
    assert "grpc-status-details-bin" in headers["access-control-expose-headers"]
    assert reply[0] == 0x80, reply[:16]  # the trailer frame: flag, length, then header lines
    length = int.from_bytes(reply[1:5], "big")
    lines = reply[5 : 5 + length].decode().strip().split("\r\n")
    trailers = dict(line.split(":", 1) for line in lines)
    trailers = {key.strip().lower(): value.strip() for key, value in trailers.items()}
    assert trailers["grpc-status"] == "5"  # NOT_FOUND
    from google.rpc import status_pb2

    raw = trailers["grpc-status-details-bin"]
    details = status_pb2.Status.FromString(base64.b64decode(raw + "=" * (-len(raw) % 4)))
    info = error_details_pb2.ErrorInfo.FromString(details.details[0].value)
    assert (info.reason, info.domain) == ("GAME_NOT_FOUND", "truco.v1")


def test_cors_preflight_allows_configured_origins_only(server: WebServer) -> None:
    url = f"{server.url}/truco.v1.GameService/SubmitCommand"
    # What the web table sends: the seat token, the API key, and the game's name for balancers' game affinity.
    sent = "content-type,authorization,x-api-key,x-truco-game"
    ask = {"access-control-request-method": "POST", "access-control-request-headers": sent}
    status, headers, _ = _post(url, b"", {**ask, "origin": ORIGIN}, method="OPTIONS")
    assert status == 200 and headers["access-control-allow-origin"] == ORIGIN
    allowed = headers["access-control-allow-headers"].lower()
    assert all(header in allowed for header in sent.split(",")), allowed
    status, headers, _ = _post(url, b"", {**ask, "origin": "http://elsewhere.example"}, method="OPTIONS")
    assert status == 400 and "access-control-allow-origin" not in headers


def test_limits_and_malformed_requests(server: WebServer) -> None:
    url = f"{server.url}/truco.v1.RulesService/EvaluateHand"
    status, _, body = _post(url, b"{" + b" " * (70 * 1024) + b"}", {"content-type": "application/json"})
    assert status == 429 and json.loads(body)["code"] == "resource_exhausted"  # over the 64 KiB request limit
    status, _, body = _post(url, b"\xff\xff\xff", {"content-type": "application/proto"})
    error = json.loads(body)
    assert status == 400 and error["code"] == "invalid_argument"
    info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(error["details"][0]["value"] + "=="))
    assert info.reason == "MALFORMED_REQUEST"


def test_metrics_and_logs_name_the_protocol(server: WebServer) -> None:
    url = f"{server.url}/truco.v1.RulesService/CompareCards"
    body = json.dumps(
        {"muestra": {"rank": 1, "suit": "SUIT_ORO"}, "first": {"rank": 1, "suit": "SUIT_ESPADA"},
         "second": {"rank": 4, "suit": "SUIT_COPA"}}
    ).encode()  # fmt: skip
    assert _post(url, body, {"content-type": "application/json"})[0] == 200
    with urllib.request.urlopen(f"http://127.0.0.1:{server.metrics_port}/metrics", timeout=10) as response:
        text = response.read().decode()
    wanted = {"grpc_method": "CompareCards", "grpc_code": "OK"}
    counted = {
        sample.labels["protocol"]: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "grpc_server_handled_total" and wanted.items() <= sample.labels.items()
    }
    assert counted.get("connect", 0) >= 1 and "grpc" not in counted  # no CompareCards came through the gRPC port
    logged = [
        entry
        for entry in server.log_lines()
        if entry.get("event") == "rpc" and entry.get("method") == "truco.v1.RulesService/CompareCards"
    ]
    assert logged and logged[-1]["protocol"] == "connect" and logged[-1]["code"] == "OK"


def test_the_web_table_is_served_at_the_root(server: WebServer) -> None:
    status, headers, body = _post(f"{server.url}/", b"", {}, method="GET")
    assert status == 200 and headers["content-type"].startswith("text/html") and b"truco table" in body
    assert _post(f"{server.url}/nothing-here.js", b"", {}, method="GET")[0] == 404


def test_every_web_response_carries_the_security_headers(server: WebServer) -> None:
    """Seat tokens and the API key live in the page's storage: only the table's own scripts may run there, and
    no other site may frame it, on every response (the page, a 404, an RPC's answer or error)."""
    evaluate = f"{server.url}/truco.v1.RulesService/EvaluateHand"
    answers = [
        _post(f"{server.url}/", b"", {}, method="GET"),
        _post(f"{server.url}/nothing-here.js", b"", {}, method="GET"),
        _post(evaluate, b"{}", {"content-type": "application/json"}),
        _post(evaluate, b"\xff", {"content-type": "application/proto"}),
    ]
    for _, headers, _ in answers:
        policy = dict(item.strip().split(" ", 1) for item in headers["content-security-policy"].split(";"))
        assert policy["script-src"] == "'self'" and policy["frame-ancestors"] == "'none'"
        assert policy["object-src"] == "'none'" and policy["base-uri"] == "'none'"
        assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "no-referrer"


async def test_a_sena_sent_during_a_watch_reaches_the_partner_live(server: WebServer) -> None:
    """A seña keeps the public version, yet one sent while the partner's watch runs is streamed at once (not
    only with the next move); a spectator's watch never carries it."""
    options: dict[str, Any] = {"http_client": _client(server.url, HTTPVersion.HTTP1), "timeout_ms": 20_000}
    games = game_service_client(server.url, **options)
    bots = [game_service_pb2.BotSeat(seat=s, kind=game_service_pb2.BOT_KIND_RANDOM) for s in (1, 3)]
    created = await games.create_game(game_service_pb2.CreateGameRequest(rules=rules_pb2.RuleSet(players=4), bots=bots))
    name = created.game.name
    host = await games.join_game(game_service_pb2.JoinGameRequest(name=name, seat=0))
    partner = await games.join_game(game_service_pb2.JoinGameRequest(name=name, seat=2))
    version = partner.view.public.version  # the partner's join filled the table: the hand is dealt
    host_auth = {"authorization": f"Bearer {host.seat_token}"}
    host_view = (await games.get_game_view(game_service_pb2.GetGameViewRequest(name=name), headers=host_auth)).seat

    async def first_event(token: str | None) -> Any:
        headers = {"authorization": f"Bearer {token}"} if token else None
        stream = games.watch_game(game_service_pb2.WatchGameRequest(name=name, after_version=version), headers=headers)
        async for item in stream:
            return item
        return None

    partner_watch = asyncio.create_task(first_event(partner.seat_token))
    spectator_watch = asyncio.create_task(first_event(None))
    await asyncio.sleep(0.5)  # both watches are open and caught up (nothing after `version` yet)
    assert not partner_watch.done() and not spectator_watch.done()
    signal = next(a for a in host_view.legal_actions if a.HasField("send_sena"))
    await games.submit_command(
        game_service_pb2.SubmitCommandRequest(name=name, command=signal),
        headers={"authorization": f"Bearer {host.seat_token}"},
    )
    got = await asyncio.wait_for(partner_watch, 10)
    assert got.event.WhichOneof("kind") == "sena_sent" and got.event.sena_sent.seat == 0
    assert got.event.sena_sent.sena == signal.send_sena.sena
    assert [s.sena for s in got.seat.senas] == [signal.send_sena.sena]
    await asyncio.sleep(0.5)
    assert not spectator_watch.done()  # the spectator was sent nothing
    spectator_watch.cancel()
