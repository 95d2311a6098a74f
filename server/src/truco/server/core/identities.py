"""Who a player is: a player an app vouched for with a player token (``truco.server.core.player_tokens``)."""

from __future__ import annotations

from dataclasses import dataclass

PLAYER_PREFIX = "players/"


@dataclass(frozen=True, slots=True)
class PlayerId:
    """A player an app vouched for: the app (its API key's id), the app's id of the player, its display name."""

    app: str
    sub: str
    display_name: str = ""

    @property
    def name(self) -> str:
        """``players/{sub}``."""
        return PLAYER_PREFIX + self.sub

    @property
    def quota_subject(self) -> str:
        """Whom the per-player quota charges: every call of this player, on any connection, in any game."""
        return f"player:{self.app}:{self.sub}"


__all__ = ["PLAYER_PREFIX", "PlayerId"]
