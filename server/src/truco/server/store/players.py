"""The store's operations on players, ratings, tickets and the matcher's lease, written once over a
:class:`~truco.server.store.core.Connection` like every other operation (``SQLStore`` inherits them)."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, ClassVar, Literal, TypeVar

from . import sql
from .errors import TicketAlreadyOpen, VersionConflict
from .records import (
    TICKET_WAITING,
    PlayerMatchRecord,
    RatingRecord,
    SigningKeyRecord,
    TicketRecord,
)

T = TypeVar("T")
Row = tuple[Any, ...]


class PlayerTables:
    """:class:`~truco.server.store.interface.PlayerBook` and ``TicketBook`` for ``SQLStore``."""

    PS: ClassVar[sql.PlayerStatements]
    duplicate: ClassVar[tuple[type[Exception], ...]]

    async def _run(
        self, work: Callable[[Any], Coroutine[Any, Any, T]], kind: Literal["read", "write", "transaction"] = "read"
    ) -> T:
        raise NotImplementedError  # SQLStore's

    # Signing keys and players.

    async def add_signing_key(self, key: SigningKeyRecord) -> None:
        values = (key.app, key.kid, key.algorithm, key.key, key.created_at, key.revoked_at)

        async def insert(conn: Any) -> None:
            try:
                await conn.run(self.PS.insert_signing_key, values)
            except self.duplicate as exc:
                raise VersionConflict(f"the app {key.app!r} already has a signing key {key.kid!r}") from exc

        await self._run(insert, "write")

    async def signing_keys(self, app: str | None = None, kid: str | None = None) -> list[SigningKeyRecord]:
        where, parameters = _signing_key_filter(app, kid)
        where = where.replace("?", self.PS.placeholder)
        rows = await self._run(lambda conn: conn.rows(self.PS.signing_keys.format(where=where), parameters))
        return [SigningKeyRecord(a, k, alg, bytes(data), c, r) for a, k, alg, data, c, r in rows]

    async def revoke_signing_key(self, app: str, kid: str, revoked_at: str) -> SigningKeyRecord | None:
        await self._run(lambda conn: conn.run(self.PS.revoke_signing_key, (revoked_at, app, kid)), "write")
        found = await self.signing_keys(app, kid)
        return found[0] if found else None

    async def name_player(self, app: str, player: str, display_name: str) -> None:
        await self._run(lambda conn: conn.run(self.PS.upsert_player, (app, player, display_name)), "write")

    async def player(self, app: str, player: str) -> tuple[str, list[RatingRecord]] | None:
        async def read(conn: Any) -> tuple[str, list[RatingRecord]] | None:
            names = await conn.rows(self.PS.player, (app, player))
            if not names:
                return None
            return str(names[0][0]), _ratings(await conn.rows(self.PS.player_ratings, (app, player)))

        return await self._run(read)

    async def rating(self, app: str, players: int, player: str) -> RatingRecord | None:
        found = _ratings(await self._run(lambda conn: conn.rows(self.PS.rating, (app, players, player))))
        return found[0] if found else None

    async def leaderboard(
        self, app: str, players: int, offset: int, limit: int
    ) -> tuple[list[tuple[RatingRecord, str]], int]:
        async def read(conn: Any) -> tuple[list[tuple[RatingRecord, str]], int]:
            rows = await conn.rows(self.PS.leaderboard, (app, players, limit, offset))
            total = await conn.rows(self.PS.leaderboard_total, (app, players))
            return [(_ratings([row[:7]])[0], str(row[7])) for row in rows], int(total[0][0])

        return await self._run(read)

    async def rank_of(self, rating: RatingRecord) -> int:
        r = rating
        parameters = (r.app, r.players, r.ordinal, r.ordinal, r.matches, r.matches, r.player)
        rows = await self._run(lambda conn: conn.rows(self.PS.rank_of, parameters))
        return int(rows[0][0])

    async def player_matches(
        self, app: str, player: str, after: tuple[int, str] | None, limit: int
    ) -> list[PlayerMatchRecord]:
        query = self.PS.player_matches.format(after=self.PS.player_matches_after if after else "")
        parameters = (app, player, *((after[0], after[0], after[1]) if after else ()), limit)
        return [_player_match(row) for row in await self._run(lambda conn: conn.rows(query, parameters))]

    # Results: each finished game counted once.

    async def unresulted_games(self, ended_from_us: int, limit: int) -> list[tuple[str, int]]:
        rows = await self._run(lambda conn: conn.rows(self.PS.unresulted_games, (ended_from_us, limit)))
        return [(str(row[0]), int(row[1])) for row in rows]

    async def record_result(
        self,
        game_id: str,
        app: str,
        ended_us: int,
        matches: Sequence[PlayerMatchRecord],
        ratings: Sequence[RatingRecord],
    ) -> bool:
        async def write(conn: Any) -> bool:
            if await conn.run(self.PS.insert_result, (game_id, app, ended_us)) != 1:
                return False  # counted before (by this replica or another): the mark is the guard
            await conn.run_many(self.PS.insert_player_match, [_player_match_values(m) for m in matches])
            await conn.run_many(self.PS.upsert_rating, [_rating_values(r) for r in ratings])
            return True

        return await self._run(write, "transaction")

    async def clear_results(self) -> None:
        async def clear(conn: Any) -> None:
            for statement in self.PS.clear_results:
                await conn.run(statement)

        await self._run(clear, "transaction")

    # Tickets and the lease.

    async def open_ticket(self, ticket: TicketRecord) -> None:
        async def insert(conn: Any) -> None:
            try:
                await conn.run(self.PS.insert_ticket, _ticket_values(ticket))
            except self.duplicate:
                raise TicketAlreadyOpen("") from None

        try:
            await self._run(insert, "write")
        except (TicketAlreadyOpen, VersionConflict):
            waiting = await self.tickets(player=(ticket.app, ticket.player))
            raise TicketAlreadyOpen(next((t.ticket_id for t in waiting if t.state == TICKET_WAITING), "")) from None

    async def tickets(
        self,
        *,
        ticket_id: str | None = None,
        player: tuple[str, str] | None = None,
        request_id: str | None = None,
        waiting: bool = False,
    ) -> list[TicketRecord]:
        where, parameters = _ticket_filter(ticket_id, player, request_id, waiting)
        where = where.replace("?", self.PS.placeholder)
        rows = await self._run(lambda conn: conn.rows(self.PS.tickets.format(where=where), parameters))
        return [_ticket(row) for row in rows]

    async def end_ticket(self, ticket_id: str, state: str) -> bool:
        changed = await self._run(lambda conn: conn.run(self.PS.set_ticket_state, (state, ticket_id)), "write")
        return bool(changed == 1)

    async def match_tickets(self, game_id: str, seats: Sequence[tuple[str, int]]) -> bool:
        class _Taken(Exception):
            pass

        async def write(conn: Any) -> None:
            for ticket_id, seat in seats:
                if await conn.run(self.PS.match_ticket, (game_id, seat, ticket_id)) != 1:
                    raise _Taken  # rolls the transaction back: all or none

        try:
            await self._run(write, "transaction")
        except _Taken:
            return False
        return True

    async def touch_ticket(self, ticket_id: str, seen_us: int, follower: int | None = None) -> bool:
        if follower is None:
            statement, values = self.PS.touch_ticket, (seen_us, ticket_id, seen_us)
        else:
            statement, values = self.PS.beat_ticket, (seen_us, ticket_id, follower)
        return bool(await self._run(lambda conn: conn.run(statement, values), "write") == 1)

    async def drop_ticket(self, ticket_id: str, follower: int) -> bool:
        changed = await self._run(lambda conn: conn.run(self.PS.drop_ticket, (ticket_id, follower)), "write")
        return bool(changed == 1)

    async def forget_tickets(self, opened_before_us: int) -> int:
        changed = await self._run(lambda conn: conn.run(self.PS.forget_tickets, (opened_before_us,)), "write")
        return int(changed)

    async def take_lease(self, name: str, holder: str, until_us: int, now_us: int) -> bool:
        async def take(conn: Any) -> bool:
            await conn.run(self.PS.insert_lease, (name, "", 0))
            return bool(await conn.run(self.PS.take_lease, (holder, until_us, name, holder, now_us)) == 1)

        return await self._run(take, "transaction")

    async def release_lease(self, name: str, holder: str) -> bool:
        changed = await self._run(lambda conn: conn.run(self.PS.release_lease, (name, holder)), "write")
        return bool(changed == 1)


def _signing_key_filter(app: str | None, kid: str | None) -> tuple[str, tuple[object, ...]]:
    if app is None:
        return "", ()
    if kid is None:
        return "WHERE app = ?", (app,)
    return "WHERE app = ? AND kid = ?", (app, kid)


def _ticket_filter(
    ticket_id: str | None, player: tuple[str, str] | None, request_id: str | None, waiting: bool
) -> tuple[str, tuple[object, ...]]:
    clauses: list[str] = []
    parameters: list[object] = []
    if ticket_id is not None:
        clauses.append("ticket_id = ?")
        parameters.append(ticket_id)
    if player is not None:
        clauses.append("app = ? AND player = ?")
        parameters.extend(player)
    if request_id is not None:
        clauses.append("request_id = ?")
        parameters.append(request_id)
    if waiting:
        clauses.append(f"state = '{TICKET_WAITING}'")
    return ("WHERE " + " AND ".join(clauses) if clauses else ""), tuple(parameters)


def _ratings(rows: Sequence[Row]) -> list[RatingRecord]:
    return [
        RatingRecord(str(app), int(players), str(player), float(mu), float(sigma), int(matches), int(wins))
        for app, players, player, mu, sigma, matches, wins in rows
    ]


def _rating_values(r: RatingRecord) -> tuple[object, ...]:
    return (r.app, r.players, r.player, r.mu, r.sigma, r.ordinal, r.matches, r.wins)


def _player_match_values(m: PlayerMatchRecord) -> tuple[object, ...]:
    scores = json.dumps(list(m.scores))
    return (
        m.app,
        m.player,
        m.game_id,
        m.players,
        m.seat,
        m.won,
        m.rated,
        m.ended_us,
        scores,
        json.dumps(list(m.seat_players)),
        m.mu,
        m.sigma,
    )


def _player_match(row: Row) -> PlayerMatchRecord:
    app, player, game_id, players, seat, won, rated, ended_us, scores, seat_players, mu, sigma = row
    ours, theirs = json.loads(scores)
    return PlayerMatchRecord(
        str(app),
        str(player),
        str(game_id),
        int(players),
        int(seat),
        bool(won),
        bool(rated),
        int(ended_us),
        (int(ours), int(theirs)),
        tuple(json.loads(seat_players)),
        float(mu),
        float(sigma),
    )


def _ticket_values(t: TicketRecord) -> tuple[object, ...]:
    return (
        t.ticket_id,
        t.app,
        t.player,
        t.display_name,
        t.rules,
        t.players,
        ",".join(t.party),
        t.ordinal,
        t.opened_us,
        t.expires_us,
        t.bots_after_us,
        t.bot,
        t.state,
        t.game_id,
        t.seat,
        t.request_id,
        t.seen_us,
    )


def _ticket(row: Row) -> TicketRecord:
    (
        ticket_id,
        app,
        player,
        name,
        rules,
        players,
        party,
        ordinal,
        opened,
        expires,
        bots_after,
        level,
        state,
        game,
        seat,
        request_id,
        seen,
    ) = row
    return TicketRecord(
        str(ticket_id),
        str(app),
        str(player),
        str(name),
        str(rules),
        int(players),
        tuple(party.split(",")) if party else (),
        float(ordinal),
        int(opened),
        int(expires),
        None if bots_after is None else int(bots_after),
        str(level),
        str(state),
        str(game),
        int(seat),
        str(request_id),
        int(seen),
    )


__all__ = ["PlayerTables"]
