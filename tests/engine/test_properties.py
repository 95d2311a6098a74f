"""Property-based tests of the rules engine: whole random matches under random rule sets.

Hypothesis draws a rule set (2, 4 or 6 players, every target and variant), a seed and a playing style; the
match is then played to its end by a seeded random player: when nobody is to act it deals a deck shuffled
by ``random.Random(seed)`` with a random 32-hex salt, otherwise a random actor sends a random legal command
(weighted by the style), and now and then another seat sends a seña. A failure carries notes naming the
rule set, the seed, the style and the commands played, which replay the match exactly.

Checked at every step of every match:

- the match waits for a deal exactly when nobody is to act; an actor always has a legal action;
- every deal holds 3·n + 1 distinct cards of the deck (n = 2 in pico a pico), dealt one at a time from the
  mano, the muestra in no hand; the end of a hand shows only the envido and flor hands, never the order;
- points only grow, the PointsScored of each team add up to the scoreboard, no score passes the target;
- the state equals the fold of the events (kept alongside, event by event); at random steps and at the end
  ``fold`` and ``Game.from_events`` rebuild it from scratch; on a quarter of the steps ``decide`` (pure)
  gives the events ``execute`` then gives, and leaves its input unchanged;
- ``event_for`` never shows a deal's order or secret, a rival's seña or another seat's unplayed card, and a
  seña changes nothing the spectator or the sender's rivals see; every proof it gives opens the deal's
  commitment, and no projection holds the salt of a deck position the seat may not know (a card never seen
  stays sealed: the salt is all that would open its commitment);
- the match ends within a bounded number of commands with exactly one team at the target.

The views tests add, at every step and for every seat, ``seat_view`` and ``spectator_view`` scanned for
cards (no other seat's unplayed card outside ``shown`` of an ended hand), sealed salts and señas,
and every seat's legal actions (non-actors may only send señas). The refusal tests add, at random steps,
every command a random seat (valid or not) could send, and deals: accepted on a copy iff legal, refused
with RuleViolation (InvalidCommand when malformed) leaving the state equal to a snapshot, refusals naming
no hidden card. ``TRUCO_PROPERTY_SCALE=N`` multiplies the number of matches.

A perft-style count of legal action sequences (as in python-chess) pins the move generator on a scripted
deal.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import os
import random
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import hypothesis
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from truco.engine import (
    DECK,
    Answer,
    AnswerPerros,
    Call,
    CallKind,
    CallPerros,
    Card,
    Command,
    CommandError,
    Deal,
    Event,
    FaltaEnvido,
    Family,
    Game,
    GoToMazo,
    HandEnd,
    InvalidCommand,
    MatchState,
    Phase,
    PlayCard,
    Reason,
    RuleSet,
    RuleViolation,
    SeatCommand,
    Sena,
    SendSena,
    SkipPerros,
    actors,
    decide,
    event_for,
    evolve,
    execute,
    fold,
    is_legal,
    legal_actions,
    order_for_hands,
    parse_cards,
    seat_view,
    spectator_view,
    team_of,
    violation,
)
from truco.engine.deal import CardProof, card_salt, deal_commitments, verify
from truco.engine.events import (
    CallAccepted,
    CardPlayed,
    EnvidoSettled,
    FlorSettled,
    HandDealt,
    HandEnded,
    MatchEnded,
    PerrosCalled,
    PointsScored,
    RoundEnded,
    SenaSent,
)
from truco.engine.rules import VALID_TARGETS
from truco.engine.state import HandState
from truco.engine.views import HandView, SeatView, SpectatorView

MAX_STEPS = 20_000
"""No match may need more commands: every hand scores at least one point (so at most 2·60 − 1 hands) and a
hand of six takes at most a few dozen commands (18 cards, the calls and answers, once-a-hand señas)."""

FOLD_CHECK_PROBABILITY = 0.01
"""How often, besides the end of the match, the whole event log is re-folded (``fold`` and
``Game.from_events``) and compared with the state. The fold is also kept up to date one event at a time
and compared at every step."""

SEALED_VIEW_CHECK_PROBABILITY = 0.2
"""How often every view is also scanned (as text) for the salt of a card its receiver never saw; every event
projection is scanned at every step."""

DECIDE_CHECK_PROBABILITY = 0.25
"""How often the command about to be executed is first decided with the pure ``decide`` (it copies the
state, the slowest part of a step)."""


@dataclass(frozen=True, slots=True)
class Examples:
    """Random matches per table size: with the rules properties only, with every view checked at every
    step, and with the refusal probes."""

    rules: int
    views: int
    refusals: int


EXAMPLES = {
    2: Examples(rules=900, views=100, refusals=60),
    4: Examples(rules=500, views=60, refusals=40),
    6: Examples(rules=320, views=40, refusals=30),
}

SCALE = float(os.environ.get("TRUCO_PROPERTY_SCALE", "1"))
"""Multiplies every number of examples: ``TRUCO_PROPERTY_SCALE=20 pytest tests/engine/test_properties.py`` hunts
longer (about 20 times the default half minute)."""

PROBE_SEATS_EXTRA = (-1, 7)
"""Seats no match has, probed besides 0..players (``players`` itself is out of range too)."""


# --- Strategies ---------------------------------------------------------------------------------------------


def rule_sets(players: int) -> st.SearchStrategy[RuleSet]:
    """Every rule set for ``players``: any target and any combination of variants."""
    return st.builds(
        RuleSet,
        players=st.just(players),
        target=st.sampled_from(VALID_TARGETS),
        falta_envido=st.sampled_from(FaltaEnvido),
        flor=st.booleans(),
        pico_a_pico=st.booleans(),
        perros=st.booleans(),
        senas=st.booleans(),
    )


@dataclass(frozen=True, slots=True)
class Style:
    """How the random player weighs the kinds of legal commands (0 = only when nothing else is legal).

    Uniform choices make short matches full of calls and mazos; drawing the weights also gives long hands of
    three rounds, pardas, long envido and flor chains and hands that end only on cards. Calls keep a weight
    of at least 1: a match without any (a point a hand) is long to play and adds nothing new.
    """

    play: int
    truco: int
    bet: int
    accept: int
    decline: int
    mazo: int
    sena: int
    perros: int
    side_sena: float
    """Probability, at each step, that a seat other than the chosen actor first sends a seña."""

    def weight(self, command: SeatCommand) -> int:
        if isinstance(command, PlayCard):
            return self.play
        if isinstance(command, Call):
            return self.truco if command.call.family is Family.TRUCO else self.bet
        if isinstance(command, Answer):
            return self.accept if command.accept else self.decline
        if isinstance(command, GoToMazo):
            return self.mazo
        if isinstance(command, SendSena):
            return self.sena
        return self.perros


weights = st.integers(min_value=0, max_value=5)
styles: st.SearchStrategy[Style] = st.builds(
    Style,
    play=st.integers(min_value=1, max_value=8),
    truco=st.integers(min_value=1, max_value=5),
    bet=st.integers(min_value=1, max_value=5),
    accept=weights,
    decline=weights,
    mazo=st.integers(min_value=0, max_value=2),
    sena=weights,
    perros=st.integers(min_value=1, max_value=3),
    side_sena=st.sampled_from((0.0, 0.1, 0.3)),
)
seeds = st.integers(min_value=0, max_value=2**64 - 1)


# --- The random player --------------------------------------------------------------------------------------


def random_deal(rng: random.Random) -> Deal:
    order = list(DECK)
    rng.shuffle(order)
    return Deal(tuple(order), f"{rng.getrandbits(128):032x}")


def pick(rng: random.Random, actions: Sequence[SeatCommand], style: Style) -> SeatCommand:
    weighted = [style.weight(action) for action in actions]
    if sum(weighted) == 0:
        return rng.choice(actions)
    return rng.choices(actions, weights=weighted)[0]


def next_command(
    game: Game, rng: random.Random, style: Style, legal: dict[int, tuple[SeatCommand, ...]] | None = None
) -> Command:
    """What the random player does now: deal when the match waits for a deal, else a seat acts.

    :param legal: the legal actions of some seats, already known (the others are asked for).
    """
    known = legal or {}

    def actions_of(seat: int) -> Sequence[SeatCommand]:
        return known[seat] if seat in known else game.legal_actions(seat)

    waiting = game.actors()
    if not waiting:
        return random_deal(rng)
    if rng.random() < style.side_sena:
        others = [seat for seat in range(game.rules.players) if seat not in waiting]
        if others:
            senas = [a for a in actions_of(rng.choice(others)) if isinstance(a, SendSena)]
            if senas:
                return rng.choice(senas)
    return pick(rng, actions_of(rng.choice(waiting)), style)


# --- Scanning views and events ------------------------------------------------------------------------------

Path = tuple[str | int, ...]
_ATOMS = (str, int, float, bool, enum.Enum, type(None))
_SCALARS = frozenset({str, int, float, bool, type(None)})
_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(kind: type) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        assert dataclasses.is_dataclass(kind), f"unexpected {kind.__name__} in a view or event"
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return names


def leaves(obj: object, path: Path = ()) -> Iterator[tuple[Path, object]]:
    """Every leaf value inside dataclasses, tuples, lists, sets and dicts, with its path of field names and
    indexes. Any other kind of object fails the test, so nothing can hide from the scan."""
    if isinstance(obj, (Card, *_ATOMS)):
        yield path, obj
    elif isinstance(obj, tuple | list | set | frozenset):
        for index, item in enumerate(obj):
            yield from leaves(item, (*path, index))
    elif isinstance(obj, dict):
        for index, (key, value) in enumerate(obj.items()):
            yield from leaves(key, (*path, index, "key"))
            yield from leaves(value, (*path, index, "value"))
    else:
        for name in _field_names(type(obj)):
            yield from leaves(getattr(obj, name), (*path, name))


def cards_in(obj: object) -> Iterator[tuple[Path, Card]]:
    for path, leaf in leaves(obj):
        if isinstance(leaf, Card):
            yield path, leaf


Skip = frozenset[tuple[type, str]]
"""Fields the fast scan does not enter, as (dataclass, field name)."""


def collect(obj: object, skip: Skip = frozenset()) -> tuple[list[Card], list[Sena]]:
    """The cards and señas inside ``obj`` (as :func:`leaves` finds them, without paths: the hot path)."""
    cards: list[Card] = []
    senas: list[Sena] = []
    stack = [obj]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in _SCALARS:
            continue
        if isinstance(item, tuple | list | set | frozenset):
            stack.extend(item)
        elif isinstance(item, Card):
            cards.append(item)
        elif isinstance(item, Sena):
            senas.append(item)
        elif isinstance(item, _ATOMS):
            continue
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        else:
            stack.extend(getattr(item, name) for name in _field_names(kind) if (kind, name) not in skip)
    return cards, senas


def hidden_cards(state: MatchState, seat: int | None) -> dict[Card, int]:
    """The unplayed cards of every seat but ``seat`` (all of them for a spectator), with their holder."""
    hand = state.hand
    if hand is None:
        return {}
    return {card: holder for holder, cards in hand.unplayed.items() if holder != seat for card in cards}


def explain_leak(view: object, hidden: dict[Card, int], who: str, allowed: Sequence[Path]) -> str:
    """Where ``view`` shows a hidden card (the slow scan, with paths, for the failure message)."""
    for path, card in cards_in(view):
        if card in hidden and not any(path[: len(prefix)] == prefix for prefix in allowed):
            return f"{who} sees {card} of seat {hidden[card]} at {path}"
    return f"{who} sees a hidden card"


_REVEALED: Skip = frozenset({(HandView, "shown"), (HandView, "proofs"), (SpectatorView, "last_hand")})
_PAST: Skip = frozenset({(SpectatorView, "last_hand")})  # the last hand's shown cards: another deal
_SEAT_OWN: Skip = frozenset({(SeatView, "public")})


def known_positions(hand: HandState, seat: int | None) -> set[int]:
    """The deck positions whose card ``seat`` may know: the muestra, the cards played, the hands shown once
    the hand has ended, and the seat's own three."""
    n = len(hand.seats)
    order = hand.order
    known = {3 * n}
    known.update(order.index(card) for plays in hand.rounds for _, card in plays)
    known.update(order.index(card) for _, cards in hand.shown for card in cards)
    if seat is not None and seat in hand.seats:
        p = hand.seats.index(seat)
        known.update(k * n + p for k in range(3))
    return known


def sealed_salts(hand: HandState | None, seat: int | None) -> list[str]:
    """The salts that would open the commitment of a card ``seat`` never saw (all 40 positions but the
    known ones: the undealt rest of the deck is sealed too)."""
    if hand is None:
        return []
    known = known_positions(hand, seat)
    return [card_salt(hand.salt, k) for k in range(40) if k not in known]


def assert_sealed(obj: object, salts: Sequence[str], who: str) -> None:
    text = repr(obj)
    for salt in salts:
        assert salt not in text, f"{who} receives the salt of a card it never saw"


def check_views(state: MatchState, sealed: bool = True) -> dict[int, tuple[SeatCommand, ...]]:
    """Every view hides what it must; returns each seat's legal actions as its view lists them.

    The spectator view holds no unplayed card, except in the hand's ``shown`` and ``revealed_order`` once
    the hand has ended, and no seña. Each seat view's public part equals the spectator view (so it hides the
    same), and the rest holds none of the other seats' unplayed cards and only the teammates' señas.
    """
    ended = state.hand is not None and state.hand.ended
    spectator = spectator_view(state)
    hidden = hidden_cards(state, None)
    cards, senas = collect(spectator, _REVEALED if ended else _PAST)
    allowed: list[Path] = [("hand", "shown"), ("hand", "proofs"), ("last_hand",)] if ended else [("last_hand",)]
    if sealed:
        assert_sealed(spectator, sealed_salts(state.hand, None), "the spectator")
    if sealed and state.last_hand is not None and state.last_hand is not state.hand:
        assert_sealed(spectator, sealed_salts(state.last_hand, None), "the spectator (last hand)")
    assert hidden.keys().isdisjoint(cards), explain_leak(spectator, hidden, "the spectator", allowed)
    assert not senas, f"a seña in the spectator view: {senas}"
    legal: dict[int, tuple[SeatCommand, ...]] = {}
    for seat in range(state.rules.players):
        view = seat_view(state, seat)
        assert view.seat == seat and view.public == spectator, f"seat {seat}'s public view differs"
        hidden = hidden_cards(state, seat)
        cards, senas = collect(view, _SEAT_OWN)
        assert hidden.keys().isdisjoint(cards), explain_leak(view, hidden, f"seat {seat}", [("public",)])
        if sealed:
            assert_sealed(view, sealed_salts(state.hand, seat), f"seat {seat}")
        own = [a.sena for a in view.legal_actions if isinstance(a, SendSena)] + [s for _, s in view.senas]
        assert Counter(senas) == Counter(own), f"seat {seat} sees señas outside its own and its teammates'"
        for sender, _ in view.senas:
            assert sender != seat and team_of(sender) == team_of(seat), f"{seat} sees {sender}'s seña"
        assert all(action.seat == seat for action in view.legal_actions)
        if state.hand is not None and seat in state.hand.seats:
            assert sorted(view.cards) == sorted(state.hand.unplayed[seat])
        legal[seat] = view.legal_actions
    return legal


def rivals_views(state: MatchState, sender: int) -> tuple[object, ...]:
    """What the spectator and the rivals of ``sender`` see: a seña must leave all of it unchanged."""
    rivals = (seat for seat in range(state.rules.players) if team_of(seat) != team_of(sender))
    return (spectator_view(state), *(seat_view(state, seat) for seat in rivals))


def check_events_for_seats(state: MatchState, events: Sequence[Event]) -> None:
    """``event_for`` never leaks a deal's order or salt, a rival's seña, or another seat's unplayed card
    (``state`` is the state after the events; a HandEnded reveals the hand, as the rules say)."""
    seats: tuple[int | None, ...] = (None, *range(state.rules.players))
    hidden = {seat: hidden_cards(state, seat) for seat in seats}
    hand = state.hand
    known = {seat: known_positions(hand, seat) if hand is not None else set() for seat in seats}
    commitments = deal_commitments(hand.order, hand.salt) if hand is not None else ()
    for event in events:
        event_cards = collect(event)[0] if not isinstance(event, HandDealt | HandEnded) else []
        for seat in seats:
            seen = event_for(event, seat, hand)
            who = "the spectator" if seat is None else f"seat {seat}"
            if isinstance(event, SenaSent):
                teammate = seat is not None and team_of(seat) == team_of(event.seat)
                assert (seen is not None) == teammate, f"{who} and seat {event.seat}'s seña: {seen}"
                continue
            assert seen is not None, f"{who} does not see {event}"
            proofs: list[CardProof] = []
            if isinstance(seen, HandDealt) and isinstance(event, HandDealt) and hand is not None:
                assert seen.order == () and seen.salt == "" and seen.commitments == commitments
                assert event.salt not in repr(seen), f"{who} sees the deal's secret in {seen}"
                assert seen.muestra is not None and seen.muestra.card == hand.muestra
                proofs = [seen.muestra, *seen.own]
                own_cards = [p.card for p in seen.own]
                assert own_cards == ([] if seat is None else list(hand.dealt.get(seat, ())))
            elif isinstance(seen, CardPlayed):
                assert seen.proof is not None and seen.proof.card == seen.card
                proofs = [seen.proof]
            elif isinstance(seen, HandEnded):
                proofs = list(seen.proofs)
                assert [p.card for p in proofs] == [card for _, cards in seen.shown for card in cards]
            assert all(verify(commitments[p.position], p) for p in proofs), f"{who}: a proof does not open"
            assert all(p.position in known[seat] for p in proofs), f"{who} receives the salt of a card never seen"
            if isinstance(seen, HandDealt):
                assert_sealed(seen, sealed_salts(hand, seat), who)
            if isinstance(seen, HandDealt) and hand is not None:
                shown_cards = sorted(c for c in collect(seen)[0] if c != hand.muestra)
                assert shown_cards == sorted(p.card for p in seen.own)
            if not isinstance(event, HandEnded | HandDealt):
                cards = event_cards if seen is event else collect(seen)[0]
                assert hidden[seat].keys().isdisjoint(cards), explain_leak(seen, hidden[seat], who, [])


# --- Per-step properties ------------------------------------------------------------------------------------


def check_actors(state: MatchState, legal: dict[int, tuple[SeatCommand, ...]]) -> None:
    """Actors have something to do, the others only señas; nobody acts while a deal is awaited or once the
    match is over. ``legal`` holds each seat's legal actions."""
    waiting = set(actors(state))
    over = state.phase is Phase.MATCH_OVER
    assert over == (state.winner is not None)
    if not over:
        assert (not waiting) == (state.phase is Phase.AWAITING_DEAL), f"actors {waiting} in {state.phase}"
    for seat, actions in legal.items():
        if seat in waiting:
            assert actions, f"seat {seat} must act but has no legal action"
        else:
            assert all(isinstance(a, SendSena) for a in actions), f"seat {seat} is no actor but may {actions}"
        assert len(set(actions)) == len(actions), f"duplicate legal actions {actions}"
        if over:
            assert not actions


def check_deal(
    state: MatchState, deal: Deal, events: Sequence[Event], scores_before: Sequence[int], dealers: list[int]
) -> None:
    """Every deal holds 3·n + 1 distinct cards of the deck, dealt from the order, the muestra in no hand.
    Full-table hands are dealt by the last seat first, then by each next seat in turn (``dealers`` holds
    their dealers so far); pico a pico hands only while both teams are en malas."""
    rules = state.rules
    hand = state.hand
    assert hand is not None and len(events) == 1 and isinstance(events[0], HandDealt)
    dealt_event = events[0]
    n = len(hand.seats)
    assert n == (2 if hand.pico else rules.players), f"{n} players in a hand with pico={hand.pico}"
    if hand.pico:
        assert rules.plays_pico_a_pico and max(scores_before) < rules.buenas_from, "pico a pico out of malas"
        assert hand.seats[1] == (hand.seats[0] + 3) % 6 and hand.dealer == hand.seats[1]
    else:
        assert hand.seats == tuple((hand.dealer + 1 + k) % n for k in range(n))
        expected_dealer = (dealers[-1] + 1) % n if dealers else n - 1
        assert hand.dealer == expected_dealer, f"seat {hand.dealer} deals, not seat {expected_dealer}"
        dealers.append(hand.dealer)
    assert set(hand.dealt) == set(hand.seats) and all(len(cards) == 3 for cards in hand.dealt.values())
    cards = [card for seat in hand.seats for card in hand.dealt[seat]]
    assert len(set(cards)) == 3 * n and hand.muestra not in cards
    assert len({*cards, hand.muestra}) == 3 * n + 1 and set(cards) <= set(DECK) and hand.muestra in DECK
    for position, seat in enumerate(hand.seats):
        dealt = tuple(deal.order[position + n * k] for k in range(3))
        assert hand.dealt[seat] == dealt, "not dealt one at a time from the mano"
    assert hand.muestra == deal.order[3 * n]
    assert hand.unplayed == {seat: list(hand.dealt[seat]) for seat in hand.seats}
    assert dealt_event.order == deal.order and dealt_event.salt == deal.salt
    assert dealt_event.commitments == () and dealt_event.own == ()  # recorded: the projections fill them


def check_hand_ended(state: MatchState, ended: HandEnded) -> None:
    """The end of a hand shows only cards the shown seats were dealt: the envido winner's and the flores'."""
    hand = state.hand
    assert hand is not None and hand.ended
    shown_seats = set(hand.flor_sung) | ({hand.envido_winner[0]} if hand.envido_winner else set())
    assert {seat for seat, _ in ended.shown} == shown_seats
    for seat, cards in ended.shown:
        assert seat in hand.seats and cards == hand.dealt[seat], f"shown {seat}: {cards}"


def check_points(state: MatchState, events: Sequence[Event], before: Sequence[int], tally: list[int]) -> None:
    """Points only grow, by their PointsScored events, and never pass the target."""
    for event in events:
        if isinstance(event, PointsScored):
            assert event.points > 0, f"{event}"
            tally[event.team] += event.points
    grew = all(after >= old for after, old in zip(state.scores, before, strict=True))
    assert grew, f"points went down: {before} → {state.scores}"
    assert tally == state.scores, f"PointsScored sum {tally} != scoreboard {state.scores}"
    assert max(state.scores) <= state.rules.target


def check_fold(game: Game) -> None:
    public = sum(not isinstance(event, SenaSent) for event in game.events)
    assert game.version == public and game.state.events_applied == len(game.events)
    assert fold(game.events) == game.state, "fold(events) differs from the state"
    assert Game.from_events(game.events).state == game.state, "Game.from_events rebuilds another state"


def check_end(game: Game, tally: Sequence[int]) -> None:
    """Exactly one team at the target, declared the winner by the last event; nothing more may happen."""
    state = game.state
    target = state.rules.target
    assert game.over and state.phase is Phase.MATCH_OVER
    assert sorted(state.scores)[0] < target == sorted(state.scores)[1], f"scores {state.scores}"
    assert state.winner == state.scores.index(target)
    assert game.events[-1] == MatchEnded(state.winner)
    assert sum(isinstance(event, MatchEnded) for event in game.events) == 1
    totals = [0, 0]
    for event in game.events:
        if isinstance(event, PointsScored):
            totals[event.team] += event.points
    assert totals == list(tally) == state.scores
    refusal = refuse(game.state, random_deal(random.Random(0)), "the match is over")
    assert type(refusal) is RuleViolation and refusal.reason is Reason.MATCH_OVER, f"{refusal!r}"
    check_fold(game)


_INTERNED: dict[int, object] = {id(card): card for card in DECK}


def deep_copy(state: MatchState) -> MatchState:
    """A snapshot that shares nothing mutable with ``state`` whatever ``MatchState.copy`` shares (its copies
    are under test: executing on one must not touch the original). The interned cards and the frozen rule
    set are their own copies, which keeps ``deepcopy`` fast."""
    memo = {**_INTERNED, id(state.rules): state.rules}
    return copy.deepcopy(state, memo)


# --- Refused commands ---------------------------------------------------------------------------------------


def candidate_commands(seat: int, rng: random.Random) -> list[Command]:
    """Every command ``seat`` could send, legal or not, plus deals (valid and malformed)."""
    seat_commands: list[Command] = [PlayCard(seat, card) for card in DECK]
    seat_commands += [Call(seat, call) for call in CallKind]
    seat_commands += [Answer(seat, accept, kind) for accept in (True, False) for kind in (None, *CallKind)]
    seat_commands.append(GoToMazo(seat))
    seat_commands += [SendSena(seat, sena) for sena in Sena]
    seat_commands += [CallPerros(seat), SkipPerros(seat)]
    seat_commands += [AnswerPerros(seat, e, t) for e in (True, False) for t in (True, False)]
    return [*seat_commands, random_deal(rng)]


def malformed_deals(rng: random.Random) -> list[Deal]:
    deal = random_deal(rng)
    return [
        Deal(deal.order[:-1], deal.salt),
        Deal((*deal.order[:-1], deal.order[0]), deal.salt),
        Deal(deal.order, deal.salt.upper() + "X"),
        Deal(deal.order, deal.salt[:-1]),
    ]


def check_refusals(game: Game, rng: random.Random) -> None:
    """A command is accepted iff it is in legal_actions; a refused one raises and changes nothing."""
    state = game.state
    players = state.rules.players
    snapshot = deep_copy(state)
    seat = rng.choice((*range(players + 1), *PROBE_SEATS_EXTRA))
    valid_seat = 0 <= seat < players
    legal = legal_actions(state, seat)
    candidates = candidate_commands(seat, rng)
    missing = set(legal) - set(candidates)
    assert not missing, f"legal actions not among the candidates: {missing}"
    hidden = hidden_cards(state, seat)
    foreign_card_refusals: set[tuple[Reason, str]] = set()
    for command in candidates:
        # A deal is no seat's action: it is expected exactly while the match waits for one.
        expected = state.phase is Phase.AWAITING_DEAL if isinstance(command, Deal) else command in legal
        if isinstance(command, Answer) and command.call is None:  # answers whatever is pending, as listed
            expected = any(isinstance(a, Answer) and a.accept == command.accept for a in legal)
        if expected:
            try:
                events = execute(state.copy(), command)
            except CommandError as exc:
                raise AssertionError(f"legal {command} refused in {state.phase}: {exc!r}") from exc
            assert events and is_legal(state, command)
            assert state == snapshot, f"executing {command} on state.copy() changed the original"
            continue
        malformed = not isinstance(command, Deal) and not valid_seat
        error = InvalidCommand if malformed else RuleViolation
        refusal = refuse(state, command, f"not among seat {seat}'s legal actions {legal}")
        assert type(refusal) is error, f"{command} refused with {refusal!r}, expected a {error.__name__}"
        assert state == snapshot, f"refused {command} changed the state"
        if not malformed:
            assert violation(state, command) == (refusal.reason, refusal.message)
        if not isinstance(command, Deal) and valid_seat:
            check_refusal_hides(state, command, refusal, hidden, foreign_card_refusals)
    assert len(foreign_card_refusals) <= 1, f"others' cards refused in several ways: {foreign_card_refusals}"
    for deal in malformed_deals(rng):
        refusal = refuse(state, deal, "malformed")
        assert type(refusal) is InvalidCommand, f"a malformed deal refused with {refusal!r}"
        assert state == snapshot, "a malformed deal changed the state"


def check_refusal_hides(
    state: MatchState,
    command: SeatCommand,
    refusal: CommandError,
    hidden: dict[Card, int],
    foreign_card_refusals: set[tuple[Reason, str]],
) -> None:
    """A refusal names no card of another seat's hand but the one the command named, and playing a card one
    does not hold is refused the same way whoever holds it (collected in ``foreign_card_refusals``, with the
    card blanked out of the message)."""
    named = command.card if isinstance(command, PlayCard) else None
    for card in hidden:
        if card != named:
            named_too = re.search(rf"\b{card}\b", refusal.message)
            assert not named_too, f"{command}'s refusal names {card}: {refusal!r}"
    hand = state.hand
    if named is not None and hand is not None and named not in hand.unplayed.get(command.seat, ()):
        foreign_card_refusals.add((refusal.reason, re.sub(rf"\b{named}\b", "<card>", refusal.message)))


def refuse(state: MatchState, command: Command, why: str) -> CommandError:
    """Execute ``command``, which must be refused, on the live state; return the refusal."""
    try:
        execute(state, command)
    except CommandError as refusal:
        return refusal
    raise AssertionError(f"{command} ({why}) was accepted")


# --- The random matches -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Checks:
    """Which of the costlier checks a match runs (the others run at every step of every match)."""

    views: bool
    """Every seat's view and the spectator's at every step, and every seat's legal actions (actors have
    some, the others only señas). Without it only the actors' legal actions are checked."""
    probe: float = 0.0
    """Probability, at each step, of probing every candidate command of a random seat."""


def play_checked_match(rules: RuleSet, seed: int, style: Style, checks: Checks) -> Game:
    """Play one random match to its end, checking the properties at every step."""
    rng = random.Random(seed)
    sampler = random.Random(seed ^ 0x5EED)  # a second stream: what we check never changes the match played
    game = Game(rules)
    replayed = fold(game.events)  # the fold of the events, one event at a time alongside the game
    tally = [0, 0]
    dealers: list[int] = []
    trace: list[str] = []
    try:
        for _ in range(MAX_STEPS):
            state = game.state
            assert replayed == state, "the fold of the events differs from the state"
            if checks.views:
                legal = check_views(state, sampler.random() < SEALED_VIEW_CHECK_PROBABILITY)
            else:
                legal = {seat: tuple(legal_actions(state, seat)) for seat in actors(state)}
            check_actors(state, legal)
            if checks.probe and sampler.random() < checks.probe:
                check_refusals(game, sampler)
            if game.over:
                break
            command = next_command(game, rng, style, legal)
            trace.append(str(command) if not isinstance(command, Deal) else f"Deal({command.salt})")
            scores_before = list(state.scores)
            sena = command if isinstance(command, SendSena) else None
            unaware = rivals_views(state, sena.seat) if sena is not None else None
            decided = None
            if sampler.random() < DECIDE_CHECK_PROBABILITY:
                decided = decide(state, command)
                assert state == replayed, f"decide({command}) changed its input state"
            events = game.execute(command)
            if decided is not None:
                assert events == decided, f"decide and execute differ on {command}:\n{decided}\n{events}"
            for event in events:
                evolve(replayed, event)
            if isinstance(command, Deal):
                check_deal(game.state, command, events, scores_before, dealers)
            for ended in (event for event in events if isinstance(event, HandEnded)):
                check_hand_ended(game.state, ended)
            if sena is not None:
                assert rivals_views(game.state, sena.seat) == unaware, f"a rival learns of {sena}"
            check_points(game.state, events, scores_before, tally)
            check_events_for_seats(game.state, events)
            if sampler.random() < FOLD_CHECK_PROBABILITY:
                check_fold(game)
        else:
            raise AssertionError(f"the match did not end in {MAX_STEPS} commands: scores {game.state.scores}")
        check_end(game, tally)
    except Exception as failure:
        failure.add_note(f"{rules.describe()}; seed {seed}; {style}")
        failure.add_note(f"after {len(trace)} commands: {', '.join(trace)}")
        raise
    return game


def describe(game: Game) -> None:
    """What the match went through, for ``pytest --hypothesis-show-statistics``."""
    length = next((f"<{limit}" for limit in (50, 200, 500) if len(game.events) < limit), "500+")
    hypothesis.event(f"events: {length}")
    seen: set[str] = set()
    for happened in game.events:
        if isinstance(happened, HandDealt) and happened.pico:
            seen.add("a pico a pico hand")
        elif isinstance(happened, PerrosCalled):
            seen.add("perros")
        elif isinstance(happened, FlorSettled) and happened.winner_seat is not None:
            seen.add("a flor contest")
        elif isinstance(happened, EnvidoSettled):
            seen.add("an envido played")
        elif isinstance(happened, RoundEnded) and happened.winner_team is None:
            seen.add("a parda")
        elif isinstance(happened, CallAccepted) and happened.call is CallKind.VALE_CUATRO:
            seen.add("vale cuatro accepted")
        elif isinstance(happened, SenaSent):
            seen.add("a seña")
        elif isinstance(happened, HandEnded) and happened.end is HandEnd.MATCH_ENDED:
            seen.add("the match ended mid-hand")
    for label in sorted(seen):
        hypothesis.event(label)


def match_settings(examples: int) -> settings:
    scaled = max(1, round(examples * SCALE))
    return settings(max_examples=scaled, deadline=None, suppress_health_check=[HealthCheck.too_slow])


RULES = Checks(views=False)
VIEWS = Checks(views=True)
REFUSALS = Checks(views=False, probe=0.2)


PLAYERS = sorted(EXAMPLES)


def check_matches(players: int, examples: int, checks: Checks) -> None:
    """Play ``examples`` random matches of ``players`` under ``checks``, each a Hypothesis example."""

    @match_settings(examples)
    @given(rules=rule_sets(players), seed=seeds, style=styles)
    def matches(rules: RuleSet, seed: int, style: Style) -> None:
        describe(play_checked_match(rules, seed, style, checks))

    matches()


@pytest.mark.parametrize("players", PLAYERS)
def test_matches_keep_the_rules_properties(players: int) -> None:
    check_matches(players, EXAMPLES[players].rules, RULES)


@pytest.mark.parametrize("players", PLAYERS)
def test_views_hide_what_they_must(players: int) -> None:
    check_matches(players, EXAMPLES[players].views, VIEWS)


@pytest.mark.parametrize("players", PLAYERS)
def test_illegal_commands_are_refused(players: int) -> None:
    check_matches(players, EXAMPLES[players].refusals, REFUSALS)


# --- Perft --------------------------------------------------------------------------------------------------

PERFT_MANO = parse_cards(["1e", "7c", "4b"])
PERFT_PIE = parse_cards(["3c", "12e", "6b"])
PERFT_MUESTRA = Card.parse("3o")
"""Seat 0 (mano) holds 1e 7c 4b, seat 1 (dealer) 3c 12e 6b, muestra 3o: no pieza, no flor, no señas (no
teammates), so the counts exercise cards, truco and envido only."""

PERFT_EXPECTED = {1: 8, 2: 44, 3: 148, 4: 445}
"""Legal action sequences from the deal, default 2-player rules (a hand ended by a mazo, a refused truco or
the match's end is a leaf with nothing below it). Computed by this engine; depth 1 and 2 (and 3, by first
action: 29 29 29 21 22 13 5 0) reviewed by hand against rules-decisions.md (below truco, once the pie says quiero
or quiero retruco the envido is closed: the mano has its 3 cards and the mazo, or quiero, no quiero, vale cuatro
and the mazo, 4 + 4 where it had 7 + 7 before issue 7):

depth 1 — the mano may play any of its 3 cards, call truco, envido, real envido or falta envido, or go to
the mazo: 3 + 1 + 3 + 1 = 8 (the pie may do nothing: not its turn, no teammate for a seña).
depth 2 — after each card (3×) the pie has the same 8 on its turn (it has not played, round one): 24;
after truco: quiero, no quiero, retruco, the three envidos (el envido está primero), mazo = 7;
after envido: quiero, no quiero, envido, real envido, falta envido, mazo = 6;
after real envido: quiero, no quiero, falta envido, mazo = 4 (real envido only once);
after falta envido: quiero, no quiero, mazo = 3; after the mazo the hand is over: 0.
24 + 7 + 6 + 4 + 3 + 0 = 44.
"""


def all_legal_actions(state: MatchState) -> list[SeatCommand]:
    return [action for seat in range(state.rules.players) for action in legal_actions(state, seat)]


def perft(state: MatchState, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for action in all_legal_actions(state):
        child = state.copy()
        execute(child, action)
        total += perft(child, depth - 1)
    return total


def perft_start() -> Game:
    game = Game(RuleSet())
    game.execute(Deal(order_for_hands([PERFT_MANO, PERFT_PIE], PERFT_MUESTRA), "0123456789abcdef" * 2))
    return game


@pytest.mark.parametrize("depth", sorted(PERFT_EXPECTED))
def test_perft(depth: int) -> None:
    state = perft_start().state
    count = perft(state, depth)
    if count != PERFT_EXPECTED[depth]:
        divide = []
        for action in all_legal_actions(state):
            child = state.copy()
            execute(child, action)
            divide.append(f"  {action}: {perft(child, depth - 1)}")
        header = f"perft({depth}) = {count}, expected {PERFT_EXPECTED[depth]}; by first action:"
        pytest.fail("\n".join([header, *divide]))


def test_perft_depth_one_lists_the_manos_options() -> None:
    """The hand-reviewed depth 1, action by action."""
    state = perft_start().state
    mano = 0
    expected: list[SeatCommand] = [PlayCard(mano, card) for card in PERFT_MANO]
    expected += [Call(mano, CallKind.TRUCO)]
    expected += [Call(mano, c) for c in (CallKind.ENVIDO, CallKind.REAL_ENVIDO, CallKind.FALTA_ENVIDO)]
    expected += [GoToMazo(mano)]
    assert Counter(all_legal_actions(state)) == Counter(expected)
