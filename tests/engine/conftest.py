"""The engine's and the bots' tests: pure, no server, no SDK; ``./dev test`` also runs this folder on the
mypyc-compiled build (.venv-compiled), which holds the engine, the bots and what these tests need, nothing more."""

from __future__ import annotations

import os

from hypothesis import settings

# CI runs are repeatable: the same examples every time (a failure prints its reproduction blob either way).
# Locally Hypothesis keeps exploring new examples on each run. HYPOTHESIS_PROFILE picks one explicitly.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") == "true" else "dev"))
