"""The floor under a move: what grpc.aio itself costs a server for the messages of one move, with no rules,
store, pipeline or projection behind them.

A bare grpc.aio server (raw bytes, no protobuf, no interceptor) plays the shape of a human-paced match: every seat
has its own connection and its own stream, and a move is

* ``unary``: an empty unary call (what ``capacity_bench`` calls an empty call, here without our pipeline);
* ``move``: a unary call whose handler pushes one message to each seat's watch stream of its match, then replies:
  the floor of a move on the released unary call + WatchGame pair;
* ``session``: a message on the mover's bidirectional stream, answered by one message on each seat's stream of
  its match (the mover's own is its acknowledgement): the floor of a move on a session stream (issue 20's
  optional item 5).

The server runs in a child process pinned to one core, the clients in this process on the other; the server's
CPU (user + system, from /proc) over the measured window, divided by the moves, is the figure. Modes alternate
round by round so that noise falls on all alike.

    .venv/bin/python bench/grpc_floor.py [--matches 300] [--players 2] [--think 5] [--seconds 30] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc

REPLY = b"r" * 600  # about a 2-player SubmitCommandResponse
PUSH = b"p" * 700  # about a 2-player per-commit WatchGameResponse
MODES = ("unary", "move", "session")
RESULTS = Path(__file__).resolve().parent / "results"


def _identity(data: bytes) -> bytes:
    return data


class FloorServer:
    """The three shapes, with nothing behind them but queues: ``match:seat`` names a stream."""

    def __init__(self) -> None:
        self.streams: dict[bytes, dict[bytes, asyncio.Queue[bytes]]] = defaultdict(dict)

    def _push(self, match: bytes) -> None:
        for queue in self.streams[match].values():
            queue.put_nowait(PUSH)

    async def empty(self, request: bytes, context: Any) -> bytes:
        return b""

    async def move(self, request: bytes, context: Any) -> bytes:
        self._push(request.partition(b":")[0])
        return REPLY

    async def _stream(self, name: bytes) -> AsyncIterator[bytes]:
        match, _, seat = name.partition(b":")
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        self.streams[match][seat] = queue
        try:
            while True:
                yield await queue.get()
        finally:
            del self.streams[match][seat]

    async def watch(self, request: bytes, context: Any) -> AsyncIterator[bytes]:
        async for message in self._stream(request):
            yield message

    async def session(self, requests: AsyncIterator[bytes], context: Any) -> AsyncIterator[bytes]:
        name = await anext(aiter(requests))
        match = name.partition(b":")[0]

        async def commands() -> None:
            async for _ in requests:
                self._push(match)

        reader = asyncio.ensure_future(commands())
        try:
            async for message in self._stream(name):
                yield message
        finally:
            reader.cancel()

    def handler(self) -> grpc.GenericRpcHandler:
        return grpc.method_handlers_generic_handler(
            "floor.Floor",
            {
                "Empty": grpc.unary_unary_rpc_method_handler(self.empty, _identity, _identity),
                "Move": grpc.unary_unary_rpc_method_handler(self.move, _identity, _identity),
                "Watch": grpc.unary_stream_rpc_method_handler(self.watch, _identity, _identity),
                "Session": grpc.stream_stream_rpc_method_handler(self.session, _identity, _identity),
            },
        )


async def serve(port: int) -> None:
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((FloorServer().handler(),))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print("listening", flush=True)
    await server.wait_for_termination()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Load:
    """K matches of P seats, each seat on its own channel; every ``think`` seconds (jittered) a match moves."""

    def __init__(self, address: str, mode: str, matches: int, players: int, think: float) -> None:
        self.address, self.mode, self.matches, self.players, self.think = address, mode, matches, players, think
        self.moves = 0
        self.delivered = 0

    async def run(self) -> None:
        await asyncio.gather(*(self._match(index) for index in range(self.matches)))

    async def _match(self, index: int) -> None:
        seats = [grpc.aio.insecure_channel(self.address) for _ in range(self.players)]
        names = [f"{index}:{seat}".encode() for seat in range(self.players)]
        readers: list[asyncio.Task[None]] = []
        writers: list[Any] = []
        for channel, name in zip(seats, names, strict=True):
            if self.mode == "move":
                stream = channel.unary_stream("/floor.Floor/Watch", _identity, _identity)(name)
            elif self.mode == "session":
                stream = channel.stream_stream("/floor.Floor/Session", _identity, _identity)()
                await stream.write(name)
                writers.append(stream)
            else:
                continue
            readers.append(asyncio.ensure_future(self._read(stream)))
        await asyncio.sleep(random.random() * self.think)
        turn = 0
        while True:
            mover = turn % self.players
            if self.mode == "session":
                await writers[mover].write(b"c" * 60)
            elif self.mode == "move":
                await seats[mover].unary_unary("/floor.Floor/Move", _identity, _identity)(names[mover])
            else:
                await seats[mover].unary_unary("/floor.Floor/Empty", _identity, _identity)(b"")
            self.moves += 1
            turn += 1
            await asyncio.sleep(self.think * random.uniform(0.5, 1.5))

    async def _read(self, stream: Any) -> None:
        async for _ in stream:
            self.delivered += 1


async def measure(address: str, pid: int, mode: str, args: argparse.Namespace) -> dict[str, float]:
    load = Load(address, mode, args.matches, args.players, args.think)
    task = asyncio.ensure_future(load.run())
    await asyncio.sleep(args.think * 1.5)  # every match has opened its streams and moved once
    cpu, moves, delivered, started = cpu_seconds(pid), load.moves, load.delivered, time.monotonic()
    await asyncio.sleep(args.seconds)
    cpu, moves = cpu_seconds(pid) - cpu, load.moves - moves
    delivered, elapsed = load.delivered - delivered, time.monotonic() - started
    task.cancel()
    return {
        "moves_per_second": round(moves / elapsed, 1),
        "server_cpu_ms_per_move": round(cpu / max(moves, 1) * 1000, 3),
        "messages_pushed_per_move": round(delivered / max(moves, 1), 2),
        "server_cores": round(cpu / elapsed, 3),
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _pin(core: int) -> None:
    if hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) > 1:
        os.sched_setaffinity(0, {core})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=300)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--think", type=float, default=5.0, help="mean seconds between a match's moves")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured window of each round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--label", default="")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        _pin(0)
        asyncio.run(serve(args.serve))
        return
    modes = args.modes.split(",")
    results: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
    for round_ in range(args.rounds):
        for mode in modes:
            port = _free_port()
            server = subprocess.Popen(
                [sys.executable, __file__, "--serve", str(port)], stdout=subprocess.PIPE, text=True
            )
            try:
                assert server.stdout is not None and server.stdout.readline().strip() == "listening"
                _pin(1)
                result = asyncio.run(measure(f"127.0.0.1:{port}", server.pid, mode, args))
            finally:
                server.kill()
                server.wait()
            results[mode].append(result)
            print(f"round {round_ + 1} {mode:8s} {json.dumps(result)}", flush=True)
    summary = {
        mode: statistics.median(r["server_cpu_ms_per_move"] for r in rounds) for mode, rounds in results.items()
    }
    print("median server CPU ms per move:", json.dumps(summary))
    report = {
        "benchmark": "grpc_floor",
        "grpcio": grpc.__version__,
        "python": sys.version.split()[0],
        "settings": {k: v for k, v in vars(args).items() if k != "serve"},
        "rounds": results,
        "median_server_cpu_ms_per_move": summary,
    }
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"grpc-floor{'-' + args.label if args.label else ''}.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    print("wrote", out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out)


if __name__ == "__main__":
    main()
