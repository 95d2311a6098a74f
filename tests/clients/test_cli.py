"""The ``truco`` command's own options: ``--version`` names the build of the engine and the bots, and the web
table's folder defaults to ``$TRUCO_WEB_ASSETS`` (what the container image sets)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from truco.cli import __version__
from truco.cli.builds import build_of, builds, describe
from truco.cli.main import parser as _parser

TRUCO = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "truco"


def test_version_names_the_build_of_the_engine_and_the_bots() -> None:
    run = subprocess.run([str(TRUCO), "--version"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"truco {__version__} ({describe()})\n"
    found = builds()
    assert found == {"engine": build_of("truco.engine"), "bots": build_of("truco.bots")}
    expected = os.environ.get("TRUCO_EXPECT_BUILD")  # ./dev test runs this suite on the sources: pure
    if expected:
        assert found == {"engine": expected, "bots": expected}
    words = {"compiled": "compiled by mypyc", "pure": "pure Python"}
    assert run.stdout.strip().endswith(f"(engine {words[found['engine']]}, bots {words[found['bots']]})")


def test_a_package_that_is_not_installed_is_reported_missing() -> None:
    assert build_of("truco.no_such_package") == "missing"


def test_the_web_assets_default_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRUCO_WEB_ASSETS", "/opt/truco/web")
    assert _parser().parse_args(["serve"]).web_assets == "/opt/truco/web"
    assert _parser().parse_args(["serve", "--web-assets", "/srv/table"]).web_assets == "/srv/table"
    monkeypatch.delenv("TRUCO_WEB_ASSETS")
    assert _parser().parse_args(["serve"]).web_assets is None


def test_every_command_prints_its_help() -> None:
    """A ``%`` in a help text is a format directive to argparse: "95 % interval" broke ``truco --help``."""
    main = _parser()
    commands = next(action for action in main._actions if action.dest == "command").choices
    assert commands
    for argv in ([], *([name] for name in commands)):
        with pytest.raises(SystemExit) as done:
            main.parse_args([*argv, "--help"])
        assert done.value.code == 0, argv
