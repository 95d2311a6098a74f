"""The image's final stage only runs: it installs no system package (so no compiler), takes the virtual
environment the build stage made, stops gracefully on SIGTERM, starts `truco serve` in the exec form (so the
signal reaches it), and by default keeps its SQLite store on a volume."""

from __future__ import annotations

import re

from deploycheck import image
from deploycheck.checks.image_build import build_stages
from deploycheck.model import Deploy
from deploycheck.server import arg_after

PACKAGE_INSTALL = re.compile(r"\b(apt-get|apt|apk)\b[^&;]*\binstall\b")
VENV = re.compile(r"-m venv\s+(\S+)")


def check_runtime_stage(deploy: Deploy) -> list[str]:
    all_stages = image.stages(deploy.dockerfile or ())
    if not all_stages:
        return ["Dockerfile: missing, or no FROM"]
    final = all_stages[-1]
    problems = []
    if PACKAGE_INSTALL.search(image.run_text(final)):
        problems.append("Dockerfile: the final stage installs system packages: it needs none (no compiler)")
    copied = {(i.flag("from"), i.words[:-1][0] if i.words[:-1] else None) for i in image.of_kind(final, "COPY")}
    for stage in build_stages(all_stages):
        for venv in VENV.findall(image.run_text(stage)):
            if (image.stage_name(stage), venv) not in copied:
                problems.append(
                    f"Dockerfile: the final stage does not copy {venv} from stage {image.stage_name(stage)}"
                )
    stop = image.last_of_kind(final, "STOPSIGNAL")
    if stop is None or stop.text not in {"SIGTERM", "15"}:
        problems.append("Dockerfile: no STOPSIGNAL SIGTERM")
    entrypoint = image.last_of_kind(final, "ENTRYPOINT")
    if entrypoint is None or (entrypoint.exec_args() or [])[:2] != ["truco", "serve"]:
        problems.append('Dockerfile: ENTRYPOINT is not ["truco", "serve"]')
    cmd = image.last_of_kind(final, "CMD")
    store = arg_after((cmd.exec_args() if cmd else None) or [], "--store") or ""
    volumes = " ".join(i.text for i in image.of_kind(final, "VOLUME"))
    folder = store.removeprefix("sqlite:///").rpartition("/")[0]
    if not store.startswith("sqlite:///") or not folder or folder not in volumes:
        problems.append(f"Dockerfile: CMD's default store {store!r} is not SQLite on a VOLUME")
    return problems
