#!/usr/bin/env python3
"""Generate the Python protobuf and gRPC code of proto/truco/v1 into clients/python/src/truco_client/v1.

    python scripts/gen_proto.py           # regenerate
    python scripts/gen_proto.py --check   # exit 1 if the committed code is not what the protos generate

protoc names Python modules after the proto files (``truco.v1.cards_pb2``); the SDK ships them inside its
own package, so the generated absolute imports are rewritten to relative ones. The output depends only on
the protos and the pinned grpcio-tools version (pyproject.toml), so it is reproducible.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
import tempfile
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
PACKAGE_DIR = Path("truco") / "v1"
OUT = ROOT / "clients" / "python" / "src" / "truco_client" / "v1"
HEADER = '"""Generated from proto/truco/v1 by scripts/gen_proto.py: do not edit."""\n'

_ABSOLUTE_IMPORT = re.compile(r"^from truco\.v1 import (\w+_pb2)", re.MULTILINE)


def generate(into: Path) -> None:
    """Run protoc on every proto of the package and write the fixed-up modules into ``into``."""
    protos = sorted(str(path.relative_to(PROTO_ROOT)) for path in (PROTO_ROOT / PACKAGE_DIR).glob("*.proto"))
    with tempfile.TemporaryDirectory() as raw:
        well_known = Path(protoc.__file__).parent / "_proto"
        status = protoc.main(
            [
                "grpc_tools.protoc",
                f"-I{PROTO_ROOT}",
                f"-I{well_known}",
                f"--python_out={raw}",
                f"--pyi_out={raw}",
                f"--grpc_python_out={raw}",
                *protos,
            ]
        )
        if status != 0:
            raise SystemExit(f"protoc failed with status {status}")
        into.mkdir(parents=True, exist_ok=True)
        for path in sorted((Path(raw) / PACKAGE_DIR).iterdir()):
            text = _ABSOLUTE_IMPORT.sub(r"from . import \1", path.read_text())
            (into / path.name).write_text(text)
    (into / "__init__.py").write_text(HEADER)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="compare with the committed code instead")
    args = parser.parse_args(argv)
    if not args.check:
        for stale in OUT.glob("*_pb2*.py*"):
            stale.unlink()
        generate(OUT)
        print(f"generated {len(list(OUT.iterdir()))} files into {OUT.relative_to(ROOT)}")
        return 0
    with tempfile.TemporaryDirectory() as fresh:
        generate(Path(fresh))
        expected = {p.name: p.read_text() for p in Path(fresh).iterdir()}
    actual = {p.name: p.read_text() for p in OUT.iterdir() if p.is_file()} if OUT.exists() else {}
    if expected == actual:
        print("generated code is in sync with proto/")
        return 0
    for name in sorted(set(expected) | set(actual)):
        if expected.get(name) != actual.get(name):
            before, after = actual.get(name, "").splitlines(), expected.get(name, "").splitlines()
            diff = difflib.unified_diff(before, after, name, name + " (fresh)", lineterm="")
            print("\n".join(list(diff)[:40]), file=sys.stderr)
    print("generated code is out of date: run python scripts/gen_proto.py", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
