"""Builders for ``truco.v1.Command`` and a one-line description of any command.

>>> describe(play("1e")), describe(call("real envido")), describe(answer(False)), describe(mazo())
('play 1e', 'call real envido', 'no quiero', 'me voy al mazo')
"""

from __future__ import annotations

from typing import Final, cast

from .cards import CardLike, card, card_text
from .v1 import commands_pb2

Command = commands_pb2.Command


def _key(text: str) -> str:
    return text.strip().upper().replace(" ", "_").replace("-", "_")


CALLS: Final[dict[str, commands_pb2.CallKind]] = {
    name.removeprefix("CALL_KIND_"): cast(commands_pb2.CallKind, value)  # protoc types items() as plain ints
    for name, value in commands_pb2.CallKind.items()
    if value != commands_pb2.CALL_KIND_UNSPECIFIED
}
"""Call names (``TRUCO``, ``REAL_ENVIDO``, ``CONTRA_FLOR_AL_RESTO``...) to their ``CallKind`` value."""

SENAS: Final[dict[str, commands_pb2.Sena]] = {
    name.removeprefix("SENA_"): cast(commands_pb2.Sena, value)
    for name, value in commands_pb2.Sena.items()
    if value != commands_pb2.SENA_UNSPECIFIED
}
"""Seña names (``PIEZA_2``, ``MATA_1``, ``NEGRAS``...) to their ``Sena`` value."""


def call_name(kind: int) -> str:
    """How a call is said: ``"vale cuatro"`` for ``CALL_KIND_VALE_CUATRO``."""
    try:
        name: str = commands_pb2.CallKind.Name(kind)
    except ValueError:
        return f"call #{kind}"
    return name.removeprefix("CALL_KIND_").replace("_", " ").lower()


def sena_name(kind: int) -> str:
    """A seña's short name: ``"pieza 2"`` for ``SENA_PIEZA_2``."""
    try:
        name: str = commands_pb2.Sena.Name(kind)
    except ValueError:
        return f"seña #{kind}"
    return name.removeprefix("SENA_").replace("_", " ").lower()


def play(value: CardLike) -> Command:
    """Play a card from the hand. :raises CardError: for text that is not a card."""
    return Command(play_card=commands_pb2.PlayCard(card=card(value)))


def call_value(kind: str | int) -> commands_pb2.CallKind:
    """The ``CallKind`` of a call name (``"truco"``, ``"vale cuatro"``, ``"real_envido"``) or value.

    :raises ValueError: for an unknown call name.
    """
    if isinstance(kind, str):
        value = CALLS.get(_key(kind))
        if value is None:
            raise ValueError(f"unknown call {kind!r}: one of {', '.join(n.lower() for n in CALLS)}")
        return value
    return cast(commands_pb2.CallKind, kind)


def call(kind: str | int) -> Command:
    """Make a call, by name (``"truco"``, ``"vale cuatro"``, ``"real_envido"``) or ``CallKind`` value.

    :raises ValueError: for an unknown call name.
    """
    return Command(call=commands_pb2.MakeCall(call=call_value(kind)))


def answer(accept: bool, call: str | int | None = None) -> Command:
    """Quiero (``True``) or no quiero (``False``) to the call pending against the caller's team. Naming the
    ``call`` answered (``"truco"``, ``"flor"``...) makes the server refuse the answer (CALL_MISMATCH) if another
    call is pending by then; the legal actions of a view always name it.

    :raises ValueError: for an unknown call name.
    """
    message = commands_pb2.Answer(accept=accept)
    if call is not None:
        message.call = call_value(call)
    return Command(answer=message)


def quiero() -> Command:
    """The same as ``answer(True)``."""
    return answer(True)


def no_quiero() -> Command:
    """The same as ``answer(False)``."""
    return answer(False)


def mazo() -> Command:
    """Me voy al mazo: the caller's team concedes the hand."""
    return Command(go_to_mazo=commands_pb2.GoToMazo())


def sena(kind: str | int) -> Command:
    """Send a seña to the teammates, by name (``"pieza_2"``, ``"mata 1"``) or ``Sena`` value.

    :raises ValueError: for an unknown seña name.
    """
    if isinstance(kind, str):
        value = SENAS.get(_key(kind))
        if value is None:
            raise ValueError(f"unknown seña {kind!r}: one of {', '.join(n.lower() for n in SENAS)}")
        return Command(send_sena=commands_pb2.SendSena(sena=value))
    return Command(send_sena=commands_pb2.SendSena(sena=kind))  # type: ignore[arg-type]


def perros() -> Command:
    """Echar los perros before the deal."""
    return Command(call_perros=commands_pb2.CallPerros())


def skip_perros() -> Command:
    """Let the next hand be dealt without echar los perros."""
    return Command(skip_perros=commands_pb2.SkipPerros())


def answer_perros(accept_envido: bool, accept_truco: bool) -> Command:
    """The rivals' answer to the perros, for their whole team."""
    return Command(answer_perros=commands_pb2.AnswerPerros(accept_envido=accept_envido, accept_truco=accept_truco))


def describe(command: Command) -> str:
    """One line for a command: ``play 1e``, ``call truco``, ``quiero``, ``seña pieza 2``..."""
    kind = command.WhichOneof("kind")
    if kind == "play_card":
        try:
            return f"play {card_text(command.play_card.card)}"
        except ValueError:
            return "play ?"
    if kind == "call":
        return f"call {call_name(command.call.call)}"
    if kind == "answer":
        said = "quiero" if command.answer.accept else "no quiero"
        named = command.answer.call
        return f"{said} ({call_name(named)})" if named else said
    if kind == "go_to_mazo":
        return "me voy al mazo"
    if kind == "send_sena":
        return f"seña {sena_name(command.send_sena.sena)}"
    if kind == "call_perros":
        return "echar los perros"
    if kind == "skip_perros":
        return "deal without perros"
    if kind == "answer_perros":
        answer_ = command.answer_perros
        envido = "quiero" if answer_.accept_envido else "no quiero"
        truco = "quiero" if answer_.accept_truco else "no quiero"
        return f"answer perros: envido {envido}, truco {truco}"
    return "empty command"
