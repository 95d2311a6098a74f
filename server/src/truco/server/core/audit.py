"""Replaying a stored match through the engine: is every event there one the rules would have produced?

The service stores events, not commands. :func:`audit_match` rebuilds the match from its first event and, at
each point, looks for the command that produces exactly the next stored events: the ``Deal`` named by a
``HandDealt`` event (its order and salt), one of the legal actions of some seat, or what the referee records
itself (a turn clock that ran out, a seat left or resumed), checked by :mod:`truco.engine.absence`. A log
that no sequence of legal commands produces (an event lost, doubled, reordered or altered, a gap in the seqs,
a record that disagrees with its log) is reported as a problem. The fault tests run it over every match in the
store after killing servers and PostgreSQL under load.
"""

from __future__ import annotations

from collections.abc import Sequence

from truco.engine import Deal, MatchState, Phase, RuleViolation, execute, legal_actions
from truco.engine import events as ev
from truco.engine.absence import expire_clock, leave, resume
from truco.engine.state import evolve
from truco.server.core.encodings import EventCodec
from truco.server.store.records import GameRecord, StoredEvent


class CorruptMatch(Exception):
    """The stored log is not one the rules produce."""


def _steps(state: MatchState, events: Sequence[ev.Event], position: int, players: int) -> list[tuple[int, MatchState]]:
    """Every command that produces exactly the stored events from ``position`` on: (events it produced, the
    state after them), longest first."""
    following = events[position]
    if isinstance(following, ev.HandDealt):
        return _producing([Deal(following.order, following.salt)], state, events, position)
    if isinstance(following, ev.ClockExpired | ev.SeatLeft | ev.SeatResumed):
        return _referee(following, state, events, position)
    # A command's first event names the seat that sent it: try that seat's actions (the others if none fits).
    seat = getattr(following, "seat", None)
    if isinstance(seat, int):
        steps = _producing(legal_actions(state, seat), state, events, position)
        if steps:
            return steps
    return _producing([a for s in range(players) for a in legal_actions(state, s)], state, events, position)


def _producing(
    candidates: Sequence[object], state: MatchState, events: Sequence[ev.Event], position: int
) -> list[tuple[int, MatchState]]:
    steps = []
    for command in candidates:
        trial = state.copy()
        try:
            produced = execute(trial, command)  # type: ignore[arg-type]
        except Exception:  # an illegal deal (a wrong deck, say) is a corrupt log, not a crash of the audit
            continue
        if produced and list(events[position : position + len(produced)]) == produced:
            steps.append((len(produced), trial))
    steps.sort(key=lambda step: -step[0])
    return steps


def _referee(
    following: ev.ClockExpired | ev.SeatLeft | ev.SeatResumed,
    state: MatchState,
    events: Sequence[ev.Event],
    position: int,
) -> list[tuple[int, MatchState]]:
    """What the referee records on its own (a clock that ran out, a player who left or came back), re-derived by
    the engine's checks (:mod:`truco.engine.absence`): the clock of a seat the match was not waiting for, say,
    is refused."""
    try:
        if isinstance(following, ev.ClockExpired):
            produced = expire_clock(state, following.seat, following.deadline_us, forfeit=following.forfeit)
        elif isinstance(following, ev.SeatLeft):
            produced = leave(state, following.seat)
        else:
            produced = resume(state, following.seat)
    except RuleViolation:
        return []
    if not produced or list(events[position : position + len(produced)]) != produced:
        return []
    trial = state.copy()
    for event in produced:
        evolve(trial, event)
    return [(len(produced), trial)]


def replay(events: Sequence[ev.Event]) -> MatchState:
    """The state the events lead to, each step re-derived by the engine from a legal command.

    One command may produce several events, and a shorter command can produce a prefix of them (a seat singing
    flor, against the same seat going to the mazo, which sings the flor first): the search backtracks.

    :raises CorruptMatch: when no sequence of legal commands produces the events.
    """
    if not events or not isinstance(events[0], ev.MatchStarted):
        raise CorruptMatch("the log does not start with MatchStarted")
    state = MatchState()
    evolve(state, events[0])
    players = events[0].rules.players
    # Depth-first: each frame is the position reached and the alternatives still untried there.
    stack: list[tuple[int, list[tuple[int, MatchState]]]] = [(1, [(0, state)])]
    furthest = 1
    while stack:
        position, alternatives = stack[-1]
        if not alternatives:
            stack.pop()
            continue
        length, reached = alternatives.pop(0)
        at = position + length
        if at == len(events):
            return reached
        furthest = max(furthest, at)
        stack.append((at, _steps(reached, events, at, players)))
    raise CorruptMatch(f"event {furthest + 1} ({type(events[furthest]).__name__}) follows from no legal command")


def audit_match(record: GameRecord, stored: Sequence[StoredEvent], events: EventCodec) -> MatchState:
    """Check one stored match: seqs 1..n without gaps, the record's last seq and ``over`` agree with the log,
    every event decodes (with ``events``, the server's :class:`EventCodec`), and :func:`replay` re-derives them all.

    :raises CorruptMatch: with what is wrong.
    """
    seqs = [item.seq for item in stored]
    if seqs != list(range(1, len(stored) + 1)):
        raise CorruptMatch(f"{record.game_id}: seqs are not 1..{len(stored)} without gaps")
    if record.last_seq != len(stored):
        raise CorruptMatch(f"{record.game_id}: the record says {record.last_seq} events, the log holds {len(stored)}")
    try:
        decoded = [events.decode(item.kind, item.schema, item.payload) for item in stored]
    except ValueError as error:
        raise CorruptMatch(f"{record.game_id}: {error}") from None
    try:
        state = replay(decoded)
    except CorruptMatch as error:
        raise CorruptMatch(f"{record.game_id}: {error}") from None
    if record.over != (state.phase is Phase.MATCH_OVER):
        raise CorruptMatch(f"{record.game_id}: the record says over={record.over}, the log says {state.phase.name}")
    return state
