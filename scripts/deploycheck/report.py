"""`python scripts/validate-deploy.py`: every check, one line each, and its problems under it."""

from __future__ import annotations

import sys
from pathlib import Path

from deploycheck.catalogue import CHECKS, run_check
from deploycheck.model import load


def main(root: Path) -> int:
    deploy = load(root)
    failed = 0
    for title, check in CHECKS.items():
        problems = run_check(check, deploy)
        failed += bool(problems)
        print(f"{'FAIL' if problems else 'ok  '}  {title}")
        for problem in problems:
            print(f"      {problem}")
    print(f"validate-deploy: {f'{failed} check(s) failed' if failed else 'all checks passed'}")
    sys.stdout.flush()
    return 1 if failed else 0
