"""The capacity benchmark's load generator (bench/loadgen, Go): its unit tests (the ramp and its knee, the report's
parsing of /proc and /metrics, the delivery tracker), then a tiny run against a real ``truco serve`` on SQLite:
two concurrent 2-player matches, every seat its own connection and watch, with per-commit watches and with the
released per-event ones. The report must count what the server did (moves from its metrics, its CPU from /proc)
and what the seats saw (a commit is one watch message per seat with ``per_commit``, several without).

Go is required (the SDK tests need it too): under CI this runs, never skips."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ..cluster_helpers import ROOT, load_cluster_script

LOADGEN = ROOT / "bench" / "loadgen"
cluster_script = load_cluster_script()


@pytest.fixture(scope="module")
def go() -> str:
    found = shutil.which("go")
    if found is None:
        pytest.fail("Go is needed for bench/loadgen (the SDK tests need it too)", pytrace=False)
    return found


def test_the_load_generators_own_tests_pass(go: str) -> None:
    run = subprocess.run([go, "vet", "./..."], cwd=LOADGEN, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    run = subprocess.run([go, "test", "-count=1", "./..."], cwd=LOADGEN, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_tiny_run_measures_the_server_and_what_the_seats_saw(go: str, tmp_path: Path) -> None:
    binary = tmp_path / "loadgen"
    subprocess.run([go, "build", "-o", str(binary), "."], cwd=LOADGEN, check=True, timeout=600)
    state = cluster_script.State(directory=str(tmp_path), serve_args=["--clock", "0"])
    replica = cluster_script.start_replica(state, 0, store=f"sqlite:///{tmp_path}/tiny.db")
    try:
        out = tmp_path / "report.json"
        command = [
            str(binary), "-server", replica.address, "-metrics", f"http://127.0.0.1:{replica.metrics_port}/metrics",
            "-group", f"server={replica.pid}", "-players", "2", "-target", "15", "-steps", "2", "-fixed",
            "-think", "40ms", "-jitter", "0.5", "-warmup", "1s", "-measure", "3s", "-idle", "0", "-empty", "1s",
            "-watch", "commit,event", "-label", "tiny", "-out", str(out),
        ]  # fmt: skip
        run = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr[-3000:]
        report: dict[str, Any] = json.loads(out.read_text())
    finally:
        cluster_script.stop_replica(replica)
    assert "K=2" in run.stderr  # progress while it runs
    assert [r["watch"] for r in report["runs"]] == ["commit", "event"]
    assert len(report["empty"]) == 2 and all(
        e["calls"] > 0 and e["server_cpu_ms_per_call"] > 0 for e in report["empty"]
    )
    for run_result in report["runs"]:
        (step,) = run_result["steps"]
        assert step["k"] == 2
        assert step["moves_applied"] > 0 and step["submit"]["count"] > 0
        assert step["errors"] == {} and step["deliveries_missing"] == 0
        # Every move is a seat's (no bots), delivered to the other seat, measured from the mover's reply.
        assert step["submit"]["count"] - 2 <= step["delivery"]["count"] <= step["submit"]["count"]
        assert step["delivery_from_send"]["count"] == step["delivery"]["count"]
        assert step["server_cpu_ms_per_move"] > 0 and step["server_rss_bytes"] > 0
        assert 0 < step["open_streams_server"] <= 4
        assert step["server_cpu_per_move_in_empty_calls"] > 1
    commit, event = (r["steps"][0] for r in report["runs"])
    # per_commit: one message per commit on each of the two seats' streams; per event: one per event, and a
    # commit often holds several (a card and the round it ends, a hand's end and the next deal).
    assert 1.8 <= commit["watch_messages_per_move"] <= 2.2
    assert event["watch_messages_per_move"] > commit["watch_messages_per_move"] + 0.3
