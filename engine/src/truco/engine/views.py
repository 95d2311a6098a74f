"""What each seat, and a spectator, may see. This is the only door hidden information leaves the engine by.

A seat sees its own unplayed cards, the señas its teammates sent, and everything public: the muestra, the
cards played, calls and answers, envido and flor results, scores. Another seat's unplayed cards appear only
where the rules reveal them: the ``shown`` hands and the deck order once the hand has ended.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, replace

from .calls import CallKind
from .cards import Card
from .commands import SeatCommand
from .events import Event, HandDealt, SenaSent
from .legal import actors, legal_actions
from .rules import RuleSet
from .senas import Sena
from .state import HandState, MatchState, Phase, advances_version
from .tantos import envido_points, flor_points, has_flor
from .tricks import team_of


class Standing(enum.Enum):
    """A team is en malas below half the target and en buenas from it."""

    MALAS = "MALAS"
    BUENAS = "BUENAS"


@dataclass(frozen=True, slots=True)
class PendingCallView:
    call: CallKind
    seat: int
    team: int


@dataclass(frozen=True, slots=True)
class HandView:
    """The public face of a hand.

    :ivar rounds: the cards played in each round so far, as (seat, card) in playing order.
    :ivar results: the team that took each finished round, None for a parda.
    :ivar cards_left: how many unplayed cards each seat of the hand holds.
    :ivar envido_winner: (seat, points) once the envido was played.
    :ivar flor_winner: (seat, flor points) of the best flor when two teams' flores were compared.
    :ivar shown: hands the rules show at the end (envido winner, flores), as (seat, three cards).
    :ivar revealed_order: the deck order, once the hand has ended; with ``revealed_salt`` it must hash to
        ``commitment``.
    """

    number: int
    dealer: int
    mano: int
    seats: tuple[int, ...]
    pico: bool
    muestra: Card
    commitment: str
    rounds: tuple[tuple[tuple[int, Card], ...], ...]
    results: tuple[int | None, ...]
    turn: int | None
    cards_left: tuple[tuple[int, int], ...]
    truco_value: int
    truco_owner: int | None
    pending: PendingCallView | None
    envido_chain: tuple[CallKind, ...]
    envido_closed: bool
    envido_winner: tuple[int, int] | None
    flor_sung: tuple[int, ...]
    flor_chain: tuple[CallKind, ...]
    flor_winner: tuple[int, int] | None
    perros_by: int | None
    perros_pending: bool
    points: tuple[int, int]
    ended: bool
    winner_team: int | None
    shown: tuple[tuple[int, tuple[Card, ...]], ...]
    revealed_order: tuple[Card, ...] | None
    revealed_salt: str | None


@dataclass(frozen=True, slots=True)
class SpectatorView:
    """Everything public about a match.

    :ivar version: the number of public events so far (señas are not counted: rivals never learn of one).
    :ivar to_act: the seats the match waits for (the turn, or the team that must answer a call).
    """

    rules: RuleSet
    version: int
    phase: Phase
    scores: tuple[int, int]
    standings: tuple[Standing, Standing]
    hand: HandView | None
    to_act: tuple[int, ...]
    next_dealer: int | None
    winner: int | None


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat may see: the public view plus its own cards, its teammates' señas and its legal actions.

    :ivar cards: the seat's unplayed cards in this hand (empty when it sits the hand out).
    :ivar envido: the seat's envido points (None without cards, or with flor when flor is played).
    :ivar flor: the seat's flor points, None when its hand has no flor or flor is not played.
    :ivar senas: (teammate seat, seña) received this hand.
    """

    seat: int
    team: int
    public: SpectatorView
    cards: tuple[Card, ...]
    envido: int | None
    flor: int | None
    senas: tuple[tuple[int, Sena], ...]
    legal_actions: tuple[SeatCommand, ...]


def standing(rules: RuleSet, score: int) -> Standing:
    return Standing.BUENAS if score >= rules.buenas_from else Standing.MALAS


def spectator_view(state: MatchState) -> SpectatorView:
    """The public view of ``state``."""
    rules = state.rules
    scores = (state.scores[0], state.scores[1])
    hand = state.hand
    waiting_deal = state.phase in (Phase.AWAITING_DEAL, Phase.AWAITING_PERROS)
    return SpectatorView(
        rules=rules,
        version=state.version,
        phase=state.phase,
        scores=scores,
        standings=(standing(rules, scores[0]), standing(rules, scores[1])),
        hand=_hand_view(hand) if hand is not None else None,
        to_act=actors(state),
        next_dealer=state.plan.dealer if waiting_deal and state.plan is not None else None,
        winner=state.winner,
    )


def seat_view(state: MatchState, seat: int) -> SeatView:
    """What ``seat`` may see of ``state``. :raises ValueError: for a seat the match does not have."""
    if not 0 <= seat < state.rules.players:
        raise ValueError(f"seat must be 0 to {state.rules.players - 1}")
    hand = state.hand
    cards: tuple[Card, ...] = ()
    envido: int | None = None
    flor: int | None = None
    senas: tuple[tuple[int, Sena], ...] = ()
    if hand is not None and seat in hand.seats:
        cards = tuple(hand.unplayed[seat])
        dealt = hand.dealt[seat]
        holds_flor = state.rules.flor and has_flor(dealt, hand.muestra)
        flor = flor_points(dealt, hand.muestra) if holds_flor else None
        envido = None if holds_flor else envido_points(dealt, hand.muestra)
        team = team_of(seat)
        senas = tuple((s, sena) for s, sena in hand.senas if s != seat and team_of(s) == team)
    return SeatView(
        seat=seat,
        team=team_of(seat),
        public=spectator_view(state),
        cards=cards,
        envido=envido,
        flor=flor,
        senas=senas,
        legal_actions=tuple(legal_actions(state, seat)),
    )


def _hand_view(hand: HandState) -> HandView:
    pending = hand.pending
    rounds = tuple(tuple(plays) for plays in hand.rounds if plays)
    return HandView(
        number=hand.number,
        dealer=hand.dealer,
        mano=hand.mano,
        seats=hand.seats,
        pico=hand.pico,
        muestra=hand.muestra,
        commitment=hand.commitment,
        rounds=rounds,
        results=tuple(hand.results),
        # Nobody may play while a call or the perros wait for an answer: the turn resumes after it.
        turn=None if hand.ended or pending is not None or hand.perros_pending else hand.turn,
        cards_left=tuple((seat, len(hand.unplayed[seat])) for seat in hand.seats),
        truco_value=hand.truco_value,
        truco_owner=hand.truco_owner,
        pending=PendingCallView(pending.call, pending.seat, pending.team) if pending else None,
        envido_chain=tuple(hand.envido_chain),
        envido_closed=hand.envido_closed,
        envido_winner=hand.envido_winner,
        flor_sung=tuple(hand.flor_sung),
        flor_chain=tuple(hand.flor_chain),
        flor_winner=hand.flor_winner,
        perros_by=hand.perros_by,
        perros_pending=hand.perros_pending,
        points=(hand.points[0], hand.points[1]),
        ended=hand.ended,
        winner_team=hand.winner_team,
        shown=hand.shown,
        revealed_order=hand.order if hand.ended else None,
        revealed_salt=hand.salt if hand.ended else None,
    )


def audience(event: Event) -> int | None:
    """The only team that may see ``event`` at all, or None when every seat and spectator may (perhaps
    redacted: see :func:`event_for`). A seña is for the sender's team alone."""
    return team_of(event.seat) if isinstance(event, SenaSent) else None


def event_for(event: Event, seat: int | None) -> Event | None:
    """The event as ``seat`` (None: a spectator) may see it, or None when it must not see it at all.

    A deal's order and salt are blanked (the seat's own cards reach it through :func:`seat_view`); an event
    with an :func:`audience` (a seña) is seen only by that team; everything else is public.
    """
    if isinstance(event, HandDealt):
        return replace(event, order=(), salt="")
    team = audience(event)
    if team is not None and (seat is None or team_of(seat) != team):
        return None
    return event  # HandEnded included: once the hand is over its salt and order are revealed to all


def events_for(events: Iterable[Event], seat: int | None, version_before: int) -> list[tuple[Event, int]]:
    """The events (applied in this order after public version ``version_before``) as ``seat`` may see them,
    each with the public version after it: a seña keeps the version of the event before it
    (:func:`~truco.engine.state.advances_version`)."""
    version = version_before
    out: list[tuple[Event, int]] = []
    for event in events:
        if advances_version(event):
            version += 1
        visible = event_for(event, seat)
        if visible is not None:
            out.append((visible, version))
    return out
