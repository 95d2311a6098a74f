"""``truco play``: one human plays a whole match in the terminal against the server's bots (or in a shared game).

What it says comes from the player's :class:`~truco.terminal.voices.Voice` (Rioplatense by default, English
with ``--lang en``): the table, each event and each option are told by :mod:`truco.terminal.telling` in the words
of one catalogue per language. The loop in :func:`play` watches the game, prints what the others do, and asks
for a numbered choice when the seat may act.

Turn clocks: the table shows whose clock runs and how long it has left, the prompt counts down (a line at
:data:`COUNTDOWN_MARKS` seconds left), and when the player's clock runs out (or the server's bot took the seat
over) typing ``r`` takes the seat back.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from truco_client import IllegalMove, TrucoClient, TrucoError, VersionConflict, card_text, seconds_left
from truco_client.v1 import commands_pb2, game_service_pb2, players_pb2, views_pb2

from .commandline import Failure, refused
from .telling import own_cards
from .voices import ENGLISH, Voice, voice_for

COUNTDOWN_MARKS = (20, 10, 5)
"""Seconds left at which the prompt reminds the player of the clock."""


# --- Choosing among the options ----------------------------------------------------------------------------------


def ordered_options(view: views_pb2.SeatView) -> list[commands_pb2.Command]:
    """The legal actions as offered: as the server lists them, but the cards in the order of the seat's cards."""
    rank = {card_text(c): index for index, c in enumerate(own_cards(view))}
    cards = iter(
        sorted(
            (a for a in view.legal_actions if a.WhichOneof("kind") == "play_card"),
            key=lambda a: rank.get(card_text(a.play_card.card), len(rank)),
        )
    )
    return [next(cards) if a.WhichOneof("kind") == "play_card" else a for a in view.legal_actions]


def parse_choice(text: str, count: int, voice: Voice = ENGLISH) -> int:
    """The 0-based option for the typed ``text``. :raises ValueError: with a message for the player (in
    ``voice``'s language)."""
    cleaned = text.strip()
    if not cleaned.isdigit():
        raise ValueError(voice.choose(count))
    number = int(cleaned)
    if not 1 <= number <= count:
        raise ValueError(voice.no_option(number, count))
    return number - 1


# --- The interactive loop ----------------------------------------------------------------------------------------


class _LineReader:
    """Standard input lines delivered to the event loop by a daemon thread (None at end of input).

    A daemon thread, not the loop's executor: a blocked ``input()`` must not keep the process alive after
    Ctrl-C or the end of the match.
    """

    def __init__(self, source: TextIO) -> None:
        self._source = source
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        threading.Thread(target=self._run, name="truco-play-stdin", daemon=True).start()

    def _run(self) -> None:
        while True:
            try:
                line = self._source.readline()
            except (OSError, ValueError):
                line = ""
            try:
                self._loop.call_soon_threadsafe(self._queue.put_nowait, line or None)
            except RuntimeError:  # the loop is closed: the game is over
                return
            if not line:
                return

    async def readline(self) -> str | None:
        return await self._queue.get()


@dataclass
class PlayOptions:
    """What ``truco play`` was asked for."""

    server: str
    players: int = 2
    bots: str = "heuristic"
    level: str | None = None
    """The server's bots' level for every bot seat (beginner, intermediate or expert), instead of ``bots``."""
    seat: int | None = None
    game: str | None = None
    player_name: str = "human"
    timeout: float = 10.0
    lang: str | None = None
    """"es" (Rioplatense) or "en"; None: English when the locale says so, else Rioplatense."""
    quick: bool = False
    """Find a quick match (with ``player_token``) instead of creating or joining a game."""
    player_token: str | None = None
    bots_after: float | None = None
    """With ``quick``: the server's bots may fill the table after this many seconds."""


@dataclass
class _Table:
    view: views_pb2.SeatView
    labels: dict[int, str] = field(default_factory=dict)
    sena_hand: int = -1
    """The hand in which the player sent a seña (a view from before it may still offer one)."""
    away: bool = False
    """A bot plays the seat (its clock ran out, or the player left) until the player types r."""
    voice: Voice | None = None
    """What the table says, and in which language (set by :func:`play`)."""
    host: bool = False
    """The player sat down first (SeatInfo.host): while seats are open it may start with bots in them."""

    @property
    def says(self) -> Voice:
        assert self.voice is not None
        return self.voice


def prompt_view(view: views_pb2.SeatView, sena_sent: bool = False) -> views_pb2.SeatView | None:
    """The view to ask the player about, or None when there is nothing to ask.

    Señas are offered with the player's real options, never alone: a seat may send one at any moment, and asking
    at every move of the others would be noise. Once the hand's seña is sent, señas are left out.
    """
    options = [a for a in ordered_options(view) if not (sena_sent and a.WhichOneof("kind") == "send_sena")]
    if all(a.WhichOneof("kind") == "send_sena" for a in options):
        return None
    shown = views_pb2.SeatView()
    shown.CopyFrom(view)
    del shown.legal_actions[:]
    shown.legal_actions.extend(options)
    return shown


_DONE = object()
STALL_SECONDS = 5.0
"""How long to wait for the watch before reading the table directly."""


async def play(options: PlayOptions, *, source: TextIO | None = None, out: Callable[[str], None] = print) -> int:
    """Play one match as a human at the terminal; 0 when the match ends or the player quits.

    :raises TrucoError: a call the server refused or never answered (the table cannot go on).
    :raises Failure: the game could not be joined, or its event stream was lost.
    """
    voice = voice_for(options.lang)
    async with TrucoClient(options.server, timeout=options.timeout, player_token=options.player_token) as client:
        if options.quick:
            return await _quick(client, options, voice, source, out)
        labels: dict[int, str] = {}
        seat: int | None = options.seat
        if options.game is None:
            seat = seat if seat is not None else 0
            if not 0 <= seat < options.players:
                out("truco play: " + voice.notice("bad_seat", last=options.players - 1))
                return 2
            bots = {s: options.bots for s in range(options.players) if s != seat}
            game = await client.create_game(rules={"players": options.players}, bots=bots, bot_level=options.level)
            labels = voice.bot_labels(game)
            name = game.name
        else:
            name = options.game
        try:
            joined = await client.join_game(name, seat=seat, player_name=options.player_name)
        except TrucoError as error:
            why = refused(error, options.server, voice)
            raise Failure(voice.notice("cannot_join", game=name, why=why)) from None
        host = False
        if options.game is not None:
            game = await client.get_game(name)
            labels, host = voice.bot_labels(game), any(s.host and s.seat == joined.seat for s in game.seats)
        table = _Table(joined.view, labels, voice=voice, host=host)
        out(voice.joined(joined.view.public.game or name, joined.seat, joined.view.team))
        if prompt_view(table.view) is None:  # otherwise the first prompt shows the table
            out(voice.render_view(table.view, labels, options=False))
        return await _loop(client, name, table, _LineReader(source or sys.stdin), out)


async def _quick(
    client: TrucoClient, options: PlayOptions, voice: Voice, source: TextIO | None, out: Callable[[str], None]
) -> int:
    """``--quick``: a ticket followed until it is matched, then the match played as any other."""
    waited = -1

    def update(ticket: players_pb2.MatchTicket) -> None:
        nonlocal waited
        seconds = ticket.waited.seconds
        if seconds // 5 != waited // 5:
            low, high = ticket.window_low, ticket.window_high
            window = {"low": f"{low:.0f}", "high": f"{high:.0f}"}
            out(voice.notice("looking", players=options.players, seconds=seconds, **window))
        waited = seconds

    try:
        found = await client.quick_match(
            {"players": options.players}, on_update=update, bots_after=options.bots_after, bot_level=options.level
        )
    except TrucoError as error:
        raise Failure(voice.notice("cannot_look", why=refused(error, options.server, voice))) from None
    if found is None:
        out(voice.notice("no_match"))
        return 1
    view = (await client.get_view(found.game)).seat
    labels = voice.bot_labels(await client.get_game(found.game))
    table = _Table(view, labels, voice=voice)
    out(voice.joined(found.game, found.seat, view.team))
    if prompt_view(table.view) is None:
        out(voice.render_view(table.view, labels, options=False))
    return await _loop(client, found.game, table, _LineReader(source or sys.stdin), out)


async def _loop(client: TrucoClient, name: str, table: _Table, reader: _LineReader, out: Callable[[str], None]) -> int:
    events: asyncio.Queue[object] = asyncio.Queue()
    watcher = asyncio.create_task(_watch(client, name, table.view.public.version, events))
    seat = _Seat(client, name, table, reader, out, events, caught_up=_version(table))
    try:
        while True:
            status = await seat.step()
            if status is not None:
                return status
    finally:
        watcher.cancel()
        if seat.typed is not None:
            seat.typed.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await watcher


@dataclass
class _Seat:
    """The player's side of the loop: each step shows what happened, then waits for the table to catch up or asks
    the player and acts on the answer. A step that returns None is followed by another; a status ends the loop.

    :ivar typed: the line being read, kept across steps (an event may arrive while the player types).
    :ivar caught_up: the version the table must show before the player is asked again.
    :ivar shown_at: the version whose table was last printed (None: print it again).
    """

    client: TrucoClient
    name: str
    table: _Table
    reader: _LineReader
    out: Callable[[str], None]
    events: asyncio.Queue[object]
    caught_up: int
    typed: asyncio.Task[str | None] | None = None
    shown_at: int | None = None

    async def step(self) -> int | None:
        table, out = self.table, self.out
        # Show what happened; settle a moment so a burst of bot moves is printed before the prompt.
        status = await _drain(self.events, table, out, settle=0.02)
        if status is not None:
            return status
        if table.view.public.phase == views_pb2.PHASE_MATCH_OVER:
            return _finish(table, out)
        if table.away or _may_start(table):
            self.shown_at = None
            wait = _away if table.away else _waiting
            return await wait(self.client, self.name, table, self.reader, self.events, out)
        view = prompt_view(table.view, table.view.public.hand.number == table.sena_hand)
        if view is None or _version(table) < self.caught_up:
            return await self._wait_for_table()
        self._ask(view)
        if self.typed is None:
            self.typed = asyncio.create_task(self.reader.readline())
        typed, arrival = self.typed, asyncio.create_task(self.events.get())
        done = await _wait_counting_down(typed, arrival, view, out, table.says)
        if arrival in done:
            status = _apply(arrival.result(), table, out)
            if status is not None or typed not in done:
                return status  # the table changed under the prompt: show it again if it moved on
        else:
            arrival.cancel()
        self.typed = None
        return await self._answer(typed.result(), view)

    async def _wait_for_table(self) -> int | None:
        """Nothing to ask yet: apply the next event, or read the table directly when the stream is late."""
        try:
            item = await asyncio.wait_for(self.events.get(), STALL_SECONDS)
        except TimeoutError:
            self.table.view = await _fresh_view(self.client, self.name, self.table.view)
            self.caught_up = min(self.caught_up, _version(self.table))
            return None
        return _apply(item, self.table, self.out)

    def _ask(self, view: views_pb2.SeatView) -> None:
        """The table (unless already shown at this version), then the prompt with the clock's time left."""
        table, out = self.table, self.out
        if self.shown_at != _version(table):
            out("")
            out(table.says.render_view(view, table.labels))
            self.shown_at = _version(table)
        left = seconds_left(view.public)
        timer = table.says.seconds_left(left) if left is not None and view.seat in view.public.clock.seats else ""
        out(table.says.prompt(len(view.legal_actions), timer))

    async def _answer(self, line: str | None, view: views_pb2.SeatView) -> int | None:
        """Act on what the player typed: leave, show the table again, or send the chosen action."""
        says = self.table.says
        if line is None:
            self.out(says.end_of_input(self.name))
            return 0
        text = line.strip().lower()
        if text in ("q", "quit", "exit", "salir"):
            self.out(says.leaving(self.name))
            return 0
        if text in ("?", "h", "help", "", "m", "mesa"):
            self.shown_at = None
        elif _version(self.table) != view.public.version:
            self.out(says.changed)
        else:
            try:
                choice = parse_choice(text, len(view.legal_actions), says)
            except ValueError as error:
                self.out(says.refused(str(error)))
                return None
            await self._submit(view, choice)
        return None

    async def _submit(self, view: views_pb2.SeatView, choice: int) -> None:
        """Send the chosen action at the version shown; a refusal is said and the table read again."""
        table, says = self.table, self.table.says
        try:
            response = await self.client.submit(self.name, view.legal_actions[choice], expected_version=_version(table))
        except VersionConflict:
            self.out(says.moved_on)
            table.view = await _fresh_view(self.client, self.name, table.view)
            self.shown_at = None
            return
        except IllegalMove as error:
            self.out(says.refused_by_server(error.message, error.reason))
            table.view = await _fresh_view(self.client, self.name, table.view)
            self.shown_at = None
            return
        if view.legal_actions[choice].WhichOneof("kind") == "send_sena":
            table.sena_hand = view.public.hand.number
        if response.version == _version(table):
            table.view = response.view  # nothing public happened (a seña): no event will tell us
        self.caught_up = max(self.caught_up, response.version)
        self.shown_at = None


def _version(table: _Table) -> int:
    return table.view.public.version


async def _wait_counting_down(
    typed: asyncio.Task[str | None],
    arrival: asyncio.Task[object],
    view: views_pb2.SeatView,
    out: Callable[[str], None],
    voice: Voice,
) -> set[asyncio.Task[object]]:
    """Wait for the player's line or the next event, printing the clock at each of :data:`COUNTDOWN_MARKS`."""
    waiting: set[asyncio.Task[object]] = {typed, arrival}
    while True:
        left = seconds_left(view.public) if view.seat in view.public.clock.seats else None
        marks = [m for m in COUNTDOWN_MARKS if left is not None and m < left]
        timeout = left - marks[0] if marks and left is not None else None
        done, _ = await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if done:
            return done
        out(voice.countdown(marks[0]))


async def _away(
    client: TrucoClient,
    name: str,
    table: _Table,
    reader: _LineReader,
    events: asyncio.Queue[object],
    out: Callable[[str], None],
) -> int | None:
    """While a bot plays the seat: show what happens, and take the seat back when the player types r."""

    async def resume() -> None:
        table.view = await client.resume_seat(name)
        table.away = False
        out(table.says.back)

    out(table.says.away)
    return await _aside(name, table, reader, events, out, lambda: table.away, ("r", "resume", "volver"), resume)


def _may_start(table: _Table) -> bool:
    """The table waits for friends and its host plays here: it may start now with bots."""
    public = table.view.public
    return table.host and not public.HasField("hand") and public.phase != views_pb2.PHASE_MATCH_OVER


async def _waiting(
    client: TrucoClient,
    name: str,
    table: _Table,
    reader: _LineReader,
    events: asyncio.Queue[object],
    out: Callable[[str], None],
) -> int | None:
    """While the host's table waits for friends: show who arrives, and start with bots when the host types b."""

    async def start() -> None:
        try:
            started = await client.start_with_bots(name)
        except IllegalMove:  # the last friend sat down meanwhile: the table is dealt anyway
            table.view = await _fresh_view(client, name, table.view)
            return
        table.view, table.labels = started.view, table.says.bot_labels(started.game)
        out(table.says.started)

    out(table.says.host_waiting)
    return await _aside(name, table, reader, events, out, lambda: _may_start(table), ("b", "bots"), start)


async def _aside(
    name: str,
    table: _Table,
    reader: _LineReader,
    events: asyncio.Queue[object],
    out: Callable[[str], None],
    holds: Callable[[], bool],
    keys: tuple[str, ...],
    act: Callable[[], Awaitable[None]],
) -> int | None:
    """While ``holds()`` (the seat away, the table waiting): show what happens; leave on q, or ``act`` and go back
    to the table when the player types one of ``keys``. An exit status when the player leaves or the stream ends."""
    typed = asyncio.create_task(reader.readline())
    try:
        while holds():
            arrival = asyncio.create_task(events.get())
            done, _ = await asyncio.wait({typed, arrival}, return_when=asyncio.FIRST_COMPLETED)
            if arrival in done:
                status = _apply(arrival.result(), table, out)
                if status is not None:
                    return status
                continue
            arrival.cancel()
            text = (typed.result() or "q").strip().lower()
            if text in ("q", "quit", "exit", "salir"):
                out(table.says.leaving(name))
                return 0
            if text in keys:
                await act()
                return None
            typed = asyncio.create_task(reader.readline())
        return None
    finally:
        typed.cancel()


async def _fresh_view(client: TrucoClient, name: str, current: views_pb2.SeatView) -> views_pb2.SeatView:
    response = await client.get_view(name)
    return response.seat if response.HasField("seat") else current


async def _watch(client: TrucoClient, name: str, after: int, events: asyncio.Queue[object]) -> None:
    try:
        async with contextlib.aclosing(client.watch(name, after_version=after)) as stream:
            async for item in stream:
                events.put_nowait(item)
        events.put_nowait(_DONE)
    except TrucoError as error:
        events.put_nowait(error)


async def _drain(events: asyncio.Queue[object], table: _Table, out: Callable[[str], None], settle: float) -> int | None:
    """Apply every event received so far, waiting ``settle`` seconds for stragglers; an exit status at the end."""
    while True:
        try:
            item = events.get_nowait() if not events.empty() else await asyncio.wait_for(events.get(), settle)
        except TimeoutError:
            return None
        status = _apply(item, table, out)
        if status is not None:
            return status


def _apply(item: object, table: _Table, out: Callable[[str], None]) -> int | None:
    """Print one item of the watch and take its view; an exit status when the stream is over."""
    if item is _DONE:
        if table.view.public.phase == views_pb2.PHASE_MATCH_OVER:
            return _finish(table, out)
        raise Failure(table.says.notice("stream_ended"))
    if isinstance(item, TrucoError):
        raise Failure(table.says.notice("stream_lost", why=refused(item, voice=table.says)))
    assert isinstance(item, game_service_pb2.WatchGameResponse)
    kind = item.event.WhichOneof("kind")
    me = table.view.seat
    expired = item.event.clock_expired
    if (kind == "clock_expired" and expired.seat == me and not expired.forfeit) or (
        kind == "seat_left" and item.event.seat_left.seat == me
    ):
        table.away = True
    elif kind == "seat_resumed" and item.event.seat_resumed.seat == me:
        table.away = False
    line = table.says.describe_event(item.event, table.view.seat, table.labels)
    if line is not None:
        out(line)
    if item.HasField("seat"):
        version, held = item.seat.public.version, table.view.public.version
        # A seña keeps the version of the event before it: the view after it is newer at an equal version.
        if version > held or (version == held and item.event.WhichOneof("kind") == "sena_sent"):
            table.view = item.seat
    return None


def _finish(table: _Table, out: Callable[[str], None]) -> int:
    out("")
    out(table.says.render_view(table.view, table.labels))
    return 0


def run(options: PlayOptions) -> int:
    """Run :func:`play` until the match ends, the player quits, or Ctrl-C (status 130).

    :raises Failure: with one line, when the server cannot be reached or refuses a call the table cannot recover
        from (the game does not exist, no seat is open, the seat's token is refused...).
    """
    try:
        return asyncio.run(play(options))
    except KeyboardInterrupt:
        print("\ntruco play: " + voice_for(options.lang).notice("interrupted"), file=sys.stderr)
        return 130
    except TrucoError as error:
        raise Failure(refused(error, options.server, voice_for(options.lang))) from None


__all__: Sequence[str] = ["COUNTDOWN_MARKS", "PlayOptions", "ordered_options", "parse_choice", "play", "run"]
