"""truco.v1.PlayerService: quick match, players, rankings and histories, in the contract's terms.

Each RPC reads the caller's app and player (the admission verified its player token: ``Caller.player_id``),
calls the core (:mod:`truco.server.core.matchmaking`, the store's player book) and converts the answer.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
from collections.abc import AsyncIterator

from google.protobuf import duration_pb2, timestamp_pb2

from truco.server.core.games import Games
from truco.server.core.identities import PLAYER_PREFIX, PlayerId
from truco.server.core.matchmaking import DEFAULT_WAIT_SECONDS, TICKET_PREFIX, Tickets, Wanted
from truco.server.core.player_tokens import PLAYER_ID, PLAYER_TOKEN_HEADER
from truco.server.core.ratings import TABLE_SIZES
from truco.server.core.reasons import ServiceFailure, ServiceReason
from truco.server.service.messages import BOT_LEVELS, NAME_PREFIX
from truco.server.service.pipeline import Call
from truco.server.store.interface import EventStore
from truco.server.store.records import TICKET_MATCHED, TICKET_WAITING, RatingRecord, TicketRecord, now_us
from truco.wire import rules_from_pb, rules_to_pb
from truco.wire.v1 import game_service_pb2 as gs
from truco.wire.v1 import players_pb2 as pl

ME = "me"
DEFAULT_PAGE = 20
MAX_PAGE = 100
_STATES = {
    TICKET_WAITING: pl.TICKET_STATE_WAITING,
    TICKET_MATCHED: pl.TICKET_STATE_MATCHED,
    "expired": pl.TICKET_STATE_EXPIRED,
    "cancelled": pl.TICKET_STATE_CANCELLED,
}


def _app(call: Call) -> str:
    """The caller's app: its player token's, or its API key's."""
    if call.caller.player_id is not None:
        return call.caller.player_id.app
    if call.caller.key_id is not None:
        return call.caller.key_id
    raise ServiceFailure(
        ServiceReason.PLAYER_TOKEN_MISSING, f"send a player token ('{PLAYER_TOKEN_HEADER}') or an API key"
    )


def _me(call: Call) -> PlayerId:
    if call.caller.player_id is None:
        raise ServiceFailure(
            ServiceReason.PLAYER_TOKEN_MISSING, f"this call acts as a player: send its '{PLAYER_TOKEN_HEADER}'"
        )
    return call.caller.player_id


def _player_sub(name: str, call: Call) -> str:
    """The ``sub`` of ``players/{sub}`` (``players/me``: the caller's)."""
    sub = name.removeprefix(PLAYER_PREFIX)
    if not name.startswith(PLAYER_PREFIX) or PLAYER_ID.fullmatch(sub) is None:
        raise ServiceFailure(ServiceReason.INVALID_NAME, f"a player's name is players/{{sub}}, not {name!r}")
    return _me(call).sub if sub == ME else sub


def _page_size(size: int) -> int:
    if size < 0:
        raise ServiceFailure(ServiceReason.INVALID_PAGE_SIZE, "page_size cannot be negative")
    return min(size or DEFAULT_PAGE, MAX_PAGE)


def _encode(*parts: object) -> str:
    return base64.urlsafe_b64encode("\x1f".join(str(p) for p in parts).encode()).decode()


def _decode(token: str, kind: str, count: int) -> list[str]:
    try:
        parts = base64.urlsafe_b64decode(token.encode()).decode().split("\x1f")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        parts = []
    if len(parts) != count or parts[0] != kind:
        raise ServiceFailure(ServiceReason.INVALID_PAGE_TOKEN, "page_token: pass a next_page_token as it came")
    return parts[1:]


def rating_to_pb(rating: RatingRecord) -> pl.Rating:
    return pl.Rating(
        players=rating.players,
        mu=rating.mu,
        sigma=rating.sigma,
        ordinal=rating.ordinal,
        matches=rating.matches,
        wins=rating.wins,
    )


def _duration(seconds: float) -> duration_pb2.Duration:
    out = duration_pb2.Duration()
    out.FromNanoseconds(int(seconds * 1e9))
    return out


def _timestamp(us: int) -> timestamp_pb2.Timestamp:
    out = timestamp_pb2.Timestamp()
    out.FromMicroseconds(us)
    return out


def ticket_to_pb(ticket: TicketRecord, window: float) -> pl.MatchTicket:
    from truco.server.core.setups import rules_from_text

    now = now_us()
    end = now if ticket.state == TICKET_WAITING else min(now, ticket.expires_us)
    return pl.MatchTicket(
        name=TICKET_PREFIX + ticket.ticket_id,
        state=_STATES.get(ticket.state, pl.TICKET_STATE_UNSPECIFIED),
        rules=rules_to_pb(rules_from_text(ticket.rules)),
        party=[p for p in ticket.party if p != ticket.player],
        open_time=_timestamp(ticket.opened_us),
        waited=_duration(max(0, end - ticket.opened_us) / 1e6),
        window_low=ticket.ordinal - window,
        window_high=ticket.ordinal + window,
    )


def _wanted(request: pl.FindMatchRequest) -> Wanted:
    rules = rules_from_pb(request.rules)
    max_wait = request.max_wait.ToNanoseconds() / 1e9 if request.HasField("max_wait") else DEFAULT_WAIT_SECONDS
    bots_after = request.bots_after.ToNanoseconds() / 1e9 if request.HasField("bots_after") else None
    bot = BOT_LEVELS.get(request.bot_level or gs.BOT_LEVEL_INTERMEDIATE)
    if bot is None:
        raise ServiceFailure(ServiceReason.INVALID_BOT_KIND, "bot_level: BEGINNER, INTERMEDIATE or EXPERT")
    for member in request.party:
        if PLAYER_ID.fullmatch(member) is None:
            raise ServiceFailure(ServiceReason.INVALID_PARTY, f"party: {member!r} is not a player's sub")
    if rules.players == 2 and request.party:
        raise ServiceFailure(ServiceReason.INVALID_PARTY, "a 2-player match has no partners")
    return Wanted(rules, tuple(request.party), max_wait, bots_after, bot)


class PlayerServicer:
    """truco.v1.PlayerService: one method per RPC, named as in the contract."""

    def __init__(self, games: Games, store: EventStore) -> None:
        self.games = games
        self.store = store
        self.tickets = Tickets(store)

    async def FindMatch(self, request: pl.FindMatchRequest, call: Call) -> AsyncIterator[pl.FindMatchResponse]:
        from truco.server.core.matching import window
        from truco.server.limits.validation import check_join_request_id

        player = _me(call)
        check_join_request_id(request.request_id)
        ticket = await self.tickets.open(player, _wanted(request), request.request_id or None)
        stream = await self.tickets.follow(ticket)
        try:
            async for seen in stream:
                reply = pl.FindMatchResponse(ticket=ticket_to_pb(seen, window(seen, now_us())))
                if seen.state == TICKET_WAITING and not await self.tickets.party_ready(seen):
                    reply.ticket.state = pl.TICKET_STATE_WAITING_FOR_PARTY
                if seen.state == TICKET_MATCHED:
                    token = await self.games.join_ticket(seen.game_id, seen.seat, seen)
                    reply.game, reply.seat, reply.seat_token = NAME_PREFIX + seen.game_id, seen.seat, token
                yield reply
        finally:
            # A stream that ends (the client cancelled, the connection dropped) takes its waiting ticket along,
            # unless the client follows it on another stream now (it opened FindMatch again with the request id).
            with contextlib.suppress(Exception):
                await self.tickets.drop(stream)

    async def CancelMatch(self, request: pl.CancelMatchRequest, call: Call) -> pl.CancelMatchResponse:
        from truco.server.core.matching import window

        player = _me(call)
        ticket_id = None
        if request.name:
            if not request.name.startswith(TICKET_PREFIX):
                raise ServiceFailure(ServiceReason.INVALID_NAME, "a ticket's name is tickets/{id}")
            ticket_id = request.name.removeprefix(TICKET_PREFIX)
        ticket = await self.tickets.cancel(player, ticket_id)
        return pl.CancelMatchResponse(ticket=ticket_to_pb(ticket, window(ticket, now_us())))

    async def GetPlayer(self, request: pl.GetPlayerRequest, call: Call) -> pl.GetPlayerResponse:
        app = _app(call)
        sub = _player_sub(request.name, call)
        found = await self.store.player(app, sub)
        if found is None:
            raise ServiceFailure(ServiceReason.PLAYER_NOT_FOUND, f"no player {sub!r} of this app")
        name, ratings = found
        player = pl.Player(name=PLAYER_PREFIX + sub, display_name=name, ratings=[rating_to_pb(r) for r in ratings])
        return pl.GetPlayerResponse(player=player)

    async def ListLeaderboard(self, request: pl.ListLeaderboardRequest, call: Call) -> pl.ListLeaderboardResponse:
        app = _app(call)
        if request.players not in TABLE_SIZES:
            raise ServiceFailure(ServiceReason.INVALID_TABLE_SIZE, "players: 2, 4 or 6")
        size = _page_size(request.page_size)
        if request.page_token:
            (offset,) = _decode(request.page_token, "lb", 2)
            start = int(offset) if offset.isdigit() else -1
            if start < 0:
                raise ServiceFailure(ServiceReason.INVALID_PAGE_TOKEN, "page_token: pass a next_page_token as it came")
        elif request.around_player:
            sub = _player_sub(request.around_player, call)
            rating = await self.store.rating(app, request.players, sub)
            if rating is None:
                raise ServiceFailure(ServiceReason.PLAYER_NOT_FOUND, f"{sub!r} has no rating at this table size")
            start = max(0, await self.store.rank_of(rating) - size // 2)
        else:
            start = 0
        rows, total = await self.store.leaderboard(app, request.players, start, size)
        entries = [
            pl.LeaderboardEntry(
                rank=start + index + 1, player=PLAYER_PREFIX + r.player, display_name=name, rating=rating_to_pb(r)
            )
            for index, (r, name) in enumerate(rows)
        ]
        following = start + len(rows)
        token = _encode("lb", following) if following < total and rows else ""
        return pl.ListLeaderboardResponse(entries=entries, next_page_token=token, total=total)

    async def ListPlayerMatches(self, request: pl.ListPlayerMatchesRequest, call: Call) -> pl.ListPlayerMatchesResponse:
        app = _app(call)
        sub = _player_sub(request.name, call)
        size = _page_size(request.page_size)
        after = None
        if request.page_token:
            ended, game_id = _decode(request.page_token, "pm", 3)
            if not ended.isdigit():
                raise ServiceFailure(ServiceReason.INVALID_PAGE_TOKEN, "page_token: pass a next_page_token as it came")
            after = (int(ended), game_id)
        rows = await self.store.player_matches(app, sub, after, size + 1)
        matches = [
            pl.PlayerMatch(
                game=NAME_PREFIX + m.game_id,
                players=m.players,
                seat=m.seat,
                won=m.won,
                rated=m.rated,
                end_time=_timestamp(m.ended_us),
                scores=list(m.scores),
                rating_after=rating_to_pb(RatingRecord(app, m.players, sub, m.mu, m.sigma)) if m.rated else None,
                seat_players=[PLAYER_PREFIX + p if p else "" for p in m.seat_players],
            )
            for m in rows[:size]
        ]
        token = _encode("pm", rows[size - 1].ended_us, rows[size - 1].game_id) if len(rows) > size else ""
        return pl.ListPlayerMatchesResponse(matches=matches, next_page_token=token)


__all__ = ["PlayerServicer"]
