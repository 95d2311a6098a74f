"""`kubectl kustomize` builds deploy/k8s, with every component enabled as deploy/README.md tells, offline and
without a warning (a deprecated field, an unknown one, a missing name or a duplicate object fails), and yields
exactly the objects of the listed files, each in the namespace its file names (kustomize knows which kinds are
namespaced). A component only adds to the base, so one build covers the base on its own too."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import yaml

from deploycheck import k8s
from deploycheck.model import KUSTOMIZATION, Deploy, Manifest
from deploycheck.tools import run_tool

Identity = tuple[Any, Any]  # (kind, name)


def check_kustomize_builds(deploy: Deploy) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="deploycheck-") as scratch:
        built = run_tool("kubectl", "kustomize", str(_with_components(deploy, Path(scratch))))
    where = f"kubectl kustomize {deploy.base.path}"
    if built.returncode != 0:
        return [f"{where}: {' '.join(built.stderr.split())}"]
    problems = [f"{where}: {line.lstrip('# ')}" for line in built.stderr.splitlines() if line.strip()]
    objects = [obj for obj in yaml.safe_load_all(built.stdout) if isinstance(obj, dict)]
    return problems + _compare(where, _namespaces(objects), _namespaces(_listed_objects(deploy)))


def _with_components(deploy: Deploy, scratch: Path) -> Path:
    """A copy of deploy/k8s whose kustomization enables every component."""
    copy = scratch / deploy.base.path.name
    shutil.copytree(deploy.root / deploy.base.path, copy)
    kustomization = yaml.safe_load((copy / KUSTOMIZATION).read_text(encoding="utf-8"))
    if isinstance(kustomization, dict) and deploy.components:
        kustomization["components"] = [component.path.name for component in deploy.components]
        (copy / KUSTOMIZATION).write_text(yaml.safe_dump(kustomization), encoding="utf-8")
    return copy


def _listed_objects(deploy: Deploy) -> list[Manifest]:
    return deploy.applied() + [obj for component in deploy.components for _, obj in component.objects()]


def _namespaces(objects: list[Manifest]) -> dict[Identity, Any]:
    return {(obj.get("kind"), k8s.meta(obj).get("name")): k8s.meta(obj).get("namespace") for obj in objects}


def _compare(where: str, built: dict[Identity, Any], files: dict[Identity, Any]) -> list[str]:
    problems = [f"{where}: builds {kind}/{name}, which no listed file holds" for kind, name in built.keys() - files]
    problems += [f"{where}: leaves out {kind}/{name}" for kind, name in files.keys() - built]
    for (kind, name), namespace in sorted(built.items(), key=str):
        if (kind, name) in files and files[kind, name] != namespace:
            problems.append(
                f"{where}: {kind}/{name} is in namespace {files[kind, name]!r} in its file, {namespace!r} once built"
            )
    return problems
