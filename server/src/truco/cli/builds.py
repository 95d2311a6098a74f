"""Which build of the engine and the bots this interpreter runs: compiled by mypyc, or pure Python.

The two builds hold the same sources and behave the same (engine/_build/truco_build.py decides at install time);
the compiled one is about twice as fast. ``truco --version`` names the build of each
(``truco 0.1.0 (engine compiled by mypyc, bots compiled by mypyc)``), and the container image's
build stage runs

    python -m truco.cli.builds --require compiled

to fail the image build if the engine or the bots ended up as pure Python (no compiler, a pure wheel picked up).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import pkgutil
import sys
from collections.abc import Sequence

PACKAGES = {"engine": "truco.engine", "bots": "truco.bots"}
"""The distributions mypyc compiles, by their short name."""


def module_files(package: str) -> dict[str, str]:
    """Each module of ``package`` (``__main__`` aside: it always stays Python) and the file it was loaded from."""
    root = importlib.import_module(package)
    names = [package] + [f"{package}.{m.name}" for m in pkgutil.iter_modules(root.__path__) if m.name != "__main__"]
    return {name: str(importlib.import_module(name).__file__) for name in names}


def build_of(package: str) -> str:
    """``compiled`` when every module of ``package`` is an extension module, ``pure`` when every one is Python
    source, ``mixed`` otherwise (a broken install: compiled files beside stale sources or the reverse), and
    ``missing`` when the package is not installed."""
    try:
        files = module_files(package)
    except ImportError:
        return "missing"
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    kinds = {"compiled" if path.endswith(suffixes) else "pure" for path in files.values()}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def builds() -> dict[str, str]:
    """The build of each compiled distribution: ``{"engine": "compiled", "bots": "compiled"}``."""
    return {name: build_of(package) for name, package in PACKAGES.items()}


def describe() -> str:
    """One line for ``truco --version``: ``engine compiled by mypyc, bots compiled by mypyc`` (or ``engine pure
    Python, ...``)."""
    words = {"compiled": "compiled by mypyc", "pure": "pure Python", "mixed": "mixed (a broken install)"}
    return ", ".join(f"{name} {words.get(build, build)}" for name, build in builds().items())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m truco.cli.builds",
        description="Print the build (compiled or pure) of the engine and the bots; with --require, fail unless "
        "both are that build.",
    )
    parser.add_argument("--require", choices=("compiled", "pure"), help="exit with status 1 unless both are this")
    args = parser.parse_args(argv)
    found = builds()
    print(describe())
    wrong = {name: build for name, build in found.items() if args.require and build != args.require}
    if wrong:
        for name, build in wrong.items():
            files = module_files(PACKAGES[name]) if build != "missing" else {}
            shown = ", ".join(sorted(files.values())[:3])
            print(f"truco builds: {PACKAGES[name]} is {build}, not {args.require} ({shown})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
