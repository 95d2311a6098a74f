"""The expert's envido, flor and perros decisions in 2 players: the solved equilibrium's.

The equilibrium is :mod:`truco.bots.envido_table`'s.

A search over imagined worlds plays the envido only as well as the rivals it imagines (a falta it expects to be
accepted by 26s pays); the equilibrium needs no rival model and cannot be exploited by more than its measured
gain. So, with two players, every decision of the envido and the flor is looked up: the seat's points, whether
it is mano, the chain so far and the falta's value give a row of the table, and the action is drawn from it with
the bot's own random source (a decision still depends on the view and the seed alone). A "pass" at an opening
leaves the search to choose among the non-envido actions (a card, a truco, the mazo), and so does the pie's
"sing" in a flor contest (its flor is sung with whatever it plays). Perros answers take the
envido half from the table and leave the truco half to the search.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from truco.engine import Answer, AnswerPerros, Call, CallKind, Family, Phase, SeatCommand, SeatView, team_of
from truco.engine.envido import falta

from .envido_game import KINDS, MANO, PASS, PIE, SING, envido_key, flor_key
from .envido_table import perros_accepts, row

PLAYERS: Final = 2
"""The games are solved for two players; with partners the search decides."""
OPENINGS: Final = {MANO: envido_key(None, ()), PIE: envido_key(None, (CallKind.ENVIDO,))}
"""The opening decisions: the mano's, and the pie's once the mano has passed."""


def follow(candidates: Sequence[SeatCommand], view: SeatView, rng: random.Random) -> list[SeatCommand]:
    """The candidates the equilibrium leaves: one action when the table decides, the non-envido actions when
    it passes, the perros answers with its envido half, or all of them when no envido decision is at hand."""
    public = view.public
    hand = public.hand
    if public.rules.players != PLAYERS or public.phase is not Phase.PLAYING or hand is None:
        return list(candidates)
    if hand.perros_pending:
        return _perros(candidates, view)
    role = MANO if hand.mano == view.seat else PIE
    decision = _opening(candidates, hand.envido_chain, hand.flor_chain, role) or _decision(view, role)
    if decision is None:
        return list(candidates)
    contest, key = decision
    points = view.flor if contest else view.envido
    if points is None:
        return list(candidates)
    scores = public.scores
    value = min(falta(public.rules, scores, hand.pico, team) for team in (0, 1))
    found = row(public.rules.flor, value, contest, key, points)
    if found is None:
        return list(candidates)
    return _apply(found.pick(rng.random()), candidates)


def _opening(
    candidates: Sequence[SeatCommand], envido: Sequence[CallKind], flor: Sequence[CallKind], role: int
) -> tuple[bool, str] | None:
    """The opening decision the seat's candidates offer: the envido's (the mano's, or the pie's once the mano
    passed), or the pie's in a flor contest (sing its flor, or raise at once)."""
    families = {a.call.family for a in candidates if isinstance(a, Call)}
    if Family.ENVIDO in families and not envido:
        return False, OPENINGS[role]
    if Family.FLOR in families and not flor and role == PIE:
        return True, flor_key(None)
    return None


def _decision(view: SeatView, role: int) -> tuple[bool, str] | None:
    """(whether it is the flor contest, the decision's key) for the seat's decision now, if the games have it
    with the seat in the role they give it."""
    hand = view.public.hand
    assert hand is not None
    pending = hand.pending
    if pending is None or pending.team == view.team:
        return None
    family = pending.call.family
    if pending.call is CallKind.FLOR:
        return (True, flor_key(None, (CallKind.FLOR,))) if role == MANO else None
    if family not in (Family.FLOR, Family.ENVIDO):
        return None
    chain = hand.flor_chain if family is Family.FLOR else hand.envido_chain
    opener_team = pending.team if len(chain) % 2 == 1 else 1 - pending.team
    opener = MANO if opener_team == team_of(hand.mano) else PIE
    if family is Family.FLOR:
        return True, flor_key(opener, chain)
    return False, envido_key(opener, chain)


def _apply(action: str, candidates: Sequence[SeatCommand]) -> list[SeatCommand]:
    """The candidates ``action`` of the table stands for."""
    if action in (PASS, SING):
        family = Family.ENVIDO if action == PASS else Family.FLOR
        kept = [a for a in candidates if not (isinstance(a, Call) and a.call.family is family)]
        return kept or list(candidates)
    for candidate in candidates:
        if isinstance(candidate, Answer) and action in ("Q", "N") and candidate.accept == (action == "Q"):
            return [candidate]
        if isinstance(candidate, Call) and KINDS.get(action) is candidate.call:
            return [candidate]
    return list(candidates)  # an action the engine does not offer here: the search decides


def _perros(candidates: Sequence[SeatCommand], view: SeatView) -> list[SeatCommand]:
    public = view.public
    hand = public.hand
    assert hand is not None
    has_flor = view.flor is not None
    points = view.flor if view.flor is not None else view.envido
    if points is None:
        return list(candidates)
    value = min(falta(public.rules, public.scores, hand.pico, team) for team in (0, 1))
    accept = perros_accepts(public.rules.flor, value, points, has_flor)
    kept: list[SeatCommand] = [a for a in candidates if isinstance(a, AnswerPerros) and a.accept_envido == accept]
    return kept or list(candidates)
