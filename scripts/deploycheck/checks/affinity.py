"""Game affinity through ingress-nginx (the optional ``ingress-nginx`` component): every RPC of the public services
is routed, the ones whose request names a game (a ``name`` field, read from the generated descriptors) to an
Ingress that hashes on the ``x-truco-game`` metadata, the others to one that balances round robin (without the
header they would all hash alike, onto one pod). The hashed Ingress has Services of its own (ingress-nginx keeps one
balancing rule per Service port), and every Service it uses selects the server's pods and targets its gRPC port
as cleartext HTTP/2. Both speak gRPC to the pods and keep WatchGame streams open for an hour."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from deploycheck import k8s
from deploycheck.model import Deploy, Manifest
from deploycheck.server import GRPC, Server, the_server

AFFINITY_HEADER = "x-truco-game"
"""The metadata the SDKs send on every call of a game (its name), and scripts/cluster's nginx hashes on."""
ANNOTATION = "nginx.ingress.kubernetes.io/"
HASH_BY = ANNOTATION + "upstream-hash-by"
TIMEOUTS = (ANNOTATION + "proxy-read-timeout", ANNOTATION + "proxy-send-timeout")
WATCH_SECONDS = 3600
"""How long a WatchGame stream may wait for an event through the proxy (scripts/cluster's nginx: 1 h)."""
H2C = "kubernetes.io/h2c"


@dataclass(frozen=True)
class Route:
    ingress: Manifest
    host: str
    path: str
    exact: bool
    backend: dict[str, Any]

    @property
    def hashed(self) -> bool:
        return HASH_BY in k8s.mapping(k8s.meta(self.ingress).get("annotations"))


def public_methods() -> list[tuple[str, bool]]:
    """(gRPC path, whether its request names a game) of every method of the public services."""
    from truco_client.v1 import game_service_pb2, players_pb2, rules_service_pb2

    methods = []
    for module, service in (
        (game_service_pb2, "GameService"),
        (rules_service_pb2, "RulesService"),
        (players_pb2, "PlayerService"),
    ):
        descriptor = module.DESCRIPTOR.services_by_name[service]
        for method in descriptor.methods:
            request = method.input_type
            # Only GameService's names are games' (PlayerService names tickets and players).
            names = service == "GameService" and "name" in request.fields_by_name
            if method.client_streaming:  # a bidirectional call names its game in its first message (PlayGame's start)
                names = names or any(
                    field.message_type is not None and "name" in field.message_type.fields_by_name
                    for field in request.fields
                )
            methods.append((f"/{descriptor.full_name}/{method.name}", names))
    return methods


def check_game_affinity(deploy: Deploy) -> list[str]:
    ingresses = [
        obj for component in deploy.components for _, obj in component.objects() if obj.get("kind") == "Ingress"
    ]
    if not ingresses:
        return []  # no component publishes gRPC through an Ingress: nothing to check
    server = the_server(deploy)
    services = {
        k8s.meta(obj).get("name"): obj
        for obj in deploy.applied() + [o for c in deploy.components for _, o in c.objects()]
        if obj.get("kind") == "Service"
    }
    routes = list(_routes(ingresses))
    problems = [p for ingress in ingresses for p in _ingress(ingress)]
    problems += [p for route in routes for p in _backend(route, services, server)]
    problems += _shared_services(routes)
    for host in sorted({route.host for route in routes}):
        for path, names_a_game in public_methods():
            route = _route_for([r for r in routes if r.host == host], path)
            want = "the Ingress hashing on the game" if names_a_game else "a round-robin Ingress"
            if route is None:
                problems.append(f"{host}{path}: no Ingress routes it (want {want})")
            elif route.hashed != names_a_game:
                problems.append(f"{host}{path}: goes to {k8s.label(route.ingress)}, want {want}")
    return problems


def _routes(ingresses: list[Manifest]) -> Iterator[Route]:
    for ingress in ingresses:
        for rule in k8s.mappings(k8s.dig(ingress, "spec", "rules")):
            for path in k8s.mappings(k8s.dig(rule, "http", "paths")):
                backend = k8s.mapping(k8s.dig(path, "backend", "service"))
                exact = path.get("pathType") == "Exact"
                yield Route(ingress, str(rule.get("host", "")), str(path.get("path", "/")), exact, backend)


def _route_for(routes: list[Route], path: str) -> Route | None:
    """The route Kubernetes' Ingress semantics pick for ``path``: an Exact match, else the longest Prefix match
    by path elements."""
    for route in routes:
        if route.exact and route.path == path:
            return route
    elements = path.strip("/").split("/")
    prefixes = [r for r in routes if not r.exact and r.path.strip("/").split("/") == elements[: _depth(r.path)]]
    return max(prefixes, key=lambda r: _depth(r.path), default=None)


def _depth(path: str) -> int:
    return len([element for element in path.strip("/").split("/") if element])


def _ingress(ingress: Manifest) -> list[str]:
    annotations = k8s.mapping(k8s.meta(ingress).get("annotations"))
    problems = []
    if annotations.get(ANNOTATION + "backend-protocol") != "GRPC":
        problems.append(f"{k8s.label(ingress)}: backend-protocol is not GRPC")
    if HASH_BY in annotations and annotations[HASH_BY] != "$http_" + AFFINITY_HEADER.replace("-", "_"):
        problems.append(f"{k8s.label(ingress)}: hashes on {annotations[HASH_BY]!r}, not the {AFFINITY_HEADER} metadata")
    for timeout in TIMEOUTS:
        if not str(annotations.get(timeout, "")).isdigit() or int(annotations[timeout]) < WATCH_SECONDS:
            problems.append(f"{k8s.label(ingress)}: {timeout} under {WATCH_SECONDS} s cuts quiet WatchGame streams")
    return problems


def _backend(route: Route, services: dict[Any, Manifest], server: Server) -> list[str]:
    where = f"{k8s.label(route.ingress)} {route.path}"
    service = services.get(route.backend.get("name"))
    if service is None:
        return [f"{where}: no Service {route.backend.get('name')!r}"]
    if not k8s.selector_matches(k8s.dig(service, "spec", "selector"), k8s.pod_labels(server.deployment)):
        return [f"{where}: {k8s.label(service)} does not select {server.name}'s pods"]
    wanted = k8s.mapping(route.backend.get("port"))
    for port in k8s.mappings(k8s.dig(service, "spec", "ports")):
        if port.get("name") == wanted.get("name") or port.get("port") == wanted.get("number"):
            if port.get("targetPort", port.get("port")) not in (GRPC.port_name, server.port(GRPC)):
                return [f"{where}: {k8s.label(service)} port {port.get('name')} is not the server's gRPC port"]
            if port.get("appProtocol") != H2C:
                return [f"{where}: {k8s.label(service)} port {port.get('name')} has no appProtocol {H2C}"]
            return []
    return [f"{where}: {k8s.label(service)} has no port {wanted}"]


def _shared_services(routes: list[Route]) -> list[str]:
    """ingress-nginx applies one balancing rule per Service port: a Service both Ingresses use would get one."""
    hashed = {route.backend.get("name") for route in routes if route.hashed}
    plain = {route.backend.get("name") for route in routes if not route.hashed}
    return [
        f"Service/{name}: both hashed by game and balanced round robin; give the hashed Ingress its own Service"
        for name in sorted(map(str, hashed & plain))
    ]
