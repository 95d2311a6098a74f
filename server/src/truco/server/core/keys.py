"""API keys: the credentials of third-party apps, sent as ``x-api-key: <key>`` metadata.

A key reads ``truco_<id>_<secret>``: the id (12 hexadecimal digits) names it in listings, logs and quotas;
the store keeps only the SHA-256 of the whole key. Keys are made and revoked with ``truco keys create|list|
revoke``. With ``truco serve --require-api-key`` CreateGame and JoinGame need one; every other call may send
one (its quotas are then the key's, not the caller's address's). Games belong to the key that created them.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from truco.server.core.app_quotas import NO_QUOTAS, AppQuotas
from truco.server.core.bounded import Bounded
from truco.server.core.identities import PlayerId
from truco.server.core.reasons import ServiceFailure, ServiceReason
from truco.server.store.interface import KeyRing
from truco.server.store.records import ApiKeyRecord

API_KEY_HEADER = "x-api-key"
KEY_PREFIX = "truco_"
_KEY = re.compile(r"truco_([0-9a-f]{12})_[A-Za-z0-9_-]{43}")
KEY_HINT = f"send an API key from 'truco keys create' as '{API_KEY_HEADER}: <key>' metadata"
CACHE_SECONDS = 5.0
"""How long a replica trusts what it looked up: a revoked key is refused everywhere within this time."""
CACHE_ENTRIES = 4096


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def key_hash(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


def new_key() -> tuple[str, str]:
    """A fresh key and its id: 256 random bits behind a 48-bit public id."""
    key_id = secrets.token_hex(6)
    return key_id, f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"


async def create_key(store: KeyRing, name: str, quotas: AppQuotas = NO_QUOTAS) -> tuple[ApiKeyRecord, str]:
    """Store a new key named ``name`` (with its own app totals, if any); returns its record and the key itself
    (shown once, never stored).

    :raises ValueError: a name :func:`check_key_name` refuses.
    """
    key_id, key = new_key()
    record = ApiKeyRecord(key_id, check_key_name(name), key_hash(key), now(), quotas=quotas.to_json())
    await store.create_api_key(record)
    return record, key


@dataclass(frozen=True, slots=True)
class Caller:
    """Who makes a call: an API key's id, or nobody (anonymous), and the address it comes from."""

    key_id: str | None
    peer: str  #: the client's address without its port ("127.0.0.1", "::1")
    connection: str  #: gRPC's peer string, one per connection ("ipv4:127.0.0.1:50522")
    player: str = ""  #: whom the per-player quota charges (``app_quotas.player_of``): a seat token or a connection
    quotas: AppQuotas = NO_QUOTAS  #: the key's own app totals, if it has any
    player_id: PlayerId | None = None  #: the player its player token vouches for, if it sent one

    @property
    def subject(self) -> str:
        """Whom quotas charge: ``key:<id>``, or ``peer:<address>`` for an anonymous call."""
        return f"key:{self.key_id}" if self.key_id is not None else f"peer:{self.peer}"

    @property
    def owner(self) -> str:
        """The owner recorded on games this caller creates ("" when anonymous)."""
        return self.key_id or ""


ANONYMOUS = Caller(None, "local", "local")
"""The caller of in-process calls that come through no connection (tests of the domain)."""


def peer_address(peer: str) -> str:
    """The address part of a gRPC peer string: ``ipv4:1.2.3.4:5`` → ``1.2.3.4``, ``ipv6:[::1]:5`` → ``::1``."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv6" and rest.startswith("["):
        return rest[1:].partition("]")[0]
    if kind == "ipv4":
        return rest.rpartition(":")[0] or rest
    return peer  # unix sockets and the like: the whole string


def api_key_of(metadata: Sequence[tuple[str, str | bytes]] | None) -> str | None:
    for name, value in metadata or ():
        if name.lower() == API_KEY_HEADER:
            return value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    return None


class ApiKeys:
    """Looks up the keys callers send, and the keys seats were taken under, remembering each answer for a few
    seconds (a bounded LRU)."""

    def __init__(self, store: KeyRing, *, ttl: float = CACHE_SECONDS, entries: int = CACHE_ENTRIES) -> None:
        self.store = store
        self.ttl = ttl
        self.entries = entries
        self._cache: Bounded[bytes | str, tuple[float, ApiKeyRecord | None]] = Bounded(entries)

    def known(self, key: str) -> bool:
        """Whether an answer for ``key`` is remembered (looking it up costs no store read)."""
        cached = self._cache.get(key_hash(key))
        return cached is not None and cached[0] > time.monotonic()

    async def key_id(self, key: str) -> str:
        """The id of a valid, unrevoked key.

        :raises ServiceFailure: API_KEY_INVALID (malformed or unknown) or API_KEY_REVOKED.
        """
        return (await self.lookup(key)).key_id

    async def lookup(self, key: str) -> ApiKeyRecord:
        """The record of a valid, unrevoked key (its id, its own quotas).

        :raises ServiceFailure: API_KEY_INVALID (malformed or unknown) or API_KEY_REVOKED.
        """
        if _KEY.fullmatch(key) is None:
            raise ServiceFailure(ServiceReason.API_KEY_INVALID, f"not an API key: {KEY_HINT}")
        digest = key_hash(key)
        record = await self._lookup(digest, lambda: self.store.api_key_by_hash(digest))
        if record is None:
            raise ServiceFailure(ServiceReason.API_KEY_INVALID, "this API key is unknown")
        _refuse_revoked(record)
        return record

    async def by_id(self, key_id: str) -> ApiKeyRecord | None:
        """The record of an unrevoked key by its id (a player token's app); None: no such key.

        :raises ServiceFailure: API_KEY_REVOKED.
        """
        record = await self._lookup(key_id, lambda: self.store.api_key_by_id(key_id))
        if record is not None:
            _refuse_revoked(record)
        return record

    async def check_active(self, key_id: str) -> None:
        """Refuse what was taken under a key that is no longer valid (a seat's token dies with its key).

        :raises ServiceFailure: API_KEY_REVOKED, or API_KEY_INVALID for a key no longer stored.
        """
        record = await self._lookup(key_id, lambda: self.store.api_key_by_id(key_id))
        if record is None:
            raise ServiceFailure(ServiceReason.API_KEY_INVALID, "the API key this seat was taken under is unknown")
        _refuse_revoked(record)

    async def _lookup(
        self, cache_key: bytes | str, fetch: Callable[[], Awaitable[ApiKeyRecord | None]]
    ) -> ApiKeyRecord | None:
        cached = self._cache.get(cache_key)
        clock = time.monotonic()
        if cached is not None and cached[0] > clock:
            return cached[1]
        record = await fetch()
        self._cache.put(cache_key, (clock + self.ttl, record))
        return record


def _refuse_revoked(record: ApiKeyRecord) -> None:
    if record.revoked_at is not None:
        raise ServiceFailure(ServiceReason.API_KEY_REVOKED, f"this API key was revoked at {record.revoked_at}")


MAX_KEY_NAME = 100


def printable(text: str) -> str:
    """``text`` with every control, format or unassigned character written as an escape (``\\x1b``): names
    stored before names were checked are listed without reaching the terminal raw."""
    return "".join(
        char if unicodedata.category(char)[0] != "C" else char.encode("unicode_escape").decode() for char in text
    )


def check_key_name(name: str) -> str:
    """A key's name as stored: trimmed, 1 to 100 characters, none a control, format or unassigned one (a name is
    printed by ``truco keys list`` and logged, so it must not carry terminal escapes).

    :raises ValueError: for any other name.
    """
    name = name.strip()
    if not name or len(name) > MAX_KEY_NAME:
        raise ValueError(f"a key's name has 1 to {MAX_KEY_NAME} characters")
    if any(unicodedata.category(char)[0] == "C" for char in name):
        raise ValueError("a key's name cannot hold control or unassigned characters")
    return name


__all__ = [
    "ANONYMOUS",
    "API_KEY_HEADER",
    "ApiKeys",
    "Caller",
    "api_key_of",
    "check_key_name",
    "create_key",
    "key_hash",
    "new_key",
    "peer_address",
    "printable",
]
