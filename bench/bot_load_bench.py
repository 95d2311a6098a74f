"""A game full of expert bots must not slow other games' calls: GetGameView latency of a human's game, alone and
while matches between expert bots run on the same server (their decisions go to the server's process pool). Then
the pace a player sees: a player at a 4-player table with three expert bots (how long each bot move takes to
reach the player's watch, and how long the player waits for its turn to come back), and an expert-only game
alone on the server (its moves a second: what a spectator sees).

    .venv/bin/python bench/bot_load_bench.py [--expert-games 4] [--seconds 20]

Writes bench/results/bot-load.json and prints p50/p99 of each phase.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import grpc

from truco.cli.arena import LoopThread
from truco.server.core.quotas import Limits
from truco.server.runtime.app import ServeConfig, Server
from truco_client.v1 import commands_pb2, game_service_pb2, game_service_pb2_grpc, rules_pb2, views_pb2

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


DECISIONS = frozenset(
    {"card_played", "call_made", "call_accepted", "call_declined", "went_to_mazo", "perros_called",
     "perros_skipped", "perros_answered"}
)
"""Events that are a seat's decision."""


def pick(actions: list[commands_pb2.Command]) -> commands_pb2.Command:
    """A cautious player's move: a card, else no quiero, else anything but a seña or the mazo (accepting every
    bet would lose most matches at once to a falta envido)."""
    for action in actions:
        if action.WhichOneof("kind") == "play_card":
            return action
    for action in actions:
        if action.WhichOneof("kind") == "answer" and not action.answer.accept:
            return action
    others = [a for a in actions if a.WhichOneof("kind") not in ("send_sena", "go_to_mazo")]
    return (others or actions)[0]


def player_with_experts(stub: game_service_pb2_grpc.GameServiceStub, seconds: float) -> dict[str, object]:
    """Seat 0 played by this function (:func:`pick`), seats 1 to 3 by expert bots, match after match for
    ``seconds``: the time from the event before each bot move to the bot move, as the player's watch delivers
    them, and from each of the player's moves to its next turn."""
    moves: list[float] = []
    turns: list[float] = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        game = stub.CreateGame(game_service_pb2.CreateGameRequest(
            rules=rules_pb2.RuleSet(players=4),
            bots=[game_service_pb2.BotSeat(seat=s, level=game_service_pb2.BOT_LEVEL_EXPERT) for s in (1, 2, 3)],
        )).game
        token = stub.JoinGame(game_service_pb2.JoinGameRequest(name=game.name, seat=0)).seat_token
        auth = (("authorization", f"Bearer {token}"),)
        last = submitted = time.perf_counter()
        acted = -1  # the version the player last moved at (-1: not yet in this match)
        request = game_service_pb2.WatchGameRequest(name=game.name)
        for item in stub.WatchGame(request, metadata=auth, timeout=seconds + 60):
            now = time.perf_counter()
            kind = item.event.WhichOneof("kind")
            if kind in DECISIONS and getattr(item.event, kind).seat != 0:
                moves.append(now - last)
            last = now
            if item.public.phase == views_pb2.PHASE_MATCH_OVER or now > end:
                break
            ours = [a for a in item.seat.legal_actions if a.WhichOneof("kind") != "send_sena"]
            if 0 in item.public.to_act and ours and item.public.version > acted:
                if acted >= 0:  # the first turn waited for the match to start too
                    turns.append(now - submitted)
                acted = item.public.version
                with contextlib.suppress(grpc.RpcError):  # the game moved on (a partner answered first): read on
                    stub.SubmitCommand(game_service_pb2.SubmitCommandRequest(
                        name=game.name, expected_version=acted, command=pick(ours)), metadata=auth)
                submitted = last = time.perf_counter()
    return {"bot_moves": summary(moves), "turns": summary(turns)}


def bots_only_pace(stub: game_service_pb2_grpc.GameServiceStub, seconds: float) -> dict[str, float]:
    """An expert-only 4-player game alone on the server: its decisions a second."""
    game = stub.CreateGame(game_service_pb2.CreateGameRequest(
        rules=rules_pb2.RuleSet(players=4),
        bots=[game_service_pb2.BotSeat(seat=s, level=game_service_pb2.BOT_LEVEL_EXPERT) for s in range(4)],
    )).game
    decisions = 0
    started = time.perf_counter()
    for item in stub.WatchGame(game_service_pb2.WatchGameRequest(name=game.name), timeout=seconds + 60):
        kind = item.event.WhichOneof("kind")
        decisions += kind in DECISIONS
        if item.public.phase == views_pb2.PHASE_MATCH_OVER or time.perf_counter() - started > seconds:
            break
    elapsed = time.perf_counter() - started
    return {"decisions": decisions, "seconds": round(elapsed, 1), "per_second": round(decisions / elapsed, 1)}


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"calls": 0}
    return {
        "calls": len(ordered),
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p99_ms": round(ordered[int(len(ordered) * 0.99)] * 1000, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--expert-games", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument(
        "--background-games", type=int, default=100, help="2-player expert-only matches beside the player's table"
    )
    args = parser.parse_args()
    loops = LoopThread()
    with serving(loops) as stub:
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
    with serving(loops) as stub:  # a server of their own: the expert games above would still be playing
        time.sleep(2.0)
        with_experts = player_with_experts(stub, args.seconds)
    with serving(loops) as stub:  # the same player while --background-games matches of experts only run
        for _ in range(args.background_games):
            stub.CreateGame(game_service_pb2.CreateGameRequest(
                rules=rules_pb2.RuleSet(players=2),
                bots=[game_service_pb2.BotSeat(seat=s, level=game_service_pb2.BOT_LEVEL_EXPERT) for s in range(2)],
            ))
        time.sleep(2.0)
        beside_bots = player_with_experts(stub, args.seconds)
    with serving(loops) as stub:
        spectated = bots_only_pace(stub, args.seconds)
    loops.close()
    result = {
        "expert_games": args.expert_games,
        "seconds": args.seconds,
        "alone": summary(alone),
        "with_expert_games": summary(loaded),
        "expert_game_events_during": sum(a - b for a, b in zip(after, before, strict=True)),
        "expert_games_over": over,
        "player_with_three_experts": with_experts,
        "background_games": args.background_games,
        "player_with_three_experts_beside_expert_only_games": beside_bots,
        "expert_only_game": spectated,
    }
    (ROOT / "results" / "bot-load.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result))


@contextlib.contextmanager
def serving(loops: LoopThread) -> Iterator[game_service_pb2_grpc.GameServiceStub]:
    """A server of the defaults (SQLite, no quotas) on loopback, and a stub of it."""
    with tempfile.TemporaryDirectory() as directory:
        config = ServeConfig(store=f"sqlite:///{directory}/bench.db", host="127.0.0.1", port=0, metrics_port=None,
                             limits=Limits.unlimited(), token_key="bench")
        server = loops.run(Server.start(config))
        try:
            with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                yield game_service_pb2_grpc.GameServiceStub(channel)
        finally:
            loops.run(server.stop(0.0))


if __name__ == "__main__":
    main()
