"""Faults under load, through a real load balancer: ``scripts/cluster`` starts PostgreSQL (fsync on), three
``truco serve`` replicas and nginx (grpc_pass, game affinity on the ``x-truco-game`` metadata and round robin for
calls without it, passive failover) on loopback; ``truco selfplay`` plays many concurrent matches through nginx
while a replica is SIGKILLed, a replica is SIGTERMed, or PostgreSQL is stopped and started again. After each:
every game finished, every acknowledged move is stored exactly once, and every match in the store replays through
the engine (truco.server.core.audit). With game affinity, every call of a game lands on one replica, and a killed
replica's games move to the others with nothing lost. Quick match: 56 players of an app registered with ``truco
keys`` look for matches through nginx (the Python SDK, one channel each) while the replica holding the matcher's
lease is SIGKILLed: every ticket matched once, no player seated twice, parties on one team, one lease holder at a
time.

Needs nginx and PostgreSQL (both installed with apt-get by the scripts when missing, as root); without them the
module is skipped, except under CI=true, where it fails.
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest

from truco_client.v1 import game_service_pb2 as gs
from truco_client.v1 import game_service_pb2_grpc as gsg
from truco_client.v1 import views_pb2

from ..cluster_helpers import (
    ROOT,
    Found,
    Load,
    QuickMatchRecords,
    Seeker,
    applied_moves,
    assert_exactly_once_and_sound,
    audit_store,
    health,
    holder_pid,
    lease_holder,
    load_cluster_script,
    player_token,
    quick_match_records,
    register_app,
    replica_gauge,
    seek,
    ticket_states,
    wait_for_moves,
    wait_health,
)

# One cluster for the module: under pytest-xdist (--dist=loadgroup) every test of it runs in the same worker.
pytestmark = pytest.mark.xdist_group("cluster")

cluster_script = load_cluster_script()
REPLICAS = 3
GAMES = 16
"""Concurrent 2-player matches per run (32 seat clients, each with its own connection and watch stream)."""


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """``scripts/cluster up`` as a user runs it (the command, not its functions); ``scripts/cluster down`` after,
    which must leave none of the processes it started running."""
    if cluster_script.find_nginx() is None and (os.geteuid() != 0 or shutil.which("apt-get") is None):
        _unavailable("nginx is not installed and cannot be (needs root and apt-get)")
    directory = tmp_path_factory.mktemp("cluster") / "state"
    command = [str(ROOT / "scripts" / "cluster"), "--state", str(directory)]
    up = subprocess.run([*command[:1], "up", "--replicas", str(REPLICAS), *command[1:]], capture_output=True,
                        text=True, timeout=900)  # fmt: skip
    if up.returncode != 0:
        _unavailable(f"scripts/cluster up failed:\n{up.stderr[-3000:]}")
    state = cluster_script.State.load(directory)
    assert up.stdout.strip().splitlines()[-1] == state.balancer  # the last line printed is the balancer
    try:
        yield state
    finally:
        state = cluster_script.State.load(directory)  # replicas started again by the tests have new pids
        pids = [r.pid for r in state.replicas] + [state.nginx_pid, cluster_script.postgres_pid(state)]
        down = subprocess.run([*command[:1], "down", *command[1:]], capture_output=True, text=True, timeout=300)
        assert down.returncode == 0, down.stderr
        assert not [pid for pid in pids if cluster_script.alive(pid)], "scripts/cluster down left processes"
        assert not directory.exists()


def _replica(state: Any, index: int) -> Any:
    return next(r for r in state.replicas if r.index == index)


def _restart(state: Any, index: int) -> None:
    """Start replica ``index`` again on its old port (nginx's upstream list stays valid) and wait till it serves."""
    old = _replica(state, index)
    replica = cluster_script.start_replica(state, index, old.port)
    wait_health([replica.address], "SERVING", 30)


def _upstreams(state: Any, since: int) -> Counter[str]:
    """Replica address -> calls nginx sent it, from its access log (lines after ``since``)."""
    time.sleep(1.1)  # the access log is flushed every second
    lines = (Path(state.directory) / "nginx" / "access.log").read_text().splitlines()[since:]
    return Counter(word.split("=", 1)[1] for line in lines for word in line.split() if word.startswith("upstream="))


def _log_lines(state: Any, name: str) -> int:
    path = Path(state.directory) / "nginx" / name
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_the_balancer_spreads_matches_over_every_replica_and_applies_each_move_once(cluster: Any) -> None:
    since = _log_lines(cluster, "access.log")
    run = Load(cluster.balancer, games=5, players=4).finish()
    assert_exactly_once_and_sound(cluster.postgres_url, run, 5)
    calls = _upstreams(cluster, since)
    assert set(calls) == {r.address for r in cluster.replicas}, calls


ACCESS = re.compile(r'"POST (\S+) HTTP/2.0" (\d+) .* upstream=(.*) upstream_status=.* game=(\S+)$')


def _calls_by_game(state: Any, since: int, watched: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
    """Game (``-``: none) -> (method, the replica that answered) of every answered call in the access log after
    ``since``, once the log shows a WatchGame of each game in ``watched`` (each table's last call). A call nginx
    passed on after a failure lists every replica it tried; the last one answered. A call nginx could not pass on
    (its 502, which the client sends again) was answered by none."""
    deadline = time.monotonic() + 30
    while True:
        # The access log is buffered (flushed every second), and a cancelled stream's line is written when nginx
        # has closed it upstream too: a busy machine may take a few seconds.
        calls: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for line in (Path(state.directory) / "nginx" / "access.log").read_text().splitlines()[since:]:
            if (match := ACCESS.search(line)) and match[2] == "200":
                method, _, upstreams, game = match.groups()
                calls[game].append((method, upstreams.split(", ")[-1].strip()))
        logged = all(any(m.endswith("/WatchGame") for m, _ in calls[game]) for game in watched)
        if logged or time.monotonic() > deadline:
            return calls
        time.sleep(0.2)


T = TypeVar("T")


def _sent_again(call: Callable[[], T]) -> T:
    """``call``, sent again on UNAVAILABLE as the SDKs do (a move's request id applies it once). nginx passes a call
    that could not reach a dead replica to the next one, but not one already written to a kept-alive connection
    that the death then reset: a gRPC request body is streamed, not buffered, so nginx has nothing to send again,
    and the client gets a 502 (UNAVAILABLE)."""
    for attempt in range(3):
        try:
            return call()
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE or attempt == 2:
                raise
    raise AssertionError("unreachable")


class _Table:
    """A match against a server bot, every call naming its game in ``x-truco-game`` (as the SDKs send it)."""

    def __init__(self, stub: gsg.GameServiceStub) -> None:
        self.stub = stub
        bots = [gs.BotSeat(seat=1, kind=gs.BOT_KIND_RANDOM)]
        self.name = stub.CreateGame(gs.CreateGameRequest(request_id=uuid.uuid4().hex, bots=bots)).game.name
        self.game = [("x-truco-game", self.name)]
        joined = stub.JoinGame(
            gs.JoinGameRequest(name=self.name, seat=0, request_id=uuid.uuid4().hex), metadata=self.game
        )
        self.metadata = [*self.game, ("authorization", f"Bearer {joined.seat_token}")]
        self.view = joined.view
        self.moves = 0

    def play(self, moves: int) -> None:
        for _ in range(moves):
            if self.view.public.phase == views_pb2.PHASE_MATCH_OVER:
                break  # the watch below still lands, on the finished match
            # A card when one is legal: a first legal action such as a falta envido the bot accepts can end the
            # match in two moves.
            actions = self.view.legal_actions
            command = next((a for a in actions if a.WhichOneof("kind") == "play_card"), actions[0])
            request = gs.SubmitCommandRequest(
                name=self.name, request_id=uuid.uuid4().hex, expected_version=self.view.public.version, command=command
            )
            self.view = _sent_again(functools.partial(self._submit, request)).view
            self.moves += 1
        watch = gs.WatchGameRequest(name=self.name, after_version=0, per_commit=True)
        _sent_again(functools.partial(self._first_of, watch))  # a watch lands with the game's other calls

    def _submit(self, request: gs.SubmitCommandRequest) -> gs.SubmitCommandResponse:
        return self.stub.SubmitCommand(request, metadata=self.metadata, timeout=30)

    def _first_of(self, request: gs.WatchGameRequest) -> gs.WatchGameResponse:
        watch = self.stub.WatchGame(request, metadata=self.metadata, timeout=30)
        try:
            return next(iter(watch))
        finally:
            watch.cancel()


def test_every_call_of_a_game_lands_on_one_replica_and_moves_when_it_dies(cluster: Any) -> None:
    since = _log_lines(cluster, "access.log")
    with grpc.insecure_channel(cluster.balancer) as channel:
        stub = gsg.GameServiceStub(channel)
        tables = [_Table(stub) for _ in range(12)]
        for table in tables:
            table.play(3)
        before = _calls_by_game(cluster, since, [table.name for table in tables])
        # Calls naming no game (CreateGame) go round robin; every call of a game to the one replica its hash picks.
        assert {replica for _, replica in before["-"]} == {r.address for r in cluster.replicas}, before["-"]
        home = {}
        for table in tables:
            methods = {method.rsplit("/", 1)[1] for method, _ in before[table.name]}
            assert {"JoinGame", "SubmitCommand", "WatchGame"} <= methods, before[table.name]
            (home[table.name],) = {replica for _, replica in before[table.name]}
        assert len(set(home.values())) >= 2, f"12 games hashed onto one replica: {home}"
        busiest = Counter(home.values()).most_common(1)[0][0]
        victim = next(r for r in cluster.replicas if r.address == busiest)
        since = _log_lines(cluster, "access.log")
        cluster_script.stop_replica(victim, signal.SIGKILL)
        try:
            for table in tables:
                table.play(3)
            after = _calls_by_game(cluster, since, [table.name for table in tables])
        finally:
            _restart(cluster, victim.index)
    for table in tables:
        replicas = {replica for _, replica in after[table.name]}
        if home[table.name] == victim.address:  # moved, all of it to one other replica
            assert len(replicas) == 1 and victim.address not in replicas, after[table.name]
        else:  # the others stay where they were
            assert replicas == {home[table.name]}, after[table.name]
    names = [table.name.removeprefix("games/") for table in tables]
    assert applied_moves(cluster.postgres_url, names) == sum(table.moves for table in tables)
    assert audit_store(cluster.postgres_url).corrupt == []


def _open_watches(replica: Any) -> float:
    """The replica's open WatchGame streams, from its /metrics (0 if it does not answer)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{replica.metrics_port}/metrics", timeout=5) as response:
            text = response.read().decode()
    except OSError:
        return 0.0
    found = re.search(r"^truco_watchers (\S+)$", text, re.M)
    return float(found.group(1)) if found else 0.0


def test_a_replica_killed_mid_load(cluster: Any) -> None:
    errors_before = _log_lines(cluster, "error.log")
    load = Load(cluster.balancer, games=GAMES)
    victim: Any = None
    try:
        wait_for_moves(cluster.postgres_url, 60)
        # The replica with the most watch streams open now (the hash decides where games live, and a fixed
        # replica may hold none of this load's games, or only finished ones).
        deadline = time.monotonic() + 10
        while victim is None and time.monotonic() < deadline:
            watches = {replica.index: _open_watches(replica) for replica in cluster.replicas}
            if max(watches.values()) > 0:
                victim = _replica(cluster, max(watches, key=lambda index: watches[index]))
        assert victim is not None, "no replica has a watch stream open mid-load"
        cluster_script.stop_replica(victim, signal.SIGKILL)
        run = load.finish()
    finally:
        if victim is not None:
            _restart(cluster, victim.index)
    assert_exactly_once_and_sound(cluster.postgres_url, run, GAMES)
    # Watch streams were open on the killed replica: nginx saw them cut, and the games still finished, so
    # their watchers resumed through nginx on the other replicas.
    errors = (Path(cluster.directory) / "nginx" / "error.log").read_text().splitlines()[errors_before:]
    cut = [line for line in errors if victim.address in line and "WatchGame" in line]
    assert cut, "no watch stream was open on the killed replica"


def test_a_replica_stopped_with_sigterm_mid_load(cluster: Any) -> None:
    victim = _replica(cluster, 2)
    load = Load(cluster.balancer, games=GAMES)
    try:
        wait_for_moves(cluster.postgres_url, 60)
        started = time.monotonic()
        os.kill(victim.pid, signal.SIGTERM)
        stopped = cluster_script.wait_gone(victim.pid, cluster_script.SERVER_GRACE + 10)
        assert stopped, "the replica did not stop:\n" + "\n".join(Path(victim.log).read_text().splitlines()[-20:])
        stopped_in = time.monotonic() - started
        run = load.finish()
    finally:
        if cluster_script.alive(victim.pid):  # it did not stop (a failure above): leave nothing of it running
            cluster_script.stop_replica(victim, signal.SIGKILL)
        load.process.kill()  # a no-op once it finished
        _restart(cluster, 2)
    assert_exactly_once_and_sound(cluster.postgres_url, run, GAMES)
    assert stopped_in < cluster_script.SERVER_GRACE + 5
    # In-flight calls finished or, cut by the stopping replica (CANCELLED) or by nginx, were sent again by the
    # SDK with the same request id (applied once: checked above); new ones went elsewhere. The clients saw no
    # error but the version conflicts of concurrent play (seats racing for the same move), which are part of
    # the game, not of the shutdown.
    reasons = {item.strip().rsplit(" ", 1)[0] for item in run.errors.split(",")} - {"none"}
    assert reasons <= {"VERSION_CONFLICT"}, run.output[-3000:]
    log = Path(victim.log).read_text()
    assert '"event": "shutdown"' in log


def test_postgresql_restarted_mid_load(cluster: Any) -> None:
    replicas = [r.address for r in cluster.replicas]
    load = Load(cluster.balancer, games=GAMES, retries=40)
    try:
        wait_for_moves(cluster.postgres_url, 60)
        cluster_script.halt_postgres(cluster)
        try:
            # Every replica notices (it checks its store every 2 s) and turns NOT_SERVING: out of rotation.
            wait_health(replicas, "NOT_SERVING", 15)
        finally:
            cluster_script.resume_postgres(cluster)
        # Nobody touches the servers: they reconnect and serve again by themselves.
        wait_health(replicas, "SERVING", 30)
        assert health(cluster.balancer) == "SERVING"
        run = load.finish()
    except BaseException:
        load.process.kill()
        raise
    assert_exactly_once_and_sound(cluster.postgres_url, run, GAMES)


# --- The matcher's replica killed mid-run ------------------------------------------------------------------------

PARTIES = 12
"""4-player parties of 2. Each first member opens its ticket at once and waits for its partner, who comes only after
the kill: tickets wait on every replica, the killed one's included, when the matcher dies."""
SOLOS_4 = 8
SOLOS_2 = 24
ARRIVAL_GAP = 0.25
"""Seconds between two players' arrivals: the 2-player ones arrive over 6 s, through the kill."""
TAKEOVER_BOUND = 30.0
"""Not a timing: the lease lapses 3 s (LEASE_SECONDS) after its holder's last tick; only a matcher that never came
back fails it."""
RUN_BOUND = 240.0
"""Every player matched by then, or the test fails (a hang: the tickets wait 150 s at most)."""


def _population(prefix: str) -> tuple[list[Seeker], list[Seeker], list[Seeker]]:
    """(Who opens a ticket at once, the 2-player players arriving one by one through the kill, who arrives after
    the kill): 56 players, 12 two-player tables and 8 four-player ones."""
    parties = [(f"{prefix}-p{i}a", f"{prefix}-p{i}b") for i in range(PARTIES)]
    solos = [Seeker(f"{prefix}-f{i}", 4) for i in range(SOLOS_4)]
    first = [Seeker(a, 4, (b,)) for a, b in parties] + solos[: SOLOS_4 // 2]
    partners = [Seeker(b, 4, (a,)) for a, b in parties] + solos[SOLOS_4 // 2 :]
    return first, [Seeker(f"{prefix}-d{i}", 2) for i in range(SOLOS_2)], partners


def _matcher_replica(state: Any) -> tuple[Any, str]:
    """The replica running the matcher, as an operator finds it (its truco_matcher_leading gauge), checked against
    the lease row's holder (host:pid:random); and that holder."""
    deadline = time.monotonic() + 30
    while True:
        leading = [r for r in state.replicas if replica_gauge(r, "truco_matcher_leading") == 1]
        holder = lease_holder(state.postgres_url)
        if len(leading) == 1 and holder_pid(holder) == leading[0].pid:
            return leading[0], holder
        assert time.monotonic() < deadline, f"no one replica holds the matcher's lease: {leading}, {holder!r}"
        time.sleep(0.2)


class _MatcherKill:
    """The run: players looking for quick matches through nginx, the matcher's replica SIGKILLed once the first
    tables are made, started again once another replica took the lease over; the lease row watched throughout."""

    def __init__(self, state: Any, victim: tuple[Any, str], app: str, tokens: dict[str, str]) -> None:
        self.state, (self.victim, self.victim_holder), self.app, self.tokens = state, victim, app, tokens
        self.holders: list[tuple[float, str]] = []  #: (when, the lease's holder) every 0.1 s
        self.killed_at = 0.0
        self.taken_over_in: float | None = None

    async def run(self, first: list[Seeker], solos: list[Seeker], partners: list[Seeker]) -> list[Found | None]:
        watcher = asyncio.create_task(self._watch_lease())
        seekers = [asyncio.create_task(self._seek(s)) for s in first]
        arriving = asyncio.create_task(self._arrive(solos, seekers))
        try:
            await self._until(lambda states: states["waiting"] + states["matched"] >= len(first) + 1
                              and states["matched"] >= 8)  # fmt: skip
            await asyncio.to_thread(cluster_script.stop_replica, self.victim, signal.SIGKILL)
            self.killed_at = time.monotonic()
            restart = asyncio.create_task(self._restart_after_takeover())
            await self._arrive(partners, seekers)
            await arriving
            found = await asyncio.wait_for(asyncio.gather(*seekers), RUN_BOUND)
            await restart
            return found
        finally:
            watcher.cancel()
            for task in seekers:
                task.cancel()

    async def _seek(self, seeker: Seeker) -> Found | None:
        return await seek(self.state.balancer, self.tokens[seeker.sub], seeker)

    async def _arrive(self, seekers: list[Seeker], tasks: list[asyncio.Task[Found | None]]) -> None:
        for seeker in seekers:
            tasks.append(asyncio.create_task(self._seek(seeker)))
            await asyncio.sleep(ARRIVAL_GAP)

    async def _until(self, condition: Callable[[Counter[str]], bool], timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition(states := await asyncio.to_thread(ticket_states, self.state.postgres_url, self.app)):
            assert time.monotonic() < deadline, f"tickets after {timeout:g} s: {states}"
            await asyncio.sleep(0.1)

    async def _watch_lease(self) -> None:
        while True:
            holder = await asyncio.to_thread(lease_holder, self.state.postgres_url)
            self.holders.append((time.monotonic(), holder))
            await asyncio.sleep(0.1)

    async def _restart_after_takeover(self) -> None:
        while self.taken_over_in is None:
            taken = [at for at, h in self.holders if at > self.killed_at and h not in ("", self.victim_holder)]
            if taken:
                self.taken_over_in = taken[0] - self.killed_at
            else:
                assert time.monotonic() - self.killed_at < TAKEOVER_BOUND, "no replica took the matcher's lease"
                await asyncio.sleep(0.1)
        await asyncio.to_thread(_restart, self.state, self.victim.index)


def _assert_each_ticket_matched_once(records: QuickMatchRecords, found: list[Found | None], seekers: int) -> None:
    """Every player matched, from one ticket (a broken stream resumed it: no second ticket), to the seat its
    client was told and its seat token shows; no player seated twice; each game's seats exactly its tickets'."""
    assert None not in found, f"{found.count(None)} players left unmatched"
    states = Counter(state for _, _, state, _, _, _ in records.tickets)
    assert states == {"matched": seekers}, f"tickets: {states} (players: {seekers})"
    by_ticket = {f"tickets/{t}": (f"games/{g}", seat) for t, _, _, g, seat, _ in records.tickets}
    for one in found:
        assert one is not None and by_ticket[one.ticket] == (one.game, one.seat) and one.viewed_seat == one.seat
    seated = Counter(player for _, _, player in records.seats)
    assert set(seated.values()) == {1} and len(seated) == seekers, "a player seated twice, or not at all"
    tables: dict[str, set[tuple[int, str]]] = defaultdict(set)
    for _, player, _, game, seat, _ in records.tickets:
        tables[game].add((seat, player))
    seats: dict[str, set[tuple[int, str]]] = defaultdict(set)
    for game, seat, player in records.seats:
        seats[game].add((seat, player))
    assert seats == tables  # every seat taken by its ticket's player, no one else's
    assert all(len({seat for seat, _ in table}) in (2, 4) for table in tables.values())
    # The matcher's games that no ticket was matched to: at most the table the killed matcher was creating when
    # it died (a doubled matcher racing for the same tickets leaves one per race).
    assert len(set(records.games) - set(tables)) <= 1, set(records.games) - set(tables)


def _assert_parties_sit_together(records: QuickMatchRecords) -> None:
    placed = {player: (game, seat) for _, player, _, game, seat, _ in records.tickets}
    parties = {party for *_, party in records.tickets if party}
    assert len(parties) == PARTIES
    for party in parties:  # one game, one team (even seats or odd seats)
        assert len({(placed[member][0], placed[member][1] % 2) for member in party}) == 1, party


def _lease_history(holders: list[tuple[float, str]]) -> list[str]:
    """The lease's holders in turn (lapses left out)."""
    history: list[str] = []
    for _, holder in holders:
        if holder and (not history or history[-1] != holder):
            history.append(holder)
    return history


def test_the_matchers_replica_killed_mid_run_loses_no_ticket_and_seats_no_one_twice(
    cluster: Any, tmp_path: Path
) -> None:
    app, secret = register_app(cluster.postgres_url, "matcher fault test", tmp_path)
    first, solos, partners = _population(uuid.uuid4().hex[:8])
    everyone = first + solos + partners
    tokens = {seeker.sub: player_token(app, secret, seeker.sub) for seeker in everyone}
    victim = _matcher_replica(cluster)
    since = {name: _log_lines(cluster, name) for name in ("access.log", "error.log")}
    run = _MatcherKill(cluster, victim, app, tokens)
    try:
        found = asyncio.run(run.run(first, solos, partners))
    finally:
        if not cluster_script.alive(_replica(cluster, victim[0].index).pid):
            _restart(cluster, victim[0].index)
    records = quick_match_records(cluster.postgres_url, app)
    _assert_each_ticket_matched_once(records, found, len(everyone))
    _assert_parties_sit_together(records)
    # One matcher at a time: the killed replica's, then survivors' only (the restarted replica did not take it
    # back). Usually one survivor keeps it; a survivor stalled past its lease (a loaded machine) may hand it to
    # the other, which is no second matcher: a holder that lost its lease stops before its next table.
    history = _lease_history(run.holders)
    assert len(history) >= 2 and history[0] == victim[1], history
    survivors = {r.pid: r for r in cluster.replicas if r.index != victim[0].index}
    assert all(holder_pid(holder) in survivors for holder in history[1:]), history
    survivor = survivors[holder_pid(history[-1])]
    assert replica_gauge(survivor, "truco_matcher_leading") == 1
    assert [replica_gauge(r, "truco_matcher_leading") for r in cluster.replicas].count(1) == 1
    assert run.taken_over_in is not None and run.taken_over_in < TAKEOVER_BOUND
    # Streams were open on the killed replica (nginx saw them cut), and their players were matched above: their
    # clients opened them again with the same request id, on the survivors.
    errors = (Path(cluster.directory) / "nginx" / "error.log").read_text().splitlines()[since["error.log"] :]
    cut = [line for line in errors if victim[0].address in line and "FindMatch" in line]
    assert cut, "no FindMatch stream was open on the killed replica"
    opened = _find_match_calls(cluster, since["access.log"], len(everyone))
    print(
        f"matcher kill: {len(everyone)} players, {len(records.tickets)} tickets, {len(set(records.games))} games"
        f" created, lease taken over {run.taken_over_in:.2f} s after the SIGKILL, {opened} FindMatch calls"
        f" ({opened - len(everyone)} opened again after a cut)"
    )


def _find_match_calls(state: Any, since: int, at_least: int) -> int:
    """FindMatch calls nginx logged after ``since`` (a call's line is written when it ends, flushed every second):
    once there are ``at_least`` and no more come for 2 s."""
    counts: list[int] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        lines = (Path(state.directory) / "nginx" / "access.log").read_text().splitlines()[since:]
        counts.append(sum("/FindMatch " in line for line in lines))
        if counts[-1] >= at_least and counts[-5:] == [counts[-1]] * 5:
            break
        time.sleep(0.5)
    return counts[-1]
