"""NetworkPolicies let clients reach the server's public ports (gRPC, web) from anywhere and only chosen peers
its metrics port, need not admit its health port but never from anywhere (the kubelet's probes come from the
pod's own node, which NetworkPolicies always admit; a client that reached it could fill it), name only ports the
pods declare, let the server reach the database and DNS when its egress is restricted, and let nothing but the
server reach the in-cluster database (a StatefulSet), on the port its pods declare."""

from __future__ import annotations

from typing import Any

from deploycheck import k8s
from deploycheck.model import K8S_DIR, Deploy, Manifest
from deploycheck.server import ROLES, Server, the_server

DNS_PORT = 53
Rule = dict[str, Any]


def check_network_policies(deploy: Deploy) -> list[str]:
    policies = deploy.find("NetworkPolicy")
    if not policies:
        return [f"{K8S_DIR}: no NetworkPolicy"]
    server = the_server(deploy)
    problems = [
        f"{k8s.label(policy)}: podSelector selects no workload"
        for policy in policies
        if not k8s.selected_workloads(deploy, k8s.dig(policy, "spec", "podSelector"))
    ]
    mine = _guarding(policies, server.deployment)
    if not mine:
        return [*problems, f"{server.name}: no NetworkPolicy selects the server pods"]
    problems += _server_ingress(server, _rules(mine, "ingress"))
    if any("Egress" in (k8s.dig(policy, "spec", "policyTypes") or []) for policy in mine):
        problems += _server_egress(deploy, server, _rules(mine, "egress"))
    for database in _databases(deploy):
        problems += _database_ingress(policies, database, server)
    return problems


def _guarding(policies: list[Manifest], workload: Manifest) -> list[Manifest]:
    return [p for p in policies if k8s.selector_matches(k8s.dig(p, "spec", "podSelector"), k8s.pod_labels(workload))]


def _rules(policies: list[Manifest], direction: str) -> list[Rule]:
    return [rule for policy in policies for rule in k8s.mappings(k8s.dig(policy, "spec", direction))]


def _ports(rule: Rule) -> set[Any]:
    return {port.get("port") for port in k8s.mappings(rule.get("ports"))}


def _databases(deploy: Deploy) -> list[Manifest]:
    return [workload for workload in k8s.workloads(deploy) if workload.get("kind") == "StatefulSet"]


def _peers_select(peers: Any, labels: dict[str, Any]) -> bool:
    """Whether a rule's from/to peers admit pods with ``labels`` in the same namespace (no peers: anyone)."""
    if not peers:
        return True
    return any(
        "namespaceSelector" not in peer
        and "ipBlock" not in peer
        and k8s.selector_matches(peer.get("podSelector"), labels)
        for peer in k8s.mappings(peers)
    )


def _server_ingress(server: Server, ingress: list[Rule]) -> list[str]:
    problems = []
    for role in ROLES:
        admitting = [rule for rule in ingress if {role.port_name, server.port(role)} & _ports(rule)]
        if not admitting:
            no_rule = f"{server.name}: no NetworkPolicy ingress rule admits port {role.port_name}"
            problems += [no_rule] if role.published else []
        elif role.public and all(rule.get("from") for rule in admitting):
            problems.append(f"{server.name}: {role.port_name} is admitted only from some peers: clients are anywhere")
        elif not role.public and any(not rule.get("from") for rule in admitting):
            problems.append(f"{server.name}: {role.port_name} is admitted from anyone")
    names = k8s.named_ports(server.deployment)
    for port in sorted({port for rule in ingress for port in _ports(rule) if isinstance(port, str)}):
        if port not in names:
            problems.append(f"{server.name}: a NetworkPolicy names port {port!r}, which its pods do not declare")
    return problems


def _server_egress(deploy: Deploy, server: Server, egress: list[Rule]) -> list[str]:
    problems = []
    if not any(DNS_PORT in _ports(rule) for rule in egress):
        problems.append(f"{server.name}: egress is restricted but DNS (port {DNS_PORT}) is not allowed")
    for database in _databases(deploy):
        for port in {port.get("containerPort") for port in k8s.container_ports(database)}:
            if not any(port in _ports(r) and _peers_select(r.get("to"), k8s.pod_labels(database)) for r in egress):
                problems.append(f"{server.name}: egress is restricted but {k8s.label(database)}:{port} is not allowed")
    return problems


def _database_ingress(policies: list[Manifest], database: Manifest, server: Server) -> list[str]:
    me = k8s.label(database)
    rules = _rules(_guarding(policies, database), "ingress")
    if not _guarding(policies, database):
        return [f"{me}: no NetworkPolicy restricts who reaches the database"]
    problems = []
    for port in {port.get("containerPort") for port in k8s.container_ports(database)}:
        if not any(
            port in _ports(r) and _peers_select(r.get("from"), k8s.pod_labels(server.deployment)) for r in rules
        ):
            problems.append(f"{me}: the server pods may not reach it on {port}")
    if any(not rule.get("from") for rule in rules):
        problems.append(f"{me}: a NetworkPolicy admits anyone to the database")
    return problems
