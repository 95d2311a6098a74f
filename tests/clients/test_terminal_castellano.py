"""``truco play`` speaks Rioplatense by default: every line it can print for every kind of event, a table in play
and one that is over, its options and its prompts pass the web table's voseo, capitals and punctuation checks
(web/e2e/style-of-messages.mjs, run with node); ``--lang en`` and an English locale keep English."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from truco.terminal.catalogues import capital
from truco.terminal.main import parser as terminal_parser
from truco.terminal.voices import ENGLISH, RIOPLATENSE, voice_for
from truco_client.v1 import cards_pb2, commands_pb2, events_pb2, views_pb2

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
CATALOGUE = ROOT / "clients" / "terminal" / "src" / "truco" / "terminal" / "catalogue" / "es.json"
LABELS = {1: "bot intermedio", 2: "Lola", 3: "bot experto"}
SEAT_FIELDS = ("seat", "winner_seat", "dealer", "winning_seat")
TEAM_FIELDS = ("winner_team", "team")


def every_event() -> list[tuple[str, events_pb2.Event]]:
    """One event of each kind per acting seat (the viewer's, a rival's, the partner's), its other fields set."""
    out = []
    for field in events_pb2.Event.DESCRIPTOR.oneofs_by_name["kind"].fields:
        for seat in (0, 1, 2):
            for flag in (False, True):
                event = events_pb2.Event()
                body = getattr(event, field.name)
                body.SetInParent()
                names = body.DESCRIPTOR.fields_by_name
                for name in SEAT_FIELDS:
                    if name in names:
                        setattr(body, name, seat)
                for name in TEAM_FIELDS:
                    if name in names and flag:
                        setattr(body, name, seat % 2)
                for name, value in (("points", 3), ("number", 4), ("round", 1), ("forfeit", flag)):
                    if name in names:
                        setattr(body, name, value)
                if "call" in names:
                    body.call = commands_pb2.CALL_KIND_RETRUCO
                if "card" in names:
                    body.card.CopyFrom(cards_pb2.Card(rank=1, suit=cards_pb2.SUIT_ESPADA))
                if "sena" in names:
                    body.sena = commands_pb2.SENA_PIEZA_2
                if "shown" in names and flag:
                    body.shown.add(
                        seat=seat, cards=[cards_pb2.Card(rank=r, suit=cards_pb2.SUIT_ORO) for r in (1, 2, 3)]
                    )
                out.append((f"event {field.name} (seat {seat}{', flagged' if flag else ''})", event))
    return out


def a_table(over: bool = False) -> views_pb2.SeatView:
    view = views_pb2.SeatView(seat=0, team=0, envido=27)
    public = view.public
    public.rules.players, public.rules.target = 4, 30
    public.phase = views_pb2.PHASE_MATCH_OVER if over else views_pb2.PHASE_PLAYING
    if over:
        public.winner_team = 1
    public.scores.add(team=0, points=12, standing=views_pb2.STANDING_MALAS)
    public.scores.add(team=1, points=17, standing=views_pb2.STANDING_BUENAS)
    public.to_act.extend([1])
    hand = public.hand
    hand.number, hand.dealer, hand.mano, hand.truco_value, hand.turn = 3, 3, 0, 2, 1
    hand.muestra.CopyFrom(cards_pb2.Card(rank=5, suit=cards_pb2.SUIT_COPA))
    round_ = hand.rounds.add(finished=True, winner_team=1)
    round_.plays.add(seat=0, card=cards_pb2.Card(rank=4, suit=cards_pb2.SUIT_ORO))
    round_.plays.add(seat=1, card=cards_pb2.Card(rank=7, suit=cards_pb2.SUIT_ESPADA))
    hand.envido_chain.extend([commands_pb2.CALL_KIND_ENVIDO])
    hand.pending.seat, hand.pending.team, hand.pending.call = 1, 1, commands_pb2.CALL_KIND_TRUCO
    view.cards.extend(
        [cards_pb2.Card(rank=2, suit=cards_pb2.SUIT_COPA), cards_pb2.Card(rank=12, suit=cards_pb2.SUIT_BASTO)]
    )
    view.legal_actions.add().play_card.card.CopyFrom(view.cards[0])
    view.legal_actions.add().answer.accept = True
    view.legal_actions.add().answer.SetInParent()
    view.legal_actions.add().call.call = commands_pb2.CALL_KIND_RETRUCO
    view.legal_actions.add().go_to_mazo.SetInParent()
    view.legal_actions.add().send_sena.sena = commands_pb2.SENA_MATA_1
    return view


def more_tables() -> list[views_pb2.SeatView]:
    """Tables that say what :func:`a_table` does not: not dealt yet, awaiting the perros, a flor held and sung,
    an envido won, a seat sitting the hand out with señas received, and the clocks of each kind."""
    waiting = views_pb2.SeatView(seat=0, team=0)
    waiting.public.rules.players, waiting.public.rules.target = 4, 30
    waiting.public.scores.add(team=0, standing=views_pb2.STANDING_MALAS)
    waiting.public.scores.add(team=1, standing=views_pb2.STANDING_MALAS)
    waiting.public.to_act.append(1)
    perros = a_table()
    perros.public.phase = views_pb2.PHASE_AWAITING_PERROS
    perros.public.hand.perros_pending, perros.public.hand.perros_by = True, 1
    perros.ClearField("legal_actions")
    perros.legal_actions.add().call_perros.SetInParent()
    perros.legal_actions.add().skip_perros.SetInParent()
    perros.legal_actions.add().answer_perros.accept_envido = True
    perros.legal_actions.add().answer.call = commands_pb2.CALL_KIND_ENVIDO
    perros.legal_actions.add()  # a command of no kind this client knows
    flor = a_table()
    flor.ClearField("envido")
    flor.flor = 31
    flor.public.hand.flor_sung.extend([1, 2])
    flor.public.hand.envido_winner_seat, flor.public.hand.envido_winner_points = 2, 29
    flor.public.hand.pending.seat, flor.public.hand.pending.team = 0, 0
    flor.public.hand.perros_pending, flor.public.hand.perros_by = True, 0
    flor.public.hand.rounds.add(finished=True).plays.add(seat=1, card=cards_pb2.Card(rank=6, suit=cards_pb2.SUIT_ORO))
    won = a_table(over=True)
    won.public.winner_team = 0
    sits_out = a_table()
    sits_out.ClearField("cards")
    sits_out.senas.add(seat=2, sena=commands_pb2.SENA_NEGRAS)
    sits_out.public.hand.turn, sits_out.public.hand.mano = 0, 1
    out = [waiting, perros, flor, won, sits_out]
    for seats, stand_in in (([0], False), ([1, 3], False), ([1], True)):
        clocked = a_table()
        clocked.public.clock.seats.extend(seats)
        clocked.public.clock.stand_in = stand_in
        clocked.public.clock.deadline.FromSeconds(2_000_000_000)
        out.append(clocked)
    return out


def more_events() -> list[tuple[str, events_pb2.Event]]:
    """Events :func:`every_event` leaves out: a flor nobody disputed, a forfeit of the viewer's own team."""
    uncontested = events_pb2.Event(flor_settled=events_pb2.FlorSettled())
    forfeit = events_pb2.Event(clock_expired=events_pb2.ClockExpired(seat=0, forfeit=True))
    return [("event flor_settled (uncontested)", uncontested), ("event clock_expired (own forfeit)", forfeit)]


def every_line() -> list[dict[str, object]]:
    """Each sentence ``truco play`` can say in Rioplatense, with whether it is about the viewer's own act."""
    lines: list[dict[str, object]] = []

    def add(source: str, text: str | None, about_viewer: bool = False) -> None:
        if text:
            lines.append({"source": source, "text": text, "aboutViewer": about_viewer})

    for source, event in every_event() + more_events():
        kind = event.WhichOneof("kind") or ""
        seat = getattr(getattr(event, kind), "seat", None)
        add(source, RIOPLATENSE.describe_event(event, 0, LABELS), seat == 0 and kind != "sena_sent")
        add(f"{source}, spectator", RIOPLATENSE.describe_event(event, None, LABELS))
    for index, table in enumerate([a_table(), a_table(over=True), *more_tables()]):
        over = index == 1
        for line in RIOPLATENSE.render_view(table, LABELS).splitlines():
            if line.startswith("  "):  # an option: "   3) no quiero", a command's name, not a sentence
                add("option", capital(line.split(") ", 1)[1]))
            else:
                add(f"table{' over' if over else ''}", line)
    voice = RIOPLATENSE
    for text in (
        voice.joined("games/abc", 1, 1),
        voice.prompt(4, voice.seconds_left(23.0)),
        voice.countdown(10).strip().removeprefix("… ").capitalize(),
        voice.leaving("games/abc"),
        voice.end_of_input("games/abc"),
        voice.changed,
        voice.refused(voice.choose(4)),
        voice.refused(voice.no_option(7, 4)),
        voice.refused_by_server("not your turn", "NOT_YOUR_TURN"),
        voice.moved_on,
        voice.away,
        voice.back,
        voice.host_waiting,
        voice.started,
    ):
        add("prompt", text)
    at = voice.notice("at", server="localhost:50051")
    why = voice.notice("refused", where=at, message="no hay lugar libre", reason="SEAT_UNAVAILABLE")
    for text in (  # the lines about the table itself (truco play's one-line failures among them)
        voice.notice("cannot_join", game="games/abc", why=why),
        voice.notice("cannot_look", why=voice.notice("unreachable", where=at, code="UNAVAILABLE", message="down")),
        voice.notice("stream_ended"),
        voice.notice("stream_lost", why=why),
        voice.notice("bad_seat", last=3),
        voice.notice("interrupted"),
        voice.notice("looking", players=4, seconds=10, low="22", high="28"),
        voice.notice("no_match"),
    ):
        add("notice", text)
    return lines


def test_every_line_of_the_terminal_speaks_voseo_and_is_well_written() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is needed to run the web table's checks of its messages")
    lines = every_line()
    assert len(lines) > 250, len(lines)
    script = (
        "import { problems } from './e2e/style-of-messages.mjs';"
        "let input = ''; process.stdin.on('data', (d) => (input += d)); process.stdin.on('end', () => {"
        "  const found = JSON.parse(input).flatMap((m) => problems(m.text, m.aboutViewer)"
        "    .map((p) => `${m.source}: ${p}: «${m.text}»`));"
        "  console.log(JSON.stringify(found)); });"
    )
    result = subprocess.run(
        [node, "--input-type=module", "-e", script],
        cwd=WEB,
        input=json.dumps(lines),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(result.stdout) == []


def templates(node: object, path: str = "") -> list[tuple[str, str]]:
    """Every template under ``node`` of a catalogue, with its path (``events.card_played.me``)."""
    if isinstance(node, str):
        return [(path, node)]
    assert isinstance(node, dict)
    return [found for key, value in node.items() for found in templates(value, f"{path}.{key}" if path else key)]


def test_the_voseo_check_goes_over_every_template_of_the_spanish_catalogue() -> None:
    """Each template of the terminal's Spanish words (catalogue/es.json, but the tables of names) is in some line
    that the voseo and grammar checks read: none escapes them."""
    words = json.loads(CATALOGUE.read_text(encoding="utf-8"))["terminal"]
    said = [str(line["text"]) for line in every_line()]
    missing = []
    for path, template in templates({key: value for key, value in words.items() if key != "names"}):
        parts = re.split(r"\{\w+\}", template.strip().removeprefix("… "))
        pattern = re.compile(".*?".join(re.escape(part) for part in parts), re.IGNORECASE)
        if not any(pattern.search(line) for line in said):
            missing.append(f"{path}: {template!r}")
    assert missing == []


def test_the_table_is_rioplatense_unless_english_is_asked_for() -> None:
    assert voice_for(None, {}) is RIOPLATENSE, "no locale: the table's language"
    assert voice_for(None, {"LANG": "es_UY.UTF-8"}) is RIOPLATENSE
    assert voice_for(None, {"LANG": "C.UTF-8"}) is RIOPLATENSE
    assert voice_for(None, {"LANG": "en_US.UTF-8"}) is ENGLISH
    assert voice_for(None, {"LC_ALL": "en_GB.UTF-8", "LANG": "es_AR.UTF-8"}) is ENGLISH
    assert voice_for("es", {"LANG": "en_US.UTF-8"}) is RIOPLATENSE and voice_for("en", {}) is ENGLISH
    assert terminal_parser().parse_args(["play", "--server", "localhost:1", "--lang", "en"]).lang == "en"
    assert terminal_parser().parse_args(["play", "--server", "localhost:1"]).lang is None
    view = a_table()
    spanish = RIOPLATENSE.render_view(view, LABELS)
    assert "Tus cartas: 2c (2 de copa, pieza)" in spanish and "Tenés 27 de envido." in spanish
    assert "El asiento 1 (bot intermedio) cantó truco: tu equipo contesta." in spanish
    assert "Your cards" in ENGLISH.render_view(view, LABELS)
