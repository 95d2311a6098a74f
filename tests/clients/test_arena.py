"""truco arena: paired matches between bots in this process or over gRPC, a repeatable report with the first
bot's win rate, its 95 % interval, the margin and ratings."""

from __future__ import annotations

import json

import pytest

from truco.bots.expert import DEFAULT_PLAYOUTS
from truco.cli.arena import ArenaOptions, contender, run_arena, wilson
from truco.cli.main import main


def test_the_report_says_who_won_how_often_and_how_sure_that_is() -> None:
    options = ArenaOptions("heuristic", "random", players=2, matches=12, seed=3, target=15)
    result = run_arena(options, progress=False)
    assert result["matches"] == 12 and result["wins"] + result["losses"] == 12
    assert result["win_rate"] == pytest.approx(result["wins"] / 12, abs=1e-4)
    low, high = result["ci95"]
    assert low <= result["win_rate"] <= high and (low, high) == pytest.approx(wilson(result["wins"], 12), abs=1e-4)
    assert result["wins"] >= 9 and result["mean_margin"] > 0  # the heuristic bot beats the random one
    ratings = result["ratings"]
    assert ratings["heuristic"]["mu"] > ratings["random"]["mu"]
    times = result["decision_time"]["heuristic"]
    assert times["decisions"] > 0
    # On the wall and in CPU (what a decision takes on a core of its own, however busy the machine is).
    assert 0 < times["p50_ms"] <= times["p99_ms"] <= times["max_ms"]
    assert 0 <= times["cpu_p50_ms"] <= times["cpu_p99_ms"] <= times["cpu_max_ms"]
    again = run_arena(options, progress=False)
    assert {k: v for k, v in again.items() if k not in ("seconds", "decision_time")} == {
        k: v for k, v in result.items() if k not in ("seconds", "decision_time")
    }


def test_the_command_prints_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arena", "intermediate", "beginner", "--players", "4", "--matches", "4", "--seed", "1", "--target",
                 "15", "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert {"matches", "wins", "win_rate", "ci95"} <= set(result) and result["matches"] == 4
    assert result["expert_playouts"] == DEFAULT_PLAYOUTS  # the budget a run's expert had, kept with its results


def test_unknown_bots_are_refused() -> None:
    for spec in ("nobody", "remote:nobody", "cmd:"):
        with pytest.raises(ValueError):
            contender(spec)
    assert main(["arena", "expert", "nobody", "--matches", "2"]) == 2


def test_a_bot_outside_the_process_plays_over_grpc_through_the_sdk() -> None:
    result = run_arena(ArenaOptions("remote:heuristic", "beginner", matches=2, seed=5, target=15), progress=False)
    assert result["matches"] == 2 and result["wins"] + result["losses"] == 2
    assert result["ratings"]["remote:heuristic"]["sigma"] < 25 / 3  # rated after each of its matches
    assert "remote:heuristic" not in result["decision_time"]  # it decided in its own processes
