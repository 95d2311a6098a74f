#!/usr/bin/env python3
"""A load-balanced Truco cluster on loopback: PostgreSQL, N server replicas and nginx in front of them.

    scripts/cluster up [--replicas 3] [--workers N] [--port P] [--balance hash|round-robin] [--shards N]
                       [--bus nats] [--state DIR]                              start it; prints the balancer address
    scripts/cluster status [--state DIR]                                       what runs, by pid
    scripts/cluster down [--state DIR]                                         stop everything it started

``up`` starts, on 127.0.0.1 only:

* a PostgreSQL with fsync **on** (``scripts/postgres-test-cluster.sh``, which installs Debian's ``postgresql``
  with apt-get when it is missing); with ``--shards N``, N of them, one primary per shard, the games sharded over
  them (``truco serve --store "URL1 URL2 ..."``: shards ``s0``, ``s1``...);
* with ``--bus nats``, a nats-server (``scripts/nats-test-server.sh``, which installs Debian's ``nats-server``),
  through which the replicas hear each other's moves (``truco serve --bus``) instead of LISTEN/NOTIFY;
* ``--replicas`` server replicas, each ``truco serve --workers N`` on a free port sharing that PostgreSQL and
  one ``TRUCO_TOKEN_KEY``, with ``--no-limits``: behind nginx every client comes from nginx's address, so
  per-address quotas would pool all of them (in production, quotas go by API key: ``--require-api-key``);
* nginx (Debian's ``nginx-light``, installed with apt-get when missing) on ``--port`` (default: a free one),
  balancing gRPC calls over the replicas (``grpc_pass``) with **game affinity**: a call that carries the
  ``x-truco-game`` metadata (the game's name, ``games/{game}``, which the SDKs send on every call of a game) goes
  to the replica a consistent hash of it picks (``hash $http_x_truco_game consistent``), so every call and watch
  of one game lands on one replica, whose cached state of the game is then always current; a call without it
  (CreateGame, ListGames, the rules service) goes round robin. ``--balance round-robin`` spreads every call round
  robin instead (the cache misses affinity avoids: bench/README.md). HTTP/2 keepalive connections to the
  replicas, and passive failover: a call that cannot reach a replica (refused, reset, no reply) goes to the next
  one (for a hashed game, the next replica on the hash ring, the same for every call of the game), and a replica
  that fails is left out for a while (``max_fails``/``fail_timeout``); when it serves again its games come back
  to it. Nothing of a game lives only on a replica: moving it costs one read of its events from PostgreSQL.

The last line ``up`` prints is the balancer's address (``127.0.0.1:PORT``), for
``truco selfplay --server 127.0.0.1:PORT``. Everything it starts is recorded by pid in ``DIR/state.json``
(default ``.cluster/`` in the repository), with every process's log beside it; ``down`` stops exactly those:
the replicas with SIGTERM (graceful), nginx with SIGQUIT (graceful), PostgreSQL with ``pg_ctl stop``, each
killed if it outlives its grace; then it deletes DIR.

nginx retries a call on another replica also after the call reached one that died (``non_idempotent``): every
write of the protocol carries a request id and applies once, so a retried write is answered with the first
reply instead of applying twice. gRPC errors a server returns itself (UNAVAILABLE while its store is down) are
a normal HTTP/2 reply to nginx and reach the client, whose SDK retries them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG_SCRIPT = ROOT / "scripts" / "postgres-test-cluster.sh"
NATS_SCRIPT = ROOT / "scripts" / "nats-test-server.sh"
DEFAULT_STATE = ROOT / ".cluster"
HOST = "127.0.0.1"
START_TIMEOUT = 120.0
SERVER_GRACE = 10.0
"""The replicas' --grace: how long in-flight calls get after SIGTERM."""
AFFINITY_HEADER = "x-truco-game"
"""The metadata that names a call's game; nginx hashes on it (``$http_x_truco_game``)."""
BALANCES = ("hash", "round-robin")


def log(message: str) -> None:
    print(f"cluster: {message}", file=sys.stderr, flush=True)


class ClusterError(Exception):
    """Something the cluster could not do; reported in one line."""


# --- State -----------------------------------------------------------------------------------------------------


@dataclass
class Replica:
    index: int
    pid: int
    port: int
    metrics_port: int
    workers: int
    log: str

    @property
    def address(self) -> str:
        return f"{HOST}:{self.port}"


@dataclass
class State:
    """What ``up`` started, written to ``DIR/state.json`` as each part comes up (so ``down`` can always stop it)."""

    directory: str
    postgres_dir: str = ""
    postgres_url: str = ""
    """The first shard's PostgreSQL (the only one without ``--shards``)."""
    shard_dirs: list[str] = field(default_factory=list)
    shard_urls: list[str] = field(default_factory=list)
    """The other shards' PostgreSQL (``--shards N``: N - 1 of them), in shard order after the first."""
    nats_dir: str = ""
    nats_url: str = ""
    """The nats-server of ``--bus nats`` ("": none, LISTEN/NOTIFY)."""
    replicas: list[Replica] = field(default_factory=list)
    nginx_pid: int = 0
    nginx_port: int = 0
    workers: int = 1
    balance: str = "hash"
    """How nginx picks a replica: ``hash`` (game affinity on AFFINITY_HEADER) or ``round-robin`` (every call)."""
    serve_args: list[str] = field(default_factory=list)
    """More ``truco serve`` options for every replica (benchmarks: ``--clock 0``)."""
    token_key: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    """TRUCO_TOKEN_KEY of every replica: replicas on one PostgreSQL must issue the same seat tokens."""

    @property
    def path(self) -> Path:
        return Path(self.directory) / "state.json"

    @property
    def store(self) -> str:
        """The replicas' ``--store``: one PostgreSQL, or every shard's URL in shard order."""
        return " ".join([self.postgres_url, *self.shard_urls])

    @property
    def postgres_urls(self) -> list[str]:
        return [self.postgres_url, *self.shard_urls]

    @property
    def balancer(self) -> str:
        return f"{HOST}:{self.nginx_port}"

    def save(self) -> None:
        self.path.write_text(json.dumps(asdict(self), indent=2) + "\n")
        self.path.chmod(0o600)  # it holds the token key

    @classmethod
    def load(cls, directory: Path) -> State:
        data = json.loads((directory / "state.json").read_text())
        replicas = [Replica(**r) for r in data.pop("replicas")]
        return cls(**data, replicas=replicas)


# --- Processes -------------------------------------------------------------------------------------------------


def alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not yet reaped by its parent) is not running.
    with contextlib.suppress(OSError):
        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
            return False
    return True


def wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.05)
    return True


def stop_pid(pid: int, sig: int, grace: float, what: str) -> None:
    """Send ``sig`` to ``pid`` (and its process group, which the cluster gave it), SIGKILL it after ``grace``."""
    if not alive(pid):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)
    if not wait_gone(pid, grace):
        log(f"{what} (pid {pid}) outlived {grace:g} s; killing it")
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        wait_gone(pid, 10)
    # Whatever is left of its process group (workers whose supervisor was killed) goes too.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_port(port: int, timeout: float, pid: int) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            s.settimeout(0.5)
            if s.connect_ex((HOST, port)) == 0:
                return
        if not alive(pid):
            raise ClusterError(f"pid {pid} exited before listening on port {port}")
        time.sleep(0.05)
    raise ClusterError(f"nothing listens on port {port} after {timeout:g} s")


def truco_command() -> str:
    found = Path(sys.executable).with_name("truco")
    if found.exists():
        return str(found)
    venv = ROOT / ".venv" / "bin" / "truco"
    if venv.exists():
        return str(venv)
    raise ClusterError("no truco command: run ./dev serve --help once to create .venv")


# --- PostgreSQL ------------------------------------------------------------------------------------------------


def start_postgres(state: State) -> None:
    state.postgres_dir, state.postgres_url = start_one_postgres()
    state.save()


def start_shards(state: State, shards: int) -> None:
    """The primaries of shards s1, s2... (s0 is :func:`start_postgres`'s)."""
    for _ in range(shards - 1):
        directory, url = start_one_postgres()
        state.shard_dirs.append(directory)
        state.shard_urls.append(url)
        state.save()


def start_one_postgres() -> tuple[str, str]:
    log("starting PostgreSQL (fsync on)")
    run = subprocess.run(
        ["bash", str(PG_SCRIPT)],
        env={**os.environ, "PG_FSYNC": "on"},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    lines = run.stdout.strip().splitlines()
    if run.returncode != 0 or len(lines) < 2:
        raise ClusterError(f"PostgreSQL did not start:\n{run.stderr.strip()}")
    return lines[-2], lines[-1]


def postgres_pid(state: State) -> int:
    """The postmaster's pid (it changes when PostgreSQL restarts)."""
    try:
        return int((Path(state.postgres_dir) / "data" / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def restart_postgres(state: State) -> None:
    """Stop PostgreSQL (fast: sessions cut) and start it again on the same port with the same data."""
    subprocess.run(["bash", str(PG_SCRIPT), "restart", state.postgres_dir], check=True, timeout=120)


def halt_postgres(state: State) -> None:
    """Stop PostgreSQL (fast: sessions cut), keeping its data, until :func:`resume_postgres`."""
    subprocess.run(["bash", str(PG_SCRIPT), "halt", state.postgres_dir], check=True, timeout=120)


def resume_postgres(state: State) -> None:
    subprocess.run(["bash", str(PG_SCRIPT), "resume", state.postgres_dir], check=True, timeout=120)


def stop_postgres(state: State) -> None:
    for directory in (state.postgres_dir, *state.shard_dirs):
        if directory and Path(directory).exists():
            subprocess.run(["bash", str(PG_SCRIPT), "stop", directory], check=False, timeout=120)


def shard_script(state: State, shard: int, action: str) -> None:
    """``halt`` or ``resume`` the primary of shard ``shard`` (0: the first)."""
    directory = (state.postgres_dir, *state.shard_dirs)[shard]
    subprocess.run(["bash", str(PG_SCRIPT), action, directory], check=True, timeout=120)


def shard_pid(state: State, shard: int) -> int:
    """The postmaster pid of shard ``shard``'s primary (0 when it is not running)."""
    directory = (state.postgres_dir, *state.shard_dirs)[shard]
    try:
        return int((Path(directory) / "data" / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


# --- NATS ------------------------------------------------------------------------------------------------------


def start_nats(state: State) -> None:
    log("starting nats-server")
    run = subprocess.run(["bash", str(NATS_SCRIPT)], capture_output=True, text=True, timeout=900, check=False)
    lines = run.stdout.strip().splitlines()
    if run.returncode != 0 or len(lines) < 2:
        raise ClusterError(f"nats-server did not start:\n{run.stderr.strip()}")
    state.nats_dir, state.nats_url = lines[-2], lines[-1]
    state.save()


def nats_script(state: State, action: str) -> None:
    """``kill`` (SIGKILL) or ``resume`` the nats-server."""
    subprocess.run(["bash", str(NATS_SCRIPT), action, state.nats_dir], check=True, timeout=120)


def stop_nats(state: State) -> None:
    if state.nats_dir and Path(state.nats_dir).exists():
        subprocess.run(["bash", str(NATS_SCRIPT), "stop", state.nats_dir], check=False, timeout=120)


# --- Replicas --------------------------------------------------------------------------------------------------


def start_replica(state: State, index: int, port: int = 0, store: str = "") -> Replica:
    """Start replica ``index`` (``truco serve --workers N``) in a process group of its own; wait until it serves.
    ``port`` 0 picks a free one; a replica started again after a crash takes its old port back. ``store``: the
    cluster's PostgreSQL unless given (benchmarks run one replica on SQLite too)."""
    directory = Path(state.directory)
    out_path = directory / f"replica-{index}.out"
    log_path = directory / f"replica-{index}.log"
    # --health-port 0: the replicas share one host, and gRPC binds with SO_REUSEPORT, so on the default (50052)
    # every replica, and any other server of this host, would answer one shared port's checks at random.
    command = [
        truco_command(), "serve", "--store", store or state.store, "--host", HOST, "--port", str(port),
        "--metrics-port", "0", "--health-port", "0", "--workers", str(state.workers), "--grace", str(SERVER_GRACE),
        "--log-format", "json", "--no-limits", *state.serve_args,
        *(["--bus", state.nats_url] if state.nats_url and not store else []),
    ]  # fmt: skip
    env = {**os.environ, "TRUCO_TOKEN_KEY": state.token_key}
    with out_path.open("w") as out, log_path.open("a") as err:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True, cwd=directory, env=env
        )
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        text = out_path.read_text()
        if text.startswith("truco serve: listening on port ") and "\n" in text:
            break
        if process.poll() is not None or time.monotonic() > deadline:
            stop_pid(process.pid, signal.SIGKILL, 1, f"replica {index}")
            raise ClusterError(f"replica {index} did not start; its log: {log_path}\n{text}")
        time.sleep(0.05)
    line = text.splitlines()[0]
    serving_port = int(line.split("listening on port ")[1].split()[0])
    metrics_port = int(line.rsplit(":", 1)[1].split("/")[0]) if "metrics on" in line else 0
    replica = Replica(index, process.pid, serving_port, metrics_port, state.workers, str(log_path))
    state.replicas = [r for r in state.replicas if r.index != index] + [replica]
    state.replicas.sort(key=lambda r: r.index)
    state.save()
    return replica


def stop_replica(replica: Replica, sig: int = signal.SIGTERM) -> None:
    """SIGTERM: the graceful shutdown (in-flight calls get the grace); SIGKILL: the whole process group at once."""
    if sig == signal.SIGKILL:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(replica.pid, signal.SIGKILL)
        wait_gone(replica.pid, 10)
        return
    stop_pid(replica.pid, sig, SERVER_GRACE + 15, f"replica {replica.index}")


# --- nginx -----------------------------------------------------------------------------------------------------


def find_nginx() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None)


def install_nginx() -> str:
    """Debian's nginx-light (HTTP/2 and the gRPC proxy are in every Debian nginx), like the PostgreSQL script."""
    if os.geteuid() != 0:
        raise ClusterError("nginx not found and not root: install it (Debian: apt-get install nginx-light)")
    if shutil.which("apt-get") is None:
        raise ClusterError("nginx not found and no apt-get to install it with")
    log("nginx not found: running apt-get update && apt-get install -y nginx-light")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update"], check=True, env=env, stdout=sys.stderr, timeout=600)
    for package in ("nginx-light", "nginx"):
        installed = subprocess.run(
            ["apt-get", "install", "-y", "-o", "DPkg::Lock::Timeout=300", package],
            check=False,
            env=env,
            stdout=sys.stderr,
            timeout=900,
        )
        if installed.returncode == 0 and find_nginx():
            break
    # Debian's package may start its own nginx on port 80 where services can start; this cluster never uses it.
    nginx = find_nginx()
    if nginx is None:
        raise ClusterError("nginx still not found after apt-get install")
    return nginx


BALANCING = {
    # ketama consistent hashing: a replica that leaves (or comes back) moves only its own share of the games.
    # A call without the header has an empty key, which nginx sends round robin (the tests check it).
    "hash": "        # Game affinity: every call naming a game (x-truco-game) on the replica its hash picks; the rest\n"
    "        # (CreateGame, ListGames, the rules service) round robin.\n"
    "        hash $http_x_truco_game consistent;",
    "round-robin": "        # Round robin (nginx's default) over the replicas, per call.",
}


def nginx_config(state: State, prefix: Path) -> str:
    user = "user nobody nogroup;\n" if os.geteuid() == 0 else ""
    return f"""# Written by scripts/cluster up; nginx -p {prefix} -c {prefix / "nginx.conf"}
{user}worker_processes 1;
# A seat's connection and its stream's upstream connection take one each: 4,096 stopped new streams at 2,047
# (about 1,000 two-player matches) in bench/capacity_bench.py's ramp.
worker_rlimit_nofile 65536;
daemon off;
pid {prefix / "nginx.pid"};
error_log {prefix / "error.log"} warn;
events {{
    worker_connections 32768;
}}
http {{
    log_format grpc '$time_iso8601 $remote_addr "$request" $status grpc-status=$sent_trailer_grpc_status '
                    'upstream=$upstream_addr upstream_status=$upstream_status time=$request_time '
                    'game=$http_x_truco_game';
    access_log {prefix / "access.log"} grpc buffer=64k flush=1s;
    client_body_temp_path {prefix / "tmp" / "body"};
    proxy_temp_path {prefix / "tmp" / "proxy"};
    fastcgi_temp_path {prefix / "tmp" / "fastcgi"};
    uwsgi_temp_path {prefix / "tmp" / "uwsgi"};
    scgi_temp_path {prefix / "tmp" / "scgi"};

{_nginx_upstream(state)}
{_nginx_grpc_server(state)}}}
"""


def _nginx_upstream(state: State) -> str:
    """The replicas nginx balances over, and how."""
    servers = "\n".join(
        # max_fails=1 fail_timeout=5s: one failed connection or call leaves the replica out for 5 s, then it
        # is tried again with live traffic (passive health checking: open-source nginx has no active checks).
        f"        server {r.address} max_fails=1 fail_timeout=5s;"
        for r in state.replicas
    )
    return f"""    upstream truco {{
{BALANCING[state.balance]}
{servers}
        # HTTP/2 connections to the replicas stay open between calls (each carries one call at a time).
        keepalive 64;
        keepalive_requests 100000;
        keepalive_timeout 120s;
    }}
"""


def _nginx_grpc_server(state: State) -> str:
    """The port clients call: gRPC passed to the replicas, with failover."""
    return f"""    server {{
        listen {HOST}:{state.nginx_port} http2;
        http2_max_concurrent_streams 1000;
        # Clients' connections stay open as long as they like (gRPC keepalive pings keep them busy).
        keepalive_timeout 1h;
        http2_idle_timeout 1h;
        client_max_body_size 1m;

        location / {{
            grpc_pass grpc://truco;
            grpc_socket_keepalive on;
            grpc_connect_timeout 2s;
            # WatchGame and PlayGame streams stay open while a match lasts: no read or send timeout cuts them.
            grpc_read_timeout 1h;
            grpc_send_timeout 1h;
            # Passive failover: a call that could not be sent, or got no reply because the replica died or
            # refused the stream (shutting down), goes to the next replica. non_idempotent: every write of
            # the protocol carries a request id and applies once, so resending it is safe. A call already
            # written to a kept-alive connection that the death then reset cannot be resent (gRPC bodies are
            # streamed, not buffered): its client gets UNAVAILABLE and sends it again, as the SDKs do.
            grpc_next_upstream error timeout non_idempotent;
            grpc_next_upstream_tries 3;
            grpc_next_upstream_timeout 10s;
        }}
    }}
"""


def start_nginx(state: State) -> None:
    nginx = find_nginx() or install_nginx()
    prefix = Path(state.directory) / "nginx"
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (prefix / "tmp" / sub).mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(prefix / "tmp" / sub, user="nobody")
    state.nginx_port = state.nginx_port or free_port()
    config = prefix / "nginx.conf"
    config.write_text(nginx_config(state, prefix))
    checked = subprocess.run([nginx, "-t", "-p", str(prefix), "-c", str(config)], capture_output=True, text=True)
    if checked.returncode != 0:
        raise ClusterError(f"nginx rejects {config}:\n{checked.stderr}")
    with (prefix / "stderr.log").open("w") as err:
        process = subprocess.Popen(
            [nginx, "-p", str(prefix), "-c", str(config)],
            stdin=subprocess.DEVNULL,
            stdout=err,
            stderr=err,
            start_new_session=True,
        )
    state.nginx_pid = process.pid
    state.save()
    wait_for_port(state.nginx_port, 30, process.pid)


def reload_nginx(state: State) -> None:
    """Rewrite the upstream list (replicas started again take new ports) and reload nginx gracefully."""
    prefix = Path(state.directory) / "nginx"
    (prefix / "nginx.conf").write_text(nginx_config(state, prefix))
    os.kill(state.nginx_pid, signal.SIGHUP)


# --- Health through the balancer -------------------------------------------------------------------------------


def wait_serving(address: str, timeout: float = 60.0, service: str = "truco.v1.GameService") -> None:
    """Until a health Check through ``address`` answers SERVING."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = time.monotonic() + timeout
    last = "no answer"
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=2)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
                last = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
            except grpc.RpcError as error:
                last = str(error.code())  # type: ignore[attr-defined]
            time.sleep(0.1)
    raise ClusterError(f"{address} is not SERVING after {timeout:g} s (last: {last})")


# --- Commands --------------------------------------------------------------------------------------------------


def up(
    directory: Path,
    replicas: int,
    workers: int,
    port: int = 0,
    balance: str = "hash",
    shards: int = 1,
    bus: str = "",
    serve_args: Sequence[str] = (),
) -> State:
    """Start the cluster; ``serve_args`` go to every replica's ``truco serve`` after the cluster's own (a later
    ``--store`` wins: benchmarks run a replica on SQLite behind the same nginx)."""
    if (directory / "state.json").exists():
        previous = State.load(directory)
        if any(alive(r.pid) for r in previous.replicas) or alive(previous.nginx_pid):
            raise ClusterError(f"a cluster already runs from {directory}: scripts/cluster down first")
        down(directory)
    directory.mkdir(parents=True, exist_ok=True)
    state = State(
        directory=str(directory), workers=workers, nginx_port=port, balance=balance, serve_args=list(serve_args)
    )
    state.save()
    try:
        start_postgres(state)
        start_shards(state, shards)
        if bus == "nats":
            start_nats(state)
        for index in range(replicas):
            replica = start_replica(state, index)
            log(f"replica {index}: {replica.address} ({workers} workers, pid {replica.pid})")
        start_nginx(state)
        wait_serving(state.balancer)
    except BaseException:
        log("start failed; stopping what was started")
        down(directory, keep=True)
        raise
    return state


def down(directory: Path, *, keep: bool = False) -> None:
    if not (directory / "state.json").exists():
        log(f"nothing to stop in {directory}")
        return
    state = State.load(directory)
    for replica in state.replicas:
        stop_replica(replica)
    stop_pid(state.nginx_pid, signal.SIGQUIT, 15, "nginx")
    stop_postgres(state)
    stop_nats(state)
    leftovers = [r.pid for r in state.replicas if alive(r.pid)] + [p for p in (state.nginx_pid,) if alive(p)]
    if leftovers:
        raise ClusterError(f"still running after down: pids {leftovers}")
    if keep:
        (directory / "state.json").unlink()
    else:
        shutil.rmtree(directory, ignore_errors=True)
    log("down: everything stopped")


def status(directory: Path) -> int:
    if not (directory / "state.json").exists():
        print(f"no cluster in {directory}")
        return 1
    state = State.load(directory)
    running = 0
    for replica in state.replicas:
        up_now = alive(replica.pid)
        running += up_now
        print(f"replica {replica.index}  pid {replica.pid}  {replica.address}  {'up' if up_now else 'DOWN'}")
    print(f"nginx      pid {state.nginx_pid}  {state.balancer}  {'up' if alive(state.nginx_pid) else 'DOWN'}")
    for shard, url in enumerate(state.postgres_urls):
        print(f"postgresql pid {shard_pid(state, shard)}  {url}  (shard s{shard})")
    if state.nats_url:
        print(f"nats-server {state.nats_url}")
    return 0 if running == len(state.replicas) and alive(state.nginx_pid) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/cluster", description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("command", choices=("up", "down", "status"))
    parser.add_argument("--replicas", type=int, default=3, help="server replicas (default 3)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes per replica (default 1)")
    parser.add_argument("--port", type=int, default=0, help="the balancer's port (default: a free one)")
    parser.add_argument(
        "--balance",
        choices=BALANCES,
        default="hash",
        help="hash: game affinity on the x-truco-game metadata, the rest round robin (default); "
        "round-robin: every call",
    )
    parser.add_argument(
        "--shards", type=int, default=1, help="PostgreSQL primaries, the games sharded over them (default 1)"
    )
    parser.add_argument(
        "--bus", choices=("nats",), default="", help="nats: replicas hear moves through a nats-server (default: LISTEN)"
    )
    parser.add_argument("--state", type=Path, default=DEFAULT_STATE, help=f"state directory (default {DEFAULT_STATE})")
    args = parser.parse_args(argv)
    directory = args.state.resolve()
    try:
        if args.command == "up":
            if args.replicas < 1 or args.workers < 1 or args.shards < 1:
                raise ClusterError("--replicas, --workers and --shards must be at least 1")
            state = up(directory, args.replicas, args.workers, args.port, args.balance, args.shards, args.bus)
            log(f"PostgreSQL {state.store} (fsync on)" + (f"; NATS {state.nats_url}" if state.nats_url else ""))
            log(f"nginx balancing {len(state.replicas)} replicas ({state.balance}); stop: scripts/cluster down")
            print(state.balancer, flush=True)
            return 0
        if args.command == "down":
            down(directory)
            return 0
        return status(directory)
    except ClusterError as error:
        log(str(error))
        return 1


if __name__ == "__main__":
    sys.exit(main())
