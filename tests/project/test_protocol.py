"""The proto is the public contract: lint clean, no breaking change to what was released, stubs in sync."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUF = ROOT / "scripts" / "buf"
RELEASED = ROOT / "proto" / "released" / "truco-v1.binpb"


def buf(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BUF), *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_buf_lint_is_clean() -> None:
    result = buf("lint", "proto")
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_breaking_change_against_the_released_contract() -> None:
    result = buf("breaking", "proto", "--against", str(RELEASED))
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_breaking_check_catches_a_removed_field(tmp_path: Path) -> None:
    copy = tmp_path / "proto"
    shutil.copytree(ROOT / "proto", copy, ignore=shutil.ignore_patterns("released"))
    cards = copy / "truco" / "v1" / "cards.proto"
    text = cards.read_text()
    assert "  Suit suit = 2;\n" in text
    cards.write_text(text.replace("  // The card's suit.\n  Suit suit = 2;\n", ""))
    result = buf("breaking", str(copy), "--against", str(RELEASED))
    assert result.returncode != 0
    assert "suit" in (result.stdout + result.stderr)


def test_generated_code_is_in_sync_with_the_protos() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_proto.py"), "--check"], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("module", ["cards", "commands", "events", "rules", "views", "game_service", "rules_service"])
def test_every_generated_module_imports_through_the_sdk_package(module: str) -> None:
    imported = __import__(f"truco_client.v1.{module}_pb2", fromlist=["DESCRIPTOR"])
    assert imported.DESCRIPTOR.package == "truco.v1"
