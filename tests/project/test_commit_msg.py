"""The commit message check (scripts/commit-msg, CONTRIBUTING.md) and the hook ./dev installs for it
(scripts/install-hooks): good messages pass, each kind of bad one is named, and a worktree's commit is checked."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKER = ROOT / "scripts" / "commit-msg"
INSTALLER = ROOT / "scripts" / "install-hooks"


def load_checker() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("commit_msg", str(CHECKER))
    spec = importlib.util.spec_from_loader("commit_msg", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


commit_msg = load_checker()

BODY = "\n\nThe why, in a sentence or two, and what was measured:\n3.2 ms per move before, 2.9 ms after.\n"

GOOD = {
    "imperative": "Add a link check to the docs test" + BODY,
    "an area first": "bench: Move the dated runs to bench/journal" + BODY,
    "72 characters": "Fix " + "x" * 68 + BODY,
    "a verb ending like a past tense": "Embed the proto descriptors in the wire package" + BODY,
    "a verb ending like a third person": "Process appends in groups on the writer thread" + BODY,
    "git's comments and scissors": "Fix the lobby's order\n# Please enter the commit message\n"
    + BODY
    + "# ------------------------ >8 ------------------------\n"
    + "diff --git a/x b/x\n"
    + "+"
    + "y" * 100
    + "\n",
    "a long command, table row or URL": "Cache the deal's commitments"
    + BODY
    + "    .venv-compiled/bin/python bench/capacity_bench.py --scenarios ramp,realplay,affinity --quick\n"
    + "| K | 2,500 | 2,800 | 3,200 | 3,300 | 3,600 | 4,000 | 4,500 | 5,000 | 5,500 | 6,000 | 6,500 |\n"
    + "https://example.com/a/very/long/address/that/cannot/be/wrapped/at/seventy-two/characters\n",
    "a merge": "Merge branch 'house' into main, with a subject as long as git makes it for a long branch name",
    "a fixup": "fixup! Add a link check to the docs test",
    "a revert": 'Revert "Add a link check to the docs test"\n\nThis reverts commit 9922cb8.\n',
}

BAD = {
    "73 characters": ("Fix " + "x" * 69 + BODY, "the subject is 73 characters: at most 72"),
    "past tense": ("Added a link check" + BODY, "'Added' looks like past tense"),
    "third person": ("Adds a link check" + BODY, "'Adds' looks like third person"),
    "a gerund": ("bench: Moving the dated runs" + BODY, "'Moving' looks like a gerund"),
    "no capital": ("add a link check" + BODY, "start with a capitalised verb"),
    "a full stop": ("Add a link check." + BODY, "the subject ends with a full stop"),
    "no body": ("Add a link check\n", "no body"),
    "no blank line": ("Add a link check\nbecause links broke\n", "the second line is not blank"),
    "an unwrapped body": ("Add a link check\n\n" + "word " * 20 + "\n", "line 3 is 99 characters: wrap the body at 72"),
    "empty": ("# only comments\n\n", "the message is empty"),
}


@pytest.mark.parametrize("message", GOOD.values(), ids=GOOD.keys())
def test_a_message_that_keeps_the_convention_passes(message: str) -> None:
    assert commit_msg.problems(message) == []


@pytest.mark.parametrize(("message", "problem"), BAD.values(), ids=BAD.keys())
def test_a_message_that_breaks_the_convention_is_named(message: str, problem: str) -> None:
    found = commit_msg.problems(message)
    assert any(problem in line for line in found), found


def test_every_problem_of_a_message_is_named_at_once() -> None:
    found = commit_msg.problems("Fixed the lobby's order, which listed finished games first and open ones last.\n")
    assert len(found) == 4 and found[-1].startswith("no body"), found


def run_checker(tmp_path: Path, message: str) -> subprocess.CompletedProcess[str]:
    file = tmp_path / "COMMIT_EDITMSG"
    file.write_text(message)
    return subprocess.run([sys.executable, CHECKER, file], capture_output=True, text=True, timeout=60)


def test_the_script_exits_1_with_one_line_per_problem(tmp_path: Path) -> None:
    good = run_checker(tmp_path, GOOD["imperative"])
    assert (good.returncode, good.stderr) == (0, "")
    bad = run_checker(tmp_path, "Added a link check.\n")
    assert bad.returncode == 1
    lines = bad.stderr.splitlines()
    assert all(line.startswith("commit-msg: ") for line in lines) and "CONTRIBUTING.md" in lines[-1]
    assert len(lines) == 4  # the full stop, the tense, no body; then where the convention is


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    # No global or system configuration: their hooksPath or templates must not decide the outcome.
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    config = ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"]
    return subprocess.run(["git", *config, *args], cwd=cwd, env=env, capture_output=True, text=True, check=check)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_installed_hook_checks_commits_in_a_worktree(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    for script in (CHECKER, INSTALLER):
        shutil.copy2(script, repo / "scripts" / script.name)
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "--no-verify", "-m", "Start\n\nThe scripts only.")
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    side = tmp_path / "side"

    installed = subprocess.run([side / "scripts" / "install-hooks"], capture_output=True, text=True, timeout=60)
    assert installed.returncode == 0 and "installed the commit message check" in installed.stderr
    hook = repo / ".git" / "hooks" / "commit-msg"  # the hooks every worktree shares
    assert os.access(hook, os.X_OK)
    again = subprocess.run([side / "scripts" / "install-hooks"], capture_output=True, text=True, timeout=60)
    assert (again.returncode, again.stderr) == (0, "")

    (side / "file").write_text("one\n")
    git(side, "add", "file")
    refused = git(side, "commit", "-q", "-m", "Added a file", check=False)
    assert refused.returncode != 0 and "'Added' looks like past tense" in refused.stderr
    git(side, "commit", "-q", "-m", "Add a file\n\nTo show that a good message passes the hook.")
    assert git(side, "log", "-1", "--format=%s").stdout.strip() == "Add a file"

    # A tree without the checker (a branch from before it) commits as it always did.
    (repo / "scripts" / "commit-msg").unlink()
    (repo / "other").write_text("two\n")
    git(repo, "add", "other")
    git(repo, "commit", "-q", "-m", "anything goes here")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_hook_of_another_origin_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    shutil.copy2(INSTALLER, tmp_path / "scripts" / INSTALLER.name)
    git(tmp_path, "init", "-q")
    hook = tmp_path / ".git" / "hooks" / "commit-msg"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\nexit 0\n")
    result = subprocess.run([tmp_path / "scripts" / "install-hooks"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "not ours" in result.stderr
    assert hook.read_text() == "#!/bin/sh\nexit 0\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_copy_inside_another_repository_installs_nothing_there(tmp_path: Path) -> None:
    """An unpacked or vendored copy of the project leaves the hooks of the repository around it alone."""
    git(tmp_path, "init", "-q")
    copy = tmp_path / "vendor" / "truco" / "scripts"
    copy.mkdir(parents=True)
    shutil.copy2(INSTALLER, copy / INSTALLER.name)
    result = subprocess.run([copy / INSTALLER.name], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stderr) == (0, "")
    assert not (tmp_path / ".git" / "hooks" / "commit-msg").exists()
