"""What a bot is: something that picks one of the legal actions it is offered."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from truco.engine import Card, SeatCommand, SeatView
from truco.engine.views import HandView

ViewSource = Callable[[], SeatView]
"""Builds the seat's view on demand; bots that never look at it cost nothing to feed."""


class Bot(Protocol):
    name: str

    def choose(self, actions: Sequence[SeatCommand], view: ViewSource, rng: random.Random) -> SeatCommand:
        """One of ``actions`` (never empty), using only what ``view()`` shows the seat."""
        ...


def current_round(hand: HandView) -> tuple[tuple[int, Card], ...]:
    """The cards played so far in the round under way, as (seat, card) in playing order; empty before its first."""
    now = len(hand.results)
    return hand.rounds[now] if len(hand.rounds) > now else ()
