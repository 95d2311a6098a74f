"""``truco serve --workers N``: N server processes on one port, so one host uses all its cores.

One Python process (one event loop, one GIL) serves about one core. The supervisor here starts N worker
processes (``multiprocessing`` *spawn*: each a fresh interpreter with its own event loop, nothing of gRPC
inherited across a fork), and each worker runs the ordinary :class:`~truco.server.runtime.app.Server` on the same
address. gRPC binds its listening socket with ``SO_REUSEPORT`` on Linux, so the kernel spreads incoming
connections over the workers; a gRPC client keeps its connection, so one client talks to one worker, while
many clients (or a proxy opening several upstream connections) use them all.

* **Port 0**: the first worker picks a free port and the others join it (the ``--web-port`` too, also shared
  with ``SO_REUSEPORT``).
* **Metrics**: one endpoint per host. The workers write their metrics in Prometheus multiprocess mode
  (``PROMETHEUS_MULTIPROC_DIR``, a private temporary directory) and the supervisor alone serves ``/metrics``,
  summing counters and histograms over the workers, ``truco_store_up`` the lowest of the live workers and
  ``truco_watchers`` the sum of the live workers. The directory (``$TMPDIR/truco-metrics-*``) is removed when
  the supervisor stops; one left by a supervisor that was SIGKILLed (or OOM-killed) is removed by the next
  supervisor that starts: each directory names its owner (pid and start time) in a file, and one whose owner
  is no longer running is stale (one without an owner file is left alone). In a container whose ``/tmp``
  outlives restarts (a Kubernetes ``emptyDir``), this keeps dead supervisors' files from piling up.
* **Signals**: SIGTERM (or SIGINT) to the supervisor is passed to every worker, which shuts down gracefully
  (health NOT_SERVING, in-flight calls finish within ``--grace``, watchers told to resume); the supervisor
  exits when all have, killing any that outlives the grace by 10 s. A worker that dies unexpectedly is started
  again (at most once a second). Workers get SIGTERM if the supervisor itself dies (``PR_SET_PDEATHSIG``).
* **Quotas** (``truco.server.limits.admission``) are kept by each worker: a per-key or per-address rate is enforced per
  worker, so a host allows up to N times it (the open-games quota, counted in the store, is exact).
* **SQLite**: refused with more than one worker. SQLite's own locking would keep the file consistent, but a
  worker wakes its watchers only for moves it appended itself, so watchers on one worker would not see moves
  made through another; PostgreSQL's ``LISTEN/NOTIFY`` reaches every worker.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import replace
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, cast

import structlog

from truco.server.runtime.app import ServeConfig, redact

RESTART_DELAY_SECONDS = 1.0
"""A worker that died is started again after this long (a crash loop costs one start a second)."""
KILL_MARGIN_SECONDS = 10.0
"""How long past ``--grace`` the supervisor waits for its workers before SIGKILL."""
READY_TIMEOUT_SECONDS = 120.0
_PR_SET_PDEATHSIG = 1
METRICS_DIR_PREFIX = "truco-metrics-"
METRICS_OWNER_FILE = "owner"
"""The file in a metrics directory naming the supervisor that owns it: ``<pid> <start time>``."""


class WorkersError(Exception):
    """``--workers`` cannot be used as asked (a SQLite store with more than one worker)."""


def available_cores() -> int:
    """The cores this process may use: its CPU affinity, capped by a cgroup v2 CPU quota (a container's
    ``resources.limits.cpu``) rounded up. At least 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    with contextlib.suppress(OSError, ValueError):
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cores = min(cores, math.ceil(int(quota) / int(period)))
    return max(1, cores)


def is_sqlite(store: str) -> bool:
    return store.startswith("sqlite:")


def resolve_workers(store: str, workers: int | None) -> int:
    """How many workers ``truco serve`` runs: ``workers`` if given, else one per available core on
    PostgreSQL and one on SQLite.

    :raises WorkersError: more than one worker asked for on a SQLite store.
    """
    if workers is None:
        return 1 if is_sqlite(store) else available_cores()
    if workers < 1:
        raise WorkersError("--workers must be at least 1")
    if workers > 1 and is_sqlite(store):
        raise WorkersError(
            f"--workers {workers} needs a PostgreSQL store: with SQLite, watchers on one worker would not see "
            "moves made through another (run one worker, or use --store postgresql://...)"
        )
    return workers


# --- The worker ------------------------------------------------------------------------------------------------


def _die_with_parent() -> None:
    """Ask Linux for SIGTERM when the supervisor dies, so no worker outlives it (a no-op elsewhere)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def _worker_main(config: ServeConfig, index: int, ready: multiprocessing.connection.Connection) -> None:
    """One worker: the ordinary server on ``config``'s address, reporting its port on ``ready``."""
    _die_with_parent()
    import asyncio

    from truco.server.runtime.app import Server, collector_schedule, configure_logging, stop_signals

    async def run() -> None:
        configure_logging(config.log_format)
        # Caught from the start: the supervisor announces the port once every worker is ready, then may signal.
        with stop_signals() as stop:
            server = await Server.start(config)
            ready.send((server.port, server.web.port if server.web is not None else None, server.health_port))
            ready.close()
            async with collector_schedule(server.metrics, config.full_collection_seconds):
                await server.wait_for_signal(stop)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())


# --- The metrics directory ------------------------------------------------------------------------------------


def process_identity(pid: int) -> str | None:
    """``<pid> <start time>`` of a running process, None if there is none with that pid. The start time (in
    clock ticks since boot, from /proc) tells a process from a later one that got the same pid: the supervisor
    of a restarted container is pid 1 again. Without /proc, the pid alone."""
    if Path("/proc/self/stat").exists():
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return None
        fields = stat.rpartition(")")[2].split()
        return f"{pid} {fields[19]}" if len(fields) > 19 else None  # field 22 of proc(5), after pid and comm
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # someone else's process, running
    return str(pid)


def make_metrics_dir(base: str | None = None) -> str:
    """A new private metrics directory under ``base`` (default: the temporary directory), owned by this
    process: its owner file names this process, written whole or not at all."""
    path = tempfile.mkdtemp(prefix=METRICS_DIR_PREFIX, dir=base)
    owner = process_identity(os.getpid()) or str(os.getpid())
    partial = os.path.join(path, f".{METRICS_OWNER_FILE}.tmp")
    with open(partial, "w", encoding="ascii") as out:
        out.write(owner + "\n")
    os.replace(partial, os.path.join(path, METRICS_OWNER_FILE))
    return path


def _is_stale(path: Path) -> bool:
    """Whether the supervisor named in the directory's owner file is gone. A directory without a readable owner
    file is never stale: its owner may be writing the file this instant, or be a supervisor of an older version
    (which wrote none) still running; nothing proves it dead."""
    try:
        owner = (path / METRICS_OWNER_FILE).read_text(encoding="ascii").split()
    except (OSError, UnicodeDecodeError):
        return False
    if not owner or not owner[0].isdigit():
        return False
    return process_identity(int(owner[0])) != " ".join(owner)


def remove_stale_metrics_dirs(base: str | None = None) -> list[str]:
    """Remove the metrics directories under ``base`` (default: the temporary directory) whose supervisor is no
    longer running (killed before it could remove its own); only this user's, never a live supervisor's.
    Returns the directories removed."""
    root = Path(base if base is not None else tempfile.gettempdir())
    removed: list[str] = []
    uid = os.getuid() if hasattr(os, "getuid") else None
    for path in sorted(root.glob(METRICS_DIR_PREFIX + "*")):
        try:
            info = path.lstat()
        except OSError:
            continue
        if not path.is_dir() or path.is_symlink() or (uid is not None and info.st_uid != uid):
            continue
        if _is_stale(path):
            shutil.rmtree(path, ignore_errors=True)
            if not path.exists():
                removed.append(str(path))
    return removed


# --- The supervisor --------------------------------------------------------------------------------------------


class Supervisor:
    """Starts, watches and stops the workers; serves the host's one metrics endpoint."""

    def __init__(self, config: ServeConfig, workers: int) -> None:
        self.config = config
        self.count = workers
        self.context = multiprocessing.get_context("spawn")
        self.workers: dict[int, BaseProcess] = {}
        self.stopping = False
        self.log = structlog.get_logger("truco.server.supervisor")
        stale = remove_stale_metrics_dirs()
        if stale:
            self.log.info("removed the metrics directories of supervisors no longer running", directories=stale)
        self.metrics_dir = make_metrics_dir()
        self.metrics_port: int | None = None
        self._metrics_http: Any = None
        self.received: list[int] = []
        """Signals received (SIGTERM, SIGINT): the supervisor stops once it sees one."""

    def _on_signal(self, number: int, _frame: object) -> None:
        self.received.append(number)

    def _start_worker(self, index: int, config: ServeConfig) -> tuple[int, int | None, int | None]:
        """Start worker ``index``; return the gRPC, web and health ports it listens on once it serves."""
        receive, send = self.context.Pipe(duplex=False)
        process = self.context.Process(
            target=_worker_main, args=(config, index, send), name=f"truco-worker-{index}", daemon=False
        )
        process.start()
        send.close()
        self.workers[index] = process
        try:
            if not receive.poll(READY_TIMEOUT_SECONDS):
                raise WorkersError(f"worker {index} did not start within {READY_TIMEOUT_SECONDS:g} s")
            ports: tuple[int, int | None, int | None] = receive.recv()
        except EOFError:
            process.join(5)
            raise WorkersError(f"worker {index} exited before serving (status {process.exitcode})") from None
        finally:
            receive.close()
        return ports

    def start(self) -> int:
        """Start every worker and the metrics endpoint; return the gRPC port they share."""
        # From now on SIGTERM and SIGINT are noted, not fatal: one arriving while the workers start (or right
        # after the port line is printed) still stops them all gracefully in supervise().
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._on_signal)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = self.metrics_dir
        port, web_port, health_port = self._start_worker(0, self._worker_config())
        # The first worker picked any port left at 0; the others join it on the same ports.
        self.config = replace(self.config, port=port, web_port=web_port, health_port=health_port)
        for index in range(1, self.count):
            self._start_worker(index, self._worker_config())
        if self.config.metrics_port is not None:
            self._start_metrics(self.config.metrics_port)
        return port

    def _start_metrics(self, port: int) -> None:
        from prometheus_client import CollectorRegistry, start_http_server
        from prometheus_client.multiprocess import MultiProcessCollector

        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=self.metrics_dir)  # type: ignore[no-untyped-call]
        host = self.config.host.strip("[]") or "::"
        try:
            self._metrics_http, _ = start_http_server(port, addr=host, registry=registry)
        except OSError:  # no IPv6 on this host: all IPv4 addresses instead of all addresses
            if host != "::":
                raise
            self._metrics_http, _ = start_http_server(port, addr="0.0.0.0", registry=registry)
        self.metrics_port = self._metrics_http.server_port

    def _worker_config(self) -> ServeConfig:
        return replace(self.config, metrics_port=None, shared_ports=True)

    def supervise(self) -> None:
        """Until SIGTERM or SIGINT: start again any worker that dies. Then stop them all."""
        received = self.received
        while not received:
            sentinels = {process.sentinel: index for index, process in self.workers.items()}
            ready = multiprocessing.connection.wait(list(sentinels), timeout=0.5)
            for sentinel in ready:
                if received:
                    break
                index = sentinels[cast(int, sentinel)]
                dead = self.workers[index]
                dead.join()
                self._forget(dead)
                self.log.error("worker died; starting it again", worker=index, exit_code=dead.exitcode)
                time.sleep(RESTART_DELAY_SECONDS)
                if received:
                    break
                try:
                    self._start_worker(index, self._worker_config())
                except WorkersError as error:
                    self.log.error("worker restart failed", worker=index, error=str(error))
        self.log.info("shutdown", workers=len(self.workers), grace_seconds=self.config.grace_seconds)
        self.stop()

    def _forget(self, process: BaseProcess) -> None:
        if process.pid is not None:
            from prometheus_client import multiprocess

            multiprocess.mark_process_dead(process.pid, self.metrics_dir)  # type: ignore[no-untyped-call]

    def stop(self) -> None:
        """SIGTERM every worker, wait for their graceful shutdown, SIGKILL any that outlives it."""
        for process in self.workers.values():
            if process.is_alive() and process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + self.config.grace_seconds + KILL_MARGIN_SECONDS
        for process in self.workers.values():
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                self.log.error("worker outlived the grace period; killing it", pid=process.pid)
                process.kill()
                process.join(5)
        if self._metrics_http is not None:
            self._metrics_http.shutdown()
            self._metrics_http.server_close()
        shutil.rmtree(self.metrics_dir, ignore_errors=True)


def serve_workers(config: ServeConfig, workers: int) -> int:
    """``truco serve --workers N`` with N > 1: start the workers, print the port line, supervise until a signal."""
    from truco.server.runtime.app import configure_logging, token_issuer

    configure_logging(config.log_format)
    token_issuer(config)  # a configuration every worker would refuse fails here, in one line (ConfigError)
    supervisor = Supervisor(config, workers)
    try:
        port = supervisor.start()
    except BaseException:
        supervisor.stop()
        raise
    metrics = f", metrics on http://localhost:{supervisor.metrics_port}/metrics" if supervisor.metrics_port else ""
    web_port = supervisor.config.web_port
    web = f", web table and Connect/gRPC-Web on http://localhost:{web_port}/" if web_port is not None else ""
    health_port = supervisor.config.health_port
    health = f", health checks on port {health_port}" if health_port is not None else ""
    # The first line on standard output names the port, as with one worker, so scripts can start it on port 0.
    print(
        f"truco serve: listening on port {port} (store {redact(config.store)}, {workers} workers)"
        f"{metrics}{web}{health}",
        flush=True,
    )
    supervisor.supervise()
    return 0
