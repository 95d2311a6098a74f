"""The Python SDK's example bot, the same as the TypeScript, Go and Java ones (scripts/sdk-play runs each).

It creates a match against the server's heuristic bots, plays its seats to the end, and tries one illegal card
(one not in its hand) on its first turn to show the typed error. It prints one JSON line::

    {"sdk": "python", "over": true, "scores": [a, b], "illegal_reason": "CARD_NOT_IN_HAND", ...}

and exits 0 only if the match ended and the illegal card was refused with CARD_NOT_IN_HAND.

    python bot.py ADDRESS                        2 players: this bot in seat 0, a server bot in seat 1
    python bot.py ADDRESS --players 4 --watch    4 players (or 6): this bot's seats are the even ones (a client
                                                 each), server bots the odd ones; each seat waits for its turn on
                                                 a WatchGame stream that resumes by itself after a dropped
                                                 connection or a server restart
    python bot.py ADDRESS --players 4 --session  the same, each seat playing its whole match on one PlayGame
                                                 stream (commands in, commits out) that also resumes by itself
    --target N (points to win), --think-ms N (a pause before each move), --bot-level LEVEL (the server bots')

It runs against a server with its default settings (quotas on): the SDK waits out a quota's RetryInfo itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field

from truco_client import (
    IllegalMove,
    PlaySession,
    TrucoClient,
    TrucoError,
    VersionConflict,
    card_text,
    is_my_turn,
    is_over,
    plain_bot,
    play,
)
from truco_client.v1 import views_pb2
from truco_client.v1.game_service_pb2 import WatchGameResponse

RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
DECK = [f"{rank}{suit}" for suit in "eboc" for rank in RANKS]
POLL_SECONDS = 0.2
"""How often a polling seat reads its view while it waits (5 reads a second, well inside a player's quota)."""


def log(line: str) -> None:
    print(f"bot(python): {line}", file=sys.stderr, flush=True)


@dataclass
class State:
    illegal_reason: str = ""
    moves: int = 0
    resumes: int = 0
    watched: list[int] = field(default_factory=list)
    """The versions of the events the first seat's watch delivered, in order (señas aside: they keep the version
    of the event before them)."""


async def try_illegal_card(client: TrucoClient | PlaySession, name: str, view: views_pb2.SeatView) -> str:
    held = {card_text(c) for c in view.cards}
    stranger = next(text for text in DECK if text not in held)
    try:
        if isinstance(client, PlaySession):
            await client.submit(play(stranger), expected_version=view.public.version)
        else:
            await client.submit(name, play(stranger), expected_version=view.public.version)
    except IllegalMove as error:
        log(f"illegal {stranger} refused: {error}")
        return error.reason
    return "ACCEPTED"


async def act(client: TrucoClient, name: str, view: views_pb2.SeatView, state: State, think: float) -> None:
    """One move for the seat when the match waits for it: the SDK's turn helper submits plain_bot's choice and
    reads the view again if the game moved on first (ABORTED)."""
    if not is_my_turn(view):
        return
    if not state.illegal_reason and any(a.WhichOneof("kind") == "play_card" for a in view.legal_actions):
        state.illegal_reason = await try_illegal_card(client, name, view)
    await asyncio.sleep(think)
    if await client.play_turn(name, plain_bot, view=view) is not None:
        state.moves += 1


async def play_by_polling(client: TrucoClient, name: str, view: views_pb2.SeatView, state: State, think: float) -> None:
    while not is_over(view):
        if is_my_turn(view):
            await act(client, name, view, state, think)
        else:
            await asyncio.sleep(POLL_SECONDS)
        view = (await client.get_view(name)).seat


async def play_by_watching(
    client: TrucoClient, name: str, view: views_pb2.SeatView, state: State, think: float
) -> None:
    await act(client, name, view, state, think)

    def resumed(after: int, error: TrucoError) -> None:
        state.resumes += 1
        log(f"seat {view.seat}: watch broken ({error.code.name}), resuming after version {after}")

    # The SDK's watch reopens a broken stream after the last version it delivered.
    items = client.watch(name, after_version=view.public.version, on_resume=resumed)
    await follow(items, view.seat, state, lambda seen: act(client, name, seen, state, think))


async def follow(
    items: AsyncGenerator[WatchGameResponse, None],
    seat: int,
    state: State,
    act_on: Callable[[views_pb2.SeatView], Awaitable[None]],
) -> None:
    """Each event of a commit comes in order, the seat's view after the commit with its last one: seat 0 records
    the versions, and every seat acts on each view until the match is over."""
    async with aclosing(items):
        async for item in items:
            if seat == 0 and item.event.WhichOneof("kind") != "sena_sent":
                state.watched.append(item.event.version)
            if not item.HasField("seat"):
                continue
            if is_over(item.seat):
                return
            await act_on(item.seat)


async def act_in_session(session: PlaySession, view: views_pb2.SeatView, state: State, think: float) -> None:
    """The session's move for the seat when the match waits for it. A move the game overtook (ABORTED) needs no
    second try: the commit that overtook it is on its way, with the view to choose from."""
    if not is_my_turn(view):
        return
    if not state.illegal_reason and any(a.WhichOneof("kind") == "play_card" for a in view.legal_actions):
        state.illegal_reason = await try_illegal_card(session, session.name, view)
    await asyncio.sleep(think)
    command = plain_bot(view)
    if command is None:
        return
    try:
        await session.submit(command, expected_version=view.public.version)
        state.moves += 1
    except VersionConflict:
        pass
    except IllegalMove as error:
        # A teammate's answer ended the match first: the session ended before this command's outcome.
        if error.reason != "MATCH_OVER":
            raise


async def play_by_session(client: TrucoClient, name: str, view: views_pb2.SeatView, state: State, think: float) -> None:
    def resumed(after: int, error: TrucoError) -> None:
        state.resumes += 1
        log(f"seat {view.seat}: session broken ({error.code.name}), resuming after version {after}")

    # One PlayGame stream: commands go out on it, and its events come as the watch's do.
    async with client.play(name, after_version=view.public.version, on_resume=resumed) as session:
        await act_in_session(session, view, state, think)
        await follow(session.events(), view.seat, state, lambda seen: act_in_session(session, seen, state, think))


async def main() -> int:
    parser = argparse.ArgumentParser(description="The Python SDK's example bot.")
    parser.add_argument("address")
    parser.add_argument("--players", type=int, choices=(2, 4, 6), default=2)
    parser.add_argument("--watch", action="store_true")
    parser.add_argument("--session", action="store_true")
    parser.add_argument("--target", type=int, default=0)
    parser.add_argument("--think-ms", type=int, default=0)
    parser.add_argument("--bot-level", choices=("beginner", "intermediate", "expert"))
    args = parser.parse_args()
    # Watching seats ride out a server restart: more retries, and gRPC's reconnect backoff kept short.
    retries = 60 if args.watch or args.session else 4
    options = [("grpc.initial_reconnect_backoff_ms", 200), ("grpc.max_reconnect_backoff_ms", 1000)]
    api_key = os.environ.get("TRUCO_API_KEY") or None
    async with TrucoClient(args.address, api_key=api_key, retries=retries, max_backoff=1.0, options=options) as creator:
        # The bot seats are the odd ones (the rival team); this bot plays every even seat.
        bots = {seat: "heuristic" for seat in range(1, args.players, 2)}
        rules = {"players": args.players, **({"target": args.target} if args.target else {})}
        game = await creator.create_game(rules=rules, bots=bots, bot_level=args.bot_level)
        log(f"game {game.name}")
        state = State()
        think = args.think_ms / 1000
        seats = list(range(0, args.players, 2))
        clients = [creator.with_token(None) for _ in seats]
        pairs = zip(clients, seats, strict=True)
        joined = [await c.join_game(game.name, seat=s, player_name=f"python bot {s}") for c, s in pairs]
        views = [result.view for result in joined]
        play_seat = play_by_session if args.session else play_by_watching if args.watch else play_by_polling
        await asyncio.gather(*(play_seat(c, game.name, v, state, think) for c, v in zip(clients, views, strict=True)))
        final = (await clients[0].get_view(game.name)).seat
        scores = [next((s.points for s in final.public.scores if s.team == team), 0) for team in (0, 1)]
        over = is_over(final)
        result = {
            "sdk": "python",
            "over": over,
            "scores": scores,
            "illegal_reason": state.illegal_reason,
            "game": game.name,
            "players": args.players,
            "moves": state.moves,
            "resumes": state.resumes,
            "watched": state.watched,
        }
        print(json.dumps(result), flush=True)
        return 0 if over and state.illegal_reason == "CARD_NOT_IN_HAND" else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
