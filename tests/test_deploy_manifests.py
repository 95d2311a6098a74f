"""The deployment files (Dockerfile, .dockerignore, deploy/k8s) pass the offline checks of
scripts/validate-deploy.py, and each check does catch the mistake it is there for."""

from __future__ import annotations

import copy
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("yaml", reason="PyYAML reads deploy/k8s: it belongs in the dev dependencies (pyyaml)")

ROOT = Path(__file__).resolve().parent.parent


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("validate_deploy", ROOT / "scripts" / "validate-deploy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


vd = _load_script()


@pytest.fixture(scope="module")
def deploy() -> Any:
    return vd.load(ROOT)


@pytest.fixture
def changed(deploy: Any) -> Any:
    """A copy of the parsed files that a test may break."""
    return copy.deepcopy(deploy)


@pytest.mark.parametrize("title", list(vd.CORE_CHECKS))
def test_the_deployment_files_pass(deploy: Any, title: str) -> None:
    problems = vd.CORE_CHECKS[title](deploy)
    assert problems == [], "\n".join(problems)


def test_every_manifest_file_is_read(deploy: Any) -> None:
    assert set(deploy.manifests) == {
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
    assert {(obj["kind"], obj["metadata"]["name"]) for _, obj in deploy.objects()} == {
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


# --- each check catches its mistake ----------------------------------------------------------------------------


def _server_container(d: Any) -> dict[str, Any]:
    container: dict[str, Any] = d.server()["spec"]["template"]["spec"]["containers"][0]
    return container


def _one(d: Any, kind: str, name: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = d.find(kind, name)
    assert len(found) == 1
    return found[0]


def _expect(check: Callable[[Any], list[str]], d: Any, *fragments: str) -> None:
    problems = check(d)
    assert problems, f"{check.__name__} found nothing"
    for fragment in fragments:
        assert any(fragment in problem for problem in problems), (fragment, problems)


def test_a_file_that_does_not_parse_is_named(tmp_path: Path) -> None:
    k8s = tmp_path / "deploy" / "k8s"
    k8s.mkdir(parents=True)
    (k8s / "broken.yaml").write_text("kind: Service\nmetadata: {name: [x\n", encoding="utf-8")
    _expect(vd.check_yaml_parses, vd.load(tmp_path), "broken.yaml: does not parse", "kustomization.yaml: missing")


def test_a_manifest_without_api_version_or_name(changed: Any) -> None:
    del _one(changed, "PodDisruptionBudget", "truco")["apiVersion"]
    del _one(changed, "Service", "truco-headless")["metadata"]["name"]
    _expect(vd.check_manifest_identity, changed, "pdb.yaml: a document has no apiVersion", "has no metadata.name")


def test_the_kustomization_must_list_every_manifest_but_the_example(changed: Any) -> None:
    resources = changed.kustomization["resources"]
    resources.remove("pdb.yaml")
    resources.append("secret.example.yaml")
    resources.append("gone.yaml")
    _expect(
        vd.check_kustomization_lists_every_manifest,
        changed,
        "does not list pdb.yaml",
        "lists secret.example.yaml",
        "lists gone.yaml, which is not in",
    )


def test_a_target_port_that_no_container_has(changed: Any) -> None:
    _one(changed, "Service", "truco")["spec"]["ports"][1]["targetPort"] = "metric"
    _one(changed, "Service", "truco-headless")["spec"]["ports"][0]["targetPort"] = 50052
    _expect(vd.check_service_ports, changed, "targets 'metric'", "targets 50052")


def test_a_service_that_selects_no_pod(changed: Any) -> None:
    _one(changed, "Service", "truco")["spec"]["selector"]["app.kubernetes.io/component"] = "sever"
    _expect(vd.check_service_ports, changed, "selects nothing")


def test_probes_must_be_grpc_on_50051(changed: Any) -> None:
    container = _server_container(changed)
    container["readinessProbe"]["grpc"]["port"] = 9090
    container["livenessProbe"] = {"tcpSocket": {"port": 50051}}
    _expect(vd.check_probes, changed, "readinessProbe uses port 9090", "livenessProbe is not a native gRPC probe")


def test_selectors_that_miss_the_server_pods(changed: Any) -> None:
    _one(changed, "PodDisruptionBudget", "truco")["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"] = "x"
    _one(changed, "HorizontalPodAutoscaler", "truco")["spec"]["scaleTargetRef"]["name"] = "truco-server"
    changed.server()["spec"]["selector"]["matchLabels"]["tier"] = "backend"
    _expect(
        vd.check_selectors,
        changed,
        "PodDisruptionBudget/truco: selects nothing",
        "HorizontalPodAutoscaler/truco: scaleTargetRef",
        "Deployment/truco: spec.selector does not match",
    )


def test_a_pdb_that_also_selects_the_database(changed: Any) -> None:
    del _one(changed, "PodDisruptionBudget", "truco")["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"]
    _one(changed, "StatefulSet", "truco-postgres")["spec"]["template"]["metadata"]["labels"][
        "app.kubernetes.io/component"
    ] = "server"
    _expect(vd.check_selectors, changed, "not exactly Deployment/truco")


def test_a_secret_key_the_example_does_not_show(changed: Any) -> None:
    _server_container(changed)["env"][0]["valueFrom"]["secretKeyRef"]["key"] = "dsn"
    _expect(vd.check_secret_references, changed, "reads Secret truco-postgres key dsn")


def test_a_server_open_to_anonymous_creates_or_without_a_shared_token_key(changed: Any) -> None:
    container = _server_container(changed)
    container["args"].remove("--require-api-key")
    container["args"].append("--no-limits")
    container["env"] = [item for item in container["env"] if item["name"] != "TRUCO_TOKEN_KEY"]
    _expect(
        vd.check_server_settings,
        changed,
        "args lack --require-api-key",
        "turn every quota off",
        "env TRUCO_TOKEN_KEY does not come from a Secret",
    )


def test_server_settings_that_contradict_each_other(changed: Any) -> None:
    container = _server_container(changed)
    container["args"][container["args"].index("--metrics-port") + 1] = "9091"
    container["lifecycle"]["preStop"]["exec"]["command"] = ["sleep", "15"]
    container["securityContext"]["readOnlyRootFilesystem"] = False
    _expect(
        vd.check_server_settings,
        changed,
        "--metrics-port 9091",
        "terminationGracePeriodSeconds 30 leaves no room",
        "root filesystem is not read-only",
    )


def _replace(d: Any, keyword: str, text: str) -> None:
    for instruction in d.dockerfile:
        if instruction.keyword == keyword:
            instruction.text = text


def test_a_dockerfile_that_runs_as_root_or_lacks_its_contract(changed: Any) -> None:
    _replace(changed, "USER", "root")
    _replace(changed, "STOPSIGNAL", "SIGINT")
    _replace(changed, "ENTRYPOINT", "truco serve")
    _replace(changed, "EXPOSE", "50051")
    changed.dockerfile = [i for i in changed.dockerfile if i.keyword != "HEALTHCHECK"]
    _expect(
        vd.check_dockerfile,
        changed,
        "no non-root USER",
        "no STOPSIGNAL SIGTERM",
        "ENTRYPOINT is not the exec form",
        "does not EXPOSE 8080",
        "does not EXPOSE 9090",
        "no HEALTHCHECK",
    )


def _install(d: Any) -> Any:
    """The build stage's RUN that installs the four distributions."""
    (install,) = [i for i in d.dockerfile if i.keyword == "RUN" and "pip install" in i.text]
    return install


def test_a_dockerfile_whose_engine_could_quietly_end_up_pure(changed: Any) -> None:
    changed.dockerfile = [i for i in changed.dockerfile if not (i.keyword == "RUN" and "apt-get install" in i.text)]
    install = _install(changed)
    install.text = install.text.replace("TRUCO_COMPILED=1 ", "").replace(vd.COMPILED_CHECK, "truco.cli.builds")
    _expect(
        vd.check_dockerfile,
        changed,
        "the build stage installs no C compiler",
        "does not set TRUCO_COMPILED=1",
        f"never runs `python -m {vd.COMPILED_CHECK}`",
    )


def test_a_dockerfile_that_asks_for_the_pure_engine(changed: Any) -> None:
    install = _install(changed)
    install.text = install.text.replace("TRUCO_COMPILED=1", "TRUCO_PURE=1")
    _expect(vd.check_dockerfile, changed, "does not set TRUCO_COMPILED=1", "sets TRUCO_PURE")


def test_a_runtime_stage_with_a_compiler_or_without_the_build_stage_venv(changed: Any) -> None:
    changed.dockerfile.append(
        vd.Instruction("RUN", "apt-get update && apt-get install --yes --no-install-recommends gcc", 999)
    )
    changed.dockerfile = [i for i in changed.dockerfile if not (i.keyword == "COPY" and "/opt/venv" in i.text)]
    _expect(
        vd.check_dockerfile,
        changed,
        "the final stage installs system packages",
        "does not copy /opt/venv from the build stage",
    )


def test_a_dockerfile_without_the_web_table_or_its_port(changed: Any) -> None:
    cmd = [i for i in changed.dockerfile if i.keyword == "CMD"][-1]
    cmd.text = cmd.text.replace('"--web-port", "8080", ', "")
    env = [i for i in changed.dockerfile if i.keyword == "ENV" and vd.WEB_ASSETS_ENV in i.text][-1]
    env.text = env.text.replace("/opt/truco/web", "/opt/web")
    _expect(
        vd.check_dockerfile,
        changed,
        "CMD does not default to --port 50051 --web-port 8080 --metrics-port 9090",
        "ENV TRUCO_WEB_ASSETS ('/opt/web') is not where the final stage copies the web table",
    )
    changed.dockerfile = [i for i in changed.dockerfile if not (i.keyword == "RUN" and "npm" in i.text)]
    _expect(vd.check_dockerfile, changed, "no stage builds the web table")


def test_a_deployment_that_does_not_expose_the_web_port(changed: Any) -> None:
    container = _server_container(changed)
    container["ports"] = [port for port in container["ports"] if port["name"] != "web"]
    index = container["args"].index("--web-port")
    del container["args"][index : index + 2]
    service = _one(changed, "Service", "truco")
    service["spec"]["ports"] = [port for port in service["spec"]["ports"] if port["name"] != "web"]
    _expect(
        vd.check_server_settings,
        changed,
        "want grpc 50051, web 8080 and metrics 9090",
        "args give --web-port None, want 8080",
        "Service/truco: no port web 8080",
    )


def test_a_network_policy_that_keeps_browsers_out(changed: Any) -> None:
    server = _one(changed, "NetworkPolicy", "truco-server")
    for rule in server["spec"]["ingress"]:
        rule["ports"] = [port for port in rule["ports"] if port["port"] != "web"]
    _expect(vd.check_network_policies, changed, "no NetworkPolicy ingress rule admits port web (8080)")


def test_the_dockerfile_parser_joins_continuations_and_drops_comments() -> None:
    instructions = vd.parse_dockerfile(
        "FROM python:3.11-slim AS build\n# a comment\nRUN a \\\n    # inside\n    && b\n\n"
        'ENTRYPOINT ["truco", "serve"]\n'
    )
    assert [(i.keyword, i.text, i.line) for i in instructions] == [
        ("FROM", "python:3.11-slim AS build", 1),
        ("RUN", "a && b", 3),
        ("ENTRYPOINT", '["truco", "serve"]', 7),
    ]
    assert instructions[2].exec_form() == ["truco", "serve"]
    assert instructions[1].exec_form() is None


def test_the_dockerignore_matcher() -> None:
    patterns = ["*", "!engine/", "**/__pycache__", "**/*.py[cod]"]
    assert not vd.dockerignore_excludes(patterns, "engine/game.py")
    assert vd.dockerignore_excludes(patterns, "engine/__pycache__/game.cpython-311.pyc")
    assert vd.dockerignore_excludes(patterns, "engine/game.pyc")
    assert vd.dockerignore_excludes(patterns, "tests/test_cards.py")
    assert vd.dockerignore_excludes(patterns, ".venv/bin/python")


def test_a_dockerignore_that_leaves_out_sources(changed: Any) -> None:
    changed.dockerignore = [p for p in changed.dockerignore if p not in ("!server/", "!web/")]
    _expect(vd.check_dockerignore, changed, "leaves out server/", "leaves out web/")


def test_a_dockerignore_that_lets_build_output_in(changed: Any) -> None:
    changed.dockerignore = [p for p in changed.dockerignore if p not in ("**/build", "**/*.so", "**/node_modules")]
    _expect(
        vd.check_dockerignore,
        changed,
        "lets engine/build/lib.linux-x86_64-cpython-311/truco_engine__mypyc",
        "lets engine/src/truco/engine/game.cpython-311-x86_64-linux-gnu.so",
        "lets web/node_modules/vite/package.json",
    )


def test_workers_must_be_given_and_fit_the_cpu_limit(changed: Any) -> None:
    container = _server_container(changed)
    container["args"][container["args"].index("--workers") + 1] = "4"
    _expect(vd.check_server_settings, changed, "--workers 4 is more than the 2 cores")
    index = container["args"].index("--workers")
    del container["args"][index : index + 2]
    _expect(vd.check_server_settings, changed, "args give --workers None")


def test_network_policies_that_block_clients_or_open_the_database(changed: Any) -> None:
    server = _one(changed, "NetworkPolicy", "truco-server")
    server["spec"]["ingress"] = [rule for rule in server["spec"]["ingress"] if rule["ports"][0]["port"] != "metrics"]
    server["spec"]["ingress"][0]["from"] = [{"namespaceSelector": {"matchLabels": {"team": "edge"}}}]
    server["spec"]["egress"] = [rule for rule in server["spec"]["egress"] if rule["ports"][0]["port"] != 53]
    database = _one(changed, "NetworkPolicy", "truco-postgres")
    database["spec"]["ingress"][0]["from"] = []
    _expect(
        vd.check_network_policies,
        changed,
        "no NetworkPolicy ingress rule admits port metrics",
        "gRPC is admitted only from some peers",
        "DNS (port 53) is not allowed",
        "admits anyone to the database",
    )


def test_a_server_that_may_not_reach_its_database(changed: Any) -> None:
    server = _one(changed, "NetworkPolicy", "truco-server")
    server["spec"]["egress"][0]["to"][0]["podSelector"]["matchLabels"]["app.kubernetes.io/name"] = "postgres"
    database = _one(changed, "NetworkPolicy", "truco-postgres")
    database["spec"]["ingress"][0]["ports"][0]["port"] = 5433
    _expect(
        vd.check_network_policies,
        changed,
        "StatefulSet/truco-postgres:5432 is not allowed",
        "the server pods may not reach it on 5432",
    )


def test_a_service_monitor_that_scrapes_nothing(changed: Any) -> None:
    (monitor,) = changed.monitoring["servicemonitor.yaml"]
    monitor["spec"]["endpoints"][0]["port"] = "http-metrics"
    monitor["spec"]["namespaceSelector"]["matchNames"] = ["default"]
    changed.monitoring_component["resources"].append("podmonitor.yaml")
    _expect(
        vd.check_service_monitor,
        changed,
        "selects no Service with a port named ['http-metrics']",
        "not looking in, namespace 'truco'",
        "the folder holds ['servicemonitor.yaml']",
    )
