"""The truco.v1 protobuf form of the engine's values, both ways: cards, rules, commands, events and views.

Shared by the server (through :mod:`truco.server.service.messages`) and the terminal client's over-the-wire bots
(:mod:`truco.terminal.selfplay`), so the wire format has one definition; its own distribution (truco-wire), so
a client needs none of the server's dependencies. One module per proto file (:mod:`.cards`, :mod:`.rules`,
:mod:`.commands`, :mod:`.events`, :mod:`.views`; what they share in :mod:`.common`), all re-exported here.
Decoding raises :class:`DecodeError` for a value that is not well formed; encoding never fails.
"""

from __future__ import annotations

from .cards import card_from_pb, card_to_pb, cards_from_pb, cards_to_pb
from .commands import call_from_pb, command_from_pb, command_to_pb, commands_to_pb, sena_from_pb
from .common import DecodeError, as_wire
from .events import event_from_pb, event_to_pb, fill_event, proof_to_pb, proofs_from_pb, proofs_to_pb
from .rules import rules_from_pb, rules_to_pb
from .views import (
    fill_hand_view,
    fill_match_view,
    fill_seat_fields,
    fill_seat_view,
    hand_summary_from_pb,
    hand_summary_to_pb,
    hand_view_from_pb,
    hand_view_to_pb,
    match_view_from_pb,
    match_view_to_pb,
    phase_to_pb,
    seat_view_from_pb,
    seat_view_to_pb,
)

__all__ = [
    "DecodeError",
    "as_wire",
    "call_from_pb",
    "card_from_pb",
    "card_to_pb",
    "cards_from_pb",
    "cards_to_pb",
    "command_from_pb",
    "command_to_pb",
    "commands_to_pb",
    "event_from_pb",
    "event_to_pb",
    "fill_event",
    "fill_hand_view",
    "fill_match_view",
    "fill_seat_fields",
    "fill_seat_view",
    "hand_summary_from_pb",
    "hand_summary_to_pb",
    "hand_view_from_pb",
    "hand_view_to_pb",
    "match_view_from_pb",
    "match_view_to_pb",
    "phase_to_pb",
    "proof_to_pb",
    "proofs_from_pb",
    "proofs_to_pb",
    "rules_from_pb",
    "rules_to_pb",
    "seat_view_from_pb",
    "seat_view_to_pb",
    "sena_from_pb",
]
