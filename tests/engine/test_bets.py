"""What the bets pay: the envido chain (toques), flor against flor (cantos) and truco (gritos).

Documents: 000 (Spanish encyclopedia article), 002 (Spanish player's guide), 004 (English guide), and
rules-decisions.md. 002's envido bullets ("Envido: ... se juegan 3 tantos", "Real Envido: ... 2 tantos") contradict
000 and 004; rules-decisions.md fixes envido 2 and real envido 3, which is what is tested here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from truco.engine import envido, flor, truco_calls
from truco.engine.calls import CallKind

E = CallKind.ENVIDO
R = CallKind.REAL_ENVIDO
F = CallKind.FALTA_ENVIDO
CFE = CallKind.CON_FLOR_ENVIDO
CF = CallKind.CONTRA_FLOR
CFR = CallKind.CONTRA_FLOR_AL_RESTO

# --- Envido ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chain", "expected"),
    [
        # 000's examples table: "Envido / Quiero: 2 puntos para el equipo con mayor puntaje de envido".
        pytest.param([E], 2, id="000-envido-quiero-2"),
        # 000: "Envido / Envido / Quiero: 4 puntos"; 004: "Envido–Envido: 4 points".
        pytest.param([E, E], 4, id="000-004-envido-envido-quiero-4"),
        # 000: "Real envido / Quiero: 3 puntos".
        pytest.param([R], 3, id="000-real-envido-quiero-3"),
        # 000: "Envido / Real envido / Quiero: 5 puntos"; 004: "Envido–Real Envido: 5 points".
        pytest.param([E, R], 5, id="000-004-envido-real-envido-quiero-5"),
        # rules-decisions.md: "Accepted: the sum of the chain".
        pytest.param([E, E, R], 7, id="envido-envido-real-quiero-7"),
    ],
)
@pytest.mark.parametrize("falta", [1, 6, 30])
def test_envido_accepted(chain: list[CallKind], expected: int, falta: int) -> None:
    assert envido.accepted_value(chain, falta=falta) == expected


@pytest.mark.parametrize(
    "chain",
    [
        # 000: "Falta envido / Quiero: la cantidad de puntos que le falta al equipo que va primero".
        pytest.param([F], id="000-falta-quiero"),
        # rules-decisions.md: "an accepted falta envido is worth the falta alone".
        pytest.param([E, F], id="envido-falta"),
        pytest.param([R, F], id="real-falta"),
        pytest.param([E, R, F], id="envido-real-falta"),
        pytest.param([E, E, R, F], id="envido-envido-real-falta"),
    ],
)
@pytest.mark.parametrize("falta", [1, 6, 17, 30])
def test_envido_accepted_falta_is_the_falta_alone(chain: list[CallKind], falta: int) -> None:
    assert envido.accepted_value(chain, falta=falta) == falta


@pytest.mark.parametrize(
    ("chain", "expected"),
    [
        # 000: "Envido / No quiero: 1 punto para el equipo A"; 004: "If declined, the challenger wins 1 point."
        pytest.param([E], 1, id="000-envido-no-quiero-1"),
        # 000: "Envido / Envido / No quiero: 2 puntos para el equipo B"; 004: "Envido–Envido: ... (2 if declined)".
        pytest.param([E, E], 2, id="000-004-envido-envido-no-quiero-2"),
        # 004: "Envido–Real Envido: 5 points (2 if declined)."
        pytest.param([E, R], 2, id="004-envido-real-envido-no-quiero-2"),
        # 002: "Si la primera apuesta no se acepta, el que la cantó se lleva un punto."
        pytest.param([R], 1, id="002-real-envido-no-quiero-1"),
        pytest.param([F], 1, id="002-falta-envido-no-quiero-1"),
        # rules-decisions.md: "the caller of the declined call takes the sum of the chain before it".
        pytest.param([E, F], 2, id="envido-falta-no-quiero-2"),
        pytest.param([R, F], 3, id="real-falta-no-quiero-3"),
        pytest.param([E, E, R], 4, id="envido-envido-real-no-quiero-4"),
        pytest.param([E, R, F], 5, id="envido-real-falta-no-quiero-5"),
        pytest.param([E, E, F], 4, id="envido-envido-falta-no-quiero-4"),
        pytest.param([E, E, R, F], 7, id="envido-envido-real-falta-no-quiero-7"),
    ],
)
def test_envido_declined(chain: list[CallKind], expected: int) -> None:
    assert envido.declined_value(chain) == expected


@pytest.mark.parametrize(
    ("chain", "allowed"),
    [
        pytest.param([], [E, R, F], id="open-any"),
        pytest.param([E], [E, R, F], id="after-envido"),
        pytest.param([E, E], [R, F], id="envido-at-most-twice"),
        pytest.param([R], [F], id="real-once-and-no-envido-after-it"),
        pytest.param([E, R], [F], id="after-envido-real"),
        pytest.param([E, E, R], [F], id="after-envido-envido-real"),
        pytest.param([F], [], id="falta-ends"),
        pytest.param([E, F], [], id="falta-ends-after-envido"),
        pytest.param([E, E, R, F], [], id="falta-ends-full-chain"),
    ],
)
def test_allowed_envido_calls(chain: list[CallKind], allowed: list[CallKind]) -> None:
    assert list(envido.allowed_envido_calls(chain)) == allowed


def _all_chains(
    allowed: Callable[[Sequence[CallKind]], tuple[CallKind, ...]], chain: tuple[CallKind, ...] = ()
) -> set[tuple[CallKind, ...]]:
    """Every chain the rule ``allowed`` lets a player build, raise after raise."""
    found: set[tuple[CallKind, ...]] = set()
    for call in allowed(list(chain)):
        longer = (*chain, call)
        found.add(longer)
        found |= _all_chains(allowed, longer)
    return found


def test_every_envido_chain() -> None:
    """Envido at most twice, real envido once, falta envido last, in non-decreasing order: eleven chains."""
    expected = {(E,), (E, E), (E, E, R), (E, E, R, F), (E, E, F), (E, R), (E, R, F), (E, F), (R,), (R, F), (F,)}
    assert _all_chains(envido.allowed_envido_calls) == expected


# --- Flor against flor ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chain", "allowed"),
    [
        pytest.param([], [CFE, CF, CFR], id="open-any"),
        pytest.param([CFE], [CF, CFR], id="after-con-flor-envido"),
        pytest.param([CF], [CFR], id="after-contra-flor"),
        pytest.param([CFE, CF], [CFR], id="after-con-flor-envido-contra-flor"),
        pytest.param([CFR], [], id="al-resto-ends"),
        pytest.param([CFE, CF, CFR], [], id="full-chain-ends"),
    ],
)
def test_allowed_flor_calls(chain: list[CallKind], allowed: list[CallKind]) -> None:
    assert list(flor.allowed_flor_calls(chain)) == allowed


def test_every_flor_chain() -> None:
    expected = {(CFE,), (CFE, CF), (CFE, CF, CFR), (CFE, CFR), (CF,), (CF, CFR), (CFR,)}
    assert _all_chains(flor.allowed_flor_calls) == expected


@pytest.mark.parametrize(
    ("flores", "expected"),
    [
        # 002: with no raise the best flor's team takes 3 for every flor at the table.
        pytest.param(2, 6, id="two-flores-6"),
        pytest.param(3, 9, id="three-flores-9"),
        pytest.param(6, 18, id="six-flores-18"),
    ],
)
def test_flor_unraised(flores: int, expected: int) -> None:
    assert flor.unraised_value(flores) == expected


@pytest.mark.parametrize(
    ("chain", "flores", "falta", "expected"),
    [
        # rules-decisions.md: "Accepted: the winner takes every flor's 3 points plus the chain"; con flor envido
        # +2, contra flor +3.
        pytest.param([CFE], 2, 30, 8, id="con-flor-envido-2-flores-8"),
        pytest.param([CF], 2, 30, 9, id="contra-flor-2-flores-9"),
        pytest.param([CFE, CF], 2, 30, 11, id="con-flor-envido-contra-flor-2-flores-11"),
        pytest.param([CF], 3, 30, 12, id="contra-flor-3-flores-12"),
        pytest.param([CFE], 4, 30, 14, id="con-flor-envido-4-flores-14"),
        # 000: "En el pico a pico ... la Contra Flor al Resto serán 12 puntos (6 pts. + las 2 Flores)."
        pytest.param([CFR], 2, 6, 12, id="000-pico-a-pico-al-resto-12"),
        pytest.param([CFE, CFR], 2, 6, 12, id="000-pico-a-pico-after-con-flor-envido-12"),
        pytest.param([CFE, CF, CFR], 2, 6, 12, id="000-pico-a-pico-full-chain-12"),
        # Contra flor al resto accepted = 3 x flores + the falta alone.
        pytest.param([CFR], 2, 17, 23, id="al-resto-falta-17"),
        pytest.param([CF, CFR], 3, 30, 39, id="al-resto-3-flores-falta-30"),
    ],
)
def test_flor_accepted(chain: list[CallKind], flores: int, falta: int, expected: int) -> None:
    assert flor.accepted_value(chain, flores=flores, falta=falta) == expected


@pytest.mark.parametrize(
    ("chain", "raiser_flores", "expected"),
    [
        # 004: "If the challenges are declined, the challenger wins the 3 points for their Flor."
        pytest.param([CFE], 1, 3, id="004-con-flor-envido-declined-3"),
        pytest.param([CF], 1, 3, id="004-contra-flor-declined-3"),
        pytest.param([CFR], 1, 3, id="004-al-resto-declined-3"),
        # rules-decisions.md: "the raiser's team takes 3 for each of its own flores plus the chain before the
        # declined call".
        pytest.param([CFE, CF], 1, 5, id="contra-flor-after-con-flor-envido-declined-5"),
        pytest.param([CFE, CFR], 1, 5, id="al-resto-after-con-flor-envido-declined-5"),
        pytest.param([CF, CFR], 1, 6, id="al-resto-after-contra-flor-declined-6"),
        pytest.param([CFE, CF, CFR], 1, 8, id="al-resto-full-chain-declined-8"),
        pytest.param([CF], 2, 6, id="contra-flor-raiser-2-flores-6"),
        pytest.param([CFE, CFR], 2, 8, id="al-resto-raiser-2-flores-after-cfe-8"),
    ],
)
def test_flor_declined(chain: list[CallKind], raiser_flores: int, expected: int) -> None:
    assert flor.declined_value(chain, raiser_flores=raiser_flores) == expected


# --- Truco ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "accepted", "declined"),
    [
        # 000 / 002 / 004: truco 2, retruco 3, vale cuatro 4; no quiero pays the value before the call.
        pytest.param(CallKind.TRUCO, 2, 1, id="truco"),
        pytest.param(CallKind.RETRUCO, 3, 2, id="retruco"),
        pytest.param(CallKind.VALE_CUATRO, 4, 3, id="vale-cuatro"),
    ],
)
def test_truco_values(call: CallKind, accepted: int, declined: int) -> None:
    assert truco_calls.VALUE_IF_ACCEPTED[call] == accepted
    assert truco_calls.value_if_declined(call) == declined


def test_uncalled_hand_is_worth_one() -> None:
    # 004: "If nobody calls Truco, the round is worth 1 point."
    assert truco_calls.UNCALLED_VALUE == 1


@pytest.mark.parametrize(
    ("current_value", "expected"),
    [
        pytest.param(1, CallKind.TRUCO, id="1-truco"),
        pytest.param(2, CallKind.RETRUCO, id="2-retruco"),
        pytest.param(3, CallKind.VALE_CUATRO, id="3-vale-cuatro"),
        pytest.param(4, None, id="4-nothing-above-vale-cuatro"),
    ],
)
def test_next_truco_call(current_value: int, expected: CallKind | None) -> None:
    assert truco_calls.next_truco_call(current_value) is expected


def test_truco_ladder_walk() -> None:
    """Calling and accepting up the ladder: 1 -> 2 -> 3 -> 4; refusing any call pays the value it raised."""
    value = truco_calls.UNCALLED_VALUE
    seen: list[CallKind] = []
    while (call := truco_calls.next_truco_call(value)) is not None:
        assert truco_calls.value_if_declined(call) == value
        value = truco_calls.VALUE_IF_ACCEPTED[call]
        seen.append(call)
    assert seen == [CallKind.TRUCO, CallKind.RETRUCO, CallKind.VALE_CUATRO]
    assert value == 4
