"""The server is health-checked where no client can starve the check (issue 31): on the listener `truco serve`
opens with --health-port, which serves grpc.health.v1 alone. The kubelet's readiness, liveness (and startup)
probes are native gRPC probes on the port the Deployment's args give --health-port, and the image's HEALTHCHECK
calls grpc.health.v1 on the port its CMD gives it. A probe on the gRPC port would fail with every flood that
fills that port's connections, and the liveness probe would then restart the pods under load."""

from __future__ import annotations

import re
from collections.abc import Sequence

from deploycheck import image, k8s
from deploycheck.model import Deploy
from deploycheck.server import GRPC, HEALTH, Server, arg_after, the_server

PROBES = ("readinessProbe", "livenessProbe", "startupProbe")
REQUIRED_PROBES = ("readinessProbe", "livenessProbe")
OTHER_HANDLERS = frozenset({"httpGet", "tcpSocket", "exec"})
LOCAL_ADDRESS = re.compile(r"(?:127\.0\.0\.1|localhost|\[::1\]):(\d+)")


def health_port(args: Sequence[str]) -> int | None:
    """The port ``args`` tell `truco serve` to answer health checks on; None if they give none a probe can call
    (the flag missing, 0 for a free port, or -1 for none)."""
    given = arg_after(args, HEALTH.flag)
    return int(given) if given is not None and given.isdigit() and int(given) > 0 else None


def check_probes(deploy: Deploy) -> list[str]:
    server = the_server(deploy)
    health = health_port(server.args)
    problems = [] if health else [_no_health_port(f"{server.name}: args give", server.args)]
    for name in PROBES:
        probe = k8s.mapping(server.container.get(name))
        if not probe:
            problems += [f"{server.name}: no {name}"] if name in REQUIRED_PROBES else []
        elif not isinstance(probe.get("grpc"), dict):
            problems.append(f"{server.name}: {name} is not a native gRPC probe (grpc: port: ...)")
        elif health and probe["grpc"].get("port") != health:
            problems.append(_elsewhere(server, name, probe["grpc"].get("port"), health))
        if OTHER_HANDLERS & set(probe):
            problems.append(f"{server.name}: {name} also has {sorted(OTHER_HANDLERS & set(probe))}")
    return problems + _healthcheck(deploy)


def _no_health_port(where: str, args: Sequence[str]) -> str:
    return f"{where} {HEALTH.flag} {arg_after(args, HEALTH.flag)}: no health port out of the clients' reach"


def _elsewhere(server: Server, name: str, port: object, health: int) -> str:
    where = f"{server.name}: {name} uses port {port}, not the health port ({HEALTH.flag} {health})"
    if port in (server.port(GRPC), GRPC.port_name):
        return where + ": the gRPC port, which a client flood fills"
    return where


def _healthcheck(deploy: Deploy) -> list[str]:
    """HEALTHCHECK CMD calls grpc.health.v1 at a local address, on the health port the image's CMD gives
    `truco serve` (its text and the final stage's ENV, where the address may be set)."""
    final = image.stages(deploy.dockerfile or ())[-1:]
    healthcheck = image.last_of_kind(final[0], "HEALTHCHECK") if final else None
    if healthcheck is None or healthcheck.words[:1] != ("CMD",):
        return ["Dockerfile: no HEALTHCHECK CMD"]
    cmd = image.last_of_kind(final[0], "CMD")
    cmd_args = (cmd.exec_args() if cmd else None) or []
    health = health_port(cmd_args)
    if health is None:
        return [_no_health_port("Dockerfile: CMD gives", cmd_args)]
    text = healthcheck.text + " " + " ".join(image.env(final[0]).values())
    ports = {int(port) for port in LOCAL_ADDRESS.findall(text)}
    if "grpc_health.v1" not in text or ports != {health}:
        return [f"Dockerfile: the HEALTHCHECK calls grpc.health.v1 on {sorted(ports)}, the health port is {health}"]
    return []
