"""Player tokens: short-lived JWTs an app signs for one of its players, sent as ``x-player-token: <jwt>``.

An app (its API key) registers the keys it signs with (``truco keys signing-key add``): an HMAC secret (HS256)
or a public key (EdDSA with Ed25519, ES256 with P-256), each named by a ``kid`` within the app, several at once
so keys rotate. A token names its key in its header (``kid``) and its app in ``iss`` (the API key's id); ``sub``
is the app's id of the player, ``name`` its display name, ``aud`` the service's audience, ``exp`` at most a day
away. PyJWT checks the signature and the times; this module only chooses the key and names each refusal
(truco/v1/errors.proto's PLAYER_TOKEN_* reasons). Nothing here stores a token.
"""

from __future__ import annotations

import hashlib
import re
import time
import unicodedata
from collections.abc import Sequence
from typing import Any

import jwt

from truco.server.core.bounded import Bounded
from truco.server.core.identities import PLAYER_PREFIX, PlayerId
from truco.server.core.keys import CACHE_SECONDS, now
from truco.server.core.reasons import ServiceFailure, ServiceReason
from truco.server.store.interface import PlayerBook
from truco.server.store.records import SigningKeyRecord

PLAYER_TOKEN_HEADER = "x-player-token"
DEFAULT_AUDIENCE = "truco"
ALGORITHMS = ("HS256", "EdDSA", "ES256")
"""What a signing key may be: one algorithm each, so a token cannot pick a weaker one than its key's."""
LEEWAY_SECONDS = 30.0
MAX_LIFETIME_SECONDS = 24 * 3600.0
MIN_HMAC_SECRET_BYTES = 32
PLAYER_ID = re.compile(r"[A-Za-z0-9._~:@+-]{1,128}")
KID = re.compile(r"[A-Za-z0-9._~:+-]{1,64}")
MAX_DISPLAY_NAME = 64
VERIFIED_ENTRIES = 16_384


def player_token_of(metadata: Sequence[tuple[str, str | bytes]] | None) -> str | None:
    for name, value in metadata or ():
        if name.lower() == PLAYER_TOKEN_HEADER:
            return value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    return None


def _refuse(reason: ServiceReason, message: str, kid: str = "") -> ServiceFailure:
    return ServiceFailure(reason, message, {"kid": kid} if kid else None)


def check_signing_key(algorithm: str, key: bytes) -> None:
    """Refuse a key that cannot verify tokens of ``algorithm`` (a short HMAC secret, a private or wrong-curve key).

    :raises ValueError: what is wrong with it.
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"the algorithm is one of {', '.join(ALGORITHMS)}")
    if algorithm == "HS256":
        if len(key) < MIN_HMAC_SECRET_BYTES:
            raise ValueError(f"an HMAC secret has {MIN_HMAC_SECRET_BYTES} bytes at least")
        return
    if b"PRIVATE" in key:
        raise ValueError("register the public key (PEM), never the private one")
    try:
        jwt.get_algorithm_by_name(algorithm).prepare_key(key)
    except (jwt.InvalidKeyError, ValueError, TypeError) as error:
        raise ValueError(f"not a {algorithm} public key in PEM: {error}") from None


def check_kid(kid: str) -> str:
    """:raises ValueError: a kid that is not 1 to 64 characters of A-Z a-z 0-9 . _ ~ : + -."""
    if KID.fullmatch(kid) is None:
        raise ValueError("a kid has 1 to 64 characters of A-Z a-z 0-9 . _ ~ : + -")
    return kid


async def add_signing_key(store: PlayerBook, app: str, kid: str, algorithm: str, key: bytes) -> SigningKeyRecord:
    """Register a signing key of ``app``.

    :raises ValueError: a kid, algorithm or key :func:`check_kid` or :func:`check_signing_key` refuses.
    :raises VersionConflict: the app has a key of this kid already (revoked ones included: kids are never reused).
    """
    check_signing_key(algorithm, key)
    record = SigningKeyRecord(app, check_kid(kid), algorithm, key, now())
    await store.add_signing_key(record)
    return record


def display_name_ok(name: str) -> bool:
    return len(name) <= MAX_DISPLAY_NAME and not any(unicodedata.category(char)[0] == "C" for char in name)


class PlayerTokens:
    """Verifies player tokens against the apps' signing keys, remembering keys (and tokens already verified) for a
    few seconds: a revoked key is refused by every replica within :data:`~truco.server.core.keys.CACHE_SECONDS`."""

    def __init__(self, store: PlayerBook, *, audience: str = DEFAULT_AUDIENCE, ttl: float = CACHE_SECONDS) -> None:
        self.store = store
        self.audience = audience
        self.ttl = ttl
        self._keys: Bounded[tuple[str, str], tuple[float, SigningKeyRecord | None]] = Bounded(4096)
        self._verified: Bounded[bytes, tuple[float, PlayerId]] = Bounded(VERIFIED_ENTRIES)

    async def verify(self, token: str, app: str | None = None) -> PlayerId:
        """The player a token vouches for; ``app``: the call's API key's id, which the token's must be.

        :raises ServiceFailure: a PLAYER_TOKEN_* reason.
        """
        digest = hashlib.sha256(token.encode("utf-8", "replace")).digest()
        clock = time.monotonic()
        cached = self._verified.get(digest)
        if cached is not None and cached[0] > clock:
            _same_app(cached[1].app, app)
            return cached[1]
        kid, claims = _unverified(token)
        issuer = claims["iss"]
        _same_app(issuer, app)
        key = await self._key(issuer, kid, clock)
        verified = self._check(token, key)
        player = _player_of(verified)
        lasts = min(self.ttl, float(verified["exp"]) - time.time())
        if lasts > 0:
            self._verified.put(digest, (clock + lasts, player))
        return player

    async def _key(self, app: str, kid: str, clock: float) -> SigningKeyRecord:
        cached = self._keys.get((app, kid))
        if cached is not None and cached[0] > clock:
            record = cached[1]
        else:
            found = await self.store.signing_keys(app, kid)
            record = found[0] if found else None
            self._keys.put((app, kid), (clock + self.ttl, record))
        if record is None:
            raise _refuse(ServiceReason.PLAYER_TOKEN_UNKNOWN_KEY, f"app {app} has no signing key {kid!r}", kid)
        if record.revoked_at is not None:
            raise _refuse(ServiceReason.PLAYER_TOKEN_KEY_REVOKED, f"signing key {kid!r} was revoked", kid)
        return record

    def _check(self, token: str, key: SigningKeyRecord) -> dict[str, Any]:
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key.key,
                algorithms=[key.algorithm],
                audience=self.audience,
                leeway=LEEWAY_SECONDS,
                options={"require": ["exp", "iss", "sub", "aud"]},
            )
        except jwt.InvalidAlgorithmError:
            raise _refuse(
                ServiceReason.PLAYER_TOKEN_BAD_SIGNATURE, f"signing key {key.kid!r} signs {key.algorithm}", key.kid
            ) from None
        except (jwt.InvalidSignatureError, jwt.InvalidKeyError):
            raise _refuse(ServiceReason.PLAYER_TOKEN_BAD_SIGNATURE, "the signature does not verify", key.kid) from None
        except jwt.ExpiredSignatureError:
            raise _refuse(ServiceReason.PLAYER_TOKEN_EXPIRED, "the player token expired: mint a new one") from None
        except jwt.ImmatureSignatureError:
            raise _refuse(ServiceReason.PLAYER_TOKEN_NOT_YET_VALID, "the player token is not valid yet") from None
        except jwt.InvalidAudienceError:
            raise _refuse(
                ServiceReason.PLAYER_TOKEN_WRONG_AUDIENCE, f"the player token's aud must be {self.audience!r}"
            ) from None
        except jwt.InvalidTokenError as error:
            raise _refuse(ServiceReason.PLAYER_TOKEN_MALFORMED, f"not a valid player token: {error}") from None
        start = claims.get("iat", time.time())
        if not isinstance(start, int | float) or float(claims["exp"]) - float(start) > MAX_LIFETIME_SECONDS:
            raise _refuse(ServiceReason.PLAYER_TOKEN_TOO_LONG_LIVED, "a player token lives 24 hours at most")
        return claims


def _unverified(token: str) -> tuple[str, dict[str, Any]]:
    """The token's kid and claims, read before any key is chosen (only to choose it)."""
    try:
        header = jwt.get_unverified_header(token)
        claims: dict[str, Any] = jwt.decode(token, options={"verify_signature": False})
    except jwt.InvalidTokenError as error:
        raise _refuse(ServiceReason.PLAYER_TOKEN_MALFORMED, f"not a JWT in compact form: {error}") from None
    kid = header.get("kid")
    if not isinstance(kid, str) or not kid:
        raise _refuse(ServiceReason.PLAYER_TOKEN_MALFORMED, "the player token's header has no kid")
    if header.get("alg") not in ALGORITHMS:
        raise _refuse(ServiceReason.PLAYER_TOKEN_MALFORMED, f"a player token is signed with {', '.join(ALGORITHMS)}")
    if not isinstance(claims.get("iss"), str) or not claims["iss"]:
        raise _refuse(ServiceReason.PLAYER_TOKEN_MALFORMED, "the player token has no iss (its app's API key id)")
    return kid, claims


def _same_app(token_app: str, call_app: str | None) -> None:
    if call_app is not None and token_app != call_app:
        raise ServiceFailure(
            ServiceReason.PLAYER_TOKEN_WRONG_APP, "the player token is another app's than the call's API key"
        )


def _player_of(claims: dict[str, Any]) -> PlayerId:
    sub, name = claims["sub"], claims.get("name", "")
    if not isinstance(sub, str) or PLAYER_ID.fullmatch(sub) is None:
        raise _refuse(ServiceReason.PLAYER_TOKEN_MALFORMED, "sub: 1 to 128 characters of A-Z a-z 0-9 . _ ~ : @ + -")
    if not isinstance(name, str) or not display_name_ok(name):
        raise _refuse(ServiceReason.PLAYER_TOKEN_MALFORMED, "name: at most 64 characters, no control characters")
    return PlayerId(str(claims["iss"]), sub, name or sub)


__all__ = [
    "ALGORITHMS",
    "DEFAULT_AUDIENCE",
    "PLAYER_PREFIX",
    "PLAYER_TOKEN_HEADER",
    "PlayerId",
    "PlayerTokens",
    "add_signing_key",
    "check_kid",
    "check_signing_key",
    "player_token_of",
]
