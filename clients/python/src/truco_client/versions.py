"""The newest version of each game a client has seen, sent back with its reads as ``min_version``.

A replica may then answer a read from memory when it already holds that version and has heard of no newer
move: the answer is never older than what the client saw (its own moves included, wherever they were made;
señas aside, which do not advance the version), and costs the server no event-store read.
"""

from __future__ import annotations

from collections import OrderedDict

MAX_GAMES = 1024
"""Games remembered at once; the least recently seen is forgotten first (a read of it then asks for the newest)."""


class VersionsSeen:
    """Per game name, the highest public version seen in any reply or streamed event."""

    def __init__(self, max_games: int = MAX_GAMES) -> None:
        self._versions: OrderedDict[str, int] = OrderedDict()
        self._max_games = max_games

    def saw(self, name: str, version: int) -> None:
        """Record that ``version`` of game ``name`` was seen (an older one changes nothing)."""
        if version > self._versions.get(name, 0):
            self._versions[name] = version
        if name in self._versions:
            self._versions.move_to_end(name)
        while len(self._versions) > self._max_games:
            self._versions.popitem(last=False)

    def of(self, name: str) -> int:
        """The newest version of ``name`` seen; 0 when none was."""
        return self._versions.get(name, 0)
