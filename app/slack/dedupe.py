"""One answer per message: a seen-message store with a TTL, and per-thread ordering, in
process. With REDIS_URL set, app/slack/shared.py puts Redis in front of them."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Protocol


class SeenMessages:
    """Remembers message keys for `ttl` seconds; `first(key)` is True once per key."""

    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl = ttl
        self._clock = clock
        self._expiry: OrderedDict[str, float] = OrderedDict()  # oldest first

    def first(self, key: str) -> bool:
        if key in self:
            return False
        self._expiry[key] = self._clock() + self._ttl
        return True

    def __contains__(self, key: object) -> bool:
        now = self._clock()
        while self._expiry and next(iter(self._expiry.values())) <= now:
            self._expiry.popitem(last=False)
        return key in self._expiry

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


class MessageStore(Protocol):
    """What the listeners need to answer each message once, one at a time per thread."""

    async def seen(self, key: str) -> bool:
        """Whether `key` was taken already (a cheap early look; `first` decides)."""
        ...

    async def first(self, key: str) -> bool:
        """True exactly once per key within the TTL, across every instance sharing the store."""
        ...

    def turn(self, thread: str) -> AbstractAsyncContextManager[None]:
        """Held while one message of `thread` is answered."""
        ...

    async def close(self) -> None: ...


@dataclass
class LocalStore:
    """The in-process store: enough for one instance."""

    ttl: float
    messages: SeenMessages = field(init=False)
    order: ThreadOrder = field(default_factory=ThreadOrder)

    def __post_init__(self) -> None:
        self.messages = SeenMessages(self.ttl)

    async def seen(self, key: str) -> bool:
        return key in self.messages

    async def first(self, key: str) -> bool:
        return self.messages.first(key)

    def turn(self, thread: str) -> AbstractAsyncContextManager[None]:
        return self.order.turn(thread)

    async def close(self) -> None:
        return None


def message_key(team: str, channel: str, ts: str) -> str:
    """The identity of a user message: the same for Slack retries and for the same message
    arriving as both app_mention and message.*."""
    return f"{team}:{channel}:{ts}"
