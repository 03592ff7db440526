"""Several instances: deduplication and per-thread ordering in Redis (REDIS_URL).

A message is taken by the first instance whose `SET key NX PX ttl` succeeds; a thread's
turn is a Redis lock with an expiry that the holder renews while it answers, so a crashed
instance frees the thread within LOCK_TTL seconds. The in-process store sits underneath:
it orders the messages of a thread within this instance (first come, first served), and
when Redis cannot be reached the bot keeps answering on it alone, says so once, and tries
Redis again every RETRY_AFTER seconds. During such an outage each instance dedupes only
what it has seen itself.

Keys hold team, channel and ts ids, never message content."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.lock import Lock
from redis.backoff import NoBackoff
from redis.exceptions import LockError, RedisError
from redis.retry import Retry

from app.errors import label
from app.slack.dedupe import LocalStore

log = logging.getLogger("vouch.shared")

PREFIX = "vouch:"
LOCK_TTL = 30.0  # how long a thread stays locked by an instance that died holding it
RETRY_AFTER = 5.0  # after a Redis failure, in-process only for this long
TIMEOUT = 1.0  # one Redis command (or connection) may take this long
POLL = 0.05  # how often a waiting message asks for its thread's lock
CONNECTIONS = 50  # per instance
WAIT_FOR_CONNECTION = 10.0


class RedisStore:
    def __init__(
        self,
        url: str,
        ttl: float,
        *,
        lock_ttl: float = LOCK_TTL,
        retry_after: float = RETRY_AFTER,
        timeout: float = TIMEOUT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.local = LocalStore(ttl)
        self._ttl_ms = int(ttl * 1000)
        self._lock_ttl = lock_ttl
        self._retry_after = retry_after
        self._clock = clock
        self._down_until: float | None = None  # set while Redis is treated as unreachable
        pool = BlockingConnectionPool.from_url(
            url,
            max_connections=CONNECTIONS,
            timeout=WAIT_FOR_CONNECTION,  # a burst waits for a connection, not an error
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),  # our own fallback decides, at once
        )
        self.redis = Redis.from_pool(pool)
        where = self.redis.connection_pool.connection_kwargs
        log.info(
            "dedupe and thread order shared through redis at %s:%s/%s",
            where.get("host", "?"),
            where.get("port", "?"),
            where.get("db", 0),
        )

    @property
    def reachable(self) -> bool:
        """Whether Redis is asked (False for RETRY_AFTER seconds after a failure)."""
        return self._down_until is None or self._clock() >= self._down_until

    async def seen(self, key: str) -> bool:
        if await self.local.seen(key):
            return True
        if not self.reachable:
            return False
        try:
            found = await self.redis.exists(PREFIX + "seen:" + key)
        except RedisError as exc:
            self._lost(exc)
            return False
        self._back()
        return bool(found)

    async def first(self, key: str) -> bool:
        if not await self.local.first(key):
            return False  # this instance took it already
        if not self.reachable:
            return True
        try:
            taken = await self.redis.set(PREFIX + "seen:" + key, b"1", nx=True, px=self._ttl_ms)
        except RedisError as exc:
            self._lost(exc)
            return True
        self._back()
        return bool(taken)

    @asynccontextmanager
    async def turn(self, thread: str) -> AsyncIterator[None]:
        async with self.local.turn(thread):
            lock = await self._acquire(thread)
            renewing = asyncio.create_task(self._renew(lock)) if lock is not None else None
            try:
                yield
            finally:
                if renewing is not None:
                    renewing.cancel()
                    with suppress(asyncio.CancelledError):
                        await renewing
                if lock is not None:
                    await self._release(lock)

    async def close(self) -> None:
        await self.redis.aclose()

    async def _acquire(self, thread: str) -> Lock | None:
        if not self.reachable:
            return None
        lock = self.redis.lock(
            PREFIX + "turn:" + thread,
            timeout=self._lock_ttl,
            sleep=POLL,
            thread_local=False,  # one Lock object per turn; tasks share the thread
        )
        try:
            await lock.acquire()
        except RedisError as exc:
            self._lost(exc)
            return None
        self._back()
        return lock

    async def _renew(self, lock: Lock) -> None:
        """Keep the lock while the answer runs: reset its expiry every third of it."""
        while True:
            await asyncio.sleep(self._lock_ttl / 3)
            try:
                await lock.reacquire()
            except LockError:
                log.warning("thread lock lost before the answer finished (it expired)")
                return
            except RedisError as exc:
                self._lost(exc)
                return

    async def _release(self, lock: Lock) -> None:
        try:
            await lock.release()
        except LockError:
            log.warning("thread lock had expired when the answer finished")
        except RedisError as exc:
            self._lost(exc)  # the lock expires by itself

    def _lost(self, exc: Exception) -> None:
        if self._down_until is None:
            log.warning(
                "redis unavailable (%s): answering with the in-process store, "
                "trying redis again every %g s",
                label(exc),
                self._retry_after,
            )
        self._down_until = self._clock() + self._retry_after

    def _back(self) -> None:
        if self._down_until is not None:
            log.info("redis reachable again: dedupe and thread order shared")
            self._down_until = None
