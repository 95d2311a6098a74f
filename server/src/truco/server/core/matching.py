"""Who plays whom: quick-match tickets grouped into tables, a pure function of the tickets and the time.

A ticket accepts rivals and partners whose ordinal (mu - 3 sigma at the table size) lies within its window, which
widens the longer it waits; two tickets may meet when each lies within the other's window. A party is one unit:
its members' tickets are grouped once every member is waiting with the same party and rules, and always sit on
one team (even seats or odd seats), so a player can never be its own second account's rival. The oldest unit
anchors a table and takes the nearest units that fit; after its ``bots_after`` the server's bots may fill the
seats left, when every ticket at the table allows bots.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from truco.server.store.records import TicketRecord

WINDOW_START = 3.0
"""The ordinal difference a new ticket accepts (about a third of a new player's sigma)."""
WINDOW_GROWTH = 1.5
"""How much the window widens each second of waiting."""
WINDOW_MAX = 60.0
"""A window never grows past this: after about 40 s every rated player is within reach."""


def window(ticket: TicketRecord, now_us: int) -> float:
    """How far from the ticket's ordinal a rival may be now."""
    waited = max(0.0, (now_us - ticket.opened_us) / 1e6)
    return min(WINDOW_MAX, WINDOW_START + WINDOW_GROWTH * waited)


@dataclass(frozen=True, slots=True)
class Unit:
    """Tickets that sit together: one player's, or a whole party's."""

    tickets: tuple[TicketRecord, ...]

    @property
    def size(self) -> int:
        return len(self.tickets)

    @property
    def ordinal(self) -> float:
        return sum(t.ordinal for t in self.tickets) / len(self.tickets)

    @property
    def opened_us(self) -> int:
        return min(t.opened_us for t in self.tickets)

    def reach(self, now_us: int) -> float:
        return min(window(t, now_us) for t in self.tickets)

    def bots_allowed(self, now_us: int) -> bool:
        """Every ticket allows bots, and the unit has waited past its bots time."""
        times = [t.bots_after_us for t in self.tickets]
        return all(time is not None for time in times) and now_us >= max(t for t in times if t is not None)


@dataclass(frozen=True, slots=True)
class Table:
    """A match to create: the ticket at each player seat, and the seats bots play."""

    seats: tuple[tuple[TicketRecord, int], ...]  #: each ticket with its seat
    bots: tuple[int, ...]
    players: int


def units(tickets: Iterable[TicketRecord]) -> tuple[list[Unit], list[TicketRecord]]:
    """The tickets as units, and the party tickets still waiting for their other members."""
    solo: list[Unit] = []
    parties: dict[tuple[str, str, tuple[str, ...]], list[TicketRecord]] = {}
    for ticket in tickets:
        if not ticket.party:
            solo.append(Unit((ticket,)))
        else:
            parties.setdefault((ticket.app, ticket.rules, ticket.party), []).append(ticket)
    waiting: list[TicketRecord] = []
    for (_, _, party), members in parties.items():
        if sorted(t.player for t in members) == list(party):
            solo.append(Unit(tuple(sorted(members, key=lambda t: t.player))))
        else:
            waiting.extend(members)
    return solo, waiting


def pack(chosen: Sequence[Unit], per_team: int) -> tuple[list[Unit], list[Unit]] | None:
    """Two teams of at most ``per_team`` seats each, every unit whole, the ratings balanced greedily; None: the
    units do not fit."""
    teams: tuple[list[Unit], list[Unit]] = ([], [])
    for unit in sorted(chosen, key=lambda u: (-u.size, -u.ordinal)):
        room = [per_team - sum(u.size for u in team) for team in teams]
        strength = [sum(u.ordinal * u.size for u in team) for team in teams]
        fits = [index for index in (0, 1) if room[index] >= unit.size]
        if not fits:
            return None
        teams[min(fits, key=lambda index: (strength[index], -room[index]))].append(unit)
    return teams


def _seats(teams: tuple[list[Unit], list[Unit]], players: int) -> Table:
    seats: list[tuple[TicketRecord, int]] = []
    bots: list[int] = []
    for team, members in enumerate(teams):
        tickets = [ticket for unit in members for ticket in unit.tickets]
        for index, seat in enumerate(range(team, players, 2)):
            if index < len(tickets):
                seats.append((tickets[index], seat))
            else:
                bots.append(seat)
    return Table(tuple(seats), tuple(bots), players)


def _fill(anchor: Unit, others: Sequence[Unit], players: int, now_us: int) -> list[Unit] | None:
    """The units of one table around ``anchor``: the nearest that each accept and fit, until the table is full."""
    reach = anchor.reach(now_us)
    near = [u for u in others if abs(u.ordinal - anchor.ordinal) <= min(reach, u.reach(now_us))]
    chosen = [anchor]
    for unit in sorted(near, key=lambda u: (abs(u.ordinal - anchor.ordinal), u.opened_us)):
        if sum(u.size for u in chosen) + unit.size > players or pack([*chosen, unit], players // 2) is None:
            continue
        chosen.append(unit)
        if sum(u.size for u in chosen) == players:
            return chosen
    if all(u.bots_allowed(now_us) for u in chosen):
        return chosen
    return None


def tables(tickets: Sequence[TicketRecord], now_us: int) -> list[Table]:
    """The tables the waiting tickets make now, oldest tickets first; a ticket is in one table at most."""
    buckets: dict[tuple[str, str], list[TicketRecord]] = {}
    for ticket in tickets:
        buckets.setdefault((ticket.app, ticket.rules), []).append(ticket)
    made: list[Table] = []
    for bucket in buckets.values():
        players = bucket[0].players
        pool, _ = units(bucket)
        pool.sort(key=lambda u: u.opened_us)
        used: set[int] = set()
        for index, anchor in enumerate(pool):
            if index in used:
                continue
            others = [u for i, u in enumerate(pool) if i not in used and i != index]
            chosen = _fill(anchor, others, players, now_us)
            if chosen is None:
                continue
            teams = pack(chosen, players // 2)
            if teams is None:
                continue
            used.update(i for i, u in enumerate(pool) if any(u is c for c in chosen))
            made.append(_seats(teams, players))
    return made


__all__ = ["WINDOW_GROWTH", "WINDOW_MAX", "WINDOW_START", "Table", "Unit", "pack", "tables", "units", "window"]
