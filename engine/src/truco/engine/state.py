"""The state of a match and :func:`evolve`, which applies one event to it.

State is the fold of its events: ``evolve`` is the only code that changes it, never fails and never
checks a rule (the checks live in :mod:`truco.engine.decide`). For speed the state is a mutable object
updated in place; :meth:`MatchState.copy` gives an independent copy and ``==`` compares every field.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from ._inits import HandStateInit, MatchStateInit, PendingCallInit
from .calls import CallKind, Family
from .cards import Card
from .deal import DealProofs, deal_hands
from .events import (
    CallAccepted,
    CallDeclined,
    CallMade,
    CardPlayed,
    ClockExpired,
    EnvidoSettled,
    EnvidoVoided,
    Event,
    FlorSettled,
    FlorSung,
    HandDealt,
    HandEnd,
    HandEnded,
    MatchEnded,
    MatchStarted,
    PerrosAnswered,
    PerrosCalled,
    PerrosSkipped,
    PointsScored,
    RoundEnded,
    ScoreReason,
    SeatLeft,
    SeatResumed,
    SenaSent,
    WentToMazo,
)
from .phase import Phase as Phase  # re-exported: where the match stands is part of its state
from .rules import RuleSet
from .schedule import HandPlan, first_hand, next_hand
from .senas import Sena
from .tantos import has_flor
from .tricks import team_of
from .truco_calls import VALUE_IF_ACCEPTED


@dataclass(init=False, frozen=True, slots=True)
class PendingCall(PendingCallInit):
    """A call waiting for the other team's answer."""

    call: CallKind
    seat: int

    @property
    def team(self) -> int:
        return team_of(self.seat)

    def __copy__(self) -> PendingCall:
        return self  # immutable: a copy may share it

    def __deepcopy__(self, memo: object) -> PendingCall:
        return self


@dataclass(init=False, slots=True)
class HandState(HandStateInit):
    """One hand: the deal, the rounds and the bets. Fields marked secret never leave through a view."""

    number: int
    dealer: int
    seats: tuple[int, ...]
    pico: bool
    muestra: Card
    order: tuple[Card, ...]  # secret: only proofs of public cards ever leave (views.py)
    salt: str  # secret: the deal's secret, from which each position's salt is derived
    dealt: dict[int, tuple[Card, ...]]  # secret: each seat's three cards
    flor_holders: tuple[int, ...]  # secret until sung: seats whose hand has flor (rule set with flor)
    unplayed: dict[int, list[Card]] = field(default_factory=dict)
    rounds: list[list[tuple[int, Card]]] = field(default_factory=lambda: [[]])
    results: list[int | None] = field(default_factory=list)
    turn: int = 0
    acted: set[int] = field(default_factory=set)
    # Truco.
    truco_value: int = 1
    truco_owner: int | None = None  # the team that may raise next; None while nobody has called
    truco_pending: PendingCall | None = None
    # Envido and flor: one chain of each at most; `bet_pending` is the chain's unanswered last call.
    envido_chain: list[CallKind] = field(default_factory=list)
    envido_closed: bool = False
    envido_winner: tuple[int, int] | None = None  # (seat, points)
    flor_sung: list[int] = field(default_factory=list)
    flor_chain: list[CallKind] = field(default_factory=list)
    flor_settled: bool = False
    flor_winner: tuple[int, int] | None = None  # (seat, flor points)
    bet_pending: PendingCall | None = None
    # Echar los perros.
    perros_by: int | None = None  # the seat that called them, for this hand
    perros_answered: bool = False
    senas: list[tuple[int, Sena]] = field(default_factory=list)
    points: list[int] = field(default_factory=lambda: [0, 0])
    scored: list[tuple[int, int, ScoreReason]] = field(default_factory=list)  # (team, points, reason)
    ended: bool = False
    end: HandEnd | None = None
    winner_team: int | None = None
    shown: tuple[tuple[int, tuple[Card, ...]], ...] = ()
    # Not state but a cache, derived from order and salt: the deal's salts and commitments, computed the first
    # time a view needs them (views.py) and handed on to this hand's copies, so a hand's forty hashes are taken
    # once however many moves and views it has. Left out of comparisons: a replayed state equals the original.
    proofs: DealProofs | None = field(default=None, compare=False, repr=False)

    @property
    def mano(self) -> int:
        return self.seats[0]

    @property
    def pending(self) -> PendingCall | None:
        """The call that must be answered first: an envido or flor call waits on top of a truco."""
        return self.bet_pending or self.truco_pending

    @property
    def perros_pending(self) -> bool:
        return self.perros_by is not None and not self.perros_answered

    def __reduce__(self) -> tuple[type[HandState], tuple[object, ...]]:
        # copy and deepcopy rebuild the state through __init__ (compiled by mypyc, a class whose __init__
        # takes arguments cannot be made empty first and filled in after).
        return HandState, tuple([getattr(self, f.name) for f in fields(self)])

    def copy(self) -> HandState:
        """An independent copy: containers are copied, the immutable values in them (cards, calls) shared."""
        return HandState(
            number=self.number,
            dealer=self.dealer,
            seats=self.seats,
            pico=self.pico,
            muestra=self.muestra,
            order=self.order,
            salt=self.salt,
            dealt=self.dealt,
            flor_holders=self.flor_holders,
            unplayed={seat: cards.copy() for seat, cards in self.unplayed.items()},
            rounds=[plays.copy() for plays in self.rounds],
            results=self.results.copy(),
            turn=self.turn,
            acted=self.acted.copy(),
            truco_value=self.truco_value,
            truco_owner=self.truco_owner,
            truco_pending=self.truco_pending,
            envido_chain=self.envido_chain.copy(),
            envido_closed=self.envido_closed,
            envido_winner=self.envido_winner,
            flor_sung=self.flor_sung.copy(),
            flor_chain=self.flor_chain.copy(),
            flor_settled=self.flor_settled,
            flor_winner=self.flor_winner,
            bet_pending=self.bet_pending,
            perros_by=self.perros_by,
            perros_answered=self.perros_answered,
            senas=self.senas.copy(),
            points=self.points.copy(),
            scored=self.scored.copy(),
            ended=self.ended,
            end=self.end,
            winner_team=self.winner_team,
            shown=self.shown,
            proofs=self.proofs,
        )


@dataclass(init=False, slots=True)
class MatchState(MatchStateInit):
    """A whole match. Build it with :func:`fold` or by :func:`evolve`-ing events into ``MatchState()``."""

    rules: RuleSet = field(default_factory=RuleSet)
    version: int = 0  # public events applied: a seña does not count, so rivals cannot tell one was sent
    events_applied: int = 0  # every event, señas included: the position in the match's log
    phase: Phase = Phase.NOT_STARTED
    scores: list[int] = field(default_factory=lambda: [0, 0])
    plan: HandPlan | None = None  # the hand being played, or the next one to deal
    perros_by: int | None = None  # perros called for the next deal
    hands_dealt: int = 0
    hand: HandState | None = None
    last_hand: HandState | None = None  # the last ended hand, until the next hand's first action (never mutated)
    winner: int | None = None
    away: frozenset[int] = frozenset()  # seats a bot plays for their player (clock ran out, or the player left)

    def __reduce__(self) -> tuple[type[MatchState], tuple[object, ...]]:
        # copy and deepcopy rebuild the state through __init__ (compiled by mypyc, a class whose __init__
        # takes arguments cannot be made empty first and filled in after).
        return MatchState, tuple([getattr(self, f.name) for f in fields(self)])

    def copy(self) -> MatchState:
        """An independent copy (cards, rule sets, plans and dealt hands are immutable and shared)."""
        return MatchState(
            rules=self.rules,
            version=self.version,
            events_applied=self.events_applied,
            phase=self.phase,
            scores=self.scores.copy(),
            plan=self.plan,
            perros_by=self.perros_by,
            hands_dealt=self.hands_dealt,
            hand=self.hand.copy() if self.hand is not None else None,
            last_hand=self.last_hand,
            winner=self.winner,
            away=self.away,
        )


def fold(events: list[Event]) -> MatchState:
    """The state reached by applying ``events`` in order to a new match."""
    state = MatchState()
    for event in events:
        evolve(state, event)
    return state


def advances_version(event: Event) -> bool:
    """Whether ``event`` counts in the public version: every event but a seña, which rivals never learn of
    (a version that moved would tell them one was sent)."""
    return type(event) is not SenaSent


def evolve(state: MatchState, event: Event) -> None:  # noqa: C901, PLR0915  # one branch per event kind, see below
    """Apply one event to ``state`` in place. Never fails and checks no rule."""
    kind = type(event)
    state.events_applied += 1
    if kind is not SenaSent:  # advances_version, inlined: this runs for every event of every match
        state.version += 1
    # An isinstance chain, the most frequent events first: compiled by mypyc, each test is a pointer compare and
    # each handler a direct C call (a dict of handlers would be a Python-level call through a dict lookup).
    if isinstance(event, CardPlayed):
        _card_played(state, event)
    elif isinstance(event, CallMade):
        _call_made(state, event)
    elif isinstance(event, PointsScored):
        _points_scored(state, event)
    elif isinstance(event, RoundEnded):
        _round_ended(state, event)
    elif isinstance(event, CallAccepted):
        _call_accepted(state, event)
    elif isinstance(event, HandDealt):
        _hand_dealt(state, event)
    elif isinstance(event, HandEnded):
        _hand_ended(state, event)
    elif isinstance(event, CallDeclined):
        _call_declined(state, event)
    elif isinstance(event, WentToMazo):
        _went_to_mazo(state, event)
    elif isinstance(event, FlorSung):
        _flor_sung(state, event)
    elif isinstance(event, EnvidoSettled):
        _envido_settled(state, event)
    elif isinstance(event, FlorSettled):
        _flor_settled(state, event)
    elif isinstance(event, EnvidoVoided):
        _envido_voided(state, event)
    elif isinstance(event, MatchEnded):
        _match_ended(state, event)
    elif isinstance(event, SenaSent):
        _sena_sent(state, event)
    elif isinstance(event, MatchStarted):
        _match_started(state, event)
    elif isinstance(event, PerrosCalled):
        _perros_called(state, event)
    elif isinstance(event, PerrosSkipped):
        _perros_skipped(state, event)
    elif isinstance(event, PerrosAnswered):
        _perros_answered(state, event)
    elif isinstance(event, ClockExpired):
        _clock_expired(state, event)
    elif isinstance(event, SeatLeft):
        _seat_left(state, event)
    elif isinstance(event, SeatResumed):
        _seat_resumed(state, event)
    else:
        raise TypeError(f"not an event: {event!r}")


def _match_started(state: MatchState, event: MatchStarted) -> None:
    state.rules = event.rules
    state.plan = first_hand(event.rules, event.first_dealer)
    state.phase = Phase.AWAITING_PERROS if event.rules.perros else Phase.AWAITING_DEAL


def _perros_called(state: MatchState, event: PerrosCalled) -> None:
    state.perros_by = event.seat
    state.phase = Phase.AWAITING_DEAL


def _perros_skipped(state: MatchState, event: PerrosSkipped) -> None:
    state.phase = Phase.AWAITING_DEAL


def _hand_dealt(state: MatchState, event: HandDealt) -> None:
    seats = event.seats
    dealt_hands, muestra = deal_hands(event.order, len(seats))
    dealt: dict[int, tuple[Card, ...]] = {}
    unplayed: dict[int, list[Card]] = {}
    flor_holders: list[int] = []
    flor = state.rules.flor
    for position, seat in enumerate(seats):
        cards = dealt_hands[position]
        dealt[seat] = cards
        unplayed[seat] = list(cards)
        if flor and has_flor(cards, muestra):
            flor_holders.append(seat)
    hand = HandState(
        number=event.number,
        dealer=event.dealer,
        seats=seats,
        pico=event.pico,
        muestra=muestra,
        order=event.order,
        salt=event.salt,
        dealt=dealt,
        flor_holders=tuple(flor_holders),
        unplayed=unplayed,
        turn=seats[0],
        perros_by=state.perros_by,
    )
    state.hand = hand
    state.perros_by = None
    state.hands_dealt = event.number
    state.phase = Phase.PLAYING


def _hand(state: MatchState) -> HandState:
    hand = state.hand
    assert hand is not None, "a hand event before any HandDealt"
    return hand


def _flor_sung(state: MatchState, event: FlorSung) -> None:
    state.last_hand = None
    hand = _hand(state)
    hand.flor_sung.append(event.seat)
    hand.envido_closed = True


def _card_played(state: MatchState, event: CardPlayed) -> None:
    state.last_hand = None
    hand = _hand(state)
    hand.acted.add(event.seat)
    hand.unplayed[event.seat].remove(event.card)
    plays = hand.rounds[-1]
    plays.append((event.seat, event.card))
    if len(plays) < len(hand.seats):
        position = hand.seats.index(event.seat)
        hand.turn = hand.seats[(position + 1) % len(hand.seats)]


def _round_ended(state: MatchState, event: RoundEnded) -> None:
    hand = _hand(state)
    hand.results.append(event.winner_team)
    plays = hand.rounds[-1]
    hand.turn = event.winning_seat if event.winning_seat is not None else plays[0][0]
    if event.round == 0:
        hand.envido_closed = True
    if len(hand.results) < 3:
        hand.rounds.append([])


def _call_made(state: MatchState, event: CallMade) -> None:
    state.last_hand = None
    hand = _hand(state)
    hand.acted.add(event.seat)
    family = event.call.family
    pending = PendingCall(event.call, event.seat)
    if family is Family.TRUCO:
        hand.truco_pending = pending
    elif family is Family.ENVIDO:
        hand.envido_chain.append(event.call)
        hand.bet_pending = pending
    else:
        if event.call is not CallKind.FLOR:  # a sung flor awaits its answer but is no raise of the chain
            hand.flor_chain.append(event.call)
        hand.bet_pending = pending


def _call_accepted(state: MatchState, event: CallAccepted) -> None:
    state.last_hand = None
    hand = _hand(state)
    hand.acted.add(event.seat)
    if event.call.family is Family.TRUCO:
        hand.truco_value = VALUE_IF_ACCEPTED[event.call]
        hand.truco_owner = team_of(event.seat)
        hand.truco_pending = None
        hand.envido_closed = True  # once a truco is accepted the envido is closed for the hand
    else:
        hand.bet_pending = None


def _call_declined(state: MatchState, event: CallDeclined) -> None:
    state.last_hand = None
    hand = _hand(state)
    hand.acted.add(event.seat)
    if event.call.family is Family.TRUCO:
        hand.truco_pending = None
    else:
        hand.bet_pending = None
        if event.call.family is Family.ENVIDO:
            hand.envido_closed = True
        else:
            hand.flor_settled = True


def _envido_voided(state: MatchState, event: EnvidoVoided) -> None:
    hand = _hand(state)
    if hand.bet_pending is not None and hand.bet_pending.call.family is Family.ENVIDO:
        hand.bet_pending = None
    hand.envido_closed = True


def _envido_settled(state: MatchState, event: EnvidoSettled) -> None:
    hand = _hand(state)
    hand.envido_winner = (event.winner_seat, event.points)
    hand.envido_closed = True


def _flor_settled(state: MatchState, event: FlorSettled) -> None:
    hand = _hand(state)
    hand.flor_settled = True
    hand.bet_pending = None
    if event.winner_seat is not None and event.points is not None:
        hand.flor_winner = (event.winner_seat, event.points)


def _perros_answered(state: MatchState, event: PerrosAnswered) -> None:
    state.last_hand = None
    hand = _hand(state)
    hand.perros_answered = True
    hand.envido_closed = True
    # The perros' envido part is a one-call chain: contra flor al resto en ley, falta envido a punto.
    if event.en_ley:
        hand.flor_chain.append(CallKind.CONTRA_FLOR_AL_RESTO)
    else:
        hand.envido_chain.append(CallKind.FALTA_ENVIDO)
    if event.accept_truco:
        hand.truco_value = VALUE_IF_ACCEPTED[CallKind.TRUCO]
        hand.truco_owner = team_of(event.seat)


def _went_to_mazo(state: MatchState, event: WentToMazo) -> None:
    state.last_hand = None
    hand = _hand(state)
    hand.acted.add(event.seat)
    hand.truco_pending = None
    hand.bet_pending = None


def _sena_sent(state: MatchState, event: SenaSent) -> None:
    _hand(state).senas.append((event.seat, event.sena))


def _points_scored(state: MatchState, event: PointsScored) -> None:
    state.scores[event.team] += event.points
    hand = state.hand
    if hand is not None and not hand.ended:
        hand.points[event.team] += event.points
        hand.scored.append((event.team, event.points, event.reason))


def _hand_ended(state: MatchState, event: HandEnded) -> None:
    hand = _hand(state)
    hand.ended = True
    hand.end = event.end
    hand.winner_team = event.winner_team
    hand.shown = event.shown
    hand.truco_pending = None
    hand.bet_pending = None
    state.last_hand = hand
    assert state.plan is not None
    rules = state.rules
    scores = state.scores
    if scores[0] < rules.target and scores[1] < rules.target:
        state.plan = next_hand(rules, state.plan, (scores[0], scores[1]))
        state.phase = Phase.AWAITING_PERROS if rules.perros else Phase.AWAITING_DEAL


def _match_ended(state: MatchState, event: MatchEnded) -> None:
    state.winner = event.winner_team
    state.phase = Phase.MATCH_OVER


def _clock_expired(state: MatchState, event: ClockExpired) -> None:
    if not event.forfeit:
        state.away = state.away | {event.seat}


def _seat_left(state: MatchState, event: SeatLeft) -> None:
    state.away = state.away | {event.seat}


def _seat_resumed(state: MatchState, event: SeatResumed) -> None:
    state.away = state.away - {event.seat}
