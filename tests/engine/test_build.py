"""The engine's two builds: compiled by mypyc, or pure Python. Both run the same sources, so the engine's tests
run against both (``./dev test``: the sources in .venv, the compiled wheels in .venv-compiled). These tests check
that each run is testing the build it claims to, and that the build backend chooses the pure package when asked
or when it cannot compile.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import pkgutil
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import truco.engine

ROOT = Path(__file__).resolve().parents[2]
BACKENDS = (ROOT / "engine" / "_build" / "truco_build.py", ROOT / "clients" / "bots" / "_build" / "truco_build.py")


def module_files(package: str) -> dict[str, str]:
    """Each module of ``package`` (``__main__`` aside: it always stays Python) and the file it was loaded from."""
    root = importlib.import_module(package)
    names = [package] + [f"{package}.{m.name}" for m in pkgutil.iter_modules(root.__path__) if m.name != "__main__"]
    return {name: str(importlib.import_module(name).__file__) for name in names}


def build_of(package: str) -> str:
    kinds = {"pure" if path.endswith(".py") else "compiled" for path in module_files(package).values()}
    assert len(kinds) == 1, f"{package} mixes compiled and pure modules: {module_files(package)}"
    return kinds.pop()


@pytest.mark.parametrize("package", ["truco.engine", "truco.bots"])
def test_every_module_comes_from_one_build_the_expected_one(package: str) -> None:
    try:
        importlib.import_module(package)
    except ImportError:
        pytest.skip(f"{package} is not installed here")
    expected = os.environ.get("TRUCO_EXPECT_BUILD")  # set by ./dev test for each of its two runs
    build = build_of(package)
    if expected:
        assert build == expected, f"{package}: expected the {expected} build, found {module_files(package)}"


def test_the_build_report_names_the_build_and_fails_on_the_other() -> None:
    """The build report (server/src/truco/cli/builds.py, ``--require compiled``) is what fails the container
    image's build on a pure engine, and what ``truco --version`` says. Run here as a script by path, so the
    compiled run of these tests (whose venv holds the engine and the bots only) checks it too. (This module must
    not name the server's or the command's packages in dotted form: ./dev test would leave it out of that run.)"""
    expected = os.environ.get("TRUCO_EXPECT_BUILD") or build_of("truco.engine")
    other = "pure" if expected == "compiled" else "compiled"
    script = ROOT / "server" / "src" / "truco" / "cli" / "builds.py"
    if not script.exists():
        pytest.skip("the build report is not in this checkout")
    words = {"compiled": "compiled by mypyc", "pure": "pure Python"}
    same = subprocess.run([sys.executable, str(script), "--require", expected], capture_output=True, text=True)
    assert same.returncode == 0, same.stderr
    assert same.stdout.strip() == f"engine {words[expected]}, bots {words[expected]}"
    wrong = subprocess.run([sys.executable, str(script), "--require", other], capture_output=True, text=True)
    assert wrong.returncode == 1
    assert f"truco.engine is {expected}, not {other}" in wrong.stderr
    assert f"truco.bots is {expected}, not {other}" in wrong.stderr


def test_engine_modules_are_all_listed() -> None:
    """Every engine module is imported by the package (so the build check above sees the compiled ones)."""
    assert len(module_files("truco.engine")) >= 20
    assert truco.engine.Card.parse("1e") is truco.engine.DECK[0]


def test_the_two_build_backends_are_one_file() -> None:
    if not all(path.exists() for path in BACKENDS):
        pytest.skip("the build backends are not in this checkout")
    assert BACKENDS[0].read_bytes() == BACKENDS[1].read_bytes(), "keep engine/_build and clients/bots/_build equal"


@pytest.mark.parametrize(
    ("why", "env"),
    [
        ("asked for", {"TRUCO_PURE": "1", "TRUCO_COMPILED": ""}),
        ("no usable compiler", {"CC": "/bin/false", "TRUCO_PURE": "", "TRUCO_COMPILED": ""}),
    ],
)
def test_a_wheel_is_pure_python_when_asked_or_unable_to_compile(
    why: str, env: dict[str, str], tmp_path: Path
) -> None:
    """The decision lives in the backend's hooks; setuptools builds the pure wheel without fetching mypy."""
    pytest.importorskip("setuptools", minversion="77")  # the engine's build requirement (.venv has it)
    if not (ROOT / "engine" / "setup.py").exists():
        pytest.skip("needs the repository's engine/")
    source = tmp_path / "engine"
    shutil.copytree(ROOT / "engine", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(source)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    wheels = list(tmp_path.glob("truco_engine-*.whl"))
    assert len(wheels) == 1 and wheels[0].name.endswith("-py3-none-any.whl"), (why, wheels)
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert "truco/engine/decide.py" in names and "truco/engine/py.typed" in names
    assert not [name for name in names if name.endswith((".so", ".pyd"))], names


def test_state_copies_carry_every_field() -> None:
    """``MatchState.copy`` and ``HandState.copy`` name their fields one by one (mypyc-compiled classes have no
    ``__slots__`` to loop over): a field added to the state and forgotten there would make copies differ."""
    import dataclasses
    import random

    from truco.engine import DECK, Game, RuleSet
    from truco.engine.state import HandState, MatchState

    rng = random.Random(3)
    game = Game(RuleSet(players=4, senas=True))
    while not game.over and game.state.events_applied < 60:
        waiting = game.actors()
        if not waiting:
            order = list(DECK)
            rng.shuffle(order)
            game.deal(order, "ab" * 16)
            continue
        game.execute(rng.choice(game.legal_actions(rng.choice(waiting))))
    state = game.state
    assert state.hand is not None
    twin = state.copy()
    assert twin == state and twin is not state and twin.hand is not state.hand
    for kind, original, copied in ((MatchState, state, twin), (HandState, state.hand, twin.hand)):
        for field in dataclasses.fields(kind):
            assert getattr(copied, field.name) == getattr(original, field.name), f"{kind.__name__}.{field.name}"


# --- Generated __init__ of the engine's dataclasses -----------------------------------------------------------
# mypyc compiles a class's own methods but not the __init__ that @dataclass generates at import time (it runs as
# interpreted Python), so the hot value classes are declared @dataclass(init=False, ...) and inherit an __init__
# written out in _inits.py. These tests hold each such __init__ to its fields: same names, order and defaults,
# every field set once.

ENGINE_SOURCES = ROOT / "engine" / "src" / "truco" / "engine"
INITS = ENGINE_SOURCES / "_inits.py"
"""The generated base classes that hold the value classes' __init__s."""


def explicit_init_classes() -> list[tuple[str, ast.ClassDef]]:
    found = []
    for path in sorted(ENGINE_SOURCES.glob("*.py")):
        if path == INITS:
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef) and any(
                isinstance(d, ast.Call)
                and getattr(d.func, "id", None) == "dataclass"
                and any(k.arg == "init" and getattr(k.value, "value", True) is False for k in d.keywords)
                for d in node.decorator_list
            ):
                found.append((path.stem, node))
    return found


def test_the_explicit_inits_are_generated_from_the_fields() -> None:
    """Each such class inherits its __init__ from a base engine/_build/gen_inits.py writes into _inits.py:
    `--check` passes, and a field added to a class shows in the __init__ it generates."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "engine" / "_build" / "gen_inits.py"), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    spec = importlib.util.spec_from_file_location("gen_inits", ROOT / "engine" / "_build" / "gen_inits.py")
    assert spec is not None and spec.loader is not None
    gen_inits = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen_inits)
    sources = gen_inits.engine_sources()
    last_field = "    seat: int\n    card: Card\n"  # PlayCard's, the first class of commands.py
    assert last_field in sources["commands"]
    grown = {**sources, "commands": sources["commands"].replace(last_field, last_field + "    extra: int = 7\n", 1)}
    regenerated = gen_inits.generate(grown)
    assert "def __init__(self, seat: int, card: Card, extra: int = 7) -> None:" in regenerated
    assert 'object.__setattr__(self, "extra", extra)' in regenerated
    assert gen_inits.misfits(sources) == []
    own = last_field + "\n    def __init__(self) -> None:\n        pass\n"
    own_init = sources["commands"].replace(last_field, own, 1)
    assert gen_inits.misfits({**sources, "commands": own_init}) == [
        "commands.PlayCard: its __init__ is generated into _inits.py: delete its own"
    ]


def test_the_hot_value_classes_have_their_own_init() -> None:
    names = {node.name for _, node in explicit_init_classes()}
    hot = {"CardPlayed", "CallMade", "HandDealt", "PlayCard", "Deal", "PendingCall", "HandState", "MatchState"}
    assert hot <= names


@pytest.mark.parametrize(("module", "node"), explicit_init_classes(), ids=lambda v: getattr(v, "name", v))
def test_a_generated_init_matches_the_fields(module: str, node: ast.ClassDef) -> None:
    """The class inherits the ``__init__`` of its base in _inits.py, which takes and sets its fields in order."""
    fields = [s for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    assert [ast.unparse(b) for b in node.bases] == [f"{node.name}Init"], f"{module}.{node.name}: its base"
    assert not [s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"], "an own __init__"
    bases = {c.name: c for c in ast.parse(INITS.read_text()).body if isinstance(c, ast.ClassDef)}
    base = bases[f"{node.name}Init"]
    inits = [s for s in base.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"]
    assert len(inits) == 1, f"{module}.{node.name}: init=False needs an __init__"
    init = inits[0]
    params = init.args.args[1:]
    assert [p.arg for p in params] == [f.target.id for f in fields], f"{module}.{node.name}: parameters"  # type: ignore[union-attr]
    defaults = [None] * (len(params) - len(init.args.defaults)) + list(init.args.defaults)
    for field, default in zip(fields, defaults, strict=True):
        name = field.target.id  # type: ignore[union-attr]
        value = field.value
        if value is None:
            assert default is None, f"{module}.{node.name}.{name} has no default as a field"
        elif isinstance(value, ast.Call) and getattr(value.func, "id", None) == "field":
            # A default factory: the parameter defaults to None and the body builds a fresh value.
            assert default is not None and ast.unparse(default) == "None", f"{module}.{node.name}.{name}"
        else:
            assert default is not None and ast.unparse(default) == ast.unparse(value), f"{module}.{node.name}.{name}"
    set_fields = []
    for statement in init.body:
        assert isinstance(statement, ast.Assign | ast.Expr), ast.unparse(statement)
        if isinstance(statement, ast.Assign):  # self.name = ...
            (target,) = statement.targets
            assert isinstance(target, ast.Attribute) and ast.unparse(target.value) == "self"
            set_fields.append(target.attr)
            assigned = statement.value
        else:  # object.__setattr__(self, "name", ...) in a frozen class
            call = statement.value
            assert isinstance(call, ast.Call) and ast.unparse(call.func) == "object.__setattr__"
            assert ast.unparse(call.args[0]) == "self"
            set_fields.append(call.args[1].value)  # type: ignore[attr-defined]
            assigned = call.args[2]
        assert set_fields[-1] in ast.unparse(assigned), f"{module}.{node.name}: {set_fields[-1]} set from elsewhere"
    assert set_fields == [p.arg for p in params], f"{module}.{node.name}: each field set once, in order"


def test_default_factories_give_fresh_values_and_states_copy() -> None:
    import copy
    import dataclasses

    from truco.engine import MatchState, RuleSet, start_match
    from truco.engine.state import evolve

    one, two = MatchState(), MatchState()
    assert one.scores == [0, 0] and one.scores is not two.scores and one.rules == RuleSet()
    for name in ("rules", "version", "events_applied", "phase", "plan", "hand", "winner", "away"):
        field = next(f for f in dataclasses.fields(MatchState) if f.name == name)
        expected = field.default_factory() if field.default is dataclasses.MISSING else field.default  # type: ignore[misc]
        assert getattr(one, name) == expected, name
    for event in start_match(RuleSet(players=4)):
        evolve(one, event)
    # The frozen rule set is shared (compiled by mypyc, a frozen dataclass cannot be rebuilt field by field).
    deep = copy.deepcopy(one, {id(one.rules): one.rules})
    assert deep.scores is not one.scores
    for twin in (copy.copy(one), deep, one.copy()):
        assert twin == one and twin is not one
