"""Habits a strong player would call unsound, counted over a bot's real decisions (the arena's gauntlet).

Each decision is classified from the seat's view and the action taken, nothing else:

- **falta share**: of its envido-family calls made while both teams are en malas (a falta envido then decides the
  match), the share that are falta envido;
- **early mazo**: going to the mazo before playing its first card of the hand, per hand played;
- **bluff truco**: a truco-family call (truco, retruco, vale cuatro) holding no card of a 2 or better and no round
  won, per hand played;
- **wasted mata or pieza**: a responding play (a rival's card leads the round and no rival is left to play in it,
  so the play decides the round) that spends a mata or pieza when a lower card of its own also beats every card
  on the table, per responding play. With 4 or 6 players a seat with a rival still to play is not responding: a
  card that only beats the table may lose to the next one, so spending strength there is no waste.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from truco.engine import Call, CallKind, Card, Family, GoToMazo, PlayCard, SeatCommand, SeatView, strength, team_of

from .base import current_round

GOOD: Final = 9
"""The strength of a 2."""
STRONG: Final = 11
"""The strength of the 7 de oro: from it up a card is a mata or a pieza."""


COUNTS: Final = (
    "hands",
    "decisions",
    "envido_calls_malas",
    "falta_calls_malas",
    "early_mazos",
    "truco_calls",
    "bluff_trucos",
    "responding_plays",
    "wasted_plays",
)
"""The counts a :class:`Habits` keeps (named here: a compiled class has no ``__slots__`` to list them)."""


@dataclass(slots=True)
class Habits:
    """The counts behind the habit figures of one bot."""

    hands: int = 0
    decisions: int = 0
    envido_calls_malas: int = 0
    falta_calls_malas: int = 0
    early_mazos: int = 0
    truco_calls: int = 0
    bluff_trucos: int = 0
    responding_plays: int = 0
    wasted_plays: int = 0

    def record(self, view: SeatView, action: SeatCommand) -> None:
        """Count one decision: ``action``, taken by the seat that sees ``view``."""
        hand = view.public.hand
        if hand is None:
            return
        self.decisions += 1
        if isinstance(action, Call):
            family = action.call.family
            if family is Family.ENVIDO and max(view.public.scores) < view.public.rules.buenas_from:
                self.envido_calls_malas += 1
                self.falta_calls_malas += action.call is CallKind.FALTA_ENVIDO
            elif family is Family.TRUCO:
                self.truco_calls += 1
                self.bluff_trucos += is_bluff(view)
        elif isinstance(action, GoToMazo):
            self.early_mazos += not any(seat == view.seat for plays in hand.rounds for seat, _ in plays)
        elif isinstance(action, PlayCard):
            wasted = wasted_play(view, action)
            if wasted is not None:
                self.responding_plays += 1
                self.wasted_plays += wasted

    def add(self, other: Habits) -> None:
        for name in COUNTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def figures(self) -> dict[str, Any]:
        """The figures (see the module's description) with the counts they come from."""
        return {
            "falta_share_malas": _share(self.falta_calls_malas, self.envido_calls_malas),
            "early_mazo_per_hand": _share(self.early_mazos, self.hands),
            "bluff_truco_per_hand": _share(self.bluff_trucos, self.hands),
            "truco_calls_per_hand": _share(self.truco_calls, self.hands),
            "wasted_share": _share(self.wasted_plays, self.responding_plays),
            "counts": {name: getattr(self, name) for name in COUNTS},
        }


def is_bluff(view: SeatView) -> bool:
    """Whether a truco-family call now is a bluff a strong player sees through: no card of a 2 or better left
    and no round won."""
    hand = view.public.hand
    assert hand is not None
    fair = any(strength(card, hand.muestra) >= GOOD for card in view.cards)
    return not fair and not any(result == view.team for result in hand.results)


def wasted_play(view: SeatView, play: PlayCard) -> bool | None:
    """None when ``play`` does not respond to a rival's leading card as the round's last rival-facing play; else
    whether it spends a mata or pieza that a lower card of the seat's own would have replaced (it too beats every
    card on the table)."""
    hand = view.public.hand
    assert hand is not None
    current = current_round(hand)
    if not current or _rival_to_play(hand.seats, current, view.seat):
        return None
    muestra = hand.muestra
    best_seat, best_card = max(current, key=lambda played: strength(played[1], muestra))
    best = strength(best_card, muestra)
    if team_of(best_seat) == view.team:
        return None
    power = strength(play.card, muestra)
    if power < STRONG or power <= best:
        return False
    return any(best < strength(card, muestra) < power for card in view.cards if card != play.card)


def _rival_to_play(seats: tuple[int, ...], current: tuple[tuple[int, Card], ...], seat: int) -> bool:
    played = {played_by for played_by, _ in current}
    return any(team_of(other) != team_of(seat) and other not in played for other in seats)


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None
