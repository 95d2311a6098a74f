"""Stored events stay readable: matches recorded with event schemas 1 (whole-deck reveal at the hand's end) and 2
(per-card commitments) still decode and replay exactly, schema-1 records upcast so that replaying them reveals no
card the rules keep hidden; an event of the older schema 0 (the bare message of its kind, no ``Event`` envelope)
is upcast, not refused."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from truco.engine import Card, event_for, evolve, fold
from truco.engine import events as ev
from truco.server.service import messages
from truco_client.v1 import events_pb2

DATA = Path(__file__).parent / "data"


def read_records(path: Path) -> list[tuple[str, int, bytes]]:
    data = path.read_bytes()
    records, offset = [], 0
    while offset < len(data):
        name_length, schema, payload_length = struct.unpack_from(">HHI", data, offset)
        offset += 8
        kind = data[offset : offset + name_length].decode()
        offset += name_length
        records.append((kind, schema, data[offset : offset + payload_length]))
        offset += payload_length
    return records


@pytest.mark.parametrize("schema", [1, 2])
def test_a_match_stored_with_an_old_schema_replays_to_the_same_result(schema: int) -> None:
    records = read_records(DATA / f"golden-match-schema{schema}.bin")
    expected = json.loads((DATA / f"golden-match-schema{schema}.json").read_text())
    events = [messages.decode_event(kind, stored_schema, payload) for kind, stored_schema, payload in records]
    assert [type(event).__name__ for event in events] == [kind for kind, _, _ in records]
    state = fold(events)
    assert len(events) == expected["events"]
    assert state.version == expected["version"]
    assert state.scores == expected["scores"]
    assert state.winner == expected["winner"]
    assert state.hands_dealt == expected["hands"]
    kinds = {type(event) for event in events}
    assert {ev.SenaSent, ev.FlorSung, ev.PerrosCalled, ev.HandEnded, ev.MatchEnded} <= kinds


def test_an_unknown_schema_is_refused_not_misread() -> None:
    kind, _, payload = read_records(DATA / "golden-match-schema1.bin")[0]
    with pytest.raises(messages.DecodeError, match="schema 99"):
        messages.decode_event(kind, 99, payload)


def test_encoding_today_reproduces_the_stored_bytes() -> None:
    """Today's encoder writes schema-2 events byte for byte as they were stored: the encoding is stable."""
    for kind, schema, payload in read_records(DATA / "golden-match-schema2.bin"):
        event = messages.decode_event(kind, schema, payload)
        assert messages.encode_event(event) == (kind, schema, payload)


def test_schema_one_is_upcast_without_its_reveal() -> None:
    """Schema-1 events keep their bytes but for the two shapes that changed: HandDealt loses its whole-deck
    commitment (projections recompute per-card ones from the recorded order and secret) and HandEnded its
    revealed order and salt, which no projection of an old match shows any more."""
    records = read_records(DATA / "golden-match-schema1.bin")
    events = [messages.decode_event(kind, schema, payload) for kind, schema, payload in records]
    state = fold([])
    revealed_before = 0
    for (kind, _schema, payload), event in zip(records, events, strict=True):
        evolve(state, event)
        if kind not in ("HandDealt", "HandEnded"):
            assert messages.encode_event(event) == (kind, messages.EVENT_SCHEMA, payload)
            continue
        old = events_pb2.Event.FromString(payload)
        if kind == "HandEnded":
            revealed_before += len(old.hand_ended.order)
            seen = event_for(event, None, state.hand)
            assert isinstance(seen, ev.HandEnded)
            message = messages.event_to_pb(seen)
            assert not message.hand_ended.order and not message.hand_ended.salt
            assert len(seen.proofs) == sum(len(cards) for _, cards in seen.shown)
        else:
            assert isinstance(event, ev.HandDealt) and event.order and event.salt == old.hand_dealt.salt
            assert old.hand_dealt.commitment and not event.commitment
            seen = event_for(event, None)
            assert isinstance(seen, ev.HandDealt) and len(seen.commitments) == 40 and not seen.order
    assert revealed_before, "the schema-1 match revealed its decks: the upcast has something to drop"


def as_schema0(payload: bytes) -> bytes:
    """A schema-1 payload rewritten as schema 0 wrote it: the message of the event's kind alone."""
    envelope = events_pb2.Event.FromString(payload)
    kind = envelope.WhichOneof("kind")
    assert kind is not None
    inner: bytes = getattr(envelope, kind).SerializeToString()
    return inner


def test_a_schema0_event_is_upcast_to_the_same_event() -> None:
    """One synthetic schema-0 event: a card played, stored bare."""
    bare = events_pb2.CardPlayed(seat=1, card=messages.card_to_pb(Card.parse("7o"))).SerializeToString()
    assert messages.decode_event("CardPlayed", 0, bare) == ev.CardPlayed(1, Card.parse("7o"))


def test_the_golden_match_stored_as_schema0_replays_like_schema1() -> None:
    records = read_records(DATA / "golden-match-schema1.bin")
    upcast = [messages.decode_event(kind, 0, as_schema0(payload)) for kind, _, payload in records]
    assert upcast == [messages.decode_event(kind, schema, payload) for kind, schema, payload in records]
    assert fold(upcast).winner == json.loads((DATA / "golden-match-schema1.json").read_text())["winner"]


def test_a_schema0_event_of_an_unknown_kind_is_refused() -> None:
    with pytest.raises(messages.DecodeError, match="unknown kind 'Nonsense'"):
        messages.decode_event("Nonsense", 0, b"")
