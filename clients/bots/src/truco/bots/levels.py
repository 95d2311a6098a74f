"""The levels a player picks a bot by: what each one means at the table, and the bot that plays it."""

from __future__ import annotations

import enum
from typing import Final


class Level(enum.Enum):
    """A bot's playing strength, in the words a player would use."""

    BEGINNER = "beginner"
    INTERMEDIATE = "intermediate"
    EXPERT = "expert"


LEVELS: Final[dict[Level, str]] = {
    Level.BEGINNER: "Knows which cards are strong, but plays them plainly and bets only on very good hands: "
    "easy to beat.",
    Level.INTERMEDIATE: "A solid club player: bets its envido and flor by their points and calls truco on strong "
    "cards.",
    Level.EXPERT: "Thinks every move through, weighing the hands its rivals may hold against the score: a strong "
    "rival.",
}
"""Each level in one sentence a player understands (the proto's BotLevel says the same)."""

LEVEL_BOTS: Final[dict[str, str]] = {
    Level.BEGINNER.value: "beginner",
    Level.INTERMEDIATE.value: "heuristic",
    Level.EXPERT.value: "expert",
}
"""The bot (a :data:`truco.bots.BOTS` name) that plays each level."""


def bot_for_level(level: Level) -> str:
    """The name of the bot that plays ``level``.

    >>> bot_for_level(Level.INTERMEDIATE)
    'heuristic'
    """
    return LEVEL_BOTS[level.value]


def level_of_bot(name: str) -> Level | None:
    """The level a bot plays at (None for a bot no level names: ``random``).

    >>> level_of_bot("heuristic"), level_of_bot("random")
    (<Level.INTERMEDIATE: 'intermediate'>, None)
    """
    for level in Level:
        if LEVEL_BOTS[level.value] == name:
            return level
    return None
