"""The web table's own players in a real browser (issue 36, item 4): against ``truco serve`` with its defaults
(quotas on), two browsers that were handed no player token press "Jugar ya", get their tokens from the web door
(``POST /table/player-token``), are matched into one table, play it out by clicking, and find the rated match in
the ranking and in their history, the same player on a later visit. Runs that one test of web/e2e/table.test.mjs
(test_web_browser.py runs it with the rest); the build, the server and Chromium are test_web_browser.py's."""

from __future__ import annotations

import os
import re
import subprocess

from .test_web_browser import ARTIFACTS, CHROMIUM, WEB, browser_work, player_signing, web_url

__all__ = ["browser_work", "player_signing", "web_url"]  # the fixtures this module's test uses

OWN_PLAYERS = (
    "Jugar ya with the table's own players: two browsers with no token are matched, play a rated match, and find "
    "it in their ranking"
)


def test_two_browsers_without_a_token_play_a_rated_quick_match(web_url: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "TRUCO_WEB_URL": web_url, "TRUCO_ARTIFACTS": str(ARTIFACTS), "CHROMIUM": str(CHROMIUM)}
    result = subprocess.run(
        [
            "node",
            "--test",
            f"--test-name-pattern={re.escape(OWN_PLAYERS)}",
            "--test-reporter=tap",
            "e2e/table.test.mjs",
        ],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-8000:]
    assert re.search(rf"^\s*ok \d+ - {re.escape(OWN_PLAYERS)}$", output, re.MULTILINE), output[-4000:]
    assert "# pass 1" in output and "# fail 0" in output, output[-4000:]
    assert re.search(r"the table's own players: match over after \d+ \+ \d+ clicks", output), output[-4000:]
    assert (ARTIFACTS / "web-ranking-own-player-desktop.png").stat().st_size > 10_000
