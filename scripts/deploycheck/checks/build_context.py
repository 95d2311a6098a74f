"""The build context is what the Dockerfile copies and nothing more: every source it copies exists and reaches the
context whole, .dockerignore lets back in only folders the Dockerfile copies, and local build output, caches,
databases, .git and the virtual environments stay out (a stale mypyc build/ or .so must never reach the
image's wheels). The context is walked as docker-py walks it (its port of Docker's own .dockerignore rules)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from docker.utils.build import exclude_paths

from deploycheck.image import Instruction
from deploycheck.model import Deploy

BUILD_OUTPUTS = frozenset(
    {"__pycache__", "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", "target"}
)
"""Folders of local build output and caches inside the sources, never what the image needs."""
GENERATED_SUFFIXES = (".pyc", ".so", ".db")
MUST_STAY_OUT = (
    ".git/config",
    ".venv/bin/python",
    ".venv-compiled/bin/python",
    "tests/engine/test_cards.py",
    "truco.db",
    "truco_uruguayo.egg-info/PKG-INFO",
    "engine/__pycache__/game.cpython-311.pyc",
    "engine/build/lib.linux-x86_64-cpython-311/truco_engine__mypyc.cpython-311-x86_64-linux-gnu.so",
    "engine/.mypy_cache/3.11/truco/engine/game.data.json",
    "engine/src/truco/engine/game.cpython-311-x86_64-linux-gnu.so",
    "clients/bots/build/temp.linux-x86_64-cpython-311/build/__native_truco_bots.o",
    "web/node_modules/vite/package.json",
    "web/dist/index.html",
    "clients/ts/node_modules/@bufbuild/protobuf/package.json",
    "test-artifacts/web/match.png",
)
"""Samples of what a working copy holds besides the sources: mypyc's, setuptools', npm's and Vite's output."""


def copied_sources(instructions: tuple[Instruction, ...]) -> list[tuple[Instruction, str]]:
    """(instruction, source) of every COPY and ADD from the build context (not --from another stage)."""
    return [
        (instruction, source.strip("/") or ".")
        for instruction in instructions
        if instruction.keyword in {"COPY", "ADD"} and instruction.flag("from") is None
        for source in instruction.words[:-1]
    ]


def check_build_context(deploy: Deploy) -> list[str]:
    if deploy.dockerfile is None or deploy.dockerignore is None:
        return ["Dockerfile or .dockerignore: missing"]
    context, problems = _context(deploy.root, deploy.dockerignore), []
    sources = copied_sources(deploy.dockerfile)
    for instruction, source in sources:
        if not (deploy.root / source).exists():
            problems.append(f"Dockerfile:{instruction.line}: copies {source}, which does not exist")
        left_out = next((f for f in _source_files(deploy.root, source) if f not in context), None)
        if left_out is not None:
            problems.append(f".dockerignore: leaves out {left_out}, which Dockerfile:{instruction.line} copies")
    let_back = {pattern[1:].strip("/").split("/")[0] for pattern in deploy.dockerignore if pattern.startswith("!")}
    for folder in sorted(let_back - {source.split("/")[0] for _, source in sources}):
        problems.append(f".dockerignore: lets {folder}/ back in, which the Dockerfile never copies")
    with tempfile.TemporaryDirectory(prefix="deploycheck-") as scratch:
        for junk in MUST_STAY_OUT:
            (Path(scratch) / junk).parent.mkdir(parents=True, exist_ok=True)
            (Path(scratch) / junk).touch()
        let_in = _context(Path(scratch), deploy.dockerignore)
    problems += [f".dockerignore: lets {junk} into the build context" for junk in MUST_STAY_OUT if junk in let_in]
    return problems


def _context(root: Path, patterns: tuple[str, ...]) -> set[str]:
    """The paths under ``root`` that `docker build` would send with these .dockerignore patterns."""
    return set(exclude_paths(str(root), list(patterns)))


def _source_files(root: Path, source: str) -> Iterator[str]:
    """The files under a copied source, without local build output and generated files."""
    path = root / source
    if path.is_file():
        yield source
    for folder, subfolders, files in os.walk(path):
        subfolders[:] = sorted(d for d in subfolders if d not in BUILD_OUTPUTS and not d.endswith(".egg-info"))
        for name in sorted(files):
            if not name.endswith(GENERATED_SUFFIXES):
                yield (Path(folder) / name).relative_to(root).as_posix()
