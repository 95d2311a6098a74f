"""The store audit (truco.server.core.audit) accepts every match the engine plays and catches each kind of damage:
a lost, doubled, reordered or altered event, a gap in the seqs, a record that disagrees with its log."""

from __future__ import annotations

import dataclasses
import random

import pytest

from truco.bots import make_bot
from truco.cli.simulate import deal_command
from truco.engine import MatchState, Phase, RuleSet, actors, execute, legal_actions, start_match
from truco.engine import events as ev
from truco.engine.absence import expire_clock, leave, resume
from truco.engine.state import evolve
from truco.engine.views import seat_view
from truco.server.core.audit import CorruptMatch, audit_match, replay
from truco.server.service import messages
from truco.server.store.records import GameRecord, StoredEvent

EVENTS = messages.STORED_EVENTS


def played(
    players: int, seed: int, bots: str = "random", senas: bool = True, clock_at: int | None = None
) -> list[ev.Event]:
    """Every event of one whole match between bots (señas included when the bots send them). ``clock_at``: at
    that action, the acting seat's clock runs out instead (a bot takes the seat over) and it leaves and comes
    back a little later."""
    rng = random.Random(seed)
    rules = RuleSet(players=players, target=15, senas=senas)
    log: list[ev.Event] = list(start_match(rules))
    state = MatchState()
    for event in log:
        evolve(state, event)
    bot = make_bot(bots)
    while state.phase is not Phase.MATCH_OVER:
        waiting = actors(state)
        if not waiting:
            log += execute(state, deal_command(rng))
            continue
        seat = rng.choice(waiting)
        if clock_at is not None and len(log) >= clock_at:
            clock_at = None
            log += _apply(state, expire_clock(state, seat, 1_800_000_000_000_000, forfeit=False))
            log += _apply(state, leave(state, 1 - seat % 2))
            log += _apply(state, resume(state, 1 - seat % 2))
            log += _apply(state, resume(state, seat))
            continue
        log += execute(state, bot.choose(legal_actions(state, seat), lambda s=seat: seat_view(state, s), rng))
    return log


def _apply(state: MatchState, events: list[ev.Event]) -> list[ev.Event]:
    for event in events:
        evolve(state, event)
    return events


def stored(events: list[ev.Event], game_id: str = "g1") -> tuple[GameRecord, list[StoredEvent]]:
    items = []
    for seq, event in enumerate(events, start=1):
        kind, schema, payload = messages.encode_event(event)
        items.append(StoredEvent(game_id, seq, kind, schema, payload, None))
    over = isinstance(events[-1], ev.MatchEnded)
    record = GameRecord(game_id, "2026-12-01T00:00:00.000000Z", b"", 2, (), len(events), over)
    return record, items


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (2, 2), (4, 3), (6, 4)])
def test_every_match_the_engine_plays_passes(players: int, seed: int) -> None:
    events = played(players, seed)
    record, items = stored(events)
    state = audit_match(record, items, EVENTS)
    assert state.phase is Phase.MATCH_OVER
    assert state.events_applied == len(events)


def test_an_unfinished_match_passes_too() -> None:
    events = played(2, 5)[:40]
    record, items = stored(events)
    assert audit_match(record, items, EVENTS).version > 0


def _first(events: list[ev.Event], kind: type) -> int:
    return next(i for i, event in enumerate(events) if isinstance(event, kind))


def test_a_lost_event_is_caught() -> None:
    events = played(2, 6)
    at = _first(events, ev.CardPlayed)
    with pytest.raises(CorruptMatch, match="follows from no legal command"):
        replay(events[:at] + events[at + 1 :])


def test_a_doubled_move_is_caught() -> None:
    events = played(2, 7)
    at = _first(events, ev.CardPlayed)
    with pytest.raises(CorruptMatch, match="follows from no legal command"):
        replay(events[: at + 1] + events[at:])


def test_an_altered_card_is_caught() -> None:
    events = played(2, 8)
    at = _first(events, ev.CardPlayed)
    played_card = events[at]
    assert isinstance(played_card, ev.CardPlayed)
    hand = next(e for e in reversed(events[:at]) if isinstance(e, ev.HandDealt))
    other = next(card for card in hand.order[6:] if card != played_card.card)  # a card nobody holds
    events[at] = dataclasses.replace(played_card, card=other)
    with pytest.raises(CorruptMatch, match=f"event {at + 1} "):
        replay(events)


def test_a_deal_that_breaks_its_commitment_is_caught() -> None:
    events = played(2, 9)
    at = _first(events, ev.HandDealt)
    dealt = events[at]
    assert isinstance(dealt, ev.HandDealt)
    events[at] = dataclasses.replace(dealt, commitment="0" * 64)
    with pytest.raises(CorruptMatch):
        replay(events)


def test_two_moves_swapped_are_caught() -> None:
    events = played(2, 16)  # a match with many cards played (seed 10 now ends on an early falta envido)
    first = _first(events, ev.CardPlayed)
    second = first + 1 + _first(events[first + 1 :], ev.CardPlayed)
    events[first], events[second] = events[second], events[first]
    with pytest.raises(CorruptMatch):
        replay(events)


def test_a_gap_in_the_seqs_and_a_record_that_disagrees_are_caught() -> None:
    record, items = stored(played(2, 11))
    with pytest.raises(CorruptMatch, match="without gaps"):
        audit_match(record, items[:5] + items[6:], EVENTS)
    with pytest.raises(CorruptMatch, match="the record says"):
        audit_match(dataclasses.replace(record, last_seq=record.last_seq + 1), items, EVENTS)
    with pytest.raises(CorruptMatch, match="over=False"):
        audit_match(dataclasses.replace(record, over=False), items, EVENTS)


def test_what_the_referee_records_replays_and_a_clock_out_of_turn_is_caught() -> None:
    events = played(2, 12, clock_at=30)
    kinds = [type(event) for event in events]
    assert ev.ClockExpired in kinds and ev.SeatLeft in kinds and ev.SeatResumed in kinds
    assert replay(events).phase is Phase.MATCH_OVER
    at = kinds.index(ev.ClockExpired)
    expired = events[at]
    assert isinstance(expired, ev.ClockExpired)
    events[at] = dataclasses.replace(expired, seat=1 - expired.seat)  # the match was not waiting for that seat
    with pytest.raises(CorruptMatch, match=f"event {at + 1} "):
        replay(events)
