"""Whole matches between in-process bots: the engine's load generator and a quick statistics tool.

Deals here come from ``random.Random(seed)`` so a run can be repeated exactly; the service deals from a
cryptographically secure source instead.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from operator import itemgetter
from typing import Any, Literal

from truco.bots import Bot, make_bot
from truco.commandline import LEVEL_CHOICES, Subcommands, UsageError, levels, positive
from truco.engine import (
    DECK,
    Deal,
    RuleSet,
    RuleSetError,
    execute_legal,
    legal_actions,
    seat_view,
    start_match,
    team_of,
)
from truco.engine.events import HandDealt, HandEnded, PointsScored
from truco.engine.legal import actors
from truco.engine.rules import VALID_PLAYERS, VALID_TARGETS
from truco.engine.state import MatchState, Phase, evolve

from .progress import Progress

BotsMode = Literal["random", "heuristic", "mixed"]
MAX_ACTIONS_PER_MATCH = 100_000
"""A guard against an engine bug looping forever: no real match comes near it."""


@dataclass(slots=True)
class MatchResult:
    """How one simulated match went."""

    winner: int
    scores: tuple[int, int]
    hands: int
    pico_hands: int
    actions: int
    seconds: float
    cpu_seconds: float  # this thread's CPU time: what the match cost, whatever else the machine was doing
    hand_ends: Counter[str] = field(default_factory=Counter)
    points: Counter[str] = field(default_factory=Counter)


def deal_command(rng: random.Random) -> Deal:
    """A uniformly shuffled deck: the cards sorted by random keys (a C-level sort, cheaper than shuffle())."""
    draw = rng.random
    keys = [draw() for _ in DECK]
    order = itemgetter(*sorted(range(len(DECK)), key=keys.__getitem__))(DECK)  # a C-level gather
    return Deal(order, f"{rng.getrandbits(128):032x}")


def play_match(rules: RuleSet, bots: Sequence[Bot], rng: random.Random) -> MatchResult:
    """Play one match to the end, ``bots[seat]`` choosing for each seat."""
    state = MatchState()
    for event in start_match(rules):
        evolve(state, event)
    result = MatchResult(winner=-1, scores=(0, 0), hands=0, pico_hands=0, actions=0, seconds=0.0, cpu_seconds=0.0)
    started, started_cpu = time.perf_counter(), time.thread_time()
    while state.phase is not Phase.MATCH_OVER:
        waiting = actors(state)
        if not waiting:
            events = execute_legal(state, deal_command(rng))  # a permutation of DECK and a salt: legal as built
        else:
            seat = waiting[0] if len(waiting) == 1 else rng.choice(waiting)
            actions = legal_actions(state, seat)
            choice = bots[seat].choose(actions, partial(seat_view, state, seat, proofs=False), rng)
            events = execute_legal(state, choice)  # one of legal_actions: no second check
            result.actions += 1
            if result.actions > MAX_ACTIONS_PER_MATCH:
                raise RuntimeError("a simulated match did not end: this is an engine bug")
        for event in events:
            if isinstance(event, PointsScored):
                result.points[event.reason.value] += event.points
            elif isinstance(event, HandEnded):
                result.hand_ends[event.end.value] += 1
            elif isinstance(event, HandDealt):
                result.hands += 1
                result.pico_hands += event.pico
    result.seconds = time.perf_counter() - started
    result.cpu_seconds = time.thread_time() - started_cpu
    assert state.winner is not None
    result.winner = state.winner
    result.scores = (state.scores[0], state.scores[1])
    return result


@dataclass(slots=True)
class SimulationReport:
    """Speed and outcome statistics of a simulation run."""

    players: int
    games: int
    seed: int
    target: int
    bots: str
    seconds: float
    matches_per_second: float
    actions_per_second: float
    actions: int
    hands: int
    pico_hands: int
    wins_by_team: dict[str, int]
    wins_by_bot: dict[str, int]
    mean_actions_per_match: float
    mean_hands_per_match: float
    slowest_match_ms: float
    hand_ends: dict[str, int]
    points_by_reason: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def seat_bots(players: int, mode: BotsMode, game_index: int, levels: Sequence[str] = ()) -> list[Bot]:
    """One bot per seat: by ``levels`` (one per seat) when given. In ``mixed`` the heuristic team alternates
    between games so neither is always mano."""
    if levels:
        return [make_bot(level) for level in levels]
    if mode != "mixed":
        return [make_bot(mode) for _ in range(players)]
    heuristic_team = game_index % 2
    return [make_bot("heuristic" if team_of(s) == heuristic_team else "random") for s in range(players)]


def simulate(
    players: int,
    games: int,
    seed: int,
    target: int = 30,
    bots: BotsMode = "random",
    rules: RuleSet | None = None,
    progress: bool | None = None,
    levels: Sequence[str] = (),
) -> SimulationReport:
    """Play ``games`` matches and report speed and outcomes. ``progress`` None: a bar only on a terminal."""
    rules = rules or RuleSet(players=players, target=target)
    rng = random.Random(seed)
    wins_by_team: Counter[str] = Counter()
    wins_by_bot: Counter[str] = Counter()
    hand_ends: Counter[str] = Counter()
    points: Counter[str] = Counter()
    actions = hands = pico_hands = 0
    slowest = 0.0
    started = time.perf_counter()
    with Progress(games, "matches", enabled=progress) as bar:
        for index in range(games):
            seats = seat_bots(players, bots, index, levels)
            result = play_match(rules, seats, rng)
            wins_by_team[f"team{result.winner}"] += 1
            wins_by_bot[seats[result.winner].name] += 1
            actions += result.actions
            hands += result.hands
            pico_hands += result.pico_hands
            slowest = max(slowest, result.seconds)
            hand_ends.update(result.hand_ends)
            points.update(result.points)
            bar.advance()
    seconds = time.perf_counter() - started
    return SimulationReport(
        players=players,
        games=games,
        seed=seed,
        target=rules.target,
        bots="/".join(levels) if levels else bots,
        seconds=round(seconds, 4),
        matches_per_second=round(games / seconds, 1),
        actions_per_second=round(actions / seconds, 1),
        actions=actions,
        hands=hands,
        pico_hands=pico_hands,
        wins_by_team=dict(sorted(wins_by_team.items())),
        wins_by_bot=dict(sorted(wins_by_bot.items())),
        mean_actions_per_match=round(actions / games, 1),
        mean_hands_per_match=round(hands / games, 1),
        slowest_match_ms=round(slowest * 1000, 2),
        hand_ends=dict(sorted(hand_ends.items())),
        points_by_reason=dict(sorted(points.items())),
    )


def format_report(report: SimulationReport) -> str:
    """The report for a terminal."""
    lines = [
        f"{report.games} matches, {report.players} players, to {report.target}, bots: {report.bots}, "
        f"seed {report.seed}",
        f"  {report.matches_per_second:,.1f} matches/s, {report.actions_per_second:,.0f} actions/s "
        f"({report.seconds:.2f} s, slowest match {report.slowest_match_ms:.1f} ms)",
        f"  per match: {report.mean_actions_per_match} actions, {report.mean_hands_per_match} hands"
        + (f" ({report.pico_hands} pico a pico hands in all)" if report.pico_hands else ""),
        "  wins by team: " + ", ".join(f"{k} {v}" for k, v in report.wins_by_team.items()),
    ]
    if report.bots == "mixed":
        lines.append("  wins by bot: " + ", ".join(f"{k} {v}" for k, v in report.wins_by_bot.items()))
    lines.append("  hands ended by: " + ", ".join(f"{k.lower()} {v}" for k, v in report.hand_ends.items()))
    lines.append("  points from: " + ", ".join(f"{k.lower()} {v}" for k, v in report.points_by_reason.items()))
    return "\n".join(lines)


# --- The command ----------------------------------------------------------------------------------------------


def command(commands: Subcommands) -> None:
    """``truco simulate``."""
    parser = commands.add_parser(
        "simulate",
        help="play whole matches between bots and report speed and outcomes",
        description="Plays N whole matches in process between bots, with a progress bar on a terminal.",
    )
    parser.add_argument("--players", type=int, choices=VALID_PLAYERS, default=2)
    parser.add_argument("--games", type=positive, default=100, metavar="N")
    parser.add_argument("--seed", type=int, default=0, metavar="S")
    parser.add_argument("--target", type=int, choices=VALID_TARGETS, default=30, metavar="T")
    parser.add_argument(
        "--bots",
        choices=("random", "heuristic", "mixed"),
        default="random",
        help="random: uniformly random legal moves (mazo included); heuristic: knows envido, flor and card "
        "strength; mixed: one team each",
    )
    parser.add_argument(
        "--level",
        action="append",
        choices=LEVEL_CHOICES,
        metavar="LEVEL",
        help="the bots' level: beginner, intermediate or expert; once for every bot seat, or once per bot seat in "
        "seat order (instead of --bots)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.add_argument("--no-progress", action="store_true", help="never draw the progress bar")
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    try:
        RuleSet(players=args.players, target=args.target)
    except RuleSetError as error:
        raise UsageError(str(error)) from None
    report = simulate(
        players=args.players,
        games=args.games,
        seed=args.seed,
        target=args.target,
        bots=args.bots,
        progress=False if args.no_progress else None,
        levels=tuple(levels(args.level, args.players)),
    )
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        print(format_report(report))
    return 0
