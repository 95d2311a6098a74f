"""truco-engine's build script: metadata is in pyproject.toml; this only adds the mypyc extensions (see
_build/truco_build.py for when the engine is compiled and when it ships as pure Python)."""

import os
import sys

from setuptools import setup

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_build"))
from truco_build import extensions

setup(ext_modules=extensions("src/truco/engine", group="truco_engine", mypy_path=["src"]))
