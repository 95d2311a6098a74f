"""Every flag the Deployment's args and the image's CMD give `truco serve` is one it accepts (as its --help
says): a misspelt flag would stop every pod at start-up."""

from __future__ import annotations

import functools
import re

from deploycheck import image
from deploycheck.model import Deploy, Missing
from deploycheck.server import flags, the_server
from deploycheck.tools import run_tool


@functools.cache
def accepted_flags() -> frozenset[str]:
    """The options in the usage lines of `truco serve --help` (asked once a process)."""
    helped = run_tool("truco", "serve", "--help")
    usage = helped.stdout.split("\n\n")[0]
    if helped.returncode != 0 or not usage.startswith("usage:"):
        raise Missing(f"truco serve --help: {' '.join((helped.stdout + helped.stderr).split())[:200]}")
    return frozenset(re.findall(r"\[(--[a-z0-9-]+)", usage))


def check_serve_flags(deploy: Deploy) -> list[str]:
    accepted = accepted_flags()
    server = the_server(deploy)
    given = {f"{server.name}: args": flags(server.args)}
    final = image.stages(deploy.dockerfile or ())[-1:]
    cmd = image.last_of_kind(final[0], "CMD") if final else None
    if cmd is not None:
        given["Dockerfile: CMD"] = flags(cmd.words if cmd.exec_form else cmd.text.split())
    return [
        f"{where} give {flag}, which `truco serve` does not accept"
        for where, found in given.items()
        for flag in found
        if flag not in accepted
    ]
