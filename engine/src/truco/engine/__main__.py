"""``python -m truco.engine``: play whole matches with nothing but the engine installed.

Each seat picks uniformly among its legal actions and every hand is dealt from ``random.Random(seed)``, so a run
repeats exactly. It shows that the engine stands alone; ``truco simulate`` (truco-server) is the full tool, with
bots and statistics.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence

from .cards import DECK
from .game import Game
from .rules import VALID_PLAYERS, VALID_TARGETS, RuleSet

MAX_ACTIONS = 100_000
"""No real match comes near it: reaching it means the engine looped."""


def random_match(rules: RuleSet, rng: random.Random) -> Game:
    """One whole match: shuffled deals and uniformly random legal actions, both drawn from ``rng``."""
    game = Game(rules)
    for _ in range(MAX_ACTIONS):
        if game.over:
            return game
        waiting = game.actors()
        if not waiting:
            order = list(DECK)
            rng.shuffle(order)
            game.deal(order, f"{rng.getrandbits(128):032x}")
            continue
        seat = rng.choice(waiting)
        game.execute_legal(rng.choice(game.legal_actions(seat)))
    raise RuntimeError("a match did not end: this is an engine bug")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m truco.engine", description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, choices=VALID_PLAYERS, default=2)
    parser.add_argument("--target", type=int, choices=VALID_TARGETS, default=30, help="points to win")
    parser.add_argument("--games", type=int, default=1, help="matches to play (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="the run repeats exactly for the same seed")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    rules = RuleSet(players=args.players, target=args.target)
    for index in range(args.games):
        game = random_match(rules, rng)
        scores = game.state.scores
        print(f"match {index + 1}: team {game.state.winner} wins {scores[0]}-{scores[1]} in {len(game.events)} events")
    return 0


if __name__ == "__main__":
    sys.exit(main())
