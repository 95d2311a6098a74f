"""The javalite flavour of the Kotlin/Android SDK (clients/kotlin-lite, artifact truco-client-kotlin-lite): the
Kotlin SDK's own sources and the Java SDK's helpers compiled by Maven against messages protoc generates with its
``lite`` option, checked against Android API 24 by animal-sniffer as the build runs, with no protobuf-java (the
classes an app that has Firebase would get twice), and proven by its example bot playing whole matches against
``truco serve`` with its defaults (quotas on): from PlayGame sessions, and from WatchGame streams with
SubmitCommand, whose refusals' ``google.rpc`` details the lite build reads without protobuf-java's classes.

Toolchains (java, mvn) are required: under CI this runs, never skips."""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..servers import ProcessServer
from .test_sdks import BotRun, assert_finished, public_view

ROOT = Path(__file__).resolve().parents[2]
SDK_PLAY = ROOT / "scripts" / "sdk-play"
LITE = ROOT / "clients" / "kotlin-lite"
BUILD_SECONDS = 1500.0
"""The first build resolves the javalite flavour's Maven artifacts (protoc, protobuf-javalite, the Kotlin compiler)."""
MATCH_SECONDS = 240.0


@pytest.fixture(scope="module")
def built() -> list[str]:
    """The flavour built by ``scripts/sdk-play kotlin-lite --build-only``; its dependencies' jar names."""
    if shutil.which("mvn") is None and os.environ.get("CI") != "true":
        pytest.skip("Maven is needed to build the Kotlin SDK (under CI this fails instead)")
    build = subprocess.run(
        [str(SDK_PLAY), "kotlin-lite", "--build-only"], cwd=ROOT, capture_output=True, text=True, timeout=BUILD_SECONDS
    )
    assert build.returncode == 0, build.stderr[-6000:]
    return [Path(jar).name for jar in (LITE / "target" / "classpath.txt").read_text().strip().split(":")]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ProcessServer]:
    """``truco serve`` with its defaults: quotas on, 30 s clocks."""
    running = ProcessServer(f"sqlite:///{tmp_path / 'lite.db'}", tmp_path, limits=True)
    yield running
    running.kill()


def test_the_lite_flavour_depends_on_protobuf_javalite_and_never_on_protobuf_java(built: list[str]) -> None:
    assert any(jar.startswith("protobuf-javalite-") for jar in built), built
    assert any(jar.startswith("grpc-protobuf-lite-") for jar in built), built
    full = [jar for jar in built if jar.startswith(("protobuf-java-", "grpc-protobuf-1", "proto-google-common"))]
    assert not full, f"the full protobuf runtime would give an app duplicate classes: {full}"
    assert not [jar for jar in built if jar.startswith("truco-client-")], "the lite flavour builds its own messages"


def test_the_lite_jar_holds_lite_messages_its_r8_rules_and_no_examples(built: list[str]) -> None:
    version = (ROOT / "VERSION").read_text().strip()
    with zipfile.ZipFile(LITE / "target" / f"truco-client-kotlin-lite-{version}.jar") as jar:
        names = set(jar.namelist())
        card = jar.read("uy/truco/v1/Card.class")
    assert {"uy/truco/kotlin/TrucoClient.class", "uy/truco/client/TrucoException.class"} <= names
    assert b"com/google/protobuf/GeneratedMessageLite" in card, "the messages extend the lite runtime's base class"
    rules = {"META-INF/proguard/truco-client-kotlin-lite.pro", "META-INF/proguard/truco-client-kotlin.pro"}
    assert rules <= names, "consumer R8 rules: the lite messages' and gRPC's providers'"
    assert not [name for name in names if "/examples/" in name or name.startswith("META-INF/maven/")]


@pytest.mark.parametrize("mode", ["session", "watch"])
def test_the_lite_flavour_plays_a_whole_match_against_a_default_server(
    built: list[str], server: ProcessServer, mode: str
) -> None:
    run = BotRun.start("kotlin-lite", server.address, "--players", "4", f"--{mode}")
    try:
        status, result = run.result(MATCH_SECONDS)
    finally:
        run.stop()
    # The bot names its flavour from its messages' base class: "kotlin-lite" only on protobuf-javalite's.
    assert_finished("kotlin-lite", status, result, players=4)
    final = public_view(server.address, str(result["game"]))
    assert [score.points for score in sorted(final.scores, key=lambda s: s.team)] == result["scores"]
