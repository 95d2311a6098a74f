"""The server as the manifests declare it: the one Deployment, its one container, its arguments, and the ports
it serves by role. Every number comes from the files; the roles only say which `truco serve` flag and which
port name belong together."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deploycheck.k8s import containers, label, mapping, mappings
from deploycheck.model import K8S_DIR, Deploy, Manifest, Missing


@dataclass(frozen=True)
class Role:
    port_name: str  # the containerPort name the Deployment, the Services and the NetworkPolicies use
    flag: str  # the `truco serve` flag that sets it
    public: bool  # reached by clients from anywhere (the metrics port: by Prometheus only)
    published: bool = True
    """Reached from outside the pod: published by the Services, admitted by a NetworkPolicy, EXPOSEd by the image.
    Not the health port: the kubelet's probes come from the pod's own node and the image's HEALTHCHECK from inside
    the container, and any client able to reach it could fill it as it fills the gRPC port (issue 31)."""


GRPC = Role("grpc", "--port", public=True)
WEB = Role("web", "--web-port", public=True)
METRICS = Role("metrics", "--metrics-port", public=False)
HEALTH = Role("health", "--health-port", public=False, published=False)
ROLES = (GRPC, WEB, METRICS, HEALTH)


def arg_after(args: Sequence[Any], flag: str) -> str | None:
    """The value given to ``flag`` (``--flag value`` or ``--flag=value``), or None."""
    for index, arg in enumerate(args):
        if arg == flag and index + 1 < len(args):
            return str(args[index + 1])
        if isinstance(arg, str) and arg.startswith(flag + "="):
            return arg.partition("=")[2]
    return None


def flags(args: Sequence[Any]) -> list[str]:
    return [str(arg).partition("=")[0] for arg in args if str(arg).startswith("--")]


@dataclass(frozen=True)
class Server:
    deployment: Manifest
    container: dict[str, Any]

    @property
    def name(self) -> str:
        return label(self.deployment)

    @property
    def args(self) -> list[str]:
        return [str(arg) for arg in self.container.get("args") or []]

    @property
    def env(self) -> dict[str, dict[str, Any]]:
        return {str(item.get("name")): item for item in mappings(self.container.get("env"))}

    def port(self, role: Role) -> int:
        """The number of the container port named for ``role``."""
        for port in mappings(self.container.get("ports")):
            if port.get("name") == role.port_name and isinstance(port.get("containerPort"), int):
                return int(port["containerPort"])
        raise Missing(f"{self.name}: no containerPort named {role.port_name!r}")


def the_server(deploy: Deploy) -> Server:
    """The Deployment of deploy/k8s (the one workload that runs `truco serve`) and its container."""
    deployments = deploy.find("Deployment")
    if len(deployments) != 1:
        raise Missing(f"{K8S_DIR}: {len(deployments)} Deployments, want the server's alone")
    found = containers(deployments[0])
    if len(found) != 1:
        raise Missing(f"{label(deployments[0])}: {len(found)} containers, want the server's alone")
    return Server(deployments[0], found[0])


def the_namespace(deploy: Deploy) -> str:
    """The namespace the kustomization puts everything in."""
    namespace = mapping(deploy.base.kustomization).get("namespace")
    if not isinstance(namespace, str) or not namespace:
        raise Missing(f"{deploy.base.path}/kustomization.yaml: sets no namespace")
    return namespace
