"""Events: what happened, in the past tense. The state of a match is the fold of its events.

Some events carry what only the rules' referee may know (the deck order of a deal, a seña); per-seat
projections are in :mod:`truco.engine.views`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .calls import CallKind
from .cards import Card
from .deal import CardProof
from .rules import RuleSet
from .senas import Sena


class ScoreReason(enum.Enum):
    """Why points were credited."""

    ENVIDO = "ENVIDO"
    ENVIDO_DECLINED = "ENVIDO_DECLINED"
    FLOR = "FLOR"
    FLOR_DECLINED = "FLOR_DECLINED"
    HAND = "HAND"
    TRUCO_DECLINED = "TRUCO_DECLINED"
    MAZO = "MAZO"


class HandEnd(enum.Enum):
    """How a hand ended."""

    ROUNDS = "ROUNDS"
    """Decided by the rounds played (with the pardas rules)."""
    TRUCO_DECLINED = "TRUCO_DECLINED"
    MAZO = "MAZO"
    MATCH_ENDED = "MATCH_ENDED"
    """A team reached the target before the hand was decided."""
    FORFEIT = "FORFEIT"
    """A team conceded the match (its turn clock ran out) before the hand was decided."""


@dataclass(init=False, frozen=True, slots=True)
class MatchStarted:
    rules: RuleSet
    first_dealer: int

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, rules: RuleSet, first_dealer: int) -> None:
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "first_dealer", first_dealer)


@dataclass(init=False, frozen=True, slots=True)
class PerrosCalled:
    seat: int

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(init=False, frozen=True, slots=True)
class PerrosSkipped:
    seat: int

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(init=False, frozen=True, slots=True)
class HandDealt:
    """A hand was dealt. As recorded it holds the secret ``order`` and ``salt`` (the deal's secret, from which
    each position's salt is derived) and leaves the last four fields empty; as a seat or spectator receives
    it (:func:`truco.engine.views.event_for`) the secrets are blank and the four fields are filled.

    :ivar number: 1 for the first hand of the match.
    :ivar seats: the seats that play this hand, from the mano in playing order (two in pico a pico).
    :ivar commitments: (projection) the 40 per-position commitments, in deck order.
    :ivar commitment: (projection) their digest, :func:`truco.engine.deal.deal_digest`.
    :ivar muestra: (projection) the muestra's proof: the muestra is public from the deal.
    :ivar own: (projection) the receiving seat's own three cards' proofs (empty for spectators and rivals).
    """

    number: int
    dealer: int
    seats: tuple[int, ...]
    pico: bool
    order: tuple[Card, ...]
    salt: str
    commitments: tuple[str, ...] = ()
    commitment: str = ""
    muestra: CardProof | None = None
    own: tuple[CardProof, ...] = ()

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(
        self,
        number: int,
        dealer: int,
        seats: tuple[int, ...],
        pico: bool,
        order: tuple[Card, ...],
        salt: str,
        commitments: tuple[str, ...] = (),
        commitment: str = "",
        muestra: CardProof | None = None,
        own: tuple[CardProof, ...] = (),
    ) -> None:
        object.__setattr__(self, "number", number)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "pico", pico)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "salt", salt)
        object.__setattr__(self, "commitments", commitments)
        object.__setattr__(self, "commitment", commitment)
        object.__setattr__(self, "muestra", muestra)
        object.__setattr__(self, "own", own)


@dataclass(init=False, frozen=True, slots=True)
class FlorSung:
    seat: int

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(init=False, frozen=True, slots=True)
class CardPlayed:
    """A card was played. ``proof`` (its position and salt) is filled in what seats and spectators receive."""

    seat: int
    card: Card
    proof: CardProof | None = None

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int, card: Card, proof: CardProof | None = None) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "proof", proof)


@dataclass(init=False, frozen=True, slots=True)
class RoundEnded:
    """Round ``round`` (0, 1, 2) ended; ``winner_team`` None for a parda."""

    round: int
    winner_team: int | None
    winning_seat: int | None

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, round: int, winner_team: int | None, winning_seat: int | None) -> None:
        object.__setattr__(self, "round", round)
        object.__setattr__(self, "winner_team", winner_team)
        object.__setattr__(self, "winning_seat", winning_seat)


@dataclass(init=False, frozen=True, slots=True)
class CallMade:
    seat: int
    call: CallKind

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int, call: CallKind) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "call", call)


@dataclass(init=False, frozen=True, slots=True)
class CallAccepted:
    seat: int
    call: CallKind

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int, call: CallKind) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "call", call)


@dataclass(init=False, frozen=True, slots=True)
class CallDeclined:
    seat: int
    call: CallKind

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int, call: CallKind) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "call", call)


@dataclass(frozen=True, slots=True)
class EnvidoVoided:
    """A flor voided every envido bet made before it."""


@dataclass(init=False, frozen=True, slots=True)
class EnvidoSettled:
    """The envido was played: only the winning seat and its points are announced."""

    winner_seat: int
    points: int

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, winner_seat: int, points: int) -> None:
        object.__setattr__(self, "winner_seat", winner_seat)
        object.__setattr__(self, "points", points)


@dataclass(init=False, frozen=True, slots=True)
class FlorSettled:
    """The flores of the hand were counted. ``winner_seat``/``points`` name the best flor when both teams
    sang (a contest); they are None when only one team had flor or the contest was refused."""

    winner_seat: int | None
    points: int | None

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, winner_seat: int | None, points: int | None) -> None:
        object.__setattr__(self, "winner_seat", winner_seat)
        object.__setattr__(self, "points", points)


@dataclass(init=False, frozen=True, slots=True)
class PerrosAnswered:
    seat: int
    en_ley: bool
    accept_envido: bool
    accept_truco: bool

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int, en_ley: bool, accept_envido: bool, accept_truco: bool) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "en_ley", en_ley)
        object.__setattr__(self, "accept_envido", accept_envido)
        object.__setattr__(self, "accept_truco", accept_truco)


@dataclass(init=False, frozen=True, slots=True)
class WentToMazo:
    seat: int

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(init=False, frozen=True, slots=True)
class SenaSent:
    """Seen only by the sender's teammates."""

    seat: int
    sena: Sena

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int, sena: Sena) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "sena", sena)


@dataclass(init=False, frozen=True, slots=True)
class PointsScored:
    team: int
    points: int
    reason: ScoreReason

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, team: int, points: int, reason: ScoreReason) -> None:
        object.__setattr__(self, "team", team)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "reason", reason)


@dataclass(init=False, frozen=True, slots=True)
class HandEnded:
    """The hand ended. What the rules reveal is revealed here: the cards of the envido and flor winners. No
    other card is revealed: cards never played or shown stay sealed for ever.

    :ivar shown: (seat, its three cards) for each seat whose cards the rules show.
    :ivar proofs: (projection) the proofs of the shown cards, filled in what seats and spectators receive.
    """

    winner_team: int | None
    end: HandEnd
    shown: tuple[tuple[int, tuple[Card, ...]], ...]
    proofs: tuple[CardProof, ...] = ()

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(
        self,
        winner_team: int | None,
        end: HandEnd,
        shown: tuple[tuple[int, tuple[Card, ...]], ...],
        proofs: tuple[CardProof, ...] = (),
    ) -> None:
        object.__setattr__(self, "winner_team", winner_team)
        object.__setattr__(self, "end", end)
        object.__setattr__(self, "shown", shown)
        object.__setattr__(self, "proofs", proofs)


@dataclass(init=False, frozen=True, slots=True)
class MatchEnded:
    winner_team: int

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, winner_team: int) -> None:
        object.__setattr__(self, "winner_team", winner_team)


@dataclass(init=False, frozen=True, slots=True)
class ClockExpired:
    """The referee says ``seat``'s turn clock ran out at ``deadline_us`` (microseconds since the epoch).

    Time is data here: the referee measured it and the engine never reads a clock. With ``forfeit`` the seat's
    team concedes the match (the hand and the match end next); without it a bot plays the seat from now on
    (the seat is *away* until :class:`SeatResumed`).
    """

    seat: int
    deadline_us: int
    forfeit: bool

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int, deadline_us: int, forfeit: bool) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "deadline_us", deadline_us)
        object.__setattr__(self, "forfeit", forfeit)


@dataclass(init=False, frozen=True, slots=True)
class SeatLeft:
    """The seat's player left the table: the seat is away (a bot plays it) until :class:`SeatResumed`."""

    seat: int

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(init=False, frozen=True, slots=True)
class SeatResumed:
    """The seat's player is back: the seat is no longer away."""

    seat: int

    # __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit
    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


Event = (
    MatchStarted
    | PerrosCalled
    | PerrosSkipped
    | HandDealt
    | FlorSung
    | CardPlayed
    | RoundEnded
    | CallMade
    | CallAccepted
    | CallDeclined
    | EnvidoVoided
    | EnvidoSettled
    | FlorSettled
    | PerrosAnswered
    | WentToMazo
    | SenaSent
    | PointsScored
    | HandEnded
    | MatchEnded
    | ClockExpired
    | SeatLeft
    | SeatResumed
)
