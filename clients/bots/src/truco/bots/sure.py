"""A hand the seat's team wins for sure, as the seat's view alone shows it: no bot declines a truco then.

A card beyond what any unseen card could reach takes the round it is played in: the hand is sure when the rounds
its team has won, and those such cards take for sure (its team's on the table in the round in play, and the
seat's own, one a round still to come), make two; or, after pardas only, when the round in play is sure. A round
won and one tied give the hand to the team that won, so two sure rounds are enough whatever else happens. Every
world its view allows agrees.
"""

from __future__ import annotations

from collections.abc import Sequence

from truco.engine import DECK, Answer, Call, Family, SeatCommand, SeatView, strength, team_of

from .base import current_round


def sure_win(view: SeatView) -> bool:
    """Whether the seat's team wins the hand in play whatever the cards unseen and whoever plays what."""
    hand = view.public.hand
    if hand is None or hand.ended:
        return False
    results = hand.results
    muestra = hand.muestra
    seen = {muestra, *view.cards, *(card for plays in hand.rounds for _, card in plays)}
    top = max((strength(card, muestra) for card in DECK if card not in seen), default=-1)
    now = len(results)
    current = current_round(hand)
    table = max((strength(card, muestra) for _, card in current), default=-1)
    ours = table > top and all(team_of(s) == view.team for s, card in current if strength(card, muestra) == table)
    sure = [strength(card, muestra) for card in view.cards if strength(card, muestra) > top]
    # Its sure cards take a round each: this one too if it is still to play in it and beats the table.
    this_round = not ours and not any(s == view.seat for s, _ in current) and any(p > table for p in sure)
    taken = int(ours) + min(len(sure), 3 - now if this_round else 2 - now)
    if all(result is None for result in results) and results:
        return ours or this_round  # after pardas only, the round in play decides
    won = sum(1 for result in results if result == view.team)
    return won + taken >= 2


def raise_sure_truco(actions: Sequence[SeatCommand], view: SeatView) -> Call | None:
    """A truco-family call (a raise of the one pending, or a truco on the seat's turn) when the hand is a sure win:
    declined it pays what a quiero would, accepted it pays more (None otherwise)."""
    hand = view.public.hand
    if hand is None or (hand.pending is not None and hand.pending.call.family is not Family.TRUCO):
        return None
    call = next((a for a in actions if isinstance(a, Call) and a.call.family is Family.TRUCO), None)
    if call is None or not sure_win(view):
        return None
    return call


def accept_sure_truco(actions: Sequence[SeatCommand], view: SeatView) -> SeatCommand | None:
    """The quiero to a truco-family call pending when the hand is a sure win (None otherwise)."""
    hand = view.public.hand
    if hand is None or hand.pending is None or hand.pending.call.family is not Family.TRUCO:
        return None
    accept = next((a for a in actions if isinstance(a, Answer) and a.accept), None)
    if accept is None or not sure_win(view):
        return None
    return accept
