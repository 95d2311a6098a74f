"""Turn clocks in the SDK: build a game's clock settings, read whose clock runs and how long it has left.

Deadlines are the server's time (``google.protobuf.Timestamp``); :func:`seconds_left` measures them against
this machine's clock, which is good enough for a countdown on any machine whose clock is set by NTP.
"""

from __future__ import annotations

import time

from google.protobuf.duration_pb2 import Duration

from .v1 import game_service_pb2, views_pb2

POLICIES = {"takeover": game_service_pb2.CLOCK_POLICY_TAKEOVER, "forfeit": game_service_pb2.CLOCK_POLICY_FORFEIT}


def duration(seconds: float) -> Duration:
    whole = int(seconds)
    return Duration(seconds=whole, nanos=round((seconds - whole) * 1e9))


def clock_settings(
    decision: float, reserve: float = 0.0, policy: str = "takeover", takeover_bot: str = "heuristic"
) -> game_service_pb2.ClockSettings:
    """Clock settings for :meth:`TrucoClient.create_game`: ``decision`` seconds per decision (0: no clocks),
    a per-match ``reserve`` per seat, and what a clock running out does: ``"takeover"`` (``takeover_bot``
    plays the seat until its player resumes) or ``"forfeit"`` (the seat's team concedes)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown clock policy {policy!r}: one of {', '.join(POLICIES)}")
    bot = {"random": game_service_pb2.BOT_KIND_RANDOM, "heuristic": game_service_pb2.BOT_KIND_HEURISTIC}.get(
        takeover_bot
    )
    if bot is None:
        raise ValueError(f"unknown bot {takeover_bot!r}")
    settings = game_service_pb2.ClockSettings(decision=duration(decision), on_expiry=POLICIES[policy], takeover_bot=bot)
    if reserve:
        settings.reserve.CopyFrom(duration(reserve))
    return settings


def seconds_left(public: views_pb2.MatchView, now: float | None = None) -> float | None:
    """Seconds until the running clock runs out (never below 0), or None when no clock runs."""
    if not public.HasField("clock"):
        return None
    deadline = public.clock.deadline.seconds + public.clock.deadline.nanos / 1e9
    return max(0.0, deadline - (time.time() if now is None else now))


def clock_seats(public: views_pb2.MatchView) -> list[int]:
    """The seats whose decision the running clock times (empty when none runs)."""
    return list(public.clock.seats) if public.HasField("clock") else []


def taken_over(public: views_pb2.MatchView, seat: int) -> bool:
    """Whether a bot plays ``seat`` for its player now (send ResumeSeat to take it back)."""
    return any(s.seat == seat and s.taken_over for s in public.seats)


__all__ = ["clock_seats", "clock_settings", "duration", "seconds_left", "taken_over"]
