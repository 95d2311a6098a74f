"""Rounds (vueltas) and who takes the hand, with the pardas table of 000."""

from __future__ import annotations

from collections.abc import Sequence

from .cards import Card, strength_table


def team_of(seat: int) -> int:
    """Seats alternate teams: even seats are team 0, odd seats team 1."""
    return seat & 1


def round_result(plays: Sequence[tuple[int, Card]], muestra: Card) -> tuple[int | None, int]:
    """The team that wins a finished round (None for a parda) and the seat that leads the next one.

    The best card takes the round. A round is parda only when the best cards of the two teams tie; a tie
    inside one team is that team's round, led next by whichever of them played the card first. After a parda
    the seat that led the tied round leads again.
    """
    table = strength_table(muestra)
    best = -1
    best_seat = plays[0][0]
    best_teams = 0
    for seat, card in plays:
        value = table[card.index]
        if value > best:
            best, best_seat, best_teams = value, seat, 1 << team_of(seat)
        elif value == best:
            best_teams |= 1 << team_of(seat)
    if best_teams == 0b11:
        return None, plays[0][0]
    return team_of(best_seat), best_seat


def hand_winner(results: Sequence[int | None], mano_team: int) -> int | None:
    """The team that takes the hand from the results of its finished rounds (None in a result is a parda), or
    None while undecided.

    A parda in round 1 lets round 2 decide (round 3 if round 2 is parda too); a parda in round 2 or 3 goes to
    the winner of round 1; three pardas go to the mano's team.

    >>> hand_winner([0, 1, None], mano_team=1)
    0
    """
    if not results:
        return None
    first = results[0]
    if first is not None:
        if len(results) < 2:
            return None
        second = results[1]
        if second is None or second == first:
            return first
        if len(results) < 3:
            return None
        third = results[2]
        return first if third is None else third
    for later in results[1:]:
        if later is not None:
            return later
    return mano_team if len(results) == 3 else None
