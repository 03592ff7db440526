"""Answers in flight, so a shutdown can stop taking events and let them finish."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager


class InFlight:
    """Counts the messages being answered; `drained()` waits, within a bound, for none."""

    def __init__(self) -> None:
        self.count = 0
        self.closing = False  # set when shutdown starts: no new events are taken
        self._idle = asyncio.Event()
        self._idle.set()

    @contextmanager
    def answering(self) -> Iterator[None]:
        self.count += 1
        self._idle.clear()
        try:
            yield
        finally:
            self.count -= 1
            if self.count == 0:
                self._idle.set()

    async def drained(self, timeout: float) -> bool:
        """Whether every answer finished within `timeout` seconds."""
        try:
            async with asyncio.timeout(timeout):
                await self._idle.wait()
        except TimeoutError:
            return False
        return True
