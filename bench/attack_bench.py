"""A fresh caller's latency while a hostile caller attacks (issue 31's goal: p99 under 50 ms during each attack).

One `truco serve` on its defaults (quotas on), held to 1,024 open files as a small container would be. A fresh
caller (a new connection from its own address) makes EvaluateHand calls alone, then during each attack:

* ``silent``: 1,100 HTTP/2 prefaces, then nothing, from 22 addresses (50 each, under the per-address cap) on the
  gRPC and web ports;
* ``unread``: 12 PlayGame sessions over connections with a flow-control window of 0, each sending 40 commands.

    .venv/bin/python bench/attack_bench.py [--calls 200]

Writes bench/results/attacks.json and prints it. Loopback only; every attack is bounded and torn down.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import socket
import statistics
import struct
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import h2.connection
import h2.settings

from truco_client.v1 import (
    cards_pb2,
    game_service_pb2,
    game_service_pb2_grpc,
    rules_service_pb2,
    rules_service_pb2_grpc,
)

ROOT = Path(__file__).resolve().parent.parent
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
HAND = rules_service_pb2.EvaluateHandRequest(
    muestra=cards_pb2.Card(rank=1, suit=cards_pb2.SUIT_ORO),
    cards=[
        cards_pb2.Card(rank=2, suit=cards_pb2.SUIT_ORO),
        cards_pb2.Card(rank=7, suit=cards_pb2.SUIT_ESPADA),
        cards_pb2.Card(rank=3, suit=cards_pb2.SUIT_COPA),
    ],
)


@contextmanager
def server(directory: Path) -> Iterator[tuple[int, int]]:
    """`truco serve` on its defaults at 1,024 open files: its gRPC and web ports."""

    def small() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))

    command = [str(ROOT / ".venv/bin/truco"), "serve", "--store", f"sqlite:///{directory / 'attack.db'}"]
    command += ["--host", "127.0.0.1", "--port", "0", "--web-port", "0", "--metrics-port", "-1", "--health-port", "0"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, preexec_fn=small, cwd=directory
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        ports = re.search(r"listening on port (\d+).*http://localhost:(\d+)/", line)
        assert ports, line
        yield int(ports.group(1)), int(ports.group(2))
    finally:
        process.terminate()
        process.wait(30)


def fresh_caller(port: int, calls: int) -> dict[str, float]:
    """A new connection from 127.0.0.1 making ``calls`` EvaluateHand calls: p50, p99 and max in milliseconds."""
    times = []
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        rules = rules_service_pb2_grpc.RulesServiceStub(channel)
        rules.EvaluateHand(HAND, timeout=30, wait_for_ready=True)  # connected
        for _ in range(calls):
            started = time.perf_counter()
            rules.EvaluateHand(HAND, timeout=30)
            times.append(time.perf_counter() - started)
            time.sleep(0.06)  # within a player's default quota (20 calls a second)
    times.sort()
    return {
        "calls": calls,
        "p50_ms": round(statistics.median(times) * 1000, 2),
        "p99_ms": round(times[int(len(times) * 0.99)] * 1000, 2),
        "max_ms": round(times[-1] * 1000, 2),
    }


def silent(grpc_port: int, web_port: int) -> list[socket.socket]:
    held = []
    for index in range(1, 23):
        for _ in range(50):
            for source, port in ((f"127.0.1.{index}", grpc_port), (f"127.0.2.{index}", web_port)):
                sock = socket.socket()
                sock.bind((source, 0))
                sock.settimeout(2)
                try:
                    sock.connect(("127.0.0.1", port))
                    sock.sendall(PREFACE)
                    held.append(sock)
                except OSError:
                    sock.close()
    return held


def unread(grpc_port: int, _: int) -> list[socket.socket]:
    with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
        name = game_service_pb2_grpc.GameServiceStub(channel).CreateGame(
            game_service_pb2.CreateGameRequest(), timeout=30
        ).game.name
    held = []
    for number in range(12):
        sock = socket.create_connection(("127.0.0.1", grpc_port))
        connection = h2.connection.H2Connection()
        connection.local_settings = h2.settings.Settings(
            client=True, initial_values={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0}
        )
        connection.initiate_connection()
        stream = connection.get_next_available_stream_id()
        connection.send_headers(
            stream,
            [(":method", "POST"), (":scheme", "http"), (":authority", "truco"),
             (":path", "/truco.v1.GameService/PlayGame"), ("content-type", "application/grpc"), ("te", "trailers")],
        )  # fmt: skip
        messages = [game_service_pb2.PlayGameRequest(start=game_service_pb2.PlayGameStart(name=name))]
        for command in range(40):
            request = game_service_pb2.PlayGameRequest()
            request.command.request_id = f"attack-{number:02d}-{command:04d}-0123456789abcdef"
            request.command.command.go_to_mazo.SetInParent()
            messages.append(request)
        body = b"".join(struct.pack(">BI", 0, m.ByteSize()) + m.SerializeToString() for m in messages)
        connection.send_data(stream, body)
        sock.sendall(connection.data_to_send())
        held.append(sock)
    time.sleep(3.0)  # the commands are read, their outcomes wait for a reader that never reads
    return held


ATTACKS: dict[str, Callable[[int, int], list[socket.socket]]] = {"silent": silent, "unread": unread}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, max(4096, resource.getrlimit(resource.RLIMIT_NOFILE)[1])))
    result: dict[str, object] = {"date": time.strftime("%Y-%m-%d"), "calls": args.calls}
    with tempfile.TemporaryDirectory() as directory, server(Path(directory)) as (grpc_port, web_port):
        result["alone"] = fresh_caller(grpc_port, args.calls)
        for name, attack in ATTACKS.items():
            held = attack(grpc_port, web_port)
            try:
                result[name] = {"held": len(held), **fresh_caller(grpc_port, args.calls)}
            finally:
                for sock in held:
                    sock.close()
            time.sleep(1.0)
    (ROOT / "bench" / "results" / "attacks.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
