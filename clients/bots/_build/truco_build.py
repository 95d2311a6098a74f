"""The build backend of a truco distribution that mypyc can compile (truco-engine, truco-bots).

It is setuptools' own backend with one decision added: compile the package's modules with mypyc, or ship them as
pure Python. Both builds hold the same sources and behave the same; the compiled one is about twice as fast.

- ``pip install ./engine`` (a wheel) compiles when a C compiler that can build Python extensions is present;
  mypy (which carries mypyc) is then added to the build requirements, so pure builds never download it.
- ``TRUCO_PURE=1`` forces the pure package; so does the absence of a working compiler (checked by compiling a
  tiny extension source), and so do editable installs (``pip install -e``: development runs the sources).
- ``TRUCO_COMPILED=1`` makes a missing compiler an error instead of a quiet fall back (CI builds use it).

This file is kept identical in ``engine/_build`` and ``clients/bots/_build`` (a test checks it).
"""

from __future__ import annotations

import contextlib
import os
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (every hook setuptools defines, unchanged unless below)

MYPYC_REQUIREMENT = "mypy==2.4.1"
"""The mypy whose mypyc compiles the wheel: pinned, so a given source tree always gives the same binary."""


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def compiler_works() -> bool:
    """Whether this interpreter's configured C compiler can build an extension against its headers."""
    try:
        from setuptools._distutils.ccompiler import new_compiler
        from setuptools._distutils.sysconfig import customize_compiler

        compiler: Any = new_compiler()
        customize_compiler(compiler)
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "probe.c")
            with open(source, "w") as out:
                out.write("#include <Python.h>\nint truco_probe(void) { return Py_IsInitialized(); }\n")
            include = sysconfig.get_paths()["include"]
            compiler.compile([source], output_dir=tmp, include_dirs=[include])
        return True
    except Exception as error:  # no compiler, no headers, a broken toolchain: all mean "ship it pure"
        print(f"truco build: no usable C compiler ({type(error).__name__}: {error}); pure Python", file=sys.stderr)
        return False


def wants_compiled() -> bool:
    """Compile unless told not to (TRUCO_PURE) or unable to; TRUCO_COMPILED turns "unable" into an error."""
    if _flag("TRUCO_PURE"):
        return False
    if compiler_works():
        return True
    if _flag("TRUCO_COMPILED"):
        raise RuntimeError("TRUCO_COMPILED=1 but no C compiler can build Python extensions here")
    return False


@contextlib.contextmanager
def _pure() -> Iterator[None]:
    """Run a setuptools hook with TRUCO_PURE=1: only ``build_wheel`` ever compiles."""
    saved = os.environ.get("TRUCO_PURE")
    os.environ["TRUCO_PURE"] = "1"
    try:
        yield
    finally:
        if saved is None:
            del os.environ["TRUCO_PURE"]
        else:
            os.environ["TRUCO_PURE"] = saved


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    with _pure():
        requires = list(_setuptools.get_requires_for_build_wheel(config_settings))
    if wants_compiled():
        requires.append(MYPYC_REQUIREMENT)
    return requires


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    with _pure():
        return str(_setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings))


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    with _pure():
        return list(_setuptools.get_requires_for_build_editable(config_settings))


def prepare_metadata_for_build_editable(metadata_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    with _pure():
        return str(_setuptools.prepare_metadata_for_build_editable(metadata_directory, config_settings))


def build_editable(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    # An editable install runs the sources in place: compiled modules beside them would shadow every edit.
    with _pure():
        return str(_setuptools.build_editable(wheel_directory, config_settings, metadata_directory))


def get_requires_for_build_sdist(config_settings: dict[str, Any] | None = None) -> list[str]:
    with _pure():
        return list(_setuptools.get_requires_for_build_sdist(config_settings))


def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    with _pure():
        return str(_setuptools.build_sdist(sdist_directory, config_settings))


def extensions(package_dir: str, group: str, mypy_path: list[str]) -> list[Any]:
    """The mypyc extensions for every module of ``package_dir`` (``src/truco/engine``) but ``__main__``, or none
    for a pure build. ``mypy_path`` lists the source roots mypyc type-checks against (namespace package bases)."""
    if not wants_compiled():
        return []
    from mypyc.build import mypycify

    here = os.getcwd()
    modules = sorted(
        os.path.join(package_dir, name)
        for name in os.listdir(os.path.join(here, package_dir))
        if name.endswith(".py") and name != "__main__.py"
    )
    os.environ["MYPYPATH"] = os.pathsep.join(path for path in mypy_path if os.path.isdir(path))
    print(f"truco build: compiling {len(modules)} modules of {package_dir} with mypyc", file=sys.stderr)
    return list(mypycify(["--explicit-package-bases", *modules], opt_level="3", group_name=group))
