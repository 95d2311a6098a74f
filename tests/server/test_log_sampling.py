"""Refusals past a quota are logged at most so often, each logged line counting those left out."""

from __future__ import annotations

from truco.server.service.pipeline import Sampler


def test_a_flood_of_refusals_is_logged_a_few_lines_a_second_with_what_was_left_out() -> None:
    now = [100.0]
    sampler = Sampler(per_second=2.0, clock=lambda: now[0])
    assert [sampler.take() for _ in range(5)] == [0, 0, None, None, None]
    now[0] += 0.5  # one line's worth of time
    assert [sampler.take(), sampler.take()] == [3, None]
    now[0] += 10.0  # a quiet spell refills the burst, no more
    assert [sampler.take() for _ in range(3)] == [1, 0, None]
