"""The random bot: every legal action equally likely, me voy al mazo included."""

from __future__ import annotations

import random
from collections.abc import Sequence

from truco.engine import SeatCommand

from .base import ViewSource


class RandomBot:
    name = "random"

    def choose(self, actions: Sequence[SeatCommand], view: ViewSource, rng: random.Random) -> SeatCommand:
        return actions[int(rng.random() * len(actions))]
