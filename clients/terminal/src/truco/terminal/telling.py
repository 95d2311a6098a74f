"""The table told in words: a seat's view, an event, an option, in any language's catalogue.

The same code for every language (:mod:`truco.terminal.catalogues` holds the words): it works out who is who
(the reader, a partner, a rival, a team) and what each message needs, and the catalogue says it. Pure: no I/O
beyond reading a catalogue once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from truco.engine import Card, is_pieza, piezas, strength
from truco_client import card_name, card_text, seconds_left, sena_name
from truco_client.v1 import cards_pb2, commands_pb2, events_pb2, game_service_pb2, views_pb2

from .catalogues import Catalogue, capital

MATAS = frozenset({"1e", "1b", "7e", "7o"})
"""The four matas: the strongest cards after the piezas."""

Labels = Mapping[int, str]


def engine_card(pb: cards_pb2.Card) -> Card:
    return Card.parse(card_text(pb))


def own_cards(view: views_pb2.SeatView) -> list[cards_pb2.Card]:
    """The seat's cards, strongest first: the order of its cards on the table and among the options."""
    if not view.public.hand.muestra.rank:  # no hand dealt yet
        return list(view.cards)
    muestra = engine_card(view.public.hand.muestra)
    return sorted(view.cards, key=lambda c: -strength(engine_card(c), muestra))


@dataclass(frozen=True)
class Teller:
    """Who is who for one reader, in one language: the reader's seat (``me``, None for a spectator), the
    players' names or bots (``labels``) and the catalogue ``w``."""

    w: Catalogue
    me: int | None = None
    labels: Labels | None = None

    def person(self, seat: int) -> str:
        """The variant of a message about ``seat``'s act: the reader's own (``me``) or another's."""
        return "me" if seat == self.me else "other"

    def who(self, seat: int, *, to: bool = False, labelled: bool = True) -> str:
        """``seat`` named for the reader: "vos"/"you", or "el asiento 2 (compañero, Lola)"; ``to``: after "a"."""
        if seat == self.me:
            return self.w.say("seats.you")  # never after "a": the reader's own lines say "te" ("Te toca")
        extra = []
        if self.me is not None and seat % 2 == self.me % 2:
            extra.append(self.w.say("seats.partner"))
        if labelled and self.labels and seat in self.labels:
            extra.append(self.labels[seat])
        joined = self.w.say("seats.extra_join").join(extra)
        key = ("seats.seat_with" if extra else "seats.seat") + ("_to" if to else "")
        return self.w.say(key, seat=seat, extra=joined)

    def seats(self, seats: list[int], *, to: bool = False, labelled: bool = True) -> str:
        """Several seats: "el asiento 1 y el asiento 3" (``to``: the first after "a")."""
        words = [self.who(s, to=to and i == 0, labelled=labelled) for i, s in enumerate(seats)]
        if len(words) < 2:
            return "".join(words)
        return f"{self.w.say('seats.list_join').join(words[:-1])}{self.w.say('seats.list_last')}{words[-1]}"

    def side(self, team: int) -> str:
        """The variant of a message about ``team``: ``ours``, ``theirs`` or (a spectator's) ``spectator``."""
        if self.me is None:
            return "spectator"
        return "ours" if team == self.me % 2 else "theirs"

    def team(self, team: int) -> str:
        return self.w.say("teams", self.side(team), team=team)

    def call(self, kind: int) -> str:
        return self.w.name("calls", _enum_name(commands_pb2.CallKind, kind))

    def round(self, index: int) -> str:
        return self.w.name("rounds", str(index), n=index + 1)

    def answer(self, accept: bool) -> str:
        return self.w.name("answers", "accept" if accept else "decline")

    def card(self, pb: cards_pb2.Card, muestra: cards_pb2.Card | None = None) -> str:
        """``"2o (2 de oro, pieza)"``: the notation, the card's name, and pieza or mata under ``muestra``."""
        text = card_text(pb)
        marks = [card_name(pb)]
        if muestra is not None and muestra.rank:
            if is_pieza(engine_card(pb), engine_card(muestra)):
                marks.append(self.w.name("marks", "pieza"))
            elif text in MATAS:
                marks.append(self.w.name("marks", "mata"))
        return f"{text} ({', '.join(marks)})"


def _enum_name(enum: Any, value: int) -> str:
    try:
        return str(enum.Name(value))
    except ValueError:
        return ""


# --- A seat's view -----------------------------------------------------------------------------------------------


def score_line(w: Catalogue, public: views_pb2.MatchView, me: int | None = None) -> str:
    """``Tanteador: tu equipo 12 malas · los rivales 17 buenas · a 30 puntos``."""
    t = Teller(w, me)
    parts = [
        w.say(
            "table.score_part",
            team=t.team(score.team),
            points=score.points,
            standing=w.name("standings", _enum_name(views_pb2.Standing, score.standing)),
        )
        for score in sorted(public.scores, key=lambda s: s.team)
    ]
    return w.say("table.score", parts=" · ".join(parts), target=public.rules.target)


def clock_line(w: Catalogue, public: views_pb2.MatchView, me: int | None, now: float | None = None) -> str | None:
    """Whose clock runs and how long it has left (the reader's, another seat's, the stand-in's); None when none."""
    left = seconds_left(public, now)
    if left is None:
        return None
    seats = list(public.clock.seats)
    t = Teller(w, me)
    variant = "stand_in" if public.clock.stand_in else "me" if me in seats else "other"
    names = {"seats": t.seats(seats, labelled=False), "seats_to": t.seats(seats, to=True, labelled=False)}
    return w.say("table.clock", variant, left=f"{left:.0f}", **names)


def tantos_line(w: Catalogue, view: views_pb2.SeatView) -> str | None:
    """What the seat holds for the envido or the flor, while it still matters: the envido until it closes; a
    flor with the reminder that it is sung by itself (no option sings it), until it is."""
    hand = view.public.hand
    if view.HasField("flor"):
        return None if view.seat in hand.flor_sung else w.say("table.flor", flor=view.flor)
    if view.HasField("envido") and not hand.envido_closed:
        return w.say("table.envido", envido=view.envido)
    return None


def render_view(
    w: Catalogue,
    view: views_pb2.SeatView,
    labels: Labels | None = None,
    *,
    options: bool = True,
    now: float | None = None,
) -> str:
    """The whole table as one seat sees it: score, hand, muestra and piezas, rounds, calls, cards, the turn
    clock, numbered options."""
    public = view.public
    me = view.seat
    t = Teller(w, me, labels)
    lines = [score_line(w, public, me)]
    if public.phase == views_pb2.PHASE_MATCH_OVER:
        verdict = w.say("table.won" if public.winner_team == view.team else "table.lost")
        side = "ours" if public.winner_team == view.team else "theirs"
        lines.append(w.say("table.match_over", side, team=t.team(public.winner_team), verdict=verdict))
        return "\n".join(lines)
    lines.extend(_render_hand(t, view) if public.HasField("hand") else [w.say("table.not_dealt")])
    if public.phase == views_pb2.PHASE_AWAITING_PERROS:
        lines.append(w.say("table.before_perros"))
    if public.to_act and me not in public.to_act:
        to_act = list(public.to_act)
        lines.append(w.say("table.waiting_for", seats=t.seats(to_act), seats_to=t.seats(to_act, to=True)))
    clock = clock_line(w, public, me, now)
    if clock is not None:
        lines.append(clock)
    if options and view.legal_actions:
        muestra = public.hand.muestra if public.HasField("hand") else None
        lines.append(w.say("table.options"))
        lines.extend(
            f"  {number:>2}) {describe_action(w, action, muestra)}"
            for number, action in enumerate(view.legal_actions, start=1)
        )
    return "\n".join(lines)


def _render_hand(t: Teller, view: views_pb2.SeatView) -> list[str]:
    w, hand = t.w, view.public.hand
    muestra = hand.muestra
    pico = w.say("table.pico") if hand.pico else ""
    dealer, mano = t.who(hand.dealer), t.who(hand.mano)
    lines = [w.say("table.hand", t.person(hand.mano), number=hand.number, pico=pico, dealer=dealer, mano=mano,
                   value=hand.truco_value)]  # fmt: skip
    pieza_texts = " ".join(str(p) for p in piezas(engine_card(muestra)))
    lines.append(w.say("table.muestra", card=t.card(muestra), piezas=pieza_texts))
    for index, round_ in enumerate(hand.rounds):
        plays = ", ".join(
            w.say("table.round_play", who=t.who(p.seat), card=t.card(p.card, muestra)) for p in round_.plays
        )
        result = ""
        if round_.finished:
            won = round_.HasField("winner_team")
            result = w.say("table.round_won", team=t.team(round_.winner_team)) if won else w.say("table.round_tied")
        lines.append(w.say("table.round", n=index + 1, round=t.round(index), plays=plays, result=result))
    lines.extend(_bets(t, view))
    lines.extend(_seat_lines(t, view))
    if hand.HasField("turn") and not hand.ended:
        lines.append(w.say("table.turn", t.person(hand.turn), who=t.who(hand.turn), who_to=t.who(hand.turn, to=True)))
    return lines


def _bets(t: Teller, view: views_pb2.SeatView) -> list[str]:
    w, hand = t.w, view.public.hand
    bets = []
    if hand.envido_chain:
        bets.append(w.say("table.envido_chain", calls=", ".join(t.call(c) for c in hand.envido_chain)))
    if hand.HasField("envido_winner_seat"):
        bets.append(w.say("table.envido_won", who=t.who(hand.envido_winner_seat), points=hand.envido_winner_points))
    if hand.flor_sung:
        bets.append(w.say("table.flor_sung", seats=", ".join(t.who(s) for s in hand.flor_sung)))
    lines = [w.say("table.bets", bets="; ".join(bets))] if bets else []
    if hand.HasField("pending"):
        pending = hand.pending
        answerer = w.say("table.answer_ours" if pending.team != view.team else "table.answer_theirs")
        who, call = t.who(pending.seat), t.call(pending.call)
        lines.append(w.say("table.pending", t.person(pending.seat), who=who, call=call, answerer=answerer))
    if hand.perros_pending:
        lines.append(w.say("table.perros_pending", t.person(hand.perros_by), who=t.who(hand.perros_by)))
    return lines


def _seat_lines(t: Teller, view: views_pb2.SeatView) -> list[str]:
    """The reader's cards and tantos (or that it sits the hand out), and the señas it received."""
    w, hand = t.w, view.public.hand
    lines = []
    if view.cards:
        lines.append(w.say("table.cards", cards=" · ".join(t.card(c, hand.muestra) for c in own_cards(view))))
        tantos = tantos_line(w, view)
        if tantos:
            lines.append(tantos)
    elif not hand.ended:
        lines.append(w.say("table.sit_out"))
    if view.senas:
        items = [w.say("table.sena_item", who=t.who(s.seat), sena=sena_name(s.sena)) for s in view.senas]
        lines.append(w.say("table.senas", senas=", ".join(items)))
    return lines


# --- An option ----------------------------------------------------------------------------------------------------


def describe_action(w: Catalogue, command: commands_pb2.Command, muestra: cards_pb2.Card | None = None) -> str:
    """An option as the player reads it: ``jugar 2o (2 de oro, pieza)``, ``cantar truco``, ``quiero``..."""
    t = Teller(w)
    kind = command.WhichOneof("kind") or ""
    if kind == "play_card":
        return w.say("actions.play_card", card=t.card(command.play_card.card, muestra))
    if kind == "call":
        return w.say("actions.call", call=t.call(command.call.call))
    if kind == "answer":
        said, named = t.answer(command.answer.accept), command.answer.call
        return (
            w.say("actions.answer_named", said=said, call=t.call(named))
            if named
            else w.say("actions.answer", said=said)
        )
    if kind == "send_sena":
        return w.say("actions.send_sena", sena=sena_name(command.send_sena.sena))
    if kind == "answer_perros":
        answer = command.answer_perros
        return w.say(
            "actions.answer_perros", envido=t.answer(answer.accept_envido), truco=t.answer(answer.accept_truco)
        )
    return w.say(f"actions.{kind}" if kind in ("go_to_mazo", "call_perros", "skip_perros") else "actions.unknown")


# --- An event -----------------------------------------------------------------------------------------------------


def _by_seat(kind: str, **fields: Callable[[Any, Teller], object]) -> Callable[[Any, Teller], str]:
    """The line of an event about its ``seat``'s act: its variant for the reader or another, with ``who``."""

    def line(e: Any, t: Teller) -> str:
        values = {name: make(e, t) for name, make in fields.items()}
        return t.w.say(f"events.{kind}", t.person(e.seat), who=t.who(e.seat), **values)

    return line


def _dealt(e: events_pb2.HandDealt, t: Teller) -> str:
    pico = t.w.say("table.pico") if e.pico else ""
    return t.w.say("events.hand_dealt", t.person(e.dealer), number=e.number, pico=pico, who=t.who(e.dealer))


def _round(e: events_pb2.RoundEnded, t: Teller) -> str:
    if not e.HasField("winner_team"):
        return t.w.say("events.round_tied", n=e.round + 1, round=t.round(e.round))
    team, who = t.team(e.winner_team), t.who(e.winning_seat)
    return t.w.say("events.round_won", n=e.round + 1, round=t.round(e.round), team=team, who=who)


def _envido(e: events_pb2.EnvidoSettled, t: Teller) -> str:
    return t.w.say("events.envido_settled", t.person(e.winner_seat), who=t.who(e.winner_seat), points=e.points)


def _flor(e: events_pb2.FlorSettled, t: Teller) -> str:
    if not e.HasField("winner_seat"):
        return t.w.say("events.flor_uncontested")
    return t.w.say("events.flor_settled", t.person(e.winner_seat), who=t.who(e.winner_seat), points=e.points)


def _points(e: events_pb2.PointsScored, t: Teller) -> str:
    unit = t.w.say("events.point" if e.points == 1 else "events.points")
    reason = t.w.name("score_reasons", _enum_name(events_pb2.ScoreReason, e.reason))
    return t.w.say(
        "events.points_scored", t.side(e.team), team=t.team(e.team), points=e.points, unit=unit, reason=reason
    )


def _hand_ended(e: events_pb2.HandEnded, t: Teller) -> str:
    w = t.w
    items = [
        w.say("events.shown_item", who=t.who(s.seat), cards=" ".join(card_text(c) for c in s.cards)) for s in e.shown
    ]
    shown = w.say("events.shown", shown="; ".join(items)) if items else ""
    won = e.HasField("winner_team")
    taken = (
        w.say("events.hand_taken", t.side(e.winner_team), team=t.team(e.winner_team))
        if won
        else w.say("events.hand_over")
    )
    end = w.name("hand_ends", _enum_name(events_pb2.HandEnd, e.end))
    return w.say("events.hand_ended", taken=taken, end=end, shown=shown)


def _expired(e: events_pb2.ClockExpired, t: Teller) -> str:
    who, who_to = t.who(e.seat), t.who(e.seat, to=True)
    if e.forfeit:
        team = e.seat % 2
        if e.seat == t.me:
            return t.w.say("events.own_forfeit", team=t.team(team))
        return t.w.say("events.forfeit", t.side(team), who=who, who_to=who_to, team=t.team(team))
    return t.w.say("events.clock_expired", t.person(e.seat), who=who, who_to=who_to)


def _call(e: Any, t: Teller) -> str:
    return t.call(e.call)


_LINES: dict[str, Callable[[Any, Teller], str]] = {
    "hand_dealt": _dealt,
    "card_played": _by_seat("card_played", card=lambda e, t: t.card(e.card)),
    "call_made": _by_seat("call_made", call=_call),
    "call_accepted": _by_seat("call_accepted", call=_call),
    "call_declined": _by_seat("call_declined", call=_call),
    "round_ended": _round,
    "flor_sung": _by_seat("flor_sung"),
    "envido_voided": lambda _, t: t.w.say("events.envido_voided"),
    "envido_settled": _envido,
    "flor_settled": _flor,
    "perros_called": _by_seat("perros_called"),
    "perros_skipped": _by_seat("perros_skipped"),
    "perros_answered": _by_seat(
        "perros_answered", envido=lambda e, t: t.answer(e.accept_envido), truco=lambda e, t: t.answer(e.accept_truco)
    ),
    "went_to_mazo": _by_seat("went_to_mazo"),
    "sena_sent": _by_seat("sena_sent", sena=lambda e, t: sena_name(e.sena)),
    "points_scored": _points,
    "hand_ended": _hand_ended,
    "match_ended": lambda e, t: t.w.say("events.match_ended", t.side(e.winner_team), team=t.team(e.winner_team)),
    "clock_expired": _expired,
    "seat_left": _by_seat("seat_left"),
    "seat_resumed": _by_seat("seat_resumed"),
}
"""Each kind of event's line, from its own message (the match's start has none)."""


def describe_event(
    w: Catalogue, event: events_pb2.Event, me: int | None = None, labels: Labels | None = None
) -> str | None:
    """One line for an event as it happens (None for the match's start, which needs no line)."""
    kind = event.WhichOneof("kind") or ""
    line = _LINES.get(kind)
    return line(getattr(event, kind), Teller(w, me, labels)) if line is not None else None


def bot_labels(w: Catalogue, game: game_service_pb2.Game) -> dict[int, str]:
    """Seat labels from a game resource: "bot intermedio" for bot seats, the player's name for taken seats."""
    labels = {}
    for seat in game.seats:
        if seat.kind == game_service_pb2.SEAT_KIND_BOT:
            if seat.bot_level:
                kind = game_service_pb2.BotLevel.Name(seat.bot_level).removeprefix("BOT_LEVEL_").lower()
            else:
                kind = game_service_pb2.BotKind.Name(seat.bot).removeprefix("BOT_KIND_").lower()
            labels[seat.seat] = w.say("seats.bot", level=w.name("bot_levels", kind, level=kind))
        elif seat.player_name:
            labels[seat.seat] = seat.player_name
    return labels


__all__ = [
    "MATAS",
    "Teller",
    "bot_labels",
    "capital",
    "clock_line",
    "describe_action",
    "describe_event",
    "engine_card",
    "own_cards",
    "render_view",
    "score_line",
    "tantos_line",
]
