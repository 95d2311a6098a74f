"""Which commands are legal: :func:`legal_actions` lists them, :func:`violation` explains a refusal.

Both are built from the same small predicates below, so a command is accepted if and only if it is in
:func:`legal_actions` (the property tests hold the two to that). Nothing here reveals another seat's cards:
the predicates read the seat's own hand and public facts only.
"""

from __future__ import annotations

from typing import Final

from . import envido, flor
from .calls import CallKind, Family
from .cards import DECK, Card
from .commands import (
    Answer,
    AnswerPerros,
    Call,
    CallPerros,
    Command,
    Deal,
    GoToMazo,
    PlayCard,
    SeatCommand,
    SendSena,
    SkipPerros,
)
from .deal import deck_problem, salt_problem
from .errors import InvalidCommand, Reason, RuleViolation
from .rules import VALID_PLAYERS
from .senas import Sena, true_senas
from .state import HandState, MatchState, PendingCall, Phase
from .tricks import team_of
from .truco_calls import VALUE_IF_ACCEPTED, next_truco_call

Violation = tuple[Reason, str]

SENAS: Final = tuple(Sena)
_ENVIDO_CALLS: Final = (CallKind.ENVIDO, CallKind.REAL_ENVIDO, CallKind.FALTA_ENVIDO)


# --- Predicates shared by the generator and the checker -------------------------------------------------------


def sings_flor(hand: HandState, seat: int) -> bool:
    """Whether the seat's next action sings its flor first (its hand has flor not yet sung)."""
    return seat in hand.flor_holders and seat not in hand.flor_sung and not hand.flor_settled


def envido_open_for(hand: HandState, seat: int) -> bool:
    """Whether ``seat`` may still open the envido: first round, no card played yet, the envido not closed
    (no chain, no flor sung) and no flor in the seat's own hand (a flor voids every envido)."""
    return (
        not hand.envido_closed
        and not hand.envido_chain
        and len(hand.rounds) == 1
        and len(hand.unplayed[seat]) == 3
        and seat not in hand.flor_holders
    )


def flor_contest_open_for(hand: HandState, seat: int) -> bool:
    """Whether ``seat`` may open the raises of a flor contest: it holds flor, a rival has sung one, and the
    flores are not yet counted."""
    if hand.flor_settled or hand.flor_chain or seat not in hand.flor_holders:
        return False
    team = team_of(seat)
    return any(team_of(other) != team for other in hand.flor_sung)


def truco_call_on_turn(hand: HandState, seat: int) -> CallKind | None:
    """The grito ``seat`` may make on its turn: the next one up, if nobody called yet or its team accepted
    the last call."""
    if hand.truco_owner is not None and hand.truco_owner != team_of(seat):
        return None
    return next_truco_call(hand.truco_value)


def truco_raise_answering(pending: PendingCall) -> CallKind | None:
    """The grito that accepts ``pending`` and raises it ("quiero retruco")."""
    return next_truco_call(VALUE_IF_ACCEPTED[pending.call])


def answers_pending(hand: HandState, seat: int) -> PendingCall | None:
    """The call ``seat`` may answer now (any seat of the challenged team answers for it)."""
    pending = hand.pending
    if pending is None or hand.perros_pending or team_of(seat) == pending.team:
        return None
    return pending


def senas_possible(state: MatchState, hand: HandState) -> bool:
    """Señas need the rule and a teammate in the hand: seats alternate teams, so more than two players."""
    return state.rules.senas and len(hand.seats) > 2


def allowed_senas(state: MatchState, hand: HandState, seat: int) -> list[Sena]:
    """The señas ``seat`` may send now: true of its unplayed cards and not yet sent this hand, in table order."""
    if not senas_possible(state, hand):
        return []
    true = true_senas(hand.unplayed[seat], hand.muestra)
    sent = {sena for sender, sena in hand.senas if sender == seat}
    return [sena for sena in SENAS if sena in true and sena not in sent]


def perros_deciders(state: MatchState) -> tuple[int, ...]:
    """The seats that decide whether to echar los perros before the next deal: the dealing team's players."""
    plan = state.plan
    if state.phase is not Phase.AWAITING_PERROS or plan is None:
        return ()
    team = team_of(plan.dealer)
    return tuple(seat for seat in plan.seats if team_of(seat) == team)


# --- The generator ---------------------------------------------------------------------------------------------


class _Commands:
    """The seat commands the generator hands out. Commands are immutable values with few possible instances,
    so each is built once and shared: listing legal actions allocates nothing but the list."""

    def __init__(self, seats: int) -> None:
        # Indexed by Card.index: DECK is in index order.
        self.play = [[PlayCard(seat, card) for card in DECK] for seat in range(seats)]
        self.call = [{kind: Call(seat, kind) for kind in CallKind} for seat in range(seats)]
        self.envido = [[Call(seat, kind) for kind in _ENVIDO_CALLS] for seat in range(seats)]
        self.flor = [[Call(seat, kind) for kind in flor.ORDER] for seat in range(seats)]
        self.accept = [{kind: Answer(seat, True, kind) for kind in CallKind} for seat in range(seats)]
        self.decline = [{kind: Answer(seat, False, kind) for kind in CallKind} for seat in range(seats)]
        self.mazo = [GoToMazo(seat) for seat in range(seats)]
        self.sena = [{sena: SendSena(seat, sena) for sena in Sena} for seat in range(seats)]
        self.perros: list[list[SeatCommand]] = [[CallPerros(seat), SkipPerros(seat)] for seat in range(seats)]
        self.perros_answers = [
            [AnswerPerros(seat, e, t) for e in (True, False) for t in (True, False)] for seat in range(seats)
        ]


_COMMANDS: Final = _Commands(max(VALID_PLAYERS))  # Final: compiled, a C static, not a globals dict lookup


def legal_actions(state: MatchState, seat: int) -> list[SeatCommand]:
    """Every command ``seat`` may send now, in a stable order (cards, calls, answers, mazo, señas, perros)."""
    if not 0 <= seat < state.rules.players:
        return []
    if state.phase is Phase.AWAITING_PERROS:
        if seat in perros_deciders(state):
            return [*_COMMANDS.perros[seat]]
        return []
    hand = state.hand
    if state.phase is not Phase.PLAYING or hand is None or seat not in hand.seats:
        return []
    actions: list[SeatCommand] = []
    if hand.perros_pending:
        assert hand.perros_by is not None
        if team_of(seat) != team_of(hand.perros_by):
            actions += _COMMANDS.perros_answers[seat]
    elif hand.pending is None:
        if hand.turn == seat:
            _add_turn_actions(actions, hand, seat)
    else:
        pending = answers_pending(hand, seat)
        if pending is not None:
            _add_answer_actions(actions, hand, seat, pending)
    if senas_possible(state, hand):
        signs = _COMMANDS.sena[seat]
        for sena in allowed_senas(state, hand, seat):
            actions.append(signs[sena])
    return actions


def _add_turn_actions(actions: list[SeatCommand], hand: HandState, seat: int) -> None:
    plays = _COMMANDS.play[seat]
    for card in hand.unplayed[seat]:
        actions.append(plays[card.index])
    truco = truco_call_on_turn(hand, seat)
    if truco is not None:
        actions.append(_COMMANDS.call[seat][truco])
    if envido_open_for(hand, seat):
        actions.extend(_COMMANDS.envido[seat])
    if flor_contest_open_for(hand, seat):
        actions.extend(_COMMANDS.flor[seat])
    actions.append(_COMMANDS.mazo[seat])


def _add_answer_actions(actions: list[SeatCommand], hand: HandState, seat: int, pending: PendingCall) -> None:
    actions.append(_COMMANDS.accept[seat][pending.call])
    if pending.call is not CallKind.FLOR:  # a sung flor is answered with con flor quiero or a raise
        actions.append(_COMMANDS.decline[seat][pending.call])
    calls = _COMMANDS.call[seat]
    family = pending.call.family
    if family is Family.TRUCO:
        raise_ = truco_raise_answering(pending)
        if raise_ is not None:
            actions.append(calls[raise_])
        if envido_open_for(hand, seat):
            actions.extend(_COMMANDS.envido[seat])
    elif family is Family.ENVIDO:
        if not sings_flor(hand, seat):
            for call in envido.allowed_envido_calls(hand.envido_chain):
                actions.append(calls[call])
    else:
        for call in flor.allowed_flor_calls(hand.flor_chain):
            actions.append(calls[call])
    actions.append(_COMMANDS.mazo[seat])


def actors(state: MatchState) -> tuple[int, ...]:
    """The seats the match is waiting for (señas aside): the turn, the challenged team, the perros deciders.
    Empty while a deal is awaited or the match is over."""
    if state.phase is Phase.AWAITING_PERROS:
        return perros_deciders(state)
    hand = state.hand
    if state.phase is not Phase.PLAYING or hand is None:
        return ()
    if hand.perros_pending:
        assert hand.perros_by is not None
        rivals = 1 - team_of(hand.perros_by)
        return tuple(seat for seat in hand.seats if team_of(seat) == rivals)
    pending = hand.pending
    if pending is not None:
        return tuple(seat for seat in hand.seats if team_of(seat) != pending.team)
    return (hand.turn,)


# --- The checker -------------------------------------------------------------------------------------------------


def check(state: MatchState, command: Command) -> None:
    """Raise if ``command`` may not be applied to ``state``; return quietly if it may.

    :raises InvalidCommand: the command is malformed (no state would accept it).
    :raises RuleViolation: the rules do not allow it now.
    """
    problem = violation(state, command)
    if problem is not None:
        raise RuleViolation(*problem)


def is_legal(state: MatchState, command: Command) -> bool:
    """Whether ``command`` would be accepted. :raises InvalidCommand: for a malformed command."""
    return violation(state, command) is None


def violation(state: MatchState, command: Command) -> Violation | None:
    """Why ``command`` is refused now, or None if it is legal. :raises InvalidCommand: if malformed."""
    if isinstance(command, Deal):
        return _deal_violation(state, command)
    _check_well_formed(command)
    seat = command.seat
    if not 0 <= seat < state.rules.players:
        raise InvalidCommand(Reason.INVALID_SEAT, f"seat must be 0 to {state.rules.players - 1}")
    if state.phase is Phase.MATCH_OVER:
        return Reason.MATCH_OVER, "the match is over"
    if isinstance(command, CallPerros | SkipPerros):
        return _perros_decision_violation(state, seat)
    if state.phase is not Phase.PLAYING or state.hand is None:
        return Reason.HAND_NOT_IN_PLAY, "no hand is in play: the next hand has not been dealt yet"
    hand = state.hand
    if seat not in hand.seats:
        return Reason.NOT_IN_THIS_HAND, f"seat {seat} sits out this pico a pico hand"
    if isinstance(command, SendSena):
        return _sena_violation(state, hand, seat, command.sena)
    if isinstance(command, AnswerPerros):
        return _perros_answer_violation(hand, seat)
    if hand.perros_pending:
        return Reason.PERROS_ANSWER_PENDING, "the rivals must first answer the perros"
    # The checks of the commands that move a hand on, once the common ones (phase, seat, perros) passed.
    if isinstance(command, PlayCard):
        return _play_violation(state, hand, seat, command)
    if isinstance(command, Call):
        return _call_violation(state, hand, seat, command)
    if isinstance(command, Answer):
        return _answer_violation(state, hand, seat, command)
    return _mazo_violation(state, hand, seat, command)


_FIELD_TYPES: dict[type, tuple[tuple[str, type], ...]] = {
    PlayCard: (("card", Card),),
    Call: (("call", CallKind),),
    Answer: (("accept", bool),),  # and an optional call, checked below
    GoToMazo: (),
    SendSena: (("sena", Sena),),
    CallPerros: (),
    SkipPerros: (),
    AnswerPerros: (("accept_envido", bool), ("accept_truco", bool)),
}


def _check_well_formed(command: object) -> None:
    """:raises InvalidCommand: unless ``command`` is a seat command whose fields have the right types."""
    fields = _FIELD_TYPES.get(type(command))
    if fields is None:
        raise InvalidCommand(Reason.INVALID_COMMAND, f"{type(command).__name__} is not a command")
    seat = getattr(command, "seat", None)
    if type(seat) is not int:
        raise InvalidCommand(Reason.INVALID_SEAT, "seat must be a whole number")
    for name, kind in fields:
        if not isinstance(getattr(command, name), kind):
            raise InvalidCommand(Reason.INVALID_COMMAND, f"{type(command).__name__}.{name} must be a {kind.__name__}")
    if type(command) is Answer and command.call is not None and not isinstance(command.call, CallKind):
        raise InvalidCommand(Reason.INVALID_COMMAND, "Answer.call must be a CallKind or None")


def _answer_violation(state: MatchState, hand: HandState, seat: int, command: Answer) -> Violation | None:
    pending = hand.pending
    if pending is None:
        return Reason.NO_CALL_PENDING, "there is no call to answer"
    if answers_pending(hand, seat) is None:
        return Reason.ANSWER_NOT_YOURS, "your team made this call: the rivals answer it"
    if command.call is not None and command.call is not pending.call:
        return Reason.CALL_MISMATCH, f"the call to answer is the {pending.call.spoken}, not the {command.call.spoken}"
    if pending.call is CallKind.FLOR and not command.accept:
        return Reason.FLOR_RAISE_INVALID, "a rival flor is answered with con flor quiero or a raise, not declined"
    return None


def _mazo_violation(state: MatchState, hand: HandState, seat: int, command: GoToMazo) -> Violation | None:
    if hand.pending is not None:
        if answers_pending(hand, seat) is None:
            return Reason.CALL_PENDING, "wait for the rivals to answer your team's call"
        return None
    return _turn_violation(hand, seat)


def _turn_violation(hand: HandState, seat: int) -> Violation | None:
    if hand.pending is not None:
        return Reason.CALL_PENDING, f"the {hand.pending.call.spoken} must be answered first"
    if hand.turn != seat:
        return Reason.NOT_YOUR_TURN, f"it is seat {hand.turn}'s turn"
    return None


def _play_violation(state: MatchState, hand: HandState, seat: int, command: PlayCard) -> Violation | None:
    problem = _turn_violation(hand, seat)
    if problem is not None:
        return problem
    if command.card not in hand.unplayed[seat]:
        return Reason.CARD_NOT_IN_HAND, f"{command.card} is not among your unplayed cards"
    return None


def _call_violation(state: MatchState, hand: HandState, seat: int, command: Call) -> Violation | None:
    call = command.call
    if call is CallKind.FLOR:
        return Reason.FLOR_RAISE_INVALID, "a flor is sung by itself, at its holder's first action: not a call"
    family = call.family
    if family is Family.TRUCO:
        return _truco_violation(hand, seat, call)
    if family is Family.ENVIDO:
        return _envido_violation(hand, seat, call)
    if not state.rules.flor:
        return Reason.FLOR_DISABLED, "this match is played without flor"
    return _flor_violation(hand, seat, call)


def _truco_violation(hand: HandState, seat: int, call: CallKind) -> Violation | None:
    pending = hand.pending
    if pending is not None:
        answering = answers_pending(hand, seat)
        if answering is None:
            return Reason.CALL_PENDING, "wait for the rivals to answer your team's call"
        if answering.call.family is not Family.TRUCO:
            return Reason.CALL_PENDING, f"the {answering.call.spoken} must be answered first"
        raise_ = truco_raise_answering(answering)
        if raise_ is None:
            return Reason.TRUCO_AT_MAXIMUM, "vale cuatro is the highest call"
        if call is not raise_:
            return Reason.TRUCO_OUT_OF_ORDER, f"the {answering.call.spoken} can only be raised to {raise_.spoken}"
        return None
    problem = _turn_violation(hand, seat)
    if problem is not None:
        return problem
    expected = next_truco_call(hand.truco_value)
    if expected is None:
        return Reason.TRUCO_AT_MAXIMUM, "vale cuatro is the highest call"
    if truco_call_on_turn(hand, seat) is None:
        return Reason.RAISE_NOT_YOURS, "only the team that accepted the last call may raise it"
    if call is not expected:
        return Reason.TRUCO_OUT_OF_ORDER, f"the next grito is {expected.spoken}"
    return None


def _envido_violation(hand: HandState, seat: int, call: CallKind) -> Violation | None:
    bet = hand.bet_pending
    if bet is not None and bet.call.family is Family.ENVIDO:
        if answers_pending(hand, seat) is None:
            return Reason.ANSWER_NOT_YOURS, "your team made this call: the rivals answer it"
        if sings_flor(hand, seat):
            return Reason.ENVIDO_CLOSED, "your flor voids the envido"
        if call not in envido.allowed_envido_calls(hand.envido_chain):
            return Reason.ENVIDO_RAISE_INVALID, f"{call.spoken} cannot follow {bet.call.spoken} here"
        return None
    if bet is not None:
        return Reason.CALL_PENDING, f"the {bet.call.spoken} must be answered first"
    if not envido_open_for(hand, seat):
        if hand.truco_owner is not None and not hand.envido_chain:
            return Reason.ENVIDO_CLOSED, "a truco was accepted: the envido is closed for this hand"
        return Reason.ENVIDO_CLOSED, (
            "the envido is called in the first round, before one's card, once a hand, and never with flor"
        )
    truco = hand.truco_pending
    if truco is not None:
        if answers_pending(hand, seat) is None:
            return Reason.CALL_PENDING, "wait for the rivals to answer your team's call"
        return None  # el envido está primero
    return _turn_violation(hand, seat)


def _flor_violation(hand: HandState, seat: int, call: CallKind) -> Violation | None:
    bet = hand.bet_pending
    if bet is not None and bet.call.family is Family.FLOR:
        if answers_pending(hand, seat) is None:
            return Reason.ANSWER_NOT_YOURS, "your team made this call: the rivals answer it"
        if call not in flor.allowed_flor_calls(hand.flor_chain):
            return Reason.FLOR_RAISE_INVALID, f"{call.spoken} cannot follow {bet.call.spoken}"
        return None
    problem = _turn_violation(hand, seat)
    if problem is not None:
        return problem
    if not flor_contest_open_for(hand, seat):
        return Reason.NO_FLOR_CONTEST, "flor raises need your own flor against a rival flor already sung"
    return None


def _sena_violation(state: MatchState, hand: HandState, seat: int, sena: Sena) -> Violation | None:
    if not state.rules.senas:
        return Reason.SENAS_DISABLED, "this match is played without señas"
    if sena not in allowed_senas(state, hand, seat):
        return Reason.SENA_NOT_ALLOWED, (
            "a seña needs a teammate in the hand, must be true of your unplayed cards, and is sent once a hand"
        )
    return None


def _perros_decision_violation(state: MatchState, seat: int) -> Violation | None:
    if not state.rules.perros:
        return Reason.PERROS_DISABLED, "this match is played without echar los perros"
    if state.phase is not Phase.AWAITING_PERROS:
        return Reason.PERROS_NOT_NOW, "the perros are called before a deal"
    if seat not in perros_deciders(state):
        return Reason.PERROS_NOT_YOUR_TEAM, "only the dealing team may echar los perros"
    return None


def _perros_answer_violation(hand: HandState, seat: int) -> Violation | None:
    if not hand.perros_pending or hand.perros_by is None:
        return Reason.PERROS_NOT_NOW, "no perros are waiting for an answer"
    if team_of(seat) == team_of(hand.perros_by):
        return Reason.PERROS_NOT_YOUR_TEAM, "your team called the perros: the rivals answer them"
    return None


def _deal_violation(state: MatchState, command: Deal) -> Violation | None:
    problem = deck_problem(command.order) or salt_problem(command.salt)
    if problem is not None:
        raise InvalidCommand(Reason.INVALID_DEAL, problem)
    if state.phase is Phase.MATCH_OVER:
        return Reason.MATCH_OVER, "the match is over"
    if state.phase is not Phase.AWAITING_DEAL:
        return Reason.DEAL_NOT_EXPECTED, "no deal is expected now"
    return None
