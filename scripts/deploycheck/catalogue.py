"""Every check, in the order they are reported, and the one way to run one."""

from __future__ import annotations

from collections.abc import Callable

from deploycheck.checks.affinity import check_game_affinity
from deploycheck.checks.build_context import check_build_context
from deploycheck.checks.hadolint import check_hadolint
from deploycheck.checks.image_build import check_compiled_build
from deploycheck.checks.image_runtime import check_runtime_stage
from deploycheck.checks.image_web import check_web_table
from deploycheck.checks.kustomize import check_kustomize_builds
from deploycheck.checks.listing import check_kustomizations_list_every_manifest
from deploycheck.checks.monitoring import check_monitoring
from deploycheck.checks.network import check_network_policies
from deploycheck.checks.ports import check_ports_agree
from deploycheck.checks.probes import check_probes
from deploycheck.checks.scaling import check_scaling
from deploycheck.checks.schemas import check_schemas
from deploycheck.checks.secrets import check_secret_references
from deploycheck.checks.security import check_security
from deploycheck.checks.selectors import check_selectors
from deploycheck.checks.serve_flags import check_serve_flags
from deploycheck.checks.services import check_services
from deploycheck.checks.settings import check_server_settings
from deploycheck.model import Deploy, Missing

Check = Callable[[Deploy], list[str]]


def check_files_read(deploy: Deploy) -> list[str]:
    """Every file is there and every YAML file parses into one or more mappings."""
    return list(deploy.problems)


CHECKS: dict[str, Check] = {
    "files read": check_files_read,
    "Kubernetes schemas (kubernetes-validate, strict)": check_schemas,
    "kubectl kustomize builds": check_kustomize_builds,
    "kustomizations list every manifest": check_kustomizations_list_every_manifest,
    "hadolint": check_hadolint,
    "truco serve accepts every flag": check_serve_flags,
    "ports agree": check_ports_agree,
    "gRPC health checks": check_probes,
    "Services": check_services,
    "labels and selectors": check_selectors,
    "NetworkPolicies": check_network_policies,
    "replicas and workers": check_scaling,
    "server settings": check_server_settings,
    "pod security": check_security,
    "Secret references": check_secret_references,
    "Prometheus scraping": check_monitoring,
    "game affinity (ingress-nginx)": check_game_affinity,
    "image: compiled engine": check_compiled_build,
    "image: runtime stage": check_runtime_stage,
    "image: web table": check_web_table,
    "image: build context": check_build_context,
}


def run_check(check: Check, deploy: Deploy) -> list[str]:
    """The check's problems; what it needed and did not find, if that is missing."""
    try:
        return check(deploy)
    except Missing as missing:
        return [str(missing)]
