"""Rule sets: the number of players, the target and the variants of rules-decisions.md a match is created with."""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields
from typing import Final


class FaltaEnvido(enum.Enum):
    """What an accepted falta envido (and contra flor al resto) is worth."""

    LEADER_REMAINING = "leader_remaining"
    """The points the team that is ahead needs to reach the target (000, 002). The default."""
    MATCH_IF_MALAS = "match_if_malas"
    """While the leader is en malas, the falta is played for the whole match."""


VALID_PLAYERS: Final = (2, 4, 6)
VALID_TARGETS: Final = (15, 20, 30, 40, 60)


class RuleSetError(ValueError):
    """Raised for a rule set the engine cannot play (3 players, a 25-point target...)."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rules a match is created with. The defaults are rules-decisions.md's default ruleset.

    :ivar players: 2, 4 or 6; seats alternate teams (even seats are team 0, odd seats team 1).
    :ivar target: points that win the match: 15, 20, 30 (default), 40 or 60.
    :ivar falta_envido: how an accepted falta envido is valued.
    :ivar flor: whether flor is played; without it, every hand plays envido.
    :ivar pico_a_pico: six players only: alternate redondillas with pico a pico hands while both are en malas.
    :ivar perros: whether the dealing team may "echar los perros" before a deal.
    :ivar senas: whether teammates may send señas (meaningful only with teammates: 4 and 6 players).
    """

    players: int = 2
    target: int = 30
    falta_envido: FaltaEnvido = FaltaEnvido.LEADER_REMAINING
    flor: bool = True
    pico_a_pico: bool = True
    perros: bool = False
    senas: bool = True

    def __post_init__(self) -> None:
        if self.players not in VALID_PLAYERS:
            raise RuleSetError(f"players must be one of {VALID_PLAYERS}, not {self.players}")
        if self.target not in VALID_TARGETS:
            raise RuleSetError(f"target must be one of {VALID_TARGETS}, not {self.target}")

    @property
    def buenas_from(self) -> int:
        """The score from which a team is en buenas: half the target, rounded up."""
        return (self.target + 1) // 2

    @property
    def plays_pico_a_pico(self) -> bool:
        return self.players == 6 and self.pico_a_pico

    def describe(self) -> str:
        """A one-line summary for logs and terminals."""
        parts = [f"{field.name}={getattr(self, field.name)}" for field in fields(self)]
        return ", ".join(part.replace("FaltaEnvido.", "") for part in parts)


RULE_SETS: Final[dict[str, RuleSet]] = {
    "default": RuleSet(),
    "sin-flor": RuleSet(flor=False),
    "perros": RuleSet(perros=True),
    "corto": RuleSet(target=15),
    "largo": RuleSet(target=40),
}
"""Named rule sets a client can ask for by name; every field can still be set one by one."""


def find_rule_set(name: str, *, players: int | None = None) -> RuleSet:
    """The registered rule set called ``name``, optionally for another number of players.

    :raises RuleSetError: for an unknown name.
    """
    try:
        base = RULE_SETS[name]
    except KeyError:
        raise RuleSetError(f"unknown rule set {name!r}; known: {', '.join(sorted(RULE_SETS))}") from None
    if players is None:
        return base
    return RuleSet(**{**{f.name: getattr(base, f.name) for f in fields(base)}, "players": players})
