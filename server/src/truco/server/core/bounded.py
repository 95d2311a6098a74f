"""The one cache type of the server: a mapping that keeps the most recently used entries within a bound.

Every cache of the process (token buckets, API keys, seats, rebuilt games) is a :class:`Bounded`: at most
``entries`` entries and, when it has a ``weigh`` function, at most ``budget`` of their weight together; past
either bound the least recently used entries are forgotten, each told to ``evicted`` if given. A cache is only
ever a copy of what can be had again, so forgetting any entry changes no answer.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Bounded(Generic[K, V]):
    """At most ``entries`` entries (and ``budget`` of weight, with ``weigh``), least recently used out first."""

    __slots__ = ("_entries", "_evicted", "_items", "_weigh", "budget", "entries", "weight")

    def __init__(
        self,
        entries: int,
        *,
        weigh: Callable[[V], int] | None = None,
        budget: int | None = None,
        evicted: Callable[[K, V], None] | None = None,
    ) -> None:
        self.entries = entries
        self.budget = budget
        self.weight = 0
        """What the entries weigh together (0 without ``weigh``)."""
        self._weigh = weigh
        self._evicted = evicted
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        """The entry of ``key`` (now the most recently used), or None."""
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def peek(self, key: K) -> V | None:
        """The entry of ``key``, leaving the order of use as it is."""
        return self._items.get(key)

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` for ``key`` as the most recently used entry, then forget what is past the bounds (never
        the entry just put)."""
        old = self._items.get(key)
        self._items[key] = value
        self._items.move_to_end(key)
        if self._weigh is not None:
            self.weight += self._weigh(value) - (self._weigh(old) if old is not None else 0)
        while len(self._items) > 1 and (len(self._items) > self.entries or self._overweight()):
            oldest = next(iter(self._items))
            self._evict(oldest)

    def pop(self, key: K) -> V | None:
        """Forget ``key``'s entry (not an eviction: ``evicted`` is not told); the entry, or None."""
        value = self._items.pop(key, None)
        if value is not None and self._weigh is not None:
            self.weight -= self._weigh(value)
        return value

    def oldest(self) -> K | None:
        """The least recently used key, or None when empty."""
        return next(iter(self._items), None)

    def _overweight(self) -> bool:
        return self.budget is not None and self.weight > self.budget

    def _evict(self, key: K) -> None:
        value = self.pop(key)
        if self._evicted is not None and value is not None:
            self._evicted(key, value)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[K]:
        """The keys, least recently used first."""
        return iter(self._items)


__all__ = ["Bounded"]
