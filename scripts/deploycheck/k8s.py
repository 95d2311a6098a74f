"""Reading Kubernetes objects that may be incomplete: every accessor answers something empty rather than fail,
since the checks report on the files however broken they are (the schema check says what is malformed)."""

from __future__ import annotations

from typing import Any

from deploycheck.model import Deploy, Manifest

WORKLOAD_KINDS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"})


def dig(obj: Any, *keys: str | int) -> Any:
    """obj[k1][k2]..., or None where a key is missing or a value is of another shape."""
    for key in keys:
        if isinstance(obj, dict) and isinstance(key, str):
            obj = obj.get(key)
        elif isinstance(obj, list) and isinstance(key, int) and -len(obj) <= key < len(obj):
            obj = obj[key]
        else:
            return None
    return obj


def mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def mappings(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def meta(obj: Manifest) -> dict[str, Any]:
    return mapping(obj.get("metadata"))


def label(obj: Manifest) -> str:
    """Kind/name, as problems name an object."""
    return f"{obj.get('kind')}/{meta(obj).get('name')}"


def pod_spec(workload: Manifest) -> dict[str, Any]:
    return mapping(dig(workload, "spec", "template", "spec"))


def pod_labels(workload: Manifest) -> dict[str, Any]:
    return mapping(dig(workload, "spec", "template", "metadata", "labels"))


def containers(workload: Manifest) -> list[dict[str, Any]]:
    return mappings(pod_spec(workload).get("containers"))


def container_ports(workload: Manifest) -> list[dict[str, Any]]:
    return [port for container in containers(workload) for port in mappings(container.get("ports"))]


def named_ports(workload: Manifest) -> dict[str, Any]:
    """containerPort by port name, over the workload's containers."""
    return {port["name"]: port.get("containerPort") for port in container_ports(workload) if port.get("name")}


def selector_matches(selector: Any, labels: dict[str, Any]) -> bool:
    """Whether a label selector (a Service's plain map, or matchLabels/matchExpressions) selects ``labels``."""
    if not isinstance(selector, dict) or not selector:
        return False
    if "matchLabels" not in selector and "matchExpressions" not in selector:
        return all(labels.get(key) == value for key, value in selector.items())
    if not all(labels.get(key) == value for key, value in mapping(selector.get("matchLabels")).items()):
        return False
    return all(_expression_matches(expression, labels) for expression in mappings(selector.get("matchExpressions")))


def _expression_matches(expression: dict[str, Any], labels: dict[str, Any]) -> bool:
    key, operator, values = str(expression.get("key")), expression.get("operator"), expression.get("values") or []
    if operator == "In":
        return labels.get(key) in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    return operator == "DoesNotExist" and key not in labels


def workloads(deploy: Deploy) -> list[Manifest]:
    return [obj for obj in deploy.applied() if obj.get("kind") in WORKLOAD_KINDS]


def selected_workloads(deploy: Deploy, selector: Any) -> list[Manifest]:
    return [workload for workload in workloads(deploy) if selector_matches(selector, pod_labels(workload))]


def services_of(deploy: Deploy, workload: Manifest) -> list[Manifest]:
    """The Services whose selector selects the workload's pods."""
    return [s for s in deploy.find("Service") if selector_matches(dig(s, "spec", "selector"), pod_labels(workload))]


def is_headless(service: Manifest) -> bool:
    return bool(dig(service, "spec", "clusterIP") == "None")
