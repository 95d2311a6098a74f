"""Who plays whom (truco.server.core.matching) and how a match moves ratings (truco.server.core.ratings): pure
functions, checked over many seeded random pools of tickets."""

from __future__ import annotations

import random

from truco.server.core.matching import WINDOW_START, tables, window
from truco.server.core.ratings import Outcome, new_rating, rate
from truco.server.store.records import TicketRecord

NOW = 1_000_000_000


def ticket(
    name: str, players: int, ordinal: float, waited: float, party: tuple[str, ...] = (), bots: bool = False
) -> TicketRecord:
    opened = NOW - int(waited * 1e6)
    return TicketRecord(
        f"t-{name}",
        "app",
        name,
        name,
        f"rules-{players}",
        players,
        party,
        ordinal,
        opened,
        NOW + 10**9,
        opened if bots else None,
        "heuristic",
    )


def pool(rng: random.Random, players: int, size: int) -> list[TicketRecord]:
    tickets: list[TicketRecord] = []
    index = 0
    while len(tickets) < size:
        waited = rng.uniform(0, 40)
        if players > 2 and rng.random() < 0.3:
            a, b = f"p{index}", f"p{index + 1}"
            party = tuple(sorted((a, b)))
            tickets += [ticket(member, players, rng.gauss(10, 8), waited, party) for member in party]
            index += 2
        else:
            tickets.append(ticket(f"p{index}", players, rng.gauss(10, 8), waited, bots=rng.random() < 0.2))
            index += 1
    return tickets


def test_parties_are_never_rivals_and_no_ticket_sits_twice() -> None:
    rng = random.Random(36)
    parties_seated = 0
    for trial in range(300):
        players = rng.choice((2, 4, 6))
        tickets = pool(rng, players, rng.randint(1, 30))
        made = tables(tickets, NOW)
        seated = [t.ticket_id for table in made for t, _ in table.seats]
        assert len(seated) == len(set(seated)), trial
        for table in made:
            seats = sorted([seat for _, seat in table.seats] + list(table.bots))
            assert seats == list(range(players)), trial
            teams = {t.player: seat % 2 for t, seat in table.seats}
            for member, _ in table.seats:
                for partner in member.party:
                    assert teams.get(partner, teams[member.player]) == teams[member.player], (trial, member.party)
            assert all(t.party == () or all(p in teams for p in t.party) for t, _ in table.seats)  # whole parties
            parties_seated += sum(1 for t, _ in table.seats if t.party)
    assert parties_seated > 100  # the pools did seat parties


def test_rivals_lie_within_each_others_window() -> None:
    rng = random.Random(7)
    for _ in range(200):
        tickets = pool(rng, 2, rng.randint(2, 20))
        for table in tables(tickets, NOW):
            if table.bots:
                continue
            (a, _), (b, _) = table.seats
            assert abs(a.ordinal - b.ordinal) <= min(window(a, NOW), window(b, NOW))


def test_the_window_widens_with_the_wait() -> None:
    fresh, patient = ticket("a", 2, 0, 0), ticket("b", 2, 0, 10)
    assert window(fresh, NOW) == WINDOW_START < window(patient, NOW)
    far = [ticket("a", 2, 0.0, 0), ticket("b", 2, 20.0, 0)]
    assert tables(far, NOW) == []
    assert len(tables([ticket("a", 2, 0.0, 30), ticket("b", 2, 20.0, 30)], NOW)) == 1


def test_a_party_waits_for_all_its_members() -> None:
    alone = [ticket("a", 4, 0, 60, ("a", "b")), *(ticket(name, 4, 0, 60) for name in "cde")]
    made = tables(alone, NOW)
    assert made == [] or all("a" not in {t.player for t, _ in table.seats} for table in made)


def test_a_leaver_loses_even_when_its_team_wins() -> None:
    outcome = Outcome("g", "app", 4, ("a", "b", "c", "d"), 0, (30, 20), frozenset({2}), 1)
    after = {r.player: r for r in rate(outcome, {})}
    start = new_rating("app", 4, "x")
    assert after["a"].mu > start.mu and after["a"].wins == 1  # the winner who stayed
    assert after["c"].mu < start.mu and after["c"].wins == 0  # its partner who left: a loss
    assert all(r.matches == 1 for r in after.values())


def test_a_match_with_a_bot_or_an_anonymous_seat_is_unrated() -> None:
    assert Outcome("g", "app", 2, ("a", "b"), 0, (15, 3), frozenset(), 1).rated
    assert not Outcome("g", "app", 2, ("a", ""), 0, (15, 3), frozenset(), 1).rated
    assert not Outcome("g", "app", 2, ("a", "a"), 0, (15, 3), frozenset(), 1).rated  # one player, two seats
