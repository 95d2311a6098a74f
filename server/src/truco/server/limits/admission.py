"""Fair limits: who may call, how often, and how many calls and streams each caller may hold open.

:class:`Admission` stands in front of the game and rules services, on every door (``pipeline.Pipeline``;
health and reflection never pass through it, so no caller can starve a probe). For each call it

1. identifies the caller: its app (the API key in ``x-api-key`` metadata, else the client's address when
   anonymous: an IPv6 address by its /64, behind a trusted proxy the address it forwards: ``forwarding.py``)
   and its player (the seat token, else the connection; see ``app_quotas.py``); a key this replica has not
   looked up lately costs its address a token of a small bucket first, so a client sending one made-up key
   after another is throttled before the store is asked;
2. refuses CreateGame, JoinGame, WatchGame and PlayGame without a key when keys are required;
3. charges the player's calls-per-second token bucket, then its app's (the key's own rate when it has one);
4. checks the request's ids, names and page token (``validation.py``);
5. holds one of the app's in-flight slots (unary calls) or watch slots (streams: capped per client address,
   per API key, per connection and server-wide) until the call ends;
6. for CreateGame and Rematch, charges the app's games-per-minute bucket and counts its unfinished games in the
   store; for an anonymous JoinGame, the address's joins-per-minute bucket.

An admitted call learns what is left of its call rate (:class:`Allowance`: of the player's bucket or its app's,
whichever is closer to refusing it), which both doors report as ``RateLimit-*`` headers (``quota_headers.py``), so
a caller can slow down before it is refused.

A refusal is RESOURCE_EXHAUSTED with an ErrorInfo (reason ``QUOTA_EXCEEDED``, metadata ``quota``, ``limit`` and
``retry_after_seconds``), a google.rpc.RetryInfo saying when to retry and a google.rpc.QuotaFailure naming the
quota and whom it charges. Buckets and slots are per replica; the open-games quota is counted in the store, so
it holds across replicas.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from truco.server.core.app_quotas import NO_QUOTAS, AppQuotas, player_of
from truco.server.core.bounded import Bounded
from truco.server.core.identities import PlayerId
from truco.server.core.keys import KEY_HINT, ApiKeys, Caller, api_key_of, peer_address
from truco.server.core.player_tokens import PlayerTokens, player_token_of
from truco.server.core.quotas import Limits
from truco.server.core.reasons import QuotaExceeded, ServiceFailure, ServiceReason
from truco.server.limits.forwarding import NO_PROXIES, TrustedProxies
from truco.server.limits.validation import check_request
from truco.server.store.interface import GameDirectory
from truco.server.store.records import ApiKeyRecord

GAME_SERVICE = "truco.v1.GameService"
RULES_SERVICE = "truco.v1.RulesService"
PLAYER_SERVICE = "truco.v1.PlayerService"
LIMITED_SERVICES = (GAME_SERVICE, RULES_SERVICE, PLAYER_SERVICE)
KEYED_METHODS = frozenset({"CreateGame", "JoinGame", "WatchGame", "PlayGame"})
"""The methods that need an API key when the server requires keys (a spectator's watch too: no anonymous
caller may hold the server's streams)."""
CREATING_METHODS = frozenset({"CreateGame", "Rematch"})
"""The methods that create a game, charged to the games-per-minute and open-games quotas."""
NEW_TABLE_PLAYER = "NewTablePlayer"
"""The web door's mint of a new player of the web table (``service/table_players.py``), charged per address."""
KEY_LOOKUPS_PER_SECOND = 5.0
KEY_LOOKUPS_BURST = 20
"""Store lookups of API keys this replica does not remember, per client address: a valid key is looked up once
every few seconds (keys.CACHE_SECONDS), so only a caller trying key after key runs out."""
TRACKED_IDENTITIES = 100_000
"""Buckets kept in memory (least recently seen forgotten first): a forgotten caller starts with a full bucket."""


def quota_exceeded(quota: str, limit: float, caller: Caller | None, retry_after: float, what: str) -> QuotaExceeded:
    return QuotaExceeded(quota, limit, caller.subject if caller is not None else "server", retry_after, what)


class Allowance(NamedTuple):
    """What is left of the call-rate quota closest to refusing a caller, right after its call took a token. A
    named tuple, not a frozen dataclass: every admitted call makes one, and a tuple is made in about half the time
    (0.6 to 0.9 µs against 1.4 on the loaded machine: bench/journal/2026-12-06-quota-headers.md)."""

    quota: str  #: ``player_calls_per_second`` or ``calls_per_second`` (its app's)
    limit: int  #: calls the caller may make at once: the bucket's capacity
    window: float  #: seconds the bucket takes to fill from empty (``limit`` over the sustained rate)
    remaining: int  #: whole calls the caller may make now, before it is refused
    reset: float  #: seconds until the bucket is full again (``limit`` calls at once)


@dataclass
class TokenBucket:
    """``rate`` tokens a second up to ``capacity``; a call takes one."""

    rate: float
    capacity: float
    tokens: float = field(default=-1.0)
    updated: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        if self.tokens < 0:
            self.tokens = self.capacity

    def take(self, clock: float) -> float:
        """0.0 when a token was taken; otherwise the seconds until one will be there."""
        self.tokens = min(self.capacity, self.tokens + (clock - self.updated) * self.rate)
        self.updated = clock
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate

    def allowance(self, quota: str) -> Allowance:
        """What is left of this bucket now (as of its last take)."""
        capacity = self.capacity
        return Allowance(
            quota, int(capacity), capacity / self.rate, int(self.tokens), (capacity - self.tokens) / self.rate
        )


class Buckets:
    """One token bucket per caller, the least recently used forgotten past ``TRACKED_IDENTITIES``."""

    def __init__(self, rate: float, capacity: float) -> None:
        self.rate = rate
        self.capacity = capacity
        self._buckets: Bounded[str, TokenBucket] = Bounded(TRACKED_IDENTITIES)

    def take(self, subject: str, limits: tuple[float, float] | None = None) -> float:
        """Take a token of ``subject``'s bucket (at ``limits``, a rate and capacity, instead of the default):
        0.0 when taken, else the seconds until one will be there."""
        return self.charge(subject, limits)[0]

    def charge(self, subject: str, limits: tuple[float, float] | None = None) -> tuple[float, TokenBucket | None]:
        """:meth:`take`, with the bucket it took from (None when the rate is off)."""
        rate, capacity = limits or (self.rate, self.capacity)
        if rate <= 0:
            return 0.0, None
        clock = time.monotonic()
        bucket = self._buckets.get(subject)
        if bucket is None:
            bucket = TokenBucket(rate, capacity, updated=clock)
            self._buckets.put(subject, bucket)
        return bucket.take(clock), bucket


class Slots:
    """Counters of things held open (calls, streams) per key, with a cap; a key at zero is forgotten."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.held: dict[str, int] = {}

    def full(self, key: str, cap: int | None = None) -> bool:
        cap = self.cap if cap is None else cap
        return cap > 0 and self.held.get(key, 0) >= cap

    def acquire(self, key: str) -> None:
        self.held[key] = self.held.get(key, 0) + 1

    def release(self, key: str) -> None:
        left = self.held[key] - 1
        if left:
            self.held[key] = left
        else:
            del self.held[key]


class Admission:
    """Keys, quotas and caps of the calls of every door, free of any protocol."""

    def __init__(
        self,
        limits: Limits,
        keys: ApiKeys,
        store: GameDirectory,
        *,
        require_api_key: bool,
        proxies: TrustedProxies = NO_PROXIES,
        player_tokens: PlayerTokens | None = None,
    ) -> None:
        self.limits = limits
        self.player_tokens = player_tokens
        self.proxies = proxies
        self.keys = keys
        self.store = store
        self.require_api_key = require_api_key
        self.calls = Buckets(limits.calls_per_second, max(limits.burst, 1))
        self.player_calls = Buckets(limits.player_calls_per_second, max(limits.player_burst, 1))
        self.creates = Buckets(limits.games_per_minute / 60.0, max(limits.games_per_minute, 1.0))
        self.joins = Buckets(limits.joins_per_minute / 60.0, max(limits.joins_per_minute, 1.0))
        self.table_players = Buckets(limits.table_players_per_minute / 60.0, max(limits.table_players_per_minute, 1.0))
        lookups = KEY_LOOKUPS_PER_SECOND if limits.calls_per_second > 0 else 0.0
        self.key_lookups = Buckets(lookups, KEY_LOOKUPS_BURST)
        self.in_flight = Slots(limits.calls_in_flight)
        self.server_in_flight = Slots(limits.server_calls_in_flight)
        self.watches = Slots(limits.watch_streams)
        self.key_watches = Slots(limits.watch_streams_per_key)
        self.connection_watches = Slots(limits.watch_streams_per_connection)
        self.server_watch_cap = limits.server_watch_cap()
        self.server_watches = Slots(self.server_watch_cap)

    async def admit(
        self, service: str, method: str, request: Any, metadata: Any, peer: str
    ) -> tuple[Caller, Allowance | None]:
        """Steps 1-4 for a call of either door (gRPC, or Connect/gRPC-Web): identify, require a key, charge
        the rate, check the request; the caller it returns is the call's (``pipeline.Call.caller``), with what is
        left of its call rate (None when call rates are off).

        :raises ServiceFailure: API_KEY_*, QUOTA_EXCEEDED (QuotaExceeded) or an input reason.
        """
        caller = await self.identify(method, metadata, peer)
        allowance = self.charge_call(caller)
        self.check(service, method, request)
        return caller, allowance

    @staticmethod
    def check(service: str, method: str, request: Any) -> None:
        """Step 4: the request's bounded input. :raises ServiceFailure: INVALID_ARGUMENT with its reason."""
        if service == GAME_SERVICE:
            check_request(method, request)

    async def identify(self, method: str, metadata: Any, peer: str) -> Caller:
        key = api_key_of(metadata)
        address = self.proxies.client(peer_address(peer), metadata)
        record = None
        if key is not None:
            if not self.keys.known(key):
                wait = self.key_lookups.take(address)
                if wait:
                    anonymous = Caller(None, address, peer)
                    raise quota_exceeded(
                        "key_lookups", KEY_LOOKUPS_PER_SECOND, anonymous, wait, "too many unknown API keys"
                    )
            record = await self.keys.lookup(key)
        player = await self._player(metadata, record)
        if record is None and player is not None:
            # A player token stands for its app: the app's totals charge its players' calls.
            record = await self.keys.by_id(player.app)
            if record is None:
                raise ServiceFailure(ServiceReason.PLAYER_TOKEN_UNKNOWN_KEY, f"no app {player.app} on this server")
        if record is None and self.require_api_key and method in KEYED_METHODS:
            raise ServiceFailure(ServiceReason.API_KEY_REQUIRED, f"{method} needs an API key: {KEY_HINT}")
        charged = player.quota_subject if player is not None else player_of(metadata, peer)
        if record is None:
            return Caller(None, address, peer, charged)
        quotas = AppQuotas.from_json(record.quotas) if record.quotas != "{}" else NO_QUOTAS
        return Caller(record.key_id, address, peer, charged, quotas, player)

    async def _player(self, metadata: Any, record: ApiKeyRecord | None) -> PlayerId | None:
        """The player the call's player token vouches for (None without one); the token must be of the call's app.

        :raises ServiceFailure: a PLAYER_TOKEN_* reason.
        """
        token = player_token_of(metadata)
        if token is None or self.player_tokens is None:
            return None
        return await self.player_tokens.verify(token.strip(), record.key_id if record is not None else None)

    def charge_call(self, caller: Caller) -> Allowance | None:
        """One token from the player's bucket, then one from its app's: a runaway player is stopped before it
        spends its app's budget, and an app's players together stay within the app's total. What is left after:
        of the bucket with fewer whole calls left (the player's on a tie: the smaller one), None with both off."""
        limits = self.limits
        wait, player = self.player_calls.charge(caller.player)
        if wait:
            raise QuotaExceeded(
                "player_calls_per_second", limits.player_calls_per_second, caller.player, wait, "too many calls"
            )
        app = caller.quotas.over(limits)
        wait, own = self.calls.charge(caller.subject, (app.calls_per_second, max(app.burst, 1)))
        if wait:
            raise quota_exceeded("calls_per_second", app.calls_per_second, caller, wait, "too many calls")
        if own is not None and (player is None or int(own.tokens) < int(player.tokens)):
            return own.allowance("calls_per_second")
        return player.allowance("player_calls_per_second") if player is not None else None

    @contextlib.contextmanager
    def unary_slot(self, caller: Caller) -> Iterator[None]:
        cap = caller.quotas.over(self.limits).calls_in_flight
        if self.in_flight.full(caller.subject, cap):
            raise quota_exceeded("calls_in_flight", cap, caller, 0.1, "too many calls running at once")
        if self.server_in_flight.full(""):
            raise quota_exceeded(
                "server_calls_in_flight", self.limits.server_calls_in_flight, None, 0.5, "the server is busy"
            )
        self.in_flight.acquire(caller.subject)
        self.server_in_flight.acquire("")
        try:
            yield
        finally:
            self.in_flight.release(caller.subject)
            self.server_in_flight.release("")

    @contextlib.contextmanager
    def watch_slot(self, caller: Caller) -> Iterator[None]:
        limits = caller.quotas.over(self.limits)
        # Per client address: an anonymous caller's, or an app's callers at that address (one key's players
        # behind one address are not held back by an anonymous flood from it); and per key, all addresses together.
        address = f"peer:{caller.peer}" if caller.key_id is None else f"{caller.subject}@{caller.peer}"
        key = caller.subject if caller.key_id is not None else ""
        if self.watches.full(address, limits.watch_streams):
            raise quota_exceeded(
                "watch_streams", limits.watch_streams, caller, 5.0, "too many open watches from this address"
            )
        if key and self.key_watches.full(key, limits.watch_streams_per_key):
            raise quota_exceeded(
                "watch_streams_per_key", limits.watch_streams_per_key, caller, 5.0, "too many open watches on this key"
            )
        if self.connection_watches.full(caller.connection):
            raise quota_exceeded(
                "watch_streams_per_connection",
                limits.watch_streams_per_connection,
                caller,
                5.0,
                "too many open watches on this connection",
            )
        if self.server_watches.full(""):
            raise quota_exceeded("server_watch_streams", self.server_watch_cap, None, 5.0, "the server is busy")
        self.watches.acquire(address)
        if key:
            self.key_watches.acquire(key)
        self.connection_watches.acquire(caller.connection)
        self.server_watches.acquire("")
        try:
            yield
        finally:
            self.watches.release(address)
            if key:
                self.key_watches.release(key)
            self.connection_watches.release(caller.connection)
            self.server_watches.release("")

    async def charge_method(self, method: str, caller: Caller) -> None:
        """The quotas of particular methods: creating a game (CreateGame, Rematch), an anonymous join, a new
        player of the web table."""
        if method in CREATING_METHODS:
            await self.charge_create(caller)
        elif method == "JoinGame" and caller.key_id is None:
            wait = self.joins.take(caller.subject)
            if wait:
                raise quota_exceeded("joins_per_minute", self.limits.joins_per_minute, caller, wait, "too many joins")
        elif method == NEW_TABLE_PLAYER:
            # Per client address, whatever key or token came with the call: identities cost nothing to ask for.
            wait = self.table_players.take(f"peer:{caller.peer}")
            if wait:
                limit = self.limits.table_players_per_minute
                raise quota_exceeded("table_players_per_minute", limit, caller, wait, "too many new players")

    async def charge_create(self, caller: Caller) -> None:
        limits = caller.quotas.over(self.limits)
        if limits.open_games > 0:
            unfinished = await self.store.count_unfinished_games(caller.subject)
            if unfinished >= limits.open_games:
                raise quota_exceeded(
                    "open_games", limits.open_games, caller, 30.0, f"{unfinished} unfinished games created"
                )
        wait = self.creates.take(caller.subject, (limits.games_per_minute / 60.0, max(limits.games_per_minute, 1.0)))
        if wait:
            raise quota_exceeded("games_per_minute", limits.games_per_minute, caller, wait, "too many games created")


__all__ = ["NEW_TABLE_PLAYER", "Admission", "Allowance", "Limits", "TokenBucket", "quota_exceeded"]
