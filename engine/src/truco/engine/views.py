"""What each seat, and a spectator, may see. This is the only door hidden information leaves the engine by.

A seat sees its own unplayed cards (with their fair-deal proofs), the señas its teammates sent, and
everything public: the muestra, the cards played, calls and answers, envido and flor results, scores, the
deal's per-card commitments and the proofs of the public cards. Another seat's unplayed cards appear only
where the rules reveal them: the ``shown`` hands once the hand has ended. A card never played or shown is
never revealed, nor is its salt.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from . import envido, flor
from ._inits import HandSummaryInit, HandViewInit, PendingCallViewInit, SeatViewInit, SpectatorViewInit
from .calls import CallKind, Family
from .cards import Card
from .commands import SeatCommand
from .deal import CardProof, DealProofs, deal_proofs
from .events import CardPlayed, Event, HandDealt, HandEnd, HandEnded, ScoreReason, SenaSent
from .legal import actors, legal_actions
from .rules import RuleSet
from .senas import Sena
from .state import HandState, MatchState, Phase, advances_version
from .tantos import envido_points, flor_points, has_flor
from .tricks import team_of
from .truco_calls import VALUE_IF_ACCEPTED


class Standing(enum.Enum):
    """A team is en malas below half the target and en buenas from it."""

    MALAS = "MALAS"
    BUENAS = "BUENAS"


@dataclass(init=False, frozen=True, slots=True)
class PendingCallView(PendingCallViewInit):
    """A call awaiting an answer.

    :ivar seat: who made it (its owner); ``team`` is the owner's team, the other team answers.
    :ivar value: the points it puts at stake if accepted, from public facts: a grito, what the hand is then
        worth; an envido chain, its sum (a falta envido: the falta for the caller's team); a flor call, 3 per
        flor sung so far plus the raises (a contra flor al resto: the falta).
    """

    call: CallKind
    seat: int
    team: int
    value: int = 0


@dataclass(init=False, frozen=True, slots=True)
class HandView(HandViewInit):
    """The public face of a hand.

    :ivar rounds: the cards played in each round so far, as (seat, card) in playing order.
    :ivar results: the team that took each finished round, None for a parda.
    :ivar cards_left: how many unplayed cards each seat of the hand holds.
    :ivar envido_winner: (seat, points) once the envido was played.
    :ivar flor_winner: (seat, flor points) of the best flor when two teams' flores were compared.
    :ivar shown: hands the rules show at the end (envido winner, flores), as (seat, three cards).
    :ivar pending: the call that must be answered first (the top of ``pending_calls``).
    :ivar pending_calls: every call awaiting an answer, bottom first: a grito, then an envido or flor call
        waiting on top of it.
    :ivar commitments: the deal's 40 per-position commitments (deck order); ``commitment`` is their digest.
    :ivar proofs: the proofs of every public card so far: the muestra, the cards played, the hands shown.
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
    pending_calls: tuple[PendingCallView, ...]
    commitments: tuple[str, ...]
    proofs: tuple[CardProof, ...]


@dataclass(init=False, frozen=True, slots=True)
class HandSummary(HandSummaryInit):
    """How the last hand ended, kept in the view from its end until the next hand's first action (a move that
    ends a hand also deals the next one).

    :ivar results: the team that took each round played, None for a parda.
    :ivar scored: every credit of the hand, in order, as (team, points, reason).
    :ivar shown: the hands the rules showed, as (seat, three cards), and ``proofs`` their proofs.
    :ivar envido_winner: (seat, points) if the envido was played; ``flor_winner`` likewise for a flor contest.
    """

    number: int
    winner_team: int | None
    end: HandEnd | None
    results: tuple[int | None, ...]
    points: tuple[int, int]
    scored: tuple[tuple[int, int, ScoreReason], ...]
    shown: tuple[tuple[int, tuple[Card, ...]], ...]
    proofs: tuple[CardProof, ...]
    envido_winner: tuple[int, int] | None
    flor_winner: tuple[int, int] | None


@dataclass(init=False, frozen=True, slots=True)
class SpectatorView(SpectatorViewInit):
    """Everything public about a match.

    :ivar version: the number of public events so far (señas are not counted: rivals never learn of one).
    :ivar to_act: the seats the match waits for (the turn, or the team that must answer a call).
    :ivar last_hand: how the last finished hand ended, until the next hand's first action.
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
    last_hand: HandSummary | None = None


@dataclass(init=False, frozen=True, slots=True)
class SeatView(SeatViewInit):
    """What one seat may see: the public view plus its own cards, its teammates' señas and its legal actions.

    :ivar cards: the seat's unplayed cards in this hand (empty when it sits the hand out).
    :ivar envido: the seat's envido points (None without cards, or with flor when flor is played).
    :ivar flor: the seat's flor points, None when its hand has no flor or flor is not played.
    :ivar senas: (teammate seat, seña) received this hand.
    :ivar own_proofs: the proofs of the seat's three dealt cards (position, card, salt), to check its hand
        against the deal's commitments; only this seat receives them.
    """

    seat: int
    team: int
    public: SpectatorView
    cards: tuple[Card, ...]
    envido: int | None
    flor: int | None
    senas: tuple[tuple[int, Sena], ...]
    legal_actions: tuple[SeatCommand, ...]
    own_proofs: tuple[CardProof, ...] = ()


def standing(rules: RuleSet, score: int) -> Standing:
    return Standing.BUENAS if score >= rules.buenas_from else Standing.MALAS


def spectator_view(state: MatchState, *, proofs: bool = True) -> SpectatorView:
    """The public view of ``state``. ``proofs=False`` leaves the fair-deal commitments and proofs out (empty),
    for players that do not check them (bots): computing them is the costliest part of a view."""
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
        hand=_hand_view(state, hand, proofs) if hand is not None else None,
        to_act=actors(state),
        next_dealer=state.plan.dealer if waiting_deal and state.plan is not None else None,
        winner=state.winner,
        last_hand=_summary(state.last_hand, proofs) if state.last_hand is not None else None,
    )


def seat_view(
    state: MatchState, seat: int, *, proofs: bool = True, public: SpectatorView | None = None
) -> SeatView:
    """What ``seat`` may see of ``state``. :raises ValueError: for a seat the match does not have.

    ``proofs=False`` leaves the fair-deal commitments and proofs out, as for :func:`spectator_view`. ``public``:
    ``spectator_view(state, proofs=proofs)`` when the caller has it already (it is every seat's), so that each
    seat's view of one state does not compute it again."""
    if not 0 <= seat < state.rules.players:
        raise ValueError(f"seat must be 0 to {state.rules.players - 1}")
    hand = state.hand
    cards: tuple[Card, ...] = ()
    envido: int | None = None
    flor: int | None = None
    senas: tuple[tuple[int, Sena], ...] = ()
    own: tuple[CardProof, ...] = ()
    if hand is not None and seat in hand.seats:
        if proofs:
            own = _own_proofs(_deal_proofs(hand), hand.order, hand.seats, seat)
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
        public=public if public is not None else spectator_view(state, proofs=proofs),
        cards=cards,
        envido=envido,
        flor=flor,
        senas=senas,
        legal_actions=tuple(legal_actions(state, seat)),
        own_proofs=own,
    )


class DealRecord(Protocol):
    """Where a deal's secrets live: a ``HandDealt`` event as recorded, or a hand's state."""

    @property
    def order(self) -> tuple[Card, ...]: ...
    @property
    def salt(self) -> str: ...
    @property
    def seats(self) -> tuple[int, ...]: ...


def _deal_proofs(deal: DealRecord) -> DealProofs:
    """The deal's salts and commitments: a hand's state computes them once and keeps them for its copies."""
    if isinstance(deal, HandState):
        found = deal.proofs
        if found is None:
            found = deal.proofs = deal_proofs(deal.order, deal.salt)
        return found
    return deal_proofs(deal.order, deal.salt)


def _own_proofs(proofs: DealProofs, order: Sequence[Card], seats: tuple[int, ...], seat: int) -> tuple[CardProof, ...]:
    """The proofs of ``seat``'s three cards: the k-th card of the p-th seat from the mano is position k·n + p."""
    n, p = len(seats), seats.index(seat)
    return tuple(proofs.proof(order, k * n + p) for k in range(3))


def _proofs_of(deal: DealRecord, cards: Sequence[Card]) -> tuple[CardProof, ...]:
    """The proofs of public ``cards`` of the deal (each is among its dealt cards or the muestra)."""
    order, proofs = deal.order, _deal_proofs(deal)
    return tuple(proofs.proof(order, order.index(card)) for card in cards)


def _public_proofs(hand: HandState) -> tuple[CardProof, ...]:
    """The muestra, the cards played, and once the hand has ended the hands shown: each card once."""
    public = [hand.muestra]
    public += [card for plays in hand.rounds for _, card in plays]
    seen = set(public)
    for _, cards in hand.shown:
        public += [card for card in cards if card not in seen]
    return _proofs_of(hand, public)


def _pending_value(state: MatchState, hand: HandState, call: CallKind, seat: int) -> int:
    family = call.family
    if family is Family.TRUCO:
        return VALUE_IF_ACCEPTED[call]
    if family is Family.ENVIDO:
        return envido.accepted_value(
            hand.envido_chain, envido.falta(state.rules, state.scores, hand.pico, team_of(seat))
        )
    flores = len(hand.flor_sung)
    if call is CallKind.FLOR or not hand.flor_chain:
        return flor.unraised_value(flores)
    return flor.accepted_value(
        hand.flor_chain, flores, envido.falta(state.rules, state.scores, hand.pico, team_of(seat))
    )


def _summary(hand: HandState, proofs: bool) -> HandSummary:
    return HandSummary(
        number=hand.number,
        winner_team=hand.winner_team,
        end=hand.end,
        results=tuple(hand.results),
        points=(hand.points[0], hand.points[1]),
        scored=tuple(hand.scored),
        shown=hand.shown,
        proofs=_proofs_of(hand, [card for _, cards in hand.shown for card in cards]) if proofs else (),
        envido_winner=hand.envido_winner,
        flor_winner=hand.flor_winner,
    )


def _hand_view(state: MatchState, hand: HandState, proofs: bool) -> HandView:
    pending = hand.pending
    stack = tuple(
        PendingCallView(p.call, p.seat, p.team, _pending_value(state, hand, p.call, p.seat))
        for p in (hand.truco_pending, hand.bet_pending)
        if p is not None
    )
    rounds = tuple(tuple(plays) for plays in hand.rounds if plays)
    published = _deal_proofs(hand) if proofs else None
    return HandView(
        number=hand.number,
        dealer=hand.dealer,
        mano=hand.mano,
        seats=hand.seats,
        pico=hand.pico,
        muestra=hand.muestra,
        commitment=published.digest if published is not None else "",
        rounds=rounds,
        results=tuple(hand.results),
        # Nobody may play while a call or the perros wait for an answer: the turn resumes after it.
        turn=None if hand.ended or pending is not None or hand.perros_pending else hand.turn,
        cards_left=tuple((seat, len(hand.unplayed[seat])) for seat in hand.seats),
        truco_value=hand.truco_value,
        truco_owner=hand.truco_owner,
        pending=stack[-1] if pending else None,
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
        pending_calls=stack,
        commitments=published.commitments if published is not None else (),
        proofs=_public_proofs(hand) if proofs else (),
    )


def audience(event: Event) -> int | None:
    """The only team that may see ``event`` at all, or None when every seat and spectator may (perhaps
    redacted: see :func:`event_for`). A seña is for the sender's team alone."""
    return team_of(event.seat) if isinstance(event, SenaSent) else None


def event_for(event: Event, seat: int | None, deal: DealRecord | None = None) -> Event | None:
    """The event as ``seat`` (None: a spectator) may see it, or None when it must not see it at all.

    A deal's order and secret are blanked and replaced by its per-card commitments, the muestra's proof and
    the seat's own cards' proofs; a played card and the hands shown at the end get their proofs from ``deal``
    (the ``HandDealt`` event or the state of the hand they belong to; without it they go without proofs); an
    event with an :func:`audience` (a seña) is seen only by that team; everything else is public as it is.
    """
    kind = type(event)
    if kind is HandDealt:
        assert isinstance(event, HandDealt)
        published = deal_proofs(event.order, event.salt)
        n = len(event.seats)
        return HandDealt(
            event.number,
            event.dealer,
            event.seats,
            event.pico,
            order=(),
            salt="",
            commitments=published.commitments,
            commitment=published.digest,
            muestra=published.proof(event.order, 3 * n),
            own=_own_proofs(published, event.order, event.seats, seat) if seat in event.seats else (),
        )
    team = audience(event)
    if team is not None and (seat is None or team_of(seat) != team):
        return None
    if deal is not None and kind is CardPlayed:
        assert isinstance(event, CardPlayed)
        return replace(event, proof=_proofs_of(deal, (event.card,))[0])
    if deal is not None and kind is HandEnded:
        assert isinstance(event, HandEnded)
        return replace(event, proofs=_proofs_of(deal, [card for _, cards in event.shown for card in cards]))
    return event


def events_for(
    events: Iterable[Event], seat: int | None, version_before: int, deal: DealRecord | None = None
) -> list[tuple[Event, int]]:
    """The events (applied in this order after public version ``version_before``) as ``seat`` may see them,
    each with the public version after it: a seña keeps the version of the event before it
    (:func:`~truco.engine.state.advances_version`). ``deal`` is the hand in play before the first event (its
    state); each ``HandDealt`` among the events replaces it, so every played card gets its proof."""
    version = version_before
    out: list[tuple[Event, int]] = []
    for event in events:
        if advances_version(event):
            version += 1
        if type(event) is HandDealt:
            deal = event
        visible = event_for(event, seat, deal)
        if visible is not None:
            out.append((visible, version))
    return out
