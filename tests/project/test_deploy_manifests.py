"""The deployment files (Dockerfile, .dockerignore, deploy/k8s) pass every check of scripts/validate-deploy.py
(scripts/deploycheck), and each check catches the mistake it is there for, made in a copy of the files.

The standard tools run for real: kubernetes-validate, kubectl (kustomize) and hadolint come with the dev
dependency group, so nothing here is skipped."""

from __future__ import annotations

import copy
import dataclasses
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "scripts") not in sys.path:  # scripts/deploycheck, as scripts/validate-deploy.py imports it
    sys.path.insert(0, str(ROOT / "scripts"))

from deploycheck import (  # noqa: E402
    catalogue,
    image,
    model,
)
from deploycheck.checks import affinity, hadolint, kustomize, schemas, serve_flags  # noqa: E402
from deploycheck.model import Deploy  # noqa: E402


@pytest.fixture(scope="module")
def deploy() -> Deploy:
    return model.load(ROOT)


@pytest.fixture
def changed(deploy: Deploy) -> Deploy:
    """A copy of the parsed files that a test may break."""
    return copy.deepcopy(deploy)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the deployment files on disk, for the checks that run a tool on them."""
    shutil.copytree(ROOT / "deploy", tmp_path / "deploy")
    for name in ("Dockerfile", ".dockerignore"):
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (old, path)
    path.write_text(text.replace(old, new), encoding="utf-8")


def _expect(check: Callable[[Deploy], list[str]], d: Deploy, *fragments: str) -> None:
    problems = catalogue.run_check(check, d)
    assert problems, f"{check.__name__} found nothing"
    for fragment in fragments:
        assert any(fragment in problem for problem in problems), (fragment, problems)


def _one(d: Deploy, kind: str, name: str) -> dict[str, Any]:
    found = [obj for obj in d.find(kind) if obj["metadata"]["name"] == name]
    assert len(found) == 1
    return found[0]


def _component(d: Deploy, name: str) -> model.Folder:
    (found,) = [component for component in d.components if component.path.name == name]
    return found


def _server(d: Deploy) -> dict[str, Any]:
    return _one(d, "Deployment", "truco")


def _container(d: Deploy) -> dict[str, Any]:
    container: dict[str, Any] = _server(d)["spec"]["template"]["spec"]["containers"][0]
    return container


def _set_arg(d: Deploy, flag: str, value: str | None) -> None:
    """Give ``flag`` another value, or drop it (and its value) with None."""
    args = _container(d)["args"]
    index = args.index(flag)
    if value is None:
        del args[index : index + (1 if flag in ("--require-api-key",) else 2)]
    else:
        args[index + 1] = value


def _port(d: Deploy, name: str) -> dict[str, Any]:
    (port,) = [port for port in _container(d)["ports"] if port["name"] == name]
    assert isinstance(port, dict)
    return port


def _dockerfile(d: Deploy, *edits: tuple[str, str]) -> Deploy:
    """``d`` with the repository's Dockerfile text edited (each old text must be there)."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    return dataclasses.replace(d, dockerfile=image.parse(text))


# --- the files pass ------------------------------------------------------------------------------------------


SCHEMAS = pytest.mark.xdist_group("deploy-schemas")
"""The schema tests share one worker, where each object is validated once (checks/schemas.py remembers)."""


@pytest.mark.parametrize(
    "title", [pytest.param(title, marks=[SCHEMAS] if "schemas" in title else []) for title in catalogue.CHECKS]
)
def test_the_deployment_files_pass(deploy: Deploy, title: str) -> None:
    problems = catalogue.run_check(catalogue.CHECKS[title], deploy)
    assert problems == [], "\n".join(problems)


def test_every_manifest_file_is_read(deploy: Deploy) -> None:
    assert set(deploy.base.manifests) == {
        "namespace.yaml",
        "serviceaccount.yaml",
        "deployment.yaml",
        "service.yaml",
        "service-headless.yaml",
        "pdb.yaml",
        "hpa.yaml",
        "networkpolicy.yaml",
        "postgres.yaml",
        "secret.example.yaml",
    }
    assert {(obj["kind"], obj["metadata"]["name"]) for obj in deploy.applied()} == {
        ("Namespace", "truco"),
        ("ServiceAccount", "truco"),
        ("Deployment", "truco"),
        ("Service", "truco"),
        ("Service", "truco-headless"),
        ("PodDisruptionBudget", "truco"),
        ("HorizontalPodAutoscaler", "truco"),
        ("NetworkPolicy", "truco-server"),
        ("NetworkPolicy", "truco-postgres"),
        ("Service", "truco-postgres"),
        ("StatefulSet", "truco-postgres"),
    }
    assert [(c.path.name, sorted(c.manifests)) for c in deploy.components] == [
        ("ingress-nginx", ["ingress.yaml", "service-games.yaml"]),
        ("prometheus-operator", ["servicemonitor.yaml"]),
        ("sharded", ["nats.yaml", "secret-pgpass.example.yaml", "shards-configmap.yaml"]),
    ]


def test_a_file_that_does_not_parse_is_named(tmp_path: Path) -> None:
    k8s = tmp_path / "deploy" / "k8s"
    k8s.mkdir(parents=True)
    (k8s / "broken.yaml").write_text("kind: Service\nmetadata: {name: [x\n", encoding="utf-8")
    _expect(
        catalogue.check_files_read, model.load(tmp_path), "broken.yaml: does not parse", "kustomization.yaml: missing"
    )


# --- the standard tools --------------------------------------------------------------------------------------


@SCHEMAS
def test_the_schemas_catch_unknown_fields_wrong_types_and_retired_apis(changed: Deploy) -> None:
    _container(changed)["readinessProbe"]["grpc"]["prot"] = 50051
    _one(changed, "StatefulSet", "truco-postgres")["spec"]["replicas"] = "1"
    _one(changed, "PodDisruptionBudget", "truco")["apiVersion"] = "policy/v1beta1"
    del _one(changed, "Service", "truco")["spec"]["ports"][0]["port"]
    _expect(
        schemas.check_schemas,
        changed,
        "containers.0.readinessProbe.grpc: Additional properties are not allowed ('prot' was unexpected)",
        "StatefulSet/truco-postgres: Kubernetes 1.27: spec.replicas: '1' is not of type 'integer'",
        "serves no PodDisruptionBudget in policy/v1beta1",
        "spec.ports.0: 'port' is a required property",
    )


@SCHEMAS
def test_the_schemas_of_the_oldest_kubernetes_the_readme_promises(changed: Deploy) -> None:
    oldest, newest = schemas.kubernetes_versions(changed)
    assert (oldest, newest) == ("1.27", "1.37")  # deploy/README.md: "Needs Kubernetes 1.27 or newer"
    _one(changed, "Service", "truco")["spec"]["trafficDistribution"] = "PreferClose"  # Kubernetes 1.30
    problems = catalogue.run_check(schemas.check_schemas, changed)
    assert problems == [
        "deploy/k8s/service.yaml: Service/truco: Kubernetes 1.27: spec: Additional properties are not allowed "
        "('trafficDistribution' was unexpected)"
    ]


@SCHEMAS
def test_custom_resources_pass_only_when_a_project_check_covers_them(changed: Deploy) -> None:
    certificate = {"apiVersion": "cert-manager.io/v1", "kind": "Certificate", "metadata": {"name": "truco"}}
    changed.base.manifests["certificate.yaml"] = [certificate]
    (monitor,) = _component(changed, "prometheus-operator").manifests["servicemonitor.yaml"]
    monitor["spec"]["endpoints"][0]["scrapeInterval"] = "15s"  # no schema: the monitoring check's business
    problems = catalogue.run_check(schemas.check_schemas, changed)
    assert problems and all("Certificate/truco" in problem for problem in problems), problems
    assert "serves no Certificate in cert-manager.io/v1 (and no project check knows it)" in problems[0]


def test_kustomize_rejects_deprecated_fields_and_misplaced_namespaces(tree: Path) -> None:
    k8s = tree / "deploy" / "k8s"
    _edit(k8s / "kustomization.yaml", "namespace: truco\n", "namespace: truco\ncommonLabels:\n  team: truco\n")
    _edit(k8s / "serviceaccount.yaml", "  namespace: truco\n", "")
    _expect(
        kustomize.check_kustomize_builds,
        model.load(tree),
        "Warning: 'commonLabels' is deprecated",
        "ServiceAccount/truco is in namespace None in its file, 'truco' once built",
    )


def test_kustomize_rejects_a_duplicate_object_and_a_component_that_is_none(tree: Path) -> None:
    k8s = tree / "deploy" / "k8s"
    _edit(k8s / "service-headless.yaml", "name: truco-headless", "name: truco")
    _expect(kustomize.check_kustomize_builds, model.load(tree), "may not add resource with an already")
    _edit(k8s / "service-headless.yaml", "name: truco\n", "name: truco-headless\n")
    _edit(k8s / "prometheus-operator" / "kustomization.yaml", "kind: Component", "kind: Kustomization")
    _expect(kustomize.check_kustomize_builds, model.load(tree), "prometheus-operator")


def test_hadolint_lints_the_dockerfile(tree: Path) -> None:
    _edit(tree / "Dockerfile", "USER 10001:10001", "USER root")
    _edit(tree / "Dockerfile", 'ENTRYPOINT ["truco", "serve"]', "ENTRYPOINT truco serve")
    _expect(hadolint.check_hadolint, model.load(tree), "DL3002", "DL3025")


def test_truco_serve_must_accept_every_flag(changed: Deploy) -> None:
    _container(changed)["args"].append("--require-api-keys")
    changed = _dockerfile(changed, ('"--metrics-port", "9090"', '"--metric-port", "9090"'))
    _expect(
        serve_flags.check_serve_flags,
        changed,
        "Deployment/truco: args give --require-api-keys",
        "Dockerfile: CMD give --metric-port",
    )


# --- the kustomizations list every manifest ------------------------------------------------------------------


def test_the_kustomization_must_list_every_manifest_but_the_example(changed: Deploy) -> None:
    monitoring = _component(changed, "prometheus-operator")
    assert changed.base.kustomization is not None and monitoring.kustomization is not None
    resources = changed.base.kustomization["resources"]
    resources.remove("pdb.yaml")
    resources += ["secret.example.yaml", "gone.yaml", "hpa.yaml"]
    monitoring.kustomization["resources"] = []
    _expect(
        catalogue.CHECKS["kustomizations list every manifest"],
        changed,
        "does not list pdb.yaml",
        "lists secret.example.yaml, which holds only placeholders",
        "lists gone.yaml, which is not in deploy/k8s",
        "lists hpa.yaml twice",
        "prometheus-operator/kustomization.yaml: does not list servicemonitor.yaml",
    )


# --- the server's ports, probes and Services agree -----------------------------------------------------------


def test_a_container_port_that_args_and_image_do_not_serve(changed: Deploy) -> None:
    _port(changed, "grpc")["containerPort"] = 50053
    _set_arg(changed, "--web-port", "8081")
    _set_arg(changed, "--health-port", "50051")
    _expect(
        catalogue.CHECKS["ports agree"],
        changed,
        "args give --port 50051, its port grpc is 50053",
        "args give --web-port 8081, its port web is 8080",
        "args give --health-port 50051, its port health is 50052",
        "Dockerfile: EXPOSE [8080, 9090, 50051], while Deployment/truco serves [8080, 9090, 50053]",
        "Dockerfile: CMD gives --port 50051, Deployment/truco serves grpc on 50053",
    )


def test_an_image_that_exposes_or_defaults_to_other_ports(deploy: Deploy) -> None:
    changed = _dockerfile(deploy, ("EXPOSE 50051 8080 9090", "EXPOSE 50051 9090"), ('"--web-port", "8080", ', ""))
    _expect(
        catalogue.CHECKS["ports agree"],
        changed,
        "EXPOSE [9090, 50051], while Deployment/truco serves [8080, 9090, 50051]",
        "CMD gives --web-port None",
    )
    # The health port is the one port the image must not offer `docker run -P`: clients could fill it.
    exposed = _dockerfile(deploy, ("EXPOSE 50051 8080 9090", "EXPOSE 50051 8080 9090 50052"))
    _expect(
        catalogue.CHECKS["ports agree"],
        exposed,
        "EXPOSE [8080, 9090, 50051, 50052], while Deployment/truco serves [8080, 9090, 50051]",
        "Dockerfile: EXPOSE 50052, the health port, which nothing outside the container should reach",
    )
    unset = _dockerfile(deploy, (', \\\n     "--health-port", "50052"]', "]"))
    _expect(catalogue.CHECKS["ports agree"], unset, "CMD gives --health-port None, Deployment/truco serves health on")


def test_a_port_role_the_container_does_not_name(changed: Deploy) -> None:
    _port(changed, "web")["name"] = "http"
    _expect(catalogue.CHECKS["ports agree"], changed, "Deployment/truco: no containerPort named 'web'")


def test_health_checks_must_be_grpc_on_the_health_port(changed: Deploy) -> None:
    _container(changed)["readinessProbe"]["grpc"]["port"] = 9090
    _container(changed)["livenessProbe"] = {"tcpSocket": {"port": 50052}}
    _expect(
        catalogue.CHECKS["gRPC health checks"],
        changed,
        "readinessProbe uses port 9090, not the health port (--health-port 50052)",
        "livenessProbe is not a native gRPC probe",
        "livenessProbe also has ['tcpSocket']",
    )
    elsewhere = _dockerfile(changed, ("TRUCO_HEALTHCHECK_ADDR=127.0.0.1:50052", "TRUCO_HEALTHCHECK_ADDR=127.0.0.1:5"))
    _expect(catalogue.CHECKS["gRPC health checks"], elsewhere, "calls grpc.health.v1 on [5, 50052], the health port")
    without = _dockerfile(changed, ("HEALTHCHECK --interval", "# HEALTHCHECK --interval"))
    _expect(catalogue.CHECKS["gRPC health checks"], without, "no HEALTHCHECK CMD")


def test_health_checks_on_the_grpc_port_that_a_flood_fills(changed: Deploy) -> None:
    """Issue 31: probes and the HEALTHCHECK as they were before the health port, all on 50051."""
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        _container(changed)[probe]["grpc"]["port"] = 50051
    on_grpc = _dockerfile(changed, ("127.0.0.1:50052", "127.0.0.1:50051"))
    problems = catalogue.run_check(catalogue.CHECKS["gRPC health checks"], on_grpc)
    assert problems == [
        *(
            f"Deployment/truco: {probe} uses port 50051, not the health port (--health-port 50052): the gRPC port, "
            "which a client flood fills"
            for probe in ("readinessProbe", "livenessProbe", "startupProbe")
        ),
        "Dockerfile: the HEALTHCHECK calls grpc.health.v1 on [50051], the health port is 50052",
    ]


def test_health_checks_without_a_health_port_to_call(changed: Deploy) -> None:
    _set_arg(changed, "--health-port", None)
    unset = _dockerfile(changed, ('"--health-port", "50052"', '"--health-port", "0"'))
    _expect(
        catalogue.CHECKS["gRPC health checks"],
        unset,
        "Deployment/truco: args give --health-port None: no health port out of the clients' reach",
        "Dockerfile: CMD gives --health-port 0: no health port out of the clients' reach",
    )


def test_health_checks_follow_the_port_the_server_is_told(changed: Deploy) -> None:
    """The port comes from --health-port, not from a number the check knows: moved everywhere, it passes."""
    _set_arg(changed, "--health-port", "50060")
    _port(changed, "health")["containerPort"] = 50060
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        _container(changed)[probe]["grpc"]["port"] = 50060
    moved = _dockerfile(
        changed, ('"--health-port", "50052"', '"--health-port", "50060"'), ("127.0.0.1:50052", "127.0.0.1:50060")
    )
    assert catalogue.run_check(catalogue.CHECKS["gRPC health checks"], moved) == []
    assert catalogue.run_check(catalogue.CHECKS["ports agree"], moved) == []


def test_services_that_target_missing_ports_or_select_nothing(changed: Deploy) -> None:
    _one(changed, "Service", "truco")["spec"]["ports"][2]["targetPort"] = "metric"
    _one(changed, "Service", "truco-headless")["spec"]["ports"][0]["targetPort"] = 50053
    _one(changed, "Service", "truco-postgres")["spec"]["selector"]["app.kubernetes.io/component"] = "db"
    _expect(
        catalogue.CHECKS["Services"],
        changed,
        "Service/truco: port metrics targets 'metric', no containerPort of Deployment/truco",
        "Service/truco-headless: port grpc targets 50053",
        "Service/truco: does not publish the server's metrics port",
        "Service/truco-postgres: selects nothing, not exactly one workload",
    )


def test_services_that_publish_a_port_under_another_name_number_or_protocol(changed: Deploy) -> None:
    service = _one(changed, "Service", "truco")
    service["spec"]["ports"][1]["port"] = 80
    del service["spec"]["ports"][0]["appProtocol"]
    _one(changed, "Service", "truco-headless")["spec"]["ports"][0]["name"] = "h2c"
    _expect(
        catalogue.CHECKS["Services"],
        changed,
        "Service/truco: publishes the web port as web 80, not web 8080",
        "Service/truco: the grpc port's appProtocol is not kubernetes.io/h2c",
        "Service/truco-headless: publishes the grpc port as h2c 50051, not grpc 50051",
    )


def test_a_service_that_publishes_the_health_port(changed: Deploy) -> None:
    _one(changed, "Service", "truco")["spec"]["ports"].append({"name": "health", "port": 50052, "targetPort": "health"})
    _one(changed, "Service", "truco-headless")["spec"]["ports"].append({"name": "probes", "port": 50052})
    _expect(
        catalogue.CHECKS["Services"],
        changed,
        "Service/truco: publishes the health port, for clients to fill",
        "Service/truco-headless: publishes the health port, for clients to fill",
    )


# --- labels, selectors and NetworkPolicies -------------------------------------------------------------------


def test_selectors_that_miss_the_server_pods(changed: Deploy) -> None:
    _one(changed, "PodDisruptionBudget", "truco")["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"] = "x"
    _server(changed)["spec"]["selector"]["matchLabels"]["tier"] = "backend"
    _server(changed)["spec"]["template"]["spec"]["topologySpreadConstraints"][0]["labelSelector"] = {
        "matchLabels": {"app": "truco"}
    }
    _one(changed, "StatefulSet", "truco-postgres")["spec"]["serviceName"] = "postgres"
    _expect(
        catalogue.CHECKS["labels and selectors"],
        changed,
        "PodDisruptionBudget/truco: selects nothing",
        "Deployment/truco: spec.selector does not match",
        "Deployment/truco: a topologySpreadConstraint does not select its own pods",
        "StatefulSet/truco-postgres: serviceName 'postgres' is no Service here",
    )


def test_a_pdb_that_also_selects_the_database_or_a_server_without_a_headless_service(changed: Deploy) -> None:
    del _one(changed, "PodDisruptionBudget", "truco")["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"]
    _one(changed, "StatefulSet", "truco-postgres")["spec"]["template"]["metadata"]["labels"][
        "app.kubernetes.io/component"
    ] = "server"
    del _one(changed, "Service", "truco-headless")["spec"]["clusterIP"]
    _expect(
        catalogue.CHECKS["labels and selectors"],
        changed,
        "not exactly Deployment/truco",
        "wants a ClusterIP Service and a headless Service",
    )


def test_network_policies_that_block_clients_or_open_the_metrics(changed: Deploy) -> None:
    server = _one(changed, "NetworkPolicy", "truco-server")
    server["spec"]["ingress"][0]["ports"] = [{"port": "grpc"}, {"port": "http"}]
    server["spec"]["ingress"][0]["from"] = [{"namespaceSelector": {"matchLabels": {"team": "edge"}}}]
    del server["spec"]["ingress"][1]["from"]
    _expect(
        catalogue.CHECKS["NetworkPolicies"],
        changed,
        "no NetworkPolicy ingress rule admits port web",
        "grpc is admitted only from some peers",
        "metrics is admitted from anyone",
        "a NetworkPolicy names port 'http', which its pods do not declare",
    )


def test_a_network_policy_that_admits_anyone_to_the_health_port(changed: Deploy) -> None:
    ingress = _one(changed, "NetworkPolicy", "truco-server")["spec"]["ingress"]
    ingress[1]["ports"].append({"port": 50052, "protocol": "TCP"})  # from the monitoring namespace: allowed
    assert catalogue.run_check(catalogue.CHECKS["NetworkPolicies"], changed) == []
    ingress[0]["ports"].append({"port": "health", "protocol": "TCP"})
    problems = catalogue.run_check(catalogue.CHECKS["NetworkPolicies"], changed)
    assert problems == ["Deployment/truco: health is admitted from anyone"]


def test_network_policies_that_cut_dns_or_open_the_database(changed: Deploy) -> None:
    server = _one(changed, "NetworkPolicy", "truco-server")
    server["spec"]["egress"] = [rule for rule in server["spec"]["egress"] if rule["ports"][0]["port"] != 53]
    _one(changed, "NetworkPolicy", "truco-postgres")["spec"]["ingress"][0]["from"] = []
    _expect(
        catalogue.CHECKS["NetworkPolicies"],
        changed,
        "DNS (port 53) is not allowed",
        "a NetworkPolicy admits anyone to the database",
    )


def test_a_server_that_may_not_reach_its_database_on_the_port_it_declares(changed: Deploy) -> None:
    server = _one(changed, "NetworkPolicy", "truco-server")
    server["spec"]["egress"][0]["to"][0]["podSelector"]["matchLabels"]["app.kubernetes.io/name"] = "postgres"
    database = _one(changed, "StatefulSet", "truco-postgres")
    database["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] = 5433
    _expect(
        catalogue.CHECKS["NetworkPolicies"],
        changed,
        "StatefulSet/truco-postgres:5433 is not allowed",
        "StatefulSet/truco-postgres: the server pods may not reach it on 5433",
    )


# --- replicas, workers and the server's settings -------------------------------------------------------------


def test_replicas_the_autoscaler_and_the_disruption_budget_disagree_on(changed: Deploy) -> None:
    _server(changed)["spec"]["replicas"] = 2
    _one(changed, "PodDisruptionBudget", "truco")["spec"]["minAvailable"] = 6
    hpa = _one(changed, "HorizontalPodAutoscaler", "truco")
    hpa["spec"]["scaleTargetRef"]["name"] = "truco-server"
    del _container(changed)["resources"]["requests"]["cpu"]
    _expect(
        catalogue.CHECKS["replicas and workers"],
        changed,
        "Deployment/truco: starts 2 replicas, the autoscaler's minimum is 6",
        "PodDisruptionBudget/truco: minAvailable 6 blocks every drain at 6 replicas",
        "HorizontalPodAutoscaler/truco: scaleTargetRef",
        "no CPU request",
    )


def test_workers_must_be_given_and_fit_the_cpu_limit(changed: Deploy) -> None:
    _set_arg(changed, "--workers", "4")
    _expect(catalogue.CHECKS["replicas and workers"], changed, "--workers 4 is more than the 1 cores")
    _set_arg(changed, "--workers", None)
    _expect(catalogue.CHECKS["replicas and workers"], changed, "args give --workers None")


def test_a_server_open_to_anonymous_creates_or_without_shared_secrets(changed: Deploy) -> None:
    container = _container(changed)
    _set_arg(changed, "--require-api-key", None)
    container["args"].append("--no-limits")
    dropped = {"TRUCO_TOKEN_KEY", "TRUCO_LOG_FORMAT"}
    container["env"] = [item for item in container["env"] if item["name"] not in dropped]
    container["env"][0] = {"name": "TRUCO_STORE_URL", "value": "postgresql://truco:secret@db/truco"}
    container["command"] = ["truco", "serve"]
    _expect(
        catalogue.CHECKS["server settings"],
        changed,
        "args lack --require-api-key",
        "turn every quota off",
        "env TRUCO_TOKEN_KEY does not come from a Secret",
        "logs are not JSON",
        "--store '$(TRUCO_STORE_URL)' is not $(VAR) of an env entry from a Secret",
        "overrides the image's ENTRYPOINT",
    )


def test_a_grace_period_that_leaves_no_room(changed: Deploy) -> None:
    _container(changed)["lifecycle"]["preStop"]["exec"]["command"] = ["sleep", "15"]
    _expect(
        catalogue.CHECKS["server settings"],
        changed,
        "terminationGracePeriodSeconds 30 leaves no room for preStop 15 s + --grace 20 s",
    )
    _set_arg(changed, "--grace", None)
    _expect(catalogue.CHECKS["server settings"], changed, "args give no --grace")


def test_a_pod_that_may_write_its_root_or_runs_as_another_user(changed: Deploy) -> None:
    container = _container(changed)
    container["securityContext"]["readOnlyRootFilesystem"] = False
    container["securityContext"]["allowPrivilegeEscalation"] = True
    _server(changed)["spec"]["template"]["spec"]["securityContext"]["runAsUser"] = 1000
    del container["resources"]["limits"]["memory"]
    _expect(
        catalogue.CHECKS["pod security"],
        changed,
        "the root filesystem is not read-only",
        "allowPrivilegeEscalation is not false",
        "runAsUser 1000 is not the image's USER 10001",
        "no resources.limits.memory",
    )
    _expect(
        catalogue.CHECKS["pod security"],
        _dockerfile(changed, ("USER 10001:10001", "USER truco")),
        "the final stage's USER is 'truco', not a numeric non-root uid",
    )


def test_a_secret_key_the_example_does_not_show_or_a_real_secret(changed: Deploy) -> None:
    _container(changed)["env"][0]["valueFrom"]["secretKeyRef"]["key"] = "dsn"
    changed.base.manifests["secret.example.yaml"][1]["stringData"]["token-key"] = "hunter2"
    _expect(
        catalogue.CHECKS["Secret references"],
        changed,
        "reads Secret truco-postgres key dsn, which no example shows",
        "truco-server.token-key is not a CHANGE-ME placeholder",
    )


# --- Prometheus --------------------------------------------------------------------------------------------------


def test_metrics_that_prometheus_would_not_find(changed: Deploy) -> None:
    _server(changed)["spec"]["template"]["metadata"]["annotations"]["prometheus.io/port"] = "9091"
    (monitor,) = _component(changed, "prometheus-operator").manifests["servicemonitor.yaml"]
    monitor["spec"]["endpoints"][0]["port"] = "http-metrics"
    monitor["spec"]["endpoints"].append({"port": "web", "path": "/stats"})
    monitor["spec"]["namespaceSelector"]["matchNames"] = ["default"]
    _expect(
        catalogue.CHECKS["Prometheus scraping"],
        changed,
        "pod annotations do not ask Prometheus to scrape port 9090",
        "ServiceMonitor/truco: not in, or not looking in, namespace 'truco'",
        "scrapes Service/truco port web, not the server's metrics port",
        "an endpoint's path is not /metrics",
    )
    monitor["spec"]["endpoints"] = [{"port": "none"}]
    _expect(catalogue.CHECKS["Prometheus scraping"], changed, "selects no Service with a port named ['none']")


# --- game affinity ------------------------------------------------------------------------------------------


def _ingresses(d: Deploy) -> dict[str, dict[str, Any]]:
    component = _component(d, "ingress-nginx")
    return {obj["metadata"]["name"]: obj for obj in component.manifests["ingress.yaml"]}


PLAYER_RPCS = ("FindMatch", "CancelMatch", "GetPlayer", "ListLeaderboard", "ListPlayerMatches")


def test_every_rpc_naming_a_game_is_hashed_on_it_and_the_others_go_round_robin(changed: Deploy) -> None:
    methods = dict(affinity.public_methods())
    # Read from the contract: the calls that name no game are the ones a hash would pile onto one pod.
    assert {path for path, names_a_game in methods.items() if not names_a_game} == {
        "/truco.v1.GameService/CreateGame",
        "/truco.v1.GameService/ListGames",
        "/truco.v1.RulesService/EvaluateHand",
        "/truco.v1.RulesService/CompareCards",
        *(f"/truco.v1.PlayerService/{rpc}" for rpc in PLAYER_RPCS),
    }
    assert methods["/truco.v1.GameService/SubmitCommand"] and methods["/truco.v1.GameService/WatchGame"]
    plain = _ingresses(changed)["truco-grpc"]["spec"]["rules"][0]["http"]["paths"]
    del plain[0]  # CreateGame
    plain[1]["path"] = "/truco.v1"  # the rules service: now routed nowhere by an exact element match
    _expect(
        catalogue.CHECKS["game affinity (ingress-nginx)"],
        changed,
        "truco.example.com/truco.v1.GameService/CreateGame: goes to Ingress/truco-grpc-games, want a round-robin",
        "truco.example.com/truco.v1.RulesService/CompareCards: no Ingress routes it",
    )


def test_an_ingress_that_hashes_on_something_else_or_shares_its_service(changed: Deploy) -> None:
    games = _ingresses(changed)["truco-grpc-games"]
    games["metadata"]["annotations"]["nginx.ingress.kubernetes.io/upstream-hash-by"] = "$remote_addr"
    games["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-read-timeout"] = "60"
    games["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]["name"] = "truco"
    _expect(
        catalogue.CHECKS["game affinity (ingress-nginx)"],
        changed,
        "Ingress/truco-grpc-games: hashes on '$remote_addr', not the x-truco-game metadata",
        "proxy-read-timeout under 3600 s",
        "Service/truco: both hashed by game and balanced round robin",
    )


def test_an_ingress_whose_service_misses_the_server_grpc_port(changed: Deploy) -> None:
    (service,) = _component(changed, "ingress-nginx").manifests["service-games.yaml"]
    service["spec"]["ports"][0]["targetPort"] = "web"
    del _ingresses(changed)["truco-grpc"]["metadata"]["annotations"]["nginx.ingress.kubernetes.io/backend-protocol"]
    _expect(
        catalogue.CHECKS["game affinity (ingress-nginx)"],
        changed,
        "Service/truco-games port grpc is not the server's gRPC port",
        "Ingress/truco-grpc: backend-protocol is not GRPC",
    )
    service["spec"]["selector"] = {"app.kubernetes.io/name": "postgres"}
    _expect(catalogue.CHECKS["game affinity (ingress-nginx)"], changed, "does not select Deployment/truco's pods")


# --- the image -----------------------------------------------------------------------------------------------


def test_an_image_whose_engine_could_quietly_end_up_pure(deploy: Deploy) -> None:
    changed = _dockerfile(
        deploy,
        ("--no-install-recommends gcc libc6-dev", "--no-install-recommends curl"),
        ("TRUCO_COMPILED=1 ", ""),
        ("truco.cli.builds --require compiled", "truco.cli.builds"),
        ("FROM python:3.11-slim AS build", "FROM python:3.12-slim AS build"),
    )
    _expect(
        catalogue.CHECKS["image: compiled engine"],
        changed,
        "installs no C compiler",
        "does not set TRUCO_COMPILED=1",
        "never runs `python -m truco.cli.builds --require compiled`",
        "FROM python:3.12-slim, the final stage's is python:3.11-slim",
    )
    pure = _dockerfile(deploy, ("TRUCO_COMPILED=1", "TRUCO_PURE=1"), ("./clients/bots", "./clients/robots"))
    _expect(
        catalogue.CHECKS["image: compiled engine"],
        pure,
        "sets TRUCO_PURE",
        "installs ./clients/robots, which is no distribution",
    )


def test_a_runtime_stage_that_installs_packages_or_misses_its_contract(deploy: Deploy) -> None:
    changed = _dockerfile(
        deploy,
        ("COPY --from=build /opt/venv /opt/venv", "RUN apt-get update && apt-get install --yes gcc"),
        ("STOPSIGNAL SIGTERM", "STOPSIGNAL SIGINT"),
        ('ENTRYPOINT ["truco", "serve"]', 'ENTRYPOINT ["truco"]'),
        ('VOLUME ["/data"]', 'VOLUME ["/var/lib/truco"]'),
    )
    _expect(
        catalogue.CHECKS["image: runtime stage"],
        changed,
        "the final stage installs system packages",
        "does not copy /opt/venv from stage build",
        "no STOPSIGNAL SIGTERM",
        'ENTRYPOINT is not ["truco", "serve"]',
        "CMD's default store 'sqlite:////data/truco.db' is not SQLite on a VOLUME",
    )


def test_an_image_without_the_web_table(deploy: Deploy) -> None:
    elsewhere = _dockerfile(deploy, ("TRUCO_WEB_ASSETS=/opt/truco/web", "TRUCO_WEB_ASSETS=/opt/web"))
    _expect(catalogue.CHECKS["image: web table"], elsewhere, "ENV TRUCO_WEB_ASSETS ('/opt/web') is not where")
    uncopied = _dockerfile(deploy, ("COPY --from=web /src/web/dist /opt/truco/web", ""))
    _expect(catalogue.CHECKS["image: web table"], uncopied, "does not copy the built web table")
    unbuilt = _dockerfile(deploy, ("&& npm --prefix web run build", ""))
    _expect(catalogue.CHECKS["image: web table"], unbuilt, "no stage builds the web table")


def test_a_dockerignore_that_leaves_out_sources_or_lets_more_in(changed: Deploy) -> None:
    kept = [p for p in changed.dockerignore or () if p not in ("!server/", "!web/")]
    changed = dataclasses.replace(changed, dockerignore=(*kept, "!tests/"))
    _expect(
        catalogue.CHECKS["image: build context"],
        changed,
        ".dockerignore: leaves out server/",
        ".dockerignore: leaves out web/",
        ".dockerignore: lets tests/ back in, which the Dockerfile never copies",
    )


def test_a_dockerignore_that_lets_build_output_in(changed: Deploy) -> None:
    kept = tuple(p for p in changed.dockerignore or () if p not in ("**/build", "**/*.so", "**/node_modules"))
    _expect(
        catalogue.CHECKS["image: build context"],
        dataclasses.replace(changed, dockerignore=kept),
        "lets engine/build/lib.linux-x86_64-cpython-311/truco_engine__mypyc",
        "lets engine/src/truco/engine/game.cpython-311-x86_64-linux-gnu.so",
        "lets web/node_modules/vite/package.json",
    )


def test_a_dockerfile_that_copies_what_is_not_there(deploy: Deploy) -> None:
    changed = _dockerfile(deploy, ("COPY server/ server/", "COPY servers/ server/"))
    _expect(catalogue.CHECKS["image: build context"], changed, "copies servers, which does not exist")


# --- the readers ---------------------------------------------------------------------------------------------


def test_the_dockerfile_is_read_as_docker_build_reads_it() -> None:
    instructions = image.parse(
        "FROM python:3.11-slim AS build\n# a comment\nRUN a \\\n    # inside\n    && b\n\n"
        'ENV A=1 B="two words"\nCOPY --from=build /opt/venv /opt/venv\nENTRYPOINT ["truco", "serve"]\nCMD truco\n'
    )
    assert [(i.keyword, i.line) for i in instructions] == [
        ("FROM", 1),
        ("RUN", 3),
        ("ENV", 7),
        ("COPY", 8),
        ("ENTRYPOINT", 9),
        ("CMD", 10),
    ]
    (stage,) = image.stages(instructions)
    assert image.stage_name(stage) == "build" and image.base_image(stage) == "python:3.11-slim"
    assert image.run_text(stage) == "a && b"
    assert image.env(stage) == {"A": "1", "B": "two words"}
    assert instructions[3].flag("from") == "build" and instructions[3].words == ("/opt/venv", "/opt/venv")
    assert instructions[4].exec_args() == ["truco", "serve"]
    assert instructions[5].exec_args() is None
