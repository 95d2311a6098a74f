"""``truco play``: one human plays a whole match in the terminal against the server's bots (or in a shared game).

The rendering is pure: :func:`render_view` turns a seat's view into text, :func:`describe_event` one event
into a line, :func:`describe_action` one legal action into an option. The loop in :func:`play` watches the
game, prints what the others do, and asks for a numbered choice when the seat may act.

Turn clocks: the table shows whose clock runs and how long it has left, the prompt counts down (a line at
:data:`COUNTDOWN_MARKS` seconds left), and when the player's clock runs out (or the server's bot took the seat
over) typing ``r`` takes the seat back.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from truco.engine import Card, is_pieza, piezas, strength
from truco_client import (
    IllegalMove,
    TrucoClient,
    TrucoError,
    VersionConflict,
    call_name,
    card_name,
    card_text,
    describe,
    seconds_left,
    sena_name,
)
from truco_client.v1 import cards_pb2, commands_pb2, events_pb2, game_service_pb2, players_pb2, views_pb2

from .commandline import Failure, refused

if TYPE_CHECKING:
    from .castellano import Voice

MATAS = frozenset({"1e", "1b", "7e", "7o"})
"""The four matas: the strongest cards after the piezas."""

_REASONS = {
    events_pb2.SCORE_REASON_ENVIDO: "envido",
    events_pb2.SCORE_REASON_ENVIDO_DECLINED: "envido declined",
    events_pb2.SCORE_REASON_FLOR: "flor",
    events_pb2.SCORE_REASON_FLOR_DECLINED: "flor declined",
    events_pb2.SCORE_REASON_HAND: "the hand",
    events_pb2.SCORE_REASON_TRUCO_DECLINED: "truco declined",
    events_pb2.SCORE_REASON_MAZO: "mazo",
}
_ENDS = {
    events_pb2.HAND_END_ROUNDS: "on the rounds",
    events_pb2.HAND_END_TRUCO_DECLINED: "truco declined",
    events_pb2.HAND_END_MAZO: "al mazo",
    events_pb2.HAND_END_MATCH_ENDED: "the match ended",
    events_pb2.HAND_END_FORFEIT: "conceded",
}
COUNTDOWN_MARKS = (20, 10, 5)
"""Seconds left at which the prompt reminds the player of the clock."""
_STANDINGS = {views_pb2.STANDING_MALAS: "malas", views_pb2.STANDING_BUENAS: "buenas"}


# --- Pure rendering ----------------------------------------------------------------------------------------------


def _engine_card(pb: cards_pb2.Card) -> Card:
    return Card.parse(card_text(pb))


def card_label(pb: cards_pb2.Card, muestra: cards_pb2.Card | None = None) -> str:
    """``"2o (2 de oro, pieza)"``: the notation, the Spanish name, and pieza or mata under ``muestra``."""
    text = card_text(pb)
    marks = [card_name(pb)]
    if muestra is not None and muestra.rank:
        if is_pieza(_engine_card(pb), _engine_card(muestra)):
            marks.append("pieza")
        elif text in MATAS:
            marks.append("mata")
    return f"{text} ({', '.join(marks)})"


def seat_label(seat: int, me: int | None, labels: Mapping[int, str] | None = None) -> str:
    """``"you"``, or ``"seat 1"`` with what is known of it: ``"seat 2 (partner, heuristic bot)"``."""
    if seat == me:
        return "you"
    extra = []
    if me is not None and seat % 2 == me % 2:
        extra.append("partner")
    if labels and seat in labels:
        extra.append(labels[seat])
    return f"seat {seat} ({', '.join(extra)})" if extra else f"seat {seat}"


def team_label(team: int, me: int | None) -> str:
    if me is None:
        return f"team {team}"
    return f"team {team} ({'us' if team == me % 2 else 'them'})"


def score_line(public: views_pb2.MatchView, me: int | None = None) -> str:
    """``Score: team 0 (us) 12 malas · team 1 (them) 17 buenas · to 30``."""
    parts = [
        f"{team_label(score.team, me)} {score.points} {_STANDINGS.get(score.standing, '?')}"
        for score in sorted(public.scores, key=lambda s: s.team)
    ]
    return f"Score: {' · '.join(parts)} · playing to {public.rules.target}"


def describe_action(command: commands_pb2.Command, muestra: cards_pb2.Card | None = None) -> str:
    """An option as the player reads it: ``play 2o (2 de oro, pieza)``, ``call truco``, ``quiero``..."""
    if command.WhichOneof("kind") == "play_card":
        return f"play {card_label(command.play_card.card, muestra)}"
    return describe(command)


def clock_line(public: views_pb2.MatchView, me: int | None, now: float | None = None) -> str | None:
    """``Clock: your move, 23s left`` (or whose clock runs); None when no clock runs."""
    left = seconds_left(public, now)
    if left is None:
        return None
    seats = list(public.clock.seats)
    whose = "your move" if me in seats else ", ".join(seat_label(s, me) for s in seats)
    return f"Clock: {whose}, {left:.0f}s left"


def render_view(
    view: views_pb2.SeatView,
    labels: Mapping[int, str] | None = None,
    *,
    options: bool = True,
    now: float | None = None,
) -> str:
    """The whole table as one seat sees it: score, hand, muestra and piezas, rounds, calls, cards, the turn
    clock, numbered options."""
    public = view.public
    me = view.seat
    lines = [score_line(public, me)]
    if public.phase == views_pb2.PHASE_MATCH_OVER:
        winner = public.winner_team
        verdict = "you win!" if winner == view.team else "you lose."
        lines.append(f"Match over: {team_label(winner, me)} won — {verdict}")
        return "\n".join(lines)
    if public.HasField("hand"):
        lines.extend(_render_hand(view, labels))
    if public.phase == views_pb2.PHASE_AWAITING_PERROS:
        lines.append("Before the deal: the dealing team may echar los perros.")
    if public.to_act and me not in public.to_act:
        waiting = ", ".join(seat_label(s, me, labels) for s in public.to_act)
        lines.append(f"Waiting for {waiting}.")
    clock = clock_line(public, me, now)
    if clock is not None:
        lines.append(clock)
    if options and view.legal_actions:
        muestra = public.hand.muestra if public.HasField("hand") else None
        lines.append("Your options:")
        lines.extend(
            f"  {number:>2}) {describe_action(action, muestra)}"
            for number, action in enumerate(view.legal_actions, start=1)
        )
    return "\n".join(lines)


def _render_hand(view: views_pb2.SeatView, labels: Mapping[int, str] | None) -> list[str]:
    hand = view.public.hand
    me = view.seat
    muestra = hand.muestra
    lines = [
        f"Hand {hand.number}{' (pico a pico)' if hand.pico else ''} · dealer {seat_label(hand.dealer, me, labels)}"
        f" · mano {seat_label(hand.mano, me, labels)} · worth {hand.truco_value}",
    ]
    pieza_texts = " ".join(str(p) for p in piezas(_engine_card(muestra)))
    lines.append(f"Muestra: {card_label(muestra)} · piezas {pieza_texts}")
    for index, round_ in enumerate(hand.rounds, start=1):
        plays = ", ".join(f"{seat_label(p.seat, me, labels)} {card_label(p.card, muestra)}" for p in round_.plays)
        result = ""
        if round_.finished:
            result = f" → {team_label(round_.winner_team, me)}" if round_.HasField("winner_team") else " → parda"
        lines.append(f"Round {index}: {plays}{result}")
    bets = []
    if hand.envido_chain:
        bets.append("envido chain: " + ", ".join(call_name(c) for c in hand.envido_chain))
    if hand.HasField("envido_winner_seat"):
        bets.append(f"envido won by {seat_label(hand.envido_winner_seat, me, labels)} with {hand.envido_winner_points}")
    if hand.flor_sung:
        bets.append("flor: " + ", ".join(seat_label(s, me, labels) for s in hand.flor_sung))
    if bets:
        lines.append("; ".join(bets))
    if hand.HasField("pending"):
        pending = hand.pending
        who = "your team" if pending.team != view.team else "the rivals"
        lines.append(
            f"Pending: {seat_label(pending.seat, me, labels)} called {call_name(pending.call)} — {who} must answer"
        )
    if hand.perros_pending:
        lines.append(f"Perros called by {seat_label(hand.perros_by, me, labels)}: waiting for the answer")
    if view.cards:
        lines.append("Your cards: " + " · ".join(card_label(c, muestra) for c in own_cards(view)))
        tantos = tantos_line(view)
        if tantos:
            lines.append(tantos)
    elif not hand.ended:
        lines.append("You sit this hand out.")
    if view.senas:
        lines.append(
            "Señas: " + ", ".join(f"{seat_label(s.seat, me, labels)}: {sena_name(s.sena)}" for s in view.senas)
        )
    if hand.HasField("turn") and not hand.ended:
        lines.append(f"Turn: {seat_label(hand.turn, me, labels)}")
    return lines


def own_cards(view: views_pb2.SeatView) -> list[cards_pb2.Card]:
    """The seat's cards, strongest first: the order of "Your cards" and of the cards among the options."""
    if not view.public.hand.muestra.rank:  # no hand dealt yet
        return list(view.cards)
    muestra = _engine_card(view.public.hand.muestra)
    return sorted(view.cards, key=lambda c: -strength(_engine_card(c), muestra))


def tantos_line(view: views_pb2.SeatView) -> str | None:
    """What the seat holds for the envido or the flor, while it still matters: the envido until it closes; a
    flor with the reminder that it is sung by itself (no option sings it), until it is."""
    hand = view.public.hand
    if view.HasField("flor"):
        if view.seat in hand.flor_sung:
            return None
        return f"You have flor ({view.flor} points): it is sung by itself the first time you act this hand"
    if view.HasField("envido") and not hand.envido_closed:
        return f"You have envido {view.envido}"
    return None


def ordered_options(view: views_pb2.SeatView) -> list[commands_pb2.Command]:
    """The legal actions as offered: as the server lists them, but the cards in the order of "Your cards"."""
    rank = {card_text(c): index for index, c in enumerate(own_cards(view))}
    cards = iter(
        sorted(
            (a for a in view.legal_actions if a.WhichOneof("kind") == "play_card"),
            key=lambda a: rank.get(card_text(a.play_card.card), len(rank)),
        )
    )
    return [next(cards) if a.WhichOneof("kind") == "play_card" else a for a in view.legal_actions]


@dataclass(frozen=True)
class _Teller:
    """Who is who in an event's line: the reader's seat (``me``, None for a spectator) and the players' names."""

    me: int | None
    labels: Mapping[int, str] | None

    def who(self, seat: int) -> str:
        return seat_label(seat, self.me, self.labels)

    def does(self, seat: int, third_person: str, first_person: str) -> str:
        return f"{self.who(seat)} {first_person if seat == self.me else third_person}"

    def team(self, team: int) -> str:
        return team_label(team, self.me)


def _round_ended(ended: Any, t: _Teller) -> str:
    if not ended.HasField("winner_team"):
        return f"Round {ended.round + 1}: parda"
    return f"Round {ended.round + 1} to {t.team(ended.winner_team)} ({t.who(ended.winning_seat)})"


def _flor_settled(flor: Any, t: _Teller) -> str:
    if flor.HasField("winner_seat"):
        return f"Flor: {t.does(flor.winner_seat, 'wins', 'win')} with {flor.points}"
    return "Flores counted"


def _perros_answered(answer: Any, t: _Teller) -> str:
    envido = "quiero" if answer.accept_envido else "no quiero"
    truco = "quiero" if answer.accept_truco else "no quiero"
    return f"{t.does(answer.seat, 'answers', 'answer')} the perros: envido {envido}, truco {truco}"


def _hand_ended(over: Any, t: _Teller) -> str:
    shown = "; ".join(f"{t.who(s.seat)} showed {' '.join(card_text(c) for c in s.cards)}" for s in over.shown)
    taken = f"{t.team(over.winner_team)} takes the hand" if over.HasField("winner_team") else "hand over"
    return f"{taken} ({_ENDS.get(over.end, 'ended')}){'. ' + shown if shown else ''}"


def _clock_expired(expired: Any, t: _Teller) -> str:
    if expired.forfeit:
        return f"{t.who(expired.seat)}: time is up, {t.team(expired.seat % 2)} concedes the match"
    if expired.seat == t.me:
        return "Your time is up: a bot plays for you now (type r to take your seat back)"
    return f"{t.who(expired.seat)}: time is up, a bot plays the seat"


def _seat_left(left: Any, t: _Teller) -> str:
    if left.seat == t.me:
        return "You left: a bot plays for you (type r to come back)"
    return f"{t.who(left.seat)} left"


_LINES: dict[str, Callable[[Any, _Teller], str]] = {
    "hand_dealt": lambda d, t: f"— Hand {d.number} dealt by {t.who(d.dealer)}{' (pico a pico)' if d.pico else ''} —",
    "card_played": lambda p, t: f"{t.who(p.seat)} played {card_label(p.card)}",
    "call_made": lambda c, t: f"{t.who(c.seat)} called {call_name(c.call)}!",
    "call_accepted": lambda c, t: f"{t.who(c.seat)}: quiero ({call_name(c.call)})",
    "call_declined": lambda c, t: f"{t.who(c.seat)}: no quiero ({call_name(c.call)})",
    "round_ended": _round_ended,
    "flor_sung": lambda f, t: f"{t.does(f.seat, 'sings', 'sing')} flor",
    "envido_voided": lambda _, t: "The flor voids the envido",
    "envido_settled": lambda e, t: f"Envido: {t.does(e.winner_seat, 'wins', 'win')} with {e.points}",
    "flor_settled": _flor_settled,
    "perros_called": lambda p, t: f"{t.does(p.seat, 'echa', 'echás')} los perros!",
    "perros_skipped": lambda p, t: f"{t.does(p.seat, 'deals', 'deal')} without perros",
    "perros_answered": _perros_answered,
    "went_to_mazo": lambda m, t: f"{t.does(m.seat, 'se va', 'go')} al mazo",
    "sena_sent": lambda s, t: f"{t.does(s.seat, 'signals', 'signal')}: {sena_name(s.sena)}",
    "points_scored": lambda p, t: f"+{p.points} for {t.team(p.team)} ({_REASONS.get(p.reason, 'points')})",
    "hand_ended": _hand_ended,
    "match_ended": lambda m, t: f"*** Match over: {t.team(m.winner_team)} wins ***",
    "clock_expired": _clock_expired,
    "seat_left": _seat_left,
    "seat_resumed": lambda r, t: f"{t.does(r.seat, 'is back', 'are back')}",
}
"""Each kind of event's line, from its own message (the match's start has none)."""


def describe_event(
    event: events_pb2.Event, me: int | None = None, labels: Mapping[int, str] | None = None
) -> str | None:
    """One line for an event as it happens (None for the match's start, which needs no line)."""
    kind = event.WhichOneof("kind")
    line = _LINES.get(kind or "")
    return line(getattr(event, kind or ""), _Teller(me, labels)) if line is not None else None


def parse_choice(text: str, count: int, voice: Voice | None = None) -> int:
    """The 0-based option for the typed ``text``. :raises ValueError: with a message for the player (in
    ``voice``'s language; English by default)."""
    cleaned = text.strip()
    if not cleaned.isdigit():
        raise ValueError(voice.choose(count) if voice else choose_text(count))
    number = int(cleaned)
    if not 1 <= number <= count:
        raise ValueError(voice.no_option(number, count) if voice else no_option_text(number, count))
    return number - 1


def choose_text(count: int) -> str:
    return f"type the number of an option, 1 to {count} (q quits, ? shows the table again)"


def no_option_text(number: int, count: int) -> str:
    return f"there is no option {number}: choose 1 to {count}"


def bot_labels(game: game_service_pb2.Game) -> dict[int, str]:
    """Seat labels from a game resource: ``heuristic bot`` for bot seats, the player's name for taken seats."""
    labels = {}
    for seat in game.seats:
        if seat.kind == game_service_pb2.SEAT_KIND_BOT:
            if seat.bot_level:
                kind = game_service_pb2.BotLevel.Name(seat.bot_level).removeprefix("BOT_LEVEL_").lower()
            else:
                kind = game_service_pb2.BotKind.Name(seat.bot).removeprefix("BOT_KIND_").lower()
            labels[seat.seat] = f"{kind} bot"
        elif seat.player_name:
            labels[seat.seat] = seat.player_name
    return labels


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
    from .castellano import voice_for  # it builds on this module's English

    voice = voice_for(options.lang)
    async with TrucoClient(options.server, timeout=options.timeout, player_token=options.player_token) as client:
        if options.quick:
            return await _quick(client, options, voice, source, out)
        labels: dict[int, str] = {}
        seat: int | None = options.seat
        if options.game is None:
            seat = seat if seat is not None else 0
            if not 0 <= seat < options.players:
                out(f"truco play: --seat must be 0 to {options.players - 1}")
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
            raise Failure(f"cannot join {name}: {refused(error, options.server)}") from None
        if options.game is not None:
            labels = voice.bot_labels(await client.get_game(name))
        table = _Table(joined.view, labels, voice=voice)
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
            out(f"looking for a {options.players}-player match ({seconds} s, ratings {low:.0f} to {high:.0f})")
        waited = seconds

    try:
        found = await client.quick_match(
            {"players": options.players}, on_update=update, bots_after=options.bots_after, bot_level=options.level
        )
    except TrucoError as error:
        raise Failure(f"cannot look for a match: {refused(error, options.server)}") from None
    if found is None:
        out("no match found in time: try again, or allow bots with --bots-after")
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
    typed: asyncio.Task[str | None] | None = None
    caught_up = _version(table)  # the version the table must show before the player is asked again
    shown_at: int | None = None
    try:
        while True:
            # Show what happened; settle a moment so a burst of bot moves is printed before the prompt.
            status = await _drain(events, table, out, settle=0.02)
            if status is not None:
                return status
            if table.view.public.phase == views_pb2.PHASE_MATCH_OVER:
                return _finish(table, out)
            if table.away:
                status = await _away(client, name, table, reader, events, out)
                if status is not None:
                    return status
                shown_at = None
                continue
            view = prompt_view(table.view, table.view.public.hand.number == table.sena_hand)
            if view is None or _version(table) < caught_up:
                try:
                    item = await asyncio.wait_for(events.get(), STALL_SECONDS)
                except TimeoutError:  # the stream is late: read the table directly
                    table.view = await _fresh_view(client, name, table.view)
                    caught_up = min(caught_up, _version(table))
                    continue
                status = _apply(item, table, out)
                if status is not None:
                    return status
                continue
            if shown_at != _version(table):
                out("")
                out(table.says.render_view(view, table.labels))
                shown_at = _version(table)
            left = seconds_left(view.public)
            timer = table.says.seconds_left(left) if left is not None and view.seat in view.public.clock.seats else ""
            out(table.says.prompt(len(view.legal_actions), timer))
            if typed is None:
                typed = asyncio.create_task(reader.readline())
            arrival = asyncio.create_task(events.get())
            done = await _wait_counting_down(typed, arrival, view, out, table.says)
            if arrival in done:
                status = _apply(arrival.result(), table, out)
                if status is not None:
                    return status
                if typed not in done:
                    continue  # the table changed under the prompt: show it again if it moved on
            else:
                arrival.cancel()
            line = typed.result()
            typed = None
            if line is None:
                out(table.says.end_of_input(name))
                return 0
            text = line.strip().lower()
            if text in ("q", "quit", "exit", "salir"):
                out(table.says.leaving(name))
                return 0
            if text in ("?", "h", "help", "", "m", "mesa"):
                shown_at = None
                continue
            if _version(table) != view.public.version:
                out(table.says.changed)
                continue
            try:
                choice = parse_choice(text, len(view.legal_actions), table.says)
            except ValueError as error:
                out(table.says.refused(str(error)))
                continue
            try:
                response = await client.submit(name, view.legal_actions[choice], expected_version=_version(table))
            except VersionConflict:
                out(table.says.moved_on)
                table.view = await _fresh_view(client, name, table.view)
                shown_at = None
                continue
            except IllegalMove as error:
                out(table.says.refused_by_server(error.message, error.reason))
                table.view = await _fresh_view(client, name, table.view)
                shown_at = None
                continue
            if view.legal_actions[choice].WhichOneof("kind") == "send_sena":
                table.sena_hand = view.public.hand.number
            if response.version == _version(table):
                table.view = response.view  # nothing public happened (a seña): no event will tell us
            caught_up = max(caught_up, response.version)
            shown_at = None
    finally:
        watcher.cancel()
        if typed is not None:
            typed.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await watcher


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
    out(table.says.away)
    typed = asyncio.create_task(reader.readline())
    try:
        while True:
            arrival = asyncio.create_task(events.get())
            done, _ = await asyncio.wait({typed, arrival}, return_when=asyncio.FIRST_COMPLETED)
            if arrival in done:
                status = _apply(arrival.result(), table, out)
                if status is not None:
                    return status
                if not table.away:
                    return None
                continue
            arrival.cancel()
            line = typed.result()
            text = (line or "q").strip().lower()
            if text in ("q", "quit", "exit", "salir"):
                out(table.says.leaving(name))
                return 0
            if text in ("r", "resume", "volver"):
                table.view = await client.resume_seat(name)
                table.away = False
                out(table.says.back)
                return None
            typed = asyncio.create_task(reader.readline())
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
        raise Failure("the server ended the game's event stream before the match was over")
    if isinstance(item, TrucoError):
        raise Failure(f"lost the game's event stream: {refused(item)}")
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
        print("\ntruco play: interrupted; the game stays on the server.", file=sys.stderr)
        return 130
    except TrucoError as error:
        raise Failure(refused(error, options.server)) from None


__all__: Sequence[str] = [
    "COUNTDOWN_MARKS",
    "PlayOptions",
    "bot_labels",
    "card_label",
    "clock_line",
    "describe_action",
    "describe_event",
    "ordered_options",
    "own_cards",
    "parse_choice",
    "play",
    "render_view",
    "run",
    "score_line",
    "tantos_line",
]
