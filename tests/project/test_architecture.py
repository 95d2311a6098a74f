"""The layering of docs/architecture.md, checked on the source: no package imports one above it; and the engine
alone, installed into an empty virtual environment, plays a match to its end."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import venv
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {
    "truco.engine": ROOT / "engine/src/truco/engine",
    "truco.bots": ROOT / "clients/bots/src/truco/bots",
    "truco_client": ROOT / "clients/python/src/truco_client",
    "truco.wire": ROOT / "wire/src/truco/wire",
    "truco.terminal": ROOT / "clients/terminal/src/truco/terminal",
    "truco.commandline": ROOT / "commandline/src/truco/commandline",
    "truco.server": ROOT / "server/src/truco/server",
    "truco.cli": ROOT / "server/src/truco/cli",
}
GENERATED = ("truco_client.v1", "truco.wire.v1")
"""Code written by protoc and its plugins, which the layering does not govern."""

SERVER_LAYERS = (
    "truco.server.runtime",
    "truco.server.doors",
    "truco.server.service",
    "truco.server.limits",
    "truco.server.core",
    "truco.server.store",
)
"""The server's folders, top to bottom: a module imports its own folder and those below it, never one above.
runtime runs the process; doors are the ports and their connection limits; service is the contract served (the
pipeline, servicers, protobuf conversions); limits admit calls; core is the game application; store the events."""
UNWIRED = ("truco.server.limits", "truco.server.core", "truco.server.store")
"""The folders free of gRPC and protobuf (checked transitively for the core): only the doors, the service and the
runtime speak the wire."""
WIRE = ("grpc", "grpc_health", "grpc_reflection", "google.protobuf", "google.rpc", "truco_client", "truco.wire")
WIRE += ("connectrpc", "protobuf")
"""What speaks the wire: gRPC, both protobuf runtimes, the generated stubs and the converters to them."""
TERMINAL = ("truco.engine", "truco.bots", "truco_client", "truco.wire", "truco.commandline", "truco.terminal", "grpc")
"""What the terminal client (truco-terminal) may import: its distribution's dependencies and itself."""

CLI_CLIENTS = ("truco.cli.main", "truco.cli.remote_seat")
"""The modules of truco.cli that may import the terminal client or the SDK, which truco-server does not require:
main adopts ``play`` and ``selfplay`` when truco-terminal is installed, remote_seat is a client process that
``truco arena`` starts only when the SDK is."""


def within(name: str, *prefixes: str) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def in_core(module: str) -> bool:
    return within(module, *UNWIRED) and not within(module, *GENERATED)


def layer(module: str) -> int | None:
    """The index of ``module``'s server folder in :data:`SERVER_LAYERS` (None: not in one)."""
    return next((index for index, folder in enumerate(SERVER_LAYERS) if within(module, folder)), None)


def refusal(module: str, imported: str) -> str | None:
    """Why ``module`` may not import ``imported``; None when it may."""
    stdlib = imported.split(".")[0] in sys.stdlib_module_names or imported == "__future__"
    rule = next((rule for package, rule in RULES if within(module, package)), None)
    return rule(module, imported, stdlib) if rule is not None else None


def _engine(module: str, imported: str, stdlib: bool) -> str | None:
    if not (stdlib or within(imported, "truco.engine")):
        return "the engine imports the standard library and itself only"
    return None


def _bots(module: str, imported: str, stdlib: bool) -> str | None:
    if not (stdlib or within(imported, "truco.engine", "truco.bots")):
        return "the bots see the engine (a seat's view) and nothing else"
    return None


def _sdk(module: str, imported: str, stdlib: bool) -> str | None:
    return "the SDK never imports truco.*" if within(imported, "truco") else None


def _wire(module: str, imported: str, stdlib: bool) -> str | None:
    if not (stdlib or within(imported, "truco.engine", "truco.wire", "google.protobuf")):
        return "truco.wire converts engine values to its generated messages (truco.wire.v1) only"
    return None


def _commandline(module: str, imported: str, stdlib: bool) -> str | None:
    return None if stdlib else "the command-line frame both programs share imports the standard library only"


def _terminal(module: str, imported: str, stdlib: bool) -> str | None:
    if not (stdlib or within(imported, *TERMINAL)):
        return "the terminal client is a client: the engine, the bots, the SDK and truco.wire, never the server"
    return None


def _cli(module: str, imported: str, stdlib: bool) -> str | None:
    if within(imported, "truco.terminal", "truco_client") and module not in CLI_CLIENTS:
        return "truco-server installs without the terminal client and the SDK (its `play` extra)"
    return None


def _server(module: str, imported: str, stdlib: bool) -> str | None:
    if within(imported, "truco.cli", "truco.terminal"):
        return "the server never imports the command line"
    if within(imported, "truco_client"):
        return "the server has its own generated messages (truco.wire.v1), never the SDK's"
    below, above = layer(module), layer(imported)
    if below is not None and above is not None and above < below:
        return f"{SERVER_LAYERS[below]} never imports {SERVER_LAYERS[above]}, a folder above it"
    if in_core(module) and within(imported, *WIRE):
        return "the server's limits, core and store are free of gRPC and protobuf"
    return None


RULES: tuple[tuple[str, Callable[[str, str, bool], str | None]], ...] = (
    ("truco.engine", _engine),
    ("truco.bots", _bots),
    ("truco_client", _sdk),
    ("truco.wire", _wire),
    ("truco.commandline", _commandline),
    ("truco.terminal", _terminal),
    ("truco.cli", _cli),
    ("truco.server", _server),
)
"""Each package's rule: (the module, what it imports, whether that is the standard library) -> why not, or None."""


@dataclass(frozen=True)
class Import:
    module: str
    imported: str
    line: int


def imports(module: str, source: str, is_package: bool = False) -> Iterator[Import]:
    """The absolute names ``source`` (the code of ``module``) imports, relative imports resolved."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            yield Import(module, prefix, node.lineno)
            for alias in node.names:  # a name may be a submodule (from truco.server.service import messages)
                if alias.name != "*":
                    yield Import(module, f"{prefix}.{alias.name}", node.lineno)


def source_modules() -> Iterator[tuple[str, Path, bool]]:
    for name, path in SOURCES.items():
        if path.is_file():
            yield name, path, False
            continue
        for file in sorted(path.rglob("*.py")):
            parts = file.relative_to(path).with_suffix("").parts
            is_package = parts[-1] == "__init__"
            module = ".".join((name, *parts[:-1]) if is_package else (name, *parts))
            if not within(module, *GENERATED):
                yield module, file, is_package


def violations() -> list[str]:
    found = []
    for module, path, is_package in source_modules():
        for item in imports(module, path.read_text(), is_package):
            why = refusal(item.module, item.imported)
            if why:
                found.append(f"{path.relative_to(ROOT)}:{item.line}: {module} imports {item.imported}: {why}")
    return found


def import_graph() -> dict[str, set[str]]:
    """Each module of the sources and what it imports (the names as written, resolved to modules by
    :func:`transitive_wire`)."""
    graph: dict[str, set[str]] = {}
    for module, path, is_package in source_modules():
        graph[module] = {item.imported for item in imports(module, path.read_text(), is_package)}
    return graph


def transitive_wire(graph: dict[str, set[str]], start: str) -> list[str] | None:
    """A chain of imports from ``start`` through modules of ``graph`` to one that imports the wire (gRPC,
    protobuf, the stubs), ending with that import; None when there is none."""
    seen = {start}
    stack: list[list[str]] = [[start]]
    while stack:
        chain = stack.pop()
        for name in sorted(graph.get(chain[-1], ())):
            if within(name, *WIRE):
                return [*chain, name]
            # A name may be a module, or a name inside one: the longest module of the graph it starts with.
            parts = name.split(".")
            module = next((".".join(parts[:n]) for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in graph), None)
            if module is not None and module not in seen:
                seen.add(module)
                stack.append([*chain, module])
    return None


def test_the_servers_core_is_free_of_the_wire_transitively() -> None:
    """Not only what a core module imports, but what those modules import in turn: nothing leads to protobuf."""
    graph = import_graph()
    core = [module for module in graph if in_core(module)]
    assert {"truco.server.core.games", "truco.server.core.snapshots", "truco.server.store.sqlite"} <= set(core)
    chains = {module: transitive_wire(graph, module) for module in core}
    assert {module: chain for module, chain in chains.items() if chain} == {}


def test_a_transitive_wire_import_into_the_core_is_caught() -> None:
    graph = {
        "truco.server.core.games": {"truco.server.core.snapshots.Snapshots", "truco.engine"},
        "truco.server.core.snapshots": {"truco.server.core.metrics"},
        "truco.server.core.metrics": {"prometheus_client", "grpc"},
        "truco.engine": set(),
    }
    chain = transitive_wire(graph, "truco.server.core.games")
    assert chain == ["truco.server.core.games", "truco.server.core.snapshots", "truco.server.core.metrics", "grpc"]
    graph["truco.server.core.metrics"] = {"prometheus_client"}
    assert transitive_wire(graph, "truco.server.core.games") is None


def test_every_package_imports_only_what_its_layer_may() -> None:
    modules = [module for module, _, _ in source_modules()]
    expected = {"truco.engine.state", "truco.bots.heuristic", "truco.server.core.games", "truco.terminal.selfplay"}
    assert expected <= set(modules)
    assert violations() == []


@pytest.mark.parametrize(
    ("module", "source", "broken"),
    [
        ("truco.engine.state", "import grpc", "grpc"),
        ("truco.engine.views", "from truco.server.service import messages", "truco.server.service.messages"),
        ("truco.engine.views", "from truco.bots import make_bot", "truco.bots"),
        ("truco.bots.heuristic", "from truco.server.core.games import Games", "truco.server.core.games"),
        ("truco.bots.heuristic", "from truco_client import play", "truco_client"),
        ("truco_client.client", "from truco.engine import Card", "truco.engine"),
        ("truco.server.service.servicers", "from truco_client.errors import TrucoError", "truco_client.errors"),
        ("truco.server.service.messages", "from truco_client.v1 import views_pb2", "truco_client.v1"),
        ("truco.server.core.games", "import grpc", "grpc"),
        ("truco.server.core.games", "from truco.server.service.errors import Code", "truco.server.service.errors"),
        ("truco.server.store.sqlite", "from google.protobuf import message", "google.protobuf"),
        ("truco.terminal.selfplay", "from truco.server.service import messages", "truco.server.service.messages"),
        ("truco.terminal.play", "from truco.cli.main import main", "truco.cli.main"),
        ("truco.terminal.commands", "import psycopg", "psycopg"),
        ("truco.server.runtime.app", "from truco.terminal.commandline import UsageError", "truco.terminal.commandline"),
        ("truco.server.core.games", "from truco.server.service import messages", "truco.server.service.messages"),
        ("truco.cli.simulate", "from truco.terminal.commandline import positive", "truco.terminal.commandline"),
        ("truco.cli.arena", "from truco_client.v1 import game_service_pb2_grpc", "truco_client.v1"),
        ("truco.commandline", "from truco.engine import Card", "truco.engine"),
        (
            "truco.server.core.snapshots",
            "from truco.server.service.pipeline import Call",
            "truco.server.service.pipeline",
        ),
    ],
)
def test_a_lower_layer_importing_a_higher_one_is_caught(module: str, source: str, broken: str) -> None:
    refused = [item.imported for item in imports(module, source) if refusal(item.module, item.imported)]
    assert broken in refused


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("truco.engine.views", "from .state import MatchState"),
        ("truco.bots.heuristic", "from truco.engine import Card"),
        ("truco.wire", "from truco.wire.v1 import cards_pb2"),
        ("truco.server.service.servicers", "from truco.wire.v1 import game_service_pb2"),
        ("truco.server.core.games", "from .referee import drive"),
        ("truco.server.service.servicers", "from . import messages"),
        ("truco.cli.main", "from truco.server.runtime.app import main"),
        ("truco.cli.main", "from truco.terminal import commands"),
        ("truco.terminal.selfplay", "from truco.wire import seat_view_from_pb"),
        ("truco.terminal.selfplay", "from truco.bots import make_bot"),
        ("truco.terminal.play", "from truco_client import TrucoClient"),
    ],
)
def test_what_a_layer_may_import_passes(module: str, source: str) -> None:
    assert [item for item in imports(module, source) if refusal(item.module, item.imported)] == []


def test_the_engine_alone_installs_into_an_empty_venv_and_plays_a_match(tmp_path: Path) -> None:
    """``pip install ./engine`` with nothing else: the engine has no dependency at all."""
    env = tmp_path / "venv"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    # From a copy: pip builds a local project in its own tree (build/, *.egg-info), and ./dev test builds the
    # compiled engine from the checkout at the same time; two builds in one tree trip over each other's files.
    source = tmp_path / "engine"
    shutil.copytree(ROOT / "engine", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    install = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-deps", "--disable-pip-version-check", str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr
    installed = subprocess.run(
        [python, "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    names = {line.split("==")[0].lower() for line in installed.stdout.split()}
    assert "truco-engine" in names and not names & {"grpcio", "protobuf", "truco-server", "truco-client"}
    played = subprocess.run(
        [python, "-m", "truco.engine", "--players", "2"], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert played.returncode == 0, played.stderr
    result = re.fullmatch(r"match 1: team ([01]) wins (\d+)-(\d+) in \d+ events\n", played.stdout)
    assert result, played.stdout
    winner, scores = int(result[1]), (int(result[2]), int(result[3]))
    assert scores[winner] == 30 > scores[1 - winner]  # the default target, reached by the winner alone


DISTRIBUTIONS = {
    "truco-engine": ROOT / "engine",
    "truco-bots": ROOT / "clients/bots",
    "truco-client": ROOT / "clients/python",
    "truco-wire": ROOT / "wire",
    "truco-terminal": ROOT / "clients/terminal",
    "truco-commandline": ROOT / "commandline",
    "truco-server": ROOT / "server",
}
SERVER_ONLY = {"psycopg", "hypercorn", "starlette", "connectrpc", "structlog", "prometheus-client", "truco-server"}


def requirements(distribution: str) -> set[str]:
    """Every distribution ``distribution`` installs, through the project's own ones, by name."""
    import tomllib

    found: set[str] = set()
    pending = [distribution]
    while pending:
        name = pending.pop()
        project = tomllib.loads((DISTRIBUTIONS[name] / "pyproject.toml").read_text())["project"]
        for requirement in project["dependencies"]:
            needed = re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower()
            if needed not in found:
                found.add(needed)
                if needed in DISTRIBUTIONS:
                    pending.append(needed)
    return found


def test_the_terminal_client_installs_and_runs_without_the_server() -> None:
    """truco-terminal's dependencies, through the project's own distributions, hold nothing of the server's; its
    play and selfplay load no server module; the server's `truco play` and `selfplay` are the same commands."""
    needed = requirements("truco-terminal")
    assert {"truco-engine", "truco-bots", "truco-client", "truco-wire", "grpcio", "protobuf"} <= needed
    assert not needed & SERVER_ONLY, needed & SERVER_ONLY
    assert "truco-wire" in requirements("truco-server")
    script = (
        "import sys; import truco.terminal.main, truco.terminal.play, truco.terminal.selfplay;"
        "print(sorted({m.split('.')[0] for m in sys.modules} | {m for m in sys.modules if m.startswith('truco.')}))"
    )
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    modules = set(ast.literal_eval(loaded.stdout))
    assert not modules & {"psycopg", "hypercorn", "starlette", "connectrpc", "truco.server", "truco.cli"}, modules
    terminal = Path(sys.executable).parent / "truco-terminal"
    for command in ("play", "selfplay"):
        own = subprocess.run([terminal, command, "--help"], capture_output=True, text=True, timeout=60, check=True)
        server = subprocess.run(
            [Path(sys.executable).parent / "truco", command, "--help"], capture_output=True, text=True, timeout=60
        )
        assert own.stdout.split("options:")[1] == server.stdout.split("options:")[1]


def test_the_server_installs_and_its_commands_run_without_the_sdk_and_the_terminal() -> None:
    """truco-server requires neither truco-client nor truco-terminal (they are its ``play`` extra); with both
    absent, ``truco`` offers every command but ``play`` and ``selfplay``, ``truco arena``'s remote bots say what
    is missing in one line, and the service loads without them."""
    needed = requirements("truco-server")
    assert {"truco-engine", "truco-bots", "truco-wire", "grpcio", "psycopg"} <= needed
    assert not needed & {"truco-client", "truco-terminal"}, needed & {"truco-client", "truco-terminal"}
    script = """if True:
        import json, sys
        sys.modules["truco_client"] = sys.modules["truco.terminal"] = None  # as if not installed: imports fail
        from truco.cli import main
        import truco.server.runtime.app
        commands = next(a for a in main.parser()._actions if a.dest == "command").choices
        arena = main.main(["arena", "remote:random", "heuristic", "--matches", "2"])
        loaded = sorted(m for m in sys.modules if m.startswith(("truco_client.", "truco.terminal.")))
        print(json.dumps({"commands": sorted(commands), "arena": arena, "loaded": loaded}))
    """
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout) == {
        "commands": ["arena", "eval", "gc", "keys", "serve", "simulate"],
        "arena": 2,
        "loaded": [],
    }
    assert ran.stderr == (
        "truco arena: 'remote:random' plays through the Python SDK, not installed: pip install 'truco-server[play]'\n"
    )


def test_truco_offers_the_terminal_clients_commands_when_it_is_installed() -> None:
    commands = subprocess.run(
        [Path(sys.executable).parent / "truco", "--help"], capture_output=True, text=True, timeout=60, check=True
    )
    assert "play" in commands.stdout and "selfplay" in commands.stdout


ARCHITECTURE = ROOT / "docs" / "architecture.md"


def declared_in_table(text: str) -> dict[str, dict[str, set[str]]]:
    """Each distribution of the package table (docs/architecture.md) and what it declares: its dependencies
    under "", each extra's under the extra's name."""
    section = text.split("## Packages and what they may import", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]  # past the header and its rule
    declared: dict[str, dict[str, set[str]]] = {}
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        distribution = declared.setdefault(cells[1].strip("`"), {"": set()})
        for part in cells[3].split(";"):
            extra = re.match(r"\s*extra `([^`]+)`:", part)
            names = set(re.findall(r"`([^`]+)`", part[extra.end() :] if extra else part))
            distribution.setdefault(extra[1] if extra else "", set()).update(names)
    return declared


def declared_in_pyproject(distribution: str) -> dict[str, set[str]]:
    """What ``distribution``'s pyproject.toml declares, by name (versions, markers and extras left out)."""
    import tomllib

    project = tomllib.loads((DISTRIBUTIONS[distribution] / "pyproject.toml").read_text())["project"]
    groups = {"": project.get("dependencies", []), **project.get("optional-dependencies", {})}
    name = re.compile(r"[\s\[<>=!~;]")
    return {extra: {name.split(r, maxsplit=1)[0].lower() for r in group} for extra, group in groups.items()}


def test_the_package_table_is_what_each_distribution_declares() -> None:
    """docs/architecture.md's table is the one place that says what each distribution depends on."""
    table = declared_in_table(ARCHITECTURE.read_text())
    assert set(table) == set(DISTRIBUTIONS)
    assert {name: declared_in_pyproject(name) for name in DISTRIBUTIONS} == table


def test_a_table_that_disagrees_with_a_pyproject_is_caught() -> None:
    text = ARCHITECTURE.read_text()
    table = declared_in_table(text)
    assert table["truco-server"]["play"] == {"truco-terminal", "truco-client"}
    assert table["truco-engine"] == {"": set()}
    dropped = declared_in_table(text.replace("| `truco-engine`, `protobuf` |", "| `truco-engine` |"))
    assert dropped["truco-wire"] != declared_in_pyproject("truco-wire")
