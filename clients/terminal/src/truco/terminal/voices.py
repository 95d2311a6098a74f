"""What ``truco play`` says, in the player's language: a :class:`Voice` over one language's catalogue.

Rioplatense Spanish with voseo by default, the table's language (the web table speaks it too, from the same
catalogue); English with ``--lang en`` or an English locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``). The words
are in :mod:`truco.terminal.catalogues`' files, the way they are put together in :mod:`truco.terminal.telling`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from truco_client.v1 import events_pb2, game_service_pb2, views_pb2

from . import telling
from .catalogues import Catalogue, catalogue


@dataclass(frozen=True)
class Voice:
    """Everything ``truco play`` says, in one language (its catalogue ``w``)."""

    w: Catalogue

    def render_view(
        self,
        view: views_pb2.SeatView,
        labels: Mapping[int, str] | None = None,
        *,
        options: bool = True,
        now: float | None = None,
    ) -> str:
        return telling.render_view(self.w, view, labels, options=options, now=now)

    def describe_event(
        self, event: events_pb2.Event, me: int | None = None, labels: Mapping[int, str] | None = None
    ) -> str | None:
        return telling.describe_event(self.w, event, me, labels)

    def clock_line(self, public: views_pb2.MatchView, me: int | None, now: float | None = None) -> str | None:
        return telling.clock_line(self.w, public, me, now)

    def tantos_line(self, view: views_pb2.SeatView) -> str | None:
        return telling.tantos_line(self.w, view)

    def bot_labels(self, game: game_service_pb2.Game) -> dict[int, str]:
        return telling.bot_labels(self.w, game)

    def seat_label(self, seat: int, me: int | None, labels: Mapping[int, str] | None = None) -> str:
        return telling.Teller(self.w, me, labels).who(seat)

    def notice(self, key: str, **fields: object) -> str:
        """A line about the table itself: why it cannot go on, or what it waits for (``notices.<key>``)."""
        return self.w.say("notices." + key, "", **fields)

    def joined(self, game: str, seat: int, team: int) -> str:
        return self.w.say("prompts.joined", game=game, seat=seat, team=team)

    def prompt(self, count: int, timer: str) -> str:
        return self.w.say("prompts.prompt", count=count, timer=timer)

    def seconds_left(self, left: float) -> str:
        return self.w.say("prompts.seconds_left", left=f"{left:.0f}")

    def countdown(self, mark: int) -> str:
        return self.w.say("prompts.countdown", mark=mark)

    def leaving(self, game: str) -> str:
        return self.w.say("prompts.leaving", game=game)

    def end_of_input(self, game: str) -> str:
        return self.w.say("prompts.end_of_input", game=game)

    def refused(self, error: str) -> str:
        return self.w.say("prompts.refused", error=error)

    def refused_by_server(self, message: str, reason: str) -> str:
        return self.w.say("prompts.refused_by_server", message=message, reason=reason)

    def choose(self, count: int) -> str:
        return self.w.say("prompts.choose", count=count)

    def no_option(self, number: int, count: int) -> str:
        return self.w.say("prompts.no_option", number=number, count=count)

    @property
    def changed(self) -> str:
        return self.w.say("prompts.changed")

    @property
    def moved_on(self) -> str:
        return self.w.say("prompts.moved_on")

    @property
    def away(self) -> str:
        return self.w.say("prompts.away")

    @property
    def back(self) -> str:
        return self.w.say("prompts.back")

    @property
    def host_waiting(self) -> str:
        return self.w.say("prompts.host_waiting")

    @property
    def started(self) -> str:
        return self.w.say("prompts.started")


ENGLISH = Voice(catalogue("en"))
RIOPLATENSE = Voice(catalogue("es"))
VOICES = {"en": ENGLISH, "es": RIOPLATENSE}


def voice_for(lang: str | None, environ: Mapping[str, str] | None = None) -> Voice:
    """The voice ``--lang`` names; without it, English when the locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``)
    says so, else Rioplatense: the table's language."""
    if lang:
        return VOICES[lang]
    env = os.environ if environ is None else environ
    locale = next((env[name] for name in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(name)), "")
    return ENGLISH if locale.lower().startswith("en") else RIOPLATENSE


__all__ = ["ENGLISH", "RIOPLATENSE", "VOICES", "Voice", "voice_for"]
