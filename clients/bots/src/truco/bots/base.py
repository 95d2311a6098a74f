"""What a bot is: something that picks one of the legal actions it is offered."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from truco.engine import SeatCommand, SeatView

ViewSource = Callable[[], SeatView]
"""Builds the seat's view on demand; bots that never look at it cost nothing to feed."""


class Bot(Protocol):
    name: str

    def choose(self, actions: Sequence[SeatCommand], view: ViewSource, rng: random.Random) -> SeatCommand:
        """One of ``actions`` (never empty), using only what ``view()`` shows the seat."""
        ...
