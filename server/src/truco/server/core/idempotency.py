"""A request id names one command: its stored reply carries a digest of that command, so the same id sent
again with another command is refused (REQUEST_ID_REUSED) instead of silently answered with the first reply,
as payment APIs treat an idempotency key reused with other parameters.

The digest travels inside the reply bytes the store already keeps with the request id, so no schema changes:
a stamped reply starts with a zero byte, which no encoded protobuf message does (field number 0 does not
exist), and replies stored before this change come back unstamped and are answered as they were.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Sequence

from truco.engine import MatchState
from truco.engine import events as ev
from truco.server.core.clocks import Clocks
from truco.server.core.commits import Reply
from truco.server.core.reasons import ServiceFailure, ServiceReason

MARK = b"\x00rid1"
"""What opens a stamped reply: a zero byte (never a protobuf message's first) and the stamp's format."""
DIGEST_SIZE = 16


def command_digest(command: object) -> bytes:
    """The digest of an engine command: its repr names its kind and every field (frozen dataclasses of ints,
    bools, enums and cards), so two commands share it only when they are the same command."""
    return hashlib.blake2b(repr(command).encode(), digest_size=DIGEST_SIZE).digest()


def stamp(digest: bytes, reply: bytes) -> bytes:
    """The reply as stored with its request id: the command's digest first."""
    return MARK + digest + reply


def stamped(digest: bytes, reply: Reply) -> Reply:
    """``reply``, its answers stamped with ``digest`` (what a commit stores with its request id)."""

    def encode(events: Sequence[ev.Event], state: MatchState, clocks: Clocks, memo: dict[Hashable, object]) -> bytes:
        return stamp(digest, reply(events, state, clocks, memo))

    return encode


def unstamp(stored: bytes, digest: bytes) -> bytes:
    """The reply stored with a request id, given to a command of ``digest``.

    :raises ServiceFailure: REQUEST_ID_REUSED when the id was applied to another command.
    """
    if not stored.startswith(MARK):
        return stored  # stored by a server before stamps: nothing to compare with
    start = len(MARK) + DIGEST_SIZE
    if stored[len(MARK) : start] != digest:
        raise ServiceFailure(
            ServiceReason.REQUEST_ID_REUSED,
            "this request id was already applied to another command: a new command needs a new request id",
        )
    return stored[start:]


__all__ = ["command_digest", "stamp", "stamped", "unstamp"]
