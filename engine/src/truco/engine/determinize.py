"""A full match state built from one seat's view and a guess at the cards it cannot see.

A player who thinks ahead imagines the hands its rivals (and partners) may hold and plays the match on in its
head. :func:`determinize` is that imagined table: the state a seat's view would come from had the other seats
been dealt the given cards. It reads nothing but the view and the guess, so it opens no door to hidden
information: what it builds is the caller's own hypothesis. Bots that search (``truco.bots.expert``) play each
guess on with :func:`~truco.engine.execute_legal`.

Exact for play from here on: every command is legal in it exactly when it is legal at the real table with those
cards, and yields the same events (the deal's salt is made up, so proofs differ; a shown hand lists its played
cards first). What a view does not show is left out: rival señas, the last hand's summary, seats away.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from .calls import Family
from .cards import Card
from .commands import SendSena
from .deal import order_for_hands
from .rules import RuleSet
from .schedule import HandPlan, first_hand, next_hand
from .senas import Sena, true_senas
from .state import HandState, MatchState, PendingCall, Phase
from .tantos import has_flor
from .tricks import round_result
from .views import HandView, SeatView

HYPOTHETICAL_SALT: Final = "0" * 32
"""The deal secret of an imagined state: any valid one does, nobody checks its proofs."""

PICO_CYCLE: Final = 4
"""With pico a pico, hands go redondilla, pico, pico, pico while both teams are en malas (hand 1 a redondilla)."""


def determinize(view: SeatView, hidden: Mapping[int, Sequence[Card]]) -> MatchState:
    """The state ``view`` would be seen from, had each other seat of the hand in play held ``hidden[seat]``:
    its unplayed cards, as many as the view's ``cards_left`` says.

    Between hands (a deal or the perros awaited) there is nothing hidden: ``hidden`` is empty and the state is
    ready for the next deal.

    :raises ValueError: when ``hidden`` misses a seat of the hand, has the wrong number of cards for one, or
        repeats a card (one of its own or one the view shows).
    """
    public = view.public
    rules = public.rules
    shown = public.hand
    scores = [public.scores[0], public.scores[1]]
    if public.phase is not Phase.PLAYING or shown is None:
        return MatchState(
            rules=rules,
            version=public.version,
            events_applied=public.version,
            phase=public.phase,
            scores=scores,
            plan=_next_plan(rules, shown, public.scores),
            hands_dealt=shown.number if shown is not None else 0,
            winner=public.winner,
        )
    hand = _hand_state(view, shown, hidden)
    return MatchState(
        rules=rules,
        version=public.version,
        events_applied=public.version,
        phase=public.phase,
        scores=scores,
        plan=plan_of(rules, shown),
        hands_dealt=shown.number,
        hand=hand,
        winner=public.winner,
    )


def plan_of(rules: RuleSet, hand: HandView) -> HandPlan:
    """The plan ``hand`` was dealt from. A pico a pico hand's place in its series of three follows from its
    number: picos are played from the start of the match, one series after each redondilla, until a team is en
    buenas, and never again after that."""
    if not hand.pico:
        return HandPlan(hand.dealer, hand.seats, False, hand.dealer)
    n = rules.players
    k = (hand.number - 1) % PICO_CYCLE  # 1, 2 or 3: the series' first, second or third pico hand
    rotation_dealer = (hand.mano - k) % n
    rest = tuple(((rotation_dealer + j) % n, (rotation_dealer + j + 3) % n) for j in range(k + 1, PICO_CYCLE))
    return HandPlan(hand.dealer, hand.seats, True, rotation_dealer, rest)


def _next_plan(rules: RuleSet, last: HandView | None, scores: tuple[int, int]) -> HandPlan:
    if last is None:
        return first_hand(rules, rules.players - 1)
    return next_hand(rules, plan_of(rules, last), scores)


def _hand_state(view: SeatView, shown: HandView, hidden: Mapping[int, Sequence[Card]]) -> HandState:
    rules = view.public.rules
    muestra = shown.muestra
    played, unplayed = _cards(view, shown, hidden)
    dealt = {seat: (*played[seat], *unplayed[seat]) for seat in shown.seats}
    every = [card for cards in dealt.values() for card in cards]
    every.append(muestra)
    if len(set(every)) != len(every):
        raise ValueError("a card is dealt twice: the hidden cards must be other than every card the view shows")
    flor_holders = tuple(seat for seat in shown.seats if rules.flor and has_flor(dealt[seat], muestra))
    truco_pending, bet_pending = _pending(shown)
    rounds = [list(plays) for plays in shown.rounds]
    while len(rounds) < min(len(shown.results) + 1, 3):
        rounds.append([])
    flor_pending = bet_pending is not None and bet_pending.call.family is Family.FLOR
    return HandState(
        number=shown.number,
        dealer=shown.dealer,
        seats=shown.seats,
        pico=shown.pico,
        muestra=muestra,
        order=order_for_hands([dealt[seat] for seat in shown.seats], muestra),
        salt=HYPOTHETICAL_SALT,
        dealt=dealt,
        flor_holders=flor_holders,
        unplayed=unplayed,
        rounds=rounds,
        results=list(shown.results),
        turn=_turn(shown, rounds),
        acted={seat for seat in shown.seats if played[seat]},
        truco_value=shown.truco_value,
        truco_owner=shown.truco_owner,
        truco_pending=truco_pending,
        envido_chain=list(shown.envido_chain),
        envido_closed=shown.envido_closed,
        envido_winner=shown.envido_winner,
        flor_sung=list(shown.flor_sung),
        flor_chain=list(shown.flor_chain),
        # Every way a flor contest ends shows in the view: a winner compared, a chain of raises answered, or the
        # first round over (the flores are counted then, every holder having acted and so sung).
        flor_settled=not flor_pending
        and (shown.flor_winner is not None or bool(shown.flor_chain) or bool(shown.results and shown.flor_sung)),
        flor_winner=shown.flor_winner,
        bet_pending=bet_pending,
        perros_by=shown.perros_by,
        perros_answered=shown.perros_by is not None and not shown.perros_pending,
        senas=[*view.senas, *_own_senas(view, shown)],
        points=[shown.points[0], shown.points[1]],
    )


def _cards(
    view: SeatView, shown: HandView, hidden: Mapping[int, Sequence[Card]]
) -> tuple[dict[int, list[Card]], dict[int, list[Card]]]:
    """Each seat's cards played this hand, and its unplayed ones: the seat's own, or ``hidden``'s guess."""
    played: dict[int, list[Card]] = {seat: [] for seat in shown.seats}
    for plays in shown.rounds:
        for seat, card in plays:
            played[seat].append(card)
    left = dict(shown.cards_left)
    unplayed: dict[int, list[Card]] = {}
    for seat in shown.seats:
        cards = list(view.cards) if seat == view.seat else list(hidden.get(seat, ()))
        if len(cards) != left.get(seat, 0):
            raise ValueError(f"seat {seat} holds {left.get(seat, 0)} unplayed cards, not {len(cards)}")
        unplayed[seat] = cards
    return played, unplayed


def _pending(shown: HandView) -> tuple[PendingCall | None, PendingCall | None]:
    """The truco call and the other bet (envido, flor) awaiting an answer, as the view lists them."""
    truco_pending: PendingCall | None = None
    bet_pending: PendingCall | None = None
    for pending in shown.pending_calls:
        if pending.call.family is Family.TRUCO:
            truco_pending = PendingCall(pending.call, pending.seat)
        else:
            bet_pending = PendingCall(pending.call, pending.seat)
    return truco_pending, bet_pending


def _own_senas(view: SeatView, shown: HandView) -> list[tuple[int, Sena]]:
    """The señas the seat sent this hand, as far as they still matter: a view does not list them, but a seña
    true of its cards that it may no longer send was sent."""
    rules = view.public.rules
    if not (rules.senas and len(shown.seats) > 2 and view.cards):
        return []
    allowed = {action.sena for action in view.legal_actions if isinstance(action, SendSena)}
    true = true_senas(view.cards, shown.muestra)
    return [(view.seat, sena) for sena in Sena if sena in true and sena not in allowed]


def _turn(shown: HandView, rounds: list[list[tuple[int, Card]]]) -> int:
    """Whose turn it is, or will be once the pending call is answered: the view shows it only while nobody must
    answer first."""
    if shown.turn is not None:
        return shown.turn
    current = rounds[-1]
    seats = shown.seats
    if current:
        return seats[(seats.index(current[-1][0]) + 1) % len(seats)]
    if not shown.results:
        return shown.mano
    _, leader = round_result(rounds[len(shown.results) - 1], shown.muestra)
    return leader


__all__ = ["determinize", "plan_of"]
