"""A hand the seat's team wins for sure, as the seat's view alone shows it: no bot declines a truco then.

The hand is sure when its team has already won a round, or the first round was a parda, and either its team's
card on the table leads the round in play beyond what any unseen card could reach (the round is its team's), or
the seat holds such a card and has not played this round yet (it takes this round), or, after a won round, later
(a won round and a tied one give the hand to the team that won, a round lost brings a last round that card takes).
Every world its view allows agrees.
"""

from __future__ import annotations

from collections.abc import Sequence

from truco.engine import DECK, Answer, Call, Family, SeatCommand, SeatView, strength, team_of


def sure_win(view: SeatView) -> bool:
    """Whether the seat's team wins the hand in play whatever the cards unseen and whoever plays what."""
    hand = view.public.hand
    if hand is None or hand.ended:
        return False
    results = hand.results
    won = any(result == view.team for result in results)
    if not won and not (results and results[0] is None):
        return False
    muestra = hand.muestra
    played = {card for plays in hand.rounds for _, card in plays}
    seen = {muestra, *view.cards, *played}
    top = max((strength(card, muestra) for card in DECK if card not in seen), default=-1)
    current = hand.rounds[len(results)] if len(hand.rounds) > len(results) else ()
    table = max((strength(card, muestra) for _, card in current), default=-1)
    if table > top and all(team_of(seat) == view.team for seat, card in current if strength(card, muestra) == table):
        return True  # its team's card on the table takes this round, whatever is still to come
    if not view.cards or max(strength(card, muestra) for card in view.cards) <= max(top, table):
        return False
    # After a parda only the round in play decides: the sure card must still be the seat's to play in it.
    return won or not any(seat == view.seat for seat, _ in current)


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
