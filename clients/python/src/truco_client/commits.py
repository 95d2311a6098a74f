"""WatchGame messages of one commit (``per_commit``), and the released one-event-per-message shape made from them.

A watch asked with ``per_commit`` gets one message per commit: a move with the bot moves and the deal it
triggered is one :class:`~truco_client.v1.game_service_pb2.WatchGameResponse` whose ``events`` are all of them,
in order, with the caller's view after the last one (``seat`` for a seat, ``public`` for a spectator). A server
older than ``per_commit`` ignores the field and sends one event per message (``event``, ``seat`` and ``public``):
:func:`commit_events` reads either.
"""

from __future__ import annotations

from collections.abc import Sequence

from .v1 import events_pb2, game_service_pb2

WatchGameResponse = game_service_pb2.WatchGameResponse


def commit_events(message: WatchGameResponse) -> Sequence[events_pb2.Event]:
    """The events a watch message carries, in order: its ``events``, or the one ``event`` of a message of the
    released per-event stream."""
    if message.events:
        return message.events
    return [message.event] if message.HasField("event") else []


def commit_version(message: WatchGameResponse) -> int:
    """The newest version a watch message tells of: its last event's, or its view's (a seña keeps the version of
    the event before it, so the view's is never older)."""
    events = commit_events(message)
    return max(events[-1].version if events else 0, message.seat.public.version, message.public.version)


def per_event(message: WatchGameResponse) -> list[WatchGameResponse]:
    """A commit's message as the released stream's messages, one per event in order. The views after the commit
    go with its last event (``seat`` for a seat, and ``public`` for anyone: a seat's view holds it); the events
    before it carry none, as no view after them was sent."""
    events = commit_events(message)
    if not events:
        return []
    out = [WatchGameResponse(event=event) for event in events]
    last = out[-1]
    if message.HasField("seat"):
        last.seat.CopyFrom(message.seat)
    if message.HasField("public"):
        last.public.CopyFrom(message.public)
    elif message.HasField("seat"):
        last.public.CopyFrom(message.seat.public)
    return out


__all__ = ["commit_events", "commit_version", "per_event"]
