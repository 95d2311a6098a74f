"""No function of hand-written Python is longer than a screen: at most 60 lines, docstring included.

Generated code is not held to it (the protobuf modules, and engine/src/truco/engine/_inits.py, the ``__init__``s
engine/_build/gen_inits.py writes out for mypyc). A longer function is split into named steps; none is
exempt (the last twelve were split for issue 32), and ruff's C901 and PLR0915 hold branches and statements.
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 60
GENERATED = ("engine/src/truco/engine/_inits.py",)


def hand_written_python() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [
        path
        for path in listed.stdout.split()
        if "/v1/" not in path and not path.endswith("_pb2.py") and path not in GENERATED
    ]


def long_functions() -> dict[tuple[str, str], int]:
    found = {}
    for path in hand_written_python():
        source = (ROOT / path).read_text()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.end_lineno is None:
                continue
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            length = node.end_lineno - first + 1
            if length > MAX_LINES:
                found[(path, node.name)] = length
    return found


def test_no_function_is_longer_than_a_screen() -> None:
    found = long_functions()
    assert not found, f"functions over {MAX_LINES} lines: split them into named steps: {found}"
