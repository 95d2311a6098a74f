"""Bounded input: every id, name and page token a request carries is checked for length and characters here,
before any store, parser or log line sees it. A failure is INVALID_ARGUMENT with a reason saying which field.

The checks run in the admission of both ports (``admission.py``), for every GameService method, so no handler has
to remember them. Free of gRPC: failures are :class:`~truco.server.core.reasons.ServiceFailure`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

from truco.server.core.reasons import ServiceFailure, ServiceReason

MAX_REQUEST_ID = 128
"""Request ids are idempotency keys (a UUID is 36 characters): longer ones are refused, not stored."""
MIN_JOIN_REQUEST_ID_BITS = 128
"""A JoinGame request id fetches the seat token again, so it must be as hard to guess as a token."""
MAX_PLAYER_NAME = 64
MAX_PAGE_TOKEN = 256
"""Page tokens the server hands out are about 80 characters of URL-safe base64."""

_REQUEST_ID = re.compile(r"[A-Za-z0-9._:~+/=-]+")
_PAGE_TOKEN = re.compile(r"[A-Za-z0-9_-]+")
_DIGITS = re.compile(r"[0-9]+")
_HEX = re.compile(r"[0-9A-Fa-f-]+")
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")
_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
RANDOM_UUID_VERSION = 4
"""The one UUID version drawn at random (122 random bits); 8 is laid out as its maker likes: it vouches for nothing."""


def check_request_id(value: str, field: str = "request_id") -> None:
    """An optional idempotency key: empty, or 1 to 128 printable ASCII characters of ``A-Z a-z 0-9 . _ : ~ + / = -``.

    :raises ServiceFailure: INVALID_ARGUMENT, reason INVALID_REQUEST_ID.
    """
    if not value:
        return
    if len(value) > MAX_REQUEST_ID or not _REQUEST_ID.fullmatch(value):
        raise ServiceFailure(
            ServiceReason.INVALID_REQUEST_ID,
            f"{field} has at most {MAX_REQUEST_ID} characters from A-Z a-z 0-9 . _ : ~ + / = - (a UUID fits)",
        )


def entropy_bits(value: str) -> float:
    """An upper estimate of the randomness of an id from its length and alphabet: decimal digits carry 3.3 bits
    each, hexadecimal digits 4 (a UUID's dashes none), URL-safe base64 6, anything else 6.5. It cannot tell a
    random id from a guessable one of the same shape; it refuses the ids that are short for their alphabet."""
    if _DIGITS.fullmatch(value):
        return len(value) * math.log2(10)
    if _HEX.fullmatch(value):
        return sum(1 for char in value if char != "-") * 4.0
    if _BASE64URL.fullmatch(value):
        return len(value) * 6.0
    return len(value) * math.log2(len("._:~+/=-") + 62)


def repeats_itself(value: str) -> bool:
    """Whether ``value`` is made of few pairs of characters over and over (``abab…``, ``0123456789abcdef0123…``):
    fewer than three in five of its neighbouring pairs are distinct (two in five for decimal digits, which have
    only 100 pairs), where a random id repeats a pair only now and then (32 random hexadecimal digits: about 2
    of 31; in 200,000 random ids of each shape none came within 0.07 of the bound)."""
    chars = value.replace("-", "")
    pairs = [chars[i : i + 2] for i in range(len(chars) - 1)]
    share = 0.4 if _DIGITS.fullmatch(chars) else 0.6
    return len(set(pairs)) < share * len(pairs)


def predictable_uuid(value: str) -> int | None:
    """The version of a UUID (canonical form) whose bits are mostly not random: 1, 2 and 6 carry the time and
    the machine, 7 the time, 3 and 5 a name's hash, 8 anything its maker likes, 0 and 15 are the nil and max
    UUIDs. None for anything else, a random (version 4) UUID included."""
    if not _UUID.fullmatch(value):
        return None
    version = int(value[14], 16)
    return None if version == RANDOM_UUID_VERSION else version


def check_join_request_id(value: str) -> None:
    """A JoinGame request id: empty (the join cannot be retried), or a request id of at least 128 bits that does
    not repeat itself and is not a UUID of a predictable version.

    :raises ServiceFailure: INVALID_ARGUMENT, INVALID_REQUEST_ID or WEAK_REQUEST_ID.
    """
    check_request_id(value)
    if value and (version := predictable_uuid(value)) is not None:
        raise ServiceFailure(
            ServiceReason.WEAK_REQUEST_ID,
            f"a JoinGame request_id returns the seat token again: a version {version} UUID can be guessed (it "
            "carries a time or a name); send a random one (version 4) or 22 URL-safe base64 characters or more",
        )
    if value and (entropy_bits(value) < MIN_JOIN_REQUEST_ID_BITS or repeats_itself(value)):
        raise ServiceFailure(
            ServiceReason.WEAK_REQUEST_ID,
            "a JoinGame request_id returns the seat token again, so it needs at least 128 random bits: "
            "32 hexadecimal digits (a UUID), 22 URL-safe base64 characters or more",
        )


def check_player_name(value: str) -> None:
    """At most 64 characters, none of them a control, format or unassigned character (NUL included).

    :raises ServiceFailure: INVALID_ARGUMENT, PLAYER_NAME_TOO_LONG or INVALID_PLAYER_NAME.
    """
    if len(value) > MAX_PLAYER_NAME:
        raise ServiceFailure(
            ServiceReason.PLAYER_NAME_TOO_LONG, f"player_name has at most {MAX_PLAYER_NAME} characters"
        )
    if any(unicodedata.category(char)[0] == "C" for char in value):
        raise ServiceFailure(
            ServiceReason.INVALID_PLAYER_NAME, "player_name cannot hold control or unassigned characters"
        )


def check_page_token(value: str) -> None:
    """Empty, or at most 256 URL-safe base64 characters (what ListGames hands out); the parser sees nothing else.

    :raises ServiceFailure: INVALID_ARGUMENT, INVALID_PAGE_TOKEN.
    """
    if value and (len(value) > MAX_PAGE_TOKEN or not _PAGE_TOKEN.fullmatch(value)):
        raise ServiceFailure(ServiceReason.INVALID_PAGE_TOKEN, "page_token must be a next_page_token from ListGames")


def check_request(method: str, request: Any) -> None:
    """The bounded-input checks of one GameService request (``method`` is the bare method name).

    Game names are checked by the handlers (``games/{id}``, 1 to 64 characters of ``A-Z a-z 0-9 _ -``).

    :raises ServiceFailure: INVALID_ARGUMENT with the reason of the first field that fails.
    """
    if method == "JoinGame":
        check_join_request_id(request.request_id)
        check_player_name(request.player_name)
    elif method in ("CreateGame", "SubmitCommand"):
        check_request_id(request.request_id)
    elif method == "PlayGame" and request.HasField("command"):
        check_request_id(request.command.request_id, "command.request_id")
    elif method == "ListGames":
        check_page_token(request.page_token)


__all__ = [
    "MAX_PAGE_TOKEN",
    "MAX_PLAYER_NAME",
    "MAX_REQUEST_ID",
    "MIN_JOIN_REQUEST_ID_BITS",
    "check_join_request_id",
    "check_page_token",
    "check_player_name",
    "check_request",
    "check_request_id",
    "entropy_bits",
    "predictable_uuid",
]
