"""Builders for ``truco.v1.Command`` and a one-line description of any command.

>>> describe(play("1e")), describe(call("real envido")), describe(answer(False)), describe(mazo())
('play 1e', 'call real envido', 'no quiero', 'me voy al mazo')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, cast

from .cards import CardLike, card, card_text
from .v1 import commands_pb2, views_pb2

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


# --- Picking among a view's legal actions (the same helpers in every SDK) -------------------------------------

PLAIN_BOT: Final[tuple[str, ...]] = ("play_card", "quiero", "skip_perros", "answer_perros", "answer", "call")
"""A plain bot's preferences, first to last: play a card, accept what is called, deal without perros; the mazo
only when nothing else is legal. A preference names a command kind (``Command.WhichOneof("kind")``) or an
exact answer (``"quiero"``, ``"no_quiero"``)."""

_DECLINED: Final = (commands_pb2.CALL_KIND_FALTA_ENVIDO, commands_pb2.CALL_KIND_CONTRA_FLOR_AL_RESTO)


def is_over(view: views_pb2.SeatView | views_pb2.MatchView | None) -> bool:
    """Whether the match of a seat view (or a public view) is over."""
    if view is None:
        return False
    public = view.public if isinstance(view, views_pb2.SeatView) else view
    return bool(public.phase == views_pb2.PHASE_MATCH_OVER)


def is_my_turn(view: views_pb2.SeatView | None) -> bool:
    """Whether the match waits for this seat: it is in ``public.to_act`` (its card, its team's answer, its perros
    decision). Legal actions alone are not a turn: a seña is legal out of turn."""
    return view is not None and view.seat in view.public.to_act


def legal_of(view: views_pb2.SeatView | None, *kinds: str) -> list[Command]:
    """The view's legal actions of the given kinds (``"play_card"``, ``"answer"``...), in the server's order."""
    return [action for action in (view.legal_actions if view else ()) if action.WhichOneof("kind") in kinds]


def _matches(action: Command, preference: str) -> bool:
    kind = action.WhichOneof("kind")
    if preference in ("quiero", "no_quiero"):
        return kind == "answer" and bool(action.answer.accept) == (preference == "quiero")
    return bool(kind == preference)


def pick_action(
    view: views_pb2.SeatView | None,
    preferences: tuple[str, ...] | list[str] = PLAIN_BOT,
    choose: Callable[[list[Command]], Command] | None = None,
) -> Command | None:
    """One of the view's legal actions: the first matching the earliest preference, else the first that is not
    the mazo, else the mazo; None when the seat has nothing to do. ``choose`` (``random.choice``, say) picks
    among the matches of a preference instead of taking the first."""
    actions = list(view.legal_actions) if view is not None else []
    if not actions:
        return None
    take = choose or (lambda found: found[0])
    for preference in preferences:
        found = [action for action in actions if _matches(action, preference)]
        if found:
            return take(found)
    others = [action for action in actions if action.WhichOneof("kind") != "go_to_mazo"]
    return take(others or actions)


def plain_bot(view: views_pb2.SeatView | None) -> Command | None:
    """The example bots' policy, the same in every SDK: decline a falta envido or a contra flor al resto (they
    can end the match at once), otherwise :func:`pick_action` with :data:`PLAIN_BOT`. Señas are never sent."""
    if view is not None and view.public.hand.pending.call in _DECLINED:
        declined = pick_action(view, ("no_quiero",))
        if declined is not None and declined.WhichOneof("kind") == "answer" and not declined.answer.accept:
            return declined
    if view is not None and not is_my_turn(view):
        return None
    return pick_action(view, PLAIN_BOT)
