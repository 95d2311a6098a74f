"""Players an app vouches for (issue 36), through a real server: player tokens and each reason one is refused
for, seats that belong to players, quick match (one ticket per player, parties on one team, a ticket that dies
with its stream), ratings counted once and rebuilt alike, leaderboards and histories."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from truco.server.core.keys import create_key, now
from truco.server.core.player_tokens import add_signing_key
from truco.server.store.records import TICKET_CANCELLED, RatingRecord
from truco_client.v1 import game_service_pb2, players_pb2, players_pb2_grpc

from ..players import Player, Table, fails, new_id, rule_set
from ..random_play import play_to_end
from ..servers import InProcessServer, LoopThread, wait_until

TIMEOUT = 20.0
SECRET = b"s" * 40


@pytest.fixture
def server(loop: LoopThread, tmp_path: Path) -> Iterator[InProcessServer]:
    running = InProcessServer(loop, f"sqlite:///{tmp_path / 'players.db'}")
    yield running
    running.stop()


class App:
    """An app of the server: its API key, and an HS256 signing key its backend mints player tokens with."""

    def __init__(self, loop: LoopThread, server: InProcessServer, kid: str = "k1") -> None:
        record, self.key = loop.run(create_key(server.server.store, f"app {new_id()[:6]}"))
        self.id = record.key_id
        self.kid = kid
        loop.run(add_signing_key(server.server.store, self.id, kid, "HS256", SECRET))

    def token(self, sub: str | None, *, key: Any = SECRET, algorithm: str = "HS256", **claims: Any) -> str:
        moment = int(time.time())
        body = {
            "iss": self.id,
            "sub": sub,
            "name": (sub or "").title(),
            "aud": "truco",
            "iat": moment,
            "exp": moment + 600,
        }
        body.update(claims)
        headers = {"kid": claims.pop("kid", None) or self.kid}
        return jwt.encode({k: v for k, v in body.items() if v is not None and k != "kid"}, key, algorithm, headers)


def player_stub(server: InProcessServer) -> tuple[grpc.Channel, players_pb2_grpc.PlayerServiceStub]:
    channel = grpc.insecure_channel(server.address)
    return channel, players_pb2_grpc.PlayerServiceStub(channel)


def as_player(token: str, api_key: str | None = None) -> tuple[tuple[str, str], ...]:
    return (("x-player-token", token), *((("x-api-key", api_key),) if api_key else ()))


def leaderboard(stub: players_pb2_grpc.PlayerServiceStub, metadata: Any, **fields: Any) -> Any:
    request = players_pb2.ListLeaderboardRequest(players=2, **fields)
    return stub.ListLeaderboard(request, metadata=metadata, timeout=TIMEOUT)


def test_each_refused_player_token_names_its_reason(loop: LoopThread, server: InProcessServer) -> None:
    app, other = App(loop, server), App(loop, server)
    channel, stub = player_stub(server)
    try:
        assert leaderboard(stub, as_player(app.token("alice"))).total == 0  # a valid token is served
        moment = int(time.time())
        refused = {
            "PLAYER_TOKEN_EXPIRED": app.token("alice", iat=moment - 7200, exp=moment - 3600),
            "PLAYER_TOKEN_NOT_YET_VALID": app.token("alice", nbf=moment + 3600),
            "PLAYER_TOKEN_WRONG_AUDIENCE": app.token("alice", aud="another-service"),
            "PLAYER_TOKEN_UNKNOWN_KEY": app.token("alice", kid="k9"),
            "PLAYER_TOKEN_BAD_SIGNATURE": app.token("alice", key=b"x" * 40),
            "PLAYER_TOKEN_TOO_LONG_LIVED": app.token("alice", exp=moment + 3 * 86400),
            "PLAYER_TOKEN_MALFORMED": "not.a.jwt",
        }
        for reason, token in refused.items():
            failure = fails(lambda token=token: leaderboard(stub, as_player(token)))
            assert failure.kind == (grpc.StatusCode.UNAUTHENTICATED, reason), reason
        missing_sub = app.token(None)
        assert fails(lambda: leaderboard(stub, as_player(missing_sub))).reason == "PLAYER_TOKEN_MALFORMED"
        # Another app's key beside the token: the token never acts for another app.
        wrong_app = fails(lambda: leaderboard(stub, as_player(app.token("alice"), other.key)))
        assert wrong_app.kind == (grpc.StatusCode.PERMISSION_DENIED, "PLAYER_TOKEN_WRONG_APP")
        # A key registered under the other app is unknown to this one.
        stolen = app.token("alice", kid=other.kid, key=SECRET)
        assert leaderboard(stub, as_player(stolen)).total == 0  # same kid name, this app's own key: fine
        loop.run(server.server.store.revoke_signing_key(app.id, app.kid, now()))
        revoked = app.token("bob")

        def refused() -> bool:  # every replica refuses it within the keys' cache time (5 s)
            try:
                leaderboard(stub, as_player(revoked))
            except grpc.RpcError:
                return True
            return False

        assert wait_until(refused, 10)
        failure = fails(lambda: leaderboard(stub, as_player(revoked)))
        assert failure.kind == (grpc.StatusCode.UNAUTHENTICATED, "PLAYER_TOKEN_KEY_REVOKED")
        assert failure.metadata["kid"] == app.kid
        none = fails(lambda: stub.CancelMatch(players_pb2.CancelMatchRequest(), timeout=TIMEOUT))
        assert none.kind == (grpc.StatusCode.UNAUTHENTICATED, "PLAYER_TOKEN_MISSING")
    finally:
        channel.close()


def test_public_key_tokens_verify_with_ed25519_and_p256(loop: LoopThread, server: InProcessServer) -> None:
    app = App(loop, server)
    channel, stub = player_stub(server)
    try:
        for kid, private in (
            ("ed", ed25519.Ed25519PrivateKey.generate()),
            ("ec", ec.generate_private_key(ec.SECP256R1())),
        ):
            public = private.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            algorithm = "EdDSA" if kid == "ed" else "ES256"
            loop.run(add_signing_key(server.server.store, app.id, kid, algorithm, public))
            token = app.token("carol", key=private, algorithm=algorithm, kid=kid)
            assert leaderboard(stub, as_player(token)).total == 0
            forged = app.token("carol", key=SECRET, algorithm="HS256", kid=kid)  # HS256 over the public key's kid
            assert fails(lambda forged=forged: leaderboard(stub, as_player(forged))).reason == (
                "PLAYER_TOKEN_BAD_SIGNATURE"
            )
    finally:
        channel.close()


def test_a_seat_belongs_to_its_player_and_never_to_another_apps(loop: LoopThread, server: InProcessServer) -> None:
    app, other = App(loop, server), App(loop, server)
    owner = Player(server.address)
    try:
        created = owner.games.CreateGame(
            game_service_pb2.CreateGameRequest(rules=rule_set(2), public=True),
            metadata=(("x-api-key", app.key),),
            timeout=TIMEOUT,
        )
        name = created.game.name
        join = game_service_pb2.JoinGameRequest(name=name, request_id=new_id())
        outsider = fails(
            lambda: owner.games.JoinGame(join, metadata=as_player(other.token("mallory")), timeout=TIMEOUT)
        )
        assert outsider.kind == (grpc.StatusCode.PERMISSION_DENIED, "PLAYER_TOKEN_WRONG_APP")
        joined = owner.games.JoinGame(join, metadata=as_player(app.token("alice")), timeout=TIMEOUT)
        game = owner.games.GetGame(game_service_pb2.GetGameRequest(name=name), timeout=TIMEOUT).game
        assert game.seats[joined.seat].player == "players/alice"
        assert game.seats[joined.seat].player_name == "Alice"  # the token's name, when the join gives none
        assert game.seats[1 - joined.seat].player == ""
        # The seat's token with another app's player token beside it: refused.
        metadata = (("authorization", f"Bearer {joined.seat_token}"), *as_player(other.token("mallory")))
        view = game_service_pb2.GetGameViewRequest(name=name)
        assert fails(lambda: owner.games.GetGameView(view, metadata=metadata, timeout=TIMEOUT)).reason == (
            "PLAYER_TOKEN_WRONG_APP"
        )
    finally:
        owner.close()


class Finder:
    """A FindMatch stream read on a thread of its own."""

    def __init__(self, server: InProcessServer, token: str, request: players_pb2.FindMatchRequest) -> None:
        self.channel, stub = player_stub(server)
        self.call = stub.FindMatch(request, metadata=as_player(token))
        self.replies: list[players_pb2.FindMatchResponse] = []
        self.error: grpc.RpcError | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for reply in self.call:
                self.replies.append(reply)
        except grpc.RpcError as error:
            self.error = error

    def matched(self, timeout: float = TIMEOUT) -> players_pb2.FindMatchResponse:
        assert wait_until(
            lambda: any(r.ticket.state == players_pb2.TICKET_STATE_MATCHED for r in self.replies), timeout
        )
        return self.replies[-1]

    def close(self) -> None:
        self.call.cancel()
        self.channel.close()


def find(rules: Any, party: tuple[str, ...] = (), **fields: Any) -> players_pb2.FindMatchRequest:
    return players_pb2.FindMatchRequest(request_id=new_id(), rules=rules, party=list(party), **fields)


def test_quick_match_seats_two_players_and_a_player_has_one_ticket(loop: LoopThread, server: InProcessServer) -> None:
    app = App(loop, server)
    alice = Finder(server, app.token("alice"), find(rule_set(2)))
    channel, stub = player_stub(server)
    try:
        assert wait_until(lambda: bool(alice.replies))
        assert alice.replies[0].ticket.state == players_pb2.TICKET_STATE_WAITING
        again = stub.FindMatch(find(rule_set(2)), metadata=as_player(app.token("alice")), timeout=TIMEOUT)
        failure = fails(lambda: list(again))
        assert failure.kind == (grpc.StatusCode.FAILED_PRECONDITION, "TICKET_ALREADY_OPEN")
        assert failure.metadata["ticket"] == alice.replies[0].ticket.name
        bob = Finder(server, app.token("bob"), find(rule_set(2)))
        try:
            first, second = alice.matched(), bob.matched()
            assert first.game == second.game and {first.seat, second.seat} == {0, 1}
            for reply in (first, second):
                seat = Player(server.address, reply.seat, reply.seat_token)
                assert seat.view(reply.game).seat.seat == reply.seat
                seat.close()
            cancel = players_pb2.CancelMatchRequest(name=first.ticket.name)
            refusal = fails(lambda: stub.CancelMatch(cancel, metadata=as_player(app.token("alice")), timeout=TIMEOUT))
            assert refusal.reason == "TICKET_ALREADY_MATCHED"
        finally:
            bob.close()
    finally:
        alice.close()
        channel.close()


def test_a_ticket_dies_with_its_stream(loop: LoopThread, server: InProcessServer) -> None:
    app = App(loop, server)
    finder = Finder(server, app.token("dana"), find(rule_set(2)))
    assert wait_until(lambda: bool(finder.replies))
    ticket_id = finder.replies[0].ticket.name.removeprefix("tickets/")
    finder.close()
    store = server.server.store

    def cancelled() -> bool:
        return loop.run(store.tickets(ticket_id=ticket_id))[0].state == TICKET_CANCELLED

    assert wait_until(cancelled)
    # The player may look again at once: its ticket is no longer open.
    again = Finder(server, app.token("dana"), find(rule_set(2)))
    try:
        assert wait_until(lambda: bool(again.replies))
        assert again.replies[0].ticket.state == players_pb2.TICKET_STATE_WAITING
    finally:
        again.close()


def _find_match_streams_ended(server: InProcessServer) -> float:
    """FindMatch streams the server has seen end (its handled counter, every code)."""
    return sum(
        sample.value
        for metric in server.server.metrics.registry.collect()
        for sample in metric.samples
        if sample.name == "grpc_server_handled_total" and sample.labels.get("grpc_method") == "FindMatch"
    )


def test_a_resumed_ticket_outlives_the_stream_it_replaced(loop: LoopThread, server: InProcessServer) -> None:
    """A client whose stream broke on its way (a proxy's reset, a network change) opens FindMatch again with the
    same request id, while the server may still be serving the old stream: when that one ends, the ticket goes on
    with the new one instead of dying with the old."""
    app = App(loop, server)
    request = find(rule_set(2))
    old = Finder(server, app.token("ana"), request)
    assert wait_until(lambda: bool(old.replies))
    resumed = Finder(server, app.token("ana"), request)
    bob: Finder | None = None
    try:
        assert wait_until(lambda: bool(resumed.replies))
        assert resumed.replies[0].ticket.name == old.replies[0].ticket.name  # the same ticket, followed twice
        old.close()
        assert wait_until(lambda: _find_match_streams_ended(server) == 1)  # the server ended the old stream
        bob = Finder(server, app.token("bob"), find(rule_set(2)))
        assert resumed.matched().game == bob.matched().game
        assert {r.ticket.state for r in resumed.replies} <= {
            players_pb2.TICKET_STATE_WAITING,
            players_pb2.TICKET_STATE_MATCHED,
        }
    finally:
        resumed.close()
        if bob is not None:
            bob.close()


def test_a_party_sits_as_one_team(loop: LoopThread, server: InProcessServer) -> None:
    app = App(loop, server)
    rules = rule_set(4)
    finders = [
        Finder(server, app.token("ana"), find(rules, ("ben",))),
        Finder(server, app.token("ben"), find(rules, ("ana",))),
        Finder(server, app.token("cid"), find(rules)),
        Finder(server, app.token("dan"), find(rules)),
    ]
    try:
        replies = [finder.matched() for finder in finders]
        assert len({reply.game for reply in replies}) == 1
        seats = {name: reply.seat for name, reply in zip(("ana", "ben", "cid", "dan"), replies, strict=True)}
        assert seats["ana"] % 2 == seats["ben"] % 2  # partners, never rivals
        assert seats["cid"] % 2 != seats["ana"] % 2 and seats["dan"] % 2 != seats["ana"] % 2
    finally:
        for finder in finders:
            finder.close()


def test_a_lone_party_member_waits_for_its_party(loop: LoopThread, server: InProcessServer) -> None:
    app = App(loop, server)
    rules = rule_set(4)
    names = ("ana", "cid", "dan", "eve", "fay")
    finders = [Finder(server, app.token(name), find(rules, ("ben",) if name == "ana" else ())) for name in names]
    try:
        replies = [finder.matched() for finder in finders[1:]]
        assert len({reply.game for reply in replies}) == 1
        states = {r.ticket.state for r in finders[0].replies}
        assert states == {players_pb2.TICKET_STATE_WAITING_FOR_PARTY}
    finally:
        for finder in finders:
            finder.close()


def play_matched(server: InProcessServer, replies: list[players_pb2.FindMatchResponse]) -> str:
    players = sorted((Player(server.address, r.seat, r.seat_token) for r in replies), key=lambda p: p.seat or 0)
    name = replies[0].game
    table = Table(name, game_service_pb2.Game(), players, Player(server.address, 0, replies[0].seat_token))
    try:
        play_to_end(table)
    finally:
        table.close()
    return name


def test_a_rated_match_counts_once_and_a_rebuild_gives_the_same_ratings(
    loop: LoopThread, server: InProcessServer
) -> None:
    app = App(loop, server)
    store = server.server.store
    finders = [Finder(server, app.token(name), find(rule_set(2, target=15))) for name in ("ana", "ben")]
    try:
        replies = [finder.matched() for finder in finders]
    finally:
        for finder in finders:
            finder.close()
    name = play_matched(server, replies)

    def counted() -> list[RatingRecord | None]:
        return [loop.run(store.rating(app.id, 2, player)) for player in ("ana", "ben")]

    assert wait_until(lambda: all(r is not None for r in counted()), 15)
    ratings = counted()
    assert [r.matches for r in ratings if r is not None] == [1, 1]
    assert sorted(r.wins for r in ratings if r is not None) == [0, 1]
    matchmaker = server.server.matchmaker
    assert loop.run(matchmaker.count_finished()) == 0  # counted once: nothing is counted again
    assert loop.run(matchmaker.rebuild()) == 1
    assert counted() == ratings
    channel, stub = player_stub(server)
    try:
        token = as_player(app.token("ana"))
        mine = stub.GetPlayer(players_pb2.GetPlayerRequest(name="players/me"), metadata=token, timeout=TIMEOUT)
        assert mine.player.display_name == "Ana" and mine.player.ratings[0].matches == 1
        history = stub.ListPlayerMatches(players_pb2.ListPlayerMatchesRequest(name="players/ben"), metadata=token)
        assert [m.game for m in history.matches] == [name] and history.matches[0].rated
        assert set(history.matches[0].seat_players) == {"players/ana", "players/ben"}
        spectator = Player(server.address, replies[0].seat, replies[0].seat_token)
        watch = game_service_pb2.WatchGameRequest(name=name, after_version=0, per_commit=True)
        events = [e for item in spectator.games.WatchGame(watch, metadata=spectator.metadata, timeout=TIMEOUT)
                  for e in item.events]  # fmt: skip
        spectator.close()
        assert events[-1].WhichOneof("kind") == "match_ended"
    finally:
        channel.close()


def test_leaderboard_pages_and_the_page_around_a_player(loop: LoopThread, server: InProcessServer) -> None:
    app = App(loop, server)
    store = server.server.store
    ratings = [RatingRecord(app.id, 2, f"p{index:02d}", 20.0 + index * 0.5, 2.0, 10, index) for index in range(25)]
    for rating in ratings:
        loop.run(store.name_player(app.id, rating.player, rating.player.upper()))
    assert loop.run(store.record_result(new_id(), app.id, 1, [], ratings))
    channel, stub = player_stub(server)
    try:
        key = (("x-api-key", app.key),)
        seen: list[Any] = []
        token = ""
        while True:
            page = leaderboard(stub, key, page_size=10, page_token=token)
            seen.extend(page.entries)
            token = page.next_page_token
            if not token:
                break
        assert page.total == 25 and [e.rank for e in seen] == list(range(1, 26))
        assert [e.player for e in seen] == [f"players/p{index:02d}" for index in reversed(range(25))]
        assert seen[0].display_name == "P24" and seen[0].rating.ordinal == pytest.approx(32.0 - 6.0)
        around = leaderboard(stub, key, page_size=5, around_player="players/p10")
        assert [e.player for e in around.entries][2] == "players/p10" and around.entries[2].rank == 15
        assert fails(lambda: leaderboard(stub, key, page_token="forged")).reason == "INVALID_PAGE_TOKEN"
        sizes = fails(lambda: stub.ListLeaderboard(players_pb2.ListLeaderboardRequest(players=3), metadata=key))
        assert sizes.reason == "INVALID_TABLE_SIZE"
        unknown = players_pb2.GetPlayerRequest(name="players/nobody")
        assert fails(lambda: stub.GetPlayer(unknown, metadata=key, timeout=TIMEOUT)).reason == "PLAYER_NOT_FOUND"
    finally:
        channel.close()


def test_bots_fill_a_ticket_that_allows_them_after_its_wait(loop: LoopThread, server: InProcessServer) -> None:
    app = App(loop, server)
    request = find(rule_set(2), bots_after={"seconds": 1}, bot_level=game_service_pb2.BOT_LEVEL_BEGINNER)
    finder = Finder(server, app.token("solo"), request)
    try:
        reply = finder.matched(10)
        game = Player(server.address).games
        seats = game.GetGame(
            game_service_pb2.GetGameRequest(name=reply.game), metadata=(("x-api-key", app.key),), timeout=TIMEOUT
        ).game.seats
        assert [s.kind for s in seats if s.seat != reply.seat] == [game_service_pb2.SEAT_KIND_BOT]
        assert seats[reply.seat].player == "players/solo"
    finally:
        finder.close()


async def _two_quick_players(address: str, tokens: list[str]) -> list[Any]:
    import asyncio

    from truco_client import TrucoClient

    clients = [TrucoClient(address, player_token=token) for token in tokens]
    try:
        found = await asyncio.gather(*(client.quick_match({"players": 2}, max_wait=30) for client in clients))
        views = [await client.get_view(match.game) for client, match in zip(clients, found, strict=True) if match]
        player = await clients[0].get_player()
        board = await clients[0].list_leaderboard(2)
        return [found, [view.seat.seat for view in views], player, board]
    finally:
        for client in clients:
            await client.close()


def test_the_python_sdk_finds_a_quick_match_and_takes_its_seat(loop: LoopThread, server: InProcessServer) -> None:
    app = App(loop, server)
    found, seats, player, board = loop.run(_two_quick_players(server.address, [app.token("ana"), app.token("ben")]))
    assert found[0].game == found[1].game and sorted(seats) == [0, 1]
    assert [match.seat for match in found] == seats  # each client now acts as its seat
    assert player.name == "players/ana" and board.total == 0  # no rated match finished yet


def test_truco_play_quick_finds_a_match_for_the_player(loop: LoopThread, server: InProcessServer) -> None:
    import os
    import subprocess

    app = App(loop, server)
    truco = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "truco"
    command = [str(truco), "play", "--server", server.address, "--quick", "--bots-after", "0", "--lang", "en"]
    env = {**os.environ, "TRUCO_PLAYER_TOKEN": app.token("terminal")}
    result = subprocess.run(command, input="", capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "looking for a 2-player match" in result.stdout
    assert re.search(r"you are seat [01], team [01]", result.stdout), result.stdout
    assert "End of input: leaving the game" in result.stdout
    refused = subprocess.run([*command[:-4]], input="", capture_output=True, text=True, timeout=60, env={
        k: v for k, v in os.environ.items() if k != "TRUCO_PLAYER_TOKEN"})  # fmt: skip
    assert refused.returncode == 2 and "--quick needs a player token" in refused.stderr


def readme_examples() -> dict[str, object]:
    """The players section's Python examples of the README, run as they are written."""
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = text.split("## Players, quick match and rankings", 1)[1].split("\n## ", 1)[0]
    namespace: dict[str, object] = {}
    for block in re.findall(r"^```py\n(.*?)^```", section, flags=re.MULTILINE | re.DOTALL):
        exec(compile(block, "README.md", "exec"), namespace)
    return namespace


def test_the_readme_players_example_plays_a_rated_match(loop: LoopThread, server: InProcessServer) -> None:
    import asyncio

    app = App(loop, server, kid="2026-12")  # the kid the README's backend signs with
    examples = readme_examples()
    mint, rated_match = examples["player_token"], examples["rated_match"]
    tokens = [mint(app.id, SECRET, user, user.title()) for user in ("uma", "vic")]  # type: ignore[operator]

    async def both() -> None:
        await asyncio.gather(*(rated_match(server.address, token) for token in tokens))  # type: ignore[operator]

    loop.run(both(), timeout=120)
    assert wait_until(lambda: loop.run(server.server.store.rating(app.id, 2, "uma")) is not None, 15)


def test_the_matcher_moves_to_another_replica_and_matches_each_ticket_once(
    loop: LoopThread, postgres_url: str, tmp_path: Path
) -> None:
    """Two replicas on one PostgreSQL: one holds the matcher's lease; when it stops, the other takes the lease
    over and matches the tickets left waiting, none of them twice."""
    from ..servers import Stores

    stores = Stores("postgres", tmp_path, postgres_url)
    url = stores.new_url()
    replicas = [InProcessServer(loop, url), InProcessServer(loop, url)]
    finders: list[Finder] = []
    try:
        assert wait_until(lambda: any(r.server.matchmaker.leading for r in replicas))
        leader = next(r for r in replicas if r.server.matchmaker.leading)
        survivor = next(r for r in replicas if r is not leader)
        app = App(loop, survivor)
        finders += [Finder(survivor, app.token(name), find(rule_set(2))) for name in ("ana", "ben")]
        first = [finder.matched() for finder in finders]
        leader.stop()
        finders += [Finder(survivor, app.token(name), find(rule_set(2))) for name in ("cid", "dan", "eve", "fay")]
        later = [finder.matched(LEASE_TAKEOVER) for finder in finders[2:]]
        assert survivor.server.matchmaker.leading
        # What an operator reads: the survivor's gauge, and the stopped leader's, which let go of it.
        assert survivor.server.metrics.registry.get_sample_value("truco_matcher_leading") == 1
        assert leader.server.metrics.registry.get_sample_value("truco_matcher_leading") == 0
        assert survivor.server.metrics.registry.get_sample_value("truco_matcher_tickets_matched_total") == 4
        tickets = loop.run(survivor.server.store.tickets())
        assert len(tickets) == 6 and all(t.state == "matched" for t in tickets)
        games = [reply.game for reply in (*first, *later)]
        assert all(games.count(game) == 2 for game in games)  # each game two tickets, each ticket one game
    finally:
        for finder in finders:
            finder.close()
        for replica in replicas:
            replica.stop()
        stores.drop_all()


LEASE_TAKEOVER = 30.0
"""A bound, not a timing: the lease lapses 3 s after its holder's last tick."""


def test_a_matcher_that_lost_its_lease_mid_step_makes_no_more_tables(tmp_path: Path) -> None:
    """A step that outlasts the lease (a stalled process, a slow store) must not go on matching beside the replica
    that took the lease over: the matcher renews it before each table and stops when it is gone."""
    import asyncio

    from truco.engine import RuleSet
    from truco.server.core.identities import PlayerId
    from truco.server.core.matchmaking import LEASE_NAME, Matchmaker, Tickets, Wanted
    from truco.server.core.metrics import Metrics
    from truco.server.store import open_store
    from truco.server.store.records import TICKET_MATCHED, TICKET_WAITING, now_us

    async def run() -> tuple[bool, list[str], list[str], Metrics]:
        store = await open_store(f"sqlite:///{tmp_path / 'lease.db'}")
        made: list[str] = []

        async def create(setup: object, request_id: str, app: str) -> str:
            made.append(request_id)
            later = now_us() + 10**12  # another replica, seeing this lease lapsed, takes it over meanwhile
            assert await store.take_lease(LEASE_NAME, "other-replica", later + 10**6, later)
            return f"game{len(made)}"

        async def join(game_id: str, seat: int, ticket: object) -> str:
            return "seat-token"

        async def outcome(game_id: str) -> None:
            return None

        metrics = Metrics.create()
        matcher = Matchmaker(store, create, join, outcome, metrics=metrics)
        try:
            for name in ("ana", "ben", "cid", "dan"):  # two tables' worth of tickets
                await Tickets(store).open(PlayerId("app", name), Wanted(RuleSet(players=2), (), 60, None, "x"), None)
            held = await matcher.step()
            states = [ticket.state for ticket in await store.tickets()]
        finally:
            await store.close()
        return held, made, states, metrics

    held, made, states, metrics = asyncio.run(run())
    assert not held and len(made) == 1  # the second table was left to the new holder
    assert sorted(states) == [TICKET_MATCHED, TICKET_MATCHED, TICKET_WAITING, TICKET_WAITING]
    assert metrics.registry.get_sample_value("truco_matcher_leading") == 0
    assert metrics.registry.get_sample_value("truco_matcher_tickets_matched_total") == 2


def test_a_matcher_that_stops_hands_its_lease_over_at_once(tmp_path: Path) -> None:
    """A replica stopped on purpose (a rolling update) lets go of the lease: the next replica's tick takes it, not
    one 3 s later, when it would have lapsed."""
    import asyncio

    from truco.server.core.matchmaking import Matchmaker
    from truco.server.store import open_store

    async def nothing(*_: object) -> Any:
        return None

    async def run() -> tuple[bool, bool, bool]:
        store = await open_store(f"sqlite:///{tmp_path / 'handover.db'}")
        first, second = (Matchmaker(store, nothing, nothing, nothing, holder=name) for name in ("first", "second"))
        try:
            led = await first.step()
            refused = await second.step()  # held, and far from lapsing
            await first.stop()
            return led, refused, await second.step()
        finally:
            await store.close()

    assert asyncio.run(run()) == (True, False, True)


def test_a_matcher_stops_even_when_its_store_swallows_the_cancel(tmp_path: Path) -> None:
    """A worker stopped by SIGTERM once ran for minutes: its matcher's cancel landed inside a store call that
    swallowed it (as a connection pool retrying does), so the matcher's loop went on and the server's stop never
    returned. The matcher stops after the step it is in, and still hands over the lease that step took."""
    import asyncio
    import contextlib
    import threading

    from truco.server.core.matchmaking import Matchmaker
    from truco.server.store import open_store

    async def nothing(*_: object) -> Any:
        return None

    async def run() -> tuple[bool, bool]:
        store = await open_store(f"sqlite:///{tmp_path / 'swallowed.db'}")
        take_lease = store.take_lease
        entered = asyncio.Event()

        async def swallowing(*args: Any) -> bool:
            entered.set()
            with contextlib.suppress(asyncio.CancelledError):  # what a driver retrying a connection may do
                await asyncio.sleep(0.5)
            return await take_lease(*args)

        store.take_lease = swallowing  # type: ignore[method-assign]
        matcher = Matchmaker(store, nothing, nothing, nothing, holder="swallower", tick=0.01)
        other = Matchmaker(store, nothing, nothing, nothing, holder="other")
        try:
            matcher.start()
            await entered.wait()
            await matcher.stop()
            store.take_lease = take_lease  # type: ignore[method-assign]
            return matcher.leading, await other.step()
        finally:
            await store.close()

    # On a thread of its own: a matcher that never stops hangs its loop, and the test must fail, not hang.
    result: list[tuple[bool, bool]] = []
    thread = threading.Thread(target=lambda: result.append(asyncio.run(run())), daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the matcher did not stop"
    assert result == [(False, True)]  # stopped, and the lease its last step took was handed over
