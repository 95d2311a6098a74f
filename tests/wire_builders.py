"""Cards and commands as the wire writes them, from short texts ("1e", "7o"), and what a message holds."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from google.protobuf.message import Message

from truco_client.v1 import (
    cards_pb2,
    commands_pb2,
    events_pb2,
    game_service_pb2,
)

SUITS = {"e": cards_pb2.SUIT_ESPADA, "b": cards_pb2.SUIT_BASTO, "o": cards_pb2.SUIT_ORO, "c": cards_pb2.SUIT_COPA}


SUIT_LETTERS = {value: letter for letter, value in SUITS.items()}


def card(text: str) -> cards_pb2.Card:
    """``"1e"``, ``"12c"`` as a Card message."""
    return cards_pb2.Card(rank=int(text[:-1]), suit=SUITS[text[-1]])


def text_of(message: cards_pb2.Card) -> str:
    return f"{message.rank}{SUIT_LETTERS.get(message.suit, '?')}"


def texts(messages: Iterable[cards_pb2.Card]) -> list[str]:
    return [text_of(message) for message in messages]


def play(text: str) -> commands_pb2.Command:
    return commands_pb2.Command(play_card=commands_pb2.PlayCard(card=card(text)))


def call(kind: int) -> commands_pb2.Command:
    return commands_pb2.Command(call=commands_pb2.MakeCall(call=kind))


def answer(accept: bool) -> commands_pb2.Command:
    return commands_pb2.Command(answer=commands_pb2.Answer(accept=accept))


def mazo() -> commands_pb2.Command:
    return commands_pb2.Command(go_to_mazo=commands_pb2.GoToMazo())


def sena(kind: int) -> commands_pb2.Command:
    return commands_pb2.Command(send_sena=commands_pb2.SendSena(sena=kind))


def fixed_deal(hands: Sequence[str], muestra: str) -> game_service_pb2.FixedDeal:
    """A scripted deal: one string of three cards per player, from the mano (``"1e 2e 3e"``), and the muestra."""
    return game_service_pb2.FixedDeal(
        hands=[game_service_pb2.DealtHand(cards=[card(t) for t in hand.split()]) for hand in hands],
        muestra=card(muestra),
    )


def cards_in(message: Message, skip: frozenset[str] = frozenset()) -> list[cards_pb2.Card]:
    """Every Card message anywhere inside ``message`` (views, events, responses), but in fields named in
    ``skip``."""
    found: list[cards_pb2.Card] = []
    stack: list[Message] = [message]
    while stack:
        current = stack.pop()
        if isinstance(current, cards_pb2.Card):
            found.append(current)
            continue
        for descriptor, value in current.ListFields():
            if descriptor.message_type is None or descriptor.name in skip:
                continue
            if descriptor.is_repeated:
                stack.extend(value)
            else:
                stack.append(value)
    return found


def kind_of(event: events_pb2.Event) -> str:
    return event.WhichOneof("kind") or ""
