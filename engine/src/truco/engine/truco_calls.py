"""Truco, retruco and vale cuatro: what each call puts at stake and what a refusal pays."""

from __future__ import annotations

from typing import Final

from .calls import CallKind

UNCALLED_VALUE: Final = 1
"""A hand nobody raised is worth one point."""

TRUCO_LADDER: Final = (CallKind.TRUCO, CallKind.RETRUCO, CallKind.VALE_CUATRO)

VALUE_IF_ACCEPTED: Final = {CallKind.TRUCO: 2, CallKind.RETRUCO: 3, CallKind.VALE_CUATRO: 4}


def next_truco_call(accepted_value: int) -> CallKind | None:
    """The call that raises a hand now worth ``accepted_value``; None at vale cuatro."""
    index = accepted_value - UNCALLED_VALUE
    return TRUCO_LADDER[index] if index < len(TRUCO_LADDER) else None


def value_if_declined(call: CallKind) -> int:
    """No quiero gives the caller the value before the call: 1 for truco, 2 for retruco, 3 for vale cuatro."""
    return VALUE_IF_ACCEPTED[call] - 1
