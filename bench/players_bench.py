"""Quick match and ratings (issue 36): a synthetic population through the real matcher, and the ratings of bots of
known strength.

``matchmaking``: a server's store and matcher in this process (SQLite, a real ``Server``, no gRPC streams: each
player's ticket is opened as FindMatch opens it and kept alive as its stream would keep it). 2,000 players arrive
at 20 per second, half of them looking for a 2-player match and half for a 4-player one, a fifth of the 4-player
tickets being parties of two; 80 % of the players have a rating (mu drawn from N(25, 4), sigma from 1.5 to 4), the
others are new. It reports the time from a ticket's opening to its match (p50, p99) for 2-player tickets, the mean
rating gap of the matched 2-player pairs beside the gap of random pairs of the same tickets, and the matcher's CPU
per matched ticket (process CPU inside its ticks, which includes the games it creates and the seats it joins).

``ratings``: 1,000 two-player matches (to 30 points) between four bots whose strength order is known (random <
beginner < heuristic < expert at its default 400 playouts: bench/journal/2026-12-02-bot-strength.md measured
the last two steps), pairs drawn at random, each match rated with the
server's own OpenSkill update (truco.server.core.ratings.rate); it reports each bot's final rating and whether the
ratings order the bots as their strength does.

    nice -n 10 .venv/bin/python bench/players_bench.py matchmaking [--players 2000 --rate 20]
    PYTHONPATH=server/src nice -n 10 .venv-compiled/bin/python bench/players_bench.py ratings [--matches 1000]
    (the compiled engine and bots, `scripts/compiled-venv --server`: the expert's playouts are slow in pure Python)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from truco.engine import RuleSet
from truco.server.core.ratings import MU, SIGMA, Outcome, new_rating, rate
from truco.server.store.records import TICKET_WAITING, RatingRecord, TicketRecord, now_us

if TYPE_CHECKING:  # the matchmaking bench's server; the ratings bench runs without it (the compiled build)
    from truco.server.runtime.app import Server

RESULTS = Path(__file__).resolve().parent / "results" / "players"
APP = "benchapp0001"


def population(count: int, seed: int) -> list[tuple[str, RatingRecord | None]]:
    rng = random.Random(seed)
    players: list[tuple[str, RatingRecord | None]] = []
    for index in range(count):
        name = f"p{index:05d}"
        if rng.random() < 0.8:
            mu, sigma = rng.gauss(25.0, 4.0), rng.uniform(1.5, 4.0)
            players.append((name, RatingRecord(APP, 0, name, mu, sigma, 10, 5)))
        else:
            players.append((name, None))
    return players


async def seed_ratings(server: Server, players: list[tuple[str, RatingRecord | None]]) -> None:
    rows = []
    for name, rating in players:
        await server.store.name_player(APP, name, name)
        if rating is not None:
            rows += [RatingRecord(APP, size, name, rating.mu, rating.sigma, 10, 5) for size in (2, 4)]
    await server.store.record_result("seed-ratings", APP, 0, [], rows)


async def heartbeat(server: Server, stop: asyncio.Event) -> None:
    """What each player's FindMatch stream does: say its waiting ticket is alive every 2 s."""
    while not stop.is_set():
        for ticket in await server.store.tickets(waiting=True):
            await server.store.touch_ticket(ticket.ticket_id, now_us())
        await asyncio.sleep(2.0)


def plan(players: list[tuple[str, RatingRecord | None]], seed: int) -> list[tuple[str, int, tuple[str, ...]]]:
    """Each arrival: the player, its table size and its party (the partner first opens its own ticket)."""
    rng = random.Random(seed + 1)
    order = [name for name, _ in players]
    rng.shuffle(order)
    arrivals: list[tuple[str, int, tuple[str, ...]]] = []
    index = 0
    while index < len(order):
        name = order[index]
        if rng.random() < 0.5 or index + 1 == len(order):
            arrivals.append((name, 2, ()))
            index += 1
        elif rng.random() < 0.2:  # a party of two: a fifth of the 4-player tickets
            partner = order[index + 1]
            arrivals += [(name, 4, (partner,)), (partner, 4, (name,))]
            index += 2
        else:
            arrivals.append((name, 4, ()))
            index += 1
    return arrivals


async def matchmaking(count: int, per_second: float, seed: int) -> dict[str, Any]:
    from truco.server.core.identities import PlayerId
    from truco.server.core.matchmaking import Tickets, Wanted
    from truco.server.core.quotas import Limits
    from truco.server.runtime.app import ServeConfig, Server

    folder = Path(tempfile.mkdtemp(prefix="players-bench-"))
    config = ServeConfig(store=f"sqlite:///{folder / 'bench.db'}", host="127.0.0.1", port=0, metrics_port=None,
                         limits=Limits.unlimited(), token_key="players-bench")  # fmt: skip
    server = await Server.start(config)
    matched_at: dict[str, float] = {}
    join = server.matchmaker.join

    async def timed_join(game_id: str, seat: int, ticket: TicketRecord) -> str:
        matched_at[ticket.ticket_id] = time.time()
        return await join(game_id, seat, ticket)

    server.matchmaker.join = timed_join
    try:
        players = population(count, seed)
        await seed_ratings(server, players)
        tickets = Tickets(server.store)
        stop = asyncio.Event()
        beating = asyncio.create_task(heartbeat(server, stop))
        opened: dict[str, tuple[float, TicketRecord]] = {}
        started_cpu, started = time.process_time(), time.perf_counter()
        for index, (name, size, party) in enumerate(plan(players, seed)):
            await asyncio.sleep(max(0.0, started + index / per_second - time.perf_counter()))
            wanted = Wanted(RuleSet(players=size, target=15), party, 120.0, None, "heuristic")
            ticket = await tickets.open(PlayerId(APP, name, name), wanted, None)
            opened[ticket.ticket_id] = (time.time(), ticket)
        deadline = time.perf_counter() + 130.0
        while time.perf_counter() < deadline and await server.store.tickets(waiting=True):
            await asyncio.sleep(0.5)
        stop.set()
        await beating
        wall = time.perf_counter() - started
        cpu = time.process_time() - started_cpu
        final = {t.ticket_id: t for t in await server.store.tickets()}
        return report(opened, matched_at, final, server.matchmaker.busy_seconds, cpu, wall, count, per_second)
    finally:
        await server.stop(0)


def report(
    opened: dict[str, tuple[float, TicketRecord]],
    matched_at: dict[str, float],
    final: dict[str, TicketRecord],
    matcher_cpu: float,
    cpu: float,
    wall: float,
    count: int,
    per_second: float,
) -> dict[str, Any]:
    waits = {2: [], 4: []}  # type: dict[int, list[float]]
    for ticket_id, at in matched_at.items():
        opened_at, ticket = opened[ticket_id]
        waits[ticket.players].append(at - opened_at)
    games: dict[str, list[TicketRecord]] = {}
    for ticket in final.values():
        if ticket.game_id and ticket.players == 2:
            games.setdefault(ticket.game_id, []).append(ticket)
    gaps = [abs(a.ordinal - b.ordinal) for a, b in (pair for pair in games.values() if len(pair) == 2)]
    two = [ticket.ordinal for _, ticket in opened.values() if ticket.players == 2]
    rng = random.Random(7)
    random_gaps = [abs(a - b) for a, b in (rng.sample(two, 2) for _ in range(20_000))]
    states: dict[str, int] = {}
    for ticket in final.values():
        states[ticket.state] = states.get(ticket.state, 0) + 1
    matched = sum(len(v) for v in waits.values())

    def quantile(values: list[float], q: float) -> float:
        return statistics.quantiles(values, n=100)[int(q * 100) - 1] if len(values) > 1 else float("nan")

    return {
        "players": count,
        "arrivals_per_second": per_second,
        "tickets": len(opened),
        "states": states,
        "two_player": {"matched": len(waits[2]), "p50_s": quantile(waits[2], 0.5), "p99_s": quantile(waits[2], 0.99)},
        "four_player": {"matched": len(waits[4]), "p50_s": quantile(waits[4], 0.5), "p99_s": quantile(waits[4], 0.99)},
        "mean_gap_matched": statistics.fmean(gaps) if gaps else float("nan"),
        "mean_gap_random": statistics.fmean(random_gaps),
        "matcher_cpu_ms_per_ticket": 1000 * matcher_cpu / max(matched, 1),
        "process_cpu_ms_per_ticket": 1000 * cpu / max(len(opened), 1),
        "wall_seconds": wall,
        "still_waiting": states.get(TICKET_WAITING, 0),
    }


BOTS = ("random", "beginner", "heuristic", "expert")
"""Weakest first: the order the ratings must find."""


def summary(rating: RatingRecord) -> dict[str, float]:
    return {
        "mu": round(rating.mu, 2),
        "sigma": round(rating.sigma, 2),
        "ordinal": round(rating.ordinal, 2),
        "matches": rating.matches,
        "wins": rating.wins,
    }


def ratings(matches: int, seed: int, target: int, bots: tuple[str, ...] = BOTS) -> dict[str, Any]:
    from truco.cli.arena import Tally, play_local

    rng = random.Random(seed)
    current = {bot: new_rating("bench", 2, bot) for bot in bots}
    rules = RuleSet(players=2, target=target)
    tally = Tally()
    started = time.perf_counter()
    for index in range(matches):
        first, second = rng.sample(bots, 2)
        ours, theirs = play_local(rules, (first, second), index % 2, rng.getrandbits(64), rng, tally, None)
        seat_players = (first, second) if index % 2 == 0 else (second, first)
        winner_seat = seat_players.index(first if ours > theirs else second)
        outcome = Outcome(f"m{index}", "bench", 2, seat_players, winner_seat % 2, (0, 0), frozenset(), index)
        for updated in rate(outcome, {bot: current[bot] for bot in seat_players}):
            current[updated.player] = updated
    ordered = sorted(bots, key=lambda bot: current[bot].ordinal)
    return {
        "matches": matches,
        "target": target,
        "seconds": time.perf_counter() - started,
        "ratings": {bot: summary(rating) for bot, rating in current.items()},
        "order_found": ordered,
        "ordered_correctly": ordered == list(bots),
        "start": {"mu": MU, "sigma": SIGMA},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = parser.add_subparsers(dest="bench", required=True)
    making = which.add_parser("matchmaking")
    making.add_argument("--players", type=int, default=2000)
    making.add_argument("--rate", type=float, default=20.0)
    making.add_argument("--seed", type=int, default=1)
    rating = which.add_parser("ratings")
    rating.add_argument("--matches", type=int, default=1000)
    rating.add_argument("--seed", type=int, default=1)
    rating.add_argument("--bots", default=",".join(BOTS), help="the bots, weakest first (default: %(default)s)")
    rating.add_argument(
        "--target", type=int, default=30, help="points a match is played to (the strengths were measured to 30)"
    )
    args = parser.parse_args()
    if args.bench == "matchmaking":
        result = asyncio.run(matchmaking(args.players, args.rate, args.seed))
    else:
        result = ratings(args.matches, args.seed, args.target, tuple(args.bots.split(",")))
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"{args.bench}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
