"""The position suite (tests/engine/positions.json, made by ``python -m tests.engine.position_suite``): each
position's best actions are proven here by going through every world its seat's view leaves possible, and the
expert answers one of them at every position."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from truco.bots import ExpertBot

from .position_suite import Position, candidates, kind_of, load, proven_best

POSITIONS = load()


def test_the_suite_covers_every_table_size_and_kind_of_question() -> None:
    assert len(POSITIONS) >= 40
    sizes = Counter(p.players for p in POSITIONS)
    assert set(sizes) == {2, 4, 6} and min(sizes.values()) >= 8
    kinds = Counter(p.name.split("-", 1)[1].rsplit("-", 1)[0] for p in POSITIONS)
    assert set(kinds) == {"answer", "card", "no-mazo"}


@pytest.mark.parametrize("position", POSITIONS, ids=lambda p: p.name)
def test_the_expert_answers_a_proven_best_action(position: Position) -> None:
    view = position.game().view(position.seat)
    offered = candidates(view)
    best = proven_best(view)
    assert best and len(best) < len(offered)  # proven, and a question: some action is worse
    assert position.name.startswith(f"{position.players}p-{kind_of(view, best)}-")
    choice = ExpertBot().choose(offered, lambda: view, random.Random(position.players))
    assert choice in best, f"{position.name}: the expert played {choice}, proven best: {best}"
