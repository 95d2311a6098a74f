"""``truco serve --workers N``: N processes on one port, one metrics endpoint, all stopped by one SIGTERM, a dead
worker started again, and SQLite refused with more than one worker."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from truco.server.runtime.workers import (
    METRICS_DIR_PREFIX,
    METRICS_OWNER_FILE,
    WorkersError,
    available_cores,
    make_metrics_dir,
    process_identity,
    remove_stale_metrics_dirs,
    resolve_workers,
)

from ..servers import TOKEN_KEY, TRUCO, Stores

LISTENING = re.compile(
    r"^truco serve: listening on port (\d+) .*(\d+) workers\), metrics on (http://\S+/metrics), "
    r"web table and Connect/gRPC-Web on (http://\S+/)(?:, health checks on port \d+)?$"
)


def test_sqlite_refuses_more_than_one_worker(tmp_path: Path) -> None:
    run = subprocess.run(
        [str(TRUCO), "serve", "--store", f"sqlite:///{tmp_path}/t.db", "--port", "0", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2
    assert "--workers 2 needs a PostgreSQL store" in run.stderr
    assert run.stdout == ""


def test_workers_without_a_shared_token_key_are_refused_in_one_line() -> None:
    env = {k: v for k, v in os.environ.items() if k != "TRUCO_TOKEN_KEY"}
    run = subprocess.run(
        [str(TRUCO), "serve", "--store", "postgresql://127.0.0.1:1/none", "--port", "0", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert run.returncode == 2
    assert "TRUCO_TOKEN_KEY is not set" in run.stderr
    assert "Traceback" not in run.stderr


def test_the_default_is_one_worker_per_core_on_postgresql_and_one_on_sqlite() -> None:
    assert resolve_workers("sqlite:///truco.db", None) == 1
    assert resolve_workers("postgresql://h/db", None) == available_cores() >= 1
    assert resolve_workers("postgresql://h/db", 3) == 3
    assert resolve_workers("sqlite:///truco.db", 1) == 1
    with pytest.raises(WorkersError):
        resolve_workers("sqlite:///truco.db", 2)


class Supervised:
    """``truco serve --workers 2`` on PostgreSQL, as a child process."""

    def __init__(self, store: str, workdir: Path, tmpdir: Path | None = None, name: str = "serve") -> None:
        self.stderr = workdir / f"{name}.stderr"
        env = {**os.environ, "TRUCO_TOKEN_KEY": TOKEN_KEY}
        if tmpdir is not None:  # where the supervisor keeps its metrics directory (tempfile reads TMPDIR)
            env["TMPDIR"] = str(tmpdir)
        with self.stderr.open("wb") as err:
            self.process = subprocess.Popen(
                [str(TRUCO), "serve", "--store", store, "--host", "127.0.0.1", "--port", "0", "--metrics-port", "0",
                 "--workers", "2", "--grace", "5", "--web-port", "0"],
                stdout=subprocess.PIPE, stderr=err, text=True, env=env,
            )  # fmt: skip
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        match = LISTENING.match(line)
        assert match, f"{line!r}\n{self.stderr.read_text()}"
        self.address = f"127.0.0.1:{match.group(1)}"
        self.metrics_url = match.group(3)
        self.web_url = match.group(4)

    def workers(self) -> list[int]:
        """The worker processes (the supervisor's children but multiprocessing's resource tracker)."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
        return [int(pid) for pid in children if "resource_tracker" not in _cmdline(int(pid))]

    def metrics(self) -> str:
        with urllib.request.urlopen(self.metrics_url, timeout=10) as response:
            text: str = response.read().decode()
            return text

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(30)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except OSError:
        return ""


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _check(address: str) -> int:
    with grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service="truco.v1.GameService"), timeout=10)
        return int(reply.status)


@pytest.fixture
def supervised(postgres_url: str, tmp_path: Path) -> Iterator[Supervised]:
    stores = Stores("postgres", tmp_path, postgres_url)
    server = Supervised(stores.new_url(), tmp_path)
    try:
        yield server
    finally:
        server.stop()
        stores.drop_all()


def _value(metrics: str, name: str, *labels: str) -> float:
    """The sum of the samples of ``name`` that carry every one of ``labels`` (``key="value"``)."""
    total = 0.0
    for line in metrics.splitlines():
        sample, _, value = line.rpartition(" ")
        if sample.split("{")[0] == name and all(label in sample for label in labels):
            total += float(value)
    return total


def test_two_workers_share_the_port_and_one_metrics_endpoint_counts_them_all(supervised: Supervised) -> None:
    workers = supervised.workers()
    assert len(workers) == 2
    before = {pid: _cpu(pid) for pid in workers}
    connections, calls = 24, 20
    for _ in range(connections):  # each on its own connection: the kernel spreads connections over the workers
        with grpc.insecure_channel(supervised.address, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            for _ in range(calls):
                stub.Check(health_pb2.HealthCheckRequest(service="truco.v1.GameService"), timeout=10)
    used = {pid: _cpu(pid) - before[pid] for pid in workers}
    assert all(share > 0.1 * sum(used.values()) for share in used.values()), f"one worker did the work: {used}"
    metrics = supervised.metrics()
    handled = _value(metrics, "grpc_server_handled_total", 'grpc_method="Check"', 'grpc_code="OK"')
    assert handled == connections * calls
    assert _value(metrics, "truco_store_up") == 1.0
    assert len(re.findall(r"^truco_store_up ", metrics, re.MULTILINE)) == 1  # one value for the host


def test_the_workers_share_the_web_port_too(supervised: Supervised) -> None:
    for _ in range(6):  # a new connection each time: whichever worker the kernel picks answers
        try:
            with urllib.request.urlopen(supervised.web_url, timeout=10) as response:
                status = response.status
        except urllib.error.HTTPError as error:  # 404 when the web table is not built in this checkout
            status = error.code
        assert status in (200, 404)


def test_a_dead_worker_is_started_again(supervised: Supervised) -> None:
    first, second = supervised.workers()
    os.kill(first, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while True:
        workers = supervised.workers()
        if len(workers) == 2 and first not in workers:
            break
        assert time.monotonic() < deadline, f"workers now {workers}"
        time.sleep(0.1)
    assert second in workers
    assert all(_check(supervised.address) == health_pb2.HealthCheckResponse.SERVING for _ in range(8))


def test_sigterm_stops_every_worker_gracefully(supervised: Supervised) -> None:
    workers = supervised.workers()
    assert supervised.stop() == 0
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists() and "spawn" in _cmdline(pid)]
    assert supervised.stderr.read_text().count('"event": "shutdown"') == 3  # the supervisor and each worker
    with pytest.raises(OSError):
        urllib.request.urlopen(supervised.metrics_url, timeout=2)


WRITES_PER_RECORD = """
import json, logging, sys
import structlog
from truco.server.runtime.app import configure_logging

class Writes:
    def __init__(self) -> None:
        self.calls: list[str] = []
    def write(self, text: str) -> int:
        self.calls.append(text)
        return len(text)
    def flush(self) -> None:
        pass

sys.stderr = writes = Writes()
configure_logging("json")
structlog.get_logger("truco.server").info("shutdown", grace_seconds=2.0)
logging.getLogger("psycopg.pool").warning("a library's line")
print(json.dumps([call for call in writes.calls if call]))
"""


def test_each_log_line_is_one_write_so_workers_sharing_stderr_cannot_splice_lines() -> None:
    """The workers share the supervisor's standard error: a line written as two writes (text, then newline, as
    print() does) can have another worker's line between them, two records on one line."""
    run = subprocess.run([sys.executable, "-c", WRITES_PER_RECORD], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    writes = json.loads(run.stdout)
    assert len(writes) == 2, writes
    for write in writes:
        assert write.endswith("\n") and write.count("\n") == 1, writes
        json.loads(write)


def _metrics_dirs(base: Path) -> list[Path]:
    return sorted(base.glob(METRICS_DIR_PREFIX + "*"))


def test_a_killed_supervisors_metrics_directory_is_removed_by_the_next_one(postgres_url: str, tmp_path: Path) -> None:
    """SIGKILL leaves the supervisor no chance to remove its Prometheus multiprocess directory; the next
    supervisor to start finds its owner gone and removes it (a live supervisor's directory stays)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    stores = Stores("postgres", tmp_path, postgres_url)
    url = stores.new_url()
    killed = Supervised(url, tmp_path, tmp, name="killed")
    try:
        workers = killed.workers()
        (left,) = _metrics_dirs(tmp)
        assert (left / METRICS_OWNER_FILE).read_text().split()[0] == str(killed.process.pid)
        killed.process.kill()
        killed.process.wait(10)
        deadline = time.monotonic() + 30  # its workers get SIGTERM from the kernel (PR_SET_PDEATHSIG) and stop
        while [pid for pid in workers if Path(f"/proc/{pid}").exists() and "spawn" in _cmdline(pid)]:
            assert time.monotonic() < deadline, "the killed supervisor's workers are still running"
            time.sleep(0.1)
        assert _metrics_dirs(tmp) == [left]  # left behind
        running = Supervised(url, tmp_path, tmp, name="running")
        try:
            (mine,) = _metrics_dirs(tmp)
            assert mine != left and not left.exists()
            assert _value(running.metrics(), "truco_store_up") == 1.0  # its own directory works
            assert "removed the metrics directories of supervisors no longer running" in running.stderr.read_text()
        finally:
            assert running.stop() == 0
        assert _metrics_dirs(tmp) == []  # a supervisor stopped by SIGTERM removes its own
    finally:
        killed.stop()
        stores.drop_all()


def test_only_metrics_directories_whose_owner_is_gone_are_stale(tmp_path: Path) -> None:
    live = Path(make_metrics_dir(str(tmp_path)))  # owned by this test's process, which runs
    assert (live / METRICS_OWNER_FILE).read_text().split() == (process_identity(os.getpid()) or "").split()

    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    identity = process_identity(child.pid)
    assert identity is not None and identity.split()[0] == str(child.pid)
    assert child.stdin is not None
    child.stdin.close()
    child.wait(10)
    assert process_identity(child.pid) is None

    def owned(name: str, owner: str) -> Path:
        path = tmp_path / f"{METRICS_DIR_PREFIX}{name}"
        path.mkdir()
        (path / METRICS_OWNER_FILE).write_text(owner + "\n")
        (path / "counter_1234.db").write_bytes(b"\0" * 64)
        return path

    dead = owned("dead", identity)
    # The same pid as a running process but another start time: a supervisor that was pid 1 in a container
    # restarted since (its /tmp an emptyDir that outlived it), now pid 1 again.
    own_pid, own_start = (process_identity(os.getpid()) or "").split()
    reused = owned("reused", f"{own_pid} {int(own_start) - 100}")
    # Without an owner file nothing proves the owner dead: being made this instant (the owner file comes next),
    # or by an older version of the supervisor, which may still run. Left alone, however old.
    unowned = tmp_path / f"{METRICS_DIR_PREFIX}unowned"
    unowned.mkdir()
    long_ago = time.time() - 86400
    os.utime(unowned, (long_ago, long_ago))
    garbled = owned("garbled", "not a pid")
    other = owned("other", identity)  # dead owner, but another name: not a metrics directory
    other = other.rename(tmp_path / "other-dir")
    a_file = tmp_path / f"{METRICS_DIR_PREFIX}file"
    a_file.write_text("not a directory")

    removed = remove_stale_metrics_dirs(str(tmp_path))
    assert sorted(removed) == sorted(str(path) for path in (dead, reused))
    assert not dead.exists() and not reused.exists()
    assert live.is_dir() and unowned.is_dir() and garbled.is_dir() and other.is_dir() and a_file.is_file()
    assert remove_stale_metrics_dirs(str(tmp_path)) == []
