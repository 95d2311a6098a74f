"""Fixtures shared by the layers' tests (tests/engine, store, server, doors, sdks, clients, web, project): an event
loop thread, the in-process servers' log, the store backends and PostgreSQL. A layer's own fixtures are in its
folder's conftest.py."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

import pytest

if TYPE_CHECKING:  # the engine's tests also run where the server is not installed: imported by the fixture
    from .servers import LoopThread, Stores

POSTGRES_CLUSTER_SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "postgres-test-cluster.sh"
NATS_SERVER_SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "nats-test-server.sh"
STORE_BACKENDS = ("sqlite", "postgres")
"""The event stores the ``stores`` fixture runs a module's tests on, once each (servers.BACKENDS)."""


@pytest.fixture(scope="module")
def loop() -> Iterator[LoopThread]:
    """An event loop on a thread of its own, for the module's in-process servers and store calls."""
    from .servers import LoopThread

    thread = LoopThread()
    yield thread
    thread.close()


@contextlib.contextmanager
def _structlog_into(sink: TextIO) -> Iterator[None]:
    """In-process servers log through structlog into ``sink`` as JSON lines meanwhile (uncached loggers, so every
    thread's next line goes there); the configuration before is restored after."""
    import logging

    import structlog

    saved = structlog.get_config()
    structlog.configure(
        processors=[structlog.processors.add_log_level, structlog.processors.JSONRenderer()],
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
        logger_factory=structlog.PrintLoggerFactory(sink),
        cache_logger_on_first_use=False,
    )
    try:
        yield
    finally:
        structlog.configure(**saved)


@pytest.fixture(scope="module")
def server_log(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The module's in-process servers log through structlog into this file (which its tests may read), not to
    pytest's captured stdout. A module whose every test starts servers uses it with ``pytest.mark.usefixtures``."""
    path = tmp_path_factory.mktemp("server-logs") / "in-process-servers.log"
    with path.open("w") as sink, _structlog_into(sink):
        yield path


@pytest.fixture
def captured_log() -> Iterator[io.StringIO]:
    """What in-process servers log through structlog during one test, as JSON lines. Reading pytest's captured
    stdout instead depends on the order of tests: another module's :func:`server_log` may still be configured
    when a worker interleaves tests of several modules."""
    sink = io.StringIO()
    with _structlog_into(sink):
        yield sink


@pytest.fixture(scope="module", params=STORE_BACKENDS)
def stores(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stores]:
    """The module's store backend, one per run of its tests: a folder of SQLite files, or PostgreSQL databases
    made through the session's ``postgres_url`` (skipped without PostgreSQL, except in CI); dropped after."""
    from .servers import Stores

    backend: str = request.param
    admin = request.getfixturevalue("postgres_url") if backend == "postgres" else None
    made = Stores(backend, tmp_path_factory.mktemp(f"stores-{backend}"), admin)
    yield made
    made.drop_all()


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """URL of a PostgreSQL database for the tests: $TRUCO_TEST_POSTGRES_URL, or a throwaway cluster.

    Without PostgreSQL the tests that need it are skipped, except in CI (CI=true), where they fail: CI must
    not pass by testing less.
    """
    if url := os.environ.get("TRUCO_TEST_POSTGRES_URL"):
        yield url
        return
    with postgres_cluster() as (_, url):
        yield url


@contextlib.contextmanager
def postgres_cluster() -> Iterator[tuple[str, str]]:
    """A throwaway PostgreSQL cluster of its own (scripts/postgres-test-cluster.sh): its directory (for the
    script's ``halt``/``resume``) and its URL; stopped and deleted after. Skips without PostgreSQL, except in CI."""
    try:
        started = subprocess.run(["bash", str(POSTGRES_CLUSTER_SCRIPT)], capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        _unavailable(f"cannot run {POSTGRES_CLUSTER_SCRIPT.name}: {exc}")
    lines = started.stdout.strip().splitlines()
    if started.returncode != 0 or len(lines) < 2:
        _unavailable(f"{POSTGRES_CLUSTER_SCRIPT.name} failed ({started.returncode}): {started.stderr.strip()[-2000:]}")
    cluster_dir, url = lines[-2], lines[-1]
    try:
        yield cluster_dir, url
    finally:
        subprocess.run(["bash", str(POSTGRES_CLUSTER_SCRIPT), "stop", cluster_dir], capture_output=True, timeout=120)


@contextlib.contextmanager
def nats_server() -> Iterator[tuple[str, str]]:
    """A throwaway nats-server of its own (scripts/nats-test-server.sh): its directory (for the script's
    ``kill``/``resume``) and its URL; stopped after. Skips without nats-server, except in CI."""
    try:
        started = subprocess.run(["bash", str(NATS_SERVER_SCRIPT)], capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        _unavailable(f"cannot run {NATS_SERVER_SCRIPT.name}: {exc}", "NATS")
    lines = started.stdout.strip().splitlines()
    if started.returncode != 0 or len(lines) < 2:
        failure = f"{NATS_SERVER_SCRIPT.name} failed ({started.returncode}): {started.stderr.strip()[-2000:]}"
        _unavailable(failure, "NATS")
    server_dir, url = lines[-2], lines[-1]
    try:
        yield server_dir, url
    finally:
        subprocess.run(["bash", str(NATS_SERVER_SCRIPT), "stop", server_dir], capture_output=True, timeout=120)


def _unavailable(reason: str, what: str = "PostgreSQL") -> NoReturn:
    message = f"{what} unavailable: {reason}"
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)
