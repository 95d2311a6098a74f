"""A dependency-free progress bar for long commands, drawn on standard error only when it is a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``with Progress(total, "matches") as bar: bar.advance()``: redraws at most ten times a second."""

    def __init__(self, total: int, unit: str, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.total = max(total, 1)
        self.unit = unit
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.done = 0
        self._start = time.perf_counter()
        self._last_draw = 0.0

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self._draw(force=True)
            self.stream.write("\n")
            self.stream.flush()

    def advance(self, count: int = 1) -> None:
        self.done += count
        if self.enabled:
            self._draw()

    def _draw(self, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self._last_draw < 0.1:
            return
        self._last_draw = now
        fraction = min(self.done / self.total, 1.0)
        width = 30
        filled = int(fraction * width)
        elapsed = now - self._start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else 0.0
        bar = "█" * filled + "·" * (width - filled)
        self.stream.write(
            f"\r{bar} {self.done}/{self.total} {self.unit} {fraction:4.0%}  {rate:,.0f}/s  eta {eta:4.1f}s"
        )
        self.stream.flush()
