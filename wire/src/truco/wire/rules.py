"""Rule sets (rules.proto) to and from the engine's."""

from __future__ import annotations

from functools import lru_cache

from truco.engine import (
    FaltaEnvido,
    RuleSet,
    RuleSetError,
)
from truco.wire.v1 import rules_pb2

from .common import DecodeError

_FALTA_TO_PB = {
    FaltaEnvido.LEADER_REMAINING: rules_pb2.FALTA_ENVIDO_LEADER_REMAINING,
    FaltaEnvido.MATCH_IF_MALAS: rules_pb2.FALTA_ENVIDO_MATCH_IF_MALAS,
}
_FALTA_FROM_PB = {value: falta for falta, value in _FALTA_TO_PB.items()}


def rules_to_pb(rules: RuleSet) -> rules_pb2.RuleSet:
    return rules_pb2.RuleSet(
        players=rules.players,
        target=rules.target,
        falta_envido=_FALTA_TO_PB[rules.falta_envido],
        flor=rules.flor,
        pico_a_pico=rules.pico_a_pico,
        perros=rules.perros,
        senas=rules.senas,
    )


@lru_cache(maxsize=64)
def _rules_pb(rules: RuleSet) -> rules_pb2.RuleSet:
    """:func:`rules_to_pb`, shared: to be copied, never changed (every view carries its match's rules)."""
    return rules_to_pb(rules)


def rules_from_pb(message: rules_pb2.RuleSet) -> RuleSet:
    """A rule set from a request; unset fields take the defaults. :raises DecodeError: for impossible rules."""
    defaults = RuleSet()
    falta = (
        defaults.falta_envido
        if message.falta_envido == rules_pb2.FALTA_ENVIDO_UNSPECIFIED
        else _FALTA_FROM_PB.get(message.falta_envido)
    )
    if falta is None:
        raise DecodeError(f"rules.falta_envido: unknown value {message.falta_envido}")
    try:
        return RuleSet(
            players=message.players or defaults.players,
            target=message.target or defaults.target,
            falta_envido=falta,
            flor=message.flor if message.HasField("flor") else defaults.flor,
            pico_a_pico=message.pico_a_pico if message.HasField("pico_a_pico") else defaults.pico_a_pico,
            perros=message.perros if message.HasField("perros") else defaults.perros,
            senas=message.senas if message.HasField("senas") else defaults.senas,
        )
    except RuleSetError as error:
        raise DecodeError(f"rules: {error}") from None
