"""Real servers, fresh stores and seat clients for the end-to-end tests of the gRPC service (test_server_e2e.py).

Servers are real: :class:`InProcessServer` runs ``Server.start`` on a loopback port inside one background event
loop shared by the session (:class:`LoopThread`), and :class:`ProcessServer` runs ``truco serve`` as a child
process, for the tests that kill it. Stores are fresh: a new SQLite file or a new PostgreSQL database created
through the session's ``postgres_url`` admin connection (:class:`Stores`). Clients are plain synchronous gRPC
stubs, one channel per seat (:class:`Player`), so every call crosses a real HTTP/2 connection.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import os
import queue
import random
import re
import resource
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Coroutine, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import grpc
import psycopg
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from psycopg import sql

from truco.server.app import ServeConfig, Server
from truco.server.quotas import ConnectionLimits, Limits
from truco_client.v1 import (
    cards_pb2,
    commands_pb2,
    events_pb2,
    game_service_pb2,
    game_service_pb2_grpc,
    rules_pb2,
    rules_service_pb2_grpc,
    views_pb2,
)

T = TypeVar("T")

ROOT = Path(__file__).resolve().parent.parent
TRUCO = ROOT / ".venv" / "bin" / "truco"
BACKENDS = ("sqlite", "postgres")
DOMAIN = "truco.v1"
RPC_TIMEOUT = 20.0
"""Deadline of every unary call the helpers make: a hung server fails a test instead of hanging the suite."""
START_TIMEOUT = 60.0
TOKEN_KEY = "e2e-token-key-shared-by-every-test-server"
"""TRUCO_TOKEN_KEY of the test servers: a server on PostgreSQL refuses to start without one."""
LISTENING = re.compile(r"^truco serve: listening on port (\d+)")
WEB_LISTENING = re.compile(r"Connect/gRPC-Web on http://localhost:(\d+)/")
SUITS = {"e": cards_pb2.SUIT_ESPADA, "b": cards_pb2.SUIT_BASTO, "o": cards_pb2.SUIT_ORO, "c": cards_pb2.SUIT_COPA}
SUIT_LETTERS = {value: letter for letter, value in SUITS.items()}


# --- Stores ----------------------------------------------------------------------------------------------------


class Stores:
    """Fresh event stores of one backend: each :meth:`new_url` is a new SQLite file or a new PostgreSQL database."""

    def __init__(self, backend: str, directory: Path, admin_url: str | None = None) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}")
        if backend == "postgres" and admin_url is None:
            raise ValueError("the PostgreSQL backend needs an admin URL")
        self.backend = backend
        self.directory = directory
        self.admin_url = admin_url
        self._databases: list[str] = []

    def new_url(self) -> str:
        if self.backend == "sqlite":
            return f"sqlite:///{self.directory / f'e2e-{uuid.uuid4().hex[:12]}.db'}"
        assert self.admin_url is not None
        name = f"truco_e2e_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(self.admin_url, autocommit=True) as admin:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        self._databases.append(name)
        return urlunsplit(urlsplit(self.admin_url)._replace(path=f"/{name}"))

    def drop_all(self) -> None:
        if self.admin_url is None:
            return
        with psycopg.connect(self.admin_url, autocommit=True) as admin:
            for name in self._databases:
                admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        self._databases.clear()


# --- Servers ---------------------------------------------------------------------------------------------------


class LoopThread:
    """One asyncio event loop in a daemon thread, where every in-process server of the session runs.

    gRPC's asyncio server is bound to the loop it was made in; keeping them all in one loop (and the test
    clients synchronous) lets module-scoped servers outlive each test's own event loop.
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="e2e-servers", daemon=True)
        self._thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = START_TIMEOUT) -> T:
        return self.submit(coro).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        if not self._thread.is_alive():
            self.loop.close()


class InProcessServer:
    """``Server.start`` on 127.0.0.1 and a port it picks, running in the session's :class:`LoopThread`."""

    def __init__(
        self,
        loop: LoopThread,
        store: str,
        *,
        allow_fixed_deals: bool = False,
        metrics: bool = False,
        grace_seconds: float = 1.0,
        limits: Limits | None = None,
        connections: ConnectionLimits | None = None,
        require_api_key: bool = False,
        token_key: str = TOKEN_KEY,
        web: bool = False,
        **options: Any,
    ) -> None:
        """``options``: any other :class:`ServeConfig` field (clocks, presence, housekeeping...)."""
        self.loop = loop
        # Every test client comes from 127.0.0.1, one anonymous caller: quotas and connection caps are off unless
        # a test sets them.
        config = ServeConfig(
            store=store,
            host="127.0.0.1",
            port=0,
            metrics_port=0 if metrics else None,
            allow_fixed_deals=allow_fixed_deals,
            grace_seconds=grace_seconds,
            limits=Limits.unlimited() if limits is None else limits,
            connections=ConnectionLimits.unlimited() if connections is None else connections,
            require_api_key=require_api_key,
            token_key=token_key,
            web_port=0 if web else None,
            **options,
        )
        self.server: Server = loop.run(Server.start(config))
        self._stopping: concurrent.futures.Future[None] | None = None

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    @property
    def metrics_port(self) -> int | None:
        return self.server.metrics_port

    def begin_stop(self, grace: float) -> concurrent.futures.Future[None]:
        """Start a graceful stop (health NOT_SERVING, watchers told to resume elsewhere) without waiting."""
        if self._stopping is None:
            self._stopping = self.loop.submit(self.server.stop(grace))
        return self._stopping

    def stop(self, grace: float = 0.0) -> None:
        self.begin_stop(grace).result(START_TIMEOUT)


class ProcessServer:
    """``truco serve`` in a child process, on a port it picks (read from the first line it prints), or on ``port``
    (a restart on the port a killed server had)."""

    def __init__(
        self,
        store: str,
        workdir: Path,
        *,
        allow_fixed_deals: bool = False,
        grace: float = 2.0,
        port: int = 0,
        web: bool = False,
        limits: bool = False,
        args: Sequence[str] = (),
        open_files: int | None = None,
    ) -> None:
        """``limits``: the server's default quotas and connection caps (else ``--no-limits``); ``args``: more
        ``truco serve`` options; ``open_files``: its open-files limit, soft and hard (so it cannot raise it)."""
        workdir.mkdir(parents=True, exist_ok=True)
        self.store = store
        self.stderr_path = workdir / f"serve-{uuid.uuid4().hex[:8]}.stderr"
        command = [str(TRUCO), "serve", "--store", store, "--host", "127.0.0.1", "--port", str(port)]
        command += ["--metrics-port", "-1", "--web-port", "0" if web else "-1"]
        command += ["--grace", str(grace), "--log-format", "json", *([] if limits else ["--no-limits"]), *args]
        if allow_fixed_deals:
            command.append("--allow-fixed-deals")

        def limit_open_files() -> None:
            if open_files is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

        with self.stderr_path.open("wb") as stderr:
            self.process = subprocess.Popen(
                command,
                cwd=workdir,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                env={**os.environ, "TRUCO_TOKEN_KEY": TOKEN_KEY},
                preexec_fn=limit_open_files if open_files is not None else None,
            )
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, name="e2e-serve-stdout", daemon=True).start()
        try:
            first = self._lines.get(timeout=START_TIMEOUT)
        except queue.Empty:
            first = None
        match = LISTENING.match(first or "")
        if match is None:
            self.kill()
            raise RuntimeError(f"truco serve did not start: first line {first!r}; stderr:\n{self.stderr_text()}")
        self.port = int(match.group(1))
        web_match = WEB_LISTENING.search(first or "")
        self.web_port = int(web_match.group(1)) if web_match else None
        """The web port (Connect, gRPC-Web), for a server started with ``web=True``."""

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.process.pid

    def stderr_text(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL (kill -9): no shutdown code runs."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(30)

    def terminate(self, timeout: float = 30.0) -> int:
        """SIGTERM, the graceful stop; returns the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)
        return self.process.returncode


# --- Clients ---------------------------------------------------------------------------------------------------


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def new_id() -> str:
    return uuid.uuid4().hex


class Player:
    """One client on its own channel: a seat's (with its token) or a spectator's (no token)."""

    def __init__(self, address: str, seat: int | None = None, token: str | None = None) -> None:
        self.address = address
        self.seat = seat
        self.token = token
        self.channel = grpc.insecure_channel(address)
        self.games = game_service_pb2_grpc.GameServiceStub(self.channel)
        self.rules = rules_service_pb2_grpc.RulesServiceStub(self.channel)

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return bearer(self.token) if self.token else ()

    def view(self, name: str, min_version: int = 0) -> game_service_pb2.GetGameViewResponse:
        request = game_service_pb2.GetGameViewRequest(name=name, min_version=min_version)
        return self.games.GetGameView(request, metadata=self.metadata, timeout=RPC_TIMEOUT)

    def seat_view(self, name: str) -> views_pb2.SeatView:
        response = self.view(name)
        assert response.HasField("seat"), f"seat {self.seat} got no seat view"
        return response.seat

    def legal(self, name: str, min_version: int = 0) -> game_service_pb2.ListLegalActionsResponse:
        request = game_service_pb2.ListLegalActionsRequest(name=name, min_version=min_version)
        return self.games.ListLegalActions(request, metadata=self.metadata, timeout=RPC_TIMEOUT)

    def request(
        self, name: str, command: commands_pb2.Command | None, expected_version: int = 0, request_id: str | None = None
    ) -> game_service_pb2.SubmitCommandRequest:
        message = game_service_pb2.SubmitCommandRequest(
            name=name, request_id=new_id() if request_id is None else request_id, expected_version=expected_version
        )
        if command is not None:
            message.command.CopyFrom(command)
        return message

    def submit(
        self, name: str, command: commands_pb2.Command | None, expected_version: int = 0, request_id: str | None = None
    ) -> game_service_pb2.SubmitCommandResponse:
        request = self.request(name, command, expected_version, request_id)
        return self.games.SubmitCommand(request, metadata=self.metadata, timeout=RPC_TIMEOUT)

    def submit_future(self, request: game_service_pb2.SubmitCommandRequest) -> grpc.Future:
        return self.games.SubmitCommand.future(request, metadata=self.metadata, timeout=RPC_TIMEOUT)

    def watch(self, name: str, after_version: int = 0) -> Watcher:
        return Watcher(self, name, after_version)

    def close(self) -> None:
        self.channel.close()


@dataclass
class Table:
    """A game with every seat joined by a client of its own, and a spectator."""

    name: str
    game: game_service_pb2.Game
    players: list[Player]
    spectator: Player

    def public(self) -> views_pb2.MatchView:
        return self.spectator.view(self.name).public

    def version(self) -> int:
        return self.public().version

    def close(self) -> None:
        for player in (*self.players, self.spectator):
            player.close()


def rule_set(players: int, target: int = 15, **options: Any) -> rules_pb2.RuleSet:
    return rules_pb2.RuleSet(players=players, target=target, **options)


def create_game(
    address: str,
    players: int,
    *,
    target: int = 15,
    fixed_deals: Sequence[game_service_pb2.FixedDeal] = (),
    request_id: str | None = None,
    public: bool = False,
    **options: Any,
) -> game_service_pb2.Game:
    creator = Player(address)
    try:
        request = game_service_pb2.CreateGameRequest(
            request_id=new_id() if request_id is None else request_id,
            rules=rule_set(players, target, **options),
            fixed_deals=fixed_deals,
            public=public,
        )
        return creator.games.CreateGame(request, timeout=RPC_TIMEOUT).game
    finally:
        creator.close()


def join(address: str, name: str, seat: int | None = None, request_id: str | None = None) -> Player:
    player = Player(address)
    request = game_service_pb2.JoinGameRequest(
        name=name, request_id=new_id() if request_id is None else request_id, player_name=f"seat {seat}"
    )
    if seat is not None:
        request.seat = seat
    joined = player.games.JoinGame(request, timeout=RPC_TIMEOUT)
    player.seat, player.token = joined.seat, joined.seat_token
    return player


def open_table(
    address: str,
    players: int,
    *,
    target: int = 15,
    fixed_deals: Sequence[game_service_pb2.FixedDeal] = (),
    **options: Any,
) -> Table:
    """Create a game and join every seat, each through a channel (and token) of its own."""
    game = create_game(address, players, target=target, fixed_deals=fixed_deals, **options)
    seats = [join(address, game.name, seat) for seat in range(players)]
    assert [player.seat for player in seats] == list(range(players))
    return Table(game.name, game, seats, Player(address))


def reconnect(table: Table, address: str) -> Table:
    """The same seats (same tokens) through fresh channels to another server."""
    players = [Player(address, p.seat, p.token) for p in table.players]
    return Table(table.name, table.game, players, Player(address))


# --- Errors ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Failure:
    """A failed call as the client sees it: the status code and the ErrorInfo of the google.rpc.Status."""

    code: grpc.StatusCode
    reason: str
    metadata: dict[str, str]
    message: str

    @property
    def kind(self) -> tuple[grpc.StatusCode, str]:
        return self.code, self.reason


def failure_of(error: grpc.RpcError) -> Failure:
    """The code and ErrorInfo of a failed call ("" for a reason when the status carries no ErrorInfo)."""
    assert isinstance(error, grpc.Call)
    code = error.code()
    status = rpc_status.from_call(error)
    if status is None:
        return Failure(code, "", {}, error.details() or "")
    assert status.code == code.value[0], f"the Status in the trailers says {status.code}, the call {code}"
    infos = []
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            infos.append(info)
    assert len(infos) == 1, f"expected one ErrorInfo in {status}"
    assert infos[0].domain == DOMAIN, f"ErrorInfo domain {infos[0].domain!r}"
    return Failure(code, infos[0].reason, dict(infos[0].metadata), status.message)


def fails(call: Callable[[], object]) -> Failure:
    """Run ``call``, which must fail with an RPC error; return what the client saw."""
    try:
        result = call()
    except grpc.RpcError as error:
        return failure_of(error)
    raise AssertionError(f"the call succeeded: {result}")


# --- Cards and commands ----------------------------------------------------------------------------------------


def card(text: str) -> cards_pb2.Card:
    """``"1e"``, ``"12c"`` as a Card message."""
    return cards_pb2.Card(rank=int(text[:-1]), suit=SUITS[text[-1]])


def text_of(message: cards_pb2.Card) -> str:
    return f"{message.rank}{SUIT_LETTERS.get(message.suit, '?')}"


def texts(messages: Iterable[cards_pb2.Card]) -> list[str]:
    return [text_of(message) for message in messages]


def play(text: str) -> commands_pb2.Command:
    return commands_pb2.Command(play_card=commands_pb2.PlayCard(card=card(text)))


def call(kind: int) -> commands_pb2.Command:
    return commands_pb2.Command(call=commands_pb2.MakeCall(call=kind))


def answer(accept: bool) -> commands_pb2.Command:
    return commands_pb2.Command(answer=commands_pb2.Answer(accept=accept))


def mazo() -> commands_pb2.Command:
    return commands_pb2.Command(go_to_mazo=commands_pb2.GoToMazo())


def sena(kind: int) -> commands_pb2.Command:
    return commands_pb2.Command(send_sena=commands_pb2.SendSena(sena=kind))


def fixed_deal(hands: Sequence[str], muestra: str) -> game_service_pb2.FixedDeal:
    """A scripted deal: one string of three cards per player, from the mano (``"1e 2e 3e"``), and the muestra."""
    return game_service_pb2.FixedDeal(
        hands=[game_service_pb2.DealtHand(cards=[card(t) for t in hand.split()]) for hand in hands],
        muestra=card(muestra),
    )


def cards_in(message: Message, skip: frozenset[str] = frozenset()) -> list[cards_pb2.Card]:
    """Every Card message anywhere inside ``message`` (views, events, responses), but in fields named in
    ``skip``."""
    found: list[cards_pb2.Card] = []
    stack: list[Message] = [message]
    while stack:
        current = stack.pop()
        if isinstance(current, cards_pb2.Card):
            found.append(current)
            continue
        for descriptor, value in current.ListFields():
            if descriptor.message_type is None or descriptor.name in skip:
                continue
            if descriptor.is_repeated:
                stack.extend(value)
            else:
                stack.append(value)
    return found


def kind_of(event: events_pb2.Event) -> str:
    return event.WhichOneof("kind") or ""


# --- Watching --------------------------------------------------------------------------------------------------


class Watcher:
    """A WatchGame stream read by a thread of its own; ``items`` grows as messages arrive."""

    def __init__(self, player: Player, name: str, after_version: int = 0, *, per_commit: bool = False) -> None:
        self.player = player
        request = game_service_pb2.WatchGameRequest(name=name, after_version=after_version, per_commit=per_commit)
        self.call = player.games.WatchGame(request, metadata=player.metadata)
        self.items: list[game_service_pb2.WatchGameResponse] = []
        self.error: grpc.RpcError | None = None
        self.finished = False
        self.arrivals: list[float] = []
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._pump, name="e2e-watch", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        try:
            for item in self.call:
                with self._changed:
                    self.items.append(item)
                    self.arrivals.append(time.monotonic())
                    self._changed.notify_all()
        except grpc.RpcError as error:
            self.error = error
        finally:
            with self._changed:
                self.finished = True
                self._changed.notify_all()

    def wait_for(self, predicate: Callable[[Watcher], bool], timeout: float = 15.0, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate(self):
                remaining = deadline - time.monotonic()
                if self.finished or remaining <= 0:
                    break
                self._changed.wait(remaining)
            if not predicate(self):
                state = "ended" if self.finished else "timed out"
                raise AssertionError(f"watch {state} before {what or predicate}: error {self.error!r}")

    def wait_version(self, version: int, timeout: float = 15.0) -> None:
        self.wait_for(lambda w: w.last_version >= version, timeout, f"version {version}")

    def wait_finished(self, timeout: float = 30.0) -> None:
        self.wait_for(lambda w: w.finished, timeout, "the end of the stream")

    @property
    def last_version(self) -> int:
        events = self.events
        return events[-1].version if events else 0

    @property
    def events(self) -> list[events_pb2.Event]:
        """Every event received, in order (one per message, or each message's ``events`` with ``per_commit``)."""
        with self._changed:
            return [event for item in self.items for event in (item.events or [item.event])]

    def cancel(self) -> None:
        self.call.cancel()
        self._thread.join(15)


def replay(player: Player, name: str, version: int, timeout: float = 15.0) -> list[game_service_pb2.WatchGameResponse]:
    """Every message a watch from version 0 delivers up to the event at ``version`` (señas before it included)."""
    watcher = player.watch(name)
    try:
        if version > 0:
            watcher.wait_version(version, timeout)
        return [item for item in watcher.items if item.event.version <= version]
    finally:
        watcher.cancel()


def public_events(items: Iterable[game_service_pb2.WatchGameResponse]) -> list[events_pb2.Event]:
    return [item.event for item in items if kind_of(item.event) != "sena_sent"]


# --- Deals and privacy -----------------------------------------------------------------------------------------


@dataclass
class DealRecord:
    """One hand's deal as the seats learn it: HandDealt's seats and per-card commitments, each seat's own proofs
    (its HandDealt projection), and the proofs made public (the muestra, played cards, shown hands)."""

    number: int
    seats: tuple[int, ...]
    commitments: tuple[str, ...]
    hands: dict[int, frozenset[str]] = field(default_factory=dict)
    muestra: str = ""
    salts: dict[int, str] = field(default_factory=dict)  # position -> salt, of every dealt card
    owner: dict[int, int] = field(default_factory=dict)  # position -> seat whose card it is
    public: set[int] = field(default_factory=set)  # positions made public
    revealed: bool = False  # every seat's hand is known (from the seats' own proofs)


def proof_opens(commitments: Sequence[str], proof: events_pb2.CardProof) -> bool:
    """The documented per-card commitment, computed here independently of the server and of the SDK."""
    text = f"{proof.position}|{text_of(proof.card)}|{proof.salt}"
    return hashlib.sha256(text.encode("ascii")).hexdigest() == commitments[proof.position]


def deals_from(
    events: Iterable[events_pb2.Event], own_events: dict[int, Sequence[events_pb2.Event]]
) -> dict[int, DealRecord]:
    """The deals of a full event log (a spectator's), with every seat's own cards from the seats' logs. Checks
    that clients never receive a deal's order or secret, that every proof opens its commitment (each seat's own
    cards, the muestra, every played card, the shown hands) and that each proof names the card it proves."""
    deals: dict[int, DealRecord] = {}
    current: DealRecord | None = None
    for event in events:
        kind = kind_of(event)
        if kind == "hand_dealt":
            dealt = event.hand_dealt
            assert not dealt.order and not dealt.salt, f"HandDealt {dealt.number} carries the deck order or secret"
            assert not dealt.own, f"the spectator receives proofs of hand {dealt.number}'s cards"
            assert len(dealt.commitments) == 40 and len(set(dealt.commitments)) == 40
            digest = hashlib.sha256(" ".join(dealt.commitments).encode("ascii")).hexdigest()
            assert dealt.commitment == digest, "the deal's fingerprint is not its commitments' digest"
            current = DealRecord(dealt.number, tuple(dealt.seats), tuple(dealt.commitments))
            n = len(current.seats)
            assert dealt.muestra.position == 3 * n and proof_opens(current.commitments, dealt.muestra)
            current.muestra = text_of(dealt.muestra.card)
            current.public.add(dealt.muestra.position)
            deals[dealt.number] = current
        elif kind == "card_played":
            assert current is not None
            proof = event.card_played.proof
            assert text_of(proof.card) == text_of(event.card_played.card) and proof_opens(current.commitments, proof)
            current.public.add(proof.position)
        elif kind == "hand_ended":
            assert current is not None
            ended = event.hand_ended
            assert not ended.order and not ended.salt, "HandEnded reveals the deal"
            shown = [text_of(c) for hand in ended.shown for c in hand.cards]
            assert [text_of(p.card) for p in ended.proofs] == shown
            for proof in ended.proofs:
                assert proof_opens(current.commitments, proof), "a shown card does not open its commitment"
                current.public.add(proof.position)
    for seat, seat_events in own_events.items():
        for event in seat_events:
            if kind_of(event) != "hand_dealt":
                continue
            dealt = event.hand_dealt
            deal = deals[dealt.number]
            assert bool(dealt.own) == (seat in deal.seats), f"seat {seat}'s own proofs of hand {dealt.number}"
            for proof in dealt.own:
                assert proof_opens(deal.commitments, proof), f"seat {seat}'s own card does not open its commitment"
                deal.salts[proof.position] = proof.salt
                deal.owner[proof.position] = seat
            if dealt.own:
                deal.hands[seat] = frozenset(text_of(p.card) for p in dealt.own)
    for deal in deals.values():
        deal.revealed = set(deal.hands) == set(deal.seats)
    return deals


def without_own_proofs(event: events_pb2.Event) -> events_pb2.Event:
    """``event`` without the proofs only its seat receives (a HandDealt's ``own``)."""
    if kind_of(event) != "hand_dealt" or not event.hand_dealt.own:
        return event
    copy = events_pb2.Event()
    copy.CopyFrom(event)
    del copy.hand_dealt.own[:]
    return copy


def sealed_salts(deals: dict[int, DealRecord], seat: int | None) -> list[str]:
    """The salts of every card ``seat`` never saw: another seat's card never played nor shown."""
    return [
        salt
        for deal in deals.values()
        for position, salt in deal.salts.items()
        if position not in deal.public and deal.owner[position] != seat
    ]


def assert_sealed(message: Message, salts: Sequence[str], where: str) -> None:
    """``message`` holds none of ``salts`` (the proof of a card its receiver never saw), in any field."""
    data = message.SerializeToString()
    leaked = [salt for salt in salts if salt.encode("ascii") in data]
    assert not leaked, f"{where}: receives the salt of {len(leaked)} card(s) it never saw"


def assert_private(
    message: Message, public: views_pb2.MatchView, seat: int | None, deals: dict[int, DealRecord], where: str
) -> None:
    """``message`` (a seat's view, a spectator's view, a watch message...) shows no card of another seat that is
    still unplayed; a seat view holds exactly the seat's own unplayed cards."""
    if not public.HasField("hand"):
        return
    hand = public.hand
    deal = deals[hand.number]
    assert deal.revealed, f"{where}: hand {hand.number}'s hands are not all known"
    assert text_of(hand.muestra) == deal.muestra, f"{where}: the muestra differs from the revealed deal"
    played = {text_of(p.card) for r in hand.rounds for p in r.plays}
    if isinstance(message, views_pb2.SeatView):
        own = deal.hands.get(message.seat, frozenset())
        assert set(texts(message.cards)) == own - played, f"{where}: seat {message.seat} holds {texts(message.cards)}"
    assert not hand.revealed_order and not hand.revealed_salt, f"{where}: the deal is revealed"
    assert tuple(hand.commitments) == deal.commitments, f"{where}: the view's commitments differ from HandDealt's"
    if hand.ended:
        return
    hidden: set[str] = set()
    for other, cards in deal.hands.items():
        if other != seat:
            hidden |= cards - played
    leaked = set(texts(cards_in(message, frozenset({"last_hand"})))) & hidden  # last_hand: the previous deal
    assert not leaked, f"{where}: seat {seat} sees {sorted(leaked)} of another seat"


# --- Playing ---------------------------------------------------------------------------------------------------


@dataclass
class Move:
    """One move of the deterministic policy: who moved, what it and a spectator saw, what it sent and got back."""

    seat: int
    spectator: game_service_pb2.GetGameViewResponse
    before: game_service_pb2.GetGameViewResponse
    command: commands_pb2.Command
    response: game_service_pb2.SubmitCommandResponse


def step(table: Table, rng: random.Random | None = None) -> Move | None:
    """One move of the policy: the first seat of ``to_act`` sends the first legal action of its own view (with
    ``rng``: a random one, señas aside), with the version it saw as ``expected_version``. None once the match is
    over."""
    spectator = table.spectator.view(table.name)
    public = spectator.public
    if public.phase == views_pb2.PHASE_MATCH_OVER:
        return None
    assert public.to_act, f"nobody to act at version {public.version} in phase {public.phase}"
    player = table.players[public.to_act[0]]
    before = player.view(table.name)
    view = before.seat
    assert view.seat == player.seat and player.seat in view.public.to_act
    assert view.legal_actions, f"seat {player.seat} must act but has no legal action"
    command = view.legal_actions[0]
    if rng is not None:
        command = rng.choice([a for a in view.legal_actions if a.WhichOneof("kind") != "send_sena"])
    response = player.submit(table.name, command, expected_version=view.public.version)
    assert response.version > view.public.version
    assert player.seat is not None
    return Move(player.seat, spectator, before, command, response)


def play_to_end(table: Table, limit: int = 5000, rng: random.Random | None = None) -> list[Move]:
    moves: list[Move] = []
    for _ in range(limit):
        move = step(table, rng)
        if move is None:
            return moves
        moves.append(move)
    raise AssertionError(f"the match did not end within {limit} moves")


def play_until(table: Table, done: Callable[[Table], bool], limit: int = 500) -> list[Move]:
    moves: list[Move] = []
    for _ in range(limit):
        if done(table):
            return moves
        move = step(table)
        assert move is not None, "the match ended first"
        moves.append(move)
    raise AssertionError(f"not done within {limit} moves")


def snapshot(table: Table) -> list[bytes]:
    """Every seat's view and the spectator's, serialized: compare two to prove nothing changed."""
    return [p.view(table.name).SerializeToString(deterministic=True) for p in (*table.players, table.spectator)]


@contextlib.contextmanager
def unchanged(table: Table) -> Iterator[None]:
    """Assert that the block changes nothing: the version and every view are identical before and after."""
    before = snapshot(table)
    yield
    after = snapshot(table)
    assert after == before, "a refused command changed a view"


def wait_until(predicate: Callable[[], bool], timeout: float = 15.0, interval: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()
