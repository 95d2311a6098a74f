"""Views (views.proto): what a seat or a spectator sees, to and from the engine's."""

from __future__ import annotations

from truco.engine import (
    SeatView,
    SpectatorView,
)
from truco.engine.state import Phase
from truco.engine.views import HandSummary, HandView, PendingCallView, Standing
from truco.wire.v1 import events_pb2, views_pb2

from .cards import card_from_pb, card_to_pb, cards_from_pb, cards_to_pb
from .commands import _CALL_TO_PB, _SENA_TO_PB, call_from_pb, command_from_pb, commands_to_pb, sena_from_pb
from .common import _enum_to_pb
from .events import _END_FROM_PB, _END_TO_PB, _SCORE_FROM_PB, _SCORE_TO_PB, _optional, proofs_from_pb, proofs_to_pb
from .rules import _rules_pb, rules_from_pb

_PHASE_TO_PB: dict[Phase, views_pb2.Phase] = _enum_to_pb(
    (phase for phase in Phase if phase is not Phase.NOT_STARTED), views_pb2.Phase, "PHASE_"
)
_PHASE_FROM_PB: dict[int, Phase] = {value: phase for phase, value in _PHASE_TO_PB.items()}
_STANDING_TO_PB = {Standing.MALAS: views_pb2.STANDING_MALAS, Standing.BUENAS: views_pb2.STANDING_BUENAS}
_STANDING_FROM_PB: dict[int, Standing] = {value: standing for standing, value in _STANDING_TO_PB.items()}


def phase_to_pb(phase: Phase) -> views_pb2.Phase:
    return _PHASE_TO_PB.get(phase, views_pb2.PHASE_UNSPECIFIED)


def hand_view_to_pb(hand: HandView) -> views_pb2.HandView:
    out = views_pb2.HandView()
    fill_hand_view(out, hand)
    return out


def fill_hand_view(out: views_pb2.HandView, hand: HandView) -> None:
    """Write ``hand`` into the empty message ``out`` (in place: a view is built where it is sent, never copied)."""
    out.number = hand.number
    out.dealer = hand.dealer
    out.mano = hand.mano
    out.seats.extend(hand.seats)
    out.pico = hand.pico
    out.muestra.CopyFrom(card_to_pb(hand.muestra))
    out.commitment = hand.commitment
    for seat, count in hand.cards_left:
        out.cards_left.add(seat=seat, count=count)
    out.truco_value = hand.truco_value
    out.envido_chain.extend([_CALL_TO_PB[c] for c in hand.envido_chain])
    out.envido_closed = hand.envido_closed
    out.flor_sung.extend(hand.flor_sung)
    out.flor_chain.extend([_CALL_TO_PB[c] for c in hand.flor_chain])
    out.perros_pending = hand.perros_pending
    out.points.extend(hand.points)
    out.ended = hand.ended
    for seat, cards in hand.shown:
        out.shown.add(seat=seat, cards=cards_to_pb(cards))
    out.commitments.extend(hand.commitments)
    out.proofs.extend(proofs_to_pb(hand.proofs))
    out.pending_calls.extend([_pending_to_pb(p) for p in hand.pending_calls])
    for index, plays in enumerate(hand.rounds):
        finished = index < len(hand.results)
        round_pb = out.rounds.add(finished=finished)
        for seat, card in plays:
            round_pb.plays.add(seat=seat, card=card_to_pb(card))
        winner = hand.results[index] if finished else None
        if winner is not None:
            round_pb.winner_team = winner
    if hand.turn is not None:
        out.turn = hand.turn
    if hand.truco_owner is not None:
        out.truco_owner = hand.truco_owner
    if hand.pending is not None:
        out.pending.CopyFrom(_pending_to_pb(hand.pending))
    if hand.envido_winner is not None:
        out.envido_winner_seat, out.envido_winner_points = hand.envido_winner
    if hand.flor_winner is not None:
        out.flor_winner_seat, out.flor_winner_points = hand.flor_winner
    if hand.perros_by is not None:
        out.perros_by = hand.perros_by
    if hand.winner_team is not None:
        out.winner_team = hand.winner_team


def _pending_to_pb(pending: PendingCallView) -> views_pb2.PendingCall:
    return views_pb2.PendingCall(
        call=_CALL_TO_PB[pending.call], seat=pending.seat, team=pending.team, value=pending.value
    )


def _pending_from_pb(message: views_pb2.PendingCall) -> PendingCallView:
    return PendingCallView(call_from_pb(message.call), message.seat, message.team, message.value)


def hand_summary_to_pb(summary: HandSummary) -> views_pb2.HandSummary:
    out = views_pb2.HandSummary(
        number=summary.number,
        rounds=[
            views_pb2.RoundResult(winner_team=w) if w is not None else views_pb2.RoundResult() for w in summary.results
        ],
        points=list(summary.points),
        scored=[views_pb2.HandScore(team=t, points=p, reason=_SCORE_TO_PB[r]) for t, p, r in summary.scored],
        shown=[events_pb2.ShownHand(seat=s, cards=cards_to_pb(c)) for s, c in summary.shown],
        proofs=proofs_to_pb(summary.proofs),
    )
    if summary.winner_team is not None:
        out.winner_team = summary.winner_team
    if summary.end is not None:
        out.end = _END_TO_PB[summary.end]
    if summary.envido_winner is not None:
        out.envido_winner_seat, out.envido_winner_points = summary.envido_winner
    if summary.flor_winner is not None:
        out.flor_winner_seat, out.flor_winner_points = summary.flor_winner
    return out


def hand_summary_from_pb(message: views_pb2.HandSummary) -> HandSummary:
    """The engine's summary of a protobuf one (the inverse of :func:`hand_summary_to_pb`)."""
    return HandSummary(
        number=message.number,
        winner_team=_optional(message, "winner_team"),
        end=_END_FROM_PB.get(message.end),
        results=tuple(_optional(r, "winner_team") for r in message.rounds),
        points=(message.points[0], message.points[1]) if len(message.points) == 2 else (0, 0),
        scored=tuple((s.team, s.points, _SCORE_FROM_PB[s.reason]) for s in message.scored),
        shown=tuple((s.seat, cards_from_pb(s.cards)) for s in message.shown),
        proofs=proofs_from_pb(message.proofs),
        envido_winner=(
            (message.envido_winner_seat, message.envido_winner_points)
            if message.HasField("envido_winner_seat")
            else None
        ),
        flor_winner=(
            (message.flor_winner_seat, message.flor_winner_points) if message.HasField("flor_winner_seat") else None
        ),
    )


def match_view_to_pb(view: SpectatorView, game: str) -> views_pb2.MatchView:
    out = views_pb2.MatchView()
    fill_match_view(out, view, game)
    return out


def fill_match_view(out: views_pb2.MatchView, view: SpectatorView, game: str) -> None:
    """Write the public view of ``game`` into the empty message ``out``, in place."""
    out.game = game
    out.rules.CopyFrom(_rules_pb(view.rules))
    out.version = view.version
    out.phase = phase_to_pb(view.phase)
    for team in (0, 1):
        out.scores.add(team=team, points=view.scores[team], standing=_STANDING_TO_PB[view.standings[team]])
    out.to_act.extend(view.to_act)
    if view.hand is not None:
        fill_hand_view(out.hand, view.hand)
    if view.winner is not None:
        out.winner_team = view.winner
    if view.last_hand is not None:
        out.last_hand.CopyFrom(hand_summary_to_pb(view.last_hand))


def seat_view_to_pb(view: SeatView, game: str) -> views_pb2.SeatView:
    out = views_pb2.SeatView()
    fill_seat_view(out, view, game)
    return out


def fill_seat_view(out: views_pb2.SeatView, view: SeatView, game: str) -> None:
    """Write ``view``, the seat's view of ``game``, into the empty message ``out``, in place."""
    fill_match_view(out.public, view.public, game)
    fill_seat_fields(out, view)


def fill_seat_fields(out: views_pb2.SeatView, view: SeatView) -> None:
    """Write what is the seat's own in ``view`` (all but ``public``) into ``out``, in place: a server that has the
    public view's bytes already appends them (a message's bytes are the concatenation of its fields')."""
    out.seat = view.seat
    out.team = view.team
    out.cards.extend(cards_to_pb(view.cards))
    for seat, sena in view.senas:
        out.senas.add(seat=seat, sena=_SENA_TO_PB[sena])
    out.legal_actions.extend(commands_to_pb(view.legal_actions))
    out.own_proofs.extend(proofs_to_pb(view.own_proofs))
    if view.envido is not None:
        out.envido = view.envido
    if view.flor is not None:
        out.flor = view.flor


def hand_view_from_pb(message: views_pb2.HandView) -> HandView:
    """The engine's hand view of a protobuf one (the inverse of :func:`hand_view_to_pb`)."""
    stack = tuple(_pending_from_pb(p) for p in message.pending_calls)
    return HandView(
        number=message.number,
        dealer=message.dealer,
        mano=message.mano,
        seats=tuple(message.seats),
        pico=message.pico,
        muestra=card_from_pb(message.muestra, "muestra"),
        commitment=message.commitment,
        rounds=tuple(tuple((p.seat, card_from_pb(p.card)) for p in r.plays) for r in message.rounds if r.plays),
        results=tuple(_optional(r, "winner_team") for r in message.rounds if r.finished),
        turn=_optional(message, "turn"),
        cards_left=tuple((c.seat, c.count) for c in message.cards_left),
        truco_value=message.truco_value,
        truco_owner=_optional(message, "truco_owner"),
        pending=_pending_from_pb(message.pending) if message.HasField("pending") else None,
        envido_chain=tuple(call_from_pb(c) for c in message.envido_chain),
        envido_closed=message.envido_closed,
        envido_winner=(
            (message.envido_winner_seat, message.envido_winner_points)
            if message.HasField("envido_winner_seat")
            else None
        ),
        flor_sung=tuple(message.flor_sung),
        flor_chain=tuple(call_from_pb(c) for c in message.flor_chain),
        flor_winner=(
            (message.flor_winner_seat, message.flor_winner_points) if message.HasField("flor_winner_seat") else None
        ),
        perros_by=_optional(message, "perros_by"),
        perros_pending=message.perros_pending,
        points=(message.points[0], message.points[1]) if len(message.points) == 2 else (0, 0),
        ended=message.ended,
        winner_team=_optional(message, "winner_team"),
        shown=tuple((s.seat, cards_from_pb(s.cards)) for s in message.shown),
        pending_calls=stack,
        commitments=tuple(message.commitments),
        proofs=proofs_from_pb(message.proofs),
    )


def match_view_from_pb(message: views_pb2.MatchView) -> SpectatorView:
    """The engine's spectator view of a protobuf match view. ``next_dealer`` is not on the wire: None."""
    scores = {s.team: s.points for s in message.scores}
    standings = {s.team: _STANDING_FROM_PB.get(s.standing, Standing.MALAS) for s in message.scores}
    return SpectatorView(
        rules=rules_from_pb(message.rules),
        version=message.version,
        phase=_PHASE_FROM_PB.get(message.phase, Phase.NOT_STARTED),
        scores=(scores.get(0, 0), scores.get(1, 0)),
        standings=(standings.get(0, Standing.MALAS), standings.get(1, Standing.MALAS)),
        hand=hand_view_from_pb(message.hand) if message.HasField("hand") else None,
        to_act=tuple(message.to_act),
        next_dealer=None,
        winner=_optional(message, "winner_team"),
        last_hand=hand_summary_from_pb(message.last_hand) if message.HasField("last_hand") else None,
    )


def seat_view_from_pb(message: views_pb2.SeatView) -> SeatView:
    """The engine's seat view of a protobuf one: what a bot of :mod:`truco.bots` reads, made of what the seat
    may see and nothing more (the inverse of :func:`seat_view_to_pb`, but for ``next_dealer``)."""
    return SeatView(
        seat=message.seat,
        team=message.team,
        public=match_view_from_pb(message.public),
        cards=cards_from_pb(message.cards),
        envido=_optional(message, "envido"),
        flor=_optional(message, "flor"),
        senas=tuple((s.seat, sena_from_pb(s.sena)) for s in message.senas),
        legal_actions=tuple(command_from_pb(a, message.seat) for a in message.legal_actions),
        own_proofs=proofs_from_pb(message.own_proofs),
    )
