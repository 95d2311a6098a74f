"""The image serves the web table: a stage builds it (`npm ... run build`), and the final stage copies the result
where TRUCO_WEB_ASSETS (the default of `truco serve --web-assets`) points."""

from __future__ import annotations

from deploycheck import image
from deploycheck.model import Deploy

WEB_ASSETS_ENV = "TRUCO_WEB_ASSETS"


def check_web_table(deploy: Deploy) -> list[str]:
    all_stages = image.stages(deploy.dockerfile or ())
    if not all_stages:
        return ["Dockerfile: missing, or no FROM"]
    final = all_stages[-1]
    web_names = {
        image.stage_name(stage)
        for stage in all_stages
        if any("npm" in i.text and "run build" in i.text for i in image.of_kind(stage, "RUN"))
    }
    copies = [i for i in image.of_kind(final, "COPY") if i.flag("from") in web_names]
    assets = image.env(final).get(WEB_ASSETS_ENV, "")
    if not web_names:
        return ["Dockerfile: no stage builds the web table (`npm ... run build` in web/)"]
    if not copies:
        return ["Dockerfile: the final stage does not copy the built web table from its stage"]
    if not assets or all(i.words[-1].rstrip("/") != assets.rstrip("/") for i in copies):
        return [f"Dockerfile: ENV {WEB_ASSETS_ENV} ({assets!r}) is not where the final stage copies the web table"]
    return []
