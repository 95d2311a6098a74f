"""The Kotlin/Android SDK README's lifecycle paths, run by its example (clients/kotlin/.../examples/Lifecycle.kt) on
the JVM against ``truco serve`` with its defaults: a join cut by process death sent again with the kept request id
(same seat, same token), a new process resuming from the kept token alone, a network change (the channel dropped
to idle, the next call reconnecting), and backgrounding (LeaveGame: a bot plays the seat; ResumeSeat takes it back).

Toolchains (java, mvn) are required: under CI this runs, never skips."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..servers import ProcessServer

ROOT = Path(__file__).resolve().parents[2]
SDK_PLAY = ROOT / "scripts" / "sdk-play"
BUILD_SECONDS = 1500.0
"""The first build resolves the JVM SDKs' Maven artifacts."""


@pytest.fixture(scope="module")
def classpath() -> str:
    if shutil.which("mvn") is None and os.environ.get("CI") != "true":
        pytest.skip("Maven is needed to build the Kotlin SDK (under CI this fails instead)")
    built = subprocess.run(
        [str(SDK_PLAY), "kotlin", "--build-only"], cwd=ROOT, capture_output=True, text=True, timeout=BUILD_SECONDS
    )
    assert built.returncode == 0, built.stderr[-6000:]
    dependencies = (ROOT / "clients" / "kotlin" / "target" / "classpath.txt").read_text().strip()
    return f"{ROOT / 'clients' / 'kotlin' / 'target' / 'classes'}:{dependencies}"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ProcessServer]:
    """``truco serve`` with its defaults: quotas on, 30 s clocks."""
    running = ProcessServer(f"sqlite:///{tmp_path / 'lifecycle.db'}", tmp_path, limits=True)
    yield running
    running.kill()


def test_the_readmes_lifecycle_paths_hold_against_a_default_server(
    classpath: str, server: ProcessServer, tmp_path: Path
) -> None:
    state = tmp_path / "seat.properties"
    result = subprocess.run(
        ["java", "-cp", classpath, "uy.truco.kotlin.examples.LifecycleKt", server.address, "--state", str(state)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1, result.stdout + result.stderr[-4000:]
    paths = json.loads(lines[0])
    held = {"join_again": True, "resumed": True, "network": True, "background": True}
    assert paths == {"sdk": "kotlin-lifecycle", **held}
    assert result.returncode == 0, result.stderr[-4000:]
    kept = state.read_text()
    assert "token=" in kept and "join_request_id=" in kept, "what an app keeps, and nothing else is needed"
