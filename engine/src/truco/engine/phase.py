"""Where a match stands: the phase of :class:`~truco.engine.state.MatchState`, in a module of its own so that
the value classes' generated ``__init__``s (``_inits``) can default to it before state.py has run."""

from __future__ import annotations

import enum


class Phase(enum.Enum):
    """Where the match stands."""

    NOT_STARTED = "NOT_STARTED"
    AWAITING_PERROS = "AWAITING_PERROS"
    """The dealing team may echar los perros before the deal (only when the rule set allows it)."""
    AWAITING_DEAL = "AWAITING_DEAL"
    PLAYING = "PLAYING"
    MATCH_OVER = "MATCH_OVER"
