"""``truco arena A B``: paired matches between two bots, a win rate with its 95 % interval, and ratings.

Matches go in pairs: both matches of a pair are dealt the same cards, hand by hand, with the bots' seats
swapped, so the luck of the deal cancels and what is left is play. Each bot is a name of :mod:`truco.bots`
(``random``, ``beginner``, ``heuristic`` or ``intermediate``, ``expert``), played in this process, or a bot
outside it that plays over gRPC on a server the arena starts on loopback:

- ``remote:NAME``: a child process per seat that joins the game with the Python SDK and plays bot NAME
  (:mod:`truco.cli.remote_seat`);
- ``cmd:TEMPLATE``: any program, started once per seat of each match with ``{address}``, ``{game}`` and
  ``{seat}`` filled in; it must join that seat and play it to the end (a bot written with any SDK).

Against a remote bot the other one plays as the server's bot seat (so it must be one the server plays), and the
paired deals are the match's scripted deals (the server runs with ``--allow-fixed-deals``, loopback only).

The report: the first bot's wins, its win rate with a 95 % Wilson interval, the mean point margin per match (its
score less the other's), each bot's OpenSkill rating (Plackett-Luce, updated match by match) and, for bots in
this process, the time of their decisions and their habits (:mod:`truco.bots.habits`: falta envido en malas,
early mazo, truco bluffs, matas and piezas wasted).

``truco arena --gauntlet BOT``: BOT against each rival style of :data:`GAUNTLET` in turn (the heuristic, a
careful caller, a maniac, a rock, the beginner and the released expert: :mod:`truco.bots.styles`), each pairing
reported with its interval, and the habits of BOT over all its decisions beside those of the heuristic.
"""

from __future__ import annotations

import asyncio
import importlib.util
import math
import random
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from truco.bots import BOTS, LEVEL_BOTS, STYLES, Bot, ExpertBot, make_bot
from truco.bots.envido_table import measure
from truco.bots.expert import DEFAULT_PLAYOUTS
from truco.bots.habits import Habits
from truco.engine import (
    DECK,
    Deal,
    Phase,
    RuleSet,
    actors,
    execute_legal,
    legal_actions,
    seat_view,
    start_match,
    team_of,
)
from truco.engine.state import fold

from .progress import Progress

T = TypeVar("T")
Z95 = 1.959964
"""The normal quantile of a two-sided 95 % interval."""
DEALS_PER_MATCH = 64
"""Scripted deals prepared for each match against a remote bot (a match to 30 rarely needs 20)."""
MAX_ACTIONS = 100_000


def local_names() -> list[str]:
    return sorted({*BOTS, *LEVEL_BOTS, *STYLES})


@dataclass(frozen=True, slots=True)
class Contender:
    """A bot in the arena: ``name`` as given; ``local`` the truco.bots name when it plays in this process."""

    spec: str
    local: str | None = None
    command: tuple[str, ...] = ()

    @property
    def remote(self) -> bool:
        return self.local is None


def contender(spec: str) -> Contender:
    """The bot ``spec`` names. :raises ValueError: for an unknown name or an empty command."""
    if spec.startswith("remote:"):
        name = spec.removeprefix("remote:")
        if name not in local_names():
            raise ValueError(f"unknown bot {name!r} in {spec!r}; known: {', '.join(local_names())}")
        if importlib.util.find_spec("truco_client") is None:
            raise ValueError(f"{spec!r} plays through the Python SDK, not installed: pip install 'truco-server[play]'")
        module: tuple[str, ...] = (sys.executable, "-m", "truco.cli.remote_seat")
        return Contender(spec, None, (*module, "{address}", "{game}", "{seat}", name))
    if spec.startswith("cmd:"):
        command = tuple(shlex.split(spec.removeprefix("cmd:")))
        if not command:
            raise ValueError("cmd: needs a command line, e.g. cmd:'mybot --server {address} --game {game}'")
        return Contender(spec, None, command)
    if spec not in local_names():
        raise ValueError(f"unknown bot {spec!r}; known: {', '.join(local_names())}, remote:NAME, cmd:COMMAND")
    return Contender(spec, spec)


@dataclass(slots=True)
class Tally:
    """The results so far, from the first bot's side."""

    matches: int = 0
    wins: int = 0
    margins: list[int] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=dict)
    """Each local bot's decisions, in seconds of the clock on the wall."""
    cpu_times: dict[str, list[float]] = field(default_factory=dict)
    """The same decisions in seconds of this thread's CPU: what they take on a core of their own, whatever else
    the machine runs (on a busy machine the clock on the wall also counts the waits for a core)."""
    habits: dict[str, Habits] = field(default_factory=dict)
    """Each local bot's habits (:mod:`truco.bots.habits`), counted over its decisions."""


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion.

    >>> [round(x, 3) for x in wilson(70, 100)]
    [0.604, 0.781]
    """
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def shuffled(rng: random.Random) -> Deal:
    order = list(DECK)
    rng.shuffle(order)
    return Deal(tuple(order), f"{rng.getrandbits(128):032x}")


def local_bot(name: str, playouts: int | None) -> Bot:
    bot = make_bot(name)
    if isinstance(bot, ExpertBot) and playouts is not None:
        bot.playouts = playouts
    return bot


def play_local(
    rules: RuleSet,
    names: tuple[str, str],
    first_team: int,
    deal_seed: int,
    rng: random.Random,
    tally: Tally,
    playouts: int | None,
) -> tuple[int, int]:
    """One match in this process: team ``first_team`` is the first bot. The scores (first bot's, other's)."""
    bots = [local_bot(names[0] if team_of(s) == first_team else names[1], playouts) for s in range(rules.players)]
    labels = [names[0] if team_of(s) == first_team else names[1] for s in range(rules.players)]
    deals = random.Random(deal_seed)
    state = fold(start_match(rules))
    for _ in range(MAX_ACTIONS):
        if state.phase is Phase.MATCH_OVER:
            break
        waiting = actors(state)
        if not waiting:
            execute_legal(state, shuffled(deals))
            if state.hand is not None:
                for dealt in state.hand.seats:
                    tally.habits.setdefault(labels[dealt], Habits()).hands += 1
            continue
        seat = waiting[0]
        started, cpu = time.perf_counter(), time.thread_time()
        choice = bots[seat].choose(legal_actions(state, seat), partial(seat_view, state, seat, proofs=False), rng)
        tally.times.setdefault(labels[seat], []).append(time.perf_counter() - started)
        tally.cpu_times.setdefault(labels[seat], []).append(time.thread_time() - cpu)
        tally.habits.setdefault(labels[seat], Habits()).record(seat_view(state, seat, proofs=False), choice)
        execute_legal(state, choice)
    else:
        raise RuntimeError("a match did not end: this is an engine bug")
    return state.scores[first_team], state.scores[1 - first_team]


class LoopThread:
    """An event loop in a background thread, for the arena's own server."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


class RemoteTable:
    """A loopback server of the arena's own (a temporary SQLite store, scripted deals allowed, no quotas, no
    clocks) on which remote bots play."""

    def __init__(self) -> None:
        import logging

        import structlog

        from truco.server.core.quotas import Limits
        from truco.server.runtime.app import ServeConfig, Server

        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
        self.directory = tempfile.TemporaryDirectory(prefix="truco-arena-")
        self.loops = LoopThread()
        config = ServeConfig(
            store=f"sqlite:///{self.directory.name}/arena.db",
            host="127.0.0.1",
            port=0,
            metrics_port=None,
            allow_fixed_deals=True,
            limits=Limits.unlimited(),
            token_key="arena-loopback-only",
        )
        self.server = self.loops.run(Server.start(config))
        self.address = f"127.0.0.1:{self.server.port}"

    def close(self) -> None:
        self.loops.run(self.server.stop(0.0))
        self.loops.close()
        self.directory.cleanup()

    def play(
        self, rules: RuleSet, remote: Contender, local: str, remote_team: int, deal_seed: int, seed: int
    ) -> tuple[int, int]:
        """One match: the remote bot's seats joined by its processes, the other bot's played by the server. The
        scores (remote bot's team, other team)."""
        import grpc

        from truco.wire.v1 import game_service_pb2 as pb

        with grpc.insecure_channel(self.address) as channel:
            request = _paired_game(rules, local, remote_team, deal_seed)
            game = _call(channel, "CreateGame", request, pb.CreateGameResponse).game
            seats = [s for s in range(rules.players) if team_of(s) == remote_team]
            self._run_remote(remote, game.name, seats, seed)
            final = _call(channel, "GetGame", pb.GetGameRequest(name=game.name), pb.GetGameResponse).game
        scores = {s.team: s.points for s in final.scores}
        return scores.get(remote_team, 0), scores.get(1 - remote_team, 0)

    def _run_remote(self, remote: Contender, game: str, seats: list[int], seed: int) -> None:
        """The remote bot's processes, one per seat, until the match is over."""
        processes = [
            subprocess.Popen(
                [
                    part.replace("{address}", self.address).replace("{game}", game).replace("{seat}", str(s))
                    for part in remote.command
                ]
                + (["--seed", str(seed + s)] if remote.spec.startswith("remote:") else []),
            )
            for s in seats
        ]
        try:
            for process in processes:
                if process.wait(timeout=3600) != 0:
                    raise RuntimeError(f"the remote bot {remote.spec!r} exited with status {process.returncode}")
        finally:
            for process in processes:
                if process.poll() is None:
                    process.kill()
                    process.wait()


def _call(channel: Any, method: str, request: Any, response: Any) -> Any:
    """One GameService call on truco.wire.v1's messages (truco-server has no generated stubs: they are the SDK's)."""
    call = channel.unary_unary(
        f"/truco.v1.GameService/{method}",
        request_serializer=type(request).SerializeToString,
        response_deserializer=response.FromString,
    )
    return call(request, timeout=30)


def _paired_game(rules: RuleSet, local: str, remote_team: int, deal_seed: int) -> Any:
    """The CreateGameRequest of one match against a remote bot: its deals scripted from ``deal_seed`` (the same
    for the match with the seats swapped), the local bot's seats played by the server, no clocks."""
    from truco.server.service.messages import bot_to_pb, card_to_pb
    from truco.wire.v1 import game_service_pb2, rules_pb2

    deals = random.Random(deal_seed)
    fixed = []
    for _ in range(DEALS_PER_MATCH):
        order = shuffled(deals).order
        n = rules.players
        hands = [order[p : 3 * n : n] for p in range(n)]
        fixed.append(
            game_service_pb2.FixedDeal(
                hands=[game_service_pb2.DealtHand(cards=[card_to_pb(c) for c in hand]) for hand in hands],
                muestra=card_to_pb(order[3 * n]),
            )
        )
    kind, level = bot_to_pb(LEVEL_BOTS.get(local, local))
    bots = [
        game_service_pb2.BotSeat(seat=s, kind=kind, level=level)
        for s in range(rules.players)
        if team_of(s) != remote_team
    ]
    return game_service_pb2.CreateGameRequest(
        rules=rules_pb2.RuleSet(players=rules.players, target=rules.target),
        bots=bots,
        fixed_deals=fixed,
        clock=game_service_pb2.ClockSettings(),
    )


@dataclass(frozen=True, slots=True)
class ArenaOptions:
    first: str
    second: str
    players: int = 2
    matches: int = 200
    seed: int = 0
    target: int = 30
    playouts: int | None = None
    """The expert's playouts per decision (its default when None)."""


def run_arena(
    options: ArenaOptions,
    progress: bool | None = None,
    on_match: Callable[[int], None] | None = None,
    tally: Tally | None = None,
) -> dict[str, Any]:
    """Play the matches and return the report (see the module's description); ``tally``, when given, is the one
    the matches are counted in."""
    first, second = contender(options.first), contender(options.second)
    if first.remote and second.remote:
        raise ValueError("at most one of the two bots may be remote: the other plays as the server's bot")
    rules = RuleSet(players=options.players, target=options.target)
    from openskill.models import PlackettLuce

    rng = random.Random(options.seed)
    model = PlackettLuce()
    ratings = {options.first: model.rating(name=options.first), options.second: model.rating(name=options.second)}
    tally = Tally() if tally is None else tally
    table = RemoteTable() if first.remote or second.remote else None
    started = time.perf_counter()
    try:
        with Progress(options.matches, "matches", enabled=progress) as bar:
            for index in range(options.matches):
                pair_seed = random.Random(options.seed * 1_000_003 + index // 2).getrandbits(64)
                first_team = index % 2
                if table is None:
                    assert first.local is not None and second.local is not None
                    ours, theirs = play_local(
                        rules, (first.local, second.local), first_team, pair_seed, rng, tally, options.playouts
                    )
                elif first.remote:
                    assert second.local is not None
                    ours, theirs = table.play(rules, first, second.local, first_team, pair_seed, rng.getrandbits(32))
                else:
                    assert first.local is not None
                    seed = rng.getrandbits(32)
                    theirs, ours = table.play(rules, second, first.local, 1 - first_team, pair_seed, seed)
                tally.matches += 1
                tally.wins += ours > theirs
                tally.margins.append(ours - theirs)
                a, b = ratings[options.first], ratings[options.second]
                [[a], [b]] = model.rate([[a], [b]], ranks=[0, 1] if ours > theirs else [1, 0])
                ratings[options.first], ratings[options.second] = a, b
                bar.advance()
                if on_match is not None:
                    on_match(index)
    finally:
        if table is not None:
            table.close()
    return report(options, tally, ratings, time.perf_counter() - started)


GAUNTLET = ("heuristic", "careful", "maniac", "rock", "beginner", "released-expert")
"""The rival styles a bot meets in the gauntlet (:mod:`truco.bots.styles` says what each one is)."""
REFERENCE = "heuristic"
"""The bot whose habits the gauntlet reports beside the subject's, measured in its own pairing."""


def run_gauntlet(
    options: ArenaOptions, progress: bool | None = None, rivals: tuple[str, ...] = GAUNTLET
) -> dict[str, Any]:
    """Play ``options.first`` against every rival style (``options.second`` is not used), ``options.matches``
    paired matches each, and report each pairing's win rate with its 95 % interval, and the habits of the
    subject (over all its pairings) and of the heuristic (in its pairing)."""
    subject = options.first
    if contender(subject).remote:
        raise ValueError("the gauntlet's subject plays in this process: name one of " + ", ".join(local_names()))
    pairings = []
    habits: dict[str, Habits] = {subject: Habits()}
    started = time.perf_counter()
    for rival in (r for r in rivals if r != subject):
        index = GAUNTLET.index(rival)  # each rival's seed is its place in the whole gauntlet: a part run repeats it
        matchup = ArenaOptions(
            subject, rival, options.players, options.matches, options.seed + index, options.target, options.playouts
        )
        tally = Tally()
        result = run_arena(matchup, progress, tally=tally)
        habits[subject].add(tally.habits[subject])
        if rival == REFERENCE:
            habits[REFERENCE] = tally.habits[REFERENCE]
        pairings.append(
            {"rival": rival}
            | {key: result[key] for key in ("seed", "matches", "wins", "win_rate", "ci95", "mean_margin")}
            | { "habits": result["habits"], "decision_time": result["decision_time"]}
        )
    return {
        "gauntlet": subject,
        "players": options.players,
        "target": options.target,
        "seed": options.seed,
        "matches_per_rival": options.matches,
        "expert_playouts": DEFAULT_PLAYOUTS if options.playouts is None else options.playouts,
        "pairings": pairings,
        "habits": {name: tallied.figures() for name, tallied in habits.items()},
        "envido_exploitability": envido_exploitability(RuleSet(players=options.players, target=options.target)),
        "seconds": round(time.perf_counter() - started, 1),
    }


def envido_exploitability(rules: RuleSet) -> dict[str, Any]:
    """How much a best response gains against the expert's envido and flor equilibrium (2 players), in points
    per hand, at every falta's value a match to ``rules.target`` can have: the worst and the mean over them,
    and the worst of each game alone (the envido between hands without flor, the flor contest)."""
    measured = [measure(rules.flor, value) for value in range(1, rules.target + 1)]
    worst = max(measured, key=lambda m: m.per_hand)
    contests = [m.flor.exploitability for m in measured if m.flor is not None]
    return {
        "unit": "points per hand",
        "faltas": [1, rules.target],
        "max_per_hand": round(worst.per_hand, 5),
        "worst_falta": worst.falta,
        "mean_per_hand": round(sum(m.per_hand for m in measured) / len(measured), 5),
        "max_envido_game": round(max(m.envido.exploitability for m in measured), 5),
        "max_flor_contest": round(max(contests), 5) if contests else None,
    }


def format_exploitability(figures: dict[str, Any]) -> str:
    contest = figures["max_flor_contest"]
    return (
        f"  envido/flor equilibrium exploitability: at most {figures['max_per_hand']:.4f} points per hand "
        f"(falta {figures['worst_falta']}), mean {figures['mean_per_hand']:.4f} over faltas "
        f"{figures['faltas'][0]}-{figures['faltas'][1]}; the envido game alone at most "
        f"{figures['max_envido_game']:.4f}" + ("" if contest is None else f", the flor contest {contest:.4f}")
    )


def format_gauntlet(result: dict[str, Any]) -> str:
    lines = [
        f"gauntlet of {result['gauntlet']}: {result['matches_per_rival']} paired matches a rival, "
        f"{result['players']} players, to {result['target']}, seed {result['seed']}"
    ]
    for pairing in result["pairings"]:
        low, high = pairing["ci95"]
        lines.append(
            f"  vs {pairing['rival']:<16} won {pairing['wins']}/{pairing['matches']} ({pairing['win_rate']:.1%}, "
            f"95 % interval {low:.1%} to {high:.1%}), margin {pairing['mean_margin']:+.2f}"
        )
    for name, figures in result["habits"].items():
        shown = ", ".join(
            f"{key} {'-' if figures[key] is None else f'{figures[key]:.2%}'}"
            for key in ("falta_share_malas", "early_mazo_per_hand", "bluff_truco_per_hand", "wasted_share")
        )
        lines.append(f"  habits of {name}: {shown}")
    lines.append(format_exploitability(result["envido_exploitability"]))
    lines.append(f"  {result['seconds']} s")
    return "\n".join(lines)


def report(options: ArenaOptions, tally: Tally, ratings: dict[str, Any], seconds: float) -> dict[str, Any]:
    low, high = wilson(tally.wins, tally.matches)
    decisions = {
        name: {"decisions": len(times), **percentiles(times, ""), **percentiles(tally.cpu_times[name], "cpu_")}
        for name, times in sorted(tally.times.items())
    }
    return {
        "first": options.first,
        "second": options.second,
        "players": options.players,
        "target": options.target,
        "seed": options.seed,
        "expert_playouts": DEFAULT_PLAYOUTS if options.playouts is None else options.playouts,
        "matches": tally.matches,
        "wins": tally.wins,
        "losses": tally.matches - tally.wins,
        "win_rate": round(tally.wins / tally.matches, 4) if tally.matches else 0.0,
        "ci95": [round(low, 4), round(high, 4)],
        "mean_margin": round(sum(tally.margins) / len(tally.margins), 2) if tally.margins else 0.0,
        "ratings": {
            name: {"mu": round(r.mu, 2), "sigma": round(r.sigma, 2), "ordinal": round(r.ordinal(), 2)}
            for name, r in ratings.items()
        },
        "decision_time": decisions,
        "habits": {name: habits.figures() for name, habits in sorted(tally.habits.items())},
        "seconds": round(seconds, 1),
    }


def percentiles(seconds: list[float], prefix: str) -> dict[str, float]:
    """The median, 99th percentile and slowest of ``seconds``, in milliseconds, keyed ``{prefix}p50_ms`` etc."""
    ordered = sorted(seconds)
    at = {"p50": len(ordered) // 2, "p99": min(len(ordered) - 1, int(len(ordered) * 0.99)), "max": len(ordered) - 1}
    return {f"{prefix}{name}_ms": round(ordered[index] * 1000, 2) for name, index in at.items()}


def format_report(result: dict[str, Any]) -> str:
    low, high = result["ci95"]
    lines = [
        f"{result['first']} vs {result['second']}: {result['matches']} matches ({result['matches'] // 2} pairs, "
        f"same deals with the seats swapped), {result['players']} players, to {result['target']}, "
        f"seed {result['seed']}",
        f"  {result['first']} won {result['wins']} ({result['win_rate']:.1%}, 95 % interval {low:.1%} to "
        f"{high:.1%}), mean margin {result['mean_margin']:+.2f} points a match",
    ]
    for name, rating in result["ratings"].items():
        lines.append(f"  rating {name}: mu {rating['mu']:.2f}, sigma {rating['sigma']:.2f} (OpenSkill Plackett-Luce)")
    for name, times in result["decision_time"].items():
        lines.append(
            f"  {name} decisions: {times['decisions']}, p50 {times['p50_ms']} ms, p99 {times['p99_ms']} ms, "
            f"slowest {times['max_ms']} ms; CPU p50 {times['cpu_p50_ms']} ms, p99 {times['cpu_p99_ms']} ms"
        )
    lines.append(f"  {result['seconds']} s")
    return "\n".join(lines)


def names_help() -> str:
    return ", ".join(local_names()) + ", remote:NAME, cmd:COMMAND"


__all__ = [
    "GAUNTLET",
    "ArenaOptions",
    "contender",
    "format_gauntlet",
    "format_report",
    "names_help",
    "register",
    "run_arena",
    "run_gauntlet",
    "wilson",
]


def rival_list(text: str) -> tuple[str, ...]:
    """The rival styles a ``--rivals`` value names. :raises argparse.ArgumentTypeError: for an unknown one."""
    import argparse

    rivals = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = [name for name in rivals if name not in GAUNTLET]
    if unknown or not rivals:
        raise argparse.ArgumentTypeError(f"rivals are some of {', '.join(GAUNTLET)}, not {text!r}")
    return rivals


def register(commands: Any) -> None:
    """Add ``truco arena`` to the ``truco`` command's subcommands."""
    import argparse

    from truco.commandline import positive
    from truco.engine.rules import VALID_PLAYERS, VALID_TARGETS

    arena = commands.add_parser(
        "arena",
        help="paired matches between two bots: win rate with a 95 %% interval, point margin, ratings",
        description="Plays paired matches (the same deals with the seats swapped) between bots A and B and reports "
        "A's win rate with its 95 % interval, the mean point margin and OpenSkill ratings. A bot is one of "
        f"{names_help()} (see the README).",
    )
    arena.add_argument("first", metavar="A", nargs="?", help="the first bot")
    arena.add_argument("second", metavar="B", nargs="?", help="the second bot")
    arena.add_argument(
        "--gauntlet",
        metavar="BOT",
        help=f"instead of A against B: BOT against each rival style ({', '.join(GAUNTLET)}), N matches each, "
        "with its habits and the heuristic's",
    )
    arena.add_argument(
        "--rivals",
        type=rival_list,
        default=GAUNTLET,
        metavar="R,R",
        help="with --gauntlet: only these rival styles (comma-separated), e.g. to run each on its own core",
    )
    arena.add_argument(
        "--exploitability",
        action="store_true",
        help="instead of matches: how much a best response gains against the expert's envido and flor "
        "equilibrium, in points per hand",
    )
    arena.add_argument("--players", type=int, choices=VALID_PLAYERS, default=2)
    arena.add_argument("--matches", type=positive, default=200, metavar="N", help="matches (two per pair)")
    arena.add_argument("--seed", type=int, default=0, metavar="S", help="the run repeats exactly for a seed")
    arena.add_argument("--target", type=int, choices=VALID_TARGETS, default=30, metavar="T")
    arena.add_argument("--playouts", type=positive, metavar="P", help="the expert's playouts per decision")
    arena.add_argument("--json", action="store_true", help="print the report as one JSON object")
    arena.add_argument("--no-progress", action="store_true", help="never draw the progress bar")
    arena.set_defaults(run=_run)
    del argparse


def _run(args: Any) -> int:
    import json

    from truco.commandline import UsageError

    if args.exploitability:
        figures = envido_exploitability(RuleSet(target=args.target))
        print(json.dumps(figures) if args.json else format_exploitability(figures).strip())
        return 0
    if (args.gauntlet is None) == (args.first is None or args.second is None) or (
        args.gauntlet is not None and args.first is not None
    ):
        raise UsageError("name two bots A and B, or one with --gauntlet BOT")
    options = ArenaOptions(
        first=args.gauntlet or args.first,
        second=args.second or "",
        players=args.players,
        matches=args.matches,
        seed=args.seed,
        target=args.target,
        playouts=args.playouts,
    )
    progress = False if args.no_progress else None
    try:
        if args.gauntlet is not None:
            result = run_gauntlet(options, progress, args.rivals)
            print(json.dumps(result) if args.json else format_gauntlet(result))
            return 0
        contender(options.first), contender(options.second)
        result = run_arena(options, progress)
    except ValueError as error:
        raise UsageError(str(error)) from None
    print(json.dumps(result) if args.json else format_report(result))
    return 0
