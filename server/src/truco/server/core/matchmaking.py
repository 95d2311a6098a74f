"""Quick match: tickets opened and followed by players (:class:`Tickets`), and the one matcher that turns waiting
tickets into games (:class:`Matchmaker`).

Tickets live in the store, so any replica serves any player's FindMatch. One matcher runs at a time across the
replicas: each replica's :class:`Matchmaker` tries to hold a lease row in the store (renewed every tick, taken over
by another replica within :data:`LEASE_SECONDS` of its holder's death); on SQLite there is one process. A table is
made in three idempotent steps: the game is created under a request id derived from its tickets, the tickets are
marked matched to it all or none (a ticket cancelled meanwhile spoils the table: the unjoined game is closed by the
housekeeper like any abandoned one), then each seat is joined for its ticket's player under a request id derived
from the ticket. The player's stream joins it again (the same request id gives the same seat token), so a matcher
that dies between the steps loses no ticket and seats no player twice.

The matcher also counts finished games into ratings (:class:`~truco.server.core.ratings.Ratings`): one counter at a
time, so ratings are never updated from a stale prior.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

import structlog

from truco.engine import RuleSet
from truco.server.core.identities import PlayerId
from truco.server.core.matching import Table, tables
from truco.server.core.metrics import Metrics
from truco.server.core.ratings import CATCH_UP_BATCH, CATCH_UP_SLACK_US, Outcome, Ratings
from truco.server.core.reasons import ServiceFailure, ServiceReason
from truco.server.core.setups import Setup, rules_from_text, rules_to_text
from truco.server.store.errors import TicketAlreadyOpen
from truco.server.store.interface import EventStore
from truco.server.store.records import (
    TICKET_CANCELLED,
    TICKET_EXPIRED,
    TICKET_MATCHED,
    TICKET_WAITING,
    TicketRecord,
    now_us,
)

log = structlog.get_logger("truco.matchmaking")

LEASE_NAME = "matcher"
LEASE_SECONDS = 3.0
TICK_SECONDS = 0.2
STALE_SECONDS = 10.0
"""A waiting ticket whose stream has not said it is alive for this long is cancelled (its replica died)."""
HEARTBEAT_SECONDS = 2.0
FORGET_AFTER_SECONDS = 3600.0
MIN_WAIT_SECONDS = 5.0
MAX_WAIT_SECONDS = 600.0
DEFAULT_WAIT_SECONDS = 120.0
TICKET_PREFIX = "tickets/"


def join_request_id(ticket_id: str) -> str:
    """The request id a ticket's seat is joined with: the same seat token on every replica that joins it."""
    return f"ticket-{ticket_id}"


def lease_holder() -> str:
    """The name a process's matcher holds the lease under: its host (a pod's name) and pid, which an operator reads
    in the lease row and the logs to find the replica running the matcher, and a random part, so that a process
    started again with the same pid is another holder."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def table_request_id(table: Table) -> str:
    """The CreateGame request id of a table: one game per set of tickets, however often it is tried."""
    digest = hashlib.sha256(",".join(sorted(t.ticket_id for t, _ in table.seats)).encode()).hexdigest()
    return f"match-{digest[:40]}"


@dataclass(frozen=True, slots=True)
class Wanted:
    """A FindMatch as the core sees it, checked."""

    rules: RuleSet
    party: tuple[str, ...]  #: the other members
    max_wait: float
    bots_after: float | None
    bot: str


def check_wanted(wanted: Wanted, player: PlayerId) -> None:
    """:raises ServiceFailure: INVALID_PARTY or INVALID_MATCH_WAIT."""
    others = set(wanted.party)
    if player.sub in others or len(others) != len(wanted.party) or len(others) > wanted.rules.players // 2 - 1:
        raise ServiceFailure(
            ServiceReason.INVALID_PARTY,
            f"a party names up to {wanted.rules.players // 2 - 1} other players, each once, never the caller",
        )
    if not MIN_WAIT_SECONDS <= wanted.max_wait <= MAX_WAIT_SECONDS:
        raise ServiceFailure(ServiceReason.INVALID_MATCH_WAIT, "max_wait: 5 s to 10 minutes")
    if wanted.bots_after is not None and not 0 <= wanted.bots_after <= wanted.max_wait:
        raise ServiceFailure(ServiceReason.INVALID_MATCH_WAIT, "bots_after: 0 to max_wait")


class Tickets:
    """A player's tickets: open one, follow it, cancel it."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    async def open(self, player: PlayerId, wanted: Wanted, request_id: str | None) -> TicketRecord:
        """A new waiting ticket, or the one this request id opened if it is waiting or matched.

        :raises ServiceFailure: TICKET_ALREADY_OPEN (metadata ``ticket``), INVALID_PARTY, INVALID_MATCH_WAIT.
        """
        check_wanted(wanted, player)
        if request_id is not None:
            for ticket in await self.store.tickets(player=(player.app, player.sub), request_id=request_id):
                if (resumed := await self._resume(ticket)) is not None:
                    return resumed
        await self.store.name_player(player.app, player.sub, player.display_name)
        rating = await self.store.rating(player.app, wanted.rules.players, player.sub)
        opened = now_us()
        party = tuple(sorted({*wanted.party, player.sub})) if wanted.party else ()
        ticket = TicketRecord(
            ticket_id=secrets.token_hex(16),
            app=player.app,
            player=player.sub,
            display_name=player.display_name,
            rules=rules_to_text(wanted.rules),
            players=wanted.rules.players,
            party=party,
            ordinal=rating.ordinal if rating is not None else 0.0,
            opened_us=opened,
            expires_us=opened + int(wanted.max_wait * 1e6),
            bots_after_us=None if wanted.bots_after is None else opened + int(wanted.bots_after * 1e6),
            bot=wanted.bot,
            request_id=request_id or "",
            seen_us=opened,
        )
        try:
            await self.store.open_ticket(ticket)
        except TicketAlreadyOpen as already:
            raise ServiceFailure(
                ServiceReason.TICKET_ALREADY_OPEN,
                "this player has another open ticket: cancel it first (CancelMatch)",
                {"ticket": TICKET_PREFIX + already.ticket_id},
            ) from None
        return ticket

    async def _resume(self, ticket: TicketRecord) -> TicketRecord | None:
        """A ticket opened again by its request id (the client's stream broke): taken over by the new stream while
        it waits, so that the old stream, if its server still serves it, neither beats nor drops it when it ends.
        None when it ended unmatched (the caller opens another)."""
        if ticket.state == TICKET_WAITING:
            mark = max(now_us(), ticket.seen_us + 1)
            if await self.store.touch_ticket(ticket.ticket_id, mark):
                return replace(ticket, seen_us=mark)
            ticket = await self.get(ticket.ticket_id)  # matched, or dropped, meanwhile
        return ticket if ticket.state == TICKET_MATCHED else None

    async def get(self, ticket_id: str) -> TicketRecord:
        found = await self.store.tickets(ticket_id=ticket_id)
        if not found:
            raise ServiceFailure(ServiceReason.TICKET_NOT_FOUND, f"no ticket {ticket_id!r}")
        return found[0]

    async def cancel(self, player: PlayerId, ticket_id: str | None) -> TicketRecord:
        """Cancel the player's ticket (None: its waiting one).

        :raises ServiceFailure: TICKET_NOT_FOUND, TICKET_ALREADY_MATCHED.
        """
        if ticket_id is None:
            waiting = await self.store.tickets(player=(player.app, player.sub), waiting=True)
            if not waiting:
                raise ServiceFailure(ServiceReason.TICKET_NOT_FOUND, "this player has no open ticket")
            ticket = waiting[0]
        else:
            found = await self.store.tickets(ticket_id=ticket_id)
            if not found or (found[0].app, found[0].player) != (player.app, player.sub):
                raise ServiceFailure(ServiceReason.TICKET_NOT_FOUND, f"no ticket {ticket_id!r} of this player")
            ticket = found[0]
        await self.store.end_ticket(ticket.ticket_id, TICKET_CANCELLED)
        ticket = await self.get(ticket.ticket_id)
        if ticket.state == TICKET_MATCHED:
            raise ServiceFailure(
                ServiceReason.TICKET_ALREADY_MATCHED,
                f"the ticket was matched to games/{ticket.game_id}: leave it with LeaveGame",
            )
        return ticket

    async def party_ready(self, ticket: TicketRecord) -> bool:
        """Whether every member of the ticket's party is waiting with the same party and rules (alone: True)."""
        for member in ticket.party:
            if member == ticket.player:
                continue
            theirs = await self.store.tickets(player=(ticket.app, member), waiting=True)
            if not any(t.party == ticket.party and t.rules == ticket.rules for t in theirs):
                return False
        return True

    async def follow(self, ticket: TicketRecord, poll: float = 0.25) -> TicketRecordStream:
        """A stream of the ticket as :meth:`open` returned it: its ``seen_us`` is the stream's mark."""
        return TicketRecordStream(self, ticket.ticket_id, poll, mark=ticket.seen_us)

    async def drop(self, stream: TicketRecordStream) -> None:
        """The ticket's stream ended: a ticket still waiting dies with it, unless another stream follows it now."""
        if stream.mark is not None:
            await self.store.drop_ticket(stream.ticket_id, stream.mark)


class TicketRecordStream:
    """A ticket as it changes: each new state, or the same one at least every ``every`` seconds.

    While the ticket waits, the stream says it is alive (its heartbeat moves the ticket's ``seen_us``, which the
    matcher reads to cancel the tickets of dead streams). Its ``mark`` is the ``seen_us`` it last wrote: when
    another stream has written since (the client opened FindMatch again), this one stops beating and leaves the
    ticket to it (``mark`` None)."""

    def __init__(self, tickets: Tickets, ticket_id: str, poll: float, every: float = 5.0, mark: int = 0) -> None:
        self.tickets = tickets
        self.ticket_id = ticket_id
        self.poll = poll
        self.every = every
        self.mark: int | None = mark

    def __aiter__(self) -> TicketRecordStream:
        self._last: TicketRecord | None = None
        self._sent = 0.0
        self._beat = 0.0
        return self

    async def __anext__(self) -> TicketRecord:
        while True:
            if self._last is not None and self._last.state != TICKET_WAITING:
                raise StopAsyncIteration
            ticket = await self.tickets.get(self.ticket_id)
            clock = time.monotonic()
            if ticket.state == TICKET_WAITING and self.mark is not None and clock - self._beat >= HEARTBEAT_SECONDS:
                mark = max(now_us(), self.mark + 1)
                self.mark = mark if await self.tickets.store.touch_ticket(ticket.ticket_id, mark, self.mark) else None
                self._beat = clock
            changed = self._last is None or ticket.state != self._last.state
            if changed or clock - self._sent >= self.every:
                self._last, self._sent = ticket, clock
                return ticket
            await asyncio.sleep(self.poll)


JoinSeat = Callable[[str, int, TicketRecord], Awaitable[str]]
"""Joins a ticket's seat in its game (idempotent): the seat token."""
CreateTable = Callable[[Setup, str, str], Awaitable[str]]
"""Creates a table's game (its setup, request id, app): the game's id."""
LoadOutcome = Callable[[str], Awaitable[Outcome | None]]
"""A finished game's outcome, from its event log."""


class Matchmaker:
    """The one matcher (and rating counter) of the cluster while this replica holds the lease."""

    def __init__(
        self,
        store: EventStore,
        create: CreateTable,
        join: JoinSeat,
        outcome: LoadOutcome,
        *,
        tick: float = TICK_SECONDS,
        holder: str | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.store = store
        self.create = create
        self.join = join
        self.outcome = outcome
        self.ratings = Ratings(store)
        self.tick = tick
        self.holder = holder or lease_holder()
        self.metrics = metrics
        self.counted_until_us = 0
        self.leading = False  #: whether this replica held the lease at its last tick
        self.matched = 0
        self.busy_seconds = 0.0
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._forgotten_us = 0

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="matchmaker")

    async def stop(self) -> None:
        self._stopping = True  # as well as the cancel, which a driver may swallow mid-call (a pool's retry)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self.leading:  # a replica stopping hands the matcher over now, not when the lease lapses
            with contextlib.suppress(Exception):
                await self.store.release_lease(LEASE_NAME, self.holder)
        self._lead(False)

    async def _run(self) -> None:
        while not self._stopping:
            try:
                await self.step()
            except asyncio.CancelledError:
                raise
            except Exception:  # a store outage or a bug: logged, and the next tick tries again
                log.exception("matchmaker_step_failed")
                # Unrenewed, the lease may pass to another replica meanwhile: never report two matchers.
                self._lead(False)
            if not self._stopping:
                await asyncio.sleep(self.tick)

    async def step(self) -> bool:
        """One tick: if this replica holds the lease, end dead tickets, make the tables, count finished games.
        False when another replica holds it."""
        now = now_us()
        if not await self.hold(now):
            return False
        started = time.process_time()
        try:
            waiting = await self._alive(await self.store.tickets(waiting=True), now)
            for table in tables(waiting, now):
                # Renewed before each table: a step that outlasts the lease (a stalled process, a slow store) stops
                # as soon as another replica may have taken over, instead of matching beside it.
                if not await self.hold(now_us()):
                    return False
                await self.make(table)
            await self.count_finished()
            if now - self._forgotten_us > FORGET_AFTER_SECONDS * 1e6:
                await self.store.forget_tickets(now - int(FORGET_AFTER_SECONDS * 1e6))
                self._forgotten_us = now
        finally:
            self.busy_seconds += time.process_time() - started
        return True

    async def hold(self, now: int) -> bool:
        """Take or renew the lease for :data:`LEASE_SECONDS`; whether this replica holds it."""
        self._lead(await self.store.take_lease(LEASE_NAME, self.holder, now + int(LEASE_SECONDS * 1e6), now))
        return self.leading

    def _lead(self, leading: bool) -> None:
        """Record whether this replica runs the matcher: the gauge, and a log line when it changes."""
        if leading != self.leading:
            log.info("matcher_lease_taken" if leading else "matcher_lease_lost", holder=self.holder)
        self.leading = leading
        if self.metrics is not None:
            self.metrics.matcher_leading.set(1 if leading else 0)

    async def _alive(self, waiting: list[TicketRecord], now: int) -> list[TicketRecord]:
        alive = []
        for ticket in waiting:
            if now >= ticket.expires_us:
                await self.store.end_ticket(ticket.ticket_id, TICKET_EXPIRED)
            elif now - ticket.seen_us > STALE_SECONDS * 1e6:
                await self.store.end_ticket(ticket.ticket_id, TICKET_CANCELLED)
            else:
                alive.append(ticket)
        return alive

    async def make(self, table: Table) -> str | None:
        """Create a table's game, match its tickets to it (all or none) and join their seats; its id, or None
        when a ticket was no longer waiting."""
        first = table.seats[0][0]
        rules = rules_from_text(first.rules)
        setup = Setup(rules, dict.fromkeys(table.bots, first.bot), ())
        game_id = await self.create(setup, table_request_id(table), first.app)
        if not await self.store.match_tickets(game_id, [(t.ticket_id, seat) for t, seat in table.seats]):
            return None
        self.matched += len(table.seats)
        if self.metrics is not None:
            self.metrics.matcher_matched.inc(len(table.seats))
        for ticket, seat in table.seats:
            await self.join(game_id, seat, replace(ticket, state=TICKET_MATCHED, game_id=game_id, seat=seat))
        return game_id

    async def count_finished(self) -> int:
        """Count the finished games not counted yet into ratings and histories; how many were."""
        counted = 0
        while True:
            since = max(0, self.counted_until_us - CATCH_UP_SLACK_US)
            games = await self.store.unresulted_games(since, CATCH_UP_BATCH)
            for game_id, _ in games:
                outcome = await self.outcome(game_id)
                if outcome is None:  # over without a winner: marked, so that it is not looked at again
                    await self.store.record_result(game_id, "", 0, [], [])
                    continue
                counted += await self.ratings.count(outcome)
                self.counted_until_us = max(self.counted_until_us, outcome.ended_us)
            if len(games) < CATCH_UP_BATCH:
                return counted

    async def rebuild(self) -> int:
        """Forget every rating and recount every finished game from its event log, in the order they ended."""
        await self.store.clear_results()
        self.counted_until_us = 0
        return await self.count_finished()


__all__ = [
    "DEFAULT_WAIT_SECONDS",
    "LEASE_NAME",
    "TICKET_PREFIX",
    "Matchmaker",
    "Tickets",
    "Wanted",
    "check_wanted",
    "join_request_id",
    "lease_holder",
    "table_request_id",
]
