"""Connection-level limits (truco.server.doors.connections): one client cannot hold the descriptors everybody needs.

The end-to-end tests attack a real ``truco serve`` from loopback addresses of their own (127.0.0.2 to .6), so the
calls that must still answer come from another client address (127.0.0.1), as a health probe does.
"""

from __future__ import annotations

import collections
import http.client
import json
import os
import resource
import selectors
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import h2.connection
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from truco.server.core.quotas import ConnectionLimits
from truco.server.doors.connections import (
    Activity,
    ConnectionCounts,
    Policy,
    client_group,
    grpc_options,
    guard_pause,
    plan,
    victims,
)
from truco.server.doors.socket_diag import Connection, netlink_connections, peer_string, proc_connections, shut_owned
from truco_client.v1 import cards_pb2, rules_service_pb2, rules_service_pb2_grpc

from ..servers import ProcessServer

ATTACKERS = ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5")
GUARDED = "127.0.0.6"
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # and empty SETTINGS
EVALUATE_PATH = "/truco.v1.RulesService/EvaluateHand"


# --- The plan and the bookkeeping ----------------------------------------------------------------------------------


def test_client_groups_are_ipv4_addresses_and_ipv6_slash_64s() -> None:
    assert client_group("203.0.113.7") == "203.0.113.7"
    assert client_group("::ffff:203.0.113.7") == "203.0.113.7"  # a dual-stack socket's IPv4 client
    assert client_group("2001:db8:1:2:aaaa::1") == client_group("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert client_group("2001:db8:1:3::1") != client_group("2001:db8:1:2::1")
    assert client_group("fe80::1%eth0") == "fe80::/64"
    assert client_group("unix:/tmp/s") == "unix:/tmp/s"


def test_the_plan_keeps_descriptors_back_and_splits_the_rest_between_the_ports() -> None:
    caps = plan(ConnectionLimits(), web=True, descriptors=1024, in_use=40)
    assert caps.grpc is not None and caps.web is not None and caps.per_address is not None
    assert caps.grpc + caps.web == 1024 - 40 - 64
    assert caps.per_address == caps.web // 8  # an eighth of a small port's share
    big = plan(ConnectionLimits(), web=False, descriptors=1_048_576, in_use=40)
    assert big.web is None and big.grpc == 1_048_576 - 40 - 1_048_576 // 50
    assert big.per_address == 256
    chosen = plan(ConnectionLimits(max_connections=100, per_address=7), web=True, descriptors=1024)
    assert (chosen.grpc, chosen.web, chosen.per_address) == (50, 50, 7)
    off = plan(ConnectionLimits.unlimited(), web=True, descriptors=1024)
    assert (off.grpc, off.web, off.per_address) == (None, None, None)


def test_counts_refuse_past_either_cap_and_give_places_back() -> None:
    counts = ConnectionCounts(total=3, per_group=2)
    assert counts.admit("a") is None and counts.admit("a") is None
    assert counts.admit("a") == "per_address"
    assert counts.admit("b") is None
    assert counts.admit("c") == "total"
    counts.release("a")
    assert counts.admit("c") is None
    assert counts.groups == {"a": 1, "b": 1, "c": 1} and counts.total == 3


def _connection(peer_port: int, address: str = "10.0.0.1", silent_ms: int = 0) -> Connection:
    return Connection(peer_string(address, peer_port), address, peer_port, silent_ms)


def test_connections_that_never_call_are_shut_after_the_quiet_limit() -> None:
    old, young, caller = _connection(1), _connection(2), _connection(3)
    activity = Activity()
    activity.begin(caller.peer)
    first_seen = {old.peer: 0.0, young.peer: 15.0, caller.peer: 0.0}
    policy = Policy(cap=None, per_address=None, quiet_seconds=10.0, idle_seconds=300.0)
    assert victims([old, young, caller], activity, first_seen, 20.0, policy) == [old]


def test_a_crowded_address_keeps_its_connections_with_a_call_open_then_the_talkative() -> None:
    """A spectator's connection (a stream open, silent for long) outlives a chatty one with no call open."""
    spectator = _connection(1, silent_ms=90_000)
    chatty = _connection(2, silent_ms=10)
    silent = _connection(3, silent_ms=50_000)
    elsewhere = _connection(4, address="10.0.0.2", silent_ms=99_000)
    activity = Activity()
    for connection in (spectator, chatty, silent, elsewhere):
        activity.begin(connection.peer)
        activity.end(connection.peer)
    activity.begin(spectator.peer)
    policy = Policy(cap=None, per_address=2, quiet_seconds=1e9, idle_seconds=300.0)
    chosen = victims([spectator, chatty, silent, elsewhere], activity, {}, 0.0, policy)
    assert chosen == [silent]


def test_a_port_near_its_cap_evicts_the_longest_silent_that_never_called() -> None:
    quiet = [_connection(port, address=f"10.0.0.{port}", silent_ms=port * 1000) for port in range(1, 101)]
    callers = [_connection(port, address=f"10.0.1.{port - 100}") for port in range(101, 201)]
    activity = Activity()
    for connection in callers:
        activity.begin(connection.peer)
    policy = Policy(cap=200, per_address=None, quiet_seconds=1e9, idle_seconds=300.0)
    assert policy.headroom == 4
    chosen = victims([*quiet, *callers], activity, {}, 0.0, policy)
    assert sorted(c.inode for c in chosen) == [97, 98, 99, 100]  # the four longest silent of those that never called


def test_socket_diagnostics_list_a_ports_connections_with_their_silence() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    clients, served = [], []
    try:
        for source in ("127.0.0.2", "127.0.0.3"):
            client = socket.socket()
            client.bind((source, 0))
            client.connect(("127.0.0.1", port))
            clients.append(client)
            served.append(listener.accept()[0])
        time.sleep(0.2)
        clients[1].sendall(b"x")
        time.sleep(0.01)
        found = {c.address: c for c in netlink_connections(port)}
        assert set(found) == {"127.0.0.2", "127.0.0.3"}
        assert found["127.0.0.2"].silent_ms >= 150 > found["127.0.0.3"].silent_ms
        assert found["127.0.0.2"].peer == f"ipv4:127.0.0.2:{clients[0].getsockname()[1]}"
        inodes = {os.fstat(sock.fileno()).st_ino for sock in served}
        assert {c.inode for c in found.values()} == inodes
        assert shut_owned([found["127.0.0.2"].inode, 1]) == (1, {1})  # inode 1: no socket of this process
        assert _closed_within([clients[0]], 2.0) == []
        assert _closed_within([clients[1]], 0.2) == [clients[1]]
    finally:
        for sock in (*clients, *served):
            sock.close()
        listener.close()


def test_the_text_tables_are_read_where_netlink_is_not_allowed(tmp_path: Path) -> None:
    header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    tcp = tmp_path / "tcp"
    tcp.write_text(
        header
        + "   0: 0100007F:C351 0200007F:D431 01 00000000:00000000 00:00000000 00000000 0 0 1111 1\n"  # ours
        + "   1: 0100007F:C351 0200007F:D432 0A 00000000:00000000 00:00000000 00000000 0 0 2222 1\n"  # listening
        + "   2: 0100007F:1F90 0200007F:D433 01 00000000:00000000 00:00000000 00000000 0 0 3333 1\n"  # other port
        + "   3: 0100007F:C351 0200007F:D434 01 00000000:00000000 00:00000000 00000000 0 0 0 1\n"  # not accepted
    )
    tcp6 = tmp_path / "tcp6"
    tcp6.write_text(
        header + "   0: 00000000000000000000000000000000:C351 B80D0120000000000000000001000000:D431 01 "
        "00000000:00000000 00:00000000 00000000 0 0 4444 1\n"
    )
    found = proc_connections(0xC351, (str(tcp), str(tcp6), str(tmp_path / "missing")))
    assert [(c.peer, c.inode) for c in found] == [("ipv4:127.0.0.2:54321", 1111), ("ipv6:[2001:db8::1]:54321", 4444)]


def test_grpc_options_cap_the_port_and_close_silent_and_idle_connections() -> None:
    options = dict(grpc_options(ConnectionLimits(handshake_timeout=2, idle_timeout=30), 500))
    assert options["grpc.max_allowed_incoming_connections"] == 500
    assert options["grpc.server_handshake_timeout_ms"] == 2000
    assert options["grpc.max_connection_idle_ms"] == 30_000
    assert options["grpc.http2.max_ping_strikes"] == 2
    assert "grpc.max_allowed_incoming_connections" not in dict(grpc_options(ConnectionLimits(), None))


# --- Against a real server -----------------------------------------------------------------------------------------


def _raise_own_open_files(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        assert hard >= needed, f"this test holds {needed} sockets; the open-files hard limit is {hard}"
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _connect_from(source: str, port: int, payload: bytes = b"") -> socket.socket | None:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(2)
    try:
        sock.connect(("127.0.0.1", port))
        if payload:
            sock.sendall(payload)
    except OSError:  # refused or reset by a cap: nothing held
        sock.close()
        return None
    return sock


def _closed_within(socks: list[socket.socket], seconds: float) -> list[socket.socket]:
    """Wait until the server has closed every socket (end of stream or reset), at most ``seconds``; those left."""
    selector = selectors.DefaultSelector()
    left = set(socks)
    for sock in socks:
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    deadline = time.monotonic() + seconds
    while left and time.monotonic() < deadline:
        for key, _ in selector.select(0.2):
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            try:
                data = sock.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                selector.unregister(sock)
                left.discard(sock)
    selector.close()
    return list(left)


def _evaluate_over_grpc(channel: grpc.Channel) -> int:
    """The envido of a hand of 37, asked over gRPC (waiting for the channel to connect, as a newcomer would)."""
    evaluated = rules_service_pb2_grpc.RulesServiceStub(channel).EvaluateHand(
        rules_service_pb2.EvaluateHandRequest(
            muestra=cards_pb2.Card(rank=1, suit=cards_pb2.SUIT_ORO),
            cards=[
                cards_pb2.Card(rank=2, suit=cards_pb2.SUIT_ORO),
                cards_pb2.Card(rank=7, suit=cards_pb2.SUIT_ESPADA),
                cards_pb2.Card(rank=3, suit=cards_pb2.SUIT_COPA),
            ],
        ),
        timeout=10,
        wait_for_ready=True,
    )
    return int(evaluated.envido)


def _evaluate_over_web(port: int) -> dict[str, object]:
    body = json.dumps(
        {
            "muestra": {"rank": 1, "suit": "SUIT_ORO"},
            "cards": [
                {"rank": 2, "suit": "SUIT_ORO"},
                {"rank": 7, "suit": "SUIT_ESPADA"},
                {"rank": 3, "suit": "SUIT_COPA"},
            ],
        }
    )
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("POST", EVALUATE_PATH, body, {"content-type": "application/json"})
        response = connection.getresponse()
        assert response.status == 200, response.read()
        answer: dict[str, object] = json.loads(response.read())
        return answer
    finally:
        connection.close()


@pytest.fixture
def small_server(tmp_path: Path) -> Iterator[ProcessServer]:
    """A server with the default quotas and caps, held to 1,024 open files (soft and hard: it cannot raise them)
    and short timeouts, so silent connections are closed within seconds."""
    server = ProcessServer(
        f"sqlite:///{tmp_path / 'truco.db'}",
        tmp_path,
        web=True,
        limits=True,
        open_files=1024,
        args=["--head-timeout", "2", "--body-timeout", "2", "--handshake-timeout", "2", "--idle-timeout", "3"],
    )
    try:
        yield server
    finally:
        server.terminate()


@pytest.mark.xdist_group("connection-floods")
def test_1100_silent_connections_cannot_starve_health_grpc_or_web(small_server: ProcessServer) -> None:
    _raise_own_open_files(2_000)
    assert small_server.web_port is not None
    head = f"POST {EVALUATE_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n".encode()
    kinds = {
        "web: half a request head": (small_server.web_port, head[:30]),
        "web: a head and one body byte": (small_server.web_port, head + b"Content-Length: 100\r\n\r\n{"),
        "grpc: nothing at all": (small_server.port, b""),
        "grpc: an HTTP/2 preface, then nothing": (small_server.port, HTTP2_PREFACE),
    }
    held: list[socket.socket] = []
    for attacker, (port, payload) in zip(ATTACKERS, kinds.values(), strict=True):  # each kind past its cap
        for _ in range(275):
            sock = _connect_from(attacker, port, payload)
            if sock is not None:
                held.append(sock)
    assert len(held) > 1024  # more than the server's every descriptor

    with grpc.insecure_channel(small_server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=10, wait_for_ready=True
        )
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        assert _evaluate_over_grpc(channel) == 37
    assert _evaluate_over_web(small_server.web_port)["envido"] == 37

    left = _closed_within(held, 20.0)
    assert not left, (
        f"{len(left)} silent connections still open: {collections.Counter(s.getpeername()[1] for s in left)}"
    )
    assert _evaluate_over_web(small_server.web_port)["envido"] == 37  # and the server is still at work


@pytest.mark.xdist_group("connection-floods")
def test_a_client_address_keeps_at_most_its_cap_of_busy_grpc_connections(tmp_path: Path) -> None:
    """Connections that each hold a call open are never idle: the guard shuts those past the cap."""
    server = ProcessServer(
        f"sqlite:///{tmp_path / 'truco.db'}", tmp_path, limits=True, args=["--connections-per-address", "10"]
    )
    try:
        busy: list[socket.socket] = []
        for _ in range(30):
            sock = _connect_from(GUARDED, server.port)
            assert sock is not None
            connection = h2.connection.H2Connection()
            connection.initiate_connection()
            headers = [
                (":method", "POST"),
                (":scheme", "http"),
                (":authority", "truco"),
                (":path", EVALUATE_PATH),
                ("content-type", "application/grpc"),
                ("te", "trailers"),
            ]
            connection.send_headers(1, headers)  # a call whose request never comes
            sock.sendall(connection.data_to_send())
            busy.append(sock)
        deadline = time.monotonic() + 10.0
        while len(still_open := _closed_within(busy, 0.2)) > 10 and time.monotonic() < deadline:
            pass
        assert len(still_open) == 10, f"{len(still_open)} connections open, the cap is 10"
        time.sleep(1.5)  # the guard's next looks leave the ten alone
        assert len(_closed_within(still_open, 0.2)) == 10
        with grpc.insecure_channel(server.address) as channel:  # another address is not held back
            health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
            assert health.status == health_pb2.HealthCheckResponse.SERVING
        for sock in busy:
            sock.close()
    finally:
        server.terminate()


def _health_on(port: int) -> int:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        return int(answer.status)


@pytest.mark.xdist_group("connection-floods")
def test_silent_connections_from_many_addresses_give_way_to_newcomers_on_both_ports(tmp_path: Path) -> None:
    """22 addresses, each under its per-address cap, open more silent HTTP/2 connections than either port takes:
    a newcomer from another address is served on both ports, health answers on its own port, and every silent
    connection (a preface and nothing else, stream-less h2c included) is closed after the quiet limit."""
    _raise_own_open_files(3_000)
    server = ProcessServer(
        f"sqlite:///{tmp_path / 'truco.db'}",
        tmp_path,
        web=True,
        limits=True,
        open_files=1024,
        args=["--quiet-timeout", "2", "--handshake-timeout", "2"],
    )
    try:
        assert server.web_port is not None and server.health_port is not None
        held: list[socket.socket] = []
        for index in range(1, 23):
            for _ in range(50):  # under the per-address cap of 59 at 1,024 open files
                for source, port in ((f"127.0.1.{index}", server.port), (f"127.0.2.{index}", server.web_port)):
                    sock = _connect_from(source, port, HTTP2_PREFACE)
                    if sock is not None:
                        held.append(sock)
        assert len(held) > 1024
        assert _health_on(server.health_port) == health_pb2.HealthCheckResponse.SERVING
        with grpc.insecure_channel(server.address) as channel:
            assert _evaluate_over_grpc(channel) == 37
        assert _evaluate_over_web(server.web_port)["envido"] == 37
        # gRPC accepts no connection past its cap: those waiting in the kernel's queue are accepted as places
        # free up, and closed after the quiet limit in turn.
        left = _closed_within(held, 30.0)
        assert not left, f"{len(left)} silent connections still open"
    finally:
        server.terminate()


def test_the_guard_rests_longer_the_longer_a_look_takes() -> None:
    """A look at 10,000 connections costs tens of milliseconds: the guard never spends more than a twentieth of a
    core on looking, however crowded or attacked the port."""
    assert guard_pause(False, 0.002) == 1.0 and guard_pause(True, 0.002) == 0.1
    assert guard_pause(True, 0.07) == pytest.approx(1.4) and guard_pause(False, 0.07) == pytest.approx(1.4)
