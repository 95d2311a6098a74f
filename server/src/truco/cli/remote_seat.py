"""One seat of a game played over gRPC by a bot of :mod:`truco.bots` through the Python SDK: the arena's stand-in
for a bot outside its process (``truco arena expert remote:heuristic``), and the shape any SDK's bot takes to
enter the arena (``cmd:``).

    python -m truco.cli.remote_seat ADDRESS GAME SEAT BOT [--seed S]

It joins ``SEAT`` of ``GAME`` (``games/ID``) on the server at ``ADDRESS``, then reads its view whenever the match
waits for it and sends the bot's choice with the version it saw, until the match is over. It sees what any
client sees: its seat's view.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections.abc import Sequence
from functools import partial

from truco.bots import make_bot
from truco.wire import as_wire, command_from_pb, seat_view_from_pb
from truco.wire.v1 import commands_pb2 as wire_commands
from truco.wire.v1 import views_pb2 as wire_views
from truco_client import IllegalMove, TrucoClient, VersionConflict
from truco_client.v1 import views_pb2

POLL_SECONDS = 0.005
"""How long the seat waits before reading its view again while the match waits for someone else."""


async def play_seat(address: str, game: str, seat: int, bot_name: str, seed: int) -> None:
    """Join ``seat`` of ``game`` and play it with ``bot_name`` to the end of the match."""
    bot = make_bot(bot_name)
    rng = random.Random(seed)
    async with TrucoClient(address, timeout=30.0) as client:
        joined = await client.join_game(game, seat=seat, player_name=f"arena-{bot_name}")
        view = joined.view
        while view.public.phase != views_pb2.PHASE_MATCH_OVER:
            actions = [a for a in view.legal_actions if a.WhichOneof("kind") != "send_sena"]
            if seat not in view.public.to_act or not actions:
                await asyncio.sleep(POLL_SECONDS)
                response = await client.get_view(game)
                view = response.seat
                continue
            engine_actions = [command_from_pb(as_wire(a, wire_commands.Command), seat) for a in actions]
            chosen = bot.choose(engine_actions, partial(seat_view_from_pb, as_wire(view, wire_views.SeatView)), rng)
            command = actions[engine_actions.index(chosen)]
            try:
                view = (await client.submit(game, command, expected_version=view.public.version)).view
            except (VersionConflict, IllegalMove):
                view = (await client.get_view(game)).seat


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m truco.cli.remote_seat", description=__doc__.split("\n\n")[0])
    parser.add_argument("address")
    parser.add_argument("game")
    parser.add_argument("seat", type=int)
    parser.add_argument("bot")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    asyncio.run(play_seat(args.address, args.game, args.seat, args.bot, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
