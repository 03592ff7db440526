"""One answer per message: a seen-message store with a TTL, and per-thread ordering."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager


class SeenMessages:
    """Remembers message keys for `ttl` seconds; `first(key)` is True once per key."""

    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl = ttl
        self._clock = clock
        self._expiry: OrderedDict[str, float] = OrderedDict()  # oldest first

    def first(self, key: str) -> bool:
        now = self._clock()
        while self._expiry and next(iter(self._expiry.values())) <= now:
            self._expiry.popitem(last=False)
        if key in self._expiry:
            return False
        self._expiry[key] = now + self._ttl
        return True

    def __len__(self) -> int:
        return len(self._expiry)


class ThreadOrder:
    """Messages of one thread are answered one at a time, in arrival order; different
    threads run concurrently. Locks are dropped when no message of the thread waits."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def turn(self, thread: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(thread, (asyncio.Lock(), 0))
        self._locks[thread] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[thread]
            if users == 1:
                del self._locks[thread]
            else:
                self._locks[thread] = (lock, users - 1)

    def __len__(self) -> int:
        return len(self._locks)


def message_key(team: str, channel: str, ts: str) -> str:
    """The identity of a user message: the same for Slack retries and for the same message
    arriving as both app_mention and message.*."""
    return f"{team}:{channel}:{ts}"
