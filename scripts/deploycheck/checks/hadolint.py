"""hadolint, the standard Dockerfile linter, finds nothing in the Dockerfile (it covers, among others, a root
final USER, shell-form ENTRYPOINT/CMD, pip caches and apt lists left in the image; its inline
`# hadolint ignore=` comments say where the project deliberately differs)."""

from __future__ import annotations

from deploycheck.model import Deploy
from deploycheck.tools import run_tool


def check_hadolint(deploy: Deploy) -> list[str]:
    if deploy.dockerfile is None:
        return ["Dockerfile: missing"]
    linted = run_tool("hadolint", "--no-color", "Dockerfile", cwd=deploy.root)
    if linted.returncode == 0:
        return []
    return [line for line in (linted.stdout + linted.stderr).splitlines() if line.strip()] or ["hadolint failed"]
