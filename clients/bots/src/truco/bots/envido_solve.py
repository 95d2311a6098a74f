"""Solving the 2-player envido and flor games (:mod:`truco.bots.envido_game`) into the table the bots ship.

``scripts/envido-table`` runs :func:`main`: for every falta's value of :data:`FALTAS`, with and without
the flor rule, CFR+ (:mod:`truco.bots.cfr`) runs :data:`ITERATIONS` iterations of the envido and of the flor
contest; the average strategies are rounded to thousandths (an action under :data:`FLOOR` thousandths is dropped
and the rest renormalised: what is left under it is the solver's residue, not a mix worth playing) and written as
JSON beside this module, with the perros' answers. Rounding to percents instead would cost ten times the
exploitability: a falta puts 30 points on every hundredth. Deterministic: the same sources, the same file, byte for byte
(``--check`` compares instead of writing).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Final

from .betting import Decision, decisions
from .cfr import Solver
from .envido_game import (
    envido_distribution,
    envido_tree,
    flor_distribution,
    flor_tree,
    hands_of,
    perros_accepts,
)

ITERATIONS: Final = 1000
"""CFR+ iterations per game: the envido at a falta of 30 is then exploitable by about 0.002 points a hand."""
FALTAS: Final = (*range(1, 31), 35, 40, 45, 50, 55, 60)
"""The falta values solved: every one of a match to 30, and every fifth above for matches to 40 and 60 (a falta
between two is played as the lower one's; the arena measures what that costs)."""
SCALE: Final = 1000
"""A row's probabilities are in thousandths."""
FLOOR: Final = 5
"""Thousandths under which an action is dropped from a row."""
TABLE: Final = Path(__file__).with_name("envido_table.json")
NONE: Final = 99
"""A perros threshold no hand reaches: never accept."""


def rows(node: Decision, strategy: Sequence[Sequence[float]]) -> list[int | list[int]]:
    """One row per hand: the thousandths of each action, or the action's index alone when it is played for
    sure."""
    table: list[int | list[int]] = []
    for hand in range(len(strategy[0])):
        parts = quantize([strategy[action][hand] for action in range(len(node.actions))])
        sure = [i for i, p in enumerate(parts) if p == SCALE]
        table.append(sure[0] if sure else parts)
    return table


def quantize(probs: Sequence[float]) -> list[int]:
    """``probs`` as whole thousandths summing to 1000, those under :data:`FLOOR` dropped (largest remainders)."""
    kept = [p if p * SCALE >= FLOOR else 0.0 for p in probs]
    total = sum(kept) or 1.0
    exact = [p * SCALE / total for p in kept]
    parts = [int(e) for e in exact]
    order = sorted(range(len(exact)), key=lambda i: (parts[i] - exact[i], i))
    for i in order[: SCALE - sum(parts)]:
        parts[i] += 1
    return parts


def solve(root: Decision, flor: bool, contest: bool, iterations: int) -> dict[str, list[int | list[int]]]:
    """The rounded average strategy of ``root`` after ``iterations`` of CFR+."""
    hands = hands_of(flor_distribution() if contest else envido_distribution(flor))
    solver = Solver(root, hands)
    solver.iterate(iterations)
    average = solver.average()
    return {node.key: rows(node, average[node.key]) for node in decisions(root)}


def perros(falta: int, flor: bool) -> list[int]:
    """The fewest envido points, and flor points, with which the perros' falta is accepted (:data:`NONE`:
    never)."""
    envido = envido_distribution(flor).points
    flores = flor_distribution().points
    least = next((p for p in envido if perros_accepts(p, False, falta, flor)), NONE)
    least_flor = next((p for p in flores if perros_accepts(p, True, falta, flor)), NONE)
    return [least, least_flor]


def game(falta: int, flor: bool, iterations: int = ITERATIONS) -> dict[str, Any]:
    """One falta's entry: the envido's strategy, the flor contest's (with the flor rule) and the perros'."""
    entry: dict[str, Any] = {"envido": solve(envido_tree(falta), flor, False, iterations)}
    if flor:
        entry["flor"] = solve(flor_tree(falta), flor, True, iterations)
    entry["perros"] = perros(falta, flor)
    return entry


def key(flor: bool, falta: int) -> str:
    """A game's key in the table: ``flor/30``, ``sin-flor/6``."""
    return f"{'flor' if flor else 'sin-flor'}/{falta}"


def _game(job: tuple[int, bool, int]) -> dict[str, Any]:
    return game(*job)


def build(faltas: Sequence[int] = FALTAS, iterations: int = ITERATIONS, workers: int = 1) -> dict[str, Any]:
    """The whole table (see the module's description), its games solved by ``workers`` processes (the same
    table however many)."""
    envido, flores = envido_distribution(True), flor_distribution()
    jobs = [(falta, flor, iterations) for flor in (True, False) for falta in faltas]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            games = list(pool.map(_game, jobs))
    else:
        games = [_game(job) for job in jobs]
    return {
        "method": f"CFR+, {iterations} iterations a game, thousandths (under {FLOOR} dropped)",
        "iterations": iterations,
        "scale": SCALE,
        "faltas": list(faltas),
        "points": {
            "flor": list(envido.points),
            "sin-flor": list(envido_distribution(False).points),
            "flores": list(flores.points),
        },
        "games": {key(flor, falta): solved for (falta, flor, _), solved in zip(jobs, games, strict=True)},
    }


def dump(table: dict[str, Any]) -> str:
    """The table's text: one game a line, so a change reads in a diff."""
    games = table["games"]
    head = {k: v for k, v in table.items() if k != "games"}
    lines = [json.dumps(head, separators=(",", ":"))[:-1] + ',"games":{']
    lines += [
        json.dumps(name) + ":" + json.dumps(entry, separators=(",", ":")) + ("," if i < len(games) - 1 else "")
        for i, (name, entry) in enumerate(games.items())
    ]
    return "\n".join([*lines, "}}"]) + "\n"


def main(argv: Sequence[str] = ()) -> int:
    """Write the table beside this module, or with ``--check`` say whether the shipped one is what the solver
    gives (exit 1 if not); ``--jobs N`` solves in N processes."""
    workers = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 1
    text = dump(build(workers=workers))
    if "--check" in argv:
        same = TABLE.exists() and TABLE.read_text() == text
        print(f"{TABLE}: {'up to date' if same else 'differs from what the solver gives'}")
        return 0 if same else 1
    TABLE.write_text(text)
    print(f"wrote {TABLE} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
