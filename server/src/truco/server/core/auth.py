"""Seat tokens: 192 bits, given to the player, stored only as a SHA-256 hash; sent as a Bearer token."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from collections.abc import Iterable

from truco.server.core.reasons import ServiceFailure, ServiceReason

TOKEN_BYTES = 24
_BEARER = "bearer "
BEARER_HINT = "send the seat token as 'authorization: Bearer <token>'"


class TokenIssuer:
    """Issues seat tokens. A join without a request id gets 192 random bits; a join with one gets an HMAC of
    the game and request id under the server's secret key, so a retried join returns the same token without
    the server ever storing a token. Replicas share the key (``TRUCO_TOKEN_KEY``) for retries that land on
    another replica; without one each process draws its own.
    """

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key or secrets.token_bytes(32)

    @classmethod
    def from_environment(cls) -> TokenIssuer:
        return cls.from_secret(os.environ.get("TRUCO_TOKEN_KEY", ""))

    @classmethod
    def from_secret(cls, text: str) -> TokenIssuer:
        """Keyed by a shared secret; "" draws a key of this process's own."""
        return cls(hashlib.sha256(text.encode()).digest() if text else None)

    def for_join(self, game_id: str, request_id: str | None, key_id: str = "") -> str:
        """The seat token of a join: random without a request id; else derived from the game, the request id and
        the API key the join came under (``key_id``, "" without one), so that a request id learned by another app
        fetches no seat of this one's (its retry derives another token, which the seat refuses)."""
        if request_id is None:
            return secrets.token_urlsafe(TOKEN_BYTES)
        bound = f"{game_id}\x00{request_id}" if not key_id else f"{game_id}\x00{key_id}\x00{request_id}"
        mac = hmac.new(self._key, bound.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac[:TOKEN_BYTES]).decode().rstrip("=")


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def bearer_token(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The token of an ``authorization: Bearer <token>`` header; None when there is no such header.

    :raises ServiceFailure: TOKEN_MALFORMED for an authorization header that is not a bearer token.
    """
    for key, value in metadata or ():
        if key.lower() != "authorization":
            continue
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if not text.lower().startswith(_BEARER) or not text[len(_BEARER) :].strip():
            raise ServiceFailure(ServiceReason.TOKEN_MALFORMED, BEARER_HINT)
        return text[len(_BEARER) :].strip()
    return None
