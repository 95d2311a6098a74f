"""Every Service selects exactly one workload and targets ports its pods declare. The server's Services publish
each of its ports under the container's own number and role name (gRPC as cleartext HTTP/2 for gateways and
meshes), and the ClusterIP one publishes all of them but the health port, which none publishes: a client that
reached it could fill it, and the probes with it."""

from __future__ import annotations

from typing import Any

from deploycheck import k8s
from deploycheck.model import Deploy, Manifest
from deploycheck.server import GRPC, ROLES, Role, Server, the_server

H2C = "kubernetes.io/h2c"


def check_services(deploy: Deploy) -> list[str]:
    problems: list[str] = []
    for service in deploy.find("Service"):
        selected = k8s.selected_workloads(deploy, k8s.dig(service, "spec", "selector"))
        if len(selected) != 1:
            names = ", ".join(k8s.label(w) for w in selected) or "nothing"
            problems.append(f"{k8s.label(service)}: selects {names}, not exactly one workload")
            continue
        problems += _target_ports(service, selected[0])
    server = the_server(deploy)
    for service in k8s.services_of(deploy, server.deployment):
        problems += _server_service(service, server)
    return problems


def _target_ports(service: Manifest, workload: Manifest) -> list[str]:
    names = k8s.named_ports(workload)
    numbers = set(names.values())
    problems = []
    for port in k8s.mappings(k8s.dig(service, "spec", "ports")):
        target = port.get("targetPort", port.get("port"))
        if target not in names and target not in numbers:
            problems.append(
                f"{k8s.label(service)}: port {port.get('name')} targets {target!r}, "
                f"no containerPort of {k8s.label(workload)}"
            )
    return problems


def _server_service(service: Manifest, server: Server) -> list[str]:
    problems = []
    for role in ROLES:
        port = _publishing(service, server, role)
        if not role.published:
            if port is not None:
                problems.append(f"{k8s.label(service)}: publishes the {role.port_name} port, for clients to fill")
        elif port is None:
            if not k8s.is_headless(service):
                problems.append(f"{k8s.label(service)}: does not publish the server's {role.port_name} port")
        else:
            problems += _published_as(service, server, role, port)
    return problems


def _published_as(service: Manifest, server: Server, role: Role, port: dict[str, Any]) -> list[str]:
    problems = []
    if (port.get("name"), port.get("port")) != (role.port_name, server.port(role)):
        problems.append(
            f"{k8s.label(service)}: publishes the {role.port_name} port as {port.get('name')} {port.get('port')}, "
            f"not {role.port_name} {server.port(role)}"
        )
    if role is GRPC and port.get("appProtocol") != H2C:
        problems.append(f"{k8s.label(service)}: the grpc port's appProtocol is not {H2C}")
    return problems


def _publishing(service: Manifest, server: Server, role: Role) -> dict[str, Any] | None:
    """The Service port that targets the container port of ``role`` (by name or number)."""
    for port in k8s.mappings(k8s.dig(service, "spec", "ports")):
        if port.get("targetPort", port.get("port")) in (role.port_name, server.port(role)):
            return port
    return None
