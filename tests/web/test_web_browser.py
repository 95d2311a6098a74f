"""The web table in a real browser: builds web/ (npm ci, vite build), starts ``truco serve`` with its web port
serving the build, and runs web/e2e/ with node's test runner: table.test.mjs (playwright-core driving Debian's
Chromium; no browser download) plays a 2-player match on a desktop and a 4-player match on a 390×844 phone by
clicking, lets a clock run out and takes the seat back, leaves (asked first) and comes back, steps away for a
minute of the stand-in's pace in 2 and 4 players and takes the seat back from another device, sees a friend's
arrival on the host's page within a second, lets the host start a waiting table with bots (1280×800 and 390×844),
reloads mid-match and finds the log intact, plays a rematch, lists and joins an open table, plays "Jugar ya" (two
players with tokens signed by an app's key registered here are matched to one table; the ranking page reads the
leaderboard; two browsers with no token get theirs from the web door and play a rated match out), and checks
every text it meets; messages.test.mjs checks every message the page can make for voseo
and capitals, and that they use every template of the Spanish catalogue's web words. Screenshots, desktop and
phone, go to
test-artifacts/web/.

What it needs it installs: Debian's chromium package (apt-get) when /usr/bin/chromium is missing, and web/'s
npm packages (npm ci). Under CI=true a missing tool fails the test instead of skipping it.
"""

from __future__ import annotations

import fcntl
import os
import queue
import re
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
TRUCO = ROOT / ".venv" / "bin" / "truco"
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts" / "web"
WEB_URL = re.compile(r"Connect/gRPC-Web on http://localhost:(\d+)/")
IN_CI = os.environ.get("CI") == "true"


def _unavailable(why: str) -> None:
    if IN_CI:
        pytest.fail(f"browser tests cannot run under CI: {why}")
    pytest.skip(why)


def _run(command: list[str], cwd: Path, timeout: float) -> None:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        output = f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}):\n{output}")


def _ensure_chromium() -> None:
    if CHROMIUM.exists():
        return
    if shutil.which("apt-get") is None:
        _unavailable("no /usr/bin/chromium and no apt-get to install it")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        result = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
        if result.returncode != 0:
            _unavailable(f"{' '.join(command)} failed: {result.stderr[-2000:]}")


def _build_web() -> None:
    if shutil.which("npm") is None or shutil.which("node") is None:
        _unavailable("node and npm are needed to build the web table")
    # Parallel test workers may both get here: one installs and builds while the other waits.
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with (ROOT / "test-artifacts").joinpath(".web-build.lock").open("a") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        _install_and_build()


def _install_and_build() -> None:
    stamp = WEB / "node_modules" / ".truco-installed"
    lock = WEB / "package-lock.json"
    if not stamp.exists() or stamp.stat().st_mtime < lock.stat().st_mtime:
        _run(["npm", "ci", "--no-audit", "--no-fund"], WEB, 600)
        stamp.touch()
    _run(["npm", "run", "build"], WEB, 300)


@pytest.fixture(scope="module")
def browser_work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's folder: its store (browser.db) and its stderr."""
    return tmp_path_factory.mktemp("browser")


KEY_ID = re.compile(r"API key ([0-9a-f]{12}) ")


@pytest.fixture(scope="module")
def player_signing(browser_work: Path) -> dict[str, str]:
    """An app of the server's (an API key) with an HS256 signing key for its player tokens, as an app's operator
    registers them (README: "Players, quick match and rankings"): what the browser test mints its players'
    tokens with, handed to it as TRUCO_PLAYER_KEY_ID and TRUCO_PLAYER_SECRET."""
    store = ["--store", f"sqlite:///{browser_work / 'browser.db'}"]
    created = subprocess.run(
        [str(TRUCO), "keys", *store, "create", "--name", "web table"], capture_output=True, text=True, timeout=60
    )
    key = KEY_ID.search(created.stdout + created.stderr)
    assert created.returncode == 0 and key, created.stdout + created.stderr
    secret = os.urandom(32).hex()
    (browser_work / "player-secret").write_text(secret)
    command = [str(TRUCO), "keys", *store, "signing-key", "add", key.group(1), "--kid", "web-1"]
    _run([*command, "--hmac-secret-file", str(browser_work / "player-secret")], browser_work, 60)
    return {"TRUCO_PLAYER_KEY_ID": key.group(1), "TRUCO_PLAYER_KID": "web-1", "TRUCO_PLAYER_SECRET": secret}


@pytest.fixture(scope="module")
def web_url(browser_work: Path, player_signing: dict[str, str]) -> Iterator[str]:
    _ensure_chromium()
    _build_web()
    work = browser_work
    stderr = (work / "serve.stderr").open("wb")
    command = [
        str(TRUCO), "serve", "--store", f"sqlite:///{work / 'browser.db'}", "--host", "127.0.0.1", "--port", "0",
        "--metrics-port", "-1", "--web-port", "0", "--web-assets", str(WEB / "dist"), "--grace", "1",
        # The stand-in of an away seat at twelve times the product's pace (3 s a decision, 300 s of grace), so that
        # stepping away for a minute takes five seconds here.
        "--stand-in-pace", "0.25", "--away-grace", "20",
    ]  # fmt: skip
    process = subprocess.Popen(command, cwd=work, stdout=subprocess.PIPE, stderr=stderr, text=True)
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    out = process.stdout

    def pump() -> None:
        for line in out:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    try:
        first = lines.get(timeout=60)
    except queue.Empty:
        first = ""
    match = WEB_URL.search(first)
    if match is None:
        process.kill()
        raise RuntimeError(f"truco serve did not start: {first!r}\n{(work / 'serve.stderr').read_text()}")
    yield f"http://127.0.0.1:{match.group(1)}"
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)
    stderr.close()


BROWSER_TESTS = (
    "the lobby lists open tables and sits at one; the rules page and the favicon load",
    "a whole 2-player match by clicking: a refused move's reason, the clock, the end-of-hand summary, a reload that "
    "keeps the log, and a rematch",
    "a whole 4-player match on a phone, every button within the first screen",
    "a clock runs out: a bot takes the seat, the table says so, and the player takes it back; leaving and coming back",
    "a spectator page shows no hidden card",
    "a player who steps away for a minute comes back to the same match, from another device (2 and 4 players)",
    "a friend joins by link, shows on the host's page within a second, and gets a seña from their partner",
    "the host starts a table waiting for friends with bots, at 1280×800 and 390×844",
    "a rematch is offered to every human at the table, and the first deal passes on",
    "the table's boxes neither overlap nor clip at 1280×800 and 390×844",
    "Jugar ya: the lobby's panel, the page without a player token, the ranking, waiting with Cancelar, and into "
    "the table once matched",
    "Jugar ya against the server: two players, on a desktop and a phone, are matched to one table; the ranking "
    "page reads the leaderboard and the history",
    "Jugar ya with the table's own players: two browsers with no token are matched, play a rated match, and find "
    "it in their ranking",
    "every message of the table speaks voseo, starts with a capital and closes what it opens",
    "every template of the catalogue's web words is in a message checked above",
    "the page's other modules hold no prose: every sentence is in src/text.ts",
)
SHOTS = (
    "web-lobby-desktop",
    "web-lobby-phone",
    "web-rules-desktop",
    "web-rules-phone",
    "web-table-refused",
    "web-table-desktop",
    "web-summary-desktop",
    "web-table-match-over",
    "web-table-phone",
    "web-match-over-phone",
    "web-clock-ran-out",
    "web-table-left",
    "web-spectator",
    "web-away-desktop",
    "web-away-phone",
    "web-sena-received",
    "web-waiting-phone",
    "web-start-with-bots-desktop",
    "web-start-with-bots-phone",
    "web-layout-desktop",
    "web-layout-phone",
    "web-layout-summary-desktop",
    "web-layout-summary-phone",
    "web-quick-lobby-desktop",
    "web-quick-lobby-phone",
    "web-quick-waiting-desktop",
    "web-quick-waiting-phone",
    "web-quick-matched-desktop",
    "web-quick-matched-phone",
    "web-ranking-desktop",
    "web-ranking-own-player-desktop",
)


def test_the_web_table_in_a_real_browser(web_url: str, player_signing: dict[str, str]) -> None:
    """web/e2e/, every test of it passing in one run (one build, one server, one Chromium): whole matches by
    clicking on a desktop and a phone, the clock, leaving and coming back, a reload, a rematch, the lobby, a
    spectator, a seña, and every message checked for voseo and capitals. Its screenshots must be there and not
    blank."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    env = {**os.environ, "TRUCO_WEB_URL": web_url, "TRUCO_ARTIFACTS": str(ARTIFACTS), "CHROMIUM": str(CHROMIUM)}
    env.update(player_signing)
    result = subprocess.run(
        ["node", "--test", "--test-concurrency=1", "--test-reporter=tap", "e2e/"],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-8000:]
    for name in BROWSER_TESTS:
        assert re.search(rf"^\s*ok \d+ - {re.escape(name)}$", output, re.MULTILINE), f"{name!r} did not pass:\n{output}"
    assert re.search(r"^# pass (\d+)$", output, re.MULTILINE), output[-4000:]
    assert f"# pass {len(BROWSER_TESTS)}" in output, output[-4000:]
    assert re.search(r"2 players: match over after \d+ clicks", output)
    assert re.search(r"4 players: match over after \d+ clicks", output)
    assert re.search(r"the table's own players: match over after \d+ \+ \d+ clicks", output), output[-4000:]
    arrival = re.search(r"the friend's arrival reached the host's page in (\d+) ms", output)
    assert arrival and int(arrival.group(1)) <= 1000, output[-4000:]
    for shot in SHOTS:
        assert (ARTIFACTS / f"{shot}.png").stat().st_size > 10_000, shot
