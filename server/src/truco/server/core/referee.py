"""The referee: what the server does that no player does. It deals when a deal is due (a deck shuffled by the
OS's secure random source, or the game's next scripted deal) and moves the server's bots while only bots are
awaited, a seat taken over (:mod:`truco.engine.absence`) being played by the clock's takeover bot (the
stand-in; while a seat is *paced*, in its grace, the timekeeper plays it at a person's pace instead, see
:class:`~truco.server.core.clocks.StandIn`, and :func:`drive` stops before its move). Pure of
I/O but for the random source; free of gRPC and of the store. A bot that thinks (``truco.bots.THINKING_BOTS``)
is never played here: :func:`drive` stops before its move and the autoplayer asks it in a process pool.
"""

from __future__ import annotations

import os
import random
import secrets
import struct
from collections.abc import Collection
from functools import partial

from truco.bots import THINKING_BOTS, make_bot
from truco.engine import (
    DECK,
    Deal,
    MatchState,
    Phase,
    SeatCommand,
    actors,
    execute_legal,
    legal_actions,
    order_for_hands,
    seat_view,
)
from truco.engine import events as ev
from truco.server.core.setups import Setup

AUTOMATIC_MOVES_PER_STEP = 48
"""Bot moves and deals applied in one step: after a command, in CreateGame, or by the game application's
autoplayer. A match between bots only is played in such steps, never inside one request."""


def drive(
    state: MatchState, setup: Setup, rng: random.Random, paced: Collection[int] = (), *, seated: bool = True
) -> tuple[list[ev.Event], int]:
    """Deal when a deal is due and let bots move while only bots are awaited, on ``state`` in place, stopping
    before a ``paced`` seat's move; the events and how many bot moves there were. Not ``seated`` (a player's
    seat is still open): the first deal waits for the table to fill."""
    out: list[ev.Event] = []
    moves = 0
    for _ in range(AUTOMATIC_MOVES_PER_STEP):
        if state.phase is Phase.MATCH_OVER:
            break
        waiting = actors(state)
        if not waiting:
            if not seated:
                break
            out += execute_legal(state, deal(state, setup))  # built from DECK here: legal as dealt
            continue
        bots = setup.playing(state)
        if any(seat not in bots for seat in waiting):
            break  # a human may act: bots never answer for a team in which a human can
        seat = waiting[0]
        if seat in paced:
            break  # the stand-in keeps a person's pace: the timekeeper plays it (Games.fire_clock)
        if bots[seat] in THINKING_BOTS:
            break  # it thinks for tens of milliseconds: the autoplayer asks it off the event loop (thinking.py)
        choice = bot_choice(state, seat, bots[seat], rng)
        out += execute_legal(state, choice)  # one of legal_actions: a bot's move needs no second check
        moves += 1
    return out, moves


def bot_choice(state: MatchState, seat: int, bot: str, rng: random.Random) -> SeatCommand:
    """The move of a bot that does not think (``bot`` names it) for ``seat``: one of its legal actions."""
    return make_bot(bot).choose(legal_actions(state, seat), partial(seat_view, state, seat, proofs=False), rng)


def thinker_due(state: MatchState, setup: Setup, paced: Collection[int] = ()) -> tuple[int, str] | None:
    """The seat and bot whose move the match waits for when that bot is one of the thinking ones (which
    :func:`drive` leaves to the autoplayer), else None."""
    if not bots_due(state, setup, paced):
        return None
    waiting = actors(state)
    if not waiting:
        return None
    bot = setup.playing(state)[waiting[0]]
    return (waiting[0], bot) if bot in THINKING_BOTS else None


def bots_only(state: MatchState, setup: Setup) -> bool:
    """True when the server plays every seat: its bot seats, and every player's seat taken over (nobody sits at
    the table)."""
    return len(setup.playing(state)) == setup.rules.players


def bots_due(state: MatchState, setup: Setup, paced: Collection[int] = ()) -> bool:
    """True when the match waits for nobody but the server's bots at their own speed: a deal, or bots only,
    none of them a ``paced`` stand-in."""
    if state.phase is Phase.MATCH_OVER:
        return False
    bots = setup.playing(state)
    return all(seat in bots and seat not in paced for seat in actors(state))


def deal(state: MatchState, setup: Setup) -> Deal:
    """A deck shuffled by the OS's secure random source (or the next scripted deal) and a secret salt."""
    # One read of the OS's secure random source: 40 random 64-bit sort keys give a uniform permutation
    # (a tie has probability below 2**-53) without the 39 separate reads random.SystemRandom would make.
    keys = struct.unpack("40Q", os.urandom(8 * len(DECK)))
    order = [DECK[i] for i in sorted(range(len(DECK)), key=keys.__getitem__)]
    number = state.hands_dealt
    plan = state.plan
    if number < len(setup.fixed_deals) and plan is not None:
        hands, muestra, seats = setup.fixed_deals[number]
        if seats and set(seats) == set(plan.seats):  # named by seat: put them in playing order, from the mano
            hands = tuple(hands[seats.index(seat)] for seat in plan.seats)
        elif seats:
            hands = ()  # not this hand's seats: deal at random
        if len(hands) == len(plan.seats):
            order = list(order_for_hands(hands, muestra, rest=order))
    return Deal(tuple(order), secrets.token_hex(16))
