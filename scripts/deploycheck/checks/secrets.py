"""Secrets are created by hand, never applied from the repository: every key a workload reads from a Secret is
one the examples (*.example.yaml) show, and the examples hold CHANGE-ME placeholders only."""

from __future__ import annotations

from deploycheck import k8s
from deploycheck.model import K8S_DIR, Deploy

PLACEHOLDER = "CHANGE-ME"


def check_secret_references(deploy: Deploy) -> list[str]:
    examples = {k8s.meta(obj).get("name"): obj for obj in deploy.examples() if obj.get("kind") == "Secret"}
    shown = {
        name: {**k8s.mapping(secret.get("data")), **k8s.mapping(secret.get("stringData"))}
        for name, secret in examples.items()
    }
    problems = [
        f"{K8S_DIR}: example Secret {name}.{key} is not a {PLACEHOLDER} placeholder"
        for name, values in shown.items()
        for key, value in values.items()
        if PLACEHOLDER not in str(value)
    ]
    if deploy.find("Secret"):
        problems.append(f"{K8S_DIR}: a Secret is applied by the kustomization; secrets are created by hand")
    for workload in k8s.workloads(deploy):
        for container in k8s.containers(workload):
            for env in k8s.mappings(container.get("env")):
                ref = k8s.dig(env, "valueFrom", "secretKeyRef")
                if isinstance(ref, dict) and ref.get("key") not in shown.get(ref.get("name"), {}):
                    problems.append(
                        f"{k8s.label(workload)}: env {env.get('name')} reads Secret {ref.get('name')} key "
                        f"{ref.get('key')}, which no example shows"
                    )
    return problems
