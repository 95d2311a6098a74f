"""The documentation's code runs: every docstring example (doctest) of every package, and the README's Python."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("truco.engine", "truco.bots", "truco_client", "truco.wire", "truco.server", "truco.cli")
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
