"""truco-bots' build script: metadata is in pyproject.toml; this only adds the mypyc extensions (see
_build/truco_build.py for when the bots are compiled and when they ship as pure Python)."""

import os
import sys

from setuptools import setup

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_build"))
from truco_build import extensions

# mypyc type-checks the bots against the engine's sources when they are beside them (this repository).
setup(ext_modules=extensions("src/truco/bots", group="truco_bots", mypy_path=["src", "../../engine/src"]))
