"""The server's one cache type: bounded by count and by weight, least recently used out first."""

from __future__ import annotations

from truco.server.core.bounded import Bounded


def test_the_least_recently_used_entry_goes_first() -> None:
    gone: list[str] = []
    cache: Bounded[str, int] = Bounded(2, evicted=lambda key, _: gone.append(key))
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recently used
    assert cache.peek("b") == 2  # a peek changes nothing
    cache.put("c", 3)
    assert list(cache) == ["a", "c"] and gone == ["b"]
    assert cache.pop("a") == 1 and gone == ["b"]  # forgetting on purpose is no eviction


def test_a_weight_budget_holds_whatever_the_number_of_entries() -> None:
    cache: Bounded[str, str] = Bounded(100, weigh=len, budget=10)
    for key, value in (("a", "xxxx"), ("b", "xxxx"), ("c", "xxxx")):
        cache.put(key, value)
    assert list(cache) == ["b", "c"] and cache.weight == 8
    cache.put("b", "x" * 9)  # b grows: c goes, and b stays even alone over the budget
    assert list(cache) == ["b"] and cache.weight == 9
    cache.put("b", "x" * 12)
    assert list(cache) == ["b"] and cache.weight == 12
