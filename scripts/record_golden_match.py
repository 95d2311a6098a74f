#!/usr/bin/env python3
"""Record tests/store/data/golden-match-schema{N}.bin, N the current messages.EVENT_SCHEMA: a whole 4-player match
(señas, flor, perros included) as stored events, so tests/store/test_stored_events.py proves matches stored today still
replay after the proto grows.

Run once per event schema; never regenerate an existing file (it stands for matches already in stores).
"""

from __future__ import annotations

import json
import random
import struct
import sys
from pathlib import Path

from truco.cli.simulate import deal_command
from truco.engine import Game, RuleSet
from truco.server.service import messages

OUT = Path(__file__).resolve().parent.parent / "tests" / "store" / "data"


def main() -> int:
    rng = random.Random(20261129)
    game = Game(RuleSet(players=4, perros=True))
    while not game.over:
        waiting = game.actors()
        if not waiting:
            game.execute(deal_command(rng))
            continue
        seat = rng.choice(waiting)
        actions = game.legal_actions(seat)
        game.execute(actions[int(rng.random() * len(actions))])
    records = bytearray()
    for event in game.events:
        kind, schema, payload = messages.encode_event(event)
        name = kind.encode()
        records += struct.pack(">HHI", len(name), schema, len(payload)) + name + payload
    (OUT / f"golden-match-schema{messages.EVENT_SCHEMA}.bin").write_bytes(bytes(records))
    summary = {
        "events": len(game.events),
        "version": game.version,
        "scores": list(game.state.scores),
        "winner": game.state.winner,
        "hands": game.state.hands_dealt,
    }
    (OUT / f"golden-match-schema{messages.EVENT_SCHEMA}.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
