"""The forms the game application stores and answers in, given to it by the server: the application itself never
imports protobuf (``tests/project/test_architecture.py`` checks it, transitively).

* :class:`EventCodec`: an engine event to the store's (kind, schema, payload) and back;
* :data:`ReplyEncoder`: the answer to a seat's move, stored with the move so that a retried request gets it again;
* :data:`~truco.server.core.setups.LegacySetup`: reads the setups stored before setups had a schema of their own.

The server's implementation, over the ``truco.v1`` messages, is :data:`truco.server.service.projections.ENCODINGS`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol

from truco.engine import MatchState
from truco.engine import events as ev
from truco.server.core.clocks import Clocks
from truco.server.core.setups import LegacySetup


class EventCodec(Protocol):
    """Events as the store keeps them."""

    def encode(self, event: ev.Event) -> tuple[str, int, bytes]:
        """(kind, schema, payload) for the store."""
        ...

    def decode(self, kind: str, schema: int, payload: bytes) -> ev.Event:
        """The event stored as ``payload`` under ``kind`` and ``schema``.

        :raises ValueError: bytes that are no event of that kind and schema.
        """
        ...


ReplyEncoder = Callable[[str, int, MatchState, Sequence[ev.Event], MatchState, Clocks, dict[Hashable, object]], bytes]
"""The transport's encoding of the answer to a move: (game id, seat, state before, events, state after, the
clocks after, the memo of the snapshot after: what it projects there, the seat's view, streams reuse)."""


@dataclass(frozen=True)
class Encodings:
    """Everything the application encodes or decodes, in one value given at construction."""

    events: EventCodec
    reply: ReplyEncoder
    legacy_setup: LegacySetup


__all__ = ["Encodings", "EventCodec", "ReplyEncoder"]
