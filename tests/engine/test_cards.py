"""Cards, the muestra and its piezas, the trick order and each card's envido value (rules-decisions.md,
"Cards, deal, order"; 000's card table; 002 "Muestra y Piezas"; 004 "Card values")."""

from __future__ import annotations

import pytest

from truco.engine.cards import (
    DECK,
    RANKS,
    SUITS,
    Card,
    CardParseError,
    Suit,
    envido_value,
    is_pieza,
    parse_cards,
    piezas,
    strength,
)

SUIT_LETTERS = ("e", "b", "o", "c")
ALL_TEXTS = [f"{rank}{letter}" for letter in SUIT_LETTERS for rank in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)]


def c(text: str) -> Card:
    return Card.parse(text)


# --- Parsing and printing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ALL_TEXTS, ids=ALL_TEXTS)
def test_parse_then_print_round_trip(text: str) -> None:
    card = Card.parse(text)
    assert str(card) == text
    assert repr(card) == f"Card('{text}')"
    assert Card.parse(str(card)) is card
    assert card.rank == int(text[:-1])
    assert card.suit is Suit(text[-1])


@pytest.mark.parametrize("card", DECK, ids=[str(card) for card in DECK])
def test_print_then_parse_round_trip(card: Card) -> None:
    assert Card.parse(str(card)) is card
    assert Card.of(card.rank, card.suit) is card


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("7O", "7o", id="upper-case-suit"),
        pytest.param(" 12c ", "12c", id="surrounding-blanks"),
        pytest.param("1E", "1e", id="upper-case-espada"),
    ],
)
def test_parse_ignores_case_and_blanks(text: str, expected: str) -> None:
    assert str(Card.parse(text)) == expected


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("8e", id="no-8"),
        pytest.param("9o", id="no-9"),
        pytest.param("13c", id="no-13"),
        pytest.param("0b", id="no-0"),
        pytest.param("1x", id="bad-suit-letter"),
        pytest.param("", id="empty"),
        pytest.param("e1", id="suit-first"),
        pytest.param("e", id="suit-only"),
        pytest.param("12", id="number-only"),
        pytest.param("1e1", id="trailing-digit"),
    ],
)
def test_parse_rejects_bad_text(text: str) -> None:
    with pytest.raises(CardParseError):
        Card.parse(text)


@pytest.mark.parametrize(("rank", "suit"), [(8, Suit.ESPADA), (9, Suit.COPA), (13, Suit.ORO), (0, Suit.BASTO)])
def test_card_of_rejects_missing_ranks(rank: int, suit: Suit) -> None:
    with pytest.raises(CardParseError):
        Card.of(rank, suit)


def test_parse_cards_parses_in_order_and_stops_on_a_bad_card() -> None:
    assert [str(card) for card in parse_cards(["1e", "7o", "12c"])] == ["1e", "7o", "12c"]
    with pytest.raises(CardParseError):
        parse_cards(["1e", "8o"])


# --- The deck ---------------------------------------------------------------------------------------------


def test_deck_has_40_distinct_cards() -> None:
    assert len(DECK) == 40
    assert len(set(DECK)) == 40
    assert len({(card.rank, card.suit) for card in DECK}) == 40
    assert sorted(str(card) for card in DECK) == sorted(ALL_TEXTS)


def test_deck_has_no_8_9_and_ten_ranks_per_suit() -> None:
    assert set(RANKS) == {1, 2, 3, 4, 5, 6, 7, 10, 11, 12}
    assert set(SUITS) == set(Suit)
    for suit in Suit:
        assert sorted(card.rank for card in DECK if card.suit is suit) == [1, 2, 3, 4, 5, 6, 7, 10, 11, 12]


def test_card_index_is_its_position_in_the_deck() -> None:
    assert [card.index for card in DECK] == list(range(40))
    assert len({hash(card) for card in DECK}) == 40


# --- Piezas -----------------------------------------------------------------------------------------------

# rules-decisions.md / 002 "Muestra y Piezas": 2, 4, 5, 11, 10 of the muestra's suit, in that order; if the
# muestra is one of them, the 12 of that suit takes its place (same position).
PIEZAS_TABLE = [
    pytest.param("1o", ["2o", "4o", "5o", "11o", "10o"], id="1o"),
    pytest.param("7e", ["2e", "4e", "5e", "11e", "10e"], id="7e"),
    pytest.param("3b", ["2b", "4b", "5b", "11b", "10b"], id="3b"),
    pytest.param("6c", ["2c", "4c", "5c", "11c", "10c"], id="6c"),
    pytest.param("12c", ["2c", "4c", "5c", "11c", "10c"], id="12c-not-a-pieza"),
    pytest.param("2o", ["12o", "4o", "5o", "11o", "10o"], id="2o-is-pieza"),
    pytest.param("4e", ["2e", "12e", "5e", "11e", "10e"], id="4e-is-pieza"),
    pytest.param("5b", ["2b", "4b", "12b", "11b", "10b"], id="5b-is-pieza"),
    pytest.param("11c", ["2c", "4c", "5c", "12c", "10c"], id="11c-is-pieza"),
    pytest.param("10o", ["2o", "4o", "5o", "11o", "12o"], id="10o-is-pieza"),
]


@pytest.mark.parametrize(("muestra", "expected"), PIEZAS_TABLE)
def test_piezas_table(muestra: str, expected: list[str]) -> None:
    assert [str(card) for card in piezas(c(muestra))] == expected


@pytest.mark.parametrize("muestra", DECK, ids=[str(card) for card in DECK])
def test_piezas_for_every_muestra(muestra: Card) -> None:
    expected = [f"{12 if rank == muestra.rank else rank}{muestra.suit.value}" for rank in (2, 4, 5, 11, 10)]
    got = piezas(muestra)
    assert [str(card) for card in got] == expected
    assert muestra not in got
    assert all(card.suit is muestra.suit for card in got)
    # is_pieza agrees with piezas() for all 40 cards.
    assert {card for card in DECK if is_pieza(card, muestra)} == set(got)


# --- Trick order ------------------------------------------------------------------------------------------

# rules-decisions.md: piezas (2, 4, 5, 11, 10) > 1e > 1b > 7e > 7o > any 3 > any 2 > 1c = 1o > any 12 > any 11
# > any 10 > 7b = 7c > any 6 > any 5 > any 4.  Highest first; cards in one group tie.
ORDINARY_GROUPS: list[list[str]] = [
    ["1e"],
    ["1b"],
    ["7e"],
    ["7o"],
    ["3e", "3b", "3o", "3c"],
    ["2e", "2b", "2o", "2c"],
    ["1c", "1o"],
    ["12e", "12b", "12o", "12c"],
    ["11e", "11b", "11o", "11c"],
    ["10e", "10b", "10o", "10c"],
    ["7b", "7c"],
    ["6e", "6b", "6o", "6c"],
    ["5e", "5b", "5o", "5c"],
    ["4e", "4b", "4o", "4c"],
]


def expected_ranking(pieza_texts: list[str]) -> list[frozenset[str]]:
    """The ranking, highest first: each pieza alone, then the ordinary groups without the piezas."""
    groups = [frozenset([text]) for text in pieza_texts]
    for group in ORDINARY_GROUPS:
        rest = frozenset(text for text in group if text not in pieza_texts)
        if rest:
            groups.append(rest)
    return groups


def engine_ranking(muestra: Card) -> list[frozenset[str]]:
    """The 40 cards grouped by the engine's strength, highest first."""
    by_strength: dict[int, set[str]] = {}
    for card in DECK:
        by_strength.setdefault(strength(card, muestra), set()).add(str(card))
    return [frozenset(by_strength[value]) for value in sorted(by_strength, reverse=True)]


@pytest.mark.parametrize(("muestra", "pieza_texts"), PIEZAS_TABLE)
def test_trick_order_table(muestra: str, pieza_texts: list[str]) -> None:
    assert engine_ranking(c(muestra)) == expected_ranking(pieza_texts)


@pytest.mark.parametrize(
    ("muestra", "higher", "lower"),
    [
        pytest.param("1o", "10o", "1e", id="lowest-pieza-beats-1e"),
        pytest.param("1o", "2o", "4o", id="2-beats-4"),
        pytest.param("1o", "4o", "5o", id="4-beats-5"),
        pytest.param("1o", "5o", "11o", id="5-beats-11"),
        pytest.param("1o", "11o", "10o", id="11-beats-10"),
        pytest.param("1o", "1e", "1b", id="1e-beats-1b"),
        pytest.param("1o", "7o", "3e", id="7o-beats-any-3"),
        pytest.param("1o", "2e", "1o", id="any-2-beats-1o"),
        pytest.param("1o", "1c", "12e", id="1c-beats-any-12"),
        pytest.param("1o", "10c", "7c", id="any-10-beats-7c"),
        pytest.param("7e", "5e", "1e", id="pieza-5e-beats-1e"),
        pytest.param("7e", "1e", "7o", id="1e-beats-7o"),
        pytest.param("12c", "10c", "1e", id="muestra-12-pieza-10c-beats-1e"),
        pytest.param("4b", "12b", "5b", id="substitute-12-beats-5"),
        pytest.param("4b", "2b", "12b", id="2-beats-substitute-12"),
        pytest.param("4b", "12b", "1e", id="substitute-12-beats-1e"),
        pytest.param("4b", "1e", "4b", id="muestra-4b-is-just-a-4"),
    ],
)
def test_trick_order_pairs(muestra: str, higher: str, lower: str) -> None:
    m = c(muestra)
    assert strength(c(higher), m) > strength(c(lower), m)


@pytest.mark.parametrize(
    ("muestra", "a", "b"),
    [
        pytest.param("1o", "1c", "1o", id="1c-equals-1o"),
        pytest.param("1o", "7b", "7c", id="7b-equals-7c"),
        pytest.param("1o", "3e", "3c", id="threes-tie"),
        pytest.param("1o", "12o", "12b", id="12o-not-pieza-ties-12b"),
        pytest.param("7e", "2o", "2c", id="twos-tie"),
    ],
)
def test_trick_order_ties(muestra: str, a: str, b: str) -> None:
    assert strength(c(a), c(muestra)) == strength(c(b), c(muestra))


PIEZA_MUESTRAS = [f"{rank}{letter}" for letter in SUIT_LETTERS for rank in (2, 4, 5, 11, 10)]


@pytest.mark.parametrize("muestra", PIEZA_MUESTRAS, ids=PIEZA_MUESTRAS)
def test_substitute_12_takes_the_rank_of_the_pieza_it_replaces(muestra: str) -> None:
    m = c(muestra)
    twelve = Card.of(12, m.suit)
    # The same pieza rank under a muestra where it is not replaced (the 1 of that suit).
    plain_muestra = Card.of(1, m.suit)
    assert is_pieza(twelve, m)
    assert not is_pieza(m, m)
    assert strength(twelve, m) == strength(m, plain_muestra)
    assert envido_value(twelve, m) == envido_value(m, plain_muestra)
    # Under a muestra that is not a pieza the 12 of the suit is an ordinary 12.
    assert not is_pieza(twelve, plain_muestra)
    assert strength(twelve, plain_muestra) == strength(Card.of(12, Suit.ESPADA), plain_muestra)


# --- Envido value of one card -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("muestra", "card", "expected"),
    [
        # 000's card table / 002 / 004: piezas 30, 29, 28, 27, 27.
        pytest.param("1o", "2o", 30, id="pieza-2"),
        pytest.param("1o", "4o", 29, id="pieza-4"),
        pytest.param("1o", "5o", 28, id="pieza-5"),
        pytest.param("1o", "11o", 27, id="pieza-11"),
        pytest.param("1o", "10o", 27, id="pieza-10"),
        pytest.param("6e", "2e", 30, id="pieza-2-espada"),
        pytest.param("3c", "10c", 27, id="pieza-10-copa"),
        # 004: "If the trump is a pieza, the 12 of that suit takes the value of the corresponding pieza."
        pytest.param("2o", "12o", 30, id="substitute-for-2"),
        pytest.param("4b", "12b", 29, id="substitute-for-4"),
        pytest.param("5c", "12c", 28, id="substitute-for-5"),
        pytest.param("11e", "12e", 27, id="substitute-for-11"),
        pytest.param("10o", "12o", 27, id="substitute-for-10"),
        # 000's card table: the other cards.
        pytest.param("1o", "1e", 1, id="1e"),
        pytest.param("1o", "1b", 1, id="1b"),
        pytest.param("1o", "7e", 7, id="7e"),
        pytest.param("1o", "7o", 7, id="7o-of-muestra-suit"),
        pytest.param("1o", "3b", 3, id="any-3"),
        pytest.param("1o", "2c", 2, id="any-2-not-pieza"),
        pytest.param("1o", "1c", 1, id="1c"),
        pytest.param("1o", "7b", 7, id="7b"),
        pytest.param("1o", "6c", 6, id="any-6"),
        pytest.param("1o", "5e", 5, id="any-5-not-pieza"),
        pytest.param("1o", "4b", 4, id="any-4-not-pieza"),
        # 004: 10, 11 and 12 worth 0.
        pytest.param("1o", "12o", 0, id="12-of-muestra-suit-not-pieza"),
        pytest.param("1o", "12e", 0, id="any-12"),
        pytest.param("1o", "11b", 0, id="any-11-not-pieza"),
        pytest.param("1o", "10c", 0, id="any-10-not-pieza"),
        # The muestra itself is not a pieza: it counts as an ordinary card.
        pytest.param("2o", "2o", 2, id="muestra-2-is-ordinary"),
        pytest.param("11o", "11o", 0, id="muestra-11-is-ordinary"),
    ],
)
def test_envido_value(muestra: str, card: str, expected: int) -> None:
    assert envido_value(c(card), c(muestra)) == expected


@pytest.mark.parametrize("muestra", DECK, ids=[str(card) for card in DECK])
def test_envido_value_of_every_card(muestra: Card) -> None:
    pieza_values = dict(zip(piezas(muestra), (30, 29, 28, 27, 27), strict=True))
    for card in DECK:
        expected = pieza_values.get(card, card.rank if card.rank <= 7 else 0)
        assert envido_value(card, muestra) == expected, (str(card), str(muestra))
