"""Prometheus finds the server's metrics port both ways the manifests offer: the pod annotations name it, and the
optional Prometheus Operator component's ServiceMonitor (a custom resource, which no Kubernetes schema covers)
scrapes it through a Service of the server's, in the kustomization's namespace, on the annotations' path."""

from __future__ import annotations

from typing import Any

from deploycheck import k8s
from deploycheck.model import K8S_DIR, Deploy, Manifest
from deploycheck.server import METRICS, Server, the_namespace, the_server

SERVICE_MONITOR = ("monitoring.coreos.com/v1", "ServiceMonitor")


def check_monitoring(deploy: Deploy) -> list[str]:
    server = the_server(deploy)
    metrics = server.port(METRICS)
    annotations = k8s.mapping(k8s.dig(server.deployment, "spec", "template", "metadata", "annotations"))
    problems = []
    if annotations.get("prometheus.io/scrape") != "true" or annotations.get("prometheus.io/port") != str(metrics):
        problems.append(f"{server.name}: pod annotations do not ask Prometheus to scrape port {metrics}")
    monitors = [
        (component.path, obj)
        for component in deploy.components
        for _, obj in component.objects()
        if (obj.get("apiVersion"), obj.get("kind")) == SERVICE_MONITOR
    ]
    if not monitors:
        problems.append(f"{K8S_DIR}: no component holds a ServiceMonitor")
    path = annotations.get("prometheus.io/path", "/metrics")
    for where, monitor in monitors:
        problems += [f"{where}: {k8s.label(monitor)}: {p}" for p in _service_monitor(deploy, server, monitor, path)]
    return problems


def _service_monitor(deploy: Deploy, server: Server, monitor: Manifest, path: Any) -> list[str]:
    namespace = the_namespace(deploy)
    problems = []
    if k8s.meta(monitor).get("namespace") != namespace or namespace not in (
        k8s.dig(monitor, "spec", "namespaceSelector", "matchNames") or []
    ):
        problems.append(f"not in, or not looking in, namespace {namespace!r}")
    endpoints = k8s.mappings(k8s.dig(monitor, "spec", "endpoints"))
    wanted = {endpoint.get("port") for endpoint in endpoints}
    scraped = [
        (service, port)
        for service in deploy.find("Service")
        if k8s.selector_matches(k8s.dig(monitor, "spec", "selector"), k8s.mapping(k8s.meta(service).get("labels")))
        for port in k8s.mappings(k8s.dig(service, "spec", "ports"))
        if port.get("name") in wanted
    ]
    if not scraped:
        problems.append(f"selects no Service with a port named {sorted(map(str, wanted))}")
    for service, port in scraped:
        if service not in k8s.services_of(deploy, server.deployment):
            problems.append(f"{k8s.label(service)} is not a Service of {server.name}")
        if port.get("targetPort") not in (METRICS.port_name, server.port(METRICS)):
            problems.append(f"scrapes {k8s.label(service)} port {port.get('name')}, not the server's metrics port")
    if any(endpoint.get("path", "/metrics") != path for endpoint in endpoints):
        problems.append(f"an endpoint's path is not {path} (the pod annotations')")
    return problems
