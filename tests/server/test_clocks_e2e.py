"""Matches with real people, end to end over gRPC on SQLite and PostgreSQL: turn clocks, takeover and forfeit,
players who leave and come back, presence, abandoned and old games, rematches, and clocks fired by any
replica (exactly once) or after a restart.

Clocks are short (fractions of a second) and every wait polls against a deadline: no test sleeps longer than
the behaviour it checks needs.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration

from truco.server.core.clocks import StandIn
from truco.server.store import open_store
from truco_client.v1 import events_pb2, game_service_pb2, rules_pb2, views_pb2

from ..players import RPC_TIMEOUT, Player, failure_of, join, new_id
from ..servers import TRUCO, InProcessServer, LoopThread, Stores
from ..wire_builders import kind_of

TAKEOVER = game_service_pb2.CLOCK_POLICY_TAKEOVER
FORFEIT = game_service_pb2.CLOCK_POLICY_FORFEIT
OVER = views_pb2.PHASE_MATCH_OVER
DECISIONS = {
    "card_played",
    "call_made",
    "call_accepted",
    "call_declined",
    "went_to_mazo",
    "perros_called",
    "perros_skipped",
    "perros_answered",
}
"""Events that record a seat's decision (the others follow from one, or come from the server)."""
FAST = {"timekeeper_idle": 0.05}
"""Test servers look for other replicas' deadlines every 50 ms (the default is a second). Their stand-in plays
an away seat at once (tests/servers.py); the stand-in's pace is tested with servers of its own
(:func:`paced_server`)."""


pytestmark = pytest.mark.usefixtures("server_log")  # in-process servers log to a file, not stdout

# --- Fixtures ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server_loop() -> Iterator[LoopThread]:
    loop = LoopThread()
    yield loop
    loop.close()


@pytest.fixture(scope="module")
def server(server_loop: LoopThread, stores: Stores) -> Iterator[InProcessServer]:
    """The module's server: no default clock (each test's games ask for theirs), a short presence window."""
    started = InProcessServer(server_loop, stores.new_url(), metrics=True, presence_seconds=1.0, **FAST)
    yield started
    started.stop()


@pytest.fixture
def start_server(server_loop: LoopThread) -> Iterator[Callable[..., InProcessServer]]:
    started: list[InProcessServer] = []

    def start(store: str, **options: Any) -> InProcessServer:
        started.append(InProcessServer(server_loop, store, **{**FAST, **options}))
        return started[-1]

    yield start
    for running in started:
        running.stop()


# --- Helpers -------------------------------------------------------------------------------------------------


def seconds(value: float) -> Duration:
    return Duration(seconds=int(value), nanos=round((value - int(value)) * 1e9))


def clock(decision: float, policy: int = TAKEOVER, reserve: float = 0.0) -> game_service_pb2.ClockSettings:
    settings = game_service_pb2.ClockSettings(decision=seconds(decision), on_expiry=policy)
    if reserve:
        settings.reserve.CopyFrom(seconds(reserve))
    return settings


def new_game(
    address: str,
    players: int = 2,
    settings: game_service_pb2.ClockSettings | None = None,
    bots: tuple[int, ...] = (),
    target: int = 15,
) -> game_service_pb2.Game:
    creator = Player(address)
    try:
        request = game_service_pb2.CreateGameRequest(
            request_id=new_id(),
            rules=rules_pb2.RuleSet(players=players, target=target),
            bots=[game_service_pb2.BotSeat(seat=s, kind=game_service_pb2.BOT_KIND_RANDOM) for s in bots],
        )
        if settings is not None:
            request.clock.CopyFrom(settings)
        return creator.games.CreateGame(request, timeout=RPC_TIMEOUT).game
    finally:
        creator.close()


def get_game(player: Player, name: str) -> game_service_pb2.Game:
    return player.games.GetGame(game_service_pb2.GetGameRequest(name=name), timeout=RPC_TIMEOUT).game


def resume(player: Player, name: str) -> views_pb2.SeatView:
    request = game_service_pb2.ResumeSeatRequest(name=name)
    return player.games.ResumeSeat(request, metadata=player.metadata, timeout=RPC_TIMEOUT).view


def leave(player: Player, name: str) -> views_pb2.SeatView:
    request = game_service_pb2.LeaveGameRequest(name=name)
    return player.games.LeaveGame(request, metadata=player.metadata, timeout=RPC_TIMEOUT).view


def taken_over(public: views_pb2.MatchView, seat: int) -> bool:
    return any(s.seat == seat and s.taken_over for s in public.seats)


def poll(check: Callable[[], Any], timeout: float, what: str, interval: float = 0.02) -> Any:
    """``check()`` until it returns something truthy (returned), failing after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"not {what} within {timeout}s")
        time.sleep(interval)


def over_view(player: Player, name: str, timeout: float = 60.0) -> views_pb2.MatchView:
    def finished() -> views_pb2.MatchView | None:
        public = player.view(name).public
        return public if public.phase == OVER else None

    result: views_pb2.MatchView = poll(finished, timeout, "over")
    return result


def event_log(address: str, name: str) -> list[events_pb2.Event]:
    """Every event of a finished game, as a spectator's watch delivers them."""
    spectator = Player(address)
    try:
        request = game_service_pb2.WatchGameRequest(name=name)
        return [item.event for item in spectator.games.WatchGame(request, timeout=RPC_TIMEOUT)]
    finally:
        spectator.close()


def act(player: Player, name: str, *, calm: bool = False) -> bool:
    """If the seat has something to do, do its first legal action (never a seña); whether it acted. ``calm``:
    rather play a card or say no than call or accept, so that no falta envido ends the match at once."""
    view = player.seat_view(name)
    actions = [a for a in view.legal_actions if a.WhichOneof("kind") != "send_sena"]
    if not actions:
        return False
    if calm:
        actions.sort(
            key=lambda a: (a.WhichOneof("kind") != "play_card", a.WhichOneof("kind") == "answer" and a.answer.accept)
        )
    try:
        player.submit(name, actions[0], expected_version=view.public.version)
    except grpc.RpcError as error:  # the clock fired first, or the table moved: look again
        if failure_of(error).code not in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
            raise
    return True


def decisions_by(events: list[events_pb2.Event], seat: int, after: int = 0) -> int:
    count = 0
    for event in events[after:]:
        kind = kind_of(event)
        if kind in DECISIONS and getattr(event, kind).seat == seat:
            count += 1
    return count


def first_index(events: list[events_pb2.Event], kind: str) -> int:
    return next(i for i, event in enumerate(events) if kind_of(event) == kind)


# --- Clocks --------------------------------------------------------------------------------------------------


def test_views_show_whose_clock_runs_and_its_deadline(server: InProcessServer) -> None:
    game = new_game(server.address, settings=clock(30.0, reserve=60.0))
    assert game.clock.decision.seconds == 30 and game.clock.reserve.seconds == 60
    assert game.clock.on_expiry == TAKEOVER
    first = join(server.address, game.name, 0)
    public = first.view(game.name).public
    assert not public.HasField("clock"), "no clock runs while a waited-for seat has no player"
    before = time.time()
    second = join(server.address, game.name, 1)
    public = second.view(game.name).public
    assert list(public.clock.seats) == list(public.to_act) == [0]
    started, deadline = public.clock.started.ToMicroseconds() / 1e6, public.clock.deadline.ToMicroseconds() / 1e6
    assert before - 1 <= started <= time.time() + 1
    assert deadline - started == pytest.approx(90.0), "decision time plus the whole reserve"
    assert [(s.seat, s.taken_over, s.reserve_left.seconds) for s in public.seats] == [(0, False, 60), (1, False, 60)]
    assert first.seat_view(game.name).public.clock.deadline == public.clock.deadline


def test_a_partner_leaving_and_resuming_cannot_hold_the_clock(server: InProcessServer) -> None:
    """The red team's stall: seat 2 left and resumed every few tenths of a second; seat 0's clock, the one the
    match waits for, must still run out on time."""
    game = new_game(server.address, players=4, settings=clock(1.5))
    players = [join(server.address, game.name, seat) for seat in range(4)]
    public = players[0].view(game.name).public
    assert list(public.clock.seats) == [0]
    deadline = public.clock.deadline.ToMicroseconds() / 1e6
    toggles = 0
    while time.time() < deadline + 2.0 and not taken_over(players[0].view(game.name).public, 0):
        view = players[2].seat_view(game.name)
        (resume if taken_over(view.public, 2) else leave)(players[2], game.name)
        toggles += 1
        time.sleep(0.1)
    assert toggles >= 3, "each of the partner's toggles would have restarted the clock before"
    public = players[0].view(game.name).public
    assert taken_over(public, 0), "seat 0's clock ran out on time although its partner kept leaving and resuming"
    expired = next(e.clock_expired for e in event_log_so_far(server.address, game.name) if e.HasField("clock_expired"))
    assert expired.seat == 0 and expired.deadline_us / 1e6 == pytest.approx(deadline, abs=1e-3)


def event_log_so_far(address: str, name: str) -> list[events_pb2.Event]:
    """The events stored so far, as a spectator's watch replays them (the match goes on)."""
    spectator = Player(address)
    try:
        request = game_service_pb2.WatchGameRequest(name=name)
        found: list[events_pb2.Event] = []
        for item in spectator.games.WatchGame(request, timeout=RPC_TIMEOUT):
            found.append(item.event)
            if item.event.HasField("clock_expired"):
                break
        return found
    finally:
        spectator.close()


def test_a_seat_that_never_acts_is_taken_over_and_the_match_ends(server: InProcessServer) -> None:
    game = new_game(server.address, settings=clock(0.25))
    player = join(server.address, game.name, 0)
    join(server.address, game.name, 1)  # seat 1 joins and never acts again

    def seat_0_plays() -> bool:
        view = player.seat_view(game.name)
        if view.public.phase == OVER:
            return True
        if taken_over(view.public, 0):  # a slow machine can run out seat 0's clock too: it comes back
            resume(player, game.name)
        else:
            act(player, game.name)
        return False

    poll(seat_0_plays, 120.0, "over")
    events = event_log(server.address, game.name)
    expired = [e.clock_expired for e in events if kind_of(e) == "clock_expired"]
    assert 1 in {e.seat for e in expired} and not any(e.forfeit for e in expired)
    takeover = next(i for i, e in enumerate(events) if kind_of(e) == "clock_expired" and e.clock_expired.seat == 1)
    assert decisions_by(events, 1, after=takeover) > 0, "the bot played seat 1 after its clock ran out"
    assert kind_of(events[-1]) == "match_ended"
    game_now = get_game(player, game.name)
    assert game_now.phase == OVER and game_now.seats[1].taken_over


def test_forfeit_ends_the_match_with_the_rivals_winning(server: InProcessServer) -> None:
    game = new_game(server.address, players=4, settings=clock(0.25, FORFEIT))
    players = [join(server.address, game.name, seat) for seat in range(4)]
    # Seat 0, the mano, never plays: its team (seats 0 and 2) concedes, and team 1 wins.
    public = over_view(players[1], game.name, timeout=30.0)
    assert public.winner_team == 1
    events = event_log(server.address, game.name)
    kinds = [kind_of(e) for e in events]
    assert kinds[-3:] == ["clock_expired", "hand_ended", "match_ended"]
    assert events[-3].clock_expired.seat == 0 and events[-3].clock_expired.forfeit
    assert events[-2].hand_ended.end == events_pb2.HAND_END_FORFEIT and not events[-2].hand_ended.order  # sealed
    assert events[-1].match_ended.winner_team == 1
    assert not any(kind in DECISIONS for kind in kinds), "nobody played: the match was conceded"
    assert max(s.points for s in public.scores) < 15, "conceded, not played out"


def test_a_player_who_comes_back_after_a_takeover_plays_again(
    stores: Stores, start_server: Callable[..., InProcessServer]
) -> None:
    # A server of its own, and a clock long enough that a loaded machine does not take the seat over again
    # before its player's next turn comes.
    server = start_server(stores.new_url(), presence_seconds=1.0)
    game = new_game(server.address, settings=clock(1.0), target=30)
    first = join(server.address, game.name, 0)
    second = join(server.address, game.name, 1)
    # Seat 0 plays, seat 1 is away until its clock runs out and the bot takes it over.
    # Both seats play calmly: a random falta envido, the bot's or an accepted one, could end the match before
    # seat 1's comeback is seen.
    poll(
        lambda: taken_over(first.view(game.name).public, 1) or (act(first, game.name, calm=True) and False),
        30.0,
        "taken over",
    )
    view = resume(second, game.name)
    assert not taken_over(view.public, 1), "the seat is its player's again"
    resumed_at = view.public.version

    def both_play() -> bool:
        for player in (first, second):
            public = player.view(game.name).public
            assert public.phase != OVER, "the match ended before seat 1 played again"
            if taken_over(public, player.seat or 0):
                resume(player, game.name)
            elif act(player, game.name, calm=True) and player is second:
                return True
        return False

    poll(both_play, 60.0, "played by seat 1 itself")
    events = event_log_until(server.address, game.name, resumed_at)
    kinds = [kind_of(e) for e in events]
    assert "seat_resumed" in kinds
    leave(first, game.name)  # and a player who leaves is played by the bot until it resumes
    public = first.view(game.name).public
    assert taken_over(public, 0)


def event_log_until(address: str, name: str, version: int) -> list[events_pb2.Event]:
    """The events of a game still in play, up to ``version``."""
    spectator = Player(address)
    try:
        request = game_service_pb2.WatchGameRequest(name=name)
        out = []
        stream = spectator.games.WatchGame(request, timeout=RPC_TIMEOUT)
        for item in stream:
            out.append(item.event)
            if item.event.version >= version:
                stream.cancel()
                break
        return out
    finally:
        spectator.close()


def test_presence_follows_watch_streams_and_recent_calls(server: InProcessServer) -> None:
    game = new_game(server.address, settings=clock(30.0), players=2)
    watching = join(server.address, game.name, 0)
    quiet = join(server.address, game.name, 1)
    stream = watching.games.WatchGame(
        game_service_pb2.WatchGameRequest(name=game.name), metadata=watching.metadata, timeout=30
    )
    spectator = Player(server.address)
    try:
        assert get_game(spectator, game.name).seats[1].present  # it just called
        # The quiet seat's last call ages out of the presence window; the open stream keeps seat 0 present.
        poll(lambda: [s.present for s in get_game(spectator, game.name).seats] == [True, False], 15.0, "aged out")
        quiet.view(game.name)  # any call makes a seat present again
        assert [s.present for s in get_game(spectator, game.name).seats] == [True, True]
    finally:
        stream.cancel()
        spectator.close()


# --- Replicas and restarts -----------------------------------------------------------------------------------


def metric(server: InProcessServer, outcome: str) -> float:
    value = server.server.metrics.clock_firings.labels(outcome)._value.get()
    return float(value)


def test_two_replicas_fire_each_clock_exactly_once(
    stores: Stores, start_server: Callable[..., InProcessServer]
) -> None:
    store = stores.new_url()
    replicas = [start_server(store), start_server(store)]
    games = [new_game(replicas[i % 2].address, settings=clock(0.2, FORFEIT)) for i in range(4)]
    for index, game in enumerate(games):
        join(replicas[index % 2].address, game.name, 0)
        join(replicas[(index + 1) % 2].address, game.name, 1)
    for game in games:
        public = over_view(Player(replicas[0].address), game.name, timeout=30.0)
        assert public.winner_team == 1, "seat 0 never acted: its team conceded"
        expired = [e for e in event_log(replicas[1].address, game.name) if kind_of(e) == "clock_expired"]
        assert len(expired) == 1, f"{game.name}: {len(expired)} ClockExpired events"
    applied = sum(metric(r, "forfeit") for r in replicas)
    assert applied == len(games), "every firing applied was counted once, by the replica that applied it"


def test_a_restart_fires_the_clocks_that_ran_out_meanwhile(
    stores: Stores, start_server: Callable[..., InProcessServer], server_loop: LoopThread
) -> None:
    store = stores.new_url()
    first = start_server(store)
    game = new_game(first.address, settings=clock(1.5, FORFEIT))
    join(first.address, game.name, 0)
    joined = join(first.address, game.name, 1)
    deadline = joined.view(game.name).public.clock.deadline.ToMicroseconds() / 1e6
    first.stop()

    async def stored_kinds() -> list[str]:
        opened = await open_store(store)
        try:
            return [event.kind for event in await opened.read(game.name.removeprefix("games/"))]
        finally:
            await opened.close()

    assert "ClockExpired" not in server_loop.run(stored_kinds()), "the clock fired before the server stopped"
    time.sleep(max(0.0, deadline - time.time()))  # the clock runs out while no server is up
    second = start_server(store)
    public = over_view(Player(second.address), game.name, timeout=30.0)
    assert public.winner_team == 1
    assert server_loop.run(stored_kinds()).count("ClockExpired") == 1


# --- The life of a game --------------------------------------------------------------------------------------


def test_abandoned_games_are_closed_unlisted_and_still_readable(
    stores: Stores, start_server: Callable[..., InProcessServer]
) -> None:
    store = stores.new_url()
    lobby = start_server(store)
    nobody = new_game(lobby.address)
    half = new_game(lobby.address)
    join(lobby.address, half.name, 0)  # one of two seats: its match can never start
    full = new_game(lobby.address, bots=(1,))
    join(lobby.address, full.name, 0)
    # A replica that closes games whose table did not fill within 0.3 s (started after the joins: no race).
    server = start_server(store, abandon_after=0.3, housekeeping_seconds=0.05)
    spectator = Player(server.address)
    poll(lambda: get_game(spectator, nobody.name).closed and get_game(spectator, half.name).closed, 15.0, "closed")
    listed = spectator.games.ListGames(game_service_pb2.ListGamesRequest(), timeout=RPC_TIMEOUT).games
    assert {nobody.name, half.name}.isdisjoint(g.name for g in listed)
    assert not get_game(spectator, full.name).closed, "a game whose table filled is never abandoned"
    assert spectator.view(nobody.name).public.game == nobody.name
    with pytest.raises(grpc.RpcError) as refused:
        join(server.address, nobody.name, 1)
    assert failure_of(refused.value).reason == "SEAT_UNAVAILABLE"


def test_retention_removes_only_finished_and_closed_games(
    stores: Stores, start_server: Callable[..., InProcessServer], server_loop: LoopThread
) -> None:
    store = stores.new_url()
    server = start_server(store)
    finished = new_game(server.address, bots=(0, 1))  # bots play it to the end at once
    closed = new_game(server.address)
    live = new_game(server.address, settings=clock(60.0))
    join(server.address, live.name, 0)
    join(server.address, live.name, 1)
    old_open = new_game(server.address, bots=(1,))
    join(server.address, old_open.name, 0)  # a full table, waiting for its player: in play, never removed
    start_server(store, abandon_after=0.2, housekeeping_seconds=0.05)  # closes the game nobody joined
    spectator = Player(server.address)
    poll(lambda: get_game(spectator, closed.name).closed, 15.0, "closed")
    assert get_game(spectator, finished.name).phase == OVER
    result = subprocess.run(
        [str(TRUCO), "gc", "--store", store, "--older-than", "0"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "removed 2 games" in result.stdout
    for gone in (finished, closed):
        with pytest.raises(grpc.RpcError) as missing:
            get_game(spectator, gone.name)
        assert failure_of(missing.value).code == grpc.StatusCode.NOT_FOUND
    for kept in (live, old_open):
        assert get_game(spectator, kept.name).name == kept.name
    assert len(event_log_until(server.address, live.name, 1)) == 1


def test_serve_retention_removes_old_finished_games(
    stores: Stores, start_server: Callable[..., InProcessServer]
) -> None:
    server = start_server(stores.new_url(), retention=0.3, housekeeping_seconds=0.05)
    finished = new_game(server.address, bots=(0, 1))
    live = new_game(server.address)
    join(server.address, live.name, 0)
    spectator = Player(server.address)

    def removed() -> bool:
        try:
            get_game(spectator, finished.name)
        except grpc.RpcError as error:
            return failure_of(error).code == grpc.StatusCode.NOT_FOUND
        return False

    poll(removed, 15.0, "removed")
    assert get_game(spectator, live.name).name == live.name


def test_a_rematch_reseats_everyone_with_the_same_tokens(server: InProcessServer) -> None:
    game = new_game(server.address, players=4, settings=clock(0.2, FORFEIT), bots=(3,))
    players = [join(server.address, game.name, seat) for seat in range(3)]
    over_view(players[0], game.name, timeout=30.0)
    request = game_service_pb2.RematchRequest(name=game.name)
    response = players[1].games.Rematch(request, metadata=players[1].metadata, timeout=RPC_TIMEOUT)
    again = players[2].games.Rematch(request, metadata=players[2].metadata, timeout=RPC_TIMEOUT)
    following = response.game
    assert again.game.name == following.name and response.seat == 1 and again.seat == 2
    assert following.name != game.name and following.previous_game == game.name
    assert get_game(players[0], game.name).next_game == following.name
    assert following.rules.players == 4 and following.clock == game.clock
    kinds = [s.kind for s in following.seats]
    assert kinds == [game_service_pb2.SEAT_KIND_TAKEN] * 3 + [game_service_pb2.SEAT_KIND_BOT]
    assert [s.player_name for s in following.seats[:3]] == [
        s.player_name for s in get_game(players[0], game.name).seats[:3]
    ]
    for player in players:
        view = player.seat_view(following.name)  # the same token holds the same seat in the next game
        assert view.seat == player.seat
    first_dealers = [first_dealer(server.address, name) for name in (game.name, following.name)]
    assert first_dealers == [3, 0], "the rematch's first hand is dealt by the next seat: another mano"


def first_dealer(address: str, name: str) -> int:
    started = event_log_until(address, name, 1)[0]
    assert kind_of(started) == "match_started"
    return started.match_started.first_dealer


def test_only_a_finished_game_has_a_rematch(server: InProcessServer) -> None:
    game = new_game(server.address, settings=clock(60.0, FORFEIT))
    player = join(server.address, game.name, 0)
    with pytest.raises(grpc.RpcError) as unfinished:
        request = game_service_pb2.RematchRequest(name=game.name)
        player.games.Rematch(request, metadata=player.metadata, timeout=RPC_TIMEOUT)
    assert failure_of(unfinished.value).reason == "GAME_NOT_FINISHED"
    with pytest.raises(grpc.RpcError) as spectator:
        Player(server.address).games.Rematch(request, timeout=RPC_TIMEOUT)
    assert failure_of(spectator.value).reason == "TOKEN_MISSING"


def test_selfplay_finishes_a_match_with_a_dropped_seat(
    stores: Stores, start_server: Callable[..., InProcessServer]
) -> None:
    server = start_server(stores.new_url(), presence_seconds=1.0)  # its own server: no other test's games or clocks
    # Three games: now and then one ends before the dropped seat's clock ever runs (30-0 in three moves: a
    # falta envido or a contraflor al resto settles the match at once); three together almost never do.
    command = [str(TRUCO), "selfplay", "--server", server.address, "--players", "2", "--games", "3"]
    command += ["--clock", "0.2", "--drop-seat", "1"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "games     3/3 finished" in result.stdout
    taken = [line for line in result.stdout.splitlines() if line.startswith("takeover")]
    assert taken, result.stdout
    assert int(taken[0].split()[1]) > 0, taken[0]


def test_library_servers_have_no_clocks_unless_asked(server: InProcessServer) -> None:
    game = new_game(server.address)
    assert not game.HasField("clock")
    join(server.address, game.name, 0)
    player = join(server.address, game.name, 1)
    assert not player.view(game.name).public.HasField("clock")


# --- The stand-in's pace and grace -------------------------------------------------------------------------------

PACE = 0.25
"""The paced servers' stand-in: a decision every quarter second (the product's 3 s, scaled for tests)."""


@pytest.fixture
def paced_server(stores: Stores, start_server: Callable[..., InProcessServer]) -> InProcessServer:
    return start_server(stores.new_url(), stand_in=StandIn.seconds(PACE, 4.0))


def stand_in_decisions(address: str, name: str, seat: int) -> int:
    """The seat's decisions since it last went away, from a spectator's view of the log so far."""
    spectator = Player(address)
    try:
        version = spectator.view(name).public.version
    finally:
        spectator.close()
    events = event_log_until(address, name, version)
    gone = max(i for i, e in enumerate(events) if kind_of(e) in ("seat_left", "clock_expired"))
    return decisions_by(events, seat, after=gone)


@pytest.mark.parametrize("players", [2, 4])
def test_a_player_who_steps_away_comes_back_to_the_same_match(paced_server: InProcessServer, players: int) -> None:
    """Away is not gone: the stand-in plays the seat one decision per pace, the views say so and until when,
    and the player takes the seat back from another connection (another device holding its token). The other
    players play calmly (no falta envido of theirs ends the match); a bot sits beside seat 0 in four."""
    address = paced_server.address
    game = new_game(address, players=players, bots=(2,) if players == 4 else (), target=30)
    player = join(address, game.name, 0)
    others = [join(address, game.name, seat) for seat in range(1, players) if seat != 2 or players == 2]
    left_at = time.monotonic()
    view = leave(player, game.name)
    status = next(s for s in view.public.seats if s.seat == 0)
    assert status.taken_over and status.HasField("grace_until")
    grace = status.grace_until.ToMicroseconds() / 1e6 - time.time()
    assert 2.0 < grace <= 4.0, f"the grace ends 4 s after leaving, not in {grace:.1f} s"

    def others_play() -> bool:
        for other in others:
            act(other, game.name, calm=True)
        return stand_in_decisions(address, game.name, 0) >= 3

    poll(others_play, 10.0, "played by the stand-in")
    public = player.view(game.name).public
    away = time.monotonic() - left_at
    made = stand_in_decisions(address, game.name, 0)
    assert public.phase != OVER, "the match waited for its player at a person's pace"
    assert made <= away / PACE + 1, f"{made} stand-in decisions in {away:.2f} s: faster than its pace"
    other_device = Player(address, token=player.token)
    try:
        back = resume(other_device, game.name)
    finally:
        other_device.close()
    assert not taken_over(back.public, 0) and back.public.phase != OVER
    assert back.public.version > view.public.version, "the same match, gone on"
    for other in others:
        other.close()


def test_the_stand_in_clock_says_who_acts(paced_server: InProcessServer) -> None:
    game = new_game(paced_server.address, players=2, target=30)
    player = join(paced_server.address, game.name, 0)
    join(paced_server.address, game.name, 1)
    public = leave(player, game.name).public  # seat 0 is the mano: the match waits for its stand-in
    assert list(public.to_act) == [0]
    assert public.clock.stand_in and list(public.clock.seats) == [0]
    assert public.clock.deadline.ToMicroseconds() - public.clock.started.ToMicroseconds() == PACE * 1_000_000


def test_after_its_grace_the_stand_in_plays_at_the_bots_speed(
    stores: Stores, start_server: Callable[..., InProcessServer]
) -> None:
    """Both players leave: their stand-ins keep a person's pace for the second of grace, then the match is
    played out at the bots' speed (an empty table holds nobody)."""
    grace = 1.0
    server = start_server(stores.new_url(), stand_in=StandIn.seconds(PACE, grace))
    game = new_game(server.address, players=2, target=30)
    players = [join(server.address, game.name, seat) for seat in range(2)]
    left_at = time.monotonic()
    for player in players:
        leave(player, game.name)
    public = over_view(players[0], game.name, timeout=60.0)
    took = time.monotonic() - left_at
    assert public.phase == OVER and taken_over(public, 0) and taken_over(public, 1)
    events = event_log(server.address, game.name)
    made = decisions_by(events, 0) + decisions_by(events, 1)
    at_pace = grace + max(0.0, made - grace / PACE - 2) * PACE  # had every decision past the grace kept the pace
    assert took < at_pace + 1.0, f"{made} decisions took {took:.1f} s: the pace outlasted the grace"


def test_a_watch_of_the_table_hears_a_friend_sit_down_and_the_clock_start(server: InProcessServer) -> None:
    """WatchGame with ``table_changes``: a seat taken while others stay open is a message with no events at the
    same version (GetGame has the friend's name); the join that fills the table deals, and its commit carries
    the clock it started."""
    game = new_game(server.address, players=4, settings=clock(30.0), bots=(3,))
    host = join(server.address, game.name, 0)
    request = game_service_pb2.WatchGameRequest(name=game.name, per_commit=True, table_changes=True)
    stream = host.games.WatchGame(request, metadata=host.metadata, timeout=RPC_TIMEOUT)
    friends = []
    try:
        first = next(stream)
        assert first.events and not first.seat.public.HasField("clock"), "seats are open: no clock runs"
        friends.append(join(server.address, game.name, 1))
        changed = next(stream)
        assert not changed.events and changed.seat.public.version == first.seat.public.version
        assert get_game(host, game.name).seats[1].player_name == "seat 1"
        friends.append(join(server.address, game.name, 2))
        dealt = next(stream)
        assert "hand_dealt" in [kind_of(e) for e in dealt.events]
        assert list(dealt.seat.public.clock.seats) and set(dealt.seat.public.clock.seats) <= {0, 1, 2}
    finally:
        stream.cancel()
        for friend in friends:
            friend.close()
    plain = host.games.WatchGame(game_service_pb2.WatchGameRequest(name=game.name, per_commit=True), timeout=5)
    assert next(plain).events, "without table_changes, only commits"
    plain.cancel()


def start_with_bots(player: Player, name: str) -> game_service_pb2.StartWithBotsResponse:
    request = game_service_pb2.StartWithBotsRequest(name=name)
    return player.games.StartWithBots(request, metadata=player.metadata, timeout=RPC_TIMEOUT)


def refusal(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as refused:
        call()
    return failure_of(refused.value).kind


def test_the_host_starts_a_waiting_table_with_bots_at_the_games_level(server: InProcessServer) -> None:
    """StartWithBots: only the player who sat down first may start a table waiting for friends; the bots take
    the open seats at the level of the game's bots, the match is dealt and played on, and a second start, like
    any start after the deal, is refused and changes nothing."""
    creator = Player(server.address)
    request = game_service_pb2.CreateGameRequest(
        rules=rules_pb2.RuleSet(players=4, target=15),
        bots=[game_service_pb2.BotSeat(seat=3, level=game_service_pb2.BOT_LEVEL_BEGINNER)],
    )
    request.clock.CopyFrom(clock(30.0))
    game = creator.games.CreateGame(request, timeout=RPC_TIMEOUT).game
    creator.close()
    host = join(server.address, game.name, 0)
    friend = join(server.address, game.name, 2)
    spectator = Player(server.address)
    try:
        denied = (grpc.StatusCode.PERMISSION_DENIED, "NOT_TABLE_HOST")
        assert refusal(lambda: start_with_bots(friend, game.name)) == denied
        assert refusal(lambda: start_with_bots(spectator, game.name))[1] == "TOKEN_MISSING"
        assert not host.seat_view(game.name).cards, "refused starts deal nothing"

        started = start_with_bots(host, game.name)

        seats = [(s.kind, s.bot_level) for s in started.game.seats]
        beginner, bot = game_service_pb2.BOT_LEVEL_BEGINNER, game_service_pb2.SEAT_KIND_BOT
        taken = game_service_pb2.SEAT_KIND_TAKEN
        assert seats == [(taken, 0), (bot, beginner), (taken, 0), (bot, beginner)]
        assert [s.host for s in started.game.seats] == [True, False, False, False]
        assert len(started.view.cards) == 3 and started.view.public.HasField("clock")
        assert get_game(friend, game.name).seats[1].kind == bot
        assert refusal(lambda: start_with_bots(host, game.name)) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "GAME_ALREADY_STARTED",
        )
        for _ in range(40):  # the humans' moves: the bot in seat 1 answers for its team in between
            act(host, game.name, calm=True)
            act(friend, game.name, calm=True)
        version = host.seat_view(game.name).public.version
        made = decisions_by(event_log_until(server.address, game.name, version), 1)
        assert made > 0, "the bot that took the open seat plays it"
    finally:
        for player in (host, friend, spectator):
            player.close()


def test_a_table_that_filled_cannot_be_started_again(server: InProcessServer) -> None:
    """A friend's join that fills the table deals it: a start after it is GAME_ALREADY_STARTED; the bots'
    level of a game without bot seats is its clock's takeover bot."""
    game = new_game(server.address, players=2, settings=clock(30.0))
    host = join(server.address, game.name, 0)
    friend = join(server.address, game.name, 1)
    try:
        assert refusal(lambda: start_with_bots(host, game.name))[1] == "GAME_ALREADY_STARTED"
    finally:
        friend.close()
        host.close()
    alone = new_game(server.address, players=2, settings=clock(30.0))
    host = join(server.address, alone.name, 1)
    try:
        seat = start_with_bots(host, alone.name).game.seats[0]
        assert (seat.kind, seat.bot_level) == (game_service_pb2.SEAT_KIND_BOT, game_service_pb2.BOT_LEVEL_INTERMEDIATE)
    finally:
        host.close()


def test_a_table_started_on_one_replica_is_played_on_by_another_that_cached_it_waiting(
    start_server: Callable[..., InProcessServer], stores: Stores
) -> None:
    """The bots' seats reach every replica: one that rebuilt the table while it waited reads the new setup at
    the deal, and its bot plays the seat that was open."""
    url = stores.new_url()
    first, second = start_server(url), start_server(url)
    game = new_game(first.address, players=2, settings=clock(30.0))
    host = join(first.address, game.name, 0)
    elsewhere = Player(second.address, 0, host.token)
    try:
        assert not elsewhere.seat_view(game.name).cards, "the second replica has the waiting table cached"
        start_with_bots(host, game.name)
        for _ in range(20):
            act(elsewhere, game.name, calm=True)
        version = elsewhere.seat_view(game.name).public.version
        assert decisions_by(event_log_until(second.address, game.name, version), 1) > 0
    finally:
        elsewhere.close()
        host.close()


def test_a_table_with_an_open_seat_deals_only_when_it_fills(server: InProcessServer) -> None:
    """Waiting for friends: nothing is dealt while a player's seat is open, not even when a seated player leaves
    and comes back meanwhile; the join that fills the table deals, and the first decision's clock starts."""
    game = new_game(server.address, players=4, settings=clock(30.0), bots=(1, 3))
    host = join(server.address, game.name, 0)
    view = host.seat_view(game.name)
    assert not view.cards and not view.public.to_act and not view.public.HasField("clock")
    leave(host, game.name)
    resume(host, game.name)
    assert "hand_dealt" not in [kind_of(e) for e in event_log_until(server.address, game.name, view.public.version)]
    assert not host.seat_view(game.name).cards, "a seat left and taken back deals nothing"
    friend = join(server.address, game.name, 2)
    try:
        dealt = host.seat_view(game.name)
        assert len(dealt.cards) == 3 and dealt.public.to_act
        assert dealt.public.HasField("clock") and set(dealt.public.clock.seats) <= {0, 2}
        assert len(friend.seat_view(game.name).cards) == 3
    finally:
        friend.close()
        host.close()
