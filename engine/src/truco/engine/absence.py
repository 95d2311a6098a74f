"""Seats whose player is gone: a turn clock that ran out, a player who left, a player who came back.

The referee (the server) measures time; the engine never reads a clock. These functions check what the
referee asks against the state and return the events that record it, which :func:`~truco.engine.evolve`
applies like any other: ``ClockExpired`` (the seat is taken over by a bot, or its team concedes the match),
``SeatLeft`` and ``SeatResumed``. A seat that is *away* (``MatchState.away``) is played by the referee's bot.
"""

from __future__ import annotations

from .errors import Reason, RuleViolation
from .events import ClockExpired, Event, HandEnd, HandEnded, MatchEnded, SeatLeft, SeatResumed
from .legal import actors
from .state import MatchState, Phase
from .tricks import team_of


def expire_clock(state: MatchState, seat: int, deadline_us: int, *, forfeit: bool) -> list[Event]:
    """The events of ``seat``'s clock running out at ``deadline_us``: the seat is taken over by a bot, or
    (``forfeit``) its team concedes: the hand in play ends undecided (the sung flores shown, no other card), and
    the rivals win.

    :raises RuleViolation: MATCH_OVER when the match is over; NOT_YOUR_TURN when the match is not waiting for
        ``seat`` (its clock cannot be running).
    """
    if state.phase is Phase.MATCH_OVER:
        raise RuleViolation(Reason.MATCH_OVER, "the match is over")
    if seat not in actors(state):
        raise RuleViolation(Reason.NOT_YOUR_TURN, f"the match is not waiting for seat {seat}")
    events: list[Event] = [ClockExpired(seat, deadline_us, forfeit)]
    if forfeit:
        hand = state.hand
        if hand is not None and not hand.ended:
            shown = tuple((s, hand.dealt[s]) for s in hand.seats if s in hand.flor_sung)
            events.append(HandEnded(None, HandEnd.FORFEIT, shown))
        events.append(MatchEnded(1 - team_of(seat)))
    return events


def leave(state: MatchState, seat: int) -> list[Event]:
    """The events of ``seat``'s player leaving: none when the seat is already away or the match is over."""
    if state.phase is Phase.MATCH_OVER or seat in state.away:
        return []
    return [SeatLeft(seat)]


def resume(state: MatchState, seat: int) -> list[Event]:
    """The events of ``seat``'s player coming back: none unless the seat is away and the match goes on."""
    if state.phase is Phase.MATCH_OVER or seat not in state.away:
        return []
    return [SeatResumed(seat)]


__all__ = ["expire_clock", "leave", "resume"]
