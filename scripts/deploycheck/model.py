"""The deployment files, read once: the kustomization folder deploy/k8s with its components, the Dockerfile and
.dockerignore. A file that is missing or does not parse is left out and noted."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dockerfile
import yaml

from deploycheck import image

Manifest = dict[str, Any]

K8S_DIR = Path("deploy") / "k8s"
KUSTOMIZATION = "kustomization.yaml"
EXAMPLE_SUFFIX = ".example.yaml"
"""Files such as secret.example.yaml show what an operator creates by hand: placeholders, never applied."""


class Missing(Exception):
    """Something a check reads is not there at all: the check reports this instead of its own findings."""


def is_example(file_name: str) -> bool:
    return file_name.endswith(EXAMPLE_SUFFIX)


@dataclass(frozen=True)
class Folder:
    """A kustomization folder: its Kustomization (or Component) and the manifests beside it, by file name."""

    path: Path  # relative to the repository root
    kustomization: Manifest | None
    manifests: dict[str, list[Manifest]]

    def objects(self, *, examples: bool = False) -> Iterator[tuple[str, Manifest]]:
        """(file name, object) of every manifest, the examples only if asked."""
        for name, documents in sorted(self.manifests.items()):
            if examples or not is_example(name):
                for document in documents:
                    yield name, document


@dataclass(frozen=True)
class Deploy:
    root: Path
    base: Folder  # deploy/k8s: what `kubectl apply -k deploy/k8s` applies
    components: tuple[Folder, ...]  # its subfolders holding a kustomization (kustomize Components)
    dockerfile: tuple[image.Instruction, ...] | None
    dockerignore: tuple[str, ...] | None
    problems: tuple[str, ...]

    def applied(self) -> list[Manifest]:
        """The objects of the base's manifests (not the examples): the ones the project checks look at."""
        return [obj for _, obj in self.base.objects()]

    def examples(self) -> list[Manifest]:
        return [obj for name, obj in self.base.objects(examples=True) if is_example(name)]

    def find(self, kind: str) -> list[Manifest]:
        return [obj for obj in self.applied() if obj.get("kind") == kind]

    def every_file(self) -> Iterator[tuple[Path, Manifest]]:
        """(path, object) of every manifest, examples and components' included."""
        for folder in (self.base, *self.components):
            for name, obj in folder.objects(examples=True):
                yield folder.path / name, obj


def load(root: Path) -> Deploy:
    """Read deploy/k8s (and its components), the Dockerfile and .dockerignore under ``root``."""
    problems: list[str] = []
    base_dir = root / K8S_DIR
    if not base_dir.is_dir():
        problems.append(f"{K8S_DIR}: missing")
    base = _folder(root, K8S_DIR, problems)
    components = tuple(
        _folder(root, path.parent.relative_to(root), problems) for path in sorted(base_dir.glob(f"*/{KUSTOMIZATION}"))
    )
    return Deploy(
        root=root,
        base=base,
        components=components,
        dockerfile=_dockerfile(root / "Dockerfile", problems),
        dockerignore=_dockerignore(root / ".dockerignore"),
        problems=tuple(problems),
    )


def _dockerfile(path: Path, problems: list[str]) -> tuple[image.Instruction, ...] | None:
    if not path.is_file():
        return None
    try:
        return image.parse(path.read_text(encoding="utf-8"))
    except dockerfile.GoParseError as error:
        problems.append(f"Dockerfile: does not parse: {error}")
        return None


def _dockerignore(path: Path) -> tuple[str, ...] | None:
    """The patterns of .dockerignore, in order, without comments and blank lines."""
    if not path.is_file():
        return None
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return tuple(line for line in lines if line and not line.startswith("#"))


def yaml_files(folder: Path) -> list[Path]:
    return sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")])


def _folder(root: Path, relative: Path, problems: list[str]) -> Folder:
    kustomization: Manifest | None = None
    manifests: dict[str, list[Manifest]] = {}
    for path in yaml_files(root / relative):
        documents = _documents(path, relative / path.name, problems)
        if documents is None:
            continue
        if path.name == KUSTOMIZATION:
            kustomization = documents[0]
        else:
            manifests[path.name] = documents
    if kustomization is None and not any(str(relative / KUSTOMIZATION) in p for p in problems):
        problems.append(f"{relative / KUSTOMIZATION}: missing")
    return Folder(relative, kustomization, manifests)


def _documents(path: Path, where: Path, problems: list[str]) -> list[Manifest] | None:
    """The documents of one YAML file, or None (and a problem) if it does not hold one or more mappings."""
    try:
        documents = [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc is not None]
    except yaml.YAMLError as error:
        problems.append(f"{where}: does not parse: {' '.join(str(error).split())}")
        return None
    if not documents:
        problems.append(f"{where}: holds no document")
        return None
    if not all(isinstance(doc, dict) for doc in documents):
        problems.append(f"{where}: a document is not a mapping")
        return None
    return documents
