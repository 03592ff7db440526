"""Workers: take recorded messages and answer them, holding each under a renewed lease.

One dispatcher per process takes messages from the store while fewer than WORKERS are
being answered (woken at once by the intake, else looking every POLL seconds for work
another process gave back or left behind). Shutdown stops taking, lets answers in flight
finish within a grace period, then gives the rest back to the store, so they are
answered after the restart or by another instance.

While the store cannot be reached (Redis down) nothing is taken; a lease that cannot be
renewed may run out (another worker then takes the message over and finds the answer in
the thread before posting); marking a message done is tried again for up to one lease.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Coroutine
from contextlib import suppress
from typing import Any

from app.work.store import Job, Store, StoreUnavailable

log = logging.getLogger("vouch.work")

POLL = 1.0  # seconds between looks for work when not woken
LEASE = 15.0  # seconds a message stays held by a worker that stopped renewing it

Answer = Callable[[Job], Coroutine[Any, Any, None]]
LATER = 5.0  # seconds before a message that could not be started is taken again
SETTLE_EVERY = 0.5  # seconds between tries to mark a message done while the store is away


class TryLater(Exception):
    """The message cannot be started now (e.g. Slack is unreachable): take it again
    later; each take counts toward the message's tries."""


class Workers:
    """One dispatcher takes messages (one at a time: no herd of workers racing for the
    store) while a worker slot is free; each message is answered in a task of its own,
    under a lease renewed until it ends."""

    def __init__(
        self, store: Store, answer: Answer, count: int, lease: float = LEASE, poll: float = POLL
    ) -> None:
        self.store = store
        self.owner = uuid.uuid4().hex[:12]  # this process, in the store's rows
        self._answer = answer
        self._slots = asyncio.Semaphore(count)
        self._lease = lease
        self._poll = poll
        self._wake = asyncio.Event()
        self._dispatcher: asyncio.Task[None] | None = None
        self._held: dict[asyncio.Task[None], Job] = {}  # answers in flight
        self._running: set[asyncio.Task[None]] = set()  # their lease keepers
        self._stopping = False

    def start(self) -> None:
        """Start taking messages (once)."""
        if self._dispatcher is None and not self._stopping:
            self._dispatcher = asyncio.create_task(self._dispatch())

    @property
    def busy(self) -> bool:
        """Whether a message is being answered."""
        return bool(self._held)

    def wake(self) -> None:
        """A message was recorded: take it now."""
        self._wake.set()

    async def stop(self, grace: float) -> int:
        """Stop taking messages; give answers in flight `grace` seconds, then give the
        unfinished back to the store. Returns how many were given back."""
        self._stopping = True
        if self._dispatcher is not None:
            self._dispatcher.cancel()
            with suppress(asyncio.CancelledError):
                await self._dispatcher
        busy = list(self._held)
        if busy:
            await asyncio.wait(busy, timeout=grace)
        unfinished = [(task, job) for task, job in self._held.items() if not task.done()]
        for task, _ in unfinished:
            task.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)
        for _, job in unfinished:
            try:
                await self.store.release(job.key, self.owner)
            except StoreUnavailable:
                log.warning("not given back (the store is unavailable): its lease runs out")
        return len(unfinished)

    async def _dispatch(self) -> None:
        while not self._stopping:
            await self._slots.acquire()
            self._wake.clear()
            job = await self._take()
            if job is None:
                self._slots.release()
                with suppress(TimeoutError):
                    async with asyncio.timeout(self._poll):
                        await self._wake.wait()
                continue
            answering = asyncio.create_task(self._answer(job))
            self._held[answering] = job
            keeper = asyncio.create_task(self._held_while(answering, job))
            self._running.add(keeper)
            keeper.add_done_callback(self._finished)

    async def _take(self) -> Job | None:
        try:
            return await self.store.take(self.owner, self._lease)
        except StoreUnavailable:
            return None  # the store logged it; looked for again after POLL

    def _finished(self, keeper: asyncio.Task[None]) -> None:
        self._running.discard(keeper)
        self._slots.release()

    async def _held_while(self, answering: asyncio.Task[None], job: Job) -> None:
        """Renew the lease until the answer ends; then the message is done."""
        try:
            while True:
                done, _ = await asyncio.wait({answering}, timeout=self._lease / 3)
                if done:
                    break
                try:
                    renewed = await self.store.renew(job.key, self.owner, self._lease)
                except StoreUnavailable:
                    continue  # tried again in a third of a lease
                if not renewed:  # taken over (this process stalled past its lease)
                    log.warning("lease lost while answering: left to the worker that took it")
                    answering.cancel()
        finally:
            del self._held[answering]
        if answering.cancelled():
            return  # given back by stop(), or taken over by another worker
        error = answering.exception()
        if isinstance(error, TryLater):
            log.warning("message not started (%s): taken again in %.0f s", error, LATER)
            with suppress(StoreUnavailable):  # else taken again when the lease runs out
                await self.store.later(job.key, self.owner, LATER)
            return
        if error is not None:  # answer() handles its own; this is a bug
            log.error("worker: answer raised %s", type(error).__name__)
        await self._settle(job)

    async def _settle(self, job: Job) -> None:
        """Mark the message done, trying again for up to one lease while the store is
        away; past that, whoever takes it over finds the answer in the thread."""
        for _ in range(max(1, int(self._lease / SETTLE_EVERY))):
            try:
                await self.store.done(job.key, self.owner)
                return
            except StoreUnavailable:
                await asyncio.sleep(SETTLE_EVERY)
        log.warning("answered, but not marked done: the next taker checks the thread")
