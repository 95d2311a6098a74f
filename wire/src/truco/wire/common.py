"""What every converter shares: the message type check, the decoding error, enum tables."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import TypeVar, cast

from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper
from google.protobuf.message import Message

M = TypeVar("M", bound=Message)


def as_wire(message: Message, kind: type[M]) -> M:
    """``message``, a truco.v1 message of any package generated from the contract (the SDK's ``truco_client.v1``
    for one), typed as this package's ``kind`` for the converters here. The generated packages register the same
    files, and the protobuf runtime keeps one class per message: it is the same object.

    :raises TypeError: a message of another type.
    """
    if message.DESCRIPTOR.full_name != kind.DESCRIPTOR.full_name:
        raise TypeError(f"{message.DESCRIPTOR.full_name} is not a {kind.DESCRIPTOR.full_name}")
    return cast(M, message)


class DecodeError(ValueError):
    """Client input that is not a well-formed value (a card that does not exist, an unset oneof...)."""


E = TypeVar("E", bound=enum.Enum)
P = TypeVar("P", bound=int)


def _enum_to_pb(members: Iterable[E], pb_enum: type[P], prefix: str) -> dict[E, P]:
    """Each engine enum member to the protobuf enum value named ``prefix`` + its value.

    protoc's .pyi types ``Value()`` as a plain int; the value is one of ``pb_enum``'s, hence the cast."""
    wrapper = cast(EnumTypeWrapper, pb_enum)
    return {member: cast(P, wrapper.Value(prefix + str(member.value))) for member in members}
