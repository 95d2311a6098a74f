"""The bots: the expert decides from its seat's view alone (no peeking, proven by swapping the rivals' cards), the
same way for the same seed; its guesses agree with what the view shows; it reads and sends señas; the levels name
the bots that play them."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial

import pytest

from truco.bots import BOTS, LEVELS, ExpertBot, Level, bot_for_level, level_of_bot, make_bot
from truco.bots.beliefs import Sampler, clues_of, fits
from truco.bots.expert import keep_strength, sena_to_send
from truco.bots.match_odds import win_chance
from truco.engine import (
    DECK,
    Card,
    Command,
    Deal,
    Game,
    MatchState,
    Phase,
    PlayCard,
    RuleSet,
    RuleViolation,
    SeatCommand,
    Sena,
    SendSena,
    actors,
    deal_hands,
    execute,
    execute_legal,
    legal_actions,
    seat_view,
    start_match,
    team_of,
)
from truco.engine.state import fold

from .scenario_helpers import deal, new_game, play, shuffled_deal

FAST = 120
"""Playouts per decision in these tests: enough for real searches, quick on the pure build."""


def table_at_decisions(rules: RuleSet, seed: int, every: int) -> list[tuple[MatchState, int, list[Command]]]:
    """Heuristic bots play a match; every ``every``-th decision the table is kept with the seat to act and every
    command so far (the deals included), so the match can be replayed with other cards."""
    rng = random.Random(seed)
    state = fold(start_match(rules))
    log: list[Command] = []
    kept = []
    bot = make_bot("heuristic")
    decisions = 0
    while state.phase is not Phase.MATCH_OVER:
        waiting = actors(state)
        if not waiting:
            command: Command = shuffled_deal(rng)
        else:
            seat = waiting[0]
            decisions += 1
            if decisions % every == 0:
                kept.append((state.copy(), seat, list(log)))
            command = bot.choose(legal_actions(state, seat), partial(seat_view, state, seat, proofs=False), rng)
        execute_legal(state, command)
        log.append(command)
    return kept


def other_table(
    state: MatchState, seat: int, log: list[Command], rng: random.Random, partners: bool = False
) -> MatchState | None:
    """The same match replayed with the rivals' unplayed cards (and the partners' too, with ``partners``) swapped
    for others the seat has not seen (from the rest of the deck or each other), or None if that replay is not the
    same table to the seat's eyes (a partner's seña told of a card swapped away, say)."""
    hand = state.hand
    assert hand is not None
    deal_at = max(i for i, command in enumerate(log) if isinstance(command, Deal))
    deal = log[deal_at]
    assert isinstance(deal, Deal)
    order = list(deal.order)
    n = len(hand.seats)
    rivals = [s for s in hand.seats if s != seat and (partners or team_of(s) != team_of(seat))]
    hidden = [order.index(card) for s in rivals for card in hand.unplayed[s]]
    undealt = list(range(3 * n + 1, len(DECK)))
    positions = hidden + undealt
    cards = [order[p] for p in positions]
    rng.shuffle(cards)
    for p, card in zip(positions, cards, strict=True):
        order[p] = card
    if [order[p] for p in hidden] == [deal.order[p] for p in hidden]:
        return None
    replay = fold(start_match(state.rules))
    try:
        for command in [*log[:deal_at], Deal(tuple(order), deal.salt), *log[deal_at + 1 :]]:
            execute(replay, command)
    except RuleViolation:
        return None  # a flor sung, or an envido won, by cards the swap took away
    if seat_view(replay, seat, proofs=False) != seat_view(state, seat, proofs=False):
        return None
    assert deal_hands(order, n) != deal_hands(deal.order, n)
    return replay


def decisions_on_swapped_tables(
    rules: RuleSet,
    seed: int,
    decide: Callable[[MatchState, int], SeatCommand],
    wanted: int = 8,
    partners: bool = False,
) -> list[tuple[SeatCommand, SeatCommand]]:
    """The decision at real tables of heuristic matches and at the same tables with the rivals' cards (and the
    partners', with ``partners``) swapped."""
    rng = random.Random(seed)
    pairs: list[tuple[SeatCommand, SeatCommand]] = []
    for match in range(20):
        for state, seat, log in table_at_decisions(rules, seed * 100 + match, every=3):
            if len([a for a in legal_actions(state, seat) if not isinstance(a, SendSena)]) < 2:
                continue
            for _ in range(200):
                replay = other_table(state, seat, log, rng, partners)
                if replay is not None:
                    pairs.append((decide(state, seat), decide(replay, seat)))
                    break
            if len(pairs) >= wanted:
                return pairs
    return pairs


def expert_decision(state: MatchState, seat: int) -> SeatCommand:
    return ExpertBot(FAST).choose(
        legal_actions(state, seat), partial(seat_view, state, seat, proofs=False), random.Random(7)
    )


@pytest.mark.parametrize(
    "rules", [RuleSet(players=2), RuleSet(players=4), RuleSet(players=6)], ids=lambda r: f"{r.players}p"
)
def test_the_expert_decides_the_same_whatever_cards_the_rivals_hold_unseen(rules: RuleSet) -> None:
    pairs = decisions_on_swapped_tables(rules, seed=rules.players, decide=expert_decision)
    assert len(pairs) == 8
    assert all(real == swapped for real, swapped in pairs)


@pytest.mark.parametrize("rules", [RuleSet(players=4), RuleSet(players=6)], ids=lambda r: f"{r.players}p")
def test_the_expert_decides_the_same_whatever_cards_its_partners_hold_unseen(rules: RuleSet) -> None:
    """Its partners' cards are as hidden as its rivals': only their señas tell of them."""
    pairs = decisions_on_swapped_tables(rules, seed=rules.players + 1, decide=expert_decision, partners=True)
    assert len(pairs) == 8
    assert all(real == swapped for real, swapped in pairs)


def test_the_swap_would_catch_a_bot_that_peeks() -> None:
    """The same harness with a bot that reads the rivals' cards through its view source (the state behind the
    partial) decides differently on some swapped table: the test above can fail."""

    def peeking(state: MatchState, seat: int) -> SeatCommand:
        hand = state.hand
        assert hand is not None
        rival_best = max(card.index for s in hand.seats if team_of(s) != team_of(seat) for card in hand.unplayed[s])
        actions = [a for a in legal_actions(state, seat) if not isinstance(a, SendSena)]
        return actions[rival_best % len(actions)]

    pairs = decisions_on_swapped_tables(RuleSet(players=2), seed=2, decide=peeking)
    assert any(real != swapped for real, swapped in pairs)


def test_the_swap_would_catch_a_bot_that_peeks_at_its_partners_cards() -> None:
    def peeking(state: MatchState, seat: int) -> SeatCommand:
        hand = state.hand
        assert hand is not None
        partner_best = max(
            (card.index for s in hand.seats if s != seat and team_of(s) == team_of(seat) for card in hand.unplayed[s]),
            default=0,
        )
        actions = [a for a in legal_actions(state, seat) if not isinstance(a, SendSena)]
        return actions[partner_best % len(actions)]

    pairs = decisions_on_swapped_tables(RuleSet(players=4), seed=5, decide=peeking, partners=True)
    assert any(real != swapped for real, swapped in pairs)


def test_a_decision_is_a_function_of_the_view_and_the_seed() -> None:
    (state, seat, _), *_ = table_at_decisions(RuleSet(players=2), seed=11, every=3)
    actions = legal_actions(state, seat)
    view = partial(seat_view, state, seat, proofs=False)
    first = [ExpertBot(FAST).choose(actions, view, random.Random(seed)) for seed in range(4)]
    again = [ExpertBot(FAST).choose(actions, view, random.Random(seed)) for seed in range(4)]
    assert first == again and all(choice in actions for choice in first)


def test_the_guessed_hands_agree_with_every_clue_of_the_view() -> None:
    for players in (2, 4, 6):
        for state, seat, _ in table_at_decisions(RuleSet(players=players), seed=20 + players, every=2):
            if state.phase is not Phase.PLAYING:
                continue
            view = seat_view(state, seat, proofs=False)
            hand = state.hand
            assert hand is not None
            clues, pool = clues_of(view)
            # The real hands are one of the worlds the clues allow.
            for clue in clues:
                assert fits(clue, hand.unplayed[clue.seat], hand.muestra, state.rules.flor), clue
                assert set(hand.unplayed[clue.seat]) <= set(pool)
            world = Sampler(view).draw(random.Random(1))
            assert sorted(world) == sorted(c.seat for c in clues)
            cards = [card for unplayed in world.values() for card in unplayed]
            assert len(set(cards)) == len(cards) and set(cards) <= set(pool)
            for clue in clues:
                assert fits(clue, world[clue.seat], hand.muestra, state.rules.flor)


def test_a_partners_sena_narrows_the_guesses_to_hands_that_hold_the_card() -> None:
    rng = random.Random(5)
    state = fold(start_match(RuleSet(players=4)))
    execute_legal(state, shuffled_deal(rng))
    hand = state.hand
    assert hand is not None
    partner = next(s for s in hand.seats if s != 0 and team_of(s) == 0)
    sena = next(a for a in legal_actions(state, partner) if isinstance(a, SendSena) and a.sena is not Sena.NEGRAS
                and a.sena is not Sena.ENVIDO)
    execute_legal(state, sena)
    view = seat_view(state, 0, proofs=False)
    assert view.senas == ((partner, sena.sena),)
    sampler = Sampler(view)
    (options,) = next(c for c in sampler.clues if c.seat == partner).named
    assert any(card in options for card in hand.unplayed[partner]) and len(options) < 8
    for draw in range(20):
        world = sampler.draw(random.Random(draw))
        assert any(card in options for card in world[partner])


def test_the_expert_tells_its_partner_its_best_card_first() -> None:
    rng = random.Random(9)
    for _ in range(30):
        state = fold(start_match(RuleSet(players=4)))
        execute_legal(state, shuffled_deal(rng))
        seat = actors(state)[0]
        view = seat_view(state, seat, proofs=False)
        choice = sena_to_send(view.legal_actions, view)
        assert choice is not None  # nothing sent yet: a seña is always worth sending
        senas = [a.sena for a in view.legal_actions if isinstance(a, SendSena)]
        assert choice.sena in senas
        if any(s.value.startswith("PIEZA") for s in senas):
            assert choice.sena.value.startswith("PIEZA")
        # Two a hand at most.
        execute_legal(state, choice)
        second = sena_to_send(legal_actions(state, seat), seat_view(state, seat, proofs=False))
        if second is not None:
            execute_legal(state, second)
            assert sena_to_send(legal_actions(state, seat), seat_view(state, seat, proofs=False)) is None


def test_winning_the_match_is_worth_more_near_the_end() -> None:
    assert win_chance(30, 0, 0) == pytest.approx(0.5, abs=0.01)
    assert win_chance(30, 29, 10) > win_chance(30, 20, 10) > win_chance(30, 10, 10) > win_chance(30, 10, 20)
    assert win_chance(30, 30, 29) == 1.0 and win_chance(30, 29, 30) == 0.0
    for ours in range(30):
        for theirs in range(30):
            assert win_chance(30, ours, theirs) + win_chance(30, theirs, ours) == pytest.approx(1.0, abs=1e-9)


def test_each_level_names_a_bot_and_a_sentence() -> None:
    assert set(LEVELS) == set(Level)
    for level, sentence in LEVELS.items():
        assert sentence.endswith(".") and sentence.count(". ") == 0
        name = bot_for_level(level)
        assert name in BOTS and level_of_bot(name) is level
        assert make_bot(level.value).name == make_bot(name).name
    assert level_of_bot("random") is None


def test_the_expert_and_the_beginner_play_whole_matches_of_every_size() -> None:
    for players in (2, 4, 6):
        rules = RuleSet(players=players, target=15, perros=players == 4)
        rng = random.Random(players)
        state = fold(start_match(rules))
        names = ["expert", "beginner"]
        bots = [ExpertBot(24) if names[team_of(s)] == "expert" else make_bot("beginner") for s in range(players)]
        moves = 0
        while state.phase is not Phase.MATCH_OVER:
            waiting = actors(state)
            if not waiting:
                execute_legal(state, shuffled_deal(rng))
                continue
            seat = waiting[0]
            actions = legal_actions(state, seat)
            choice = bots[seat].choose(actions, partial(seat_view, state, seat, proofs=False), rng)
            assert choice in actions
            execute_legal(state, choice)
            moves += 1
        assert state.winner in (0, 1) and moves > 10


def _kept_plays(game: Game, seat: int) -> set[str]:
    """The cards :func:`keep_strength` leaves ``seat`` to play now (every other action is always left)."""
    actions = legal_actions(game.state, seat)
    kept = keep_strength(actions, game.view(seat))
    assert [a for a in actions if not isinstance(a, PlayCard)] == [a for a in kept if not isinstance(a, PlayCard)]
    return {str(a.card) for a in kept if isinstance(a, PlayCard)}


def test_the_expert_takes_a_round_with_its_cheapest_winner_once_no_rival_is_left_to_play() -> None:
    """With a copa muestra the 2 de copa is the top pieza and the 1 de espada a mata. Once every rival has played,
    a dearer card that also takes the round is never a candidate; a card that only ties the table (a parda) or
    loses stays one, and the search weighs those. While a rival is still to play, every card is a candidate."""
    game = new_game(players=4)
    deal(game, [["6c", "5o", "4e"], ["3b", "2o", "7c"], ["5b", "6e", "12o"], ["2c", "1e", "3o"]], "4c")
    first, second, third, last = ((game.state.hand.mano + step) % 4 for step in range(4))  # type: ignore[union-attr]
    play(game, first, "6c")
    assert _kept_plays(game, second) == {"3b", "2o", "7c"}  # the 3 and the 2 both win, but a rival is to play
    play(game, second, "3b")
    play(game, third, "5b")
    # The partner's 3 leads: the mata takes the round from it, the pieza too (dearer), the 3 de oro ties it.
    assert _kept_plays(game, last) == {"1e", "3o"}
    decided = {ExpertBot(playouts=FAST).choose(legal_actions(game.state, last), partial(game.view, last),
                                               random.Random(seed)) for seed in range(4)}  # fmt: skip
    assert PlayCard(last, Card.parse("2c")) not in decided


def test_with_two_players_the_answer_to_a_card_is_its_cheapest_winner() -> None:
    game = new_game()
    deal(game, [["6c", "5o", "4e"], ["2c", "3e", "1e"]], "4c")
    play(game, 0, "6c")
    assert _kept_plays(game, 1) == {"3e"}  # the 3 wins; the mata and the pieza would win dearer
