"""The server runs as production needs: the image's `truco serve` (no command override), its store URL and
token key from Secrets (every replica derives seat tokens with one key), API keys required, quotas on, JSON logs,
and a termination grace period that covers the preStop sleep and the server's own grace for in-flight calls."""

from __future__ import annotations

import re

from deploycheck import k8s
from deploycheck.model import Deploy
from deploycheck.server import Server, arg_after, the_server

TOKEN_KEY_ENV = "TRUCO_TOKEN_KEY"
LOG_FORMAT_ENV = "TRUCO_LOG_FORMAT"


def check_server_settings(deploy: Deploy) -> list[str]:
    server = the_server(deploy)
    me, args, env = server.name, server.args, server.env
    problems = []
    if "command" in server.container:
        problems.append(f"{me}: overrides the image's ENTRYPOINT (truco serve) with command")
    variable = re.fullmatch(r"\$\((\w+)\)", arg_after(args, "--store") or "")
    if variable is None or k8s.dig(env.get(variable.group(1)), "valueFrom", "secretKeyRef") is None:
        problems.append(f"{me}: --store {arg_after(args, '--store')!r} is not $(VAR) of an env entry from a Secret")
    if "--require-api-key" not in args:
        problems.append(f"{me}: args lack --require-api-key (anonymous CreateGame and JoinGame in production)")
    if "--no-limits" in args:
        problems.append(f"{me}: args turn every quota off with --no-limits")
    if k8s.dig(env.get(TOKEN_KEY_ENV), "valueFrom", "secretKeyRef") is None:
        problems.append(f"{me}: env {TOKEN_KEY_ENV} does not come from a Secret (replicas must share one key)")
    if (arg_after(args, "--log-format") or k8s.dig(env.get(LOG_FORMAT_ENV), "value")) != "json":
        problems.append(f"{me}: logs are not JSON (--log-format or env {LOG_FORMAT_ENV})")
    return problems + _grace(server)


def _grace(server: Server) -> list[str]:
    """terminationGracePeriodSeconds counts from the pod's deletion, preStop included: past it, SIGKILL."""
    period = k8s.dig(server.deployment, "spec", "template", "spec", "terminationGracePeriodSeconds")
    pre_stop = k8s.mapping(k8s.dig(server.container, "lifecycle", "preStop"))
    sleep = k8s.dig(pre_stop, "sleep", "seconds")
    command = k8s.dig(pre_stop, "exec", "command")
    if sleep is None and isinstance(command, list) and len(command) == 2 and command[0] == "sleep":
        sleep = int(command[1]) if str(command[1]).isdigit() else None
    grace = arg_after(server.args, "--grace")
    if not isinstance(sleep, int) or sleep <= 0:
        return [f"{server.name}: no preStop sleep to let endpoint removal propagate before SIGTERM"]
    if grace is None or not grace.replace(".", "", 1).isdigit():
        return [f"{server.name}: args give no --grace (the in-flight calls' time after SIGTERM) to check it against"]
    if not isinstance(period, int) or period <= sleep + float(grace):
        return [
            f"{server.name}: terminationGracePeriodSeconds {period} leaves no room for preStop {sleep} s + "
            f"--grace {grace} s"
        ]
    return []
