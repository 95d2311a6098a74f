"""How likely a team is to win the match from a score: what a search weighs the end of a hand by.

Points are not all worth the same: at 28 to 29 one point decides the match, at 2 to 3 it hardly matters. A
bot that wants to win the *match* values a hand's outcome by the chance of winning from the score it leaves,
which this table gives: P(win | our score, their score) for a match to ``target``, from a typical hand's points
(:data:`HAND_POINTS`) by dynamic programming from the end of the match backwards.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

HAND_POINTS: Final = (
    (1, 1, 0.139), (0, 2, 0.113), (2, 0, 0.113), (1, 0, 0.108), (0, 1, 0.108), (0, 4, 0.077), (4, 0, 0.077),
    (3, 1, 0.039), (1, 3, 0.039), (3, 0, 0.025), (0, 3, 0.025), (5, 0, 0.025), (0, 5, 0.025), (3, 2, 0.015),
    (2, 3, 0.015), (1, 2, 0.015), (2, 1, 0.015), (0, 6, 0.006), (6, 0, 0.006), (7, 0, 0.004), (0, 7, 0.004),
    (1, 5, 0.003), (5, 1, 0.003),
)  # fmt: skip
"""(points to one team, points to the other, probability) of a hand between two sound players, both ways round
(the mano alternates): 2,000 hands of heuristic bots to 30, the falta envidos left out (they depend on the
score, and are what the search itself plays out)."""


@lru_cache(maxsize=8)
def win_table(target: int) -> tuple[tuple[float, ...], ...]:
    """``win_table(target)[ours][theirs]``: the chance the team with ``ours`` points wins, both below ``target``
    (a score at the target is a match decided: 1.0 or 0.0 on the edges of the table, which is ``target + 1``
    square)."""
    size = target + 1
    table = [[0.0] * size for _ in range(size)]
    for ours in range(size):
        table[ours][target] = 0.0
        table[target][ours] = 1.0
    table[target][target] = 0.5
    total = sum(p for _, _, p in HAND_POINTS)
    # Every hand gives somebody a point, so a score depends only on scores with more points in all: fill the
    # table from the largest sums down.
    for level in range(2 * target - 2, -1, -1):
        for ours in range(max(0, level - target + 1), min(level, target - 1) + 1):
            theirs = level - ours
            value = 0.0
            for gain, loss, p in HAND_POINTS:
                a, b = ours + gain, theirs + loss
                if a >= target and b >= target:
                    value += p * 0.5  # both reach it in one hand: who got there first is a toss-up here
                else:
                    value += p * table[min(a, target)][min(b, target)]
            table[ours][theirs] = value / total
    return tuple(tuple(row) for row in table)


def win_chance(target: int, ours: int, theirs: int) -> float:
    """The chance a team with ``ours`` points beats one with ``theirs`` in a match to ``target``.

    >>> round(win_chance(30, 0, 0), 2), win_chance(30, 30, 12), round(win_chance(30, 29, 29), 2)
    (0.5, 1.0, 0.5)
    >>> win_chance(30, 20, 10) > win_chance(30, 10, 20)
    True
    """
    return win_table(target)[min(ours, target)][min(theirs, target)]
