"""The two ways a command can fail, each with a stable machine reason.

A malformed command (a seat that does not exist, a deck that is not a permutation) is an
:class:`InvalidCommand`; a well-formed command the rules do not allow now is a :class:`RuleViolation`.
A service maps the first to INVALID_ARGUMENT and the second to FAILED_PRECONDITION. Messages never name a
card the caller does not hold.
"""

from __future__ import annotations

import enum


class Reason(enum.Enum):
    """Stable reason codes. Values are the wire names; never rename one once released."""

    # Malformed input.
    INVALID_SEAT = "INVALID_SEAT"
    INVALID_DEAL = "INVALID_DEAL"
    INVALID_COMMAND = "INVALID_COMMAND"
    # Phase of the match.
    MATCH_OVER = "MATCH_OVER"
    HAND_NOT_IN_PLAY = "HAND_NOT_IN_PLAY"
    DEAL_NOT_EXPECTED = "DEAL_NOT_EXPECTED"
    NOT_IN_THIS_HAND = "NOT_IN_THIS_HAND"
    # Turn and answers.
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    CALL_PENDING = "CALL_PENDING"
    NO_CALL_PENDING = "NO_CALL_PENDING"
    ANSWER_NOT_YOURS = "ANSWER_NOT_YOURS"
    CALL_MISMATCH = "CALL_MISMATCH"
    # Cards.
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    # Truco.
    RAISE_NOT_YOURS = "RAISE_NOT_YOURS"
    TRUCO_AT_MAXIMUM = "TRUCO_AT_MAXIMUM"
    TRUCO_OUT_OF_ORDER = "TRUCO_OUT_OF_ORDER"
    # Envido.
    ENVIDO_CLOSED = "ENVIDO_CLOSED"
    ENVIDO_RAISE_INVALID = "ENVIDO_RAISE_INVALID"
    # Flor.
    FLOR_DISABLED = "FLOR_DISABLED"
    NO_FLOR_CONTEST = "NO_FLOR_CONTEST"
    FLOR_RAISE_INVALID = "FLOR_RAISE_INVALID"
    # Señas.
    SENAS_DISABLED = "SENAS_DISABLED"
    SENA_NOT_ALLOWED = "SENA_NOT_ALLOWED"
    # Echar los perros.
    PERROS_DISABLED = "PERROS_DISABLED"
    PERROS_NOT_NOW = "PERROS_NOT_NOW"
    PERROS_NOT_YOUR_TEAM = "PERROS_NOT_YOUR_TEAM"
    PERROS_ANSWER_PENDING = "PERROS_ANSWER_PENDING"


class CommandError(ValueError):
    """Base of the engine's command errors: a reason code and a human message."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.reason.value}: {self.message})"


class InvalidCommand(CommandError):
    """The command is malformed: no state would accept it."""


class RuleViolation(CommandError):
    """The command is well formed but the rules do not allow it in this state."""
