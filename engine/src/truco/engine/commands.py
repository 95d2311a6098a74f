"""Commands: what a seat (or, for the deal, the dealer machinery) asks to do. Each is a frozen value."""

from __future__ import annotations

from dataclasses import dataclass

from .calls import CallKind
from .cards import Card
from .senas import Sena


@dataclass(init=False, frozen=True, slots=True)
class PlayCard:
    """Play ``card`` from the seat's hand to the current round, on the seat's turn."""

    seat: int
    card: Card

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int, card: Card) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)


@dataclass(init=False, frozen=True, slots=True)
class Call:
    """Make a call: a grito, an envido or a flor raise. Made while a call of the same family is pending
    against the seat's team, it answers that call by raising it ("quiero retruco", "envido envido")."""

    seat: int
    call: CallKind

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int, call: CallKind) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "call", call)


@dataclass(init=False, frozen=True, slots=True)
class Answer:
    """Answer the call pending against the seat's team: quiero (``accept``) or no quiero.

    :ivar call: the call answered. None answers whatever is pending; a call that is not the pending one is
        refused (``CALL_MISMATCH``), so a client's quiero never accepts another call than the one it showed.
        Legal actions always name it.
    """

    seat: int
    accept: bool
    call: CallKind | None = None

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int, accept: bool, call: CallKind | None = None) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "accept", accept)
        object.__setattr__(self, "call", call)


@dataclass(init=False, frozen=True, slots=True)
class GoToMazo:
    """Me voy al mazo: the seat's team concedes the hand."""

    seat: int

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(init=False, frozen=True, slots=True)
class SendSena:
    """Send a seña that only the seat's teammates will see."""

    seat: int
    sena: Sena

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int, sena: Sena) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "sena", sena)


@dataclass(init=False, frozen=True, slots=True)
class CallPerros:
    """Echar los perros: before the deal, the dealing team calls contra flor al resto, falta envido and truco."""

    seat: int

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(init=False, frozen=True, slots=True)
class SkipPerros:
    """Let the hand be dealt without echar los perros."""

    seat: int

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(init=False, frozen=True, slots=True)
class AnswerPerros:
    """The rivals' answer to the perros, for the whole team.

    :ivar accept_envido: en ley (the team has flor), accept the contra flor al resto; a punto, the falta envido.
    :ivar accept_truco: accept the truco.
    """

    seat: int
    accept_envido: bool
    accept_truco: bool

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int, accept_envido: bool, accept_truco: bool) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "accept_envido", accept_envido)
        object.__setattr__(self, "accept_truco", accept_truco)


@dataclass(init=False, frozen=True, slots=True)
class Deal:
    """Deal the next hand from ``order`` (all 40 cards) with the secret ``salt`` of its commitment.

    Not a seat's command: the service builds it from a cryptographically secure source.
    """

    order: tuple[Card, ...]
    salt: str

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, order: tuple[Card, ...], salt: str) -> None:
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "salt", salt)


SeatCommand = PlayCard | Call | Answer | GoToMazo | SendSena | CallPerros | SkipPerros | AnswerPerros
Command = SeatCommand | Deal
