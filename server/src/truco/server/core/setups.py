"""What a game was created with, and the form it is stored in beside the game's events.

A setup is the game's rule set, its bot seats, its scripted deals and its turn clocks. It is stored as JSON of
its own schema (:data:`SETUP_SCHEMA`), not as the API's ``CreateGameRequest``: the contract may grow without
the store's data changing meaning, and the application reads it without protobuf. Games stored before this
schema hold the request's bytes; :func:`setup_from_bytes` hands those to an upcaster the server injects.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields, replace
from typing import Any

from truco.bots.levels import Level, bot_for_level, level_of_bot
from truco.engine import Card, FaltaEnvido, MatchState, RuleSet
from truco.server.core.clocks import DEFAULT_TAKEOVER_BOT, ClockSettings, StandIn

SETUP_SCHEMA = 2
"""Version of the stored setup. 1 (no marker): the API's CreateGameRequest, serialized. 2: this module's JSON."""

Hand = tuple[Card, ...]
FixedDeal = tuple[tuple[Hand, ...], Card, tuple[int, ...]]
"""A scripted deal: the hands (two in a pico a pico hand, or one per player), the muestra, and the seats the
hands belong to, in the same order (empty: the hands are listed from the mano on)."""


@dataclass(frozen=True, slots=True)
class Setup:
    """What a game was created with, stored with it: rules, bot seats (seat to bot name), scripted deals,
    turn clocks (None: none) and how the stand-in plays an away seat (None: the server's default, fixed when
    the game is created; games stored before it read as :class:`StandIn`'s defaults)."""

    rules: RuleSet
    bots: dict[int, str]
    fixed_deals: tuple[FixedDeal, ...]
    clock: ClockSettings | None = None
    stand_in: StandIn | None = None

    @property
    def pace(self) -> StandIn:
        """The stand-in's pace and grace in this game."""
        return self.stand_in or StandIn()

    def playing(self, state: MatchState) -> dict[int, str]:
        """The seats the server plays now: its bot seats, and the seats taken over (their clock ran out, or
        their player left) by :meth:`takeover_bot`."""
        if not state.away:
            return self.bots
        return {**dict.fromkeys(state.away, self.takeover_bot()), **self.bots}

    def takeover_bot(self) -> str:
        """The bot that stands in for an away seat: the clocks' when they name one, else the game's level (the
        strongest level among its bot seats: a game that chose the expert gets an expert stand-in), and the
        intermediate level in a game without bot seats."""
        if self.clock is not None and self.clock.bot is not None:
            return self.clock.bot
        levels = [level_of_bot(bot) for bot in self.bots.values()]
        ranked = [level for level in Level if level in levels]
        return bot_for_level(ranked[-1]) if ranked else DEFAULT_TAKEOVER_BOT

    @property
    def table_bot(self) -> str:
        """The bot at the game's level, which takes the seats a table waiting for friends starts without: the
        game's own bots' (its first bot seat's), else the one its clock hands a seat taken over."""
        if self.bots:
            return self.bots[min(self.bots)]
        return self.takeover_bot()

    def with_bots(self, seats: Iterable[int]) -> Setup:
        """This setup with :attr:`table_bot` in ``seats`` too (a table started with bots in its open seats)."""
        return replace(self, bots={**self.bots, **dict.fromkeys(seats, self.table_bot)})


LegacySetup = Callable[[bytes], Setup]
"""Reads a setup stored before :data:`SETUP_SCHEMA` (a serialized CreateGameRequest)."""


def setup_to_bytes(setup: Setup) -> bytes:
    """The setup as stored with its game: compact JSON with the schema's version first."""
    stored: dict[str, Any] = {
        "schema": SETUP_SCHEMA,
        "rules": _rules_to_json(setup.rules),
        "bots": {str(seat): name for seat, name in sorted(setup.bots.items())},
        "fixed_deals": [
            {"hands": [[str(card) for card in hand] for hand in hands], "muestra": str(muestra), "seats": list(seats)}
            for hands, muestra, seats in setup.fixed_deals
        ],
        "clock": None if setup.clock is None else _clock_to_json(setup.clock),
        "stand_in": {"pace_us": setup.pace.pace_us, "grace_us": setup.pace.grace_us},
    }
    return json.dumps(stored, separators=(",", ":"), sort_keys=False).encode()


def setup_from_bytes(data: bytes, legacy: LegacySetup) -> Setup:
    """A stored setup, of this schema or (through ``legacy``) of the one before.

    :raises ValueError: a stored setup of a schema this server does not know (one written by a newer server).
    """
    if not data.startswith(b"{"):  # a protobuf message never starts with 0x7b: field 15 as a group, unused
        return legacy(data)
    stored = json.loads(data)
    if stored.get("schema") != SETUP_SCHEMA:
        raise ValueError(f"stored setup of schema {stored.get('schema')!r}; this server reads {SETUP_SCHEMA}")
    deals = tuple(
        (
            tuple(tuple(Card.parse(card) for card in hand) for hand in deal["hands"]),
            Card.parse(deal["muestra"]),
            tuple(int(seat) for seat in deal["seats"]),
        )
        for deal in stored["fixed_deals"]
    )
    clock = stored["clock"]
    stand_in = stored.get("stand_in")  # absent in games stored before the stand-in kept a pace
    return Setup(
        rules=_rules_from_json(stored["rules"]),
        bots={int(seat): str(name) for seat, name in stored["bots"].items()},
        fixed_deals=deals,
        clock=None if clock is None else ClockSettings(**clock),
        stand_in=StandIn(**stand_in) if stand_in is not None else None,
    )


def _rules_to_json(rules: RuleSet) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in fields(rules):
        value = getattr(rules, field.name)
        out[field.name] = value.name if isinstance(value, FaltaEnvido) else value
    return out


def _rules_from_json(stored: dict[str, Any]) -> RuleSet:
    values = dict(stored)
    if "falta_envido" in values:
        values["falta_envido"] = FaltaEnvido[values["falta_envido"]]
    return RuleSet(**values)


def rules_to_text(rules: RuleSet) -> str:
    """The rules as canonical text: equal rules (their defaults filled in) are equal text."""
    return json.dumps(_rules_to_json(rules), sort_keys=True, separators=(",", ":"))


def rules_from_text(text: str) -> RuleSet:
    return _rules_from_json(json.loads(text))


def _clock_to_json(clock: ClockSettings) -> dict[str, Any]:
    return {field.name: getattr(clock, field.name) for field in fields(clock)}


__all__ = [
    "SETUP_SCHEMA",
    "FixedDeal",
    "Hand",
    "LegacySetup",
    "Setup",
    "rules_from_text",
    "rules_to_text",
    "setup_from_bytes",
    "setup_to_bytes",
]
