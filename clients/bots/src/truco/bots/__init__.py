"""In-process bots that play through the engine's seat view and legal actions, never seeing hidden cards.

``random``: a uniformly random legal action (mazo and every call included).
``heuristic``: a simple player that knows envido, flor and card strength.
"""

from .base import Bot, ViewSource
from .heuristic import HeuristicBot
from .random_bot import RandomBot

BOTS: dict[str, type[Bot]] = {"random": RandomBot, "heuristic": HeuristicBot}


def make_bot(name: str) -> Bot:
    """A new bot by name. :raises KeyError: for an unknown name."""
    return BOTS[name]()


__all__ = ["BOTS", "Bot", "HeuristicBot", "RandomBot", "ViewSource", "make_bot"]
