"""Rounds (vueltas) and who takes the hand: 000's pardas table and rules-decisions.md "Tricks and the hand"."""

from __future__ import annotations

import pytest

from truco.engine.cards import Card
from truco.engine.tricks import hand_winner, round_result, team_of

# --- Who takes the hand: 000's table --------------------------------------------------------------------------

# 000, "Ganador primer ronda / segunda ronda / tercera ronda / Ganador de la mano": A and B are the two teams,
# E a parda ("Empate"), "-" a round that is not played ("No se juega"); M is the team of the mano ("Primer
# jugador en tirar su carta").
PARDAS_TABLE = [
    ("ABA", "A"),
    ("ABB", "B"),
    ("AA-", "A"),
    ("ABE", "A"),
    ("AE-", "A"),
    ("EA-", "A"),
    ("EEA", "A"),
    ("EEE", "M"),
]


def _cases() -> list[object]:
    cases: list[object] = []
    for rounds, winner in PARDAS_TABLE:
        for team_a in (0, 1):
            for mano_team in (0, 1):
                cases.append(
                    pytest.param(rounds, winner, team_a, mano_team, id=f"{rounds}->{winner}-A{team_a}-mano{mano_team}")
                )
    return cases


def _results(rounds: str, team_a: int) -> list[int | None]:
    letters = {"A": team_a, "B": 1 - team_a, "E": None}
    return [letters[letter] for letter in rounds if letter != "-"]


@pytest.mark.parametrize(("rounds", "winner", "team_a", "mano_team"), _cases())
def test_pardas_table(rounds: str, winner: str, team_a: int, mano_team: int) -> None:
    expected = {"A": team_a, "B": 1 - team_a, "M": mano_team}[winner]
    assert hand_winner(_results(rounds, team_a), mano_team=mano_team) == expected


@pytest.mark.parametrize(
    ("rounds", "winner"),
    [
        # rules-decisions.md / 004: "If there is a tie in the first trick, the second trick defines the round."
        pytest.param("EB-", "B", id="parda-then-B"),
        pytest.param("EEB", "B", id="two-pardas-then-B"),
        # "a parda in round 2 or 3 -> the winner of round 1 takes the hand"
        pytest.param("BE-", "B", id="B-then-parda"),
        pytest.param("BAE", "B", id="B-A-parda"),
        pytest.param("BB-", "B", id="B-twice"),
        pytest.param("BAB", "B", id="B-A-B"),
        pytest.param("BAA", "A", id="B-A-A"),
    ],
)
@pytest.mark.parametrize("mano_team", [0, 1])
def test_pardas_table_mirrored_rows(rounds: str, winner: str, mano_team: int) -> None:
    for team_a in (0, 1):
        expected = {"A": team_a, "B": 1 - team_a}[winner]
        assert hand_winner(_results(rounds, team_a), mano_team=mano_team) == expected


@pytest.mark.parametrize(
    "rounds",
    [
        pytest.param("", id="no-round"),
        pytest.param("A", id="A"),
        pytest.param("B", id="B"),
        pytest.param("E", id="parda"),
        pytest.param("AB", id="A-B"),
        pytest.param("BA", id="B-A"),
        pytest.param("EE", id="parda-parda"),
    ],
)
@pytest.mark.parametrize("team_a", [0, 1])
@pytest.mark.parametrize("mano_team", [0, 1])
def test_undecided_prefixes_return_none(rounds: str, team_a: int, mano_team: int) -> None:
    assert hand_winner(_results(rounds, team_a), mano_team=mano_team) is None


# --- One round ------------------------------------------------------------------------------------------------


def plays(*moves: tuple[int, str]) -> list[tuple[int, Card]]:
    return [(seat, Card.parse(text)) for seat, text in moves]


def test_seats_alternate_teams() -> None:
    assert [team_of(seat) for seat in range(6)] == [0, 1, 0, 1, 0, 1]


@pytest.mark.parametrize(
    ("muestra", "moves", "expected"),
    [
        # The higher card takes the round; its player leads the next one.
        pytest.param("1o", [(0, "3e"), (1, "1e")], (1, 1), id="2p-1e-beats-3e"),
        pytest.param("1o", [(1, "7o"), (0, "7e")], (0, 0), id="2p-7e-beats-7o"),
        pytest.param("1o", [(0, "1e"), (1, "10o")], (1, 1), id="2p-lowest-pieza-beats-1e"),
        pytest.param("1o", [(1, "2o"), (0, "4o")], (1, 1), id="2p-pieza-2-beats-pieza-4"),
        pytest.param("4o", [(0, "12o"), (1, "5o")], (0, 0), id="2p-substitute-12-beats-5"),
        pytest.param("4o", [(0, "12o"), (1, "2o")], (1, 1), id="2p-2-beats-substitute-12"),
        pytest.param("1o", [(0, "4c"), (1, "5c")], (1, 1), id="2p-5-beats-4"),
        pytest.param("1o", [(1, "12b"), (0, "1c")], (0, 0), id="2p-1c-beats-12"),
        pytest.param("1o", [(2, "6e"), (3, "2b"), (0, "4e"), (1, "5b")], (1, 3), id="4p-2b-best"),
        pytest.param(
            "7c",
            [(3, "1b"), (4, "3e"), (5, "1e"), (0, "2c"), (1, "6c"), (2, "12c")],
            (0, 0),
            id="6p-pieza-2c-beats-1e",
        ),
        # A tie inside one team is that team's round, won by the first of them to play the card.
        pytest.param("1o", [(2, "7b"), (3, "5e"), (0, "7c"), (1, "4c")], (0, 2), id="4p-team0-tie-first-wins"),
        pytest.param("1o", [(0, "6e"), (1, "3b"), (2, "4c"), (3, "3o")], (1, 1), id="4p-team1-tie-first-wins"),
        pytest.param(
            "1o",
            [(1, "2e"), (2, "12b"), (3, "6c"), (4, "5c"), (5, "2c"), (0, "4e")],
            (1, 1),
            id="6p-team1-tie-seats-1-5",
        ),
        pytest.param(
            "1o",
            [(4, "3e"), (5, "1c"), (0, "3o"), (1, "12c"), (2, "3b"), (3, "7c")],
            (0, 4),
            id="6p-team0-three-way-tie",
        ),
        # Tied cards below a better card do not make a parda.
        pytest.param("1o", [(0, "3e"), (1, "3b"), (2, "1e"), (3, "4c")], (0, 2), id="4p-tie-then-1e-wins"),
        pytest.param("1o", [(1, "3e"), (2, "3b"), (3, "4c"), (0, "7o")], (0, 0), id="4p-tie-then-7o-wins"),
    ],
)
def test_round_result_winner(muestra: str, moves: list[tuple[int, str]], expected: tuple[int, int]) -> None:
    assert round_result(plays(*moves), Card.parse(muestra)) == expected


@pytest.mark.parametrize(
    ("muestra", "moves", "leader"),
    [
        # Equal best cards of opposing teams make a parda; the seat that led the round leads again.
        pytest.param("1o", [(0, "3e"), (1, "3b")], 0, id="2p-threes"),
        pytest.param("1o", [(1, "1c"), (0, "1o")], 1, id="2p-1c-equals-1o"),
        pytest.param("1o", [(0, "7b"), (1, "7c")], 0, id="2p-7b-equals-7c"),
        pytest.param("1o", [(1, "12o"), (0, "12e")], 1, id="2p-12o-not-pieza-ties"),
        pytest.param("1o", [(3, "3e"), (0, "3b"), (1, "4e"), (2, "5e")], 3, id="4p-led-by-seat-3"),
        pytest.param("1o", [(2, "4e"), (3, "2c"), (0, "2e"), (1, "6o")], 2, id="4p-led-by-seat-2-tie-later"),
        pytest.param("1o", [(0, "3e"), (1, "3b"), (2, "3o")], 0, id="tie-joined-by-a-teammate"),
        pytest.param(
            "1o",
            [(5, "6e"), (0, "11b"), (1, "3c"), (2, "4c"), (3, "5b"), (4, "3e")],
            5,
            id="6p-led-by-seat-5",
        ),
    ],
)
def test_round_result_parda(muestra: str, moves: list[tuple[int, str]], leader: int) -> None:
    assert round_result(plays(*moves), Card.parse(muestra)) == (None, leader)
