"""Events: what happened, in the past tense. The state of a match is the fold of its events.

Some events carry what only the rules' referee may know (the deck order of a deal, a seña); per-seat
projections are in :mod:`truco.engine.views`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ._inits import (
    CallAcceptedInit,
    CallDeclinedInit,
    CallMadeInit,
    CardPlayedInit,
    ClockExpiredInit,
    EnvidoSettledInit,
    FlorSettledInit,
    FlorSungInit,
    HandDealtInit,
    HandEndedInit,
    MatchEndedInit,
    MatchStartedInit,
    PerrosAnsweredInit,
    PerrosCalledInit,
    PerrosSkippedInit,
    PointsScoredInit,
    RoundEndedInit,
    SeatLeftInit,
    SeatResumedInit,
    SenaSentInit,
    WentToMazoInit,
)
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
class MatchStarted(MatchStartedInit):
    rules: RuleSet
    first_dealer: int


@dataclass(init=False, frozen=True, slots=True)
class PerrosCalled(PerrosCalledInit):
    seat: int


@dataclass(init=False, frozen=True, slots=True)
class PerrosSkipped(PerrosSkippedInit):
    seat: int


@dataclass(init=False, frozen=True, slots=True)
class HandDealt(HandDealtInit):
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


@dataclass(init=False, frozen=True, slots=True)
class FlorSung(FlorSungInit):
    seat: int


@dataclass(init=False, frozen=True, slots=True)
class CardPlayed(CardPlayedInit):
    """A card was played. ``proof`` (its position and salt) is filled in what seats and spectators receive."""

    seat: int
    card: Card
    proof: CardProof | None = None


@dataclass(init=False, frozen=True, slots=True)
class RoundEnded(RoundEndedInit):
    """Round ``round`` (0, 1, 2) ended; ``winner_team`` None for a parda."""

    round: int
    winner_team: int | None
    winning_seat: int | None


@dataclass(init=False, frozen=True, slots=True)
class CallMade(CallMadeInit):
    seat: int
    call: CallKind


@dataclass(init=False, frozen=True, slots=True)
class CallAccepted(CallAcceptedInit):
    seat: int
    call: CallKind


@dataclass(init=False, frozen=True, slots=True)
class CallDeclined(CallDeclinedInit):
    seat: int
    call: CallKind


@dataclass(frozen=True, slots=True)
class EnvidoVoided:
    """A flor voided every envido bet made before it."""


@dataclass(init=False, frozen=True, slots=True)
class EnvidoSettled(EnvidoSettledInit):
    """The envido was played: only the winning seat and its points are announced."""

    winner_seat: int
    points: int


@dataclass(init=False, frozen=True, slots=True)
class FlorSettled(FlorSettledInit):
    """The flores of the hand were counted. ``winner_seat``/``points`` name the best flor when both teams
    sang (a contest); they are None when only one team had flor or the contest was refused."""

    winner_seat: int | None
    points: int | None


@dataclass(init=False, frozen=True, slots=True)
class PerrosAnswered(PerrosAnsweredInit):
    seat: int
    en_ley: bool
    accept_envido: bool
    accept_truco: bool


@dataclass(init=False, frozen=True, slots=True)
class WentToMazo(WentToMazoInit):
    seat: int


@dataclass(init=False, frozen=True, slots=True)
class SenaSent(SenaSentInit):
    """Seen only by the sender's teammates."""

    seat: int
    sena: Sena


@dataclass(init=False, frozen=True, slots=True)
class PointsScored(PointsScoredInit):
    team: int
    points: int
    reason: ScoreReason


@dataclass(init=False, frozen=True, slots=True)
class HandEnded(HandEndedInit):
    """The hand ended. What the rules reveal is revealed here: the cards of the envido and flor winners. No
    other card is revealed: cards never played or shown stay sealed for ever.

    :ivar shown: (seat, its three cards) for each seat whose cards the rules show.
    :ivar proofs: (projection) the proofs of the shown cards, filled in what seats and spectators receive.
    """

    winner_team: int | None
    end: HandEnd
    shown: tuple[tuple[int, tuple[Card, ...]], ...]
    proofs: tuple[CardProof, ...] = ()


@dataclass(init=False, frozen=True, slots=True)
class MatchEnded(MatchEndedInit):
    winner_team: int


@dataclass(init=False, frozen=True, slots=True)
class ClockExpired(ClockExpiredInit):
    """The referee says ``seat``'s turn clock ran out at ``deadline_us`` (microseconds since the epoch).

    Time is data here: the referee measured it and the engine never reads a clock. With ``forfeit`` the seat's
    team concedes the match (the hand and the match end next); without it a bot plays the seat from now on
    (the seat is *away* until :class:`SeatResumed`).
    """

    seat: int
    deadline_us: int
    forfeit: bool


@dataclass(init=False, frozen=True, slots=True)
class SeatLeft(SeatLeftInit):
    """The seat's player left the table: the seat is away (a bot plays it) until :class:`SeatResumed`."""

    seat: int


@dataclass(init=False, frozen=True, slots=True)
class SeatResumed(SeatResumedInit):
    """The seat's player is back: the seat is no longer away."""

    seat: int


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
