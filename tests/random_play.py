"""Driving tables: the deterministic (or seeded random) policy that plays a move, a match, or until a condition."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from truco_client.v1 import (
    commands_pb2,
    game_service_pb2,
    views_pb2,
)

from .players import Table


@dataclass
class Move:
    """One move of the deterministic policy: who moved, what it and a spectator saw, what it sent and got back."""

    seat: int
    spectator: game_service_pb2.GetGameViewResponse
    before: game_service_pb2.GetGameViewResponse
    command: commands_pb2.Command
    response: game_service_pb2.SubmitCommandResponse


def step(table: Table, rng: random.Random | None = None) -> Move | None:
    """One move of the policy: the first seat of ``to_act`` sends the first legal action of its own view (with
    ``rng``: a random one, señas aside), with the version it saw as ``expected_version``. None once the match is
    over."""
    spectator = table.spectator.view(table.name)
    public = spectator.public
    if public.phase == views_pb2.PHASE_MATCH_OVER:
        return None
    assert public.to_act, f"nobody to act at version {public.version} in phase {public.phase}"
    player = table.players[public.to_act[0]]
    before = player.view(table.name)
    view = before.seat
    assert view.seat == player.seat and player.seat in view.public.to_act
    assert view.legal_actions, f"seat {player.seat} must act but has no legal action"
    command = view.legal_actions[0]
    if rng is not None:
        command = rng.choice([a for a in view.legal_actions if a.WhichOneof("kind") != "send_sena"])
    response = player.submit(table.name, command, expected_version=view.public.version)
    assert response.version > view.public.version
    assert player.seat is not None
    return Move(player.seat, spectator, before, command, response)


def play_to_end(table: Table, limit: int = 5000, rng: random.Random | None = None) -> list[Move]:
    moves: list[Move] = []
    for _ in range(limit):
        move = step(table, rng)
        if move is None:
            return moves
        moves.append(move)
    raise AssertionError(f"the match did not end within {limit} moves")


def play_until(table: Table, done: Callable[[Table], bool], limit: int = 500) -> list[Move]:
    moves: list[Move] = []
    for _ in range(limit):
        if done(table):
            return moves
        move = step(table)
        assert move is not None, "the match ended first"
        moves.append(move)
    raise AssertionError(f"not done within {limit} moves")


def snapshot(table: Table) -> list[bytes]:
    """Every seat's view and the spectator's, serialized: compare two to prove nothing changed."""
    return [p.view(table.name).SerializeToString(deterministic=True) for p in (*table.players, table.spectator)]


@contextlib.contextmanager
def unchanged(table: Table) -> Iterator[None]:
    """Assert that the block changes nothing: the version and every view are identical before and after."""
    before = snapshot(table)
    yield
    after = snapshot(table)
    assert after == before, "a refused command changed a view"
