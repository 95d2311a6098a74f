#!/usr/bin/env python3
"""Write the ``__init__`` of every ``@dataclass(init=False, ...)`` class of the engine from its fields.

mypyc compiles a class's own methods but not the ``__init__`` that ``@dataclass`` makes at import time (it runs
as interpreted Python, about a hundred times slower for a frozen class of thirty fields), so the hot value
classes declare ``init=False`` and carry an ``__init__`` written out: one parameter per field, in order, with the
field's default (``None`` for a default factory, whose fresh value the body builds), each field set once
(``object.__setattr__`` in a frozen class). That code is this script's output, not hand-written:

    python engine/_build/gen_inits.py           # rewrite each such __init__ from the fields above it
    python engine/_build/gen_inits.py --check   # exit 1 if one differs from what the fields give

Each generated ``__init__`` follows the line :data:`MARKER`.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[1] / "src" / "truco" / "engine"
MARKER = "# __init__ generated from the fields above by engine/_build/gen_inits.py: do not edit"
FACTORIES = {"dict": "{}", "list": "[]", "set": "set()"}
"""Factories written as literals (what the compiled code builds fastest)."""


def is_explicit(node: ast.ClassDef) -> tuple[bool, bool]:
    """Whether the class is a ``@dataclass(init=False, ...)``, and whether it is frozen."""
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", None) == "dataclass":
            keywords = {k.arg: getattr(k.value, "value", None) for k in decorator.keywords}
            if keywords.get("init") is False:
                return True, bool(keywords.get("frozen"))
    return False, False


def _fresh(factory: ast.expr) -> str:
    if isinstance(factory, ast.Lambda):
        return ast.unparse(factory.body)
    name = ast.unparse(factory)
    return FACTORIES.get(name, f"{name}()")


def _literal(value: ast.expr) -> str:
    """A default as the formatter writes it (strings in double quotes)."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return json.dumps(value.value)
    return ast.unparse(value)


def init_source(node: ast.ClassDef, frozen: bool) -> list[str]:
    """The ``__init__`` the class's fields give, as lines indented for the class body (marker first)."""
    params, body = [], []
    for statement in node.body:
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        name, annotation, value = statement.target.id, ast.unparse(statement.annotation), statement.value
        if value is None:
            params.append(f"{name}: {annotation}")
            assigned = name
        elif isinstance(value, ast.Call) and getattr(value.func, "id", None) == "field":
            keywords = {k.arg: k.value for k in value.keywords}
            if "default_factory" in keywords:
                params.append(f"{name}: {annotation} | None = None")
                assigned = f"{_fresh(keywords['default_factory'])} if {name} is None else {name}"
            else:
                params.append(f"{name}: {annotation} = {_literal(keywords['default'])}")
                assigned = name
        else:
            params.append(f"{name}: {annotation} = {_literal(value)}")
            assigned = name
        body.append(f'object.__setattr__(self, "{name}", {assigned})' if frozen else f"self.{name} = {assigned}")
    pad = " " * (node.col_offset + 4)
    signature = f"{pad}def __init__(self, {', '.join(params)}) -> None:"
    if len(signature) > 120:
        lines = [f"{pad}def __init__(", f"{pad}    self,", *(f"{pad}    {p}," for p in params), f"{pad}) -> None:"]
    else:
        lines = [signature]
    return [f"{pad}{MARKER}", *lines, *(f"{pad}    {line}" for line in body)]


def regenerate(source: str) -> str:
    """``source`` with each explicit-init class's ``__init__`` (and the marker before it) written anew."""
    lines = source.splitlines()
    tree = ast.parse(source)
    edits: list[tuple[int, int, list[str]]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        explicit, frozen = is_explicit(node)
        if not explicit:
            continue
        init = next(s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__")
        start = init.lineno - 1  # the def (decorators: none)
        if lines[start - 1].strip() == MARKER:
            start -= 1
        assert init.end_lineno is not None
        edits.append((start, init.end_lineno, init_source(node, frozen)))
    for start, end, new in sorted(edits, reverse=True):
        lines[start:end] = new
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a generated __init__ is out of date")
    check = parser.parse_args().check
    stale = []
    for path in sorted(ENGINE.glob("*.py")):
        text = path.read_text()
        fresh = regenerate(text)
        if fresh != text:
            stale.append(path)
            if not check:
                path.write_text(fresh)
    if check and stale:
        print("gen_inits: out of date (run python engine/_build/gen_inits.py):", *map(str, stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
