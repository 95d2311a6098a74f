"""Labels and selectors agree: each workload's selector, spread constraints and anti-affinity select its own
pods, a StatefulSet's governing Service selects them too, the server has a ClusterIP and a headless Service, and
the PodDisruptionBudget covers the server's pods and nothing else."""

from __future__ import annotations

from deploycheck import k8s
from deploycheck.model import K8S_DIR, Deploy, Manifest
from deploycheck.server import the_server


def check_selectors(deploy: Deploy) -> list[str]:
    problems = [problem for workload in k8s.workloads(deploy) for problem in _own_pods(deploy, workload)]
    server = the_server(deploy)
    services = k8s.services_of(deploy, server.deployment)
    if not any(k8s.is_headless(s) for s in services) or all(k8s.is_headless(s) for s in services):
        problems.append(f"{server.name}: wants a ClusterIP Service and a headless Service selecting its pods")
    budgets = deploy.find("PodDisruptionBudget")
    if not budgets:
        problems.append(f"{K8S_DIR}: no PodDisruptionBudget")
    for pdb in budgets:
        selected = k8s.selected_workloads(deploy, k8s.dig(pdb, "spec", "selector"))
        if selected != [server.deployment]:
            names = ", ".join(k8s.label(w) for w in selected) or "nothing"
            problems.append(f"{k8s.label(pdb)}: selects {names}, not exactly {server.name}")
    return problems


def _own_pods(deploy: Deploy, workload: Manifest) -> list[str]:
    labels, spec, me = k8s.pod_labels(workload), k8s.pod_spec(workload), k8s.label(workload)
    problems = []
    if not k8s.selector_matches(k8s.dig(workload, "spec", "selector"), labels):
        problems.append(f"{me}: spec.selector does not match its own pod template labels")
    for constraint in k8s.mappings(spec.get("topologySpreadConstraints")):
        if not k8s.selector_matches(constraint.get("labelSelector"), labels):
            problems.append(f"{me}: a topologySpreadConstraint does not select its own pods")
    anti = k8s.mapping(k8s.dig(spec, "affinity", "podAntiAffinity"))
    preferred = k8s.mappings(anti.get("preferredDuringSchedulingIgnoredDuringExecution"))
    required = k8s.mappings(anti.get("requiredDuringSchedulingIgnoredDuringExecution"))
    for term in [k8s.mapping(t.get("podAffinityTerm")) for t in preferred] + required:
        if not k8s.selector_matches(term.get("labelSelector"), labels):
            problems.append(f"{me}: a podAntiAffinity term does not select its own pods")
    if workload.get("kind") == "StatefulSet":
        service_name = k8s.dig(workload, "spec", "serviceName")
        governing = [s for s in deploy.find("Service") if k8s.meta(s).get("name") == service_name]
        if not governing:
            problems.append(f"{me}: serviceName {service_name!r} is no Service here")
        elif not k8s.selector_matches(k8s.dig(governing[0], "spec", "selector"), labels):
            problems.append(f"{me}: its governing Service does not select its pods")
    return problems
