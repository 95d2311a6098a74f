"""Seat tokens: 192 random bits, shown to the player once, stored only as a SHA-256 hash."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence

import grpc

from .errors import ServiceError

TOKEN_BYTES = 24
_BEARER = "bearer "
BEARER_HINT = "send the seat token as 'authorization: Bearer <token>'"


def new_token() -> tuple[str, bytes]:
    """A fresh seat token and the hash to store."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    return token, token_hash(token)


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def bearer_token(metadata: Sequence[tuple[str, str | bytes]] | None) -> str | None:
    """The token of an ``authorization: Bearer <token>`` header; None when there is no such header.

    :raises ServiceError: UNAUTHENTICATED for an authorization header that is not a bearer token.
    """
    for key, value in metadata or ():
        if key.lower() != "authorization":
            continue
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if not text.lower().startswith(_BEARER) or not text[len(_BEARER) :].strip():
            raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MALFORMED", BEARER_HINT)
        return text[len(_BEARER) :].strip()
    return None
