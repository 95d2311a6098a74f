"""Commands: what a seat (or, for the deal, the dealer machinery) asks to do. Each is a frozen value."""

from __future__ import annotations

from dataclasses import dataclass

from ._inits import (
    AnswerInit,
    AnswerPerrosInit,
    CallInit,
    CallPerrosInit,
    DealInit,
    GoToMazoInit,
    PlayCardInit,
    SendSenaInit,
    SkipPerrosInit,
)
from .calls import CallKind
from .cards import Card
from .senas import Sena


@dataclass(init=False, frozen=True, slots=True)
class PlayCard(PlayCardInit):
    """Play ``card`` from the seat's hand to the current round, on the seat's turn."""

    seat: int
    card: Card


@dataclass(init=False, frozen=True, slots=True)
class Call(CallInit):
    """Make a call: a grito, an envido or a flor raise. Made while a call of the same family is pending
    against the seat's team, it answers that call by raising it ("quiero retruco", "envido envido")."""

    seat: int
    call: CallKind


@dataclass(init=False, frozen=True, slots=True)
class Answer(AnswerInit):
    """Answer the call pending against the seat's team: quiero (``accept``) or no quiero.

    :ivar call: the call answered. None answers whatever is pending; a call that is not the pending one is
        refused (``CALL_MISMATCH``), so a client's quiero never accepts another call than the one it showed.
        Legal actions always name it.
    """

    seat: int
    accept: bool
    call: CallKind | None = None


@dataclass(init=False, frozen=True, slots=True)
class GoToMazo(GoToMazoInit):
    """Me voy al mazo: the seat's team concedes the hand."""

    seat: int


@dataclass(init=False, frozen=True, slots=True)
class SendSena(SendSenaInit):
    """Send a seña that only the seat's teammates will see."""

    seat: int
    sena: Sena


@dataclass(init=False, frozen=True, slots=True)
class CallPerros(CallPerrosInit):
    """Echar los perros: before the deal, the dealing team calls contra flor al resto, falta envido and truco."""

    seat: int


@dataclass(init=False, frozen=True, slots=True)
class SkipPerros(SkipPerrosInit):
    """Let the hand be dealt without echar los perros."""

    seat: int


@dataclass(init=False, frozen=True, slots=True)
class AnswerPerros(AnswerPerrosInit):
    """The rivals' answer to the perros, for the whole team.

    :ivar accept_envido: en ley (the team has flor), accept the contra flor al resto; a punto, the falta envido.
    :ivar accept_truco: accept the truco.
    """

    seat: int
    accept_envido: bool
    accept_truco: bool


@dataclass(init=False, frozen=True, slots=True)
class Deal(DealInit):
    """Deal the next hand from ``order`` (all 40 cards) with the secret ``salt`` of its commitment.

    Not a seat's command: the service builds it from a cryptographically secure source.
    """

    order: tuple[Card, ...]
    salt: str


SeatCommand = PlayCard | Call | Answer | GoToMazo | SendSena | CallPerros | SkipPerros | AnswerPerros
Command = SeatCommand | Deal
