#!/usr/bin/env python3
"""Human-paced capacity benchmark: how many concurrent matches a server core holds at real play's pace.

The load is ``bench/loadgen`` (Go, built here): K concurrent matches, every seat a client with its own gRPC
connection, waiting a think time per decision (5 s by default, jittered ±50 %), sending ``x-truco-game`` on every
call of a game. A seat's shape (``--shapes``): ``commit``, SubmitCommand and a per-commit WatchGame stream;
``session``, one PlayGame stream for both; ``event``, SubmitCommand and the released per-event WatchGame. The
load generator is pinned to one core (``--client-cpus``), the server side (servers, PostgreSQL, nginx) to the
other (``--server-cpus``), with ``taskset``'s system call. Servers run with ``--no-limits --clock 0``. Scenarios:

* ``ramp``: for each store, table size and shape (``commit`` and ``session`` by default), K rises step by step
  (``--steps``) until the p99 of SubmitCommand (a session's: command to outcome) or of watch delivery passes
  ``--limit-ms``, then bisects twice: the knee K. SQLite is one process;
  PostgreSQL (fsync on, ``scripts/postgres-test-cluster.sh`` with ``PG_FSYNC=on``) runs ``--workers 2``.
* ``realplay``: SQLite at a fixed moderate K for 2 and 4 players, in each shape (``commit``, ``session`` and
  ``event`` by default), alternating twice, and empty unary calls (health Check) before and after: server
  CPU per move, also in empty calls.
* ``affinity``: PostgreSQL (fsync on) at a fixed K: one replica direct, then three replicas behind nginx
  balancing round robin, then on the ``x-truco-game`` hash (``scripts/cluster.py``): server CPU per move of all
  replicas together, PostgreSQL's and nginx's.
* ``stores``: issue 37's comparison: one process on SQLite, then one on PostgreSQL (fsync on), each behind nginx
  on the ``x-truco-game`` hash, alternating ``--rounds`` times, both shapes (``commit`` and ``session``) at a fixed
  K: server CPU per move of each, and PostgreSQL's over SQLite's per round and shape.
* ``selfplay``: issue 20's own measure, at full speed rather than human pace: ``truco selfplay`` (every seat a
  Python client with its own connection and per-commit watch, playing with its bot at once, 24 games at a time)
  on SQLite, for 2 and 4 players, ``--rounds`` times; server CPU per applied move, with empty unary calls
  measured on the same server first.

Per step, from /proc and the servers' /metrics: server CPU per applied move (truco_commands_applied_total; split
by thread: the event loop, gRPC's C core, the others), its resident memory per match, SubmitCommand and delivery
p50/p99, open streams, the load generator's own CPU.
Writes ``bench/results/capacity-<scenario>.json``; progress on stderr. ``--quick`` for a short smoke run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cluster_bench import cluster, cpu_used, moves_applied_at, tree, tree_cpu

ROOT = Path(__file__).resolve().parent.parent
LOADGEN_SOURCE = ROOT / "bench" / "loadgen"
LOADGEN = ROOT / ".tools" / "loadgen" / "loadgen"
SERVE_ARGS = ["--clock", "0"]
"""Clocks off (a load test has no takeover bots to time); ``--no-limits`` comes with every replica."""
SCENARIOS = ("ramp", "realplay", "affinity", "stores", "selfplay", "collector")


def log(line: str) -> None:
    print(f"capacity: {line}", file=sys.stderr, flush=True)


def build_loadgen() -> Path:
    """``go build`` the load generator (Go's build cache makes a second build instant)."""
    if shutil.which("go") is None:
        raise SystemExit("capacity: needs Go (go.dev/dl) to build bench/loadgen")
    LOADGEN.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["go", "build", "-o", str(LOADGEN), "."], cwd=LOADGEN_SOURCE, check=True)
    return LOADGEN


def fsync_latency(directory: str, writes: int = 200) -> dict[str, float]:
    """How long the disk under the stores takes to make a 4 KiB write durable (ms): a move's reply waits for at
    least one such fsync (SQLite's commit, PostgreSQL's WAL flush), so its p99 bounds the moves' p99 from below."""
    path = Path(directory) / "fsync-probe"
    latencies = []
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for _ in range(writes):
            os.write(descriptor, b"x" * 4096)
            started = time.perf_counter()
            os.fsync(descriptor)
            latencies.append((time.perf_counter() - started) * 1000)
    finally:
        os.close(descriptor)
        path.unlink()
    latencies.sort()
    return {q: round(latencies[min(len(latencies) - 1, int(f * len(latencies)))], 2) for q, f in FSYNC_QUANTILES}


FSYNC_QUANTILES = (("p50_ms", 0.5), ("p90_ms", 0.9), ("p99_ms", 0.99))


def pin(roots: Sequence[int], cpus: set[int]) -> None:
    """Every thread of ``roots`` and their descendants on ``cpus`` (children forked later inherit it)."""
    for root in roots:
        for pid in tree(root):
            for task in Path(f"/proc/{pid}/task").glob("*"):
                try:
                    os.sched_setaffinity(int(task.name), cpus)
                except (OSError, ValueError):
                    continue


def cpus(text: str) -> set[int]:
    return {int(c) for c in text.split(",")}


# --- What runs on the server side ----------------------------------------------------------------------------------


@dataclass
class Target:
    """Where the load goes and what to measure there."""

    address: str
    metrics: list[str]
    groups: dict[str, list[int]]  # loadgen -group NAME=PIDS: "server" is the one per move
    logs: list[str]  # the servers' log files (JSON lines)


@contextmanager
def postgres(store: str) -> Iterator[Any]:
    """A scratch directory for a cluster's state, and PostgreSQL (fsync on) in it if ``store`` is ``postgres``."""
    with tempfile.TemporaryDirectory(prefix="truco-capacity-") as directory:
        state = cluster.State(directory=directory)
        try:
            if store == "postgres":
                cluster.start_postgres(state)
            yield state
        finally:
            cluster.stop_postgres(state)


@contextmanager
def server_side(
    args: argparse.Namespace,
    store: str,
    *,
    replicas: int = 1,
    workers: int = 1,
    balance: str = "",
    database: Any = None,
) -> Iterator[Target]:
    """``replicas`` servers (each ``--workers``) on ``store`` (``sqlite`` or ``postgres``: ``database``'s, or one of
    their own), behind nginx balancing by ``balance`` if given, all pinned to the server cores."""
    with contextlib.ExitStack() as stack:
        base = database or stack.enter_context(postgres(store))
        state = cluster.State(
            directory=tempfile.mkdtemp(prefix="servers-", dir=base.directory),
            postgres_dir=base.postgres_dir,
            postgres_url=base.postgres_url,
            workers=workers,
            serve_args=[*SERVE_ARGS, *args.serve_args],
        )
        url = state.postgres_url if store == "postgres" else f"sqlite:///{state.directory}/capacity.db"
        started: list[Any] = []
        try:
            started = [cluster.start_replica(state, index, store=url) for index in range(replicas)]
            groups = {"server": [r.pid for r in started]}
            if store == "postgres":
                groups["db"] = [cluster.postgres_pid(state)]
            address = started[0].address
            if balance:
                state.balance = balance
                cluster.start_nginx(state)
                address = state.balancer
                groups["proxy"] = [state.nginx_pid]
            pin([pid for name, pids in groups.items() if name != "db" for pid in pids], cpus(args.server_cpus))
            if "db" in groups:  # the database on cores of its own (--db-cpus), else beside the servers
                pin(groups["db"], cpus(args.db_cpus or args.server_cpus))
            # No gRPC in this process (the load generator waits until the address serves): a process that has
            # used gRPC can hang forking the next load generator in gRPC's fork handlers.
            metrics = [f"http://127.0.0.1:{r.metrics_port}/metrics" for r in started]
            yield Target(address, metrics, groups, [r.log for r in started])
        finally:
            for replica in started:
                cluster.stop_replica(replica)
            if state.nginx_pid:
                cluster.stop_pid(state.nginx_pid, signal.SIGQUIT, 15, "nginx")


def run_loadgen(
    args: argparse.Namespace, target: Target, label: str, options: Sequence[str], *, fixed: bool = False
) -> dict[str, Any]:
    """One load generator run, pinned to the client cores; its report. ``fixed``: one K, measured longer. Its
    progress passes through to stderr; with ``--profile``, the first measured window is also profiled."""
    measure = args.fixed_measure if fixed else args.measure
    with tempfile.NamedTemporaryFile(prefix="loadgen-", suffix=".json") as out:
        command = [
            str(LOADGEN), "-server", target.address, "-metrics", ",".join(target.metrics), "-label", label,
            "-think", f"{args.think}s", "-warmup", f"{args.warmup}s", "-measure", f"{measure}s",
            "-limit", f"{args.limit_ms}ms", "-idle", f"{args.idle}s",
            "-spawn-rate", str(args.spawn_rate), "-out", out.name, *options,
        ]  # fmt: skip
        for name, pids in target.groups.items():
            command += ["-group", f"{name}={','.join(map(str, pids))}"]
        process = subprocess.Popen(["taskset", "-c", args.client_cpus, *command], stderr=subprocess.PIPE, text=True)
        profiler: Profiler | None = None
        try:
            assert process.stderr is not None
            for line in process.stderr:
                sys.stderr.write(line)
                if args.profile and profiler is None and ": measuring for " in line:
                    profiler = Profiler(target.groups["server"], min(args.profile, measure), args.out_dir, label)
            status = process.wait()
        finally:
            if process.poll() is None:  # interrupted: the load generator goes too
                process.kill()
                process.wait()
        report: dict[str, Any] = json.loads(Path(out.name).read_text() or "{}")
    if status != 0:
        log(f"{label}: the load generator failed ({status}): {report.get('error', 'no report')}")
    if profiler is not None:
        report["profile"] = profiler.result()
    report["load_average_after"] = os.getloadavg()
    return report


class Profiler:
    """Two profilers on every server process of a run, for ``seconds``: py-spy (sampling the Python stacks of
    threads that are running, not waiting) for which Python functions cost what, and, where ``perf`` exists, perf
    (sampling the CPU clock) for the share of each binary: the interpreter, gRPC's C core, SQLite, psycopg's
    libpq, the kernel. Both are summarised in the report; py-spy's stacks are kept beside it."""

    def __init__(self, roots: Sequence[int], seconds: float, out_dir: Path, label: str) -> None:
        spy = Path(sys.executable).with_name("py-spy")
        if not spy.exists():
            raise SystemExit("capacity: --profile needs py-spy in .venv (pip install py-spy; ./dev bench does)")
        self.raw = out_dir / "profiles" / f"{label}.collapsed.txt"
        self.raw.parent.mkdir(parents=True, exist_ok=True)
        self.files = [self.raw.with_suffix(f".{pid}.txt") for pid in roots]
        duration = str(int(seconds))
        spying = [str(spy), "record", "--nonblocking", "--subprocesses", "-r", "100", "-d", duration, "-f", "raw"]
        self.processes = [
            subprocess.Popen(
                [*spying, "-o", str(path), "-p", str(pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            for pid, path in zip(roots, self.files, strict=True)
        ]
        self.perf_data = self.raw.with_suffix(".perf.data")
        pids = ",".join(str(pid) for root in roots for pid in tree(root))
        if shutil.which("perf"):
            perf = ["perf", "record", "-e", "cpu-clock", "-F", "499", "-p", pids, "-o", str(self.perf_data)]
            self.processes.append(
                subprocess.Popen([*perf, "--", "sleep", duration], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            )

    def result(self) -> dict[str, Any]:
        for process in self.processes:
            process.wait(timeout=120)
        stacks: list[str] = []
        for path in self.files:
            if path.exists():
                stacks += path.read_text().splitlines()
                path.unlink()
        self.raw.write_text("\n".join(stacks) + "\n")
        where = str(self.raw.relative_to(ROOT)) if self.raw.is_relative_to(ROOT) else str(self.raw)
        return {"collapsed_stacks": where, **summarise_profile(stacks), "perf_by_binary": self._binaries()}

    def _binaries(self) -> list[tuple[str, float]]:
        """perf's share of samples by binary (DSO), largest first."""
        if not self.perf_data.exists():
            return []
        report = subprocess.run(
            ["perf", "report", "-i", str(self.perf_data), "--sort", "dso", "--stdio", "--percent-limit", "0.5"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        self.perf_data.unlink()
        shares = []
        for line in report.splitlines():
            fields = line.split()
            if len(fields) == 2 and fields[0].endswith("%"):
                shares.append((fields[1], float(fields[0].rstrip("%"))))
        return shares


def summarise_profile(stacks: Sequence[str], top: int = 25) -> dict[str, Any]:
    """Samples by the function they were in (self) and by every function on the stack (cumulative), as shares."""
    own: dict[str, int] = {}
    cumulative: dict[str, int] = {}
    total = 0
    for line in stacks:
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        samples, frames = int(count), stack.split(";")
        total += samples
        own[frames[-1]] = own.get(frames[-1], 0) + samples
        for frame in set(frames):
            cumulative[frame] = cumulative.get(frame, 0) + samples

    def shares(counts: dict[str, int]) -> list[tuple[str, float]]:
        ranked = sorted(counts.items(), key=lambda item: -item[1])[:top]
        return [(frame, round(100 * n / total, 1)) for frame, n in ranked]

    return {"samples": total, "self_percent": shares(own), "cumulative_percent": shares(cumulative)}


# --- Scenarios -----------------------------------------------------------------------------------------------------


def ramp(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for store in args.stores.split(","):
        for players in map(int, args.players.split(",")):
            label = f"{store}-{players}p"
            workers = args.ramp_workers or (2 if store == "postgres" else 1)
            steps = args.steps or ("100:1.6:8000" if players == 2 else "50:1.6:4000")
            behind = f", behind nginx ({args.balance})" if args.balance else ""
            log(f"{label}: ramp over K = {steps} ({workers} server process{'es' if workers > 1 else ''}{behind})")
            with server_side(args, store, workers=workers, balance=args.balance) as target:
                shapes = args.shapes or "commit,session"
                options = ["-players", str(players), "-steps", steps, "-watch", shapes, "-empty", f"{args.empty}s"]
                results[label] = run_loadgen(args, target, label, options)
    return results


def realplay(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for players in map(int, args.players.split(",")):
        k = args.realplay_k.get(players, 100)
        label = f"sqlite-{players}p-K{k}"
        shapes = args.shapes or "commit,session,event"
        log(f"{label}: real play at K={k}, shapes {shapes} alternating, {args.rounds} rounds")
        with server_side(args, "sqlite") as target:
            options = [
                "-players", str(players), "-steps", str(k), "-fixed", "-watch", shapes,
                "-rounds", str(args.rounds), "-empty", f"{args.empty}s",
            ]  # fmt: skip
            results[label] = run_loadgen(args, target, label, options, fixed=True)
    return results


AFFINITY_TOPOLOGIES = {
    "1x1": (1, ""),
    "1x1-nginx": (1, "hash"),
    "3x1-round-robin": (3, "round-robin"),
    "3x1-hash": (3, "hash"),
}


def affinity(args: argparse.Namespace) -> dict[str, Any]:
    """The topologies in turn on one PostgreSQL, ``--rounds`` times (the machine's noise falls on all alike)."""
    results: dict[str, Any] = {}
    with postgres("postgres") as database:
        for round_ in range(1, args.rounds + 1):
            for name, (replicas, balance) in AFFINITY_TOPOLOGIES.items():
                behind = f", nginx {balance}" if balance else ""
                log(f"{name}, round {round_}: {replicas} replica(s) on PostgreSQL{behind}, K={args.affinity_k}")
                with server_side(args, "postgres", replicas=replicas, balance=balance, database=database) as target:
                    options = [
                        "-players", "2", "-steps", str(args.affinity_k), "-fixed", "-watch", args.shapes or "commit",
                        "-empty", f"{args.empty}s",
                    ]  # fmt: skip
                    results[f"{name}/round-{round_}"] = run_loadgen(args, target, name, options, fixed=True)
    return results


def stores(args: argparse.Namespace) -> dict[str, Any]:
    """SQLite (one process) and PostgreSQL (one process, fsync on), each behind nginx on the game hash, in turn,
    ``--rounds`` times, in every shape (``commit`` and ``session`` by default) at K ``--stores-k``: issue 37's
    ratio of server CPU per move, PostgreSQL's over SQLite's, with the machine's noise falling on both alike."""
    results: dict[str, Any] = {}
    shapes = args.shapes or "commit,session"
    with postgres("postgres") as database:
        for round_ in range(1, args.rounds + 1):
            for store in ("sqlite", "postgres"):
                log(f"{store}, round {round_}: one process behind nginx (hash), K={args.stores_k}, shapes {shapes}")
                with server_side(args, store, balance="hash", database=database) as target:
                    options = [
                        "-players", "2", "-steps", str(args.stores_k), "-fixed", "-watch", shapes,
                        "-empty", f"{args.empty}s",
                    ]  # fmt: skip
                    results[f"{store}-nginx/round-{round_}"] = run_loadgen(args, target, store, options, fixed=True)
    return results


def store_ratios(results: dict[str, Any]) -> Iterator[str]:
    """PostgreSQL's server CPU per move over SQLite's, per round and shape (the ``stores`` scenario's answer)."""
    per_move: dict[tuple[str, str, int], float] = {}
    for label, report in results.items():
        store, _, round_ = label.partition("-nginx/round-")
        for run in report.get("runs", []):
            if run["steps"]:
                per_move[(store, run["watch"], int(round_))] = run["steps"][0]["server_cpu_ms_per_move"]
    for (store, shape, round_), postgres_ms in sorted(per_move.items()):
        sqlite_ms = per_move.get(("sqlite", shape, round_))
        if store == "postgres" and sqlite_ms:
            yield (
                f"round {round_}, {shape}: PostgreSQL {postgres_ms} ms / SQLite {sqlite_ms} ms server CPU per move "
                f"= {postgres_ms / sqlite_ms:.2f}x"
            )


SELFPLAY_GAMES = {2: 200, 4: 100}
"""Games per selfplay run, by table size: 10-20 s of play each on this machine."""
SELFPLAY_CONCURRENCY = 24


def selfplay(args: argparse.Namespace) -> dict[str, Any]:
    """``truco selfplay`` against a fresh SQLite server per run, after the empty calls' yardstick on it."""
    results: dict[str, Any] = {}
    truco = Path(sys.executable).with_name("truco")
    for round_ in range(1, args.rounds + 1):
        for players in map(int, args.players.split(",")):
            games = 4 if args.quick else SELFPLAY_GAMES.get(players, 100)
            concurrency = 2 if args.quick else SELFPLAY_CONCURRENCY
            label = f"sqlite-{players}p-selfplay"
            log(f"{label}, round {round_}: {games} games, {concurrency} at a time")
            with server_side(args, "sqlite") as target:
                # One match at K=1 measured for a second: the load generator's run is for its empty calls.
                options = ["-players", "2", "-steps", "1", "-fixed", "-warmup", "1s", "-measure", "1s"]
                yardstick = run_loadgen(args, target, label, [*options, "-empty", f"{args.empty}s"])
                moves, before = moves_applied_at(target.metrics), tree_cpu(target.groups["server"])
                started = time.monotonic()
                command = [str(truco), "selfplay", "--server", target.address, "--players", str(players)]
                command += ["--games", str(games), "--concurrency", str(concurrency), "--seed", str(round_)]
                try:
                    run = subprocess.run(
                        ["taskset", "-c", args.client_cpus, *command], capture_output=True, text=True, timeout=1800
                    )
                except subprocess.TimeoutExpired as timeout:  # the report keeps what the other runs measured
                    output = timeout.stdout.decode() if isinstance(timeout.stdout, bytes) else timeout.stdout or ""
                    run = subprocess.CompletedProcess(command, -1, output, "timed out after 1800 s")
                seconds = time.monotonic() - started
                cpu = cpu_used(before, tree_cpu(target.groups["server"]))
                moves = moves_applied_at(target.metrics) - moves
            if run.returncode != 0:
                log(f"{label}: truco selfplay failed ({run.returncode}): {run.stderr.strip()[-500:]}")
            empty = [e["server_cpu_ms_per_call"] for e in yardstick.get("empty", [])]
            per_move = round(cpu * 1000 / moves, 3) if moves else None
            results[f"{label}/round-{round_}"] = {
                "selfplay_exit_status": run.returncode,
                "failed": run.returncode != 0 or not moves,
                "players": players,
                "games": games,
                "concurrency": concurrency,
                "seconds": round(seconds, 2),
                "moves_applied": moves,
                "moves_per_second": round(moves / seconds, 1),
                "server_cores": round(cpu / seconds, 3),
                "server_cpu_ms_per_move": per_move,
                "empty_call_server_cpu_ms": empty,
                "server_cpu_per_move_in_empty_calls": (
                    round(per_move / (sum(empty) / len(empty)), 2) if empty and per_move is not None else None
                ),
                "selfplay_summary": [
                    line for line in run.stdout.splitlines() if line.startswith(("moves", "submit", "errors"))
                ],
            }
    return results


def collector(args: argparse.Namespace) -> dict[str, Any]:
    """SQLite, one process, ``--collector-k`` two-player matches held (``--think`` apart: the heap of a server
    that holds them, not its CPU ceiling), the whole heap collected every ``--full-collection`` seconds: each
    collection from the server's log, the pauses and the loop's lateness from /metrics, against the moves' p99."""
    results: dict[str, Any] = {}
    for shape in (args.shapes or "commit").split(","):
        label = f"sqlite-2p-K{args.collector_k}-{shape}"
        log(f"{label}: the collector at K={args.collector_k}, the whole heap every {args.full_collection} s")
        serving = argparse.Namespace(**{**vars(args), "serve_args": [*args.serve_args, *args.collector_serve]})
        with server_side(serving, "sqlite") as target:
            options = ["-players", "2", "-steps", str(args.collector_k), "-fixed", "-watch", shape]
            report = run_loadgen(args, target, label, options, fixed=True)
            report["collections"] = [line for path in target.logs for line in collections_logged(path)]
            report["collector_metrics"] = [collector_metrics(url) for url in target.metrics]
        results[label] = report
    return results


def collections_logged(path: str) -> Iterator[dict[str, Any]]:
    """The whole-heap collections and the long old-generation steps a server logged (runtime/collector.py)."""
    with open(path) as lines:
        for line in lines:
            if "heap collected" in line or "long old-generation step" in line:
                with contextlib.suppress(ValueError):
                    yield json.loads(line)


def collector_metrics(url: str) -> dict[str, Any]:
    """truco_gc_pause_seconds by generation and truco_loop_lateness_seconds: each one's count, sum and buckets."""
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode()
    found: dict[str, Any] = {}
    for line in text.splitlines():
        if not line.startswith(("truco_gc_pause_seconds", "truco_loop_lateness_seconds")):
            continue
        name, _, value = line.rpartition(" ")
        metric, _, labels = name.partition("{")
        family, _, part = metric.rpartition("_")
        generation = labels.split('generation="')[1].split('"')[0] if "generation=" in labels else "all"
        entry = found.setdefault(f"{family}/{generation}", {"buckets": {}})
        if part == "bucket":
            entry["buckets"][labels.split('le="')[1].split('"')[0]] = float(value)
        elif part in ("count", "sum"):
            entry[part] = float(value)
    return found


RUNNERS = {
    "ramp": ramp,
    "realplay": realplay,
    "affinity": affinity,
    "stores": stores,
    "selfplay": selfplay,
    "collector": collector,
}


# --- Summaries -----------------------------------------------------------------------------------------------------


def by_thread(step: dict[str, Any]) -> str:
    """Where a step's server CPU per move went, as "; loop ..., gRPC core ..., other threads ..." ("" in a report
    from before the load generator split it): the event loop, gRPC's C core, the rest (the store's threads)."""
    split = step.get("server_cpu_ms_per_move_by_thread")
    if not split:
        return ""
    loop, core, other = (split.get(kind, 0) for kind in ("loop", "grpc_core", "other"))
    return f"; loop {loop}, gRPC core {core}, other threads {other}"


def summary_lines(scenario: str, results: dict[str, Any]) -> Iterator[str]:
    if scenario == "selfplay":
        for label, run in results.items():
            if run.get("failed"):
                yield f"{label}: FAILED (truco selfplay exit status {run['selfplay_exit_status']})"
                continue
            yield (
                f"{label}: {run['server_cpu_ms_per_move']} ms server CPU per move "
                f"(= {run['server_cpu_per_move_in_empty_calls']} empty calls of {run['empty_call_server_cpu_ms']} ms), "
                f"{run['moves_applied']:.0f} moves at {run['moves_per_second']}/s on {run['server_cores']} cores"
            )
        return
    for label, report in results.items():
        empty = report.get("empty") or []
        reference = sum(e["server_cpu_ms_per_call"] for e in empty) / len(empty) if empty else 0.0
        for run in report.get("runs", []):
            steps = run["steps"]
            if not steps:
                continue
            if scenario == "ramp":
                held = [s for s in steps if s["k"] <= run["knee_k"] and s["held"]] or steps[:1]
                knee = max(held, key=lambda s: s["k"])
                above = "+" if run["knee_not_reached"] else ""
                yield (
                    f"{label}: knee K={run['knee_k']}{above}; at it {knee['server_cpu_ms_per_move']} ms server CPU "
                    f"per move ({knee['server_cores']} cores{by_thread(knee)}), submit p99 "
                    f"{knee['submit']['p99_ms']} ms, delivery p99 "
                    f"{knee['delivery']['p99_ms']} ms, {knee['server_rss_per_match_bytes'] / 1024:.1f} KiB per match, "
                    f"{knee['open_streams_server']:.0f} streams"
                )
            else:
                step = steps[0]
                in_empty = f" = {step['server_cpu_ms_per_move'] / reference:.2f} empty calls" if reference else ""
                yield (
                    f"{label} [{run['watch']} watch, round {run['round']}]: {step['server_cpu_ms_per_move']} ms server "
                    f"CPU per move{in_empty}{by_thread(step)}; {step['cpu_ms_per_move']}; "
                    f"{step['watch_messages_per_move']} watch "
                    f"messages per move; submit p99 {step['submit']['p99_ms']} ms"
                )
        if reference:
            yield f"{label}: empty unary call {reference:.3f} ms of server CPU"
    if scenario == "stores":
        yield from store_ratios(results)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = _settled(parser.parse_args(argv))
    # SIGTERM unwinds like Ctrl-C: every server, nginx and PostgreSQL started is stopped on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    build_loadgen()
    for scenario in args.scenarios.split(","):
        if scenario not in RUNNERS:
            parser.error(f"--scenarios: {scenario!r} is not one of {', '.join(SCENARIOS)}")
        _run_scenario(scenario, args)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--scenarios", default=",".join(SCENARIOS), help=f"of {', '.join(SCENARIOS)}")
    parser.add_argument("--stores", default="sqlite,postgres", help="the ramp's stores")
    parser.add_argument("--players", default="2,4")
    parser.add_argument(
        "--shapes",
        default="",
        help="the seats' shapes, each a run: commit, session, event (default: ramp commit,session; realplay "
        "commit,session,event; affinity commit)",
    )
    parser.add_argument("--steps", default="", help="the ramp's K: K1,K2,... or START:FACTOR:MAX (default per size)")
    parser.add_argument("--think", type=float, default=5.0, help="think time per decision, seconds (jittered ±50 %%)")
    parser.add_argument("--warmup", type=float, default=20.0, help="seconds at K before measuring")
    parser.add_argument("--measure", type=float, default=30.0, help="measured seconds per ramp step")
    parser.add_argument("--fixed-measure", type=float, default=60.0, help="measured seconds at a fixed K")
    parser.add_argument("--spawn-rate", type=float, default=50.0, help="new matches per second while K grows")
    parser.add_argument("--limit-ms", type=float, default=50.0, help="the p99 a step must hold")
    parser.add_argument("--empty", type=float, default=10.0, help="seconds of empty calls, before and after")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of the servers' CPU with no load, first")
    parser.add_argument("--realplay-k", default="2:300,4:150", help="the fixed K of realplay, per table size")
    parser.add_argument(
        "--rounds", type=int, default=2, help="realplay: runs of each watch shape, alternating; selfplay: runs"
    )
    parser.add_argument("--affinity-k", type=int, default=150, help="the fixed K of the affinity scenario")
    parser.add_argument("--stores-k", type=int, default=100, help="the fixed K of the stores scenario")
    parser.add_argument(
        "--serve-arg",
        dest="serve_args",
        action="append",
        default=[],
        metavar="ARG",
        help="one more truco serve argument for every server (repeat; for A/B runs, e.g. --serve-arg=--presence "
        "--serve-arg=10m)",
    )
    parser.add_argument(
        "--profile", type=float, default=0.0, metavar="SECONDS", help="py-spy the servers this long in each run"
    )
    parser.add_argument("--label", default="", help="a suffix for the report's file name (an A/B run's)")
    parser.add_argument("--client-cpus", default="0", help="cores of the load generator")
    parser.add_argument("--server-cpus", default="1", help="cores of the servers, PostgreSQL and nginx")
    parser.add_argument("--db-cpus", default="", help="cores of PostgreSQL, if not the servers' (e.g. the client's)")
    parser.add_argument("--ramp-workers", type=int, default=0, help="the ramp's --workers (0: 2 on PostgreSQL, 1)")
    parser.add_argument("--balance", default="", help="the ramp behind nginx: hash or round-robin (default direct)")
    parser.add_argument("--collector-k", type=int, default=2500, help="the collector scenario's matches held")
    parser.add_argument(
        "--full-collection", type=float, default=120.0, help="the collector scenario's whole-heap interval"
    )
    parser.add_argument("--quick", action="store_true", help="a short smoke run: small K, short think and windows")
    parser.add_argument("--out-dir", type=Path, default=ROOT / "bench" / "results")
    return parser


def _settled(args: argparse.Namespace) -> argparse.Namespace:
    """``args`` with --realplay-k read into a table, and --quick's small values in place."""
    args.realplay_k = {int(p): int(k) for p, k in (item.split(":") for item in args.realplay_k.split(","))}
    if args.quick:
        args.think, args.warmup, args.measure, args.fixed_measure = 0.3, 2.0, 5.0, 5.0
        args.empty, args.idle, args.rounds = 2.0, 2.0, 1
        args.steps = args.steps or "4,8"
        args.realplay_k = {2: 4, 4: 2}
        args.affinity_k = args.stores_k = 4
        args.collector_k, args.full_collection = 4, 3.0
    args.collector_serve = ["--full-collection", str(args.full_collection)]
    return args


def _run_scenario(scenario: str, args: argparse.Namespace) -> None:
    """Run one scenario and write its report (the machine, the setup, the results) to --out-dir."""
    log(f"{scenario}: starting (load average {os.getloadavg()[0]:.2f})")
    fsync = fsync_latency(tempfile.gettempdir())
    log(f"{scenario}: a 4 KiB write's fsync takes {fsync['p50_ms']} ms (p50), {fsync['p99_ms']} ms (p99)")
    report = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": {
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "go": subprocess.run(["go", "version"], capture_output=True, text=True).stdout.strip(),
            "load_before": os.getloadavg(),
            "fsync_4k": fsync,
        },
        "setup": {
            "think_seconds": args.think,
            "think_jitter": 0.5,
            "warmup_seconds": args.warmup,
            "measure_seconds": args.measure,
            "fixed_measure_seconds": args.fixed_measure,
            "spawn_per_second": args.spawn_rate,
            "p99_limit_ms": args.limit_ms,
            "client_cpus": args.client_cpus,
            "server_cpus": args.server_cpus,
            "db_cpus": args.db_cpus or args.server_cpus,
            "serve": ["--no-limits", *SERVE_ARGS, *args.serve_args],
            "postgres": "fsync=on, full_page_writes=on, synchronous_commit=on (loopback)",
            "quick": args.quick,
        },
        "results": RUNNERS[scenario](args),
    }
    report["machine"]["load_after"] = os.getloadavg()
    suffix = ("-quick" if args.quick else "") + (f"-{args.label}" if args.label else "")
    out = args.out_dir / f"capacity-{scenario}{suffix}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    for line in summary_lines(scenario, report["results"]):
        print(line, flush=True)
    print(f"report: {out}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
