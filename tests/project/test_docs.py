"""The documentation's code runs: every docstring example (doctest) of every package, and the README's Python."""

from __future__ import annotations

import doctest
import importlib
import os
import pkgutil
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "truco.engine",
    "truco.bots",
    "truco_client",
    "truco.wire",
    "truco.commandline",
    "truco.server",
    "truco.cli",
)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def modules() -> list[str]:
    """Every module of the packages (the generated truco_client.v1 stubs hold no examples)."""
    names = []
    for name in PACKAGES:
        package = importlib.import_module(name)
        names.append(name)
        if hasattr(package, "__path__"):
            for info in pkgutil.walk_packages(package.__path__, name + "."):
                if not info.name.startswith("truco_client.v1"):
                    names.append(info.name)
    return sorted(names)


def examples(module: ModuleType) -> list[doctest.DocTest]:
    return [test for test in doctest.DocTestFinder().find(module) if test.examples]


WITH_EXAMPLES = [name for name in modules() if examples(importlib.import_module(name))]


def test_the_packages_have_doctests() -> None:
    assert {"truco.engine.cards", "truco_client.cards", "truco_client.errors"} <= set(WITH_EXAMPLES)


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_run(name: str) -> None:
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in examples(importlib.import_module(name)):
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.attempted > 0
    assert results.failed == 0, f"{results.failed} doctest example(s) of {name} failed (output above)"


def readme_python() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", (ROOT / "README.md").read_text(), flags=re.MULTILINE | re.DOTALL)


def test_the_readme_python_example_runs() -> None:
    blocks = readme_python()
    assert blocks, "the README has a Python example"
    for block in blocks:
        namespace: dict[str, object] = {}
        exec(compile(block, "README.md", "exec"), namespace)
    # The example plays a truco that seat 1 accepts, then seat 0's first card.
    game = namespace["game"]
    hand = game.state.hand  # type: ignore[attr-defined]
    assert hand.truco_value == 2 and len(hand.rounds[0]) == 1


RETIRED_WORDING = (
    re.compile(r"\breveal(s|ed|ing)?\b[^.]{0,40}\b(salt|deck order|the deal)\b", re.IGNORECASE),
    re.compile(r"\b(salt|deck order|the deal)\b[^.]{0,20}\brevealed\b", re.IGNORECASE),
    re.compile(r"never inside the `?CreateGame", re.IGNORECASE),
)
"""What the docs said before a hand's end stopped revealing its deal (only shown cards' proofs are opened) and
before a bot-only match's first step was played inside its CreateGame."""


def documents() -> list[Path]:
    found = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "proto").rglob("*.proto")]
    found += [*ROOT.glob("*/README.md"), *(ROOT / "clients").glob("*/README.md")]
    return sorted(set(found))


@pytest.mark.parametrize("path", documents(), ids=lambda path: str(path.relative_to(ROOT)))
def test_the_docs_never_say_a_hand_end_reveals_the_deal(path: Path) -> None:
    # The contract keeps its retired fields, each noted as such ("Deprecated, never sent: it revealed ...").
    text = "\n".join(line for line in path.read_text().splitlines() if "Deprecated, never sent" not in line)
    for pattern in RETIRED_WORDING:
        match = pattern.search(text)
        assert match is None, f"{path.relative_to(ROOT)}: retired wording {match.group(0)!r}"


SKIPPED = {"node_modules", "build", "dist", "target"}
"""Folders of fetched or built files, whose Markdown is not ours."""


def markdown_files() -> list[Path]:
    """Every Markdown file of the repository, without walking into hidden, fetched or built folders."""
    found = []
    for folder, children, files in os.walk(ROOT):
        children[:] = [child for child in children if not child.startswith(".") and child not in SKIPPED]
        found += [Path(folder) / name for name in files if name.endswith(".md")]
    return sorted(found)


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", flags=re.MULTILINE | re.DOTALL)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces made hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    return {slug(line.lstrip("#")) for line in FENCE.sub("", text).splitlines() if line.startswith("#")}


def broken_links(path: Path, text: str) -> list[str]:
    """The relative links of ``text`` (the Markdown of ``path``) whose file, or heading, does not exist."""
    broken = []
    for target in LINK.findall(FENCE.sub("", text)):
        if re.match(r"[a-z]+:", target):  # https:, mailto:: not ours to check offline
            continue
        name, _, anchor = target.partition("#")
        destination = (path.parent / name).resolve() if name else path
        if not destination.exists():
            broken.append(f"{target}: no such file")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination.read_text()):
            broken.append(f"{target}: no heading with that anchor")
    return broken


@pytest.mark.parametrize("path", markdown_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_the_docs_links_lead_somewhere(path: Path) -> None:
    assert broken_links(path, path.read_text()) == []


def test_a_broken_link_or_anchor_is_caught() -> None:
    readme = ROOT / "bench" / "README.md"
    assert "capacity-model" in anchors(readme.read_text())
    text = "[ok](journal/README.md) [a](../README.md#benchmarks) [b](nowhere.md) [c](README.md#no-such-heading)"
    text += " [web](https://example.com/x.md) and [here](#capacity-model)"
    assert broken_links(readme, text) == [
        "nowhere.md: no such file",
        "README.md#no-such-heading: no heading with that anchor",
    ]
