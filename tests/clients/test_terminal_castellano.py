"""``truco play`` speaks Rioplatense by default: every line it can print for every kind of event, a table in play
and one that is over, its options and its prompts pass the web table's voseo, capitals and punctuation checks
(web/e2e/style-of-messages.mjs, run with node); ``--lang en`` and an English locale keep English."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from truco.terminal import castellano
from truco.terminal.castellano import ENGLISH, RIOPLATENSE, voice_for
from truco.terminal.main import parser as terminal_parser
from truco_client.v1 import cards_pb2, commands_pb2, events_pb2, views_pb2

WEB = Path(__file__).resolve().parents[2] / "web"
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


def every_line() -> list[dict[str, object]]:
    """Each sentence ``truco play`` can say in Rioplatense, with whether it is about the viewer's own act."""
    lines: list[dict[str, object]] = []

    def add(source: str, text: str | None, about_viewer: bool = False) -> None:
        if text:
            lines.append({"source": source, "text": text, "aboutViewer": about_viewer})

    for source, event in every_event():
        kind = event.WhichOneof("kind") or ""
        seat = getattr(getattr(event, kind), "seat", None)
        add(source, castellano.describe_event(event, 0, LABELS), seat == 0 and kind != "sena_sent")
        add(f"{source}, spectator", castellano.describe_event(event, None, LABELS))
    for over in (False, True):
        for line in castellano.render_view(a_table(over), LABELS).splitlines():
            if line.startswith("  "):  # an option: "   3) no quiero", a command's name, not a sentence
                add("option", castellano.capital(line.split(") ", 1)[1]))
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
    ):
        add("prompt", text)
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
    spanish = castellano.render_view(view, LABELS)
    assert "Tus cartas: 2c (2 de copa, pieza)" in spanish and "Tenés 27 de envido." in spanish
    assert "El asiento 1 (bot intermedio) cantó truco: tu equipo contesta." in spanish
    assert "Your cards" in ENGLISH.render_view(view, LABELS)
