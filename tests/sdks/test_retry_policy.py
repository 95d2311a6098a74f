"""One retry policy: stated once in errors.proto, in the same words in every SDK's README, and the same codes in
every SDK's code (each names them in one constant its retry decision reads: RETRIED_CODES, RetriedCodes).

The Python SDK's decision itself is exercised here too, on errors as the server and a proxy send them; the other
SDKs' unit tests (scripts/sdk-play LANG --unit-tests) exercise theirs."""

from __future__ import annotations

import re
from pathlib import Path

import grpc
import pytest

from truco_client.errors import DOMAIN, RETRIED_CODES, TrucoError, is_retried

ROOT = Path(__file__).resolve().parents[2]
ERRORS_PROTO = ROOT / "proto" / "truco" / "v1" / "errors.proto"
SDKS = ("python", "ts", "go", "java", "kotlin")
CONSTANTS = {
    # SDK: (source file, the constant's definition up to its closing bracket)
    "python": ("clients/python/src/truco_client/errors.py", r"RETRIED_CODES: Final = frozenset\(\s*\{(.*?)\}"),
    "ts": ("clients/ts/src/errors.ts", r"RETRIED_CODES: readonly Code\[\] = \[(.*?)\]"),
    "go": ("clients/go/truco/errors.go", r"RetriedCodes = \[\]codes\.Code\{(.*?)\}"),
    "java": (
        "clients/java/src/main/java/uy/truco/client/TrucoException.java",
        r"RETRIED_CODES =\s*Collections\.unmodifiableSet\(EnumSet\.of\((.*?)\)\);",
    ),
}
"""Kotlin's client decides with the Java SDK's TrucoException (checked below that it does)."""


def policy() -> tuple[set[str], str]:
    """errors.proto's retried codes and its policy paragraph (one line of text)."""
    lines = ERRORS_PROTO.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("// Retried codes:"))
    codes = {code.strip(" .") for code in lines[start].removeprefix("// Retried codes:").split(",")}
    paragraph = []
    for line in lines[start + 1 :]:
        if not line.startswith("//"):
            break
        paragraph.append(line.removeprefix("//").strip())
    return codes, " ".join(paragraph)


def words(text: str) -> str:
    return " ".join(text.split())


def grpc_name(code: str) -> str:
    """A code as each language spells it (Code.Unavailable, codes.DeadlineExceeded, Canceled) in gRPC's names."""
    name = code.strip().split(".")[-1]
    name = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).upper()
    return {"CANCELED": "CANCELLED"}.get(name, name)


def test_the_policy_names_its_codes_in_the_paragraph() -> None:
    codes, paragraph = policy()
    assert codes == {"UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED"}
    assert all(code in paragraph for code in codes) and "RESOURCE_EXHAUSTED" in paragraph


@pytest.mark.parametrize("sdk", SDKS)
def test_every_readme_states_the_policy_in_the_protos_words(sdk: str) -> None:
    _, paragraph = policy()
    readme = words((ROOT / "clients" / sdk / "README.md").read_text())
    assert words("**Retry policy** (errors.proto's, the same in every SDK): " + paragraph) in readme


@pytest.mark.parametrize("sdk", sorted(CONSTANTS))
def test_every_sdks_code_retries_the_protos_codes(sdk: str) -> None:
    codes, _ = policy()
    path, pattern = CONSTANTS[sdk]
    found = re.search(pattern, (ROOT / path).read_text(), flags=re.DOTALL)
    assert found is not None, f"{path}: no retried-codes constant"
    assert {grpc_name(code) for code in found.group(1).split(",") if code.strip()} == codes, path


def test_the_kotlin_sdk_decides_with_the_java_sdks_policy() -> None:
    source = (ROOT / "clients/kotlin/src/main/kotlin/uy/truco/kotlin/TrucoClient.kt").read_text()
    assert "private fun retryable(failure: TrucoException): Boolean = failure.retried()" in source


def failure(code: grpc.StatusCode, domain: str = DOMAIN) -> TrucoError:
    return TrucoError(code, "" if domain != DOMAIN else "SOME_REASON", "message", domain=domain)


@pytest.mark.parametrize("code", list(grpc.StatusCode), ids=lambda code: code.name)
def test_the_python_sdk_retries_what_the_policy_says(code: grpc.StatusCode) -> None:
    codes, _ = policy()
    assert {retried.name for retried in RETRIED_CODES} == codes
    reset = code in {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
    assert is_retried(failure(code)) == (code.name in codes), "the service's own answer"
    assert is_retried(failure(code, domain="")) == (code.name in codes or reset), "no ErrorInfo: a proxy's"
