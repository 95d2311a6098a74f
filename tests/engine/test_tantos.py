"""Envido and flor points of a hand ("tantos"): every example of the rule documents as a table row, then an
exhaustive check over all 365,560 (muestra, hand) pairs.

Documents: 000 (Spanish encyclopedia article), 002 (Spanish player's guide), 004 (English guide), and
rules-decisions.md. 002's two example sections ("Ejemplos de cómo se valora una jugada de envido con la muestra en
oro", "Ejemplos para valorar una jugada de Flor") were pictures and hold no text, so their rows below illustrate
002's written bullets.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from math import comb

import pytest

from truco.engine.cards import DECK, Card, parse_cards, strength
from truco.engine.tantos import envido_points, flor_points, flor_value, has_flor


def hand(text: str) -> tuple[Card, ...]:
    return parse_cards(text.split())


def m(text: str) -> Card:
    return Card.parse(text)


# --- Envido points: the documents' examples -------------------------------------------------------------------

ENVIDO_EXAMPLES = [
    # 000, combination table: "1 pieza + 2 cartas de diferente palo: puntos de la pieza + puntos de la carta de
    # mayor puntaje".
    pytest.param("1o", "2o 7e 6c", 37, id="000-pieza-2-plus-7"),
    pytest.param("1o", "4o 3e 5b", 34, id="000-pieza-4-plus-5"),
    pytest.param("1o", "11o 12e 1c", 28, id="000-pieza-11-plus-1"),
    pytest.param("1o", "10o 10e 11c", 27, id="000-pieza-10-plus-figures"),
    pytest.param("1o", "5o 7o 3e", 35, id="000-pieza-5-plus-7-of-muestra-suit"),
    # 000, combination table: "2 cartas del mismo palo + 1 carta de diferente palo: puntos de las dos cartas del
    # mismo palo + 20".
    pytest.param("1o", "7e 6e 3b", 33, id="000-pair-7-6-espada"),
    pytest.param("1o", "1b 5b 7c", 26, id="000-pair-1-5-basto-ignores-lone-7"),
    pytest.param("1o", "7o 3o 1e", 30, id="000-pair-of-muestra-suit-no-pieza"),
    # 000, combination table: "3 cartas de diferente palo: puntos de la carta de mayor puntaje".
    pytest.param("1o", "7e 3b 1c", 7, id="000-three-suits-highest-7"),
    pytest.param("1o", "6e 5b 4c", 6, id="000-three-suits-highest-6"),
    # 000: "Cada mano puede tener entre 0 y 37 puntos."
    pytest.param("1o", "12e 11b 10c", 0, id="000-minimum-0"),
    pytest.param("1o", "2o 7b 1c", 37, id="000-maximum-37"),
    # 002: "Si tenés una Pieza, le sumás el valor de esa Pieza y el número más alto de las otras dos cartas. Las
    # Piezas (2, 4, 5, 10 y 11) valen 30, 29, 28, 27 y 27 puntos respectivamente."
    pytest.param("1o", "2o 7c 5e", 37, id="002-pieza-2-30-plus-7"),
    pytest.param("1o", "4o 6b 1e", 35, id="002-pieza-4-29-plus-6"),
    pytest.param("1o", "5o 3c 2e", 31, id="002-pieza-5-28-plus-3"),
    pytest.param("1o", "10o 12c 4b", 31, id="002-pieza-10-27-plus-4"),
    pytest.param("1o", "11o 11e 12b", 27, id="002-pieza-11-27-plus-figure"),
    pytest.param("4o", "12o 6b 1e", 35, id="002-substitute-12-for-4-is-29"),
    # 002: "Si tenés dos cartas del mismo palo, sumás los valores de las dos y le metés 20 puntos más."
    pytest.param("1o", "7c 5c 3e", 32, id="002-pair-7-5-copa"),
    pytest.param("1o", "6b 4b 7e", 30, id="002-pair-6-4-basto"),
    # 002: "Si las tres cartas son de distintos palos, el valor del envido es el número más alto".
    pytest.param("1o", "6e 3b 2c", 6, id="002-three-suits-highest"),
    pytest.param("1o", "1e 12b 11c", 1, id="002-three-suits-1-and-figures"),
    # 002: "Las cartas 12, 11 y 10 que no son de la muestra valen cero cada una, pero si tenés dos del mismo palo,
    # igual suman 20 puntos."
    pytest.param("1o", "12e 11e 3b", 20, id="002-two-figures-same-suit-20"),
    pytest.param("1o", "10c 12c 7b", 20, id="002-two-figures-copa-20-beats-lone-7"),
    pytest.param("1o", "12b 7b 4c", 27, id="002-figure-and-7-same-suit"),
    pytest.param("1o", "12e 11b 10c", 0, id="002-figures-different-suits-0"),
    pytest.param("7e", "12o 11o 6c", 20, id="002-figures-of-oro-not-muestra-suit"),
    # 004: "If a player holds a pieza: value of the pieza + the remaining highest card."
    pytest.param("7e", "2e 6o 3c", 36, id="004-pieza-2-espada-plus-6"),
    pytest.param("6b", "11b 7o 7c", 34, id="004-pieza-11-plus-7"),
    # 004: "If a player holds two cards of the same suit: add both and add 20."
    pytest.param("7e", "7o 6o 5c", 33, id="004-pair-oro"),
    # 004: "If all three cards are of different suits: the value is that of the highest card."
    pytest.param("7e", "5o 4c 3b", 5, id="004-three-suits"),
    # 004: "The maximum possible Envido is 37 (2 of the suit of the trump and a 7)."
    pytest.param("1o", "2o 7e 3b", 37, id="004-max-37-2o-7e"),
    pytest.param("12c", "2c 7o 4e", 37, id="004-max-37-2c-7o"),
    pytest.param("3b", "2b 7c 6o", 37, id="004-max-37-2b-7c"),
    pytest.param("1e", "2e 7b 11c", 37, id="004-max-37-2e-7b"),
    pytest.param("2o", "12o 7e 6b", 37, id="004-max-37-substitute-12-for-2"),
]


@pytest.mark.parametrize(("muestra", "cards", "expected"), ENVIDO_EXAMPLES)
def test_envido_points_examples(muestra: str, cards: str, expected: int) -> None:
    held = hand(cards)
    assert not has_flor(held, m(muestra))  # every envido example is a hand without flor
    assert envido_points(held, m(muestra)) == expected


@pytest.mark.parametrize(("muestra", "cards", "expected"), ENVIDO_EXAMPLES)
def test_envido_points_ignore_card_order(muestra: str, cards: str, expected: int) -> None:
    for order in itertools.permutations(hand(cards)):
        assert envido_points(order, m(muestra)) == expected


# --- Flor: which hands have it --------------------------------------------------------------------------------

FLOR_DEFINITION_EXAMPLES = [
    # 002: "directamente las tres cartas del mismo palo"; 004: "A player holds 3 cards of the same suit."
    pytest.param("1o", "7e 5e 1e", True, id="three-of-espada"),
    pytest.param("1o", "12c 11c 10c", True, id="three-figures-of-copa"),
    pytest.param("1o", "7o 6o 3o", True, id="three-of-muestra-suit-no-pieza"),
    # 002: "dos o tres Piezas"; 004: "A player holds at least 2 piezas."
    pytest.param("1o", "2o 4o 7c", True, id="two-piezas"),
    pytest.param("1o", "11o 10o 1e", True, id="two-lowest-piezas"),
    pytest.param("1o", "2o 4o 5o", True, id="three-piezas"),
    pytest.param("2o", "12o 4o 7c", True, id="two-piezas-with-substitute-12"),
    pytest.param("11c", "12c 10c 1e", True, id="substitute-12-and-10"),
    # 002: "una Pieza con dos cartas del mismo palo"; 004: "1 pieza and the other two cards of the same suit."
    pytest.param("1o", "10o 6b 4b", True, id="pieza-and-two-basto"),
    pytest.param("1o", "2o 7c 6c", True, id="pieza-and-two-copa"),
    pytest.param("7e", "5e 12o 11o", True, id="pieza-and-two-figures-of-oro"),
    pytest.param("1o", "2o 7o 6o", True, id="pieza-and-two-of-its-own-suit"),
    # No flor.
    pytest.param("1o", "11o 7e 3c", False, id="one-pieza-others-differ"),
    pytest.param("1o", "2o 7o 6c", False, id="pieza-plus-one-card-of-its-suit"),
    pytest.param("1o", "7e 6e 3b", False, id="pair-only"),
    pytest.param("1o", "7e 3b 1c", False, id="three-suits"),
    pytest.param("1o", "12o 4o 7c", False, id="12o-not-a-pieza-under-1o"),
    pytest.param("2o", "2e 4e 7c", False, id="piezas-of-another-suit-are-not-piezas"),
]


@pytest.mark.parametrize(("muestra", "cards", "expected"), FLOR_DEFINITION_EXAMPLES)
def test_has_flor_definitions(muestra: str, cards: str, expected: bool) -> None:
    for order in itertools.permutations(hand(cards)):
        assert has_flor(order, m(muestra)) is expected


# --- Flor points: the documents' examples ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("muestra", "card", "expected"),
    [
        # 002: "Las Piezas en el envido valen su puntaje menos 20: el 2 vale 10, el 4 vale 9, el 5 vale 8, el 11 y
        # el 10 valen 7."
        pytest.param("1o", "2o", 10, id="002-pieza-2-is-10"),
        pytest.param("1o", "4o", 9, id="002-pieza-4-is-9"),
        pytest.param("1o", "5o", 8, id="002-pieza-5-is-8"),
        pytest.param("1o", "11o", 7, id="002-pieza-11-is-7"),
        pytest.param("1o", "10o", 7, id="002-pieza-10-is-7"),
        pytest.param("4c", "12c", 9, id="002-substitute-12-for-4-is-9"),
        # 002: "El resto de las cartas suman según su número." (figures 0, rules-decisions.md)
        pytest.param("1o", "7e", 7, id="002-7-is-7"),
        pytest.param("1o", "3o", 3, id="002-3-of-muestra-suit-is-3"),
        pytest.param("1o", "12o", 0, id="002-12-not-pieza-is-0"),
        pytest.param("1o", "11e", 0, id="002-11-not-pieza-is-0"),
    ],
)
def test_flor_value_of_one_card(muestra: str, card: str, expected: int) -> None:
    assert flor_value(m(card), m(muestra)) == expected


FLOR_EXAMPLES = [
    # 004: "The maximum possible value of Flor is 47, holding the 2, 4, and 5 of the suit of the trump (30 + 9 + 8)."
    pytest.param("1o", "2o 4o 5o", 47, id="004-max-47-oro"),
    pytest.param("11e", "2e 4e 5e", 47, id="004-max-47-espada"),
    pytest.param("2b", "12b 4b 5b", 47, id="004-max-47-substitute-for-2"),
    pytest.param("4c", "2c 12c 5c", 47, id="004-max-47-substitute-for-4"),
    pytest.param("5o", "2o 4o 12o", 47, id="004-max-47-substitute-for-5"),
    # 004: "If there is more than one pieza, the full value of the highest one is taken and only the last digit
    # of the others."
    pytest.param("1o", "2o 11o 3c", 40, id="004-30-plus-7-plus-3"),
    pytest.param("1o", "4o 10o 7o", 43, id="004-29-plus-7-plus-7"),
    pytest.param("1o", "11o 10o 6e", 40, id="004-27-plus-7-plus-6"),
    pytest.param("1o", "2o 4o 7c", 46, id="004-30-plus-9-plus-7"),
    pytest.param("1o", "5o 11o 10o", 42, id="004-28-plus-7-plus-7"),
    # 002: "Siempre se cuenta un valor mínimo de 20 puntos." + "Las Piezas ... valen su puntaje menos 20" +
    # "El resto de las cartas suman según su número."
    pytest.param("1o", "12c 11c 10c", 20, id="002-minimum-20-three-figures"),
    pytest.param("1o", "7e 6e 5e", 38, id="002-three-espadas-20-plus-18"),
    pytest.param("1o", "3b 2b 1b", 26, id="002-three-bastos-20-plus-6"),
    pytest.param("1o", "7o 6o 12o", 33, id="002-three-oros-no-pieza"),
    pytest.param("1o", "2o 7c 6c", 43, id="002-pieza-2-10-plus-7-plus-6"),
    pytest.param("1o", "4o 1e 3e", 33, id="002-pieza-4-9-plus-1-plus-3"),
    pytest.param("1o", "5o 12b 11b", 28, id="002-pieza-5-8-plus-figures"),
    pytest.param("1o", "11o 10o 7c", 41, id="002-pieza-11-and-10-7-each-plus-7"),
    pytest.param("1o", "11o 10o 12o", 34, id="002-two-piezas-and-12-not-pieza"),
    pytest.param("10o", "12o 7b 6b", 40, id="002-substitute-12-for-10-is-7"),
]


@pytest.mark.parametrize(("muestra", "cards", "expected"), FLOR_EXAMPLES)
def test_flor_points_examples(muestra: str, cards: str, expected: int) -> None:
    held = hand(cards)
    assert has_flor(held, m(muestra))
    for order in itertools.permutations(held):
        assert flor_points(order, m(muestra)) == expected


# --- Exhaustive: every muestra and every hand -----------------------------------------------------------------

PIEZA_POINTS = (30, 29, 28, 27, 27)  # rules-decisions.md, in the order 2, 4, 5, 11, 10

# rules-decisions.md trick order below the piezas, highest first; ranks in a group tie.
ORDINARY_RANKING: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split())
    for group in (
        "1e",
        "1b",
        "7e",
        "7o",
        "3e 3b 3o 3c",
        "2e 2b 2o 2c",
        "1c 1o",
        "12e 12b 12o 12c",
        "11e 11b 11o 11c",
        "10e 10b 10o 10c",
        "7b 7c",
        "6e 6b 6o 6c",
        "5e 5b 5o 5c",
        "4e 4b 4o 4c",
    )
)


def independent_piezas(muestra: Card) -> list[Card]:
    """The 2, 4, 5, 11, 10 of the muestra's suit; the 12 stands in for the muestra when it is one of them."""
    ranks = [12 if rank == muestra.rank else rank for rank in (2, 4, 5, 11, 10)]
    return [next(card for card in DECK if card.rank == rank and card.suit is muestra.suit) for rank in ranks]


def independent_has_flor(suits: tuple[str, str, str], pieza_count: int, other_suits: tuple[str, ...]) -> bool:
    """The three definitions of 002/004 and rules-decisions.md, written independently of the engine: three cards
    of one suit, two or three piezas, or one pieza plus two other cards of one suit."""
    return (
        suits[0] == suits[1] == suits[2] or pieza_count >= 2 or (pieza_count == 1 and other_suits[0] == other_suits[1])
    )


@dataclass
class Survey:
    """What the exhaustive walk over every (muestra, hand) pair found."""

    pairs: int = 0
    flor_hands: int = 0
    max_envido_without_flor: int = -1
    min_envido_without_flor: int = 99
    max_envido_any: int = -1
    max_flor: int = -1
    min_flor: int = 99
    seconds: float = 0.0
    has_flor_mismatches: list[str] = field(default_factory=list)
    envido_mismatches: list[str] = field(default_factory=list)
    flor_mismatches: list[str] = field(default_factory=list)


def _face(card: Card) -> int:
    return card.rank if card.rank <= 7 else 0


@pytest.fixture(scope="module")
def survey() -> Iterator[Survey]:
    """Walk all 40 muestras x C(39, 3) hands once; the tests below each check one finding."""
    result = Survey()
    start = time.perf_counter()
    for muestra in DECK:
        for ra, rb, rc in itertools.combinations(_records(muestra), 3):
            result.pairs += 1
            cards = (ra[0], rb[0], rc[0])
            held = [r for r in (ra, rb, rc) if r[2]]
            rest = [r for r in (ra, rb, rc) if not r[2]]
            expected_flor = independent_has_flor((ra[1], rb[1], rc[1]), len(held), tuple(r[1] for r in rest))
            flor = has_flor(cards, muestra)
            if flor != expected_flor:
                result.has_flor_mismatches.append(f"{muestra} {' '.join(map(str, cards))}: {flor}")
            envido = envido_points(cards, muestra)
            if envido > result.max_envido_any:
                result.max_envido_any = envido
            if not expected_flor:
                _survey_envido(result, muestra, (ra, rb, rc), held, rest, envido)
            else:
                _survey_flor(result, muestra, (ra, rb, rc), held)
    result.seconds = time.perf_counter() - start
    yield result


_Record = tuple[Card, str, bool, int, int, int]
"""A card of the 39 left beside a muestra: (card, suit letter, is pieza, envido value, face number, flor value as
004's "last digit" of a pieza)."""


def _records(muestra: Card) -> list[_Record]:
    """The 39 cards left beside ``muestra``, each with what the independent counts read of it (precomputed)."""
    pieza_points = dict(zip(independent_piezas(muestra), PIEZA_POINTS, strict=True))
    return [
        (
            card,
            str(card)[-1],
            card in pieza_points,
            pieza_points.get(card, _face(card)),
            _face(card),
            pieza_points[card] % 10 if card in pieza_points else _face(card),
        )
        for card in DECK
        if card != muestra
    ]


def _survey_envido(
    result: Survey,
    muestra: Card,
    hand: tuple[_Record, _Record, _Record],
    held: list[_Record],
    rest: list[_Record],
    envido: int,
) -> None:
    """A hand without flor: its envido's bounds, and a mismatch with the independent count."""
    ra, rb, rc = hand
    if envido > result.max_envido_without_flor:
        result.max_envido_without_flor = envido
    if envido < result.min_envido_without_flor:
        result.min_envido_without_flor = envido
    # Independent envido (rules-decisions.md "Points of a hand"); a hand without flor holds at most
    # one pieza: its value plus the higher face of the two others. Else the best same-suit pair
    # gives 20 plus both; else the highest card.
    if held:
        expected = held[0][3] + max(rest[0][4], rest[1][4])
    else:
        expected = max(ra[3], rb[3], rc[3])
        for x, y in ((ra, rb), (ra, rc), (rb, rc)):
            if x[1] == y[1] and 20 + x[3] + y[3] > expected:
                expected = 20 + x[3] + y[3]
    if envido != expected:
        result.envido_mismatches.append(f"{muestra} {' '.join(str(r[0]) for r in hand)}: {envido}")


def _survey_flor(result: Survey, muestra: Card, hand: tuple[_Record, _Record, _Record], held: list[_Record]) -> None:
    """A hand with flor: its flor points' bounds, and a mismatch with the independent count."""
    ra, rb, rc = hand
    result.flor_hands += 1
    points = flor_points((ra[0], rb[0], rc[0]), muestra)
    if points > result.max_flor:
        result.max_flor = points
    if points < result.min_flor:
        result.min_flor = points
    # Independent flor: 004's "full value of the highest pieza, last digit of the others" for hands
    # with piezas; 002's "20 plus each card's number" for three of a suit without piezas.
    if held:
        best = max(held, key=lambda r: r[3])
        expected = best[3] + sum(r[5] for r in hand if r is not best)
    else:
        expected = 20 + ra[4] + rb[4] + rc[4]
    if points != expected:
        result.flor_mismatches.append(f"{muestra} {' '.join(str(r[0]) for r in hand)}: {points}")


def test_exhaustive_visits_every_pair(survey: Survey) -> None:
    assert survey.pairs == 40 * comb(39, 3) == 365_560


def test_exhaustive_has_flor_matches_the_three_definitions(survey: Survey) -> None:
    assert survey.has_flor_mismatches[:20] == []
    # Counted by hand per muestra (39 cards left: 5 piezas, 4 other cards of the muestra's suit, 30 of the other
    # suits): two or three piezas C(5,2)*34 + C(5,3) = 350; one pieza and two others of one suit
    # 5 * (C(4,2) + 3*C(10,2)) = 705; three of one suit without piezas C(4,3) + 3*C(10,3) = 364.
    assert survey.flor_hands == 40 * (350 + 705 + 364)


def test_exhaustive_envido_never_above_37_without_flor(survey: Survey) -> None:
    # 000: "Cada mano puede tener entre 0 y 37 puntos"; 004: "The maximum possible Envido is 37".
    assert survey.max_envido_without_flor == 37
    assert survey.min_envido_without_flor == 0


def test_exhaustive_envido_never_above_37_for_any_hand(survey: Survey) -> None:
    # The engine's formula also serves flor hands when a match plays without flor; it keeps the 37 maximum.
    assert survey.max_envido_any == 37


def test_exhaustive_envido_matches_independent_formula(survey: Survey) -> None:
    assert survey.envido_mismatches[:20] == []


def test_exhaustive_flor_never_above_47(survey: Survey) -> None:
    # 004: "The maximum possible value of Flor is 47"; 002: "Siempre se cuenta un valor mínimo de 20 puntos."
    assert survey.max_flor == 47
    assert survey.min_flor == 20


def test_exhaustive_flor_matches_independent_formula(survey: Survey) -> None:
    assert survey.flor_mismatches[:20] == []


def test_exhaustive_runs_in_a_few_seconds(survey: Survey) -> None:
    print(f"exhaustive walk over {survey.pairs} pairs: {survey.seconds:.2f}s")
    assert survey.seconds < 30


@pytest.mark.parametrize("muestra", DECK, ids=[str(card) for card in DECK])
def test_strength_order_for_every_muestra(muestra: Card) -> None:
    """Sorting the 40 cards by strength gives rules-decisions.md's ranking: the five piezas alone on top in the
    order 2, 4, 5, 11, 10 (the 12 standing in for the muestra), then the ordinary order without them."""
    pieza_names = [str(card) for card in independent_piezas(muestra)]
    expected = [frozenset([name]) for name in pieza_names]
    for group in ORDINARY_RANKING:
        rest = group - set(pieza_names)
        if rest:
            expected.append(rest)
    ordered = sorted(DECK, key=lambda card: strength(card, muestra), reverse=True)
    got: list[frozenset[str]] = []
    previous: int | None = None
    for card in ordered:
        value = strength(card, muestra)
        if value != previous:
            got.append(frozenset())
            previous = value
        got[-1] = got[-1] | {str(card)}
    assert got == expected
