"""No function of hand-written Python is longer than a screen: at most 60 lines, docstring included.

Generated code is not held to it (the protobuf modules, and the engine's ``__init__``s written out for mypyc by
engine/_build/gen_inits.py, marked by its comment). The functions listed in :data:`LONGER` are past the limit
today: a ratchet, not an exemption. Split one, then delete its line; none is ever added.
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 60
GENERATED_MARKER = "generated from the fields above by engine/_build/gen_inits.py"
LONGER = {
    (
        "tests/test_server_e2e.py",
        "test_a_move_vouches_for_the_state_it_made_so_its_watchers_and_readers_need_no_store_read",
    ),
    ("tests/test_server_e2e.py", "test_a_whole_match_with_every_seat_on_its_own_channel"),
    ("tests/test_server_hardening.py", "test_a_spectator_flood_degrades_only_the_flooder"),
    ("tests/test_tantos.py", "survey"),
    ("tests/test_web.py", "test_a_game_over_each_protocol"),
}
"""(file, function) past the limit today."""


def hand_written_python() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [path for path in listed.stdout.split() if "/v1/" not in path and not path.endswith("_pb2.py")]


def long_functions() -> dict[tuple[str, str], int]:
    found = {}
    for path in hand_written_python():
        source = (ROOT / path).read_text()
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.end_lineno is None:
                continue
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if first >= 2 and GENERATED_MARKER in lines[first - 2]:
                continue
            length = node.end_lineno - first + 1
            if length > MAX_LINES:
                found[(path, node.name)] = length
    return found


def test_no_function_is_longer_than_a_screen() -> None:
    found = long_functions()
    new = {key: length for key, length in found.items() if key not in LONGER}
    assert not new, f"functions over {MAX_LINES} lines: split them into named steps: {new}"
    split = LONGER - found.keys()
    assert not split, f"these are short now: delete them from LONGER: {sorted(split)}"
