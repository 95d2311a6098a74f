"""The server is health-checked the way it answers, grpc.health.v1 on its gRPC port: the kubelet's readiness,
liveness (and startup) probes are native gRPC probes on that port, and so is the image's HEALTHCHECK."""

from __future__ import annotations

import re

from deploycheck import image, k8s
from deploycheck.model import Deploy
from deploycheck.server import GRPC, the_server

PROBES = ("readinessProbe", "livenessProbe", "startupProbe")
REQUIRED_PROBES = ("readinessProbe", "livenessProbe")
OTHER_HANDLERS = frozenset({"httpGet", "tcpSocket", "exec"})
LOCAL_ADDRESS = re.compile(r"(?:127\.0\.0\.1|localhost|\[::1\]):(\d+)")


def check_probes(deploy: Deploy) -> list[str]:
    server = the_server(deploy)
    grpc = server.port(GRPC)
    problems: list[str] = []
    for name in PROBES:
        probe = k8s.mapping(server.container.get(name))
        if not probe:
            problems += [f"{server.name}: no {name}"] if name in REQUIRED_PROBES else []
        elif not isinstance(probe.get("grpc"), dict):
            problems.append(f"{server.name}: {name} is not a native gRPC probe (grpc: port: ...)")
        elif probe["grpc"].get("port") != grpc:
            problems.append(f"{server.name}: {name} uses port {probe['grpc'].get('port')}, its grpc port is {grpc}")
        if OTHER_HANDLERS & set(probe):
            problems.append(f"{server.name}: {name} also has {sorted(OTHER_HANDLERS & set(probe))}")
    return problems + _healthcheck(deploy, grpc)


def _healthcheck(deploy: Deploy, grpc: int) -> list[str]:
    """HEALTHCHECK CMD calls grpc.health.v1 at a local address, on the gRPC port (its text and the final
    stage's ENV, where the address may be set)."""
    final = image.stages(deploy.dockerfile or ())[-1:]
    healthcheck = image.last_of_kind(final[0], "HEALTHCHECK") if final else None
    if healthcheck is None or healthcheck.words[:1] != ("CMD",):
        return ["Dockerfile: no HEALTHCHECK CMD"]
    text = healthcheck.text + " " + " ".join(image.env(final[0]).values())
    ports = {int(port) for port in LOCAL_ADDRESS.findall(text)}
    if "grpc_health.v1" not in text or ports != {grpc}:
        return [f"Dockerfile: the HEALTHCHECK calls grpc.health.v1 on {sorted(ports)}, the gRPC port is {grpc}"]
    return []
