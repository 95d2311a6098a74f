"""Every manifest against the Kubernetes API's own schemas, strictly and offline, with kubernetes-validate (it
ships the schemas): unknown fields (a typo, a wrong indentation level), wrong types, missing required fields,
and API versions the cluster does not serve. Each object is validated against the oldest Kubernetes
deploy/README.md says the manifests need and against the newest the pinned kubernetes-validate knows.

Custom resources (the Prometheus Operator's ServiceMonitor) have no schema there: their CRDs come with the
operator, not with Kubernetes. Those the project's own checks look at are let through here; any other object
without a schema fails."""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import kubernetes_validate

from deploycheck import k8s
from deploycheck.checks.monitoring import SERVICE_MONITOR
from deploycheck.model import Deploy, Manifest, Missing

NEWEST = "1.37"
"""The newest Kubernetes release kubernetes-validate==1.37.0 (the dev dependency group) carries schemas for."""
OLDEST_CLAIM = re.compile(r"Needs Kubernetes (\d+\.\d+) or newer")
CHECKED_BY_THE_PROJECT = {SERVICE_MONITOR}
"""(apiVersion, kind) of the custom resources a project check covers (checks/monitoring.py)."""


def kubernetes_versions(deploy: Deploy) -> tuple[str, str]:
    """The oldest Kubernetes deploy/README.md says the manifests need, and NEWEST."""
    readme = deploy.root / "deploy" / "README.md"
    claim = OLDEST_CLAIM.search(readme.read_text(encoding="utf-8")) if readme.is_file() else None
    if claim is None:
        raise Missing("deploy/README.md: does not say which Kubernetes the manifests need ('Needs Kubernetes X.Y')")
    known = sorted(_minor(version) for version in kubernetes_validate.utils.all_versions())
    if _minor(claim.group(1)) < known[0]:
        raise Missing(f"deploy/README.md: Kubernetes {claim.group(1)} is older than kubernetes-validate knows")
    return claim.group(1), NEWEST


def check_schemas(deploy: Deploy) -> list[str]:
    versions = kubernetes_versions(deploy)
    problems: list[str] = []
    for path, obj in deploy.every_file():
        for version in versions:
            problem = _validate(obj, version)
            if problem is not None:
                problems.append(f"{path}: {k8s.label(obj)}: {problem}")
    return problems


def _validate(obj: Manifest, version: str) -> str | None:
    """What Kubernetes ``version``'s schema finds wrong with ``obj``; None if nothing."""
    try:
        text = json.dumps(obj, sort_keys=True)
    except TypeError:  # a value JSON has no type for (a YAML date): no schema accepts it either
        return _findings(obj, version)
    return _remembered(text, version)


@functools.lru_cache(maxsize=1024)
def _remembered(text: str, version: str) -> str | None:
    """An object validates the same every time, and kubernetes-validate reads its schemas anew for each one:
    the tests, which break one object of the files at a time, then validate only that one again."""
    return _findings(json.loads(text), version)


def _findings(obj: Manifest, version: str) -> str | None:
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return "no apiVersion or no kind"
    try:
        kubernetes_validate.validate(obj, version, strict=True)
    except kubernetes_validate.ValidationError as error:
        return f"Kubernetes {version}: {'.'.join(map(str, error.path)) or '.'}: {error.message}"
    except kubernetes_validate.SchemaNotFoundError:
        if (api_version, kind) not in CHECKED_BY_THE_PROJECT:
            return f"Kubernetes {version} serves no {kind} in {api_version} (and no project check knows it)"
    return None


def _minor(version: Any) -> tuple[int, int]:
    major, minor = str(version).split(".")[:2]
    return int(major), int(minor)
