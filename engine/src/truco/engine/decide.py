"""Deciding commands: a legal command yields the events that record what happens next.

:func:`decide` is pure: it works on a copy and returns the events. :func:`execute` is the same decision
applied in place, for loops that own their state (the simulator, the server's rebuilt state). Either way
the events are emitted through :func:`truco.engine.state.evolve`, so what a decision sees after each event
is exactly what a replay will see.
"""

from __future__ import annotations

from . import envido, flor
from .calls import CallKind, Family
from .cards import Card
from .commands import (
    Answer,
    AnswerPerros,
    Call,
    CallPerros,
    Command,
    Deal,
    GoToMazo,
    PlayCard,
    SendSena,
    SkipPerros,
)
from .errors import RuleViolation
from .events import (
    CallAccepted,
    CallDeclined,
    CallMade,
    CardPlayed,
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
    SenaSent,
    WentToMazo,
)
from .legal import check, sings_flor, violation
from .rules import RuleSet
from .state import HandState, MatchState, PendingCall, evolve
from .tantos import envido_points, flor_points
from .tricks import hand_winner, round_result, team_of
from .truco_calls import value_if_declined

PICO_FALTA = envido.PICO_FALTA


def start_match(rules: RuleSet) -> list[Event]:
    """The events that open a match: the last seat deals first, so seat 0 is the mano of the first hand."""
    return [MatchStarted(rules, first_dealer=rules.players - 1)]


def decide(state: MatchState, command: Command) -> list[Event]:
    """The events ``command`` produces in ``state``, which is left untouched.

    :raises InvalidCommand: for a malformed command.
    :raises RuleViolation: for a command the rules do not allow now.
    """
    check(state, command)
    return _Referee(state.copy()).run(command)


def execute(state: MatchState, command: Command) -> list[Event]:
    """Decide ``command`` and apply its events to ``state``; on a refusal ``state`` is unchanged.

    :raises InvalidCommand: for a malformed command.
    :raises RuleViolation: for a command the rules do not allow now.
    """
    problem = violation(state, command)
    if problem is not None:
        raise RuleViolation(*problem)
    return _Referee(state).run(command)


def execute_legal(state: MatchState, command: Command) -> list[Event]:
    """:func:`execute` without the check, for a command the caller knows to be legal in ``state``: one of
    ``legal_actions(state, seat)`` (bots, simulations, the server's bot seats) or a :class:`Deal` it built itself
    from a permutation of :data:`~truco.engine.cards.DECK` and a 32-hex-digit salt while a deal is awaited.

    The engine does not check it again: anything else (a client's command) must go through :func:`execute`, or
    the state may be corrupted.
    """
    return _Referee(state).run(command)


class _MatchDecided(Exception):
    """Internal: a team reached the target; nothing more happens in this match."""


class _Referee:
    """Turns one checked command into events, applying each as it is emitted."""

    __slots__ = ("decided", "events", "flor_due", "hand", "state")

    def __init__(self, state: MatchState) -> None:
        self.state = state
        self.events: list[Event] = []
        self.decided: tuple[int, HandEnd] | None = None  # the hand's result, once known
        self.flor_due = False  # a second team's flor was just sung: the first team answers it after the move
        # The hand in play; only a deal replaces it (see _deal). Unset before the first deal (compiled by mypyc,
        # an attribute typed HandState cannot hold None).
        hand = state.hand
        if hand is not None:
            self.hand: HandState = hand

    def emit(self, event: Event) -> None:
        evolve(self.state, event)
        self.events.append(event)

    def run(self, command: Command) -> list[Event]:
        # isinstance chains, the most frequent commands first: compiled by mypyc, pointer compares and direct C
        # calls (a dict of handlers would cost a Python-level call through a dict lookup).
        # A plain try costs nothing in 3.11; contextlib.suppress would cost a call on every command.
        try:
            if isinstance(command, (PlayCard, Call, Answer, GoToMazo)):  # a move: its first one sings a flor
                seat = command.seat
                hand = self.hand
                voided = False
                if hand.flor_holders and sings_flor(hand, seat):
                    voided = self._sing(seat, command)
                if isinstance(command, PlayCard):
                    self._play(seat, command.card)
                # A call or an answer whose flor voided the pending envido has nothing left to do: an envido
                # raise or answer is absorbed, and a flor holder may not raise an envido in the first place.
                elif isinstance(command, Call):
                    if not voided:
                        self._on_call(command)
                elif isinstance(command, Answer):
                    if not voided:
                        self._answer(seat, command.accept)
                else:
                    self._mazo(seat)
                if self.flor_due:
                    self._challenge_with_flor(seat)
            elif isinstance(command, Deal):
                self._deal(command)
            elif isinstance(command, SendSena):
                self.emit(SenaSent(command.seat, command.sena))
            elif isinstance(command, CallPerros):
                self.emit(PerrosCalled(command.seat))
            elif isinstance(command, SkipPerros):
                self.emit(PerrosSkipped(command.seat))
            elif isinstance(command, AnswerPerros):
                self._answer_perros(command)
            else:
                raise TypeError(f"not a command: {command!r}")
        except _MatchDecided:
            pass
        return self.events

    def _on_call(self, command: Call) -> None:
        pending = self.hand.truco_pending
        if command.call.family is Family.TRUCO and pending is not None:
            self.emit(CallAccepted(command.seat, pending.call))  # "quiero retruco": accept, then raise
        self.emit(CallMade(command.seat, command.call))

    # --- The deal ---------------------------------------------------------------------------------------------

    def _deal(self, command: Deal) -> None:
        plan = self.state.plan
        assert plan is not None
        self.emit(
            HandDealt(
                number=self.state.hands_dealt + 1,
                dealer=plan.dealer,
                seats=plan.seats,
                pico=plan.pico,
                order=command.order,
                salt=command.salt,
            )
        )
        hand = self.state.hand
        assert hand is not None
        self.hand = hand

    # --- Cards and rounds -------------------------------------------------------------------------------------

    def _play(self, seat: int, card: Card) -> None:
        self.emit(CardPlayed(seat, card))
        hand = self.hand
        plays = hand.rounds[-1]
        if len(plays) < len(hand.seats):
            return
        winner_team, leader = round_result(plays, hand.muestra)
        round_number = len(hand.results)
        self.emit(RoundEnded(round_number, winner_team, leader if winner_team is not None else None))
        if round_number == 0:
            self._count_flores(round_end=True)
        winner = hand_winner(hand.results, team_of(hand.mano))
        if winner is not None:
            self._end_hand(winner, HandEnd.ROUNDS, hand.truco_value, ScoreReason.HAND)

    # --- Calls and answers ------------------------------------------------------------------------------------

    def _answer(self, seat: int, accept: bool) -> None:
        pending = self.hand.pending
        assert pending is not None
        if accept:
            self.emit(CallAccepted(seat, pending.call))
            family = pending.call.family
            if family is Family.ENVIDO:
                self._settle_envido_accepted()
            elif pending.call is CallKind.FLOR:  # con flor quiero: the flores are counted now
                self._count_flores()
            elif family is Family.FLOR:
                self._settle_flor_accepted()
        else:
            self._decline(seat, pending)

    def _decline(self, seat: int, pending: PendingCall) -> None:
        self.emit(CallDeclined(seat, pending.call))
        family = pending.call.family
        if family is Family.ENVIDO:
            self._settle_envido_declined(pending.team)
        elif family is Family.FLOR:
            self._settle_flor_declined(pending.team)
        else:
            value = value_if_declined(pending.call)
            self._end_hand(pending.team, HandEnd.TRUCO_DECLINED, value, ScoreReason.TRUCO_DECLINED)

    def _mazo(self, seat: int) -> None:
        hand = self.hand
        bet = hand.bet_pending
        self.emit(WentToMazo(seat))
        # A pending envido or flor raise counts as declined; a pending truco leaves the value last accepted; a
        # sung flor awaiting its answer is counted with the others below.
        if bet is not None and bet.call is not CallKind.FLOR:
            self._decline(seat, bet)
        self._end_hand(1 - team_of(seat), HandEnd.MAZO, self.hand.truco_value, ScoreReason.MAZO)

    # --- Envido -----------------------------------------------------------------------------------------------

    def _settle_envido_accepted(self) -> None:
        if self._flor_voids_envido():
            return
        hand = self.hand
        muestra = hand.muestra
        winner, points = max(
            ((seat, envido_points(hand.dealt[seat], muestra)) for seat in hand.seats),
            key=lambda pair: pair[1],  # max keeps the first of equals: the seat nearer the mano
        )
        self.emit(EnvidoSettled(winner, points))
        team = team_of(winner)
        self._score(team, envido.accepted_value(hand.envido_chain, self._falta(team)), ScoreReason.ENVIDO)

    def _settle_envido_declined(self, caller_team: int) -> None:
        if self._flor_voids_envido():
            return
        value = envido.declined_value(self.hand.envido_chain)
        self._score(caller_team, value, ScoreReason.ENVIDO_DECLINED)

    def _flor_voids_envido(self) -> bool:
        """No envido is played in a hand with flor: settling one sings every flor at the table instead."""
        if not self.hand.flor_holders:
            return False
        self._sing_all()
        self.emit(EnvidoVoided())
        return True

    def _falta(self, winner_team: int) -> int:
        return envido.falta(self.state.rules, self.state.scores, self.hand.pico, winner_team)

    # --- Flor -------------------------------------------------------------------------------------------------

    def _sing(self, seat: int, command: Command) -> bool:
        """Sing ``seat``'s flor as it acts with ``command``; return whether that voided a pending envido.

        When a rival flor was sung before and no flor bet is under way, the team that sang first owes an answer
        (con flor quiero or a raise): noted in ``flor_due`` and asked after the command's own move, unless the
        command raises itself ("the second singer may also raise as it sings") or goes to the mazo."""
        hand = self.hand
        voids = hand.bet_pending is not None and hand.bet_pending.call.family is Family.ENVIDO
        team = team_of(seat)
        bet = hand.bet_pending
        self.flor_due = (
            not hand.flor_chain
            and (bet is None or bet.call is not CallKind.FLOR)
            and not isinstance(command, GoToMazo)  # a flor sung going to the mazo asks no answer: the hand is conceded
            and not (isinstance(command, Call) and command.call.family is Family.FLOR)
            and any(team_of(other) != team for other in hand.flor_sung)
        )
        self.emit(FlorSung(seat))
        if voids:
            self.emit(EnvidoVoided())
        return voids

    def _challenge_with_flor(self, seat: int) -> None:
        """After the move of the seat that sang a second team's flor: its rivals must answer that flor."""
        self.flor_due = False
        hand = self.hand
        if hand.ended or hand.flor_settled or hand.flor_chain:
            return
        self.emit(CallMade(seat, CallKind.FLOR))

    def _sing_all(self) -> None:
        for seat in self.hand.flor_holders:
            if seat not in self.hand.flor_sung:
                self.emit(FlorSung(seat))

    def _best_flor(self) -> tuple[int, int]:
        hand = self.hand
        return max(
            ((seat, flor_points(hand.dealt[seat], hand.muestra)) for seat in hand.flor_holders),
            key=lambda pair: pair[1],  # flor_holders is in playing order: ties go nearer the mano
        )

    def _count_flores(self, *, round_end: bool = False) -> None:
        """Count the flores without raises (con flor quiero, the end of the first round, or of the hand). At the
        end of the first round a sung flor still awaiting its answer waits for it."""
        hand = self.hand
        if hand.flor_settled or not hand.flor_holders:
            return
        if round_end and (self.flor_due or (hand.bet_pending is not None and hand.bet_pending.call is CallKind.FLOR)):
            return
        self._sing_all()
        teams = {team_of(seat) for seat in hand.flor_holders}
        count = len(hand.flor_holders)
        if len(teams) == 1:
            self.emit(FlorSettled(None, None))
            self._score(teams.pop(), flor.unraised_value(count), ScoreReason.FLOR)
            return
        winner, points = self._best_flor()
        self.emit(FlorSettled(winner, points))
        self._score(team_of(winner), flor.unraised_value(count), ScoreReason.FLOR)

    def _settle_flor_accepted(self) -> None:
        self._sing_all()
        winner, points = self._best_flor()
        self.emit(FlorSettled(winner, points))
        team = team_of(winner)
        count = len(self.hand.flor_holders)
        self._score(team, flor.accepted_value(self.hand.flor_chain, count, self._falta(team)), ScoreReason.FLOR)

    def _settle_flor_declined(self, raiser_team: int, at_least: int = 0) -> None:
        self._sing_all()
        self.emit(FlorSettled(None, None))
        own = sum(1 for seat in self.hand.flor_holders if team_of(seat) == raiser_team)
        value = max(flor.declined_value(self.hand.flor_chain, own), at_least)
        self._score(raiser_team, value, ScoreReason.FLOR_DECLINED)

    # --- Echar los perros -------------------------------------------------------------------------------------

    def _answer_perros(self, command: AnswerPerros) -> None:
        hand = self.hand
        assert hand.perros_by is not None
        dealers = team_of(hand.perros_by)
        en_ley = any(team_of(seat) != dealers for seat in hand.flor_holders)
        self.emit(PerrosAnswered(command.seat, en_ley, command.accept_envido, command.accept_truco))
        if en_ley:  # evolve opened a contra flor al resto chain, else a falta envido chain
            if command.accept_envido:
                self._settle_flor_accepted()
            else:
                # A passed contra flor al resto pays as a declined first raise, at least the 1 of a refused call.
                self._settle_flor_declined(dealers, at_least=envido.DECLINED_FIRST_CALL)
        else:
            if command.accept_envido:
                self._settle_envido_accepted()
            else:
                self._settle_envido_declined(dealers)
        if not command.accept_truco:
            value = value_if_declined(CallKind.TRUCO)
            self._end_hand(dealers, HandEnd.TRUCO_DECLINED, value, ScoreReason.TRUCO_DECLINED)

    # --- Points and the end of a hand -------------------------------------------------------------------------

    def _score(self, team: int, points: int, reason: ScoreReason) -> None:
        """Credit points at once; a team reaching the target ends the hand and the match on the spot."""
        state = self.state
        target = state.rules.target
        credited = min(points, target - state.scores[team])
        if credited <= 0:
            return
        self.emit(PointsScored(team, credited, reason))
        if state.scores[team] >= target:
            if not self.hand.ended:
                winner, end = self.decided or (None, HandEnd.MATCH_ENDED)
                self._reveal(winner, end)
            self.emit(MatchEnded(team))
            raise _MatchDecided

    def _end_hand(self, winner: int, end: HandEnd, value: int, reason: ScoreReason) -> None:
        self.decided = (winner, end)
        self._count_flores()
        self._score(winner, value, reason)
        self._reveal(winner, end)

    def _reveal(self, winner: int | None, end: HandEnd) -> None:
        """End the hand, showing the envido winner's and the flores' cards and the deal's salt."""
        hand = self.hand
        shown: tuple[tuple[int, tuple[Card, ...]], ...] = ()
        if hand.flor_sung or hand.envido_winner is not None:
            shown_seats = set(hand.flor_sung)
            if hand.envido_winner is not None:
                shown_seats.add(hand.envido_winner[0])
            shown = tuple([(seat, hand.dealt[seat]) for seat in hand.seats if seat in shown_seats])
        self.emit(HandEnded(winner, end, shown))
