"""What the quota headers cost the server per call (issue 35: limits a caller can see before it is refused).

Every admitted call reports the call rate left (``ratelimit-limit``, ``-remaining``, ``-reset``, ``-policy``:
``service/quota_headers.py``): an ``Allowance`` made by the admission, four headers formatted, and sent as gRPC
trailing metadata (gRPC port) or HTTP headers (web port). Two measures:

* **In the process** (``micro``): the added work alone, timed over many calls: the bucket's ``Allowance`` and the
  headers it becomes, the part every call pays whatever its door.
* **The server's CPU per call, on and off** (``ab``): ``truco serve``'s own server (in a child process pinned to
  one core, quotas on at rates no caller reaches) answers unary ``RulesService.EvaluateHand`` calls on both
  ports: gRPC from ``grpc.aio`` clients, Connect (binary) from HTTP/1.1 keep-alive clients (asyncio streams),
  on the other core.
  "off" is the same server with the headers taken out (the buckets make no ``Allowance``, so no header is
  made or sent); rounds alternate on and off so that the machine's noise falls on both alike. The figure is
  the server's CPU (user + system, /proc) over the measured window, divided by the calls answered.

    .venv/bin/python bench/quota_headers_bench.py [--seconds 10] [--rounds 3] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import timeit
from pathlib import Path
from typing import Any

import grpc

from truco.server.core.quotas import ConnectionLimits, Limits
from truco.server.limits.admission import Buckets, TokenBucket
from truco.server.service.quota_headers import allowance_headers
from truco_client.v1 import cards_pb2, rules_service_pb2

RESULTS = Path(__file__).resolve().parent / "results"
EVALUATE = "/truco.v1.RulesService/EvaluateHand"
HAND = rules_service_pb2.EvaluateHandRequest(
    muestra=cards_pb2.Card(rank=1, suit=cards_pb2.SUIT_ORO),
    cards=[
        cards_pb2.Card(rank=2, suit=cards_pb2.SUIT_ORO),
        cards_pb2.Card(rank=7, suit=cards_pb2.SUIT_ESPADA),
        cards_pb2.Card(rank=3, suit=cards_pb2.SUIT_COPA),
    ],
).SerializeToString()
HIGH = 1e9
"""Rates and bursts no caller reaches: quotas on (the headers sent), nobody refused."""
MODES = ("on", "off")


def micro(calls: int = 200_000) -> dict[str, float]:
    """Nanoseconds per call of the added work: the Allowance of a bucket after its take, and its headers."""
    buckets = Buckets(20.0, 40.0)
    _, bucket = buckets.charge("conn:ipv4:127.0.0.1:5")
    assert bucket is not None
    allowance = bucket.allowance("player_calls_per_second")

    def cpu(statement: Any) -> float:  # CPU time, not wall time: the machine is shared
        return float(timeit.Timer(statement, timer=time.process_time).timeit(calls)) / calls

    make = cpu(lambda: bucket.allowance("player_calls_per_second"))
    headers = cpu(lambda: allowance_headers(allowance))
    empty = cpu(lambda: None)  # the lambda's own call, taken off both
    return {"allowance_ns": round((make - empty) * 1e9, 1), "headers_ns": round((headers - empty) * 1e9, 1)}


async def _serve(mode: str, port: int, web_port: int) -> None:
    from truco.server.runtime.app import ServeConfig, Server

    if mode == "off":
        # The feature taken out at its source: no Allowance, so the doors make and send no header.
        TokenBucket.allowance = lambda self, quota: None  # type: ignore[assignment, method-assign, return-value]
    limits = Limits(calls_per_second=HIGH, burst=int(HIGH), player_calls_per_second=HIGH, player_burst=int(HIGH))
    config = ServeConfig(
        store=f"sqlite:///{Path(os.environ.get('TMPDIR', '/tmp')) / f'quota-bench-{port}.db'}",
        host="127.0.0.1",
        port=port,
        metrics_port=None,
        limits=limits,
        connections=ConnectionLimits.unlimited(),
        web_port=web_port,
    )
    server = await Server.start(config)
    print("listening", file=sys.stderr, flush=True)  # stdout carries the server's log lines
    try:
        await asyncio.Event().wait()
    finally:
        await server.stop(0)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _grpc_calls(address: str, concurrency: int, until: float, counts: list[int]) -> None:
    channels = [grpc.aio.insecure_channel(address) for _ in range(2)]

    async def loop(index: int) -> None:
        call = channels[index % 2].unary_unary(EVALUATE)
        while time.monotonic() < until:
            await call(HAND, timeout=10)
            counts[0] += 1

    try:
        await asyncio.gather(*(loop(index) for index in range(concurrency)))
    finally:
        for channel in channels:
            await channel.close()


async def _connect_calls(port: int, connections: int, until: float, counts: list[int]) -> None:
    """Connect unary calls (binary) over HTTP/1.1 keep-alive connections, each a loop of request and answer: a
    client of asyncio streams, a few µs a call, so that the server is the one kept busy."""
    head = (
        f"POST {EVALUATE} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/proto\r\n"
        f"connect-protocol-version: 1\r\ncontent-length: {len(HAND)}\r\n\r\n"
    ).encode() + HAND

    async def loop() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while time.monotonic() < until:
                writer.write(head)
                headers = await reader.readuntil(b"\r\n\r\n")
                assert headers.startswith(b"HTTP/1.1 200"), headers[:40]
                length = re.search(rb"(?i)content-length: (\d+)", headers)
                if length is not None:
                    await reader.readexactly(int(length.group(1)))
                else:  # Hypercorn sends the body chunked: chunks until the empty one
                    while size := int(await reader.readuntil(b"\r\n"), 16):
                        await reader.readexactly(size + 2)
                    await reader.readuntil(b"\r\n")
                counts[0] += 1
        finally:
            writer.close()

    await asyncio.gather(*(loop() for _ in range(connections)))


def measure(door: str, pid: int, port: int, web_port: int, args: argparse.Namespace) -> dict[str, float]:
    """Calls on one door for ``args.seconds`` after a warm-up second; the server's CPU per call."""
    counts = [0]
    warm = time.monotonic() + 1.0
    end = warm + args.seconds
    if door == "grpc":
        asyncio.run(_grpc_calls(f"127.0.0.1:{port}", args.concurrency, warm, [0]))
        before = cpu_seconds(pid)
        started = time.monotonic()
        asyncio.run(_grpc_calls(f"127.0.0.1:{port}", args.concurrency, end, counts))
    else:
        asyncio.run(_connect_calls(web_port, args.concurrency, warm, [0]))
        before = cpu_seconds(pid)
        started = time.monotonic()
        asyncio.run(_connect_calls(web_port, args.concurrency, end, counts))
    cpu = cpu_seconds(pid) - before
    elapsed = time.monotonic() - started
    return {
        "calls": counts[0],
        "calls_per_second": round(counts[0] / elapsed, 1),
        "server_cpu_us_per_call": round(cpu / counts[0] * 1e6, 2),
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _pin(core: int) -> None:
    if hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) > 1:
        os.sched_setaffinity(0, {core})


def ab(args: argparse.Namespace) -> dict[str, Any]:
    rounds: dict[str, list[dict[str, float]]] = {f"{door}-{mode}": [] for door in ("grpc", "connect") for mode in MODES}
    for index in range(args.rounds):
        for mode in MODES if index % 2 == 0 else reversed(MODES):
            port, web_port = _free_port(), _free_port()
            command = [sys.executable, __file__, "--serve", mode, str(port), str(web_port)]
            # The log lines (one a call, as in production) are written, to nowhere: an unread pipe would fill.
            server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            try:
                assert server.stderr is not None and server.stderr.readline().strip() == "listening"
                for door in ("grpc", "connect"):
                    result = measure(door, server.pid, port, web_port, args)
                    rounds[f"{door}-{mode}"].append(result)
                    print(f"round {index + 1} {door:7s} {mode:3s} {json.dumps(result)}", flush=True)
            finally:
                server.kill()
                server.wait()
    medians = {name: statistics.median(r["server_cpu_us_per_call"] for r in runs) for name, runs in rounds.items()}
    return {"rounds": rounds, "median_server_cpu_us_per_call": medians}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0, help="measured window of each door in each round")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=16, help="calls in flight (Connect: one a connection)")
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        _pin(0)
        mode, port, web_port = args.serve
        asyncio.run(_serve(mode, int(port), int(web_port)))
        return
    _pin(1)
    in_process = micro()
    print("in the process, ns per call:", json.dumps(in_process), flush=True)
    measured = ab(args)
    print("median server CPU µs per call:", json.dumps(measured["median_server_cpu_us_per_call"]))
    report = {
        "benchmark": "quota_headers",
        "grpcio": grpc.__version__,
        "python": sys.version.split()[0],
        "load_average": os.getloadavg(),
        "settings": {k: v for k, v in vars(args).items() if k != "serve"},
        "micro_ns": in_process,
        **measured,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "quota_headers.json").write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
