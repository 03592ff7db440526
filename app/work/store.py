"""The store: the durable record of the messages taken in, and what it offers the intake
and the workers, whichever holds it: SQLite on this machine (app/work/sqlite_store.py) or
Redis shared by several instances (app/work/redis_store.py).

A message is recorded once (a Slack retry, or the same message arriving as both
`app_mention` and `message.*`, is a copy), taken by one worker at a time under a lease the
worker renews, and done once its answer or failure message is posted. A lease that runs
out (the worker's process died) makes the message takeable again; within a thread,
messages are taken one at a time in Slack's order (by ts).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Job:
    """A message taken by a worker: its key, the event fields it is answered from, and how
    many times it has been taken (more than once: a worker died or gave it back)."""

    key: str
    event: dict[str, Any]
    tries: int


class StoreUnavailable(Exception):
    """The store cannot be reached (Redis down): nothing was written. The intake refuses
    the message (Slack delivers it again); workers try again later."""


# A store that cannot answer: Redis away, or SQLite failing (locked, disk full, gone)
UNREACHABLE = (StoreUnavailable, sqlite3.Error)


class Store(Protocol):
    """What the durable store of messages offers the intake and the workers."""

    async def put(self, key: str, thread: str, ts: str, event: dict[str, Any]) -> bool:
        """Store a message; False when it was recorded already (a copy)."""
        ...

    async def take(self, owner: str, lease: float) -> Job | None:
        """The next message a worker may answer, now held by `owner` for `lease` seconds."""
        ...

    async def renew(self, key: str, owner: str, lease: float) -> bool:
        """Extend the lease; False when `owner` no longer holds the message."""
        ...

    async def done(self, key: str, owner: str) -> None:
        """Answered: forget the message's text; its key stays a copy for the dedupe TTL."""
        ...

    async def release(self, key: str, owner: str) -> None:
        """Given back unfinished (a shutdown): taken again at once. The try counts: a
        message cut short may have been cut in the middle of its delivery, so its next
        taker looks in the thread first, as after a crash."""
        ...

    async def later(self, key: str, owner: str, delay: float) -> None:
        """Let go of the message for `delay` seconds; then any worker may take it."""
        ...

    async def waiting(self) -> int:
        """Messages recorded and not yet done."""
        ...

    async def hold(self, key: str, value: dict[str, Any], seconds: float) -> None:
        """Keep `value` under `key` for `seconds` (a private answer until it is shared),
        in place of what was held there."""
        ...

    async def held(self, key: str) -> dict[str, Any] | None:
        """What is held under `key`, if it has not run out or been claimed."""
        ...

    async def claim(self, key: str) -> dict[str, Any] | None:
        """What is held under `key`, taken away: of two claims, one gets it."""
        ...

    async def close(self) -> None: ...


class Batched(Generic[T]):
    """Puts made in the same event-loop tick are written together — a burst of events is
    one round trip to the store, not one each — and each caller learns its own result (or
    the write's error). `write` gets the batch and returns one bool per item."""

    def __init__(self, write: Callable[[list[T]], Awaitable[list[bool]]]) -> None:
        self._write = write
        self._pending: list[tuple[T, asyncio.Future[bool]]] = []
        self._writing: set[asyncio.Future[list[bool]]] = set()

    async def add(self, item: T) -> bool:
        written: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._pending.append((item, written))
        if len(self._pending) == 1:
            asyncio.get_running_loop().call_soon(self._flush)
        return await written

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        writing = asyncio.ensure_future(self._write([item for item, _ in batch]))  # noqa: RUF006 (kept in _writing)
        self._writing.add(writing)
        writing.add_done_callback(self._writing.discard)

        def settle(outcome: asyncio.Future[list[bool]]) -> None:
            error = outcome.exception()
            for n, (_, written) in enumerate(batch):
                if written.done():
                    continue  # its caller was cancelled
                if error is not None:
                    written.set_exception(error)
                else:
                    written.set_result(outcome.result()[n])

        writing.add_done_callback(settle)


def message_key(team: str, channel: str, ts: str) -> str:
    """The identity of a user message (and, with its thread's ts, of a thread): the same
    for Slack's retries and for one message arriving as two event types."""
    return f"{team}:{channel}:{ts}"


def order(ts: str) -> float:
    """A Slack ts as a number to order a thread by (a malformed one goes last)."""
    try:
        return float(ts)
    except ValueError:
        return float("inf")
