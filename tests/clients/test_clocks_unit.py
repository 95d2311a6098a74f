"""Turn clocks and absent seats without a server: the engine's absence events, the clock book's arithmetic,
their wire form, and how ``truco play`` and ``truco selfplay`` read them."""

from __future__ import annotations

import asyncio
import random
import time
from typing import cast

import pytest

from truco.engine import DECK, Game, PlayCard, Reason, RuleSet, RuleViolation, Sena, fold
from truco.engine import events as ev
from truco.engine.absence import expire_clock, leave, resume
from truco.engine.state import Phase
from truco.server.core.clocks import US, ClockBook, ClockSettings, StandIn, Timekeeper
from truco.server.core.reasons import ServiceFailure
from truco.server.core.referee import bots_due, drive
from truco.server.core.setups import Setup, setup_from_bytes, setup_to_bytes
from truco.server.service import messages
from truco.server.service.messages import clock_settings_from_pb, clock_settings_to_pb, timestamp_to_pb
from truco.server.store.interface import EventStore
from truco.server.store.records import now_us
from truco.terminal.selfplay import count_takeovers
from truco.terminal.voices import ENGLISH
from truco_client import clock_settings, seconds_left, taken_over
from truco_client.v1 import events_pb2, game_service_pb2, views_pb2

SALT = "00" * 16


def dealt_game(players: int = 2) -> Game:
    game = Game(RuleSet(players=players))
    game.deal(list(DECK), salt=SALT)
    return game


def apply(game: Game, events: list[ev.Event]) -> Game:
    return Game.from_events([*game.events, *events])


# --- The engine --------------------------------------------------------------------------------------------------


def test_a_clock_runs_out_only_for_a_seat_the_match_waits_for() -> None:
    game = dealt_game()
    assert game.state.phase is Phase.PLAYING
    with pytest.raises(RuleViolation) as refused:
        expire_clock(game.state, 1, 5 * US, forfeit=False)  # seat 0 is the mano: seat 1 has no clock running
    assert refused.value.reason is Reason.NOT_YOUR_TURN


def test_takeover_marks_the_seat_away_until_it_resumes() -> None:
    game = dealt_game()
    events = expire_clock(game.state, 0, 5 * US, forfeit=False)
    assert events == [ev.ClockExpired(0, 5 * US, False)]
    after = apply(game, events)
    assert after.state.away == frozenset({0}) and after.state.phase is Phase.PLAYING
    assert after.version == game.version + 1, "a public event: watchers see why the bot moved"
    assert leave(after.state, 0) == [], "an away seat cannot leave again"
    back = apply(after, resume(after.state, 0))
    assert back.state.away == frozenset() and resume(back.state, 0) == []
    assert fold(back.events) == back.state


def test_forfeit_ends_the_hand_and_the_match_for_the_rivals() -> None:
    game = dealt_game(4)
    events = expire_clock(game.state, 0, 7 * US, forfeit=True)
    assert [type(e) for e in events] == [ev.ClockExpired, ev.HandEnded, ev.MatchEnded]
    ended = events[1]
    assert isinstance(ended, ev.HandEnded) and ended.end is ev.HandEnd.FORFEIT and ended.winner_team is None
    assert ended.shown == (), "nobody sang a flor: no card is shown, the unplayed hands stay sealed"
    after = apply(game, events)
    assert after.state.phase is Phase.MATCH_OVER and after.state.winner == 1 and after.state.scores == [0, 0]
    with pytest.raises(RuleViolation) as refused:
        expire_clock(after.state, 1, 8 * US, forfeit=True)
    assert refused.value.reason is Reason.MATCH_OVER


def test_leaving_and_coming_back() -> None:
    game = dealt_game()
    left = apply(game, leave(game.state, 1))
    assert left.events[-1] == ev.SeatLeft(1) and left.state.away == frozenset({1})
    assert apply(left, resume(left.state, 1)).events[-1] == ev.SeatResumed(1)


@pytest.mark.parametrize("event", [ev.ClockExpired(3, 1_796_000_000_123_456, True), ev.SeatLeft(2), ev.SeatResumed(5)])
def test_absence_events_survive_the_store(event: ev.Event) -> None:
    kind, schema, payload = messages.encode_event(event)
    assert messages.decode_event(kind, schema, payload) == event


# --- The clock book ----------------------------------------------------------------------------------------------


def test_the_reserve_pays_for_slow_decisions() -> None:
    settings = ClockSettings.seconds(1.0, 5.0)
    joined = {0: 1, 1: 1}
    game = dealt_game()
    book = ClockBook().advance(10 * US, game.events, game.state, {}, settings, joined)
    assert book.waiting == (0,)
    clock = book.running(settings, joined)
    assert clock is not None and clock.seats == (0,)
    assert (clock.started_us, clock.deadline_us) == (10 * US, 16 * US), "decision time plus the whole reserve"
    events = game.execute(next(a for a in game.legal_actions(0) if isinstance(a, PlayCard)))
    book = book.advance(13 * US, events, game.state, {}, settings, joined)  # 3 s: 2 s over the decision time
    assert book.reserve_left(settings, 0) == 3 * US and book.reserve_left(settings, 1) == 5 * US
    clock = book.running(settings, joined)
    assert clock is not None and clock.seats == (1,) and clock.deadline_us == 13 * US + US + 5 * US


def test_no_clock_runs_until_the_table_is_full_nor_for_bots() -> None:
    settings = ClockSettings.seconds(1.0)
    game = dealt_game()
    book = ClockBook().advance(10 * US, game.events, game.state, {}, settings, {0: 1, 1: 0})
    assert book.running(settings, {0: 1, 1: 0}) is None, "seat 1 has no player yet"
    clock = book.running(settings, {0: 1, 1: 12 * US})
    assert clock is not None and clock.started_us == 12 * US, "the clock starts when the table fills up"
    bots = ClockBook().advance(10 * US, game.events, game.state, {0: "random"}, settings, {0: 1, 1: 1})
    assert bots.waiting == () and bots.running(settings, {0: 1, 1: 1}) is None
    assert ClockBook().advance(10 * US, game.events, game.state, {}, None, {}).running(None, {}) is None


def test_a_sena_moves_no_clock() -> None:
    settings = ClockSettings.seconds(1.0, 5.0)
    game = dealt_game()
    book = ClockBook().advance(10 * US, game.events, game.state, {}, settings, {0: 1, 1: 1})
    sena = [ev.SenaSent(0, next(iter(Sena)))]
    assert book.advance(20 * US, sena, game.state, {}, settings, {0: 1, 1: 1}) is book


def test_a_partner_leaving_and_resuming_never_restarts_the_clock_it_is_not_timed_by() -> None:
    settings = ClockSettings.seconds(3.0, 2.0)
    joined = dict.fromkeys(range(4), 1)
    game = dealt_game(4)
    book = ClockBook().advance(10 * US, game.events, game.state, {}, settings, joined)
    assert book.waiting == (0,)
    deadline = 10 * US + 5 * US
    for at in range(12, 30, 2):  # seat 2, seat 0's partner, leaves and comes back every two seconds
        step = leave(game.state, 2) if 2 not in game.state.away else resume(game.state, 2)
        game = apply(game, step)
        book = book.advance(at * US, step, game.state, {}, settings, joined)
        clock = book.running(settings, joined)
        assert clock is not None and clock.seats == (0,) and clock.deadline_us == deadline, at
    assert book.reserve_left(settings, 0) == 2 * US, "no decision was made: no reserve was spent"
    play = game.execute(next(a for a in game.legal_actions(0) if isinstance(a, PlayCard)))
    book = book.advance(31 * US, play, game.state, {}, settings, joined)
    clock = book.running(settings, joined)
    assert clock is not None and clock.started_us == 31 * US, "a decision starts the next clock"


def test_clock_settings_on_the_wire() -> None:
    settings = clock_settings_from_pb(clock_settings(0.25, 30, "forfeit", "random"))
    assert settings == ClockSettings(250_000, 30 * US, True, "random")
    assert clock_settings_from_pb(clock_settings_to_pb(settings)) == settings
    assert clock_settings_from_pb(clock_settings(0)) is None, "a zero decision time: no clocks"
    with pytest.raises(ServiceFailure, match="negative"):
        clock_settings_from_pb(game_service_pb2.ClockSettings(decision={"seconds": -1}))
    with pytest.raises(ValueError):
        clock_settings(1, policy="sudden death")


def test_the_stand_in_plays_at_the_games_level_unless_the_clocks_name_a_bot() -> None:
    rules = RuleSet(players=4)
    unnamed = ClockSettings(30 * US)
    assert unnamed.bot is None
    expert_game = Setup(rules, {1: "expert", 3: "beginner"}, (), unnamed)
    assert expert_game.takeover_bot() == "expert", "a game that chose the expert gets an expert stand-in"
    assert Setup(rules, {1: "beginner"}, (), None).takeover_bot() == "beginner"
    assert Setup(rules, {1: "random"}, (), unnamed).takeover_bot() == "heuristic", "random is no level"
    assert Setup(rules, {}, (), None).takeover_bot() == "heuristic", "no bot seats: the intermediate level"
    named = Setup(rules, {1: "expert"}, (), ClockSettings(30 * US, bot="beginner"))
    assert named.takeover_bot() == "beginner", "clocks that name a bot keep it"
    state = Game(rules).state.copy()
    state.away = frozenset({0})
    assert expert_game.playing(state) == {0: "expert", 1: "expert", 3: "beginner"}
    # On the wire the game's clocks name the bot that stands in; a stored setup keeps "unnamed".
    wire = clock_settings_to_pb(unnamed, expert_game.takeover_bot())
    assert wire.takeover_level == game_service_pb2.BOT_LEVEL_EXPERT
    assert clock_settings_from_pb(game_service_pb2.ClockSettings(decision={"seconds": 30})) == unnamed
    assert setup_from_bytes(setup_to_bytes(expert_game), lambda data: expert_game).clock == unnamed


# --- Clients -----------------------------------------------------------------------------------------------------


def clocked_view(seats: list[int], deadline: float) -> views_pb2.MatchView:
    view = views_pb2.MatchView()
    view.clock.seats.extend(seats)
    view.clock.deadline.CopyFrom(timestamp_to_pb(round(deadline * US)))
    view.seats.add(seat=1, taken_over=True)
    return view


def test_the_sdk_and_truco_play_read_the_clock() -> None:
    view = clocked_view([0], 1000.0)
    assert seconds_left(view, now=977.2) == pytest.approx(22.8)
    assert seconds_left(view, now=1001.0) == 0.0
    assert seconds_left(views_pb2.MatchView()) is None
    assert taken_over(view, 1) and not taken_over(view, 0)
    assert ENGLISH.clock_line(view, 0, now=977.2) == "Clock: your move, 23s left"
    assert ENGLISH.clock_line(view, 1, now=990.0) == "Clock: seat 0, 10s left"
    assert ENGLISH.clock_line(views_pb2.MatchView(), 0) is None


def test_truco_play_says_why_the_game_went_on() -> None:
    mine = events_pb2.Event(clock_expired=events_pb2.ClockExpired(seat=0))
    assert "a bot plays for you" in (ENGLISH.describe_event(mine, 0) or "")
    theirs = events_pb2.Event(clock_expired=events_pb2.ClockExpired(seat=1, forfeit=True))
    assert ENGLISH.describe_event(theirs, 0) == "seat 1: time is up, team 1 (them) concedes the match"
    assert ENGLISH.describe_event(events_pb2.Event(seat_resumed=events_pb2.SeatResumed(seat=0)), 0) == "you are back"


def test_selfplay_counts_the_decisions_the_server_took_over() -> None:
    def played(seat: int) -> events_pb2.Event:
        return events_pb2.Event(card_played=events_pb2.CardPlayed(seat=seat))

    log = [
        played(0),
        events_pb2.Event(clock_expired=events_pb2.ClockExpired(seat=1)),
        played(1),
        events_pb2.Event(round_ended=events_pb2.RoundEnded(round=0)),
        played(0),
        events_pb2.Event(call_made=events_pb2.CallMade(seat=1)),
        events_pb2.Event(seat_resumed=events_pb2.SeatResumed(seat=1)),
        played(1),
    ]
    assert count_takeovers(log) == (2, 1)


# --- The timekeeper ----------------------------------------------------------------------------------------------


class DeadlineBook:
    """The part of a store the timekeeper asks: due games and the next deadline; counts the questions."""

    def __init__(self) -> None:
        self.deadlines: dict[str, int] = {}
        self.questions = 0

    async def due_games(self, now_us: int, limit: int) -> tuple[list[str], int | None]:
        self.questions += 1
        due = [game for game, deadline in self.deadlines.items() if deadline <= now_us][:limit]
        later = [deadline for deadline in self.deadlines.values() if deadline > now_us]
        return due, min(later, default=None)


async def test_the_timekeeper_looks_again_only_for_a_deadline_before_its_next_look() -> None:
    """Every move sets a deadline: one seconds away must not cost a store query; one before the next look must
    be fired on time."""
    book = DeadlineBook()
    fired: list[str] = []

    async def fire(game_id: str) -> bool:
        fired.append(game_id)
        del book.deadlines[game_id]
        return True

    keeper = Timekeeper(cast(EventStore, book), fire, idle_seconds=30.0)
    keeper.start()
    try:
        while not book.questions:  # the first look, at start
            await asyncio.sleep(0.005)
        book.deadlines["later"] = now_us() + 60 * US
        keeper.alarm.ring(book.deadlines["later"])  # after the next look (in 30 s): nothing to do now
        await asyncio.sleep(0.05)
        assert book.questions == 1
        book.deadlines["soon"] = now_us() + US // 5
        keeper.alarm.ring(book.deadlines["soon"])
        started = time.monotonic()
        while not fired:
            assert time.monotonic() - started < 10, "the clock due in 0.2 s was not fired"
            await asyncio.sleep(0.01)
        assert fired == ["soon"]
        assert time.monotonic() - started >= 0.15  # not before its deadline
        assert "later" in book.deadlines
    finally:
        await keeper.stop()


async def test_the_timekeeper_stops_when_woken_in_the_same_loop_step() -> None:
    """A SIGTERM under load: a move sets a deadline (wake) in the very loop step the shutdown stops the
    timekeeper. The stop must end it; on Python 3.11 an ``asyncio.wait_for`` around its sleep lost that
    cancellation, the timekeeper kept looking, and the server never got past it to stop serving."""

    async def never(game_id: str) -> bool:
        raise AssertionError("no clock is due")

    book = DeadlineBook()
    keeper = Timekeeper(cast(EventStore, book), never, idle_seconds=60.0)
    keeper.start()
    while not book.questions:  # the first look, at start
        await asyncio.sleep(0)
    for _ in range(3):
        await asyncio.sleep(0)  # into its sleep, waiting for a wake
    task = keeper._task
    assert task is not None
    keeper.alarm.ring()
    stopping = asyncio.create_task(keeper.stop())
    # asyncio.wait does not cancel what it waits for (a timeout around stop() would cancel the timekeeper again
    # and hide the lost cancellation). It takes microseconds; without the fix it never ends.
    await asyncio.wait({stopping}, timeout=2)
    stuck = not task.done()
    task.cancel()  # a stuck one: cancel it again, out of the race, so the test ends
    await stopping
    assert not stuck, "the timekeeper kept running after stop()"
    assert book.questions <= 2


# --- The stand-in's pace -----------------------------------------------------------------------------------------


def test_the_stand_in_keeps_a_persons_pace_through_its_grace() -> None:
    """A seat whose player left is waited for like a player's, at the stand-in's pace, while in its grace."""
    pace = StandIn.seconds(2.0, 60.0)
    game = dealt_game()
    book = ClockBook().advance(10 * US, game.events, game.state, {}, None, {})
    gone = leave(game.state, 0)  # seat 0, the mano, leaves at 14 s: its move is the stand-in's from now
    game = apply(game, gone)
    book = book.advance(14 * US, gone, game.state, {0: "heuristic"}, None, {})
    assert book.waiting == () and book.stand_ins == (0,)
    clock = book.running(None, {}, pace)
    assert clock is not None and clock.stand_in and clock.seats == (0,)
    assert clock.deadline_us == 12 * US, "the decision started at 10 s: the stand-in moves 2 s after that"
    assert book.running(None, {}) is None, "without a pace, no clock runs in a game without clocks"
    assert book.paced(game.state, pace, 73 * US) == {0}
    assert book.paced(game.state, pace, 74 * US) == frozenset(), "the grace is over: the bot plays at its speed"
    shown = book.clocks(game.state, None, {}, pace).seats[0]
    assert shown.taken_over and shown.grace_until_us == 74 * US
    back = resume(game.state, 0)
    game = apply(game, back)
    book = book.advance(20 * US, back, game.state, {}, None, {})
    assert book.away_us == () and book.stand_ins == () and book.waiting == (0,)
    assert book.clocks(game.state, None, {}, pace).seats == (), "no clocks and nobody away: nothing to show"


def test_drive_stops_before_a_paced_stand_in_and_plays_it_after_its_grace() -> None:
    setup = Setup(RuleSet(players=2), {1: "random"}, ())
    game = dealt_game()
    game = apply(game, leave(game.state, 0))
    paced_state = game.state.copy()
    events, moves = drive(paced_state, setup, random.Random(1), paced={0})
    assert (events, moves) == ([], 0) and not bots_due(game.state, setup, {0})
    assert bots_due(game.state, setup), "once out of its grace the seat is the bots' to play at once"
    events, moves = drive(game.state, setup, random.Random(1))
    assert moves > 1 and any(getattr(e, "seat", None) == 0 for e in events)


def test_the_stand_in_and_its_grace_on_the_wire() -> None:
    pace = StandIn.seconds(3.0, 300.0)
    game = apply(dealt_game(), leave(dealt_game().state, 0))
    book = ClockBook().advance(10 * US, game.events, game.state, {0: "heuristic"}, None, {})
    view = messages.add_clocks(views_pb2.MatchView(), book.clocks(game.state, None, {}, pace))
    assert view.clock.stand_in and list(view.clock.seats) == [0]
    assert view.seats[0].taken_over and view.seats[0].HasField("grace_until")
    assert view.seats[0].grace_until.ToMicroseconds() == 310 * US
    assert not view.seats[1].HasField("grace_until")
    stored = setup_from_bytes(setup_to_bytes(Setup(RuleSet(), {}, (), None, pace)), _no_legacy)
    assert stored.pace == pace
    old = setup_to_bytes(Setup(RuleSet(), {}, ())).replace(b',"stand_in":{"pace_us":3000000,"grace_us":300000000}', b"")
    assert b"stand_in" not in old and setup_from_bytes(old, _no_legacy).pace == StandIn(), "stored before: defaults"


def _no_legacy(data: bytes) -> Setup:
    raise AssertionError("a JSON setup is read without the legacy upcaster")
