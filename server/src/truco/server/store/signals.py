"""How a store tells waiters that a game moved: per-game wake-ups fired by its appends, its notifications or its
polls, and the listeners of ``EventStore.on_append``."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterator


class ChangeSignals:
    """Wake-ups for :meth:`EventStore.wait_for_change`, per game, fired by appends, notifications and polls,
    and the listeners of :meth:`EventStore.on_append`.

    Each watched game has one :class:`asyncio.Event`; firing sets it and starts a new one, so a waiter that
    took the event before checking the database cannot miss a change made after its check.
    """

    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}
        self._watchers: dict[str, int] = {}
        self._known_seq: dict[str, int] = {}
        self._heard: list[Callable[[str, int], None]] = []
        # Games with an append of this process under way, and the newest seq notifications told of meanwhile.
        self._appending: dict[str, int] = {}
        self._held_back: dict[str, int] = {}
        self.interrupted = False
        """Set when the server stops: every wait returns at once, so its watchers hear of it."""

    @property
    def watching(self) -> bool:
        return bool(self._watchers)

    @contextlib.contextmanager
    def watch(self, game_id: str) -> Iterator[None]:
        self._watchers[game_id] = self._watchers.get(game_id, 0) + 1
        try:
            yield
        finally:
            self._watchers[game_id] -= 1
            if not self._watchers[game_id]:
                # Forget unwatched games, or every game ever waited on would stay in memory.
                del self._watchers[game_id]
                self._events.pop(game_id, None)
                self._known_seq.pop(game_id, None)

    def current(self, game_id: str) -> asyncio.Event:
        event = self._events.get(game_id)
        if event is None:  # not setdefault: that would build an Event on every call, for each waiter's every look
            event = self._events[game_id] = asyncio.Event()
        return event

    def known_seq(self, game_id: str) -> int:
        """The highest seq announced for a watched game (0 if none was): by this process's own appends, and by
        notifications of other replicas' where the store has them."""
        return self._known_seq.get(game_id, 0)

    def on_append(self, heard: Callable[[str, int], None]) -> None:
        """Call ``heard(game_id, last_seq)`` on every firing that names the seq, whether the game is watched or not."""
        self._heard.append(heard)

    def fire(self, game_id: str, last_seq: int | None = None) -> None:
        if last_seq is not None:
            for heard in self._heard:
                heard(game_id, last_seq)
        if game_id not in self._watchers:
            return
        if last_seq is not None:
            self._known_seq[game_id] = max(last_seq, self._known_seq.get(game_id, 0))
        event = self._events.pop(game_id, None)
        if event is not None:
            event.set()

    @contextlib.contextmanager
    def appending(self, game_id: str) -> Iterator[None]:
        """While this process's own append of the game is under way, hold back what notifications tell of the
        game (:meth:`notified`): the append's own notification can arrive before its caller has recorded the
        move, and waking the game's watchers then would send each of them to the store for what this process is
        about to know. What was held back fires once the game's last append here returned."""
        self._appending[game_id] = self._appending.get(game_id, 0) + 1
        try:
            yield
        finally:
            left = self._appending.pop(game_id) - 1
            if left:
                self._appending[game_id] = left
            elif (held := self._held_back.pop(game_id, None)) is not None:
                # Scheduled, not fired now: the append's caller records its move first (it resumes before this).
                asyncio.get_running_loop().call_soon(self.fire, game_id, held)

    def notified(self, game_id: str, last_seq: int) -> None:
        """A notification (by any process) that the game's last seq is now ``last_seq``."""
        if game_id in self._appending:
            self._held_back[game_id] = max(last_seq, self._held_back.get(game_id, 0))
        else:
            self.fire(game_id, last_seq)

    def interrupt(self) -> None:
        """End every wait now and every later one at once (the server is stopping)."""
        self.interrupted = True
        self.fire_all()

    def fire_all(self) -> None:
        """Wake every waiter to look again (after a poll saw some change, or after notifications may be lost)."""
        events, self._events = self._events, {}
        for event in events.values():
            event.set()


async def wait_until_after(
    signals: ChangeSignals,
    game_id: str,
    after_seq: int,
    timeout: float,
    last_seq: Callable[[], Awaitable[int]],
    vouched: Callable[[], bool] | None = None,
) -> int | None:
    """The shared body of ``wait_for_change``: check, sleep until fired or timed out, check again. Returns the
    game's last seq as the wait learned it (from an append's signal or a look), None when it did not. The look is
    skipped while ``vouched()`` says the store has heard every append since ``after_seq`` was current: asked
    after this wait took the game's wake-up, anything heard later wakes it."""
    deadline = time.monotonic() + timeout
    with signals.watch(game_id):
        while True:
            fired = signals.current(game_id)
            if signals.interrupted:
                return None
            known = signals.known_seq(game_id)
            if known > after_seq:
                return known
            if vouched is None or not vouched():
                looked = await last_seq()
                if looked > after_seq:
                    return looked
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                # asyncio.timeout, not wait_for: no task of its own to outlive a cancelled waiter.
                async with asyncio.timeout(remaining):
                    await fired.wait()
            except TimeoutError:
                return None


__all__ = ["ChangeSignals", "wait_until_after"]
