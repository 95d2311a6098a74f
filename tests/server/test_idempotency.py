"""The digest a stored reply carries of its command (truco.server.core.idempotency)."""

from __future__ import annotations

import pytest

from truco.engine import Answer, CallKind, Card, PlayCard
from truco.server.core.idempotency import command_digest, stamp, unstamp
from truco.server.core.reasons import ServiceFailure, ServiceReason
from truco_client.v1 import game_service_pb2 as gs


def test_the_same_command_gets_its_reply_back() -> None:
    reply = gs.SubmitCommandResponse(version=7).SerializeToString()
    digest = command_digest(PlayCard(0, Card.parse("1e")))
    assert unstamp(stamp(digest, reply), command_digest(PlayCard(0, Card.parse("1e")))) == reply


@pytest.mark.parametrize(
    "other",
    [PlayCard(0, Card.parse("7b")), PlayCard(1, Card.parse("1e")), Answer(0, True), Answer(0, True, CallKind.TRUCO)],
)
def test_another_command_is_refused(other: object) -> None:
    stored = stamp(command_digest(PlayCard(0, Card.parse("1e"))), b"\x08\x07")
    with pytest.raises(ServiceFailure) as refused:
        unstamp(stored, command_digest(other))
    assert refused.value.reason is ServiceReason.REQUEST_ID_REUSED


def test_a_reply_stored_before_stamps_is_answered_as_it_was() -> None:
    """A protobuf message never starts with a zero byte (no field 0): an unstamped reply is told apart."""
    legacy = gs.SubmitCommandResponse(version=3).SerializeToString()
    assert not legacy.startswith(b"\x00")
    assert unstamp(legacy, command_digest(PlayCard(0, Card.parse("1e")))) == legacy
    assert unstamp(b"", command_digest(Answer(0, False))) == b""
