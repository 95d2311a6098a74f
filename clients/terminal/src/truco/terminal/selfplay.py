"""``truco selfplay``: whole matches through the server, every seat a separate client driven by an in-process bot.

Each game is created with every seat human; each seat joins with its own :class:`TrucoClient` (its own
channel and connection), watches the game (one message per commit: a move with the events it caused and the
view after them), and when its view offers legal actions lets a bot of :mod:`truco.bots` choose one, submitted
with ``expected_version`` and a request id. A stale version
(ABORTED: a teammate answered first, say) is counted as a race, apart from errors, and the seat reads the table
again. It doubles as a load
generator: ``--games`` and ``--concurrency`` set the volume, the summary gives moves per second, submit
latencies and errors by reason.

With ``--clock SECONDS`` the games are created with that decision clock and the takeover policy, and
``--drop-seat N`` makes seat N's client stop after its first move, as a player who walks away: the server's
clock runs out and its bot plays the seat. Every other seat whose clock ran out (a slow machine) takes its seat
back with ResumeSeat. The summary then says how many decisions the server took over.

The bots take the engine's :class:`~truco.engine.SeatView`; :func:`truco.wire.seat_view_from_pb` builds one
from the protobuf view the seat receives (what the seat may see and nothing more: no engine state is involved).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from truco.bots import make_bot
from truco.wire import as_wire, command_from_pb, seat_view_from_pb
from truco.wire.v1 import commands_pb2 as wire_commands
from truco.wire.v1 import views_pb2 as wire_views
from truco_client import (
    IllegalMove,
    TrucoClient,
    TrucoError,
    VersionConflict,
    clock_settings,
    commit_events,
    taken_over,
)
from truco_client.v1 import commands_pb2, events_pb2, game_service_pb2, views_pb2

from .commandline import Failure, refused

SEPARATE_CONNECTION = (("grpc.use_local_subchannel_pool", 1),)
"""Channel option that keeps each seat's channel on its own connection (grpc shares them by default)."""
STALL_SECONDS = 5.0
"""How long a seat waits for the watch before reading its view directly."""


def playable(view: views_pb2.SeatView, *, sena_sent: bool = False) -> list[commands_pb2.Command]:
    """The view's legal actions worth choosing from.

    ``sena_sent``: the seat already sent this hand's seña. Señas do not advance the version, so a view from
    before the seña can arrive after it and still offer one: leave señas out then.
    """
    actions: list[commands_pb2.Command] = list(view.legal_actions)
    if sena_sent:
        actions = [a for a in actions if a.WhichOneof("kind") != "send_sena"]
    return actions


def choose(bot_name: str, view: views_pb2.SeatView, actions: Sequence[commands_pb2.Command], rng: random.Random) -> (
    commands_pb2.Command
):
    """One of ``actions`` (never empty; from ``view``), as the bot ``bot_name`` would choose it."""
    if bot_name == "random":
        return actions[int(rng.random() * len(actions))]
    engine_actions = [command_from_pb(as_wire(a, wire_commands.Command), view.seat) for a in actions]
    wire_view = as_wire(view, wire_views.SeatView)
    chosen = make_bot(bot_name).choose(engine_actions, lambda: seat_view_from_pb(wire_view), rng)
    return actions[engine_actions.index(chosen)]


# --- Running games --------------------------------------------------------------------------------------------


@dataclass
class Stats:
    """What all the games did, for the summary."""

    games: int = 0
    finished: int = 0
    moves: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    clocked: bool = False
    takeovers: int = 0
    """Decisions the server's bot made for seats whose player was gone."""
    expiries: int = 0
    """Clocks that ran out."""
    resumes: int = 0
    races: int = 0
    """Moves refused with VERSION_CONFLICT: chosen on a view that another seat's move had just made stale (a
    partner answered first, say). Expected whenever seats act at once; the seat reads the table and chooses
    again. Not an error."""

    def error(self, error: TrucoError) -> None:
        if isinstance(error, VersionConflict):
            self.races += 1
        else:
            self.errors[error.reason or error.code.name] += 1


@dataclass(frozen=True)
class GameResult:
    """One finished (or failed) game."""

    name: str
    scores: tuple[int, int]
    winner: int | None
    moves: int
    seconds: float
    takeovers: int = 0


class _Seat:
    """One seat's client, its latest view, and the bot that plays it."""

    def __init__(
        self,
        client: TrucoClient,
        name: str,
        view: views_pb2.SeatView,
        bot: str,
        rng: random.Random,
        *,
        drops: bool = False,
    ):
        self.client = client
        self.name = name
        self.view = view
        self.bot = bot
        self.rng = rng
        self.drops = drops
        """Whether this seat's player walks away after its first move."""
        self.moves = 0
        self.sena_hand = -1
        """The number of the hand in which this seat sent its seña."""

    def take(self, view: views_pb2.SeatView, *, sena: bool = False) -> None:
        """Keep ``view`` if it is newer than the one held (watch views may arrive after a submit's own).

        A seña does not advance the version, so a view after a seña event is newer than one of the same version.
        """
        if view.public.version > self.view.public.version or (sena and view.public.version == self.view.public.version):
            self.view = view

    async def refresh(self) -> None:
        response = await self.client.get_view(self.name)
        if response.HasField("seat"):
            self.view = response.seat

    async def play(self, stats: Stats) -> None:
        """Act whenever the view offers actions, until the match is over."""
        updates: asyncio.Queue[game_service_pb2.WatchGameResponse | BaseException | None] = asyncio.Queue()
        watcher = asyncio.create_task(self._watch(updates))
        try:
            while self.view.public.phase != views_pb2.PHASE_MATCH_OVER:
                while not updates.empty():
                    self._update(updates.get_nowait())
                if self.view.public.phase == views_pb2.PHASE_MATCH_OVER or (self.drops and self.moves):
                    break
                if taken_over(self.view.public, self.view.seat):  # our clock ran out: take the seat back
                    self.view = await self.client.resume_seat(self.name)
                    stats.resumes += 1
                    continue
                actions = playable(self.view, sena_sent=self.view.public.hand.number == self.sena_hand)
                if actions:
                    await self._act(actions, stats)
                    continue
                # One move brings several events (the card, the round's end, the points, the next deal): the watch
                # delivers them as one commit with the view after the last, so the seat acts on no outdated view.
                try:
                    self._update(await asyncio.wait_for(updates.get(), STALL_SECONDS))
                except TimeoutError:
                    await self.refresh()
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await watcher

    def _update(self, commit: game_service_pb2.WatchGameResponse | BaseException | None) -> None:
        if isinstance(commit, BaseException):
            raise commit
        if commit is not None and commit.HasField("seat"):
            events = commit_events(commit)
            self.take(commit.seat, sena=bool(events) and events[-1].WhichOneof("kind") == "sena_sent")

    async def _act(self, actions: Sequence[commands_pb2.Command], stats: Stats) -> None:
        hand = self.view.public.hand.number
        command = choose(self.bot, self.view, actions, self.rng)
        started = time.perf_counter()
        try:
            response = await self.client.submit(self.name, command, expected_version=self.view.public.version)
        except VersionConflict as error:
            stats.error(error)
            await self.refresh()
            return
        except IllegalMove as error:
            stats.error(error)  # the table moved in a way the version did not show (a seña): read it again
            await self.refresh()
            return
        if command.WhichOneof("kind") == "send_sena":
            self.sena_hand = hand
        stats.latencies.append(time.perf_counter() - started)
        stats.moves += 1
        self.moves += 1
        if response.view.public.version >= self.view.public.version:
            self.view = response.view

    async def _watch(
        self, updates: asyncio.Queue[game_service_pb2.WatchGameResponse | BaseException | None]
    ) -> None:
        try:
            async with contextlib.aclosing(self.client.watch_commits(self.name, self.view.public.version)) as stream:
                async for commit in stream:
                    updates.put_nowait(commit)
            updates.put_nowait(None)
        except TrucoError as error:
            updates.put_nowait(error)


async def _play_out(seats: Sequence[_Seat], stats: Stats, name: str, game_timeout: float) -> None:
    """Every seat plays until the match ends. :raises TimeoutError: past ``game_timeout`` seconds; the first
    seat's failure, as it came (the others are cancelled)."""
    try:
        async with asyncio.timeout(game_timeout), asyncio.TaskGroup() as group:
            for seat in seats:
                group.create_task(seat.play(stats))
    except ExceptionGroup as failed:  # one seat failed: the others were cancelled; report the first cause
        raise failed.exceptions[0] from None
    except TimeoutError:
        raise TimeoutError(f"{name} did not finish in {game_timeout:g}s") from None


async def play_game(
    server: str,
    players: int,
    bot: str,
    stats: Stats,
    *,
    target: int | None = None,
    rng: random.Random | None = None,
    timeout: float = 10.0,
    game_timeout: float = 600.0,
    clock: float | None = None,
    drop_seat: int | None = None,
    retries: int = 4,
) -> GameResult:
    """Create a game with every seat human, join each seat with its own client, and play it to the end.

    ``clock``: the games' decision clock in seconds (takeover policy); ``drop_seat``: that seat stops after
    its first move.

    :raises TrucoError: from the first seat that failed (the others stop).
    :raises TimeoutError: when the match has not ended after ``game_timeout`` seconds.
    """
    rng = rng or random.Random()
    started = time.perf_counter()
    rules: dict[str, int] = {"players": players}
    if target:
        rules["target"] = target
    clients = [
        TrucoClient(server, timeout=timeout, retries=retries, options=SEPARATE_CONNECTION) for _ in range(players)
    ]
    try:
        settings = clock_settings(clock) if clock is not None else None
        game = await clients[0].create_game(rules=rules, clock=settings)
        seats = []
        for number, client in enumerate(clients):
            joined = await client.join_game(game.name, seat=number, player_name=f"selfplay-{bot}-{number}")
            rng_seat = random.Random(rng.random())
            seats.append(_Seat(client, game.name, joined.view, bot, rng_seat, drops=number == drop_seat))
        await _play_out(seats, stats, game.name, game_timeout)
        final = (await clients[0].get_view(game.name)).public
        async with TrucoClient(server, timeout=timeout) as spectator:  # the whole log, to count the takeovers
            events = [item.event async for item in spectator.watch(game.name)]
        takeovers, expiries = count_takeovers(events)
        stats.takeovers += takeovers
        stats.expiries += expiries
    finally:
        await asyncio.gather(*(client.close() for client in clients), return_exceptions=True)
    scores = {s.team: s.points for s in final.scores}
    return GameResult(
        name=game.name,
        scores=(scores.get(0, 0), scores.get(1, 0)),
        winner=final.winner_team if final.HasField("winner_team") else None,
        moves=sum(seat.moves for seat in seats),
        seconds=time.perf_counter() - started,
        takeovers=takeovers,
    )


DECISIONS = (
    "card_played",
    "call_made",
    "call_accepted",
    "call_declined",
    "went_to_mazo",
    "perros_called",
    "perros_skipped",
    "perros_answered",
)
"""The events that record a seat's own decision."""


def count_takeovers(events: Sequence[events_pb2.Event]) -> tuple[int, int]:
    """(decisions the server's bot made for seats taken over, clocks that ran out) in a game's event log."""
    away: set[int] = set()
    decisions = expiries = 0
    for event in events:
        kind = event.WhichOneof("kind")
        if kind == "clock_expired":
            expiries += 1
            if not event.clock_expired.forfeit:
                away.add(event.clock_expired.seat)
        elif kind == "seat_left":
            away.add(event.seat_left.seat)
        elif kind == "seat_resumed":
            away.discard(event.seat_resumed.seat)
        elif kind in DECISIONS and getattr(event, kind).seat in away:
            decisions += 1
    return decisions, expiries


@dataclass(frozen=True)
class SelfplayOptions:
    """What ``truco selfplay`` was asked for."""

    server: str
    players: int = 2
    games: int = 1
    bots: str = "random"
    concurrency: int = 1
    target: int | None = None
    seed: int | None = None
    timeout: float = 10.0
    game_timeout: float = 600.0
    clock: float | None = None
    drop_seat: int | None = None
    retries: int = 4
    """How many times each call is retried on UNAVAILABLE (with the same request id), with backoff up to 3 s."""


async def selfplay(options: SelfplayOptions, out: Callable[[str], None] = print) -> tuple[Stats, float]:
    """Play ``options.games`` games, at most ``options.concurrency`` at a time; prints each final score."""
    stats = Stats(clocked=options.clock is not None or options.drop_seat is not None)
    rng = random.Random(options.seed)
    limit = asyncio.Semaphore(options.concurrency)
    started = time.perf_counter()

    async def one(number: int, seed: float) -> None:
        async with limit:
            stats.games += 1
            try:
                result = await play_game(
                    options.server,
                    options.players,
                    options.bots,
                    stats,
                    target=options.target,
                    rng=random.Random(seed),
                    timeout=options.timeout,
                    game_timeout=options.game_timeout,
                    clock=options.clock,
                    drop_seat=options.drop_seat,
                    retries=options.retries,
                )
            except TrucoError as error:
                stats.error(error)
                stats.failures.append(f"game {number}: {error}")
                out(f"game {number}: failed: {error}")
                return
            except Exception as error:  # keep the other games going; the summary and exit status tell
                stats.errors[type(error).__name__] += 1
                stats.failures.append(f"game {number}: {error!r}")
                out(f"game {number}: failed: {error!r}")
                return
            stats.finished += 1
            winner = f"team {result.winner} wins" if result.winner is not None else "no winner"
            out(
                f"game {number} {result.name}: team 0 {result.scores[0]} - team 1 {result.scores[1]}, {winner}"
                f" ({result.moves} moves, {result.seconds:.2f}s"
                + (f", {result.takeovers} taken over by the server)" if stats.clocked else ")")
            )

    await asyncio.gather(*(one(number, rng.random()) for number in range(1, options.games + 1)))
    return stats, time.perf_counter() - started


def _percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def format_summary(stats: Stats, seconds: float) -> str:
    """The closing report: games, moves, moves per second, submit latencies, errors by reason."""
    rate = stats.moves / seconds if seconds > 0 else 0.0
    lines = [
        f"games     {stats.finished}/{stats.games} finished in {seconds:.2f}s",
        f"moves     {stats.moves} ({rate:.1f} moves/s)",
    ]
    if stats.latencies:
        lines.append(
            "submit    p50 {:.1f} ms, p95 {:.1f} ms, p99 {:.1f} ms".format(
                *(1000 * _percentile(stats.latencies, f) for f in (0.5, 0.95, 0.99))
            )
        )
    if stats.clocked:
        lines.append(
            f"takeover  {stats.takeovers} decisions made by the server for absent seats"
            f" ({stats.expiries} clocks ran out, {stats.resumes} seats resumed)"
        )
    if stats.races:
        lines.append(
            f"races     {stats.races} moves chosen on a view another seat had just changed (VERSION_CONFLICT; "
            "expected when seats act at once: the seat read the table and chose again)"
        )
    if stats.errors:
        lines.append("errors    " + ", ".join(f"{reason} {count}" for reason, count in stats.errors.most_common()))
    else:
        lines.append("errors    none")
    return "\n".join(lines)


def run(options: SelfplayOptions) -> int:
    """Run :func:`selfplay` and print the summary; 0 when every game finished.

    :raises Failure: with one line, when the server cannot be reached or refuses to create or join a game (so
        every game would fail the same way): checked once before the games start.
    """
    asyncio.run(_check_server(options))
    stats, seconds = asyncio.run(selfplay(options))
    print(format_summary(stats, seconds))
    return 0 if stats.finished == stats.games else 1


async def _check_server(options: SelfplayOptions) -> None:
    """One cheap call first, so an unreachable server or a refused key is one line, not a failure per game."""
    async with TrucoClient(options.server, timeout=options.timeout, retries=options.retries) as client:
        try:
            async for _ in client.list_games(page_size=1):
                break
        except TrucoError as error:
            raise Failure(refused(error, options.server)) from None
