"""The server pod is bounded and unprivileged: CPU and memory requests and limits, a read-only root filesystem,
no privilege escalation, and a non-root uid that is the image's own numeric USER (so runAsNonRoot can verify it
and the image's files are its own)."""

from __future__ import annotations

from deploycheck import image, k8s
from deploycheck.model import Deploy
from deploycheck.server import the_server


def check_security(deploy: Deploy) -> list[str]:
    server = the_server(deploy)
    me, container = server.name, server.container
    problems = [
        f"{me}: no resources.{bound}.{resource}"
        for bound in ("requests", "limits")
        for resource in ("cpu", "memory")
        if k8s.dig(container, "resources", bound, resource) is None
    ]
    security = k8s.mapping(container.get("securityContext"))
    pod_security = k8s.mapping(k8s.pod_spec(server.deployment).get("securityContext"))
    if security.get("readOnlyRootFilesystem") is not True:
        problems.append(f"{me}: the root filesystem is not read-only")
    if security.get("allowPrivilegeEscalation") is not False:
        problems.append(f"{me}: allowPrivilegeEscalation is not false")
    if not (security.get("runAsNonRoot") or pod_security.get("runAsNonRoot")):
        problems.append(f"{me}: runAsNonRoot is not set")
    uid = security.get("runAsUser", pod_security.get("runAsUser"))
    user = image.image_user(deploy.dockerfile or ())
    if user is None or not user.isdigit() or user == "0":
        problems.append(f"Dockerfile: the final stage's USER is {user!r}, not a numeric non-root uid")
    elif uid is not None and str(uid) != user:
        problems.append(f"{me}: runAsUser {uid} is not the image's USER {user}")
    return problems
