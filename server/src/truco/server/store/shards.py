"""Games sharded over several stores (PostgreSQL primaries): each game lives whole in one shard, which its id
names, so every per-game operation is one shard's transaction and a shard that is down fails only its games.

A game's id is ``<shard>-<random hex>``: the shard is read from the id, never looked up. A create with a
request id picks its shard by hashing the request id, so a retried create lands where the first one did and
that shard's request-id index answers it; a create without one picks a shard at random. An id without a known
shard prefix (ids made before sharding, or by hand) is placed by a hash of the whole id, the same for every
replica.

What is not one game's: the lobby (``list_open_games``) is a merge of every shard's first page under one
cursor (the keyset (created_at, game_id) means the same on every shard, so the merged pages are exact); counts,
housekeeping and due clocks ask every shard and skip one that is down (its games wait for it); API keys live
on the first shard of the map (the home shard), which every replica reads through its own cache.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import re
import secrets
import tomllib
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from .errors import ShardUnavailable, StoreUnavailable
from .interface import EventStore
from .records import (
    ApiKeyRecord,
    AppendResult,
    GameRecord,
    NewEvent,
    PlayerMatchRecord,
    RatingRecord,
    Sighting,
    SigningKeyRecord,
    StoredEvent,
    TicketRecord,
    encode_cursor,
)

T = TypeVar("T")

SHARD_NAME = re.compile(r"[a-z0-9]{1,16}")
"""A shard's name: short (it prefixes every game id of the shard, which must stay within 64 characters), and
without ``-``, which ends it in an id."""
MAP_SCHEME = "shards:"
"""``--store shards:PATH``: the shards are named in a TOML file (``[shards]`` then ``name = "url"`` lines)."""


@dataclass(frozen=True, slots=True)
class ShardMap:
    """The shards by name, in the map's order (the first is the home shard, which keeps the API keys)."""

    urls: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        names = [name for name, _ in self.urls]
        if len(names) < 2:
            raise ValueError("a shard map names at least two shards")
        if len(set(names)) != len(names):
            raise ValueError(f"a shard map names each shard once: {names}")
        for name in names:
            if not SHARD_NAME.fullmatch(name):
                raise ValueError(f"bad shard name {name!r}: 1 to 16 lowercase letters and digits")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.urls)


def is_sharded(url: str) -> bool:
    """Whether a ``--store`` value names several shards (a map file, or URLs separated by whitespace)."""
    return url.startswith(MAP_SCHEME) or len(url.split()) > 1


def parse_shard_map(url: str) -> ShardMap:
    """The shards a ``--store`` value names: ``shards:PATH`` (a TOML map file), or PostgreSQL URLs separated by
    whitespace, named ``s0``, ``s1``... in their order (keep the order: the names are in the games' ids).

    :raises ValueError: a bad map, a shard that is not PostgreSQL, or fewer than two shards.
    """
    if url.startswith(MAP_SCHEME):
        path = Path(url[len(MAP_SCHEME) :])
        try:
            table = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ValueError(f"cannot read the shard map {str(path)!r}: {exc}") from exc
        shards = table.get("shards")
        if not isinstance(shards, dict) or not all(isinstance(v, str) for v in shards.values()):
            raise ValueError(f'the shard map {str(path)!r} needs a [shards] table of name = "postgresql://..."')
        named = tuple((str(name), str(shard_url)) for name, shard_url in shards.items())
    else:
        named = tuple((f"s{index}", shard_url) for index, shard_url in enumerate(url.split()))
    for name, shard_url in named:
        if shard_url.split("://", 1)[0] not in ("postgresql", "postgres"):
            raise ValueError(f"shard {name!r}: a shard is a PostgreSQL database (postgresql://...), not {shard_url!r}")
    return ShardMap(named)


def shard_of(names: Sequence[str], game_id: str) -> str:
    """The name of the shard (of ``names``, in the map's order) that holds ``game_id``: its prefix, or for an id
    without a known one, a hash of the whole id."""
    prefix, dash, _ = game_id.partition("-")
    if dash and prefix in names:
        return prefix
    return names[_bucket(game_id, len(names))]


def _bucket(key: str, count: int) -> int:
    """A stable index in ``range(count)`` for ``key``: the same in every process (unlike ``hash``)."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big") % count


class ShardedStore:
    """An :class:`~truco.server.store.EventStore` over several, each game in one of them. Build it with
    :meth:`open`, or from stores already open."""

    def __init__(self, shards: Mapping[str, EventStore]) -> None:
        if len(shards) < 2:
            raise ValueError("a sharded store has at least two shards")
        self._names = tuple(shards)
        self._shards = dict(shards)
        self.recheck_seconds = max(store.recheck_seconds for store in shards.values())

    @classmethod
    async def open(
        cls, shard_map: ShardMap, opener: Callable[[str, Callable[[str], bool]], Awaitable[EventStore]]
    ) -> ShardedStore:
        """Open every shard of the map with ``opener(url, owns)``, ``owns`` telling which game ids are that
        shard's (a shard that is down opens all the same, as one PostgreSQL store does, and answers once up)."""
        names = shard_map.names

        def owner(name: str) -> Callable[[str], bool]:
            return lambda game_id: shard_of(names, game_id) == name

        opened = await asyncio.gather(*(opener(url, owner(name)) for name, url in shard_map.urls))
        return cls(dict(zip(shard_map.names, opened, strict=True)))

    @property
    def names(self) -> tuple[str, ...]:
        return self._names

    def shard_of(self, game_id: str) -> str:
        """The name of the shard that holds ``game_id`` (:func:`shard_of`)."""
        return shard_of(self._names, game_id)

    def new_game_id(self, request_id: str | None) -> str:
        if request_id is None:
            shard = secrets.choice(self._names)
        else:
            shard = self._names[_bucket(request_id, len(self._names))]
        return f"{shard}-{uuid.uuid4().hex}"

    async def _on(self, shard: str, call: Callable[[EventStore], Awaitable[T]]) -> T:
        """``call`` on one shard; its outage names it (SHARD_UNAVAILABLE: the other shards answer)."""
        try:
            return await call(self._shards[shard])
        except ShardUnavailable:
            raise
        except StoreUnavailable as exc:
            raise ShardUnavailable(shard, str(exc)) from exc

    async def _on_game(self, game_id: str, call: Callable[[EventStore], Awaitable[T]]) -> T:
        return await self._on(self.shard_of(game_id), call)

    async def _on_every(self, call: Callable[[EventStore], Awaitable[T]]) -> list[T]:
        """``call`` on every shard at once; the answers of those that are up. A shard that is down is left
        out (its games wait for it); only when every shard is down does this fail."""
        answers = await asyncio.gather(*(call(self._shards[name]) for name in self._names), return_exceptions=True)
        up: list[T] = []
        outage: StoreUnavailable | None = None
        for answer in answers:
            if isinstance(answer, StoreUnavailable):
                outage = answer
            elif isinstance(answer, BaseException):
                raise answer
            else:
                up.append(answer)
        if not up and outage is not None:
            raise StoreUnavailable(f"every shard is unreachable: {outage}") from outage
        return up

    @property
    def _home(self) -> str:
        return self._names[0]

    # The game log: each call on the game's shard.

    async def create_game(self, game: GameRecord, events: Sequence[NewEvent], request_id: str | None) -> GameRecord:
        return await self._on_game(game.game_id, lambda store: store.create_game(game, events, request_id))

    async def append(
        self,
        game_id: str,
        expected_last_seq: int,
        events: Sequence[NewEvent],
        request_id: str | None,
        response: bytes,
        over: bool,
        deadline_us: int | None = None,
    ) -> AppendResult:
        return await self._on_game(
            game_id,
            lambda store: store.append(game_id, expected_last_seq, events, request_id, response, over, deadline_us),
        )

    async def find_response(self, game_id: str, request_id: str) -> bytes | None:
        return await self._on_game(game_id, lambda store: store.find_response(game_id, request_id))

    async def read(self, game_id: str, after_seq: int = 0) -> list[StoredEvent]:
        return await self._on_game(game_id, lambda store: store.read(game_id, after_seq))

    async def get_game(self, game_id: str) -> GameRecord:
        return await self._on_game(game_id, lambda store: store.get_game(game_id))

    async def wait_for_change(
        self, game_id: str, after_seq: int, timeout: float, vouched: Callable[[], bool] | None = None
    ) -> int | None:
        return await self._on_game(game_id, lambda store: store.wait_for_change(game_id, after_seq, timeout, vouched))

    def interrupt_waits(self) -> None:
        for store in self._shards.values():
            store.interrupt_waits()

    def on_append(self, heard: Callable[[str, int], None]) -> None:
        for store in self._shards.values():
            store.on_append(heard)

    def hearing_epoch(self) -> int | None:
        # Epochs only grow, so their sum changes whenever any shard's does; one shard deaf makes all unsure
        # (a cached game is then checked against its store: a read, never a wrong answer).
        epochs = [store.hearing_epoch() for store in self._shards.values()]
        return None if None in epochs else sum(epoch for epoch in epochs if epoch is not None)

    # Seats: the game's shard.

    async def claim_seat(
        self,
        game_id: str,
        seat: int | None,
        token_hash: bytes,
        player_name: str,
        request_id: str | None,
        key_id: str = "",
        player: str = "",
    ) -> tuple[GameRecord, int]:
        return await self._on_game(
            game_id,
            lambda store: store.claim_seat(game_id, seat, token_hash, player_name, request_id, key_id, player),
        )

    async def seat_bots(
        self, game_id: str, expected_last_seq: int, bots: Mapping[int, str], rules: bytes
    ) -> GameRecord:
        return await self._on_game(game_id, lambda store: store.seat_bots(game_id, expected_last_seq, bots, rules))

    async def set_seat_token(self, game_id: str, seat: int, token_hash: bytes) -> None:
        await self._on_game(game_id, lambda store: store.set_seat_token(game_id, seat, token_hash))

    async def seat_for_token(self, game_id: str, token_hash: bytes) -> int | None:
        return await self._on_game(game_id, lambda store: store.seat_for_token(game_id, token_hash))

    async def touch_seats(self, sightings: Sequence[Sighting]) -> None:
        by_shard: dict[str, list[Sighting]] = {}
        for sighting in sightings:
            by_shard.setdefault(self.shard_of(sighting[0]), []).append(sighting)
        # One write per shard; a shard that is down fails the whole batch, which its caller keeps for the next.
        await asyncio.gather(*(self._touch(name, batch) for name, batch in by_shard.items()))

    async def _touch(self, shard: str, sightings: Sequence[Sighting]) -> None:
        await self._on(shard, lambda store: store.touch_seats(sightings))

    # The directory: every shard.

    async def list_open_games(
        self, page_size: int, after: str | None, viewer: str | None = None
    ) -> tuple[list[GameRecord], str | None]:
        pages = await self._on_every(lambda store: store.list_open_games(page_size, after, viewer))
        # Newest first, ties broken by the greater id: the shards' own order, so one cursor means the same on all.
        merged = sorted((game for games, _ in pages for game in games), key=_sort_key, reverse=True)
        more = len(merged) > page_size or any(cursor is not None for _, cursor in pages)
        page = merged[:page_size]
        return page, (encode_cursor(page[-1]) if more and page else None)

    async def count_unfinished_games(self, creator: str) -> int:
        return sum(await self._on_every(lambda store: store.count_unfinished_games(creator)))

    async def link_next_game(self, game_id: str, next_game: str) -> str:
        return await self._on_game(game_id, lambda store: store.link_next_game(game_id, next_game))

    async def close_abandoned(self, created_before: str) -> list[str]:
        closed = await self._on_every(lambda store: store.close_abandoned(created_before))
        return [game_id for ids in closed for game_id in ids]

    async def delete_games(self, ended_before_us: int, limit: int) -> list[str]:
        # Up to ``limit`` from each shard, all reported (they are gone): a caller that repeats while a batch comes
        # back full goes on until every shard is done.
        deleted = await self._on_every(lambda store: store.delete_games(ended_before_us, limit))
        return [game_id for ids in deleted for game_id in ids]

    # Players and tickets: the home shard, beside the API keys (an app's players are one ranking). A game's
    # results mark is also written beside the game, so that its shard stops offering it for counting.

    async def add_signing_key(self, key: SigningKeyRecord) -> None:
        await self._on(self._home, lambda store: store.add_signing_key(key))

    async def signing_keys(self, app: str | None = None, kid: str | None = None) -> list[SigningKeyRecord]:
        return await self._on(self._home, lambda store: store.signing_keys(app, kid))

    async def revoke_signing_key(self, app: str, kid: str, revoked_at: str) -> SigningKeyRecord | None:
        return await self._on(self._home, lambda store: store.revoke_signing_key(app, kid, revoked_at))

    async def name_player(self, app: str, player: str, display_name: str) -> None:
        await self._on(self._home, lambda store: store.name_player(app, player, display_name))

    async def player(self, app: str, player: str) -> tuple[str, list[RatingRecord]] | None:
        return await self._on(self._home, lambda store: store.player(app, player))

    async def rating(self, app: str, players: int, player: str) -> RatingRecord | None:
        return await self._on(self._home, lambda store: store.rating(app, players, player))

    async def leaderboard(
        self, app: str, players: int, offset: int, limit: int
    ) -> tuple[list[tuple[RatingRecord, str]], int]:
        return await self._on(self._home, lambda store: store.leaderboard(app, players, offset, limit))

    async def rank_of(self, rating: RatingRecord) -> int:
        return await self._on(self._home, lambda store: store.rank_of(rating))

    async def player_matches(
        self, app: str, player: str, after: tuple[int, str] | None, limit: int
    ) -> list[PlayerMatchRecord]:
        return await self._on(self._home, lambda store: store.player_matches(app, player, after, limit))

    async def unresulted_games(self, ended_from_us: int, limit: int) -> list[tuple[str, int]]:
        # In the order they ended across shards: a shard that filled its page may hold more before the others'
        # later games, so the merged page stops at the earliest last game of a full page.
        pages = await self._on_every(lambda store: store.unresulted_games(ended_from_us, limit))
        cutoff = min((page[-1][1] for page in pages if len(page) >= limit), default=None)
        merged = sorted((game for page in pages for game in page), key=lambda game: (game[1], game[0]))
        return [game for game in merged if cutoff is None or game[1] <= cutoff][:limit]

    async def record_result(
        self,
        game_id: str,
        app: str,
        ended_us: int,
        matches: Sequence[PlayerMatchRecord],
        ratings: Sequence[RatingRecord],
    ) -> bool:
        # The home shard's mark guards the count (its transaction holds the ratings); the mark beside the game
        # only keeps the game's shard from offering it again, so it is written after, and again on a repeat.
        counted = await self._on(
            self._home, lambda store: store.record_result(game_id, app, ended_us, matches, ratings)
        )
        if self.shard_of(game_id) != self._home:
            await self._on_game(game_id, lambda store: store.record_result(game_id, app, ended_us, [], []))
        return counted

    async def clear_results(self) -> None:
        await self._on_every(lambda store: store.clear_results())

    async def open_ticket(self, ticket: TicketRecord) -> None:
        await self._on(self._home, lambda store: store.open_ticket(ticket))

    async def tickets(
        self,
        *,
        ticket_id: str | None = None,
        player: tuple[str, str] | None = None,
        request_id: str | None = None,
        waiting: bool = False,
    ) -> list[TicketRecord]:
        return await self._on(
            self._home,
            lambda store: store.tickets(ticket_id=ticket_id, player=player, request_id=request_id, waiting=waiting),
        )

    async def end_ticket(self, ticket_id: str, state: str) -> bool:
        return await self._on(self._home, lambda store: store.end_ticket(ticket_id, state))

    async def match_tickets(self, game_id: str, seats: Sequence[tuple[str, int]]) -> bool:
        # Only the tickets' rows change (the game is named, not touched): one transaction on the home shard.
        return await self._on(self._home, lambda store: store.match_tickets(game_id, seats))

    async def touch_ticket(self, ticket_id: str, seen_us: int, follower: int | None = None) -> bool:
        return await self._on(self._home, lambda store: store.touch_ticket(ticket_id, seen_us, follower))

    async def drop_ticket(self, ticket_id: str, follower: int) -> bool:
        return await self._on(self._home, lambda store: store.drop_ticket(ticket_id, follower))

    async def forget_tickets(self, opened_before_us: int) -> int:
        return await self._on(self._home, lambda store: store.forget_tickets(opened_before_us))

    async def take_lease(self, name: str, holder: str, until_us: int, now_us: int) -> bool:
        return await self._on(self._home, lambda store: store.take_lease(name, holder, until_us, now_us))

    async def release_lease(self, name: str, holder: str) -> bool:
        return await self._on(self._home, lambda store: store.release_lease(name, holder))

    # API keys: the home shard.

    async def create_api_key(self, key: ApiKeyRecord) -> None:
        await self._on(self._home, lambda store: store.create_api_key(key))

    async def api_key_by_hash(self, secret_hash: bytes) -> ApiKeyRecord | None:
        return await self._on(self._home, lambda store: store.api_key_by_hash(secret_hash))

    async def api_key_by_id(self, key_id: str) -> ApiKeyRecord | None:
        return await self._on(self._home, lambda store: store.api_key_by_id(key_id))

    async def list_api_keys(self) -> list[ApiKeyRecord]:
        return await self._on(self._home, lambda store: store.list_api_keys())

    async def revoke_api_key(self, key_id: str, revoked_at: str) -> ApiKeyRecord:
        return await self._on(self._home, lambda store: store.revoke_api_key(key_id, revoked_at))

    # Deadlines: the game's shard, and every shard's due games.

    async def set_deadline(self, game_id: str, last_seq: int, deadline_us: int | None) -> bool:
        return await self._on_game(game_id, lambda store: store.set_deadline(game_id, last_seq, deadline_us))

    async def due_games(self, now_us: int, limit: int) -> tuple[list[str], int | None]:
        answers = await self._on_every(lambda store: store.due_games(now_us, limit))
        # Each shard's earliest first, in turns: a full batch leaves the rest to the next look, which comes at once.
        due = _interleaved([ids for ids, _ in answers])[:limit]
        following = [deadline for _, deadline in answers if deadline is not None]
        return due, (min(following) if following else None)

    # Life.

    async def ping(self) -> None:
        """Up while any shard answers: a replica with one shard down still serves the others' games (the down
        shard's calls fail with SHARD_UNAVAILABLE), so it must not leave the balancer."""
        await self._on_every(lambda store: store.ping())

    async def close(self) -> None:
        await asyncio.gather(*(store.close() for store in self._shards.values()))


def _sort_key(game: GameRecord) -> tuple[str, str]:
    return game.created_at, game.game_id


def _interleaved(lists: Sequence[Sequence[str]]) -> list[str]:
    """The lists' items taken in turns, first items first: a cut of it is fair to every list."""
    return [item for row in itertools.zip_longest(*lists) for item in row if item is not None]


__all__ = ["MAP_SCHEME", "ShardMap", "ShardedStore", "is_sharded", "parse_shard_map", "shard_of"]
