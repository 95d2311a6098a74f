"""A hand the seat's team wins for sure, as the seat's view alone shows it: no bot declines a truco then.

The hand is sure when the seat holds a card no unseen card can beat or tie (nor any card on the table this round)
and its team has already won a round (the round in play is then won, tied, which leaves the hand to the team that
won a round, or lost, which brings a last round that card takes), or the first round was a parda and the seat has
not played yet in the round in play (the card takes it, and it decides). Every world its view allows agrees.
"""

from __future__ import annotations

from collections.abc import Sequence

from truco.engine import DECK, Answer, Family, SeatCommand, SeatView, strength


def sure_win(view: SeatView) -> bool:
    """Whether the seat's team wins the hand in play whatever the cards unseen and whoever plays what."""
    hand = view.public.hand
    if hand is None or not view.cards or hand.ended:
        return False
    results = hand.results
    won = any(result == view.team for result in results)
    if not won and not (results and results[0] is None):
        return False
    muestra = hand.muestra
    played = {card for plays in hand.rounds for _, card in plays}
    seen = {muestra, *view.cards, *played}
    top = max(strength(card, muestra) for card in DECK if card not in seen)
    current = hand.rounds[len(results)] if len(hand.rounds) > len(results) else ()
    if not won and any(seat == view.seat for seat, _ in current):
        return False  # after a parda, the round its card is already down in decides the hand
    table = max((strength(card, muestra) for _, card in current), default=-1)
    return max(strength(card, muestra) for card in view.cards) > max(top, table)


def accept_sure_truco(actions: Sequence[SeatCommand], view: SeatView) -> SeatCommand | None:
    """The quiero to a truco-family call pending when the hand is a sure win (None otherwise)."""
    hand = view.public.hand
    if hand is None or hand.pending is None or hand.pending.call.family is not Family.TRUCO:
        return None
    accept = next((a for a in actions if isinstance(a, Answer) and a.accept), None)
    if accept is None or not sure_win(view):
        return None
    return accept
