"""The web table's own players (issue 36, item 4): ``POST /table/player-token`` on the web port of a server with
its default quotas mints a player token for a new random player and a credential that brings the same player back,
refuses a forged credential and a caller-chosen id, limits new players per address, rotates with the table app's
signing keys, and its tokens act only in the table app's games, where two of them are matched into a rated game."""

from __future__ import annotations

import asyncio
import io
import json
import re
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import jwt
import pytest

from truco.server.core.keys import create_key, now
from truco.server.core.quotas import Limits
from truco.server.core.table_players import TABLE_APP_ID, TablePlayers
from truco.server.service.pipeline import request_fields
from truco.server.service.table_players import TableRequest
from truco.server.store.sqlite import SQLiteStore
from truco_client.v1 import game_service_pb2, players_pb2, players_pb2_grpc

from ..players import Player, fails, new_id, rule_set
from ..servers import InProcessServer, LoopThread, wait_until
from .test_players import Finder, find, play_matched

TIMEOUT = 20.0
PATH = "/table/player-token"


def table_server(loop: LoopThread, tmp_path: Path, limits: Limits) -> InProcessServer:
    """A server serving a web table (any folder of assets will do)."""
    assets = tmp_path / "assets"
    assets.mkdir()
    (assets / "index.html").write_text("<!doctype html><title>truco</title>")
    store = f"sqlite:///{tmp_path / 'table.db'}"
    return InProcessServer(loop, store, limits=limits, web=True, web_assets=str(assets))


@pytest.fixture
def server(loop: LoopThread, tmp_path: Path) -> Iterator[InProcessServer]:
    """With the default quotas."""
    running = table_server(loop, tmp_path, Limits())
    yield running
    running.stop()


@pytest.fixture
def fast_server(loop: LoopThread, tmp_path: Path) -> Iterator[InProcessServer]:
    """With the default quotas but a player's own call rate: the test plays a whole match at machine speed."""
    running = table_server(loop, tmp_path, Limits(player_calls_per_second=0, player_burst=0))
    yield running
    running.stop()


def post(
    server: InProcessServer, body: object, headers: dict[str, str] | None = None, method: str = "POST"
) -> tuple[int, Any, Any]:
    """The status, JSON answer (None: not JSON) and headers of a request to the table's token endpoint."""
    assert server.server.web is not None
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.server.web.port}{PATH}",
        data=data if method == "POST" else None,
        headers={"content-type": "application/json", **(headers or {})},
        method=method,
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, json.loads(response.read()), response.headers
    except urllib.error.HTTPError as error:
        text = error.read()
        return error.code, json.loads(text) if text.startswith(b"{") else None, error.headers


def reason(answer: dict[str, Any]) -> str:
    return str(answer["details"][0]["debug"]["reason"])


def leaderboard(server: InProcessServer, token: str, api_key: str | None = None) -> players_pb2.ListLeaderboardResponse:
    metadata = [("x-player-token", token), *([("x-api-key", api_key)] if api_key else [])]
    with grpc.insecure_channel(server.address) as channel:
        stub = players_pb2_grpc.PlayerServiceStub(channel)
        request = players_pb2.ListLeaderboardRequest(players=2)
        reply: players_pb2.ListLeaderboardResponse = stub.ListLeaderboard(request, metadata=metadata, timeout=TIMEOUT)
        return reply


def test_a_new_player_comes_back_with_its_credential(server: InProcessServer) -> None:
    status, first, headers = post(server, {"name": "Ana"})
    assert status == 200, first
    assert headers["cache-control"] == "no-store"
    claims = jwt.decode(first["token"], options={"verify_signature": False})
    header = jwt.get_unverified_header(first["token"])
    assert claims["iss"] == TABLE_APP_ID and claims["aud"] == "truco" and claims["name"] == "Ana"
    assert claims["exp"] - claims["iat"] == 3600 and claims["exp"] == first["expiresAt"]
    assert header == {"alg": "HS256", "typ": "JWT", "kid": "table-1"}
    assert first["player"] == f"players/{claims['sub']}" and claims["sub"].startswith("t-")
    assert leaderboard(server, first["token"]).total == 0  # the service verifies what it minted

    # The credential brings the same player back, under the name it asks for now; a new mint is someone else.
    status, again, _ = post(server, {"name": "Ana María", "credential": first["credential"]})
    assert status == 200 and again["player"] == first["player"] and again["name"] == "Ana María"
    assert again["credential"] == first["credential"]
    status, other, _ = post(server, {})
    assert status == 200 and other["player"] not in (first["player"], again["player"])
    assert other["name"] == other["player"].removeprefix("players/")  # no name given: the ranking shows its id
    assert "name" not in jwt.decode(other["token"], options={"verify_signature": False})

    # Never a player the caller names, nor a name the table cannot show.
    status, answer, _ = post(server, {"name": "Ana", "player": "players/ana"})
    assert (status, reason(answer)) == (400, "MALFORMED_REQUEST")
    status, answer, _ = post(server, {"name": "x" * 65})
    assert (status, answer["code"], reason(answer)) == (400, "invalid_argument", "INVALID_PLAYER_NAME")
    status, answer, _ = post(server, b"name=Ana", {"content-type": "application/x-www-form-urlencoded"})
    assert (status, reason(answer)) == (400, "MALFORMED_REQUEST")


def test_the_readme_example_mints_and_renews_as_written(server: InProcessServer, tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = re.search(r"<!-- table-token-example[^>]*-->\n```sh\n(.*?)```\n<!-- /table-token-example -->", readme, re.S)
    assert block is not None, "README.md lost its table-token-example block"
    assert server.server.web is not None
    script = block.group(1).replace("localhost:8080", f"127.0.0.1:{server.server.web.port}")
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    decoder = json.JSONDecoder()
    first, end = decoder.raw_decode(done.stdout)
    second = json.loads(done.stdout[end:])
    assert first["name"] == second["name"] == "Ana" and first["player"] == second["player"]


def test_a_forged_credential_is_refused_and_mints_nothing(server: InProcessServer) -> None:
    status, minted, _ = post(server, {"name": "Ana"})
    assert status == 200
    player, _, mac = minted["credential"].partition(".")
    forged = {
        "another player's id under this mac": f"t-{'A' * 22}.{mac}",
        "an altered mac": f"{player}.{mac[:-2]}{'AA' if not mac.endswith('AA') else 'BB'}",
        "no mac": player,
        "a caller-chosen id": "alice.c2lnbmVk",
        "another server's": "t-" + "B" * 22 + "." + "C" * 43,
    }
    for what, credential in forged.items():
        status, answer, _ = post(server, {"name": "Mallory", "credential": credential})
        assert (status, answer["code"], reason(answer)) == (401, "unauthenticated", "TABLE_CREDENTIAL_INVALID"), what
        assert "token" not in answer


def test_new_players_are_limited_per_address_but_a_known_one_renews(server: InProcessServer) -> None:
    status, kept, _ = post(server, {"name": "Ana"})
    assert status == 200
    limit = Limits().table_players_per_minute
    answers = [post(server, {}) for _ in range(int(limit) + 1)]
    refused = [(status, answer, headers) for status, answer, headers in answers if status != 200]
    assert refused, "a burst past the quota is refused"
    status, answer, headers = refused[0]
    assert (status, answer["code"], reason(answer)) == (429, "resource_exhausted", "QUOTA_EXCEEDED")
    assert answer["details"][0]["debug"]["metadata"]["quota"] == "table_players_per_minute"
    assert int(headers["retry-after"]) >= 1
    assert sum(status == 200 for status, _, _ in answers) + 1 <= limit
    # The player this browser already is still gets its next token: renewing is charged only the call rate.
    status, again, _ = post(server, {"name": "Ana", "credential": kept["credential"]})
    assert status == 200 and again["player"] == kept["player"]


def test_the_table_keys_rotate_and_its_players_stay(loop: LoopThread, server: InProcessServer) -> None:
    status, first, _ = post(server, {"name": "Ana"})
    assert status == 200
    store = server.server.store
    loop.run(store.revoke_signing_key(TABLE_APP_ID, "table-1", now()))
    status, second, _ = post(server, {"name": "Ana", "credential": first["credential"]})
    assert status == 200 and second["player"] == first["player"]
    assert jwt.get_unverified_header(second["token"])["kid"] == "table-2"  # none active: the next one is added
    assert leaderboard(server, second["token"]).total == 0

    def refused() -> bool:  # the revoked key's tokens, within the keys' cache time (5 s)
        try:
            leaderboard(server, first["token"])
        except grpc.RpcError:
            return True
        return False

    assert wait_until(refused, 10)
    assert fails(lambda: leaderboard(server, first["token"])).reason == "PLAYER_TOKEN_KEY_REVOKED"
    # An operator's own key (truco keys signing-key add) is the newest: mints sign with it from then on.
    loop.run(store.add_signing_key(_record("ops-2027", b"o" * 40)))
    status, third, _ = post(server, {"credential": first["credential"]})
    assert jwt.get_unverified_header(third["token"])["kid"] == "ops-2027" and third["player"] == first["player"]
    # Revoking the table's app turns its players off.
    loop.run(store.revoke_api_key(TABLE_APP_ID, now()))
    status, answer, _ = post(server, {"credential": first["credential"]})
    assert (status, reason(answer)) == (401, "API_KEY_REVOKED")


def _record(kid: str, secret: bytes) -> Any:
    from truco.server.store.records import SigningKeyRecord

    return SigningKeyRecord(TABLE_APP_ID, kid, "HS256", secret, now())


def test_table_tokens_act_only_in_the_table_apps_games(loop: LoopThread, server: InProcessServer) -> None:
    status, minted, _ = post(server, {"name": "Ana"})
    assert status == 200
    _, key = loop.run(create_key(server.server.store, "another app"))
    with_key = fails(lambda: leaderboard(server, minted["token"], key))
    assert with_key.kind == (grpc.StatusCode.PERMISSION_DENIED, "PLAYER_TOKEN_WRONG_APP")
    owner = Player(server.address)
    try:
        created = owner.games.CreateGame(
            game_service_pb2.CreateGameRequest(rules=rule_set(2), public=True),
            metadata=(("x-api-key", key),),
            timeout=TIMEOUT,
        )
        join = game_service_pb2.JoinGameRequest(name=created.game.name, request_id=new_id())
        metadata = (("x-player-token", minted["token"]),)
        outsider = fails(lambda: owner.games.JoinGame(join, metadata=metadata, timeout=TIMEOUT))
        assert outsider.kind == (grpc.StatusCode.PERMISSION_DENIED, "PLAYER_TOKEN_WRONG_APP")
    finally:
        owner.close()


def test_two_table_players_are_matched_into_one_rated_game(loop: LoopThread, fast_server: InProcessServer) -> None:
    server = fast_server
    minted = [post(server, {"name": name})[1] for name in ("Ana", "Beto")]
    finders = [Finder(server, each["token"], find(rule_set(2, target=15))) for each in minted]
    try:
        replies = [finder.matched() for finder in finders]
    finally:
        for finder in finders:
            finder.close()
    assert replies[0].game == replies[1].game
    name = play_matched(server, replies)
    subs = [each["player"].removeprefix("players/") for each in minted]
    store = server.server.store

    def ratings() -> list[Any]:
        return [loop.run(store.rating(TABLE_APP_ID, 2, sub)) for sub in subs]

    assert wait_until(lambda: all(r is not None for r in ratings()), 15)
    assert [r.matches for r in ratings()] == [1, 1]
    # Back with its credential (a later visit), the player finds its rated match in its history.
    status, back, _ = post(server, {"name": "Ana", "credential": minted[0]["credential"]})
    assert status == 200
    with grpc.insecure_channel(server.address) as channel:
        stub = players_pb2_grpc.PlayerServiceStub(channel)
        request = players_pb2.ListPlayerMatchesRequest(name="players/me")
        history = stub.ListPlayerMatches(request, metadata=(("x-player-token", back["token"]),), timeout=TIMEOUT)
    assert [match.game for match in history.matches] == [name] and history.matches[0].rated


def test_only_a_server_serving_the_table_mints_and_only_on_post(loop: LoopThread, tmp_path: Path) -> None:
    bare = InProcessServer(loop, f"sqlite:///{tmp_path / 'bare.db'}", web=True, web_assets=str(tmp_path / "none"))
    try:
        assert post(bare, {"name": "Ana"})[:2] == (404, None)
        assert loop.run(bare.server.store.api_key_by_id(TABLE_APP_ID)) is None  # nothing was created
    finally:
        bare.stop()
    served = table_server(loop, tmp_path, Limits())
    try:
        status, _, headers = post(served, b"", method="GET")
        assert (status, headers["allow"]) == (405, "POST")
    finally:
        served.stop()


def test_replicas_behind_a_balancer_mint_and_verify_alike(loop: LoopThread, postgres_url: str, tmp_path: Path) -> None:
    """Two replicas on one PostgreSQL, each minting its first player at once: one table app and one key between
    them, and a player minted by one is renewed and served by the other."""
    from concurrent.futures import ThreadPoolExecutor

    from ..servers import Stores

    url = Stores("postgres", tmp_path, postgres_url).new_url()
    assets = tmp_path / "assets"
    assets.mkdir()
    (assets / "index.html").write_text("<!doctype html><title>truco</title>")
    replicas = [InProcessServer(loop, url, limits=Limits(), web=True, web_assets=str(assets)) for _ in range(2)]
    try:
        with ThreadPoolExecutor(2) as pool:
            minted = list(pool.map(lambda replica: post(replica, {"name": "Ana"}), replicas))
        assert [status for status, _, _ in minted] == [200, 200]
        keys = loop.run(replicas[0].server.store.signing_keys(TABLE_APP_ID))
        assert [key.kid for key in keys] == ["table-1"]
        first = minted[0][1]
        status, renewed, _ = post(replicas[1], {"name": "Ana", "credential": first["credential"]})
        assert status == 200 and renewed["player"] == first["player"]
        assert leaderboard(replicas[1], first["token"]).total == 0
        assert leaderboard(replicas[0], renewed["token"]).total == 0
    finally:
        for replica in replicas:
            replica.stop()


def test_replicas_on_one_store_create_the_table_app_once(tmp_path: Path) -> None:
    async def race() -> None:
        store = await SQLiteStore.open(str(tmp_path / "race.db"))
        try:
            replicas = [TablePlayers(store) for _ in range(4)]
            apps = await asyncio.gather(*(replica.app() for replica in replicas))
            keys = await asyncio.gather(*(replica.signing_key() for replica in replicas))
            assert len({app.secret_hash for app in apps}) == 1
            assert {key.kid for key in keys} == {"table-1"} and len({key.key for key in keys}) == 1
            assert len(await store.signing_keys(TABLE_APP_ID)) == 1
            minted = await replicas[0].mint("Ana", None)
            assert (await replicas[3].mint("", minted.credential)).player.sub == minted.player.sub
        finally:
            await store.close()

    asyncio.run(race())


def test_the_log_lines_of_mints_carry_no_token_credential_or_name(
    server: InProcessServer, captured_log: io.StringIO
) -> None:
    status, first, _ = post(server, {"name": "Zacarías"})
    status, again, _ = post(server, {"name": "Zacarías", "credential": first["credential"]})
    forged, _, _ = post(server, {"name": "Zacarías", "credential": first["credential"][:-4] + "AAAA"})
    assert (status, forged) == (200, 401)
    logged = captured_log.getvalue()
    assert logged.count("truco.web.Table/NewTablePlayer") == 1 and logged.count("RenewTablePlayer") == 2
    mac = first["credential"].partition(".")[2]
    for secret in (first["token"], again["token"], mac, "Zacar"):
        assert secret not in logged
    assert request_fields(TableRequest("Ana", "t-secret.mac")) == {}
