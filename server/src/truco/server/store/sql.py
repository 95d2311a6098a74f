"""The stores' SQL, written once for SQLite and PostgreSQL.

Each statement and migration is written with ``?`` placeholders and, where the two dialects spell a type or a
value differently, a ``{word}`` (``{id}``, ``{blob}``, ``{int64}``, ``{bool}``, ``{true}``, ``{false}``...).
:class:`Dialect` renders them once at import: :data:`SQLITE`'s and :data:`POSTGRES`'s :class:`Statements` are what
the stores run. The one statement only one dialect runs, PostgreSQL's append with its notification
(:data:`POSTGRES_APPEND`), is here too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from .records import (
    SEAT_OPEN,
    SEAT_TAKEN,
    ApiKeyRecord,
    Append,
    GameRecord,
    NewEvent,
    SeatRecord,
    Sighting,
    StoredEvent,
    now_us,
)

GAME_COLUMNS = (
    "g.game_id, g.created_at, g.rules, g.players, g.last_seq, g.over, g.owner, g.creator, g.public, g.closed, "
    "g.previous_game, g.next_game, g.deadline_us, s.seat, s.kind, s.bot, s.player_name, s.token_hash, "
    "s.joined_us, s.seen_us, s.key_id, s.player"
)
"""The columns of a games-with-seats query (games ``g`` left-joined with seats ``s``), as :data:`GameRow`."""

#: One row of a games-with-seats query: the game's columns, then one seat's (None for a game with no seats).
GameRow = tuple[Any, ...]
_GAME_FIELDS = 13


def games_from_rows(rows: Iterable[GameRow]) -> list[GameRecord]:
    """Group rows ordered by game then seat into records, keeping the games' order."""
    games: dict[str, tuple[GameRow, list[SeatRecord]]] = {}
    for row in rows:
        _, seats = games.setdefault(row[0], (row, []))
        seat, kind, bot, player_name, token_hash, joined_us, seen_us, key_id, player = row[_GAME_FIELDS:]
        if seat is not None:
            seats.append(
                SeatRecord(
                    seat,
                    str(kind),
                    str(bot),
                    str(player_name),
                    bytes(token_hash or b""),
                    str(key_id or ""),
                    str(player or ""),
                    int(joined_us or 0),
                    int(seen_us or 0),
                )
            )
    return [
        GameRecord(
            game_id=row[0],
            created_at=row[1],
            rules=bytes(row[2]),
            players=row[3],
            seats=tuple(seats),
            last_seq=row[4],
            over=bool(row[5]),
            owner=row[6],
            creator=row[7],
            public=bool(row[8]),
            closed=bool(row[9]),
            previous_game=str(row[10] or ""),
            next_game=str(row[11] or ""),
            deadline_us=None if row[12] is None else int(row[12]),
        )
        for row, seats in games.values()
    ]


@dataclass(frozen=True)
class Dialect:
    """How one database spells what differs: its placeholder and the ``{word}``\\ s of the shared SQL."""

    name: str
    placeholder: str
    words: Mapping[str, str]

    def render(self, text: str) -> str:
        """``text`` in this dialect: its words filled in, its ``?`` placeholders replaced."""
        filled = text.format_map(self.words)
        return filled if self.placeholder == "?" else filled.replace("?", self.placeholder)


SQLITE = Dialect(
    "sqlite",
    "?",
    {
        "id": "TEXT",
        "text": "TEXT",
        "blob": "BLOB",
        "int": "INTEGER",
        "int16": "INTEGER",
        "int64": "INTEGER",
        "real": "REAL",
        "bool": "INTEGER",
        "true": "1",
        "false": "0",
        "without_rowid": " WITHOUT ROWID",
        "for_update": "",
        "over": "over = 1",
        "not_over": "over = 0",
        "applied_at": "TEXT NOT NULL",
        "now": "datetime('now')",
    },
)
POSTGRES = Dialect(
    "postgresql",
    "%s",
    {
        # COLLATE "C": ids and ISO-8601 times sort byte by byte, whatever the database's locale, as in SQLite.
        "id": 'text COLLATE "C"',
        "text": "text",
        "blob": "bytea",
        "int": "integer",
        "int16": "smallint",
        "int64": "bigint",
        "real": "double precision",
        "bool": "boolean",
        "true": "true",
        "false": "false",
        "without_rowid": "",
        "for_update": " FOR UPDATE",
        "over": "over",
        "not_over": "NOT over",
        "applied_at": "timestamptz NOT NULL DEFAULT now()",
        "now": "now()",
    },
)


#: Schema migrations, applied in order at open; version N is MIGRATIONS[N - 1]. Never change what a released one
#: does: append a new one instead. Each is run a statement at a time, split at ";": no literal may hold one.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE games (
        game_id {id} PRIMARY KEY,
        created_at {id} NOT NULL,
        rules {blob} NOT NULL,
        players {int} NOT NULL,
        last_seq {int64} NOT NULL,
        over {bool} NOT NULL,
        create_request_id {text} UNIQUE
    );
    CREATE INDEX games_unfinished_newest ON games (created_at DESC, game_id DESC) WHERE {not_over};
    CREATE TABLE seats (
        game_id {id} NOT NULL REFERENCES games (game_id),
        seat {int} NOT NULL,
        kind {text} NOT NULL CHECK (kind IN ('open', 'taken', 'bot')),
        bot {text} NOT NULL,
        player_name {text} NOT NULL,
        token_hash {blob} NOT NULL,
        PRIMARY KEY (game_id, seat)
    ){without_rowid};
    CREATE TABLE events (
        game_id {id} NOT NULL REFERENCES games (game_id),
        seq {int64} NOT NULL,
        kind {text} NOT NULL,
        schema {int} NOT NULL,
        payload {blob} NOT NULL,
        audience {int16},
        PRIMARY KEY (game_id, seq)
    ){without_rowid};
    CREATE TABLE append_requests (
        game_id {id} NOT NULL REFERENCES games (game_id),
        request_id {text} NOT NULL,
        response {blob} NOT NULL,
        last_seq {int64} NOT NULL,
        PRIMARY KEY (game_id, request_id)
    ){without_rowid};
    CREATE TABLE seat_claims (
        game_id {id} NOT NULL REFERENCES games (game_id),
        request_id {text} NOT NULL,
        seat {int} NOT NULL,
        PRIMARY KEY (game_id, request_id)
    ){without_rowid};
    """,
    """
    ALTER TABLE games ADD COLUMN owner {text} NOT NULL DEFAULT '';
    ALTER TABLE games ADD COLUMN creator {text} NOT NULL DEFAULT '';
    ALTER TABLE games ADD COLUMN public {bool} NOT NULL DEFAULT {false};
    CREATE INDEX games_unfinished_by_creator ON games (creator) WHERE {not_over};
    CREATE TABLE api_keys (
        key_id {id} PRIMARY KEY,
        name {text} NOT NULL,
        secret_hash {blob} NOT NULL UNIQUE,
        created_at {id} NOT NULL,
        revoked_at {text}
    );
    """,
    # 3: turn clocks and the life of a game (times in microseconds since the Unix epoch).
    """
    ALTER TABLE events ADD COLUMN at_us {int64} NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN closed {bool} NOT NULL DEFAULT {false};
    ALTER TABLE games ADD COLUMN previous_game {id} NOT NULL DEFAULT '';
    ALTER TABLE games ADD COLUMN next_game {id} NOT NULL DEFAULT '';
    ALTER TABLE games ADD COLUMN deadline_us {int64};
    ALTER TABLE games ADD COLUMN ended_us {int64};
    ALTER TABLE seats ADD COLUMN joined_us {int64} NOT NULL DEFAULT 0;
    ALTER TABLE seats ADD COLUMN seen_us {int64} NOT NULL DEFAULT 0;
    UPDATE games SET ended_us = 0 WHERE {over};
    CREATE INDEX games_deadline ON games (deadline_us) WHERE deadline_us IS NOT NULL AND {not_over};
    CREATE INDEX games_ended ON games (ended_us) WHERE {over};
    """,
    # 4: a seat's token dies with the API key it was taken under.
    """
    ALTER TABLE seats ADD COLUMN key_id {id} NOT NULL DEFAULT '';
    """,
    # 5: an API key's own app totals (truco keys create --calls-per-second ...), as JSON; '{{}}': the server's flags.
    """
    ALTER TABLE api_keys ADD COLUMN quotas {text} NOT NULL DEFAULT '{{}}';
    """,
    # 6: players an app vouches for (issue 36): the seat's player, the apps' signing keys, ratings and each
    # player's finished games (derived from the event log: `results` marks a game counted), quick-match tickets
    # (one waiting ticket per player, by a unique index) and the matcher's lease.
    """
    ALTER TABLE seats ADD COLUMN player {text} NOT NULL DEFAULT '';
    CREATE TABLE signing_keys (
        app {id} NOT NULL,
        kid {id} NOT NULL,
        algorithm {text} NOT NULL,
        key_data {blob} NOT NULL,
        created_at {id} NOT NULL,
        revoked_at {text},
        PRIMARY KEY (app, kid)
    );
    CREATE TABLE players (
        app {id} NOT NULL,
        player {id} NOT NULL,
        display_name {text} NOT NULL,
        PRIMARY KEY (app, player)
    );
    CREATE TABLE ratings (
        app {id} NOT NULL,
        players {int} NOT NULL,
        player {id} NOT NULL,
        mu {real} NOT NULL,
        sigma {real} NOT NULL,
        ordinal {real} NOT NULL,
        matches {int} NOT NULL,
        wins {int} NOT NULL,
        PRIMARY KEY (app, players, player)
    );
    CREATE INDEX ratings_rank ON ratings (app, players, ordinal DESC, matches DESC, player);
    CREATE TABLE results (
        game_id {id} PRIMARY KEY,
        app {id} NOT NULL,
        ended_us {int64} NOT NULL
    );
    CREATE TABLE player_matches (
        app {id} NOT NULL,
        player {id} NOT NULL,
        game_id {id} NOT NULL,
        players {int} NOT NULL,
        seat {int} NOT NULL,
        won {bool} NOT NULL,
        rated {bool} NOT NULL,
        ended_us {int64} NOT NULL,
        scores {text} NOT NULL,
        seat_players {text} NOT NULL,
        mu {real} NOT NULL,
        sigma {real} NOT NULL,
        PRIMARY KEY (app, player, game_id)
    );
    CREATE INDEX player_matches_newest ON player_matches (app, player, ended_us DESC, game_id DESC);
    CREATE TABLE tickets (
        ticket_id {id} PRIMARY KEY,
        app {id} NOT NULL,
        player {id} NOT NULL,
        display_name {text} NOT NULL,
        rules {text} NOT NULL,
        players {int} NOT NULL,
        party {text} NOT NULL,
        ordinal {real} NOT NULL,
        opened_us {int64} NOT NULL,
        expires_us {int64} NOT NULL,
        bots_after_us {int64},
        bot {text} NOT NULL,
        state {text} NOT NULL,
        game_id {id} NOT NULL,
        seat {int} NOT NULL,
        request_id {text} NOT NULL,
        seen_us {int64} NOT NULL
    );
    CREATE UNIQUE INDEX tickets_one_waiting ON tickets (app, player) WHERE state = 'waiting';
    CREATE INDEX tickets_by_request ON tickets (app, player, request_id);
    CREATE TABLE leases (
        name {id} PRIMARY KEY,
        holder {text} NOT NULL,
        until_us {int64} NOT NULL
    );
    """,
)

KEY_COLUMNS = "key_id, name, secret_hash, created_at, revoked_at, quotas"
EVENT_COLUMNS = "game_id, seq, kind, schema, payload, audience, at_us"
EVENT_ROW = "(?, ?, ?, ?, ?, ?, ?)"
GAME_TABLES = ("events", "append_requests", "seat_claims", "seats", "games")
"""Every table with a game's rows, in the order they are deleted (foreign keys last)."""


@dataclass(frozen=True)
class Statements:
    """The shared statements in one dialect (see the module's docstring)."""

    game: str
    open_games: str
    open_games_viewer: str
    open_games_after: str
    insert_game: str
    insert_seats: str
    insert_event: str
    game_by_request: str
    lock_game: str
    last_seq: str
    recorded_append: str
    read_events: str
    claimed_seat: str
    take_seat: str
    seat_bot: str
    set_rules: str
    record_claim: str
    set_seat_token: str
    seat_for_token: str
    count_unfinished: str
    insert_key: str
    keys: str
    key_by_id: str
    key_by_hash: str
    revoke_key: str
    set_deadline: str
    due_games: str
    next_deadline: str
    touch_seat: str
    link_next_game: str
    next_game: str
    close_abandoned: str
    ended_games: str
    delete_game_rows: tuple[str, ...]
    advance_game: str
    record_append: str
    event_row: str
    create_schema_version: str
    schema_version: str
    add_schema_version: str


_SHARED = Statements(
    game=f"""
    SELECT {GAME_COLUMNS} FROM games g LEFT JOIN seats s ON s.game_id = g.game_id
    WHERE g.game_id = ? ORDER BY s.seat
    """,
    open_games="""
    SELECT {{columns}} FROM (
        SELECT * FROM games
        WHERE {not_over} AND EXISTS (SELECT 1 FROM seats WHERE seats.game_id = games.game_id AND kind = 'open')
        {{viewer}} {{after}}
        ORDER BY created_at DESC, game_id DESC LIMIT ?
    ) g LEFT JOIN seats s ON s.game_id = g.game_id ORDER BY g.created_at DESC, g.game_id DESC, s.seat
    """,
    open_games_viewer="AND (public = {true} OR owner = ?)",
    open_games_after="AND (created_at, game_id) < (?, ?)",
    insert_game="INSERT INTO games (game_id, created_at, rules, players, last_seq, over, create_request_id, owner,"
    " creator, public, previous_game, deadline_us, ended_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    insert_seats="INSERT INTO seats (game_id, seat, kind, bot, player_name, token_hash, joined_us, seen_us, key_id,"
    " player) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    insert_event=f"INSERT INTO events ({EVENT_COLUMNS}) VALUES {EVENT_ROW}",
    game_by_request="SELECT game_id FROM games WHERE create_request_id = ?",
    lock_game="SELECT 1 FROM games WHERE game_id = ?{for_update}",
    last_seq="SELECT last_seq FROM games WHERE game_id = ?",
    recorded_append="SELECT last_seq, response FROM append_requests WHERE game_id = ? AND request_id = ?",
    read_events="SELECT seq, kind, schema, payload, audience, at_us FROM events"
    " WHERE game_id = ? AND seq > ? ORDER BY seq",
    claimed_seat="SELECT seat FROM seat_claims WHERE game_id = ? AND request_id = ?",
    take_seat="UPDATE seats SET kind = ?, token_hash = ?, player_name = ?, joined_us = ?, seen_us = ?, key_id = ?,"
    " player = ? WHERE game_id = ? AND seat = ? AND kind = ?",
    seat_bot="UPDATE seats SET kind = ?, bot = ?, joined_us = ? WHERE game_id = ? AND seat = ? AND kind = ?",
    set_rules="UPDATE games SET rules = ? WHERE game_id = ? AND last_seq = ? AND {not_over}",
    record_claim="INSERT INTO seat_claims (game_id, request_id, seat) VALUES (?, ?, ?)",
    set_seat_token="UPDATE seats SET token_hash = ? WHERE game_id = ? AND seat = ? AND kind = ?",
    seat_for_token="SELECT seat FROM seats WHERE game_id = ? AND kind = ? AND token_hash = ?",
    count_unfinished="SELECT count(*) FROM games WHERE {not_over} AND creator = ?",
    insert_key=f"INSERT INTO api_keys ({KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
    keys=f"SELECT {KEY_COLUMNS} FROM api_keys {{{{where}}}} ORDER BY created_at, key_id",
    key_by_id="WHERE key_id = ?",
    key_by_hash="WHERE secret_hash = ?",
    revoke_key="UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE key_id = ?",
    set_deadline="UPDATE games SET deadline_us = ? WHERE game_id = ? AND last_seq = ? AND {not_over}",
    due_games="SELECT game_id FROM games WHERE {not_over} AND deadline_us IS NOT NULL AND deadline_us <= ?"
    " ORDER BY deadline_us LIMIT ?",
    next_deadline="SELECT min(deadline_us) FROM games WHERE {not_over} AND deadline_us IS NOT NULL AND deadline_us > ?",
    touch_seat="UPDATE seats SET seen_us = ? WHERE game_id = ? AND seat = ? AND seen_us < ?",
    link_next_game="UPDATE games SET next_game = ? WHERE game_id = ? AND next_game = ''",
    next_game="SELECT next_game FROM games WHERE game_id = ?",
    close_abandoned="UPDATE games SET over = {true}, closed = {true}, deadline_us = NULL, ended_us = ?"
    " WHERE {not_over} AND created_at < ?"
    " AND EXISTS (SELECT 1 FROM seats s WHERE s.game_id = games.game_id AND s.kind = ?)"
    " RETURNING game_id",
    ended_games="SELECT game_id FROM games WHERE {over} AND ended_us < ? ORDER BY ended_us LIMIT ?{for_update}",
    delete_game_rows=tuple(f"DELETE FROM {table} WHERE game_id = ?" for table in GAME_TABLES),
    # An append's own condition is the sequence check: no row changed, the game moved on (or never was).
    advance_game="UPDATE games SET last_seq = ?, over = ?, deadline_us = ?,"
    " ended_us = CASE WHEN ? AND ended_us IS NULL THEN ? ELSE ended_us END WHERE game_id = ? AND last_seq = ?",
    record_append="INSERT INTO append_requests (game_id, request_id, response, last_seq) VALUES (?, ?, ?, ?)",
    event_row=EVENT_ROW,
    create_schema_version="CREATE TABLE IF NOT EXISTS schema_version"
    " (version {int} PRIMARY KEY, applied_at {applied_at})",
    schema_version="SELECT coalesce(max(version), 0) FROM schema_version",
    add_schema_version="INSERT INTO schema_version (version, applied_at) VALUES (?, {now})",
)

POSTGRES_APPEND = """
WITH moved AS (
    UPDATE games SET last_seq = %(last)s, over = %(over)s, deadline_us = %(deadline)s,
        ended_us = CASE WHEN %(over)s AND ended_us IS NULL THEN %(now)s ELSE ended_us END
    WHERE game_id = %(game)s AND last_seq = %(expected)s
    RETURNING game_id
), stored AS (
    INSERT INTO events (game_id, seq, kind, schema, payload, audience, at_us)
    SELECT moved.game_id, (e->>0)::bigint, e->>1, (e->>2)::integer, decode(e->>3, 'hex'), (e->>4)::smallint,
        (e->>5)::bigint
    FROM moved, json_array_elements(%(events)s::json) AS e
), recorded AS (
    INSERT INTO append_requests (game_id, request_id, response, last_seq)
    SELECT moved.game_id, %(request)s, %(response)s, %(last)s FROM moved WHERE %(request)s::text IS NOT NULL
), notified AS (
    SELECT pg_notify(%(channel)s, %(note)s) FROM moved WHERE %(channel)s::text IS NOT NULL
)
SELECT (SELECT count(*) FROM moved), (SELECT count(*) FROM notified)
"""
"""PostgreSQL's append in one round trip, with its notification unless moves are heard on a bus (channel NULL:
no NOTIFY, whose queue lock serialises the notifying commits) (``PostgresStore._append``): the guarded update
of the game's last seq gates the inserts, so a stale append writes nothing; a racing writer waits on the row
lock and then finds the seq moved. The events come as one JSON array of rows (:func:`events_json`), not six
typed arrays: psycopg dumps each array in Python (~10 us each, on the event loop), a JSON string in C."""


def open_games_query(
    statements: Statements, limit: int, after: tuple[str, str] | None, viewer: str | None
) -> tuple[str, tuple[object, ...]]:
    """The query of a page of open games (``viewer``: an API key's id, "" anonymous; None: every game) and its
    parameters."""
    query = statements.open_games.format(
        columns=GAME_COLUMNS,
        viewer=statements.open_games_viewer if viewer is not None else "",
        after=statements.open_games_after if after is not None else "",
    )
    return query, (*((viewer,) if viewer is not None else ()), *(after or ()), limit)


def game_values(game: GameRecord, last_seq: int, request_id: str | None) -> tuple[object, ...]:
    """The row of a new game (``insert_game``)."""
    return (
        game.game_id,
        game.created_at,
        game.rules,
        game.players,
        last_seq,
        game.over,
        request_id,
        game.owner,
        game.creator,
        game.public,
        game.previous_game,
        None if game.over else game.deadline_us,
        now_us() if game.over else None,
    )


def seat_values(game: GameRecord) -> list[tuple[object, ...]]:
    """The rows of a new game's seats (``insert_seats``)."""
    return [
        (game.game_id, s.seat, s.kind, s.bot, s.player_name, s.token_hash, s.joined_us, s.seen_us, s.key_id, s.player)
        for s in game.seats
    ]


def event_values(game_id: str, after_seq: int, events: Sequence[NewEvent]) -> list[tuple[object, ...]]:
    """The rows of ``events`` appended after ``after_seq`` (``insert_event``)."""
    return [
        (game_id, after_seq + i, e.kind, e.schema, e.payload, e.audience, e.at_us)
        for i, e in enumerate(events, start=1)
    ]


def take_seat_values(
    game_id: str, seat: int, token_hash: bytes, player_name: str, key_id: str, player: str = ""
) -> tuple[object, ...]:
    """The parameters of ``take_seat``: the open seat taken now, under ``key_id``, for ``player`` ("": anonymous)."""
    now = now_us()
    return (SEAT_TAKEN, token_hash, player_name, now, now, key_id, player, game_id, seat, SEAT_OPEN)


def sighting_values(sightings: Sequence[Sighting]) -> list[tuple[object, ...]]:
    """The parameters of ``touch_seat``, one row per sighting (a seat's time only ever moves forward)."""
    return [(at, game_id, seat, at) for game_id, seat, at in sightings]


def key_values(key: ApiKeyRecord) -> tuple[object, ...]:
    return (key.key_id, key.name, key.secret_hash, key.created_at, key.revoked_at, key.quotas)


def key_records(rows: Iterable[Sequence[Any]]) -> list[ApiKeyRecord]:
    return [ApiKeyRecord(k, n, bytes(h), c, r, q) for k, n, h, c, r, q in rows]


def stored_events(game_id: str, rows: Iterable[Sequence[Any]]) -> list[StoredEvent]:
    """The rows of ``read_events`` as stored events."""
    return [
        StoredEvent(game_id, int(seq), kind, schema, bytes(payload), audience, int(at_us))
        for seq, kind, schema, payload, audience, at_us in rows
    ]


def events_json(first_seq: int, events: Sequence[NewEvent]) -> str:
    """The rows of :data:`POSTGRES_APPEND`'s events, numbered from ``first_seq``: ``[seq, kind, schema, payload in
    hex, audience, at_us]`` each, in one JSON array (hex: JSON has no bytes; ``decode`` restores them exactly)."""
    rows = [
        [seq, event.kind, event.schema, event.payload.hex(), event.audience, event.at_us]
        for seq, event in enumerate(events, first_seq)
    ]
    return json.dumps(rows, separators=(",", ":"))


def postgres_append_values(append: Append, now: int, channel: str | None) -> dict[str, object]:
    """The parameters of :data:`POSTGRES_APPEND`."""
    last_seq = append.last_seq
    return {
        "game": append.game_id,
        "expected": append.expected_last_seq,
        "last": last_seq,
        "over": append.over,
        "events": events_json(append.expected_last_seq + 1, append.events),
        "deadline": None if append.over else append.deadline_us,
        "now": now,
        "request": append.request_id,
        "response": append.response,
        "channel": channel,
        "note": f"{append.game_id}:{last_seq}",
    }


SIGNING_KEY_COLUMNS = "app, kid, algorithm, key_data, created_at, revoked_at"
TICKET_COLUMNS = (
    "ticket_id, app, player, display_name, rules, players, party, ordinal, opened_us, expires_us, bots_after_us,"
    " bot, state, game_id, seat, request_id, seen_us"
)
PLAYER_MATCH_COLUMNS = "app, player, game_id, players, seat, won, rated, ended_us, scores, seat_players, mu, sigma"


@dataclass(frozen=True)
class PlayerStatements:
    """The statements of players, ratings, tickets and the matcher's lease (issue 36), as :class:`Statements`."""

    insert_signing_key: str
    signing_keys: str
    revoke_signing_key: str
    upsert_player: str
    player: str
    player_ratings: str
    rating: str
    upsert_rating: str
    leaderboard: str
    leaderboard_total: str
    rank_of: str
    insert_result: str
    insert_player_match: str
    player_matches: str
    player_matches_after: str
    unresulted_games: str
    clear_results: tuple[str, ...]
    insert_ticket: str
    tickets: str
    set_ticket_state: str
    match_ticket: str
    touch_ticket: str
    beat_ticket: str
    drop_ticket: str
    forget_tickets: str
    take_lease: str
    release_lease: str
    insert_lease: str
    placeholder: str  #: the dialect's, for the filters composed at run time


_PLAYERS = PlayerStatements(
    insert_signing_key=f"INSERT INTO signing_keys ({SIGNING_KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
    signing_keys=f"SELECT {SIGNING_KEY_COLUMNS} FROM signing_keys {{{{where}}}} ORDER BY app, created_at, kid",
    revoke_signing_key="UPDATE signing_keys SET revoked_at = coalesce(revoked_at, ?) WHERE app = ? AND kid = ?",
    upsert_player="INSERT INTO players (app, player, display_name) VALUES (?, ?, ?)"
    " ON CONFLICT (app, player) DO UPDATE SET display_name = excluded.display_name",
    player="SELECT display_name FROM players WHERE app = ? AND player = ?",
    player_ratings="SELECT app, players, player, mu, sigma, matches, wins FROM ratings WHERE app = ? AND player = ?"
    " ORDER BY players",
    rating="SELECT app, players, player, mu, sigma, matches, wins FROM ratings"
    " WHERE app = ? AND players = ? AND player = ?",
    upsert_rating="INSERT INTO ratings (app, players, player, mu, sigma, ordinal, matches, wins)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (app, players, player) DO UPDATE SET mu = excluded.mu,"
    " sigma = excluded.sigma, ordinal = excluded.ordinal, matches = excluded.matches, wins = excluded.wins",
    leaderboard="SELECT r.app, r.players, r.player, r.mu, r.sigma, r.matches, r.wins, coalesce(p.display_name, '')"
    " FROM ratings r LEFT JOIN players p ON p.app = r.app AND p.player = r.player"
    " WHERE r.app = ? AND r.players = ? ORDER BY r.ordinal DESC, r.matches DESC, r.player LIMIT ? OFFSET ?",
    leaderboard_total="SELECT count(*) FROM ratings WHERE app = ? AND players = ?",
    rank_of="SELECT count(*) FROM ratings WHERE app = ? AND players = ? AND (ordinal > ?"
    " OR (ordinal = ? AND (matches > ? OR (matches = ? AND player < ?))))",
    insert_result="INSERT INTO results (game_id, app, ended_us) VALUES (?, ?, ?) ON CONFLICT (game_id) DO NOTHING",
    insert_player_match=f"INSERT INTO player_matches ({PLAYER_MATCH_COLUMNS})"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    player_matches=f"SELECT {PLAYER_MATCH_COLUMNS} FROM player_matches WHERE app = ? AND player = ? {{{{after}}}}"
    " ORDER BY ended_us DESC, game_id DESC LIMIT ?",
    player_matches_after="AND (ended_us < ? OR (ended_us = ? AND game_id < ?))",
    unresulted_games="SELECT g.game_id, g.ended_us FROM games g WHERE {over} AND g.closed = {false} AND g.ended_us >= ?"
    " AND EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.game_id AND s.player <> '')"
    " AND NOT EXISTS (SELECT 1 FROM results r WHERE r.game_id = g.game_id) ORDER BY g.ended_us, g.game_id LIMIT ?",
    clear_results=("DELETE FROM results", "DELETE FROM ratings", "DELETE FROM player_matches"),
    insert_ticket=f"INSERT INTO tickets ({TICKET_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    tickets=f"SELECT {TICKET_COLUMNS} FROM tickets {{{{where}}}} ORDER BY opened_us, ticket_id",
    set_ticket_state="UPDATE tickets SET state = ? WHERE ticket_id = ? AND state = 'waiting'",
    match_ticket="UPDATE tickets SET state = 'matched', game_id = ?, seat = ?"
    " WHERE ticket_id = ? AND state = 'waiting'",
    touch_ticket="UPDATE tickets SET seen_us = ? WHERE ticket_id = ? AND seen_us < ? AND state = 'waiting'",
    beat_ticket="UPDATE tickets SET seen_us = ? WHERE ticket_id = ? AND seen_us = ?",
    drop_ticket="UPDATE tickets SET state = 'cancelled' WHERE ticket_id = ? AND state = 'waiting' AND seen_us = ?",
    forget_tickets="DELETE FROM tickets WHERE state <> 'waiting' AND opened_us < ?",
    take_lease="UPDATE leases SET holder = ?, until_us = ? WHERE name = ? AND (holder = ? OR until_us < ?)",
    release_lease="UPDATE leases SET until_us = 0 WHERE name = ? AND holder = ?",
    insert_lease="INSERT INTO leases (name, holder, until_us) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
    placeholder="?",
)


def player_statements(dialect: Dialect) -> PlayerStatements:
    """Every statement of players and tickets in ``dialect``."""
    rendered: dict[str, Any] = {}
    for field in fields(PlayerStatements):
        value = getattr(_PLAYERS, field.name)
        rendered[field.name] = (
            tuple(dialect.render(item) for item in value) if isinstance(value, tuple) else dialect.render(value)
        )
    return PlayerStatements(**rendered)


def statements(dialect: Dialect) -> Statements:
    """Every shared statement in ``dialect``."""
    rendered: dict[str, Any] = {}
    for field in fields(Statements):
        value = getattr(_SHARED, field.name)
        if isinstance(value, tuple):
            rendered[field.name] = tuple(dialect.render(item) for item in value)
        else:
            rendered[field.name] = dialect.render(value)
    return Statements(**rendered)


def migrations(dialect: Dialect) -> tuple[str, ...]:
    """The migrations in ``dialect``."""
    return tuple(dialect.render(script) for script in MIGRATIONS)


__all__ = [
    "EVENT_ROW",
    "GAME_TABLES",
    "MIGRATIONS",
    "POSTGRES",
    "POSTGRES_APPEND",
    "SQLITE",
    "Dialect",
    "PlayerStatements",
    "Statements",
    "event_values",
    "game_values",
    "key_records",
    "key_values",
    "migrations",
    "open_games_query",
    "player_statements",
    "postgres_append_values",
    "seat_values",
    "sighting_values",
    "statements",
    "stored_events",
    "take_seat_values",
]
