"""The image's engine and bots are compiled: the stage that pip-installs the project's distributions has a C
compiler, installs with TRUCO_COMPILED=1 (the build backend then fails rather than ship pure Python), runs
`python -m truco.cli.builds --require compiled` so that a pure engine fails the build, never asks for
TRUCO_PURE, and is not the final stage, which starts from the same image so that the virtual environment built
here runs there."""

from __future__ import annotations

import re

from deploycheck import image
from deploycheck.image import Stage
from deploycheck.model import Deploy

COMPILERS = ("build-essential", "gcc", "clang")
COMPILED_CHECK = "truco.cli.builds --require compiled"


def local_installs(runs: str) -> list[str]:
    """The paths in the build context (./engine, ...) that the `pip install` commands of ``runs`` install."""
    commands = re.split(r"&&|;|\|\|", runs)
    installs = [command.split() for command in commands if "pip install" in command]
    return [word for words in installs for word in words if word.startswith("./")]


def build_stages(all_stages: list[Stage]) -> list[Stage]:
    """The stages that pip-install distributions from the build context."""
    return [stage for stage in all_stages if local_installs(image.run_text(stage))]


def check_compiled_build(deploy: Deploy) -> list[str]:
    all_stages = image.stages(deploy.dockerfile or ())
    builders = build_stages(all_stages)
    if not builders:
        return ["Dockerfile: no stage pip-installs the project's distributions (./engine, ...)"]
    final = all_stages[-1]
    problems = []
    for stage in builders:
        where, runs = f"Dockerfile:{stage[0].line}", image.run_text(stage)
        if stage is final:
            problems.append(f"{where}: the final stage installs the project: build it in a stage of its own")
        if image.base_image(stage) != image.base_image(final):
            problems.append(f"{where}: FROM {image.base_image(stage)}, the final stage's is {image.base_image(final)}")
        if not re.search(r"apt-get install\b[^&;]*\b(" + "|".join(COMPILERS) + r")\b", runs):
            problems.append(f"{where}: installs no C compiler ({' or '.join(COMPILERS)}): mypyc cannot compile")
        if image.env(stage).get("TRUCO_COMPILED") != "1" and "TRUCO_COMPILED=1" not in runs:
            problems.append(f"{where}: the install does not set TRUCO_COMPILED=1 (no compiler: a pure engine)")
        if COMPILED_CHECK not in runs:
            problems.append(f"{where}: never runs `python -m {COMPILED_CHECK}`: a pure engine would pass")
        if "TRUCO_PURE" in runs or "TRUCO_PURE" in image.env(stage):
            problems.append(f"{where}: sets TRUCO_PURE (a pure engine)")
        for path in local_installs(runs):
            if not (deploy.root / path / "pyproject.toml").is_file():
                problems.append(f"{where}: installs {path}, which is no distribution of the repository")
    return problems
