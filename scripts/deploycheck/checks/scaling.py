"""The server's numbers of replicas and processes agree: the autoscaler scales the server Deployment on CPU (which
needs a CPU request) from the Deployment's starting replicas, the PodDisruptionBudget lets a drain evict a pod
even at the autoscaler's minimum, and `--workers` uses no more cores than the CPU limit."""

from __future__ import annotations

import math
from typing import Any

from deploycheck import k8s
from deploycheck.model import K8S_DIR, Deploy, Manifest
from deploycheck.server import Server, arg_after, the_server


def check_scaling(deploy: Deploy) -> list[str]:
    server = the_server(deploy)
    autoscalers = deploy.find("HorizontalPodAutoscaler")
    if len(autoscalers) != 1:
        return [f"{K8S_DIR}: {len(autoscalers)} HorizontalPodAutoscalers, want one for {server.name}"]
    hpa = autoscalers[0]
    low, high = k8s.dig(hpa, "spec", "minReplicas"), k8s.dig(hpa, "spec", "maxReplicas")
    replicas = k8s.dig(server.deployment, "spec", "replicas")
    problems = _autoscaler_target(hpa, server)
    if not isinstance(low, int) or not isinstance(high, int) or not 1 <= low <= high:
        problems.append(f"{k8s.label(hpa)}: scales {low}..{high}")
    elif replicas != low:
        problems.append(f"{server.name}: starts {replicas} replicas, the autoscaler's minimum is {low}")
    for pdb in deploy.find("PodDisruptionBudget"):
        minimum = k8s.dig(pdb, "spec", "minAvailable")
        if not isinstance(minimum, int) or not isinstance(low, int) or minimum >= low:
            problems.append(f"{k8s.label(pdb)}: minAvailable {minimum} blocks every drain at {low} replicas")
    return problems + _workers(server)


def _autoscaler_target(hpa: Manifest, server: Server) -> list[str]:
    target = k8s.dig(hpa, "spec", "scaleTargetRef") or {}
    wanted = (server.deployment.get("apiVersion"), "Deployment", k8s.dig(server.deployment, "metadata", "name"))
    problems = []
    if (target.get("apiVersion"), target.get("kind"), target.get("name")) != wanted:
        problems.append(f"{k8s.label(hpa)}: scaleTargetRef {target} is not {server.name}")
    on_cpu = [m for m in k8s.mappings(k8s.dig(hpa, "spec", "metrics")) if k8s.dig(m, "resource", "name") == "cpu"]
    if not on_cpu:
        problems.append(f"{k8s.label(hpa)}: no CPU metric")
    elif k8s.dig(server.container, "resources", "requests", "cpu") is None:
        problems.append(f"{server.name}: no CPU request, which the autoscaler's utilisation target is a share of")
    return problems


def _workers(server: Server) -> list[str]:
    workers = arg_after(server.args, "--workers")
    limit = cpu_cores(k8s.dig(server.container, "resources", "limits", "cpu"))
    if workers is None or not workers.isdigit() or int(workers) < 1:
        return [f"{server.name}: args give --workers {workers!r}, want a number of worker processes (1 or more)"]
    if limit is None:
        return [f"{server.name}: no resources.limits.cpu for --workers {workers} to fit"]
    if int(workers) > math.ceil(limit):
        return [f"{server.name}: --workers {workers} is more than the {limit:g} cores of resources.limits.cpu"]
    return []


def cpu_cores(quantity: Any) -> float | None:
    """A Kubernetes CPU quantity ("2", 2, "1500m") in cores; None if absent or unreadable."""
    text = str(quantity) if quantity is not None else ""
    try:
        return int(text[:-1]) / 1000 if text.endswith("m") else float(text)
    except ValueError:
        return None
