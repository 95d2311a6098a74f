"""Stored events stay readable: a match recorded with event schema 1 still decodes and replays exactly, and an
event of the older schema 0 (the bare message of its kind, no ``Event`` envelope) is upcast, not refused."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from truco.engine import Card, fold
from truco.engine import events as ev
from truco.server import codec
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


@pytest.mark.parametrize("schema", [1])
def test_a_match_stored_with_an_old_schema_replays_to_the_same_result(schema: int) -> None:
    records = read_records(DATA / f"golden-match-schema{schema}.bin")
    expected = json.loads((DATA / f"golden-match-schema{schema}.json").read_text())
    events = [codec.decode_event(kind, stored_schema, payload) for kind, stored_schema, payload in records]
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
    with pytest.raises(codec.DecodeError, match="schema 99"):
        codec.decode_event(kind, 99, payload)


def test_encoding_today_reproduces_the_stored_bytes() -> None:
    """Today's encoder writes schema-1 events byte for byte as they were stored: the encoding is stable."""
    for kind, schema, payload in read_records(DATA / "golden-match-schema1.bin")[:200]:
        event = codec.decode_event(kind, schema, payload)
        assert codec.encode_event(event) == (kind, schema, payload)


def as_schema0(payload: bytes) -> bytes:
    """A schema-1 payload rewritten as schema 0 wrote it: the message of the event's kind alone."""
    envelope = events_pb2.Event.FromString(payload)
    kind = envelope.WhichOneof("kind")
    assert kind is not None
    inner: bytes = getattr(envelope, kind).SerializeToString()
    return inner


def test_a_schema0_event_is_upcast_to_the_same_event() -> None:
    """One synthetic schema-0 event: a card played, stored bare."""
    bare = events_pb2.CardPlayed(seat=1, card=codec.card_to_pb(Card.parse("7o"))).SerializeToString()
    assert codec.decode_event("CardPlayed", 0, bare) == ev.CardPlayed(1, Card.parse("7o"))


def test_the_golden_match_stored_as_schema0_replays_like_schema1() -> None:
    records = read_records(DATA / "golden-match-schema1.bin")
    upcast = [codec.decode_event(kind, 0, as_schema0(payload)) for kind, _, payload in records]
    assert upcast == [codec.decode_event(kind, schema, payload) for kind, schema, payload in records]
    assert fold(upcast).winner == json.loads((DATA / "golden-match-schema1.json").read_text())["winner"]


def test_a_schema0_event_of_an_unknown_kind_is_refused() -> None:
    with pytest.raises(codec.DecodeError, match="unknown kind 'Nonsense'"):
        codec.decode_event("Nonsense", 0, b"")
