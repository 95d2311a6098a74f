"""The expert: a determinized Monte Carlo search from the seat's view alone.

For each decision it imagines worlds: the other seats' hands guessed from everything its view shows
(:mod:`truco.bots.beliefs`: the cards played, the envido and flor points sung, who sang flor and who could have
and did not, a partner's señas, and the rivals' bets as a player reads them). Each world becomes a full table
(:func:`truco.engine.determinize`), on which every candidate action is tried and the hand played out by sound
players (:mod:`truco.bots.playout`). An outcome is worth the chance of winning the *match* from the score it
leaves (:mod:`truco.bots.match_odds`): so a falta envido at 28 to 10, a point en malas and a point at 29 are
weighed as the score makes them. The action with the best average wins; the weakest half of the candidates is
dropped after each round of worlds, so the budget goes to the close calls (sequential halving), and every
candidate is tried on the same worlds (luck cancels between them).

The budget is a number of playouts per decision, so a decision is a function of the view and the seed alone
(``seconds`` adds a time cap, which makes it depend on the machine's speed too). With a partner it sends its
best señas first, and reads the partner's.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from typing import Final

from truco.engine import (
    Answer,
    AnswerPerros,
    Call,
    CallKind,
    Card,
    GoToMazo,
    MatchState,
    Phase,
    PlayCard,
    SeatCommand,
    SeatView,
    Sena,
    SendSena,
    SkipPerros,
    determinize,
    execute_legal,
    strength,
    team_of,
)
from truco.engine.senas import true_senas

from .base import ViewSource, current_round
from .beliefs import Sampler
from .envido_policy import follow
from .match_odds import win_chance
from .playout import Policy, choose, play_out, released_choose
from .sure import accept_sure_truco, raise_sure_truco

DEFAULT_PLAYOUTS: Final = 400
"""Playouts per decision: about 20 ms (median) on the compiled build for a 2-player decision (bench/README.md)."""
MIN_WORLDS: Final = 6
"""Fewest worlds each candidate is tried on in a round of the halving."""
NOISE: Final = 1.0
"""Standard errors (paired over the same worlds) within which two values are taken as a tie."""
KEEP_NOISE: Final = 2.0
"""Standard errors within which a candidate is kept for more worlds although it is not in the better half."""
EPSILON: Final = 1e-9
TABLE_SALT: Final = 0x5EED_E4F1D0
"""Mixed into the decision's seed for the equilibrium's draws, so they are not the search's first numbers."""
CALL_ORDER: Final = (
    CallKind.ENVIDO,
    CallKind.TRUCO,
    CallKind.REAL_ENVIDO,
    CallKind.RETRUCO,
    CallKind.CON_FLOR_ENVIDO,
    CallKind.CONTRA_FLOR,
    CallKind.VALE_CUATRO,
    CallKind.FALTA_ENVIDO,
    CallKind.CONTRA_FLOR_AL_RESTO,
)
"""Calls from the cheapest to the dearest, for breaking ties between bets."""
SENAS_PER_HAND: Final = 2
"""Señas sent to partners each hand: the best card, and the envido or the next card."""
SENA_ORDER: Final = (
    Sena.PIEZA_2,
    Sena.PIEZA_4,
    Sena.PIEZA_5,
    Sena.PIEZA_11,
    Sena.PIEZA_10,
    Sena.MATA_1,
    Sena.MATA_7,
    Sena.ENVIDO,
    Sena.CHICA_3,
    Sena.CHICA_2,
    Sena.CHICA_1,
    Sena.NEGRAS,
)
"""Which señas tell a partner most, most first."""


class ExpertBot:
    """Searches each decision over guessed hands (see the module's description).

    :param playouts: hands played out per decision (the budget); at least one per candidate action.
    :param seconds: an optional time cap per decision, on top of the budget (decisions then depend on speed).
    :param released: play as the expert released before the gauntlet: imagined players that answer bets by
        their points alone (:func:`truco.bots.playout.released_choose`) and the first of the best-valued actions
        taken, however small the margin.
    """

    name = "expert"

    def __init__(self, playouts: int = DEFAULT_PLAYOUTS, seconds: float | None = None, released: bool = False) -> None:
        self.playouts = playouts
        self.seconds = seconds
        self.released = released
        self.policy: Policy = released_choose if released else choose

    def choose(self, actions: Sequence[SeatCommand], view: ViewSource, rng: random.Random) -> SeatCommand:
        seed = rng.getrandbits(64)
        seat_view = view()
        sena = sena_to_send(actions, seat_view)
        if sena is not None:
            return sena
        candidates: list[SeatCommand] = [action for action in actions if not isinstance(action, SendSena)]
        if not self.released:
            # The envido and flor of two players are solved: the table decides them (envido_policy.py).
            candidates = follow(candidates, seat_view, random.Random(seed ^ TABLE_SALT))
            bet = raise_sure_truco(candidates, seat_view)
            if bet is not None:
                return bet  # a sure hand: declined the raise pays what a quiero would, accepted more
        if not self.released:
            candidates = keep_strength(candidates, seat_view)
        if not self.released and _cheap_to_play_on(seat_view):
            candidates = [a for a in candidates if not isinstance(a, GoToMazo)] or candidates
        if not self.released and accept_sure_truco(candidates, seat_view) is not None:
            # A sure hand: declining or leaving it is never right, whatever the sampling says.
            candidates = [a for a in candidates if not isinstance(a, (GoToMazo, Answer)) or _accepts(a)]
        if len(candidates) <= 1:
            return candidates[0] if candidates else actions[0]
        return self.search(seat_view, candidates, random.Random(seed))

    def search(self, view: SeatView, candidates: Sequence[SeatCommand], rng: random.Random) -> SeatCommand:
        """The candidate with the best average chance of winning the match over the imagined worlds; of those
        the search cannot tell apart, the one that spends least (see :func:`pick`)."""
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        playing = view.public.phase is Phase.PLAYING and view.public.hand is not None
        sampler = Sampler(view) if playing else None
        team = view.team
        target = view.public.rules.target
        worlds: list[tuple[MatchState, int]] = []
        values: list[list[float]] = [[] for _ in candidates]
        alive = list(range(len(candidates)))
        rounds = max(1, math.ceil(math.log2(len(candidates))))
        budget = max(self.playouts, len(candidates))
        tried = 0  # worlds every live candidate has been tried on
        for round_ in range(rounds):
            share = (budget // rounds) if round_ < rounds - 1 else budget
            count = max(MIN_WORLDS, share // len(alive))
            budget -= count * len(alive)
            while len(worlds) < tried + count:
                hidden = sampler.draw(rng) if sampler is not None else {}
                worlds.append((determinize(view, hidden), rng.getrandbits(32)))
            for state, deal_seed in worlds[tried : tried + count]:
                for index in alive:
                    values[index].append(_playout_value(state, candidates[index], deal_seed, team, target, self.policy))
                if deadline is not None and time.perf_counter() > deadline:
                    break
            tried += count
            alive.sort(key=lambda i: (-sum(values[i]), i))
            if round_ < rounds - 1:
                alive = self._halve(alive, values)
            if budget <= 0 or (deadline is not None and time.perf_counter() > deadline):
                break
        if self.released:
            return candidates[min(alive, key=lambda i: (-sum(values[i]), i))]
        return candidates[pick(candidates, alive, values, view)]


    def _halve(self, alive: list[int], values: Sequence[Sequence[float]]) -> list[int]:
        """The better half of ``alive`` (sorted best first) for the next round of worlds, and any other the worlds
        so far cannot tell from the best (within :data:`KEEP_NOISE` paired standard errors): a close call is
        settled on more worlds, not dropped on the first few."""
        kept = alive[: max(2, (len(alive) + 1) // 2)]
        if self.released:
            return kept
        best = values[alive[0]]
        return kept + [i for i in alive[len(kept) :] if not _worse(values[i], best, KEEP_NOISE)]


def _cheap_to_play_on(view: SeatView) -> bool:
    """Whether the mazo would be a fold before the seat's first card of a hand nobody has bet on: playing on
    risks no more than the point the mazo gives away (a truco can still be declined), and a strong player does
    not fold there. The search would weigh a rival's envido to come against it, which is noise at that point."""
    hand = view.public.hand
    if hand is None or hand.pending is not None or hand.truco_value > 1 or hand.truco_owner is not None:
        return False
    return not any(seat == view.seat for plays in hand.rounds for seat, _ in plays)


def keep_strength(candidates: Sequence[SeatCommand], view: SeatView) -> list[SeatCommand]:
    """``candidates`` without the cards that would take the round when a cheaper card of the seat's own takes it
    too, once no rival is left to play in it (a partner's card may be the one to beat). Either way the seat wins
    the round and leads the next; the cheaper keeps the stronger card for the rounds to come, where in the card
    play it does at least as well whatever the others hold (what the card shown tells the table differs, which a
    sound player does not weigh against a sure card). So this is a rule, not a value to sample: the search took
    a dearer mata or pieza on the noise of its worlds in 0.53 % of its responding plays in four players
    (bench/journal/2026-12-06-gauntlet.md)."""
    hand = view.public.hand
    if hand is None:
        return list(candidates)
    current = current_round(hand)
    played = {seat for seat, _ in current}
    if not current or any(team_of(s) != view.team and s not in played for s in hand.seats):
        return list(candidates)
    muestra = hand.muestra
    table = max(strength(card, muestra) for _, card in current)
    winners = [strength(a.card, muestra) for a in candidates if isinstance(a, PlayCard)]
    cheapest = min((power for power in winners if power > table), default=None)
    if cheapest is None:
        return list(candidates)
    return [a for a in candidates if not isinstance(a, PlayCard) or strength(a.card, muestra) <= cheapest]


def _accepts(action: SeatCommand) -> bool:
    return isinstance(action, Answer) and action.accept


def pick(
    candidates: Sequence[SeatCommand], alive: Sequence[int], values: Sequence[Sequence[float]], view: SeatView
) -> int:
    """The index of the candidate to play: the cheapest (:func:`cost`) of those whose value the search cannot
    tell from the best one's (paired over the same worlds, within :data:`NOISE` standard errors), so ties and
    near-ties keep strength in hand instead of falling to the order the actions were listed in. The mazo is
    never taken while another candidate does as well in every world."""
    hand = view.public.hand
    muestra = hand.muestra if hand is not None else None
    sound = sound_play(candidates, view)
    count = min(len(values[i]) for i in alive)
    best = max(alive, key=lambda i: (sum(values[i][:count]), -cost(candidates[i], muestra, sound)))
    close = [i for i in alive if not _worse(values[i][:count], values[best][:count])]
    if any(isinstance(candidates[i], GoToMazo) for i in close):
        close = [i for i in close if not isinstance(candidates[i], GoToMazo) or not _dominated(i, close, values, count)]
    return min(close, key=lambda i: (cost(candidates[i], muestra, sound), -sum(values[i][:count]), i))


def _worse(these: Sequence[float], best: Sequence[float], noise: float = 0.0) -> bool:
    """Whether ``these`` values are worse than ``best`` beyond the noise of the worlds they were paired on."""
    n = len(best)
    diffs = [b - t for t, b in zip(these, best, strict=True)]
    mean = sum(diffs) / n
    if mean <= EPSILON:
        return False
    if n < 2:
        return True
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean > (noise or NOISE) * math.sqrt(variance / n)


def _dominated(index: int, others: Sequence[int], values: Sequence[Sequence[float]], count: int) -> bool:
    return any(
        other != index and all(v >= w for v, w in zip(values[other][:count], values[index][:count], strict=True))
        for other in others
    )


def sound_play(candidates: Sequence[SeatCommand], view: SeatView) -> PlayCard | None:
    """The card a sound player answers a rival's card with: the cheapest that takes the round, or its lowest when
    none does or a partner's card already leads (None when the seat leads the round, or plays no card)."""
    hand = view.public.hand
    plays = [a for a in candidates if isinstance(a, PlayCard)]
    if hand is None or not plays:
        return None
    current = current_round(hand)
    if not current:
        return None
    muestra = hand.muestra
    plays.sort(key=lambda a: strength(a.card, muestra))
    seat, card = max(current, key=lambda played: strength(played[1], muestra))
    table = strength(card, muestra)
    if team_of(seat) == view.team:
        return plays[0]
    return next((a for a in plays if strength(a.card, muestra) > table), plays[0])


def cost(action: SeatCommand, muestra: Card | None, sound: PlayCard | None = None) -> float:
    """What an action spends, for breaking ties: the sound answer to a rival's card nothing, any other card its
    strength (the cheapest first), an answer more (a quiero before a no quiero: a sure win is never declined), a
    bet more, the mazo most."""
    if isinstance(action, PlayCard):
        if action == sound:
            return -1.0
        return float(strength(action.card, muestra)) if muestra is not None else 0.0
    if isinstance(action, Answer):
        return 50.0 if action.accept else 51.0
    if isinstance(action, (AnswerPerros, SkipPerros)):
        return 52.0
    if isinstance(action, Call):
        return 60.0 + CALL_ORDER.index(action.call) if action.call in CALL_ORDER else 70.0
    if isinstance(action, GoToMazo):
        return 100.0
    return 80.0


def _playout_value(
    state: MatchState, action: SeatCommand, deal_seed: int, team: int, target: int, policy: Policy
) -> float:
    """The chance of winning the match after ``action`` and the hand played out in a copy of ``state``."""
    imagined = state.copy()
    execute_legal(imagined, action)
    play_out(imagined, random.Random(deal_seed), policy)
    if imagined.phase is Phase.MATCH_OVER:
        return 1.0 if imagined.winner == team else 0.0
    scores = imagined.scores
    return win_chance(target, scores[team], scores[1 - team])


def sena_to_send(actions: Sequence[SeatCommand], view: SeatView) -> SendSena | None:
    """The seña worth sending a partner now, if any: the most telling one true of the seat's cards, while it has
    sent fewer than :data:`SENAS_PER_HAND` this hand."""
    allowed = {action.sena: action for action in actions if isinstance(action, SendSena)}
    hand = view.public.hand
    if not allowed or hand is None:
        return None
    sent = len(true_senas(view.cards, hand.muestra) - set(allowed))
    if sent >= SENAS_PER_HAND:
        return None
    for sena in SENA_ORDER:
        if sena in allowed:
            return allowed[sena]
    return None
