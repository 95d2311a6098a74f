"""``truco play`` in Rioplatense Spanish, with voseo: the table, the events, the options and the prompts, as
:mod:`truco.terminal.play` says them in English (``--lang en``, or a ``LANG`` that starts with ``en``).

The same pure shape as the English functions, so the loop picks one voice (:class:`Voice`) and the rest of it
does not care which; the words follow the web table's (web/src/text.ts): "Te toca", "cantás", "la muestra",
"Tu equipo", "los rivales".
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from truco.engine import piezas
from truco_client import card_text, seconds_left
from truco_client import sena_name as client_sena_name
from truco_client.v1 import cards_pb2, commands_pb2, events_pb2, game_service_pb2, views_pb2

from . import play as english

CALLS: dict[int, str] = {
    commands_pb2.CALL_KIND_TRUCO: "truco",
    commands_pb2.CALL_KIND_RETRUCO: "retruco",
    commands_pb2.CALL_KIND_VALE_CUATRO: "vale cuatro",
    commands_pb2.CALL_KIND_ENVIDO: "envido",
    commands_pb2.CALL_KIND_REAL_ENVIDO: "real envido",
    commands_pb2.CALL_KIND_FALTA_ENVIDO: "falta envido",
    commands_pb2.CALL_KIND_CONTRA_FLOR: "contra flor",
    commands_pb2.CALL_KIND_CONTRA_FLOR_AL_RESTO: "contra flor al resto",
    commands_pb2.CALL_KIND_CON_FLOR_ENVIDO: "con flor envido",
}
REASONS = {
    events_pb2.SCORE_REASON_ENVIDO: "el envido",
    events_pb2.SCORE_REASON_ENVIDO_DECLINED: "el envido no querido",
    events_pb2.SCORE_REASON_FLOR: "la flor",
    events_pb2.SCORE_REASON_FLOR_DECLINED: "la flor no querida",
    events_pb2.SCORE_REASON_HAND: "la mano",
    events_pb2.SCORE_REASON_TRUCO_DECLINED: "el truco no querido",
    events_pb2.SCORE_REASON_MAZO: "el mazo",
}
ENDS = {
    events_pb2.HAND_END_ROUNDS: "se definió jugando las cartas",
    events_pb2.HAND_END_TRUCO_DECLINED: "con un truco no querido",
    events_pb2.HAND_END_MAZO: "con una ida al mazo",
    events_pb2.HAND_END_MATCH_ENDED: "con el fin del partido",
    events_pb2.HAND_END_FORFEIT: "porque un equipo perdió el partido",
}
ROUNDS = ("primera", "segunda", "tercera")


def call_name(kind: int) -> str:
    return CALLS.get(kind, "un canto")


def sena_name(kind: int) -> str:
    """The seña's name as players say it: "pieza 2", "mata 7", "chica 3", "negras"."""
    name: str = client_sena_name(kind)
    return name


def round_name(index: int) -> str:
    return ROUNDS[index] if 0 <= index < len(ROUNDS) else f"la ronda {index + 1}"


def card_label(pb: cards_pb2.Card, muestra: cards_pb2.Card | None = None) -> str:
    """``"2o (2 de oro, pieza)"``: the notation, the name, and pieza or mata under ``muestra``."""
    return english.card_label(pb, muestra)


def seat_label(seat: int, me: int | None, labels: Mapping[int, str] | None = None) -> str:
    """``"vos"``, or ``"el asiento 1"`` with what is known of it: ``"el asiento 2 (compañero, bot intermedio)"``."""
    if seat == me:
        return "vos"
    extra = []
    if me is not None and seat % 2 == me % 2:
        extra.append("compañero")
    if labels and seat in labels:
        extra.append(labels[seat])
    return f"el asiento {seat} ({', '.join(extra)})" if extra else f"el asiento {seat}"


def to(label: str) -> str:
    """ "a vos", "al asiento 1": a seat after the preposition a."""
    return f"al {label.removeprefix('el ')}" if label.startswith("el ") else f"a {label}"


def seats_list(seats: list[int], me: int | None, labels: Mapping[int, str] | None = None) -> str:
    """ "el asiento 1", "el asiento 1 y el asiento 3"."""
    words = [seat_label(s, me, labels) for s in seats]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} y {words[-1]}"


def team_label(team: int, me: int | None) -> str:
    if me is None:
        return f"el equipo {team}"
    return "tu equipo" if team == me % 2 else "los rivales"


def team_does(team: int, me: int | None, singular: str, plural: str) -> str:
    """ "tu equipo gana", "los rivales ganan", "el equipo 1 gana"."""
    return f"{team_label(team, me)} {plural if me is not None and team != me % 2 else singular}"


def does(seat: int, me: int | None, labels: Mapping[int, str] | None, third: str, vos: str) -> str:
    """ "Vos cantás" reads as "Cantás"; anyone else: "asiento 1 canta"."""
    return capital(vos) if seat == me else f"{seat_label(seat, me, labels)} {third}"


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def score_line(public: views_pb2.MatchView, me: int | None = None) -> str:
    """``Tanteador: tu equipo 12 malas · los rivales 17 buenas · a 30``."""
    standings = {views_pb2.STANDING_MALAS: "malas", views_pb2.STANDING_BUENAS: "buenas"}
    parts = [
        f"{team_label(score.team, me)} {score.points} {standings.get(score.standing, '?')}"
        for score in sorted(public.scores, key=lambda s: s.team)
    ]
    return f"Tanteador: {' · '.join(parts)} · a {public.rules.target} puntos"


def describe_action(command: commands_pb2.Command, muestra: cards_pb2.Card | None = None) -> str:
    """An option as the player reads it: ``jugar 2o (2 de oro, pieza)``, ``cantar truco``, ``quiero``..."""
    kind = command.WhichOneof("kind")
    if kind == "play_card":
        return f"jugar {card_label(command.play_card.card, muestra)}"
    if kind == "call":
        return f"cantar {call_name(command.call.call)}"
    if kind == "answer":
        said = "quiero" if command.answer.accept else "no quiero"
        return f"{said} ({call_name(command.answer.call)})" if command.answer.call else said
    if kind == "go_to_mazo":
        return "irme al mazo"
    if kind == "send_sena":
        return f"hacer la seña: {sena_name(command.send_sena.sena)}"
    if kind == "call_perros":
        return "echar los perros"
    if kind == "skip_perros":
        return "dar sin echar los perros"
    if kind == "answer_perros":
        answer = command.answer_perros
        envido = "quiero" if answer.accept_envido else "no quiero"
        truco = "quiero" if answer.accept_truco else "no quiero"
        return f"contestar los perros: envido {envido}, truco {truco}"
    return "nada"


def clock_line(public: views_pb2.MatchView, me: int | None, now: float | None = None) -> str | None:
    """``Reloj: te toca, te quedan 23 s`` (or whose clock runs); None when no clock runs."""
    left = seconds_left(public, now)
    if left is None:
        return None
    seats = list(public.clock.seats)
    if public.clock.stand_in:
        return f"Reloj: el bot juega por {seats_list(seats, me)} en {left:.0f} s"
    if me in seats:
        return f"Reloj: te toca, te quedan {left:.0f} s"
    return f"Reloj: le toca {to(seats_list(seats, me))}, le quedan {left:.0f} s"


def render_view(
    view: views_pb2.SeatView,
    labels: Mapping[int, str] | None = None,
    *,
    options: bool = True,
    now: float | None = None,
) -> str:
    """The whole table as one seat sees it, as :func:`truco.terminal.play.render_view` in English."""
    public = view.public
    me = view.seat
    lines = [score_line(public, me)]
    if public.phase == views_pb2.PHASE_MATCH_OVER:
        verdict = "¡ganaste!" if public.winner_team == view.team else "perdiste."
        lines.append(f"Partido terminado: {team_does(public.winner_team, me, 'ganó', 'ganaron')}; {verdict}")
        return "\n".join(lines)
    if public.HasField("hand"):
        lines.extend(_render_hand(view, labels))
    else:
        lines.append("Todavía no se repartió: el partido empieza cuando se sienten todos.")
    if public.phase == views_pb2.PHASE_AWAITING_PERROS:
        lines.append("Antes de repartir: el equipo que da puede echar los perros.")
    if public.to_act and me not in public.to_act:
        lines.append(f"Esperando {to(seats_list(list(public.to_act), me, labels))}.")
    clock = clock_line(public, me, now)
    if clock is not None:
        lines.append(clock)
    if options and view.legal_actions:
        muestra = public.hand.muestra if public.HasField("hand") else None
        lines.append("Tus opciones:")
        lines.extend(
            f"  {number:>2}) {describe_action(action, muestra)}"
            for number, action in enumerate(view.legal_actions, start=1)
        )
    return "\n".join(lines)


def _render_hand(view: views_pb2.SeatView, labels: Mapping[int, str] | None) -> list[str]:
    hand = view.public.hand
    me = view.seat
    muestra = hand.muestra
    lines = [
        f"Mano {hand.number}{' (pico a pico)' if hand.pico else ''} · da {seat_label(hand.dealer, me, labels)}"
        f" · {'sos mano' if hand.mano == me else 'es mano ' + seat_label(hand.mano, me, labels)}"
        f" · vale {hand.truco_value}",
    ]
    pieza_texts = " ".join(str(p) for p in piezas(english._engine_card(muestra)))
    lines.append(f"Muestra: {card_label(muestra)} · piezas {pieza_texts}")
    for index, round_ in enumerate(hand.rounds):
        plays = ", ".join(f"{seat_label(p.seat, me, labels)} {card_label(p.card, muestra)}" for p in round_.plays)
        result = ""
        if round_.finished:
            result = f" → {team_label(round_.winner_team, me)}" if round_.HasField("winner_team") else " → parda"
        lines.append(f"{capital(round_name(index))}: {plays}{result}")
    lines.extend(_bets(view, labels))
    if view.cards:
        lines.append("Tus cartas: " + " · ".join(card_label(c, muestra) for c in english.own_cards(view)))
        tantos = tantos_line(view)
        if tantos:
            lines.append(tantos)
    elif not hand.ended:
        lines.append("Esta mano no jugás (pico a pico).")
    if view.senas:
        lines.append(
            "Señas: " + ", ".join(f"{seat_label(s.seat, me, labels)}: {sena_name(s.sena)}" for s in view.senas)
        )
    if hand.HasField("turn") and not hand.ended:
        lines.append("Te toca." if hand.turn == me else f"Le toca {to(seat_label(hand.turn, me, labels))}.")
    return lines


def _bets(view: views_pb2.SeatView, labels: Mapping[int, str] | None) -> list[str]:
    hand = view.public.hand
    me = view.seat
    bets = []
    if hand.envido_chain:
        bets.append("envido en juego: " + ", ".join(call_name(c) for c in hand.envido_chain))
    if hand.HasField("envido_winner_seat"):
        winner = seat_label(hand.envido_winner_seat, me, labels)
        bets.append(f"el envido lo ganó {winner} con {hand.envido_winner_points}")
    if hand.flor_sung:
        bets.append("flor: " + ", ".join(seat_label(s, me, labels) for s in hand.flor_sung))
    lines = ["; ".join(bets).capitalize()] if bets else []
    if hand.HasField("pending"):
        pending = hand.pending
        who = "tu equipo contesta" if pending.team != view.team else "contestan los rivales"
        caller = does(pending.seat, me, labels, "cantó", "cantaste")
        lines.append(f"{capital(caller)} {call_name(pending.call)}: {who}.")
    if hand.perros_pending:
        lines.append(f"{capital(does(hand.perros_by, me, labels, 'echó', 'echaste'))} los perros: falta la respuesta.")
    return lines


def tantos_line(view: views_pb2.SeatView) -> str | None:
    """What the seat holds for the envido or the flor, while it still matters."""
    hand = view.public.hand
    if view.HasField("flor"):
        if view.seat in hand.flor_sung:
            return None
        return f"Tenés flor ({view.flor}): se canta sola la primera vez que jugás esta mano."
    if view.HasField("envido") and not hand.envido_closed:
        return f"Tenés {view.envido} de envido."
    return None


def describe_event(
    event: events_pb2.Event, me: int | None = None, labels: Mapping[int, str] | None = None
) -> str | None:
    """One line for an event as it happens (None for the match's start)."""
    kind = event.WhichOneof("kind")
    describe = _EVENTS.get(kind or "")
    return describe(getattr(event, kind or ""), me, labels or {}) if describe is not None else None


Labels = Mapping[int, str]


def _who(seat: int, me: int | None, labels: Labels) -> str:
    return seat_label(seat, me, labels)


def _dealt(e: events_pb2.HandDealt, me: int | None, labels: Labels) -> str:
    pico = " (pico a pico)" if e.pico else ""
    dealer = "repartís vos" if e.dealer == me else f"reparte {_who(e.dealer, me, labels)}"
    return f"Mano {e.number}{pico}: {dealer}."


def _played(e: events_pb2.CardPlayed, me: int | None, labels: Labels) -> str:
    return f"{capital(does(e.seat, me, labels, 'juega', 'jugás'))} {card_label(e.card)}."


def _call(e: events_pb2.CallMade, me: int | None, labels: Labels) -> str:
    return f"{capital(does(e.seat, me, labels, 'canta', 'cantás'))} {call_name(e.call)}."


def _accepted(e: events_pb2.CallAccepted, me: int | None, labels: Labels) -> str:
    return f"{capital(does(e.seat, me, labels, 'quiere', 'querés'))} ({call_name(e.call)})."


def _declined(e: events_pb2.CallDeclined, me: int | None, labels: Labels) -> str:
    return f"{capital(does(e.seat, me, labels, 'no quiere', 'no querés'))} ({call_name(e.call)})."


def _round(e: events_pb2.RoundEnded, me: int | None, labels: Labels) -> str:
    if not e.HasField("winner_team"):
        return f"{capital(round_name(e.round))}: parda."
    return f"{capital(round_name(e.round))} para {team_label(e.winner_team, me)} ({_who(e.winning_seat, me, labels)})."


def _flor(e: events_pb2.FlorSung, me: int | None, labels: Labels) -> str:
    return f"{capital(does(e.seat, me, labels, 'canta', 'cantás'))} flor."


def _envido(e: events_pb2.EnvidoSettled, me: int | None, labels: Labels) -> str:
    return f"{capital(does(e.winner_seat, me, labels, 'gana', 'ganás'))} el envido con {e.points}."


def _flor_settled(e: events_pb2.FlorSettled, me: int | None, labels: Labels) -> str:
    if e.HasField("winner_seat"):
        return f"{capital(does(e.winner_seat, me, labels, 'gana', 'ganás'))} la flor con {e.points}."
    return "La flor se cobra sin disputa."


def _perros(e: events_pb2.PerrosCalled, me: int | None, labels: Labels) -> str:
    return f"{capital(does(e.seat, me, labels, 'echa', 'echás'))} los perros."


def _no_perros(e: events_pb2.PerrosSkipped, me: int | None, labels: Labels) -> str:
    return f"{capital(does(e.seat, me, labels, 'reparte', 'repartís'))} sin echar los perros."


def _perros_answered(e: events_pb2.PerrosAnswered, me: int | None, labels: Labels) -> str:
    envido = "quiero" if e.accept_envido else "no quiero"
    truco = "quiero" if e.accept_truco else "no quiero"
    return f"{capital(does(e.seat, me, labels, 'contesta', 'contestás'))} los perros: envido {envido}, truco {truco}."


def _mazo(e: events_pb2.WentToMazo, me: int | None, labels: Labels) -> str:
    return f"{capital(does(e.seat, me, labels, 'se va', 'te vas'))} al mazo."


def _sena(e: events_pb2.SenaSent, me: int | None, labels: Labels) -> str:
    if e.seat == me:
        return f"Le hacés una seña a tu compañero: {sena_name(e.sena)}."
    return f"{capital(_who(e.seat, me, labels))} te hace una seña: {sena_name(e.sena)}."


def _points(e: events_pb2.PointsScored, me: int | None, labels: Labels) -> str:
    unit = "punto" if e.points == 1 else "puntos"
    said = team_does(e.team, me, "suma", "suman")
    return f"{capital(said)} {e.points} {unit} por {REASONS.get(e.reason, 'la mano')}."


def _hand_ended(e: events_pb2.HandEnded, me: int | None, labels: Labels) -> str:
    shown = "; ".join(f"{_who(s.seat, me, labels)} mostró {' '.join(card_text(c) for c in s.cards)}" for s in e.shown)
    taken = (
        team_does(e.winner_team, me, "gana", "ganan") + " la mano" if e.HasField("winner_team") else "Fin de la mano"
    )
    return f"{capital(taken)}: {ENDS.get(e.end, 'terminó')}.{' ' + capital(shown) + '.' if shown else ''}"


def _match_ended(e: events_pb2.MatchEnded, me: int | None, labels: Labels) -> str:
    return f"¡Partido terminado! {capital(team_does(e.winner_team, me, 'ganó', 'ganaron'))}."


def _expired(e: events_pb2.ClockExpired, me: int | None, labels: Labels) -> str:
    if e.forfeit:
        loses = team_does(e.seat % 2, me, "pierde", "pierden")
        return f"Se le acabó el tiempo {to(_who(e.seat, me, labels))}: {loses} el partido."
    if e.seat == me:
        return "Se te acabó el tiempo: un bot juega por vos, a ritmo de persona (escribí r para volver)."
    return f"Se le acabó el tiempo {to(_who(e.seat, me, labels))}: juega un bot por ese asiento."


def _left(e: events_pb2.SeatLeft, me: int | None, labels: Labels) -> str:
    if e.seat == me:
        return "Dejaste la mesa: un bot juega por vos, a ritmo de persona (escribí r para volver)."
    return f"{capital(_who(e.seat, me, labels))} dejó la mesa: juega un bot."


def _resumed(e: events_pb2.SeatResumed, me: int | None, labels: Labels) -> str:
    return "Volviste a la mesa." if e.seat == me else f"{capital(_who(e.seat, me, labels))} volvió a la mesa."


_EVENTS: dict[str, Callable[..., str]] = {
    "hand_dealt": _dealt,
    "card_played": _played,
    "call_made": _call,
    "call_accepted": _accepted,
    "call_declined": _declined,
    "round_ended": _round,
    "flor_sung": _flor,
    "envido_voided": lambda e, me, labels: "El envido no se juega: hay flor.",
    "envido_settled": _envido,
    "flor_settled": _flor_settled,
    "perros_called": _perros,
    "perros_skipped": _no_perros,
    "perros_answered": _perros_answered,
    "went_to_mazo": _mazo,
    "sena_sent": _sena,
    "points_scored": _points,
    "hand_ended": _hand_ended,
    "match_ended": _match_ended,
    "clock_expired": _expired,
    "seat_left": _left,
    "seat_resumed": _resumed,
}


def bot_labels(game: game_service_pb2.Game) -> dict[int, str]:
    """Seat labels: ``bot intermedio`` for bot seats, the player's name for taken seats."""
    levels = {"beginner": "principiante", "intermediate": "intermedio", "expert": "experto", "random": "al azar"}
    levels["heuristic"] = "heurístico"
    return {seat: (f"bot {levels.get(label.split()[0], label.split()[0])}" if label.endswith(" bot") else label)
            for seat, label in english.bot_labels(game).items()}  # fmt: skip


# --- The voices the loop speaks with -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Voice:
    """Everything ``truco play`` says, in one language."""

    render_view: Callable[..., str]
    describe_event: Callable[..., str | None]
    bot_labels: Callable[[game_service_pb2.Game], dict[int, str]]
    joined: Callable[[str, int, int], str]
    prompt: Callable[[int, str], str]
    seconds_left: Callable[[float], str]
    countdown: Callable[[int], str]
    leaving: Callable[[str], str]
    end_of_input: Callable[[str], str]
    changed: str
    refused: Callable[[str], str]
    refused_by_server: Callable[[str, str], str]
    moved_on: str
    away: str
    back: str
    choose: Callable[[int], str]
    no_option: Callable[[int, int], str]


ENGLISH = Voice(
    render_view=english.render_view,
    describe_event=english.describe_event,
    bot_labels=english.bot_labels,
    joined=lambda game, seat, team: f"Game {game}: you are seat {seat}, team {team}.",
    prompt=lambda count, timer: f"Your move (1-{count}, ? to show the table, q to quit{timer}):",
    seconds_left=lambda left: f", {left:.0f}s left",
    countdown=lambda mark: f"  … {mark}s left",
    leaving=lambda name: f"Leaving the game (it stays on the server as {name}).",
    end_of_input=lambda name: f"End of input: leaving the game (it stays on the server as {name}).",
    changed="The table changed while you typed; choose again.",
    refused=lambda error: f"Refused: {error}",
    refused_by_server=lambda message, reason: f"Refused by the server: {message} ({reason})",
    moved_on="The game moved on before your move arrived; here is the table now.",
    away="A bot is playing your seat. Type r to take it back, q to quit.",
    back="You are back at the table.",
    choose=english.choose_text,
    no_option=english.no_option_text,
)
RIOPLATENSE = Voice(
    render_view=render_view,
    describe_event=describe_event,
    bot_labels=bot_labels,
    joined=lambda game, seat, team: f"Partido {game}: estás en el asiento {seat}, equipo {team}.",
    prompt=lambda count, timer: f"Te toca: elegí del 1 al {count} (m muestra la mesa, q sale{timer}).",
    seconds_left=lambda left: f", te quedan {left:.0f} s",
    countdown=lambda mark: f"  … te quedan {mark} s",
    leaving=lambda name: f"Dejás la mesa (el partido sigue en el servidor como {name}).",
    end_of_input=lambda name: f"Se terminó la entrada: dejás la mesa (el partido sigue en el servidor como {name}).",
    changed="La mesa cambió mientras escribías: elegí de nuevo.",
    refused=lambda error: f"No se puede: {error}",
    refused_by_server=lambda message, reason: f"El servidor no aceptó la jugada ({reason}: {message})",
    moved_on="El partido siguió antes de que llegara tu jugada: así está la mesa ahora.",
    away="Un bot juega por vos. Escribí r para volver a la mesa o q para salir.",
    back="Volviste a la mesa.",
    choose=lambda count: f"escribí el número de una opción, del 1 al {count} (q sale, m muestra la mesa)",
    no_option=lambda number, count: f"no hay opción {number}: elegí del 1 al {count}",
)
VOICES = {"en": ENGLISH, "es": RIOPLATENSE}


def voice_for(lang: str | None, environ: Mapping[str, str] | None = None) -> Voice:
    """The voice ``--lang`` names; without it, English when the locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``)
    says so, else Rioplatense: the table's language."""
    if lang:
        return VOICES[lang]
    env = os.environ if environ is None else environ
    locale = next((env[name] for name in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(name)), "")
    return ENGLISH if locale.lower().startswith("en") else RIOPLATENSE


__all__ = ["ENGLISH", "RIOPLATENSE", "VOICES", "Voice", "describe_event", "render_view", "voice_for"]
