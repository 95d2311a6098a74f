#!/usr/bin/env python3
"""Generate the Python code of proto/truco/v1: the SDK's messages and gRPC stubs into
clients/python/src/truco_client/v1, the server's and truco.wire's own messages (no stubs: the server serves
from the descriptors) into wire/src/truco/wire/v1, and beside them the contract's descriptors with their
comments (``contract.binpb``: a FileDescriptorSet with source info, which server reflection hands out).

    python scripts/gen_proto.py           # regenerate
    python scripts/gen_proto.py --check   # exit 1 if the committed code is not what the protos generate

protoc names Python modules after the proto files (``truco.v1.cards_pb2``); each package ships them inside
itself, so the generated absolute imports are rewritten to relative ones. The two packages register the same
files: the protobuf runtime keeps one copy of each (their classes are the same). The output depends only on the
protos and the pinned grpcio-tools version (pyproject.toml), so it is reproducible.
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
WIRE_OUT = ROOT / "wire" / "src" / "truco" / "wire" / "v1"
DESCRIPTORS = "contract.binpb"
HEADER = '"""Generated from proto/truco/v1 by scripts/gen_proto.py: do not edit."""\n'

_ABSOLUTE_IMPORT = re.compile(r"^from truco\.v1 import (\w+_pb2)", re.MULTILINE)
_CONNECT_IMPORT = re.compile(r"^from \.(\w+_pb2) import", re.MULTILINE)


def _protoc(raw: str, *outputs: str) -> None:
    protos = sorted(str(path.relative_to(PROTO_ROOT)) for path in (PROTO_ROOT / PACKAGE_DIR).glob("*.proto"))
    well_known = Path(protoc.__file__).parent / "_proto"
    status = protoc.main(["grpc_tools.protoc", f"-I{PROTO_ROOT}", f"-I{well_known}", *outputs, *protos])
    if status != 0:
        raise SystemExit(f"protoc failed with status {status}")


def _generate(into: Path, *outputs: str) -> None:
    """Run protoc on every proto of the package and write the fixed-up modules into ``into``."""
    with tempfile.TemporaryDirectory() as raw:
        _protoc(raw, *(option.format(raw=raw) for option in outputs))
        into.mkdir(parents=True, exist_ok=True)
        for path in sorted((Path(raw) / PACKAGE_DIR).iterdir()):
            text = _ABSOLUTE_IMPORT.sub(r"from . import \1", path.read_text())
            (into / path.name).write_text(text)
    (into / "__init__.py").write_text(HEADER)


def generate(into: Path) -> None:
    """The SDK's messages, their typing stubs and the gRPC client stubs."""
    _generate(into, "--python_out={raw}", "--pyi_out={raw}", "--grpc_python_out={raw}")


def generate_wire(into: Path) -> None:
    """The messages and typing stubs alone, and the descriptors with their comments."""
    _generate(into, "--python_out={raw}", "--pyi_out={raw}")
    _protoc(str(into), "--include_source_info", "--include_imports", f"--descriptor_set_out={into / DESCRIPTORS}")


def _read(path: Path) -> str:
    return path.read_bytes().hex() if path.suffix == ".binpb" else path.read_text()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="compare with the committed code instead")
    args = parser.parse_args(argv)
    targets = ((OUT, generate, "*_pb2*.py*"), (WIRE_OUT, generate_wire, "*_pb2*.py*"))
    if not args.check:
        for out, make, pattern in targets:
            for stale in out.glob(pattern):
                stale.unlink()
            make(out)
            print(f"generated {len(list(out.iterdir()))} files into {out.relative_to(ROOT)}")
        return 0
    expected: dict[str, str] = {}
    actual: dict[str, str] = {}
    for out, make, _ in targets:
        with tempfile.TemporaryDirectory() as fresh:
            make(Path(fresh))
            expected |= {f"{out.relative_to(ROOT)}/{p.name}": _read(p) for p in Path(fresh).iterdir()}
        if out.exists():
            actual |= {f"{out.relative_to(ROOT)}/{p.name}": _read(p) for p in out.iterdir() if p.is_file()}
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
