"""Packages ready to publish: one version everywhere, and a release dry run whose every artifact installs into an empty
project that then plays a match against a real server.

``scripts/version --check`` compares VERSION with every build file that carries a version and with the claims of
every README (install commands, coordinates, jar names, toolchain floors such as "Node 20+"). ``scripts/release
--dry-run`` builds the Python wheels and sdists, the npm tarball, the Maven jars (sources and javadoc too) and the
Go module zip, then plays a 4-player match with each SDK's example (the Kotlin one twice: on truco-client-kotlin and
on its javalite flavour) from an empty project that has only the artifact. Toolchains (node, go, java, mvn) are
required: under CI these tests run, never skip.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RELEASE_SECONDS = 1500.0
"""The first dry run installs the Python build tool and resolves the consumers' Maven and Go dependencies."""


def test_every_version_claim_agrees_with_the_one_version() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "version"), "--check"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr


def test_the_version_check_catches_a_claim_that_disagrees(tmp_path: Path) -> None:
    # The check reads the repository it sits in: a copy with one README claim changed must fail.
    copy = tmp_path / "repo"
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for name in files:
        source = ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            (copy / name).write_bytes(source.read_bytes())
    version = (ROOT / "VERSION").read_text().strip()
    readme = copy / "clients" / "java" / "README.md"
    readme.write_text(readme.read_text().replace(f"truco-client:{version}", "truco-client:9.9.9", 1))
    result = subprocess.run(
        [sys.executable, str(copy / "scripts" / "version"), "--check"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1 and "9.9.9" in result.stderr


def test_the_release_dry_run_installs_every_artifact_into_an_empty_project_that_plays_a_match() -> None:
    result = subprocess.run(
        [str(ROOT / "scripts" / "release"), "--dry-run"], cwd=ROOT, capture_output=True, text=True,
        timeout=RELEASE_SECONDS,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]
    played = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert sorted(line["sdk"] for line in played) == ["go", "java", "kotlin", "kotlin-lite", "python", "ts"]
    assert all(line["over"] and line["illegal_reason"] == "CARD_NOT_IN_HAND" for line in played), played
    version = (ROOT / "VERSION").read_text().strip()
    out = ROOT / "dist" / "release" / version
    for artifact in (
        f"python/truco_client-{version}-py3-none-any.whl",
        f"python/truco_client-{version}.tar.gz",
        f"python/truco_server-{version}.tar.gz",
        f"npm/truco-client-{version}.tgz",
        f"maven/io/github/truco-uy/truco-client/{version}/truco-client-{version}-sources.jar",
        f"maven/io/github/truco-uy/truco-client/{version}/truco-client-{version}-javadoc.jar",
        f"maven/io/github/truco-uy/truco-client-kotlin/{version}/truco-client-kotlin-{version}.jar",
        f"maven/io/github/truco-uy/truco-client-kotlin-lite/{version}/truco-client-kotlin-lite-{version}.jar",
        f"maven/io/github/truco-uy/truco-client-kotlin-lite/{version}/truco-client-kotlin-lite-{version}-javadoc.jar",
        f"goproxy/github.com/truco-uy/truco/clients/go/@v/v{version}.zip",
    ):
        assert (out / artifact).is_file(), artifact
    for artifact, rules in (
        ("truco-client", "truco-client.pro"),
        ("truco-client-kotlin", "truco-client-kotlin.pro"),
        ("truco-client-kotlin-lite", "truco-client-kotlin-lite.pro"),
    ):
        with zipfile.ZipFile(out / f"maven/io/github/truco-uy/{artifact}/{version}/{artifact}-{version}.jar") as jar:
            names = jar.namelist()
        assert f"META-INF/proguard/{rules}" in names, "consumer R8 rules"
        assert not [name for name in names if "/examples/" in name or name.startswith("META-INF/maven/")], names


def copy_of_repository(tmp_path: Path) -> Path:
    """The committed files (and their working-tree contents) in a folder of their own, a git repository."""
    copy = tmp_path / "repo"
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in filter(None, files.split("\0")):
        source = ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            (copy / name).write_bytes(source.read_bytes())
            (copy / name).chmod(source.stat().st_mode)
    subprocess.run(["git", "init", "-q"], cwd=copy, check=True)
    return copy


def preflight(copy: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(copy / "scripts" / "release"), "--preflight"], cwd=copy, capture_output=True, text=True, timeout=120
    )


def test_the_release_refuses_a_released_version_or_unreleased_changes_before_building(tmp_path: Path) -> None:
    copy = copy_of_repository(tmp_path)
    version = (copy / "VERSION").read_text().strip()
    assert preflight(copy).returncode == 0, preflight(copy).stderr  # the repository as it is can be released

    released = copy / "proto" / "released" / "VERSION"
    last = released.read_text()
    released.write_text(version + "\n")
    refused = preflight(copy)
    assert refused.returncode == 2 and f"version {version} is not newer than the last release" in refused.stderr
    released.write_text(last)

    changelog = copy / "CHANGELOG.md"
    changelog.write_text(changelog.read_text().replace("## Unreleased\n", "## Unreleased\n\n- Something new.\n", 1))
    refused = preflight(copy)
    assert refused.returncode == 2 and "1 lines under Unreleased" in refused.stderr, refused.stderr
    assert not (copy / "dist").exists(), "nothing built"


def test_a_new_version_takes_the_unreleased_changes_and_passes_the_check(tmp_path: Path) -> None:
    copy = copy_of_repository(tmp_path)
    changelog = copy / "CHANGELOG.md"
    changelog.write_text(changelog.read_text().replace("## Unreleased\n", "## Unreleased\n\n- Something new.\n", 1))
    subprocess.run([sys.executable, "scripts/version", "--set", "9.8.7"], cwd=copy, check=True, timeout=60)
    text = changelog.read_text()
    assert "## Unreleased\n\n## 9.8.7\n\n- Something new.\n" in text
    assert "`npm install truco-client@9.8.7`" in text, "the coordinates table"
    assert preflight(copy).returncode == 0, preflight(copy).stderr
