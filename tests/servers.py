"""Test servers: stores for each backend, an event loop thread, the service in process or as `truco serve`."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import queue
import re
import resource
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

from truco.server.core.clocks import StandIn
from truco.server.core.quotas import ConnectionLimits, Limits
from truco.server.runtime.app import ServeConfig, Server

T = TypeVar("T")


ROOT = Path(__file__).resolve().parent.parent


TRUCO = ROOT / ".venv" / "bin" / "truco"


BACKENDS = ("sqlite", "postgres")


START_TIMEOUT = 60.0


TOKEN_KEY = "e2e-token-key-shared-by-every-test-server"
"""TRUCO_TOKEN_KEY of the test servers: a server on PostgreSQL refuses to start without one."""


LISTENING = re.compile(r"^truco serve: listening on port (\d+)")


WEB_LISTENING = re.compile(r"Connect/gRPC-Web on http://localhost:(\d+)/")


HEALTH_LISTENING = re.compile(r"health checks on port (\d+)")


class Stores:
    """Fresh event stores of one backend: each :meth:`new_url` is a new SQLite file or a new PostgreSQL database."""

    def __init__(self, backend: str, directory: Path, admin_url: str | None = None) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}")
        if backend == "postgres" and admin_url is None:
            raise ValueError("the PostgreSQL backend needs an admin URL")
        self.backend = backend
        self.directory = directory
        self.admin_url = admin_url
        self._databases: list[str] = []

    def new_url(self) -> str:
        if self.backend == "sqlite":
            return f"sqlite:///{self.directory / f'e2e-{uuid.uuid4().hex[:12]}.db'}"
        assert self.admin_url is not None
        name = f"truco_e2e_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(self.admin_url, autocommit=True) as admin:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        self._databases.append(name)
        return urlunsplit(urlsplit(self.admin_url)._replace(path=f"/{name}"))

    def drop_all(self) -> None:
        if self.admin_url is None:
            return
        with psycopg.connect(self.admin_url, autocommit=True) as admin:
            for name in self._databases:
                admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        self._databases.clear()


class LoopThread:
    """One asyncio event loop in a daemon thread, where every in-process server of the session runs.

    gRPC's asyncio server is bound to the loop it was made in; keeping them all in one loop (and the test
    clients synchronous) lets module-scoped servers outlive each test's own event loop.
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="e2e-servers", daemon=True)
        self._thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = START_TIMEOUT) -> T:
        return self.submit(coro).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        if not self._thread.is_alive():
            self.loop.close()


class InProcessServer:
    """``Server.start`` on 127.0.0.1 and a port it picks, running in the session's :class:`LoopThread`."""

    def __init__(
        self,
        loop: LoopThread,
        store: str,
        *,
        allow_fixed_deals: bool = False,
        metrics: bool = False,
        grace_seconds: float = 1.0,
        limits: Limits | None = None,
        connections: ConnectionLimits | None = None,
        require_api_key: bool = False,
        token_key: str = TOKEN_KEY,
        web: bool = False,
        **options: Any,
    ) -> None:
        """``options``: any other :class:`ServeConfig` field (clocks, presence, housekeeping...). The stand-in
        of an away seat plays at once here (no pace, no grace: the tests of takeovers play matches out) unless
        ``stand_in`` asks for its pace."""
        self.loop = loop
        options.setdefault("stand_in", StandIn(0, 0))
        # Every test client comes from 127.0.0.1, one anonymous caller: quotas and connection caps are off unless
        # a test sets them.
        config = ServeConfig(
            store=store,
            host="127.0.0.1",
            port=0,
            metrics_port=0 if metrics else None,
            allow_fixed_deals=allow_fixed_deals,
            grace_seconds=grace_seconds,
            limits=Limits.unlimited() if limits is None else limits,
            connections=ConnectionLimits.unlimited() if connections is None else connections,
            require_api_key=require_api_key,
            token_key=token_key,
            web_port=0 if web else None,
            **options,
        )
        self.server: Server = loop.run(Server.start(config))
        self._stopping: concurrent.futures.Future[None] | None = None

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    @property
    def metrics_port(self) -> int | None:
        return self.server.metrics_port

    def begin_stop(self, grace: float) -> concurrent.futures.Future[None]:
        """Start a graceful stop (health NOT_SERVING, watchers told to resume elsewhere) without waiting."""
        if self._stopping is None:
            self._stopping = self.loop.submit(self.server.stop(grace))
        return self._stopping

    def stop(self, grace: float = 0.0) -> None:
        self.begin_stop(grace).result(START_TIMEOUT)


class ProcessServer:
    """``truco serve`` in a child process, on a port it picks (read from the first line it prints), or on ``port``
    (a restart on the port a killed server had)."""

    def __init__(
        self,
        store: str,
        workdir: Path,
        *,
        allow_fixed_deals: bool = False,
        grace: float = 2.0,
        port: int = 0,
        web: bool = False,
        limits: bool = False,
        args: Sequence[str] = (),
        open_files: int | None = None,
    ) -> None:
        """``limits``: the server's default quotas and connection caps (else ``--no-limits``); ``args``: more
        ``truco serve`` options; ``open_files``: its open-files limit, soft and hard (so it cannot raise it)."""
        workdir.mkdir(parents=True, exist_ok=True)
        self.store = store
        self.stderr_path = workdir / f"serve-{uuid.uuid4().hex[:8]}.stderr"
        command = [str(TRUCO), "serve", "--store", store, "--host", "127.0.0.1", "--port", str(port)]
        command += ["--metrics-port", "-1", "--web-port", "0" if web else "-1", "--health-port", "0"]
        command += ["--grace", str(grace), "--log-format", "json", *([] if limits else ["--no-limits"]), *args]
        if allow_fixed_deals:
            command.append("--allow-fixed-deals")

        def limit_open_files() -> None:
            if open_files is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

        with self.stderr_path.open("wb") as stderr:
            self.process = subprocess.Popen(
                command,
                cwd=workdir,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                env={**os.environ, "TRUCO_TOKEN_KEY": TOKEN_KEY},
                preexec_fn=limit_open_files if open_files is not None else None,
            )
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, name="e2e-serve-stdout", daemon=True).start()
        try:
            first = self._lines.get(timeout=START_TIMEOUT)
        except queue.Empty:
            first = None
        match = LISTENING.match(first or "")
        if match is None:
            self.kill()
            raise RuntimeError(f"truco serve did not start: first line {first!r}; stderr:\n{self.stderr_text()}")
        self.port = int(match.group(1))
        web_match = WEB_LISTENING.search(first or "")
        self.web_port = int(web_match.group(1)) if web_match else None
        """The web port (Connect, gRPC-Web), for a server started with ``web=True``."""
        health_match = HEALTH_LISTENING.search(first or "")
        self.health_port = int(health_match.group(1)) if health_match else None
        """The health checks' own port."""

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.process.pid

    def stderr_text(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL (kill -9): no shutdown code runs."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(30)

    def terminate(self, timeout: float = 30.0) -> int:
        """SIGTERM, the graceful stop; returns the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)
        return self.process.returncode


def wait_until(predicate: Callable[[], bool], timeout: float = 15.0, interval: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()
