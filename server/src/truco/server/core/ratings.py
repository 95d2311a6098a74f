"""Ratings: OpenSkill's Plackett-Luce model over the matches of players an app vouched for.

A finished game is counted once (``results`` in the store marks it, in the same transaction as its players'
history rows and new ratings), from what its event log says: the winner, the scores, who left. Counting is
therefore idempotent, and :meth:`Ratings.rebuild` recomputes every rating from the logs in the order the games
ended. One counter runs at a time (the matchmaker's lease holder: :mod:`truco.server.core.matchmaking`), so two
replicas never update one player's rating from the same prior.

Which matches are rated: those whose every seat was taken with a player token of the game's app, each by a
different player. A bot seat or an anonymous seat makes the match unrated (its players' history lists it, with
``rated`` false): a bot's strength is no player's, and rating against it would let a player farm points off the
beginner bot. A player who left the table (SeatLeft) during the match loses it whatever the bot that played for
it achieved: it is ranked below both teams. A forfeit on the clock loses the match for the forfeiting team, as
the log says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from truco.engine import events as ev
from truco.engine.state import MatchState
from truco.server.store.interface import PlayerBook
from truco.server.store.records import GameRecord, PlayerMatchRecord, RatingRecord

MODEL = PlackettLuce()
MU = float(MODEL.mu)
SIGMA = float(MODEL.sigma)
TABLE_SIZES = (2, 4, 6)
CATCH_UP_BATCH = 100
CATCH_UP_SLACK_US = 60_000_000
"""How far before the last counted game's end a catch-up looks again: a game that ended on another replica just
before (its end time from that replica's clock) is not missed."""


def new_rating(app: str, players: int, player: str) -> RatingRecord:
    return RatingRecord(app, players, player, MU, SIGMA)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a finished game's log says about its players."""

    game_id: str
    app: str
    players: int
    seat_players: tuple[str, ...]  #: each seat's player, "" for a bot or an anonymous seat
    winner: int  #: the winning team (seat % 2)
    scores: tuple[int, int]  #: team 0's, team 1's
    leavers: frozenset[int]  #: seats whose player left the table during the match
    ended_us: int

    @property
    def rated(self) -> bool:
        named = [player for player in self.seat_players if player]
        return len(named) == self.players and len(set(named)) == self.players


def outcome_of(record: GameRecord, state: MatchState, events: Sequence[ev.Event], ended_us: int) -> Outcome | None:
    """The outcome of a finished game (None: not finished by a match's end, such as a game closed unplayed)."""
    if state.winner is None:
        return None
    seat_players = tuple(next((s.player for s in record.seats if s.seat == seat), "") for seat in range(record.players))
    leavers = frozenset(event.seat for event in events if isinstance(event, ev.SeatLeft))
    scores = (int(state.scores[0]), int(state.scores[1]))
    return Outcome(record.game_id, record.owner, record.players, seat_players, state.winner, scores, leavers, ended_us)


def rate(outcome: Outcome, prior: dict[str, RatingRecord]) -> list[RatingRecord]:
    """Every player's rating after a rated match, from ``prior`` (a new player's is :func:`new_rating`'s).

    The teams are ranked: the winners (0), the losers (1), then each player who left (2), alone.
    """
    groups: list[tuple[list[str], int]] = []
    for team, rank in ((outcome.winner, 0), (1 - outcome.winner, 1)):
        members = [p for seat, p in enumerate(outcome.seat_players) if seat % 2 == team and seat not in outcome.leavers]
        if members:
            groups.append((members, rank))
    groups.extend(([outcome.seat_players[seat]], 2) for seat in sorted(outcome.leavers))
    before = {p: prior.get(p) or new_rating(outcome.app, outcome.players, p) for p in outcome.seat_players}
    teams = [[MODEL.rating(mu=before[p].mu, sigma=before[p].sigma) for p in members] for members, _ in groups]
    after = MODEL.rate(teams, ranks=[float(rank) for _, rank in groups])
    rated: list[RatingRecord] = []
    for (members, rank), new in zip(groups, after, strict=True):
        for player, skill in zip(members, new, strict=True):
            old = before[player]
            won = rank == 0
            rated.append(
                RatingRecord(
                    outcome.app,
                    outcome.players,
                    player,
                    float(skill.mu),
                    float(skill.sigma),
                    old.matches + 1,
                    old.wins + int(won),
                )
            )
    return rated


def history(outcome: Outcome, ratings: Sequence[RatingRecord]) -> list[PlayerMatchRecord]:
    """The history row of each player of the game."""
    after = {r.player: r for r in ratings}
    rows = []
    for seat, player in enumerate(outcome.seat_players):
        if not player:
            continue
        team = seat % 2
        won = team == outcome.winner and seat not in outcome.leavers
        rating = after.get(player)
        rows.append(
            PlayerMatchRecord(
                outcome.app,
                player,
                outcome.game_id,
                outcome.players,
                seat,
                won,
                rating is not None,
                outcome.ended_us,
                (outcome.scores[team], outcome.scores[1 - team]),
                outcome.seat_players,
                rating.mu if rating else 0.0,
                rating.sigma if rating else 0.0,
            )
        )
    return rows


class Ratings:
    """Counts finished games into ratings and histories, once each (see the module's description)."""

    def __init__(self, store: PlayerBook) -> None:
        self.store = store

    async def count(self, outcome: Outcome) -> bool:
        """Count one finished game; False when it was counted before (nothing changes)."""
        ratings: list[RatingRecord] = []
        if outcome.rated:
            prior: dict[str, RatingRecord] = {}
            for player in outcome.seat_players:
                found = await self.store.rating(outcome.app, outcome.players, player)
                if found is not None:
                    prior[player] = found
            ratings = rate(outcome, prior)
        rows = history(outcome, ratings)
        return await self.store.record_result(outcome.game_id, outcome.app, outcome.ended_us, rows, ratings)


__all__ = ["MU", "SIGMA", "TABLE_SIZES", "Outcome", "Ratings", "history", "new_rating", "outcome_of", "rate"]
