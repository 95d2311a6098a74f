"""The web table's own players: player tokens the service mints itself, for browsers that no app's backend vouches
for (``POST /table/player-token`` on the web port, see ``doors/web.py``).

The web table is an app of the service like any other: an API key of a well-known id (:data:`TABLE_APP_ID`, named
"the web table" in ``truco keys list``) and HS256 signing keys kept in the store, so that every replica behind a
balancer mints and verifies the same tokens. Both are created on the first mint, idempotently: replicas racing to
create them meet the store's uniqueness and read what the winner wrote. Its tokens are player tokens as an app's
backend would sign them (:mod:`truco.server.core.player_tokens` verifies them, with the app isolation of every
app: they act only in the table's own games), signed with the table app's newest active HS256 key, so its keys
rotate like any app's (``truco keys signing-key add|revoke``; with none left active, the next mint adds one).

A browser's player stays the same player across visits: its first mint draws a fresh random player id (never one
the caller chooses) and a **credential**, ``<id>.<HMAC-SHA256 of the id>``, which the browser keeps; a later mint
presents it and gets a new short-lived token for the same id, with the display name it asks for. The HMAC's key is
the table app's ``secret_hash``: the digest of an API key the server drew and never kept, so 256 bits nobody holds
but the store. A credential that does not verify is refused (TABLE_CREDENTIAL_INVALID); revoking the table's API
key (``truco keys revoke``) turns the table's players off (API_KEY_REVOKED). Nothing here logs or stores a token.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass
from typing import Protocol

import jwt

from truco.server.core.identities import PlayerId
from truco.server.core.keys import key_hash, new_key, now
from truco.server.core.player_tokens import DEFAULT_AUDIENCE, MAX_DISPLAY_NAME, display_name_ok
from truco.server.core.reasons import ServiceFailure, ServiceReason
from truco.server.store.errors import VersionConflict
from truco.server.store.interface import KeyRing, PlayerBook
from truco.server.store.records import ApiKeyRecord, SigningKeyRecord

TABLE_APP_ID = "7ab1e0000000"
"""The table app's API key id: well known, so that every replica finds the one app (ids are public; the key's
secret is drawn once and thrown away)."""
TABLE_APP_NAME = "the web table"
KID_PREFIX = "table-"
"""The kids of the signing keys the service adds itself: ``table-1``, ``table-2``..."""
TOKEN_SECONDS = 3600
"""How long a minted token lives; the page asks for the next one a minute before."""
PLAYER_ID_BYTES = 16
"""A table player's id: ``t-`` and 128 random bits, URL-safe base64."""
TABLE_PLAYER = re.compile(r"t-[A-Za-z0-9_-]{22}")
_CREDENTIAL_CONTEXT = b"truco table credential v1\x00"
_CREATE_ATTEMPTS = 3


class TableStore(KeyRing, PlayerBook, Protocol):
    """What the table's players need of the store: its API key and its signing keys."""


@dataclass(frozen=True, slots=True)
class Minted:
    """A mint's answer: the token (an ``x-player-token``), the credential to keep, the player, when it expires."""

    token: str
    credential: str
    player: PlayerId
    expires_at: int  #: the token's ``exp``, seconds since the epoch


def check_table_name(name: str) -> str:
    """The display name a table player asks for, trimmed ("" keeps none: the ranking shows the player's id).

    :raises ServiceFailure: INVALID_PLAYER_NAME, for more than 64 characters or a control character.
    """
    name = name.strip()
    if not display_name_ok(name):
        raise ServiceFailure(
            ServiceReason.INVALID_PLAYER_NAME, f"a name has at most {MAX_DISPLAY_NAME} characters, none a control one"
        )
    return name


def credential_of(secret: bytes, player: str) -> str:
    """The credential of a table player: its id and the HMAC of its id under the table app's secret."""
    mac = hmac.new(secret, _CREDENTIAL_CONTEXT + player.encode(), hashlib.sha256).digest()
    return f"{player}.{base64.urlsafe_b64encode(mac).decode().rstrip('=')}"


def player_of_credential(secret: bytes, credential: str) -> str:
    """The table player a credential names, once its HMAC verifies (in constant time).

    :raises ServiceFailure: TABLE_CREDENTIAL_INVALID.
    """
    player, _, _ = credential.partition(".")
    if TABLE_PLAYER.fullmatch(player) is None or not hmac.compare_digest(
        credential.encode(), credential_of(secret, player).encode()
    ):
        raise ServiceFailure(
            ServiceReason.TABLE_CREDENTIAL_INVALID,
            "this credential was not issued by this server: send none to start a new player",
        )
    return player


def new_table_player() -> str:
    return "t-" + secrets.token_urlsafe(PLAYER_ID_BYTES)


class TablePlayers:
    """Mints the web table's player tokens, from what the store holds (no state of its own that matters)."""

    def __init__(self, store: TableStore, *, audience: str = DEFAULT_AUDIENCE) -> None:
        self.store = store
        self.audience = audience

    async def mint(self, display_name: str, credential: str | None) -> Minted:
        """A token for a new player (``credential`` None), or for the player ``credential`` names.

        :raises ServiceFailure: INVALID_PLAYER_NAME, TABLE_CREDENTIAL_INVALID, API_KEY_REVOKED (the table's
            players are turned off).
        """
        name = check_table_name(display_name)
        app = await self.app()
        secret = app.secret_hash
        player = new_table_player() if credential is None else player_of_credential(secret, credential)
        key = await self.signing_key()
        moment = int(time.time())
        claims: dict[str, object] = {
            "iss": app.key_id,
            "sub": player,
            "aud": self.audience,
            "iat": moment,
            "exp": moment + TOKEN_SECONDS,
        }
        if name:
            claims["name"] = name
        token = jwt.encode(claims, key.key, algorithm="HS256", headers={"kid": key.kid})
        identity = PlayerId(app.key_id, player, name or player)
        return Minted(token, credential_of(secret, player), identity, moment + TOKEN_SECONDS)

    async def app(self) -> ApiKeyRecord:
        """The table's app, created on first use.

        :raises ServiceFailure: API_KEY_REVOKED once an operator revoked it.
        """
        record = await self.store.api_key_by_id(TABLE_APP_ID)
        if record is None:
            _, key = new_key()  # its secret is drawn and never kept: nobody calls as the table's app
            fresh = ApiKeyRecord(TABLE_APP_ID, TABLE_APP_NAME, key_hash(key), now())
            try:
                await self.store.create_api_key(fresh)
                record = fresh
            except VersionConflict:  # another replica created it first: its record is the one
                record = await self.store.api_key_by_id(TABLE_APP_ID)
                assert record is not None
        if record.revoked_at is not None:
            raise ServiceFailure(
                ServiceReason.API_KEY_REVOKED, f"the web table's players were turned off at {record.revoked_at}"
            )
        return record

    async def signing_key(self) -> SigningKeyRecord:
        """The table app's newest active HS256 key; with none, a new one (``table-<n>``, n one past the keys it
        ever had, so replicas racing to add it meet on the same kid)."""
        for _ in range(_CREATE_ATTEMPTS):
            keys = await self.store.signing_keys(TABLE_APP_ID)
            active = [key for key in keys if key.revoked_at is None and key.algorithm == "HS256"]
            if active:
                return max(active, key=lambda key: (key.created_at, key.kid))
            record = SigningKeyRecord(
                TABLE_APP_ID, f"{KID_PREFIX}{len(keys) + 1}", "HS256", secrets.token_bytes(32), now()
            )
            try:
                await self.store.add_signing_key(record)
                return record
            except VersionConflict:
                continue  # another replica added it: read it back
        raise ServiceFailure(ServiceReason.INTERNAL, "the web table's signing key could not be created")


__all__ = [
    "TABLE_APP_ID",
    "TABLE_APP_NAME",
    "TOKEN_SECONDS",
    "Minted",
    "TablePlayers",
    "TableStore",
    "check_table_name",
    "credential_of",
    "player_of_credential",
]
