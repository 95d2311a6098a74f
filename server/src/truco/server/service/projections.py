"""What a game looks like to each audience after a commit, projected and serialized once.

A seat's view and the public view of a snapshot are built (engine projection, protobuf, bytes) the first time a
reply or a stream needs them and kept in the snapshot's memo (:attr:`~truco.server.core.snapshots.Snapshot.memo`):
the move's reply, the mover's watch and its partner's read the same bytes, and every spectator of a game gets
the very same watch message. Messages are composed from serialized parts (a protobuf message is the
concatenation of its fields' encodings), so a view is serialized once however many messages carry it.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from truco import wire
from truco.engine import MatchState, SpectatorView, evolve, legal_actions, seat_view, spectator_view
from truco.engine import events as ev
from truco.engine.views import event_for, events_for
from truco.server.core.clocks import Clocks
from truco.server.core.encodings import Encodings
from truco.server.core.snapshots import Snapshot
from truco.server.service.messages import (
    NAME_PREFIX,
    STORED_EVENTS,
    add_clocks,
    commands_to_pb,
    fill_match_view,
    legacy_setup,
)
from truco.wire.v1 import game_service_pb2 as gs

Memo = dict[Hashable, object]

_SUBMIT_VIEW = gs.SubmitCommandResponse.DESCRIPTOR.fields_by_name["view"].number
_WATCH_SEAT = gs.WatchGameResponse.DESCRIPTOR.fields_by_name["seat"].number
_WATCH_PUBLIC = gs.WatchGameResponse.DESCRIPTOR.fields_by_name["public"].number
_SEAT_PUBLIC = gs.SubmitCommandResponse().view.DESCRIPTOR.fields_by_name["public"].number
_VIEW_SEAT = gs.GetGameViewResponse.DESCRIPTOR.fields_by_name["seat"].number
_VIEW_PUBLIC = gs.GetGameViewResponse.DESCRIPTOR.fields_by_name["public"].number


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (a message) as protobuf encodes it: appended to a message's bytes, it sets it."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def seat_view_bytes(memo: Memo, state: MatchState, seat: int, game: str, clocks: Clocks) -> bytes:
    """``seat``'s view of ``state`` (the snapshot whose memo this is), serialized once: its own fields, then the
    public view's bytes, which every seat's view and the spectators' share."""
    key = ("seat", seat, clocks)
    found = memo.get(key)
    if not isinstance(found, bytes):
        out = gs.SubmitCommandResponse().view
        wire.fill_seat_fields(out, seat_view(state, seat, public=_public_view(memo, state)))
        public = public_view_bytes(memo, state, game, clocks)
        found = memo[key] = out.SerializeToString() + field(_SEAT_PUBLIC, public)
    return found


def public_view_bytes(memo: Memo, state: MatchState, game: str, clocks: Clocks) -> bytes:
    """The public view of ``state``, serialized once."""
    key = ("public", clocks)
    found = memo.get(key)
    if not isinstance(found, bytes):
        out = gs.WatchGameResponse().public
        fill_match_view(out, _public_view(memo, state), game, clocks)
        found = memo[key] = out.SerializeToString()
    return found


def _public_view(memo: Memo, state: MatchState) -> SpectatorView:
    """The engine's public view of ``state``, projected once (the part of every seat's view that is the same)."""
    found = memo.get("spectator")
    if not isinstance(found, SpectatorView):
        found = memo["spectator"] = spectator_view(state)
    return found


def game_view_reply(memo: Memo, state: MatchState, seat: int | None, game: str, clocks: Clocks) -> bytes:
    """GetGameView's answer: ``seat``'s view and the public one (the public one alone for a spectator), from the
    same serialized views the watches and move replies carry."""
    public = field(_VIEW_PUBLIC, public_view_bytes(memo, state, game, clocks))
    if seat is None:
        return public
    return field(_VIEW_SEAT, seat_view_bytes(memo, state, seat, game, clocks)) + public


def legal_actions_reply(memo: Memo, state: MatchState, seat: int) -> bytes:
    """ListLegalActions' answer for ``seat``, serialized once per snapshot."""
    key = ("legal", seat)
    found = memo.get(key)
    if not isinstance(found, bytes):
        reply = gs.ListLegalActionsResponse(version=state.version, actions=commands_to_pb(legal_actions(state, seat)))
        found = memo[key] = reply.SerializeToString()
    return found


def submit_reply(
    game_id: str,
    seat: int,
    before: MatchState,
    events: Sequence[ev.Event],
    state: MatchState,
    clocks: Clocks,
    memo: Memo,
) -> bytes:
    """The answer to ``seat``'s move from ``before``: the events it caused as that seat may see them (played
    cards with their proofs) and its view after them (the one its watch will carry)."""
    reply = gs.SubmitCommandResponse(version=state.version)
    for event, version in events_for(events, seat, before.version, before.hand):
        wire.fill_event(reply.events.add(), event, version)
    view = seat_view_bytes(memo, state, seat, NAME_PREFIX + game_id, clocks)
    return reply.SerializeToString() + field(_SUBMIT_VIEW, view)


def watch_messages(
    game: str, seat: int | None, before: Snapshot | None, after: Snapshot, clocks: Clocks, after_version: int, *,
    per_commit: bool,
) -> list[bytes]:
    """What a watch sends for the events of ``after`` past ``before`` (None: the catch-up from the game's start,
    of the events after ``after_version``): one message per commit, or the released one per event. A stream's
    steady messages (``before`` set) are built once per audience and kept in ``after``'s memo."""
    if before is None:
        return _messages(game, seat, None, after, clocks, after_version, per_commit)
    key = ("watch", before.seq, seat, clocks, per_commit)
    found = after.memo.get(key)
    if not isinstance(found, list):
        found = after.memo[key] = _messages(game, seat, before, after, clocks, 0, per_commit)
    return found


_PLAY_COMMIT = gs.PlayGameResponse.DESCRIPTOR.fields_by_name["commit"].number


def session_messages(
    game: str, seat: int | None, before: Snapshot | None, after: Snapshot, clocks: Clocks, after_version: int
) -> list[bytes]:
    """What a PlayGame stream sends for the events of ``after`` past ``before``: a per-commit watch's messages,
    each wrapped as a ``PlayGameResponse.commit``, kept in ``after``'s memo like them."""
    if before is None:
        caught_up = watch_messages(game, seat, None, after, clocks, after_version, per_commit=True)
        return [field(_PLAY_COMMIT, message) for message in caught_up]
    key = ("session", before.seq, seat, clocks)
    found = after.memo.get(key)
    if not isinstance(found, list):
        watched = watch_messages(game, seat, before, after, clocks, 0, per_commit=True)
        found = after.memo[key] = [field(_PLAY_COMMIT, message) for message in watched]
    return found


def _messages(
    game: str, seat: int | None, before: Snapshot | None, after: Snapshot, clocks: Clocks, after_version: int,
    per_commit: bool,
) -> list[bytes]:
    start = before.state if before is not None else MatchState()
    new = after.events_after(before.seq if before is not None else 0)
    if new is None:  # games.watch hands every watcher the events it has not had (Snapshots.reaching)
        raise RuntimeError(f"the events of {game} after seq {before.seq if before else 0} are not at hand")
    if not per_commit:
        return _per_event(game, seat, start, new, clocks, after_version)
    seen = [
        (event, version)
        for event, version in events_for(new, seat, start.version, start.hand if before is not None else None)
        # A resumed watch skips what it had: a seña keeps the version of the event before it, so one stored
        # before the watch started and at that version is not repeated.
        if version > after_version
    ]
    if not seen and before is not after:  # before is after: the table changed, no move (WatchGame table_changes)
        return []
    message = gs.WatchGameResponse()
    for event, version in seen:
        wire.fill_event(message.events.add(), event, version)
    if seat is None:
        view = field(_WATCH_PUBLIC, public_view_bytes(after.memo, after.state, game, clocks))
    else:
        view = field(_WATCH_SEAT, seat_view_bytes(after.memo, after.state, seat, game, clocks))
    return [message.SerializeToString() + view]


def _per_event(
    game: str, seat: int | None, start: MatchState, new: Sequence[ev.Event], clocks: Clocks, after_version: int
) -> list[bytes]:
    """The released stream: each event with both views after it; the last one's carry the clocks."""
    state = start.copy()
    out: list[gs.WatchGameResponse] = []
    for event in new:
        evolve(state, event)
        visible = event_for(event, seat, state.hand)  # the hand the event belongs to: proofs
        if visible is None or state.version <= after_version:
            continue
        out.append(
            gs.WatchGameResponse(
                event=wire.event_to_pb(visible, state.version),
                seat=wire.seat_view_to_pb(seat_view(state, seat), game) if seat is not None else None,
                public=wire.match_view_to_pb(spectator_view(state), game),
            )
        )
    if out:  # the clocks are the latest: the latest views get them
        last = out[-1]
        add_clocks(last.public, clocks)
        if seat is not None:
            add_clocks(last.seat.public, clocks)
    return [message.SerializeToString() for message in out]


ENCODINGS = Encodings(events=STORED_EVENTS, reply=submit_reply, legacy_setup=legacy_setup)
"""How the game application stores events and replies, and reads old setups, in this server."""

__all__ = [
    "ENCODINGS",
    "field",
    "public_view_bytes",
    "seat_view_bytes",
    "session_messages",
    "submit_reply",
    "watch_messages",
]
