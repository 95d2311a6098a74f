"""``python -m truco.terminal``: the same as ``truco-terminal``."""

import sys

from .main import main

sys.exit(main())
