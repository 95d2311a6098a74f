"""Commands (commands.proto) to and from the engine's."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from truco.engine import (
    Answer,
    AnswerPerros,
    Call,
    CallKind,
    CallPerros,
    GoToMazo,
    PlayCard,
    SeatCommand,
    Sena,
    SendSena,
    SkipPerros,
)
from truco.wire.v1 import commands_pb2

from .cards import card_from_pb, card_to_pb
from .common import DecodeError, _enum_to_pb

_CALL_TO_PB = _enum_to_pb(CallKind, commands_pb2.CallKind, "CALL_KIND_")
_CALL_FROM_PB: dict[int, CallKind] = {value: kind for kind, value in _CALL_TO_PB.items()}
_SENA_TO_PB = _enum_to_pb(Sena, commands_pb2.Sena, "SENA_")
_SENA_FROM_PB: dict[int, Sena] = {value: sena for sena, value in _SENA_TO_PB.items()}


def call_from_pb(value: int) -> CallKind:
    try:
        return _CALL_FROM_PB[value]
    except KeyError:
        raise DecodeError(f"call: unknown call kind {value}") from None


def sena_from_pb(value: int) -> Sena:
    try:
        return _SENA_FROM_PB[value]
    except KeyError:
        raise DecodeError(f"sena: unknown seña {value}") from None


def command_to_pb(command: SeatCommand) -> commands_pb2.Command:
    if isinstance(command, PlayCard):
        return commands_pb2.Command(play_card=commands_pb2.PlayCard(card=card_to_pb(command.card)))
    if isinstance(command, Call):
        return commands_pb2.Command(call=commands_pb2.MakeCall(call=_CALL_TO_PB[command.call]))
    if isinstance(command, Answer):
        answer = commands_pb2.Answer(accept=command.accept)
        if command.call is not None:
            answer.call = _CALL_TO_PB[command.call]
        return commands_pb2.Command(answer=answer)
    if isinstance(command, GoToMazo):
        return commands_pb2.Command(go_to_mazo=commands_pb2.GoToMazo())
    if isinstance(command, SendSena):
        return commands_pb2.Command(send_sena=commands_pb2.SendSena(sena=_SENA_TO_PB[command.sena]))
    if isinstance(command, CallPerros):
        return commands_pb2.Command(call_perros=commands_pb2.CallPerros())
    if isinstance(command, SkipPerros):
        return commands_pb2.Command(skip_perros=commands_pb2.SkipPerros())
    return commands_pb2.Command(
        answer_perros=commands_pb2.AnswerPerros(accept_envido=command.accept_envido, accept_truco=command.accept_truco)
    )


@lru_cache(maxsize=4096)
def _shared_command_pb(command: SeatCommand) -> commands_pb2.Command:
    return command_to_pb(command)


def commands_to_pb(commands: Iterable[SeatCommand]) -> list[commands_pb2.Command]:
    """The messages of ``commands``, for a repeated field to copy (``extend``), never to change: each command's
    message is built once and shared (a seat's legal actions are the same few hundred commands all match long)."""
    return [_shared_command_pb(command) for command in commands]


def command_from_pb(message: commands_pb2.Command, seat: int) -> SeatCommand:
    """The engine command ``message`` asks for on behalf of ``seat``. :raises DecodeError: if malformed."""
    kind = message.WhichOneof("kind")
    if kind == "play_card":
        return PlayCard(seat, card_from_pb(message.play_card.card))
    if kind == "call":
        return Call(seat, call_from_pb(message.call.call))
    if kind == "answer":
        named = message.answer.call
        return Answer(seat, message.answer.accept, call_from_pb(named) if named else None)
    if kind == "go_to_mazo":
        return GoToMazo(seat)
    if kind == "send_sena":
        return SendSena(seat, sena_from_pb(message.send_sena.sena))
    if kind == "call_perros":
        return CallPerros(seat)
    if kind == "skip_perros":
        return SkipPerros(seat)
    if kind == "answer_perros":
        return AnswerPerros(seat, message.answer_perros.accept_envido, message.answer_perros.accept_truco)
    raise DecodeError("command: set exactly one kind of command")
