"""In-process bots that play through the engine's seat view and legal actions, never seeing hidden cards.

``random``: a uniformly random legal action (mazo and every call included).
``heuristic``: a simple player that knows envido, flor and card strength (the ``intermediate`` level).
``beginner``: knows which cards are strong, but plays them plainly and bets only on very good hands.
``expert``: a determinized Monte Carlo search over the hands its view leaves possible, valued by the chance of
winning the match.

The levels a player chooses from (:data:`LEVELS`) name three of them. The arena's gauntlet also meets the rival
styles of :mod:`truco.bots.styles` (``careful``, ``maniac``, ``rock``, ``released-expert``), which :func:`make_bot`
makes too but no level names.
"""

import random
from functools import partial

from truco.engine import MatchState, SeatCommand, legal_actions, seat_view

from .base import Bot, ViewSource
from .beginner import BeginnerBot
from .expert import ExpertBot
from .heuristic import HeuristicBot
from .levels import LEVEL_BOTS, LEVELS, Level, bot_for_level, level_of_bot
from .random_bot import RandomBot
from .styles import STYLES

BOTS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "beginner": BeginnerBot,
    "expert": ExpertBot,
}


THINKING_BOTS: frozenset[str] = frozenset({"expert"})
"""Bots that search before each move (tens of milliseconds): a server runs them off its event loop."""


def make_bot(name: str) -> Bot:
    """A new bot by name (a bot's, a level's: ``intermediate`` is the heuristic bot, or a gauntlet style's).

    :raises KeyError: for an unknown name.
    """
    if name in STYLES:
        return STYLES[name]()
    return BOTS[LEVEL_BOTS.get(name, name)]()


def choose_for(state: MatchState, seat: int, name: str, seed: int) -> SeatCommand:
    """What bot ``name`` plays for ``seat`` of the match ``state`` (one of its legal actions), choosing with
    ``random.Random(seed)``: it is shown the seat's view and legal actions, nothing else of the state. A plain
    function of picklable values, so a server can ask it in another process."""
    return make_bot(name).choose(
        legal_actions(state, seat), partial(seat_view, state, seat, proofs=False), random.Random(seed)
    )


__all__ = [
    "BOTS",
    "LEVELS",
    "LEVEL_BOTS",
    "STYLES",
    "THINKING_BOTS",
    "BeginnerBot",
    "Bot",
    "ExpertBot",
    "HeuristicBot",
    "Level",
    "RandomBot",
    "ViewSource",
    "bot_for_level",
    "choose_for",
    "level_of_bot",
    "make_bot",
]
