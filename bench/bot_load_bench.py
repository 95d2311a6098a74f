"""A game full of expert bots must not slow other games' calls: GetGameView latency of a human's game, alone and
while matches between expert bots run on the same server (their decisions go to the server's process pool).

    .venv/bin/python bench/bot_load_bench.py [--expert-games 4] [--seconds 20]

Writes bench/results/bot-load.json and prints p50/p99 of each phase.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import grpc

from truco.cli.arena import LoopThread
from truco.server.app import ServeConfig, Server
from truco.server.quotas import Limits
from truco_client.v1 import game_service_pb2, game_service_pb2_grpc, rules_pb2, views_pb2

ROOT = Path(__file__).resolve().parent


def latencies(stub: game_service_pb2_grpc.GameServiceStub, name: str, token: str, seconds: float) -> list[float]:
    out = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        started = time.perf_counter()
        stub.GetGameView(
            game_service_pb2.GetGameViewRequest(name=name), metadata=(("authorization", f"Bearer {token}"),)
        )
        out.append(time.perf_counter() - started)
        time.sleep(0.01)
    return out


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "calls": len(ordered),
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p99_ms": round(ordered[int(len(ordered) * 0.99)] * 1000, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--expert-games", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    loops = LoopThread()
    with tempfile.TemporaryDirectory() as directory:
        config = ServeConfig(store=f"sqlite:///{directory}/bench.db", host="127.0.0.1", port=0, metrics_port=None,
                             limits=Limits.unlimited(), token_key="bench")
        server = loops.run(Server.start(config))
        address = f"127.0.0.1:{server.port}"
        with grpc.insecure_channel(address) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            human = stub.CreateGame(game_service_pb2.CreateGameRequest(
                rules=rules_pb2.RuleSet(players=2),
                bots=[game_service_pb2.BotSeat(seat=1, kind=game_service_pb2.BOT_KIND_HEURISTIC)])).game
            token = stub.JoinGame(game_service_pb2.JoinGameRequest(name=human.name, seat=0)).seat_token
            alone = latencies(stub, human.name, token, args.seconds)
            experts = [
                stub.CreateGame(game_service_pb2.CreateGameRequest(
                    rules=rules_pb2.RuleSet(players=4),
                    bots=[game_service_pb2.BotSeat(seat=s, level=game_service_pb2.BOT_LEVEL_EXPERT) for s in range(4)],
                )).game.name
                for _ in range(args.expert_games)
            ]
            time.sleep(2.0)  # the pool's process starts
            before = [stub.GetGame(game_service_pb2.GetGameRequest(name=n)).game.version for n in experts]
            loaded = latencies(stub, human.name, token, args.seconds)
            after = [stub.GetGame(game_service_pb2.GetGameRequest(name=n)).game.version for n in experts]
            over = sum(stub.GetGame(game_service_pb2.GetGameRequest(name=n)).game.phase == views_pb2.PHASE_MATCH_OVER
                       for n in experts)
        loops.run(server.stop(0.0))
    loops.close()
    result = {
        "expert_games": args.expert_games,
        "seconds": args.seconds,
        "alone": summary(alone),
        "with_expert_games": summary(loaded),
        "expert_game_events_during": sum(a - b for a, b in zip(after, before, strict=True)),
        "expert_games_over": over,
    }
    (ROOT / "results" / "bot-load.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
