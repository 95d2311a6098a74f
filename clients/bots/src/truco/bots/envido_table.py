"""The shipped envido and flor equilibrium: ``envido_table.json``, made by :mod:`truco.bots.envido_solve`.

The table holds, for each falta's value solved (every one from 1 to 30, every fifth to 60) with and without the
flor rule, the thousandths of each action at each decision of the 2-player envido and flor games
(:mod:`truco.bots.envido_game`) for every points a hand may hold, and the perros' answers. Reading it needs
neither the solver nor anything but the JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from .betting import Exploitability, Strategy, decisions, exploitability
from .envido_game import (
    envido_distribution,
    envido_tree,
    flor_chance,
    flor_distribution,
    flor_tree,
    hands_of,
)

TABLE: Final = Path(__file__).with_name("envido_table.json")
SCALE: Final = 1000
"""A row's probabilities are in thousandths."""
LARGEST: Final = 30
"""The falta whose game gives every decision's actions (they are the same at every falta)."""


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TABLE.read_text())
    return data


@lru_cache(maxsize=2)
def _actions(contest: bool) -> dict[str, tuple[str, ...]]:
    """Each decision's actions, by key (the same at every falta)."""
    root = flor_tree(LARGEST) if contest else envido_tree(LARGEST)
    return {node.key: node.actions for node in decisions(root)}


def solved(falta: int) -> int:
    """The falta whose game is played for ``falta``: the largest solved one not above it (the smallest, 1, for
    a falta below it)."""
    faltas: list[int] = _data()["faltas"]
    return max((value for value in faltas if value <= falta), default=faltas[0])


def _game(flor: bool, falta: int) -> dict[str, Any]:
    game: dict[str, Any] = _data()["games"][f"{'flor' if flor else 'sin-flor'}/{solved(falta)}"]
    return game


def _points(flor: bool, contest: bool) -> list[int]:
    points: list[int] = _data()["points"]["flores" if contest else ("flor" if flor else "sin-flor")]
    return points


def _index(points: Sequence[int], held: int) -> int:
    """The row for ``held`` points: the highest known points not above them (a hand's points are always known
    ones; the fallback only guards a rule the table was not made for)."""
    best = 0
    for i, known in enumerate(points):
        if known <= held:
            best = i
    return best


@dataclass(frozen=True, slots=True)
class Row:
    """What the equilibrium plays at one decision with one hand: each action's thousandths."""

    actions: tuple[str, ...]
    parts: tuple[int, ...]

    def pick(self, draw: float) -> str:
        """The action for a uniform ``draw`` in [0, 1)."""
        threshold = draw * SCALE
        for action, part in zip(self.actions, self.parts, strict=True):
            threshold -= part
            if threshold < 0:
                return action
        return next(a for a, p in zip(self.actions, self.parts, strict=True) if p > 0)


def _row(actions: tuple[str, ...], cell: int | list[int]) -> Row:
    if isinstance(cell, int):
        return Row(actions, tuple(SCALE if i == cell else 0 for i in range(len(actions))))
    return Row(actions, tuple(cell))


def row(flor: bool, falta: int, contest: bool, key: str, points: int) -> Row | None:
    """The equilibrium's row at decision ``key`` of the envido (or, ``contest``, the flor contest) holding
    ``points``, the flor rule ``flor`` and the falta worth ``falta`` (None for a decision the games lack)."""
    actions = _actions(contest).get(key)
    if actions is None:
        return None
    cells = _game(flor, falta)["flor" if contest else "envido"][key]
    return _row(actions, cells[_index(_points(flor, contest), points)])


def perros_accepts(flor: bool, falta: int, points: int, has_flor: bool) -> bool:
    """Whether the perros' envido part (its falta, or the contra flor al resto en ley) is accepted."""
    least: list[int] = _game(flor, falta)["perros"]
    return points >= least[1 if has_flor else 0]


def strategy(flor: bool, falta: int, contest: bool) -> Strategy:
    """The table's strategy of one game, as :mod:`truco.bots.betting` reads it."""
    cells = _game(flor, falta)["flor" if contest else "envido"]
    result: dict[str, list[list[float]]] = {}
    for key, actions in _actions(contest).items():
        rows = [_row(actions, cell) for cell in cells[key]]
        result[key] = [[r.parts[a] / SCALE for r in rows] for a in range(len(actions))]
    return result


@dataclass(frozen=True, slots=True)
class Measured:
    """The table's exploitability at one falta: each game's (points per hand the game is played), and per hand of
    truco (each game weighed by how often it happens: the envido when neither hand has flor, the contest when
    both have)."""

    falta: int
    envido: Exploitability
    flor: Exploitability | None
    per_hand: float


def measure(flor: bool, falta: int) -> Measured:
    """How much a best response gains against the shipped table at ``falta`` (for a falta the table does not
    hold, the strategy it plays there, :func:`solved`'s, in the game of ``falta``)."""
    envido = exploitability(
        envido_tree(falta), hands_of(envido_distribution(flor)), strategy(flor, falta, contest=False)
    )
    contest = None
    chance = flor_chance() if flor else 0.0
    per_hand = (1 - chance) ** 2 * envido.exploitability
    if flor:
        contest = exploitability(flor_tree(falta), hands_of(flor_distribution()), strategy(flor, falta, True))
        per_hand += chance**2 * contest.exploitability
    return Measured(falta, envido, contest, per_hand)
