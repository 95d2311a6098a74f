"""Every call a player can make, grouped in the three families of 004: gritos, envidos and cantos."""

from __future__ import annotations

import enum


class Family(enum.Enum):
    """Which bet a call belongs to."""

    __hash__ = object.__hash__  # members are singletons; Enum's own hash is a Python-level call

    TRUCO = "truco"
    """Gritos: truco, retruco, vale cuatro."""
    ENVIDO = "envido"
    """Envidos (toques): envido, real envido, falta envido."""
    FLOR = "flor"
    """Cantos against another flor: con flor envido, contra flor, contra flor al resto."""


class CallKind(enum.Enum):
    """A call; its value is the wire name."""

    __hash__ = object.__hash__  # members are singletons; Enum's own hash is a Python-level call

    TRUCO = "TRUCO"
    RETRUCO = "RETRUCO"
    VALE_CUATRO = "VALE_CUATRO"
    ENVIDO = "ENVIDO"
    REAL_ENVIDO = "REAL_ENVIDO"
    FALTA_ENVIDO = "FALTA_ENVIDO"
    CON_FLOR_ENVIDO = "CON_FLOR_ENVIDO"
    CONTRA_FLOR = "CONTRA_FLOR"
    CONTRA_FLOR_AL_RESTO = "CONTRA_FLOR_AL_RESTO"
    FLOR = "FLOR"
    """A second team's flor, sung: the team that sang first answers it (con flor quiero, or a raise). Made
    by the engine when the flor is sung, never sent as a command."""

    family: Family
    """The bet the call belongs to (set once below: a plain attribute is read on every command)."""

    @property
    def spoken(self) -> str:
        """How a player says it."""
        return str(self.value).replace("_", " ").lower()


_FAMILY = {
    CallKind.TRUCO: Family.TRUCO,
    CallKind.RETRUCO: Family.TRUCO,
    CallKind.VALE_CUATRO: Family.TRUCO,
    CallKind.ENVIDO: Family.ENVIDO,
    CallKind.REAL_ENVIDO: Family.ENVIDO,
    CallKind.FALTA_ENVIDO: Family.ENVIDO,
    CallKind.CON_FLOR_ENVIDO: Family.FLOR,
    CallKind.CONTRA_FLOR: Family.FLOR,
    CallKind.CONTRA_FLOR_AL_RESTO: Family.FLOR,
    CallKind.FLOR: Family.FLOR,
}

for _kind, _family in _FAMILY.items():
    _kind.family = _family
