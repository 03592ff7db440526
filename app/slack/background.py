"""Work started after an ack (a view published, a question asked): kept until it ends, so
the event loop does not drop it half-way."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class Background:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @property
    def pending(self) -> bool:
        return bool(self._tasks)

    async def close(self) -> None:
        """Cancel what is still running (on shutdown: nothing of it may outlive the store
        and clients it uses)."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
