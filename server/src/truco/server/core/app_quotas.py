"""Whom a call's quotas charge: the player who makes it, and the app it comes from.

A **player** is one seat token: every call a seat makes, on whatever connection, whichever game's token it is
(a call without a token — CreateGame, JoinGame, ListGames, a spectator — is its connection's). A player's calls
per second are capped (``--player-calls-per-second``), so one runaway client cannot spend its app's budget.

An **app** is one API key, every player of it together, or, for calls without a key (anonymous development
mode), one client address. Its totals (calls per second, calls in flight, watches, games created) are the
server's flags, unless the operator gave the key its own when creating it (``truco keys create
--calls-per-second 2000 ...``): those are stored with the key, as JSON, and read here. A big app gets a big
key; a carrier NAT full of players of different apps is not one bucket.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from truco.server.core.quotas import Limits

SEAT_PREFIX = "seat:"
CONNECTION_PREFIX = "conn:"
_BEARER = "bearer "


@dataclass(frozen=True, slots=True)
class AppQuotas:
    """An API key's own totals; ``None`` takes the server's flag. 0 turns that quota off for the key."""

    calls_per_second: float | None = None  #: sustained calls per second, all the app's players together
    burst: int | None = None  #: calls at once above that rate
    games_per_minute: float | None = None  #: CreateGame calls per minute
    open_games: int | None = None  #: unfinished games created
    calls_in_flight: int | None = None  #: unary calls running at once
    watch_streams: int | None = None  #: WatchGame streams open at once from one client address
    watch_streams_per_key: int | None = None  #: WatchGame streams open at once, every address together

    def __post_init__(self) -> None:
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            if value is not None and (not math.isfinite(value) or value < 0):
                raise ValueError(f"{item.name} must be 0 or more, not {value!r}")

    @property
    def empty(self) -> bool:
        return all(getattr(self, item.name) is None for item in dataclasses.fields(self))

    def to_json(self) -> str:
        """The form stored with the key: only the quotas it sets."""
        values = {item.name: getattr(self, item.name) for item in dataclasses.fields(self)}
        return json.dumps({name: value for name, value in values.items() if value is not None}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> AppQuotas:
        """The quotas stored with a key; names this version does not know are ignored (a newer server's)."""
        stored = json.loads(text or "{}")
        values: dict[str, float | int] = {}
        for name, value in stored.items():
            if name in _KINDS and isinstance(value, int | float) and not isinstance(value, bool):
                values[name] = _KINDS[name](value)
        return cls(**values)  # type: ignore[arg-type]

    def over(self, limits: Limits) -> Limits:
        """The server's limits with this key's own totals in place of the flags."""
        if self.empty:
            return limits
        values = {item.name: getattr(self, item.name) for item in dataclasses.fields(self)}
        return dataclasses.replace(limits, **{name: value for name, value in values.items() if value is not None})

    def describe(self) -> str:
        """``calls_per_second=2000 burst=4000``, or ``server defaults``."""
        stored = json.loads(self.to_json())
        return " ".join(f"{name}={value:g}" for name, value in stored.items()) or "server defaults"


NO_QUOTAS = AppQuotas()
_KINDS: dict[str, type[float] | type[int]] = {
    item.name: float if item.name in {"calls_per_second", "games_per_minute"} else int
    for item in dataclasses.fields(AppQuotas)
}
"""Each quota's number kind: rates are real numbers, counts whole ones."""


def player_of(metadata: Sequence[tuple[str, str | bytes]] | None, connection: str) -> str:
    """Whom the per-player quota charges: ``seat:<digest>`` of the call's seat token, else ``conn:<peer>``.

    The token is not checked here (the handler does that): an invented token is a player of its own, still
    inside its app's totals, so inventing tokens buys nothing. Only a digest is kept, never the token.
    """
    for name, value in metadata or ():
        if name.lower() != "authorization":
            continue
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if text[: len(_BEARER)].lower() == _BEARER and text[len(_BEARER) :].strip():
            token = text[len(_BEARER) :].strip()
            return SEAT_PREFIX + hashlib.sha256(token.encode("utf-8")).hexdigest()[:24]
        break
    return CONNECTION_PREFIX + connection


__all__ = ["NO_QUOTAS", "AppQuotas", "player_of"]
