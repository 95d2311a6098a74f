"""Each kustomization (deploy/k8s and its components) lists every manifest file beside it, once, and never an
example (*.example.yaml holds placeholders): a file left out would silently not be applied."""

from __future__ import annotations

from deploycheck.model import KUSTOMIZATION, Deploy, Folder, is_example, yaml_files


def check_kustomizations_list_every_manifest(deploy: Deploy) -> list[str]:
    return [problem for folder in (deploy.base, *deploy.components) for problem in _listing(deploy, folder)]


def _listing(deploy: Deploy, folder: Folder) -> list[str]:
    where = folder.path / KUSTOMIZATION
    if folder.kustomization is None:
        return [f"{where}: missing or unreadable"]
    resources = folder.kustomization.get("resources") or []
    if not isinstance(resources, list):
        return [f"{where}: resources is not a list"]
    listed = [str(item) for item in resources]
    on_disk = {path.name for path in yaml_files(deploy.root / folder.path) if path.name != KUSTOMIZATION}
    problems = [f"{where}: lists {name} twice" for name in sorted({n for n in listed if listed.count(n) > 1})]
    problems += [f"{where}: lists {name}, which holds only placeholders" for name in listed if is_example(name)]
    problems += [f"{where}: does not list {name}" for name in sorted(on_disk - set(listed)) if not is_example(name)]
    problems += [f"{where}: lists {name}, which is not in {folder.path}" for name in sorted(set(listed) - on_disk)]
    return problems
