"""grpcurl itself (built by scripts/grpcurl) against both ports of a server: `list`, `describe` of a service, a
message and a method, a call, and an unknown method's UNIMPLEMENTED, all from reflection alone (no protos)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..servers import InProcessServer, LoopThread

ROOT = Path(__file__).resolve().parents[2]
GRPCURL = ROOT / "scripts" / "grpcurl"
INSTALL_SECONDS = 900.0
"""The first run builds grpcurl with `go install` (its modules from the Go proxy)."""


@pytest.fixture(scope="module")
def grpcurl() -> Path:
    if shutil.which("go") is None and os.environ.get("CI") != "true":
        pytest.skip("Go is needed to build grpcurl (under CI this fails instead)")
    built = subprocess.run(
        [str(GRPCURL), "--install"], capture_output=True, text=True, timeout=INSTALL_SECONDS, check=False
    )
    assert built.returncode == 0, built.stderr[-4000:]
    return Path(built.stdout.strip())


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessServer]:
    loop = LoopThread()
    started = InProcessServer(loop, f"sqlite:///{tmp_path_factory.mktemp('grpcurl') / 'truco.db'}", web=True)
    yield started
    started.stop()
    loop.close()


def run(grpcurl: Path, address: str, *args: str) -> subprocess.CompletedProcess[str]:
    """grpcurl's flags (those of ``args`` that start with ``-``, each with its value), the address, then the
    verb and symbol, or the method."""
    flags = [arg for i, arg in enumerate(args) if arg.startswith("-") or (i and args[i - 1] == "-d")]
    rest = [arg for arg in args if arg not in flags]
    return subprocess.run(
        [str(grpcurl), "-plaintext", "-max-time", "20", *flags, address, *rest],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def ok(grpcurl: Path, address: str, *args: str) -> str:
    result = run(grpcurl, address, *args)
    assert result.returncode == 0, f"grpcurl {' '.join(args)}: {result.stderr}"
    return result.stdout


@pytest.mark.parametrize("port", ["grpc", "web"])
def test_grpcurl_lists_describes_and_calls_on_both_ports(grpcurl: Path, server: InProcessServer, port: str) -> None:
    assert server.server.web is not None
    address = server.address if port == "grpc" else f"127.0.0.1:{server.server.web.port}"
    services = ok(grpcurl, address, "list").split()
    assert {"truco.v1.GameService", "truco.v1.RulesService", "grpc.reflection.v1.ServerReflection"} <= set(services)
    assert "rpc CreateGame" in ok(grpcurl, address, "describe", "truco.v1.GameService")
    method = ok(grpcurl, address, "describe", "truco.v1.GameService.SubmitCommand")
    assert "is a method" in method and "// " in method, "with the contract's comment"
    assert "string request_id = 2;" in ok(grpcurl, address, "describe", "truco.v1.SubmitCommandRequest")
    assert "ERROR_REASON_REQUEST_ID_REUSED = 18;" in ok(grpcurl, address, "describe", "truco.v1.ErrorReason")
    for service in services:  # every listed service can be described
        ok(grpcurl, address, "describe", service)
    cards = '{"muestra": {"rank": 7, "suit": "SUIT_COPA"}, "first": {"rank": 1, "suit": "SUIT_ESPADA"},'
    cards += ' "second": {"rank": 4, "suit": "SUIT_BASTO"}}'
    compared = json.loads(ok(grpcurl, address, "-d", cards, "truco.v1.RulesService/CompareCards"))
    assert compared, "a call answered from reflection's descriptors alone"
    unknown = run(grpcurl, address, "-d", "{}", "truco.v1.GameService/Nope")
    assert unknown.returncode != 0 and "does not include a method" in unknown.stderr, unknown.stderr


BUF = ROOT / "scripts" / "buf"


@pytest.mark.parametrize("port", ["grpc", "web"])
def test_buf_curl_lists_and_calls_from_reflection_on_both_ports(server: InProcessServer, port: str) -> None:
    """`buf curl` asks reflection v1 (and the gRPC port speaks only gRPC: --protocol grpc there)."""
    if shutil.which("npm") is None and os.environ.get("CI") != "true":
        pytest.skip("npm is needed to install buf (under CI this fails instead)")
    assert server.server.web is not None
    url = f"http://{server.address}" if port == "grpc" else f"http://127.0.0.1:{server.server.web.port}"
    base = [str(BUF), "curl", "--protocol", "grpc", "--http2-prior-knowledge"]

    def buf_curl(*args: str) -> str:
        result = subprocess.run([*base, *args], capture_output=True, text=True, timeout=INSTALL_SECONDS, check=False)
        assert result.returncode == 0, f"buf curl {' '.join(args)}: {result.stderr}"
        return result.stdout

    assert "truco.v1.GameService/SubmitCommand" in buf_curl("--list-methods", url).split()
    cards = {"muestra": "7c", "first": "1e", "second": "4b"}
    body = {
        key: {"rank": int(text[:-1]), "suit": {"c": "SUIT_COPA", "e": "SUIT_ESPADA", "b": "SUIT_BASTO"}[text[-1]]}
        for key, text in cards.items()
    }
    compared = json.loads(buf_curl("-d", json.dumps(body), f"{url}/truco.v1.RulesService/CompareCards"))
    assert compared["result"] == 1, compared
