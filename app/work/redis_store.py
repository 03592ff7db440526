"""The store shared by several instances (REDIS_URL): Redis itself, through
scripts that each run atomically on the server (app/work/store.py says what a store does).

Keys (all under one hash tag, so the scripts stay valid on a Redis Cluster):
- `m:<key>`: one open message (its thread, recorded event, tries, owner);
- `t:<thread>`: the thread's open messages, scored by ts (its head is answered next);
- `ready`: threads scored by when their head may be taken — now for a new message, the
  lease's end while a worker holds it, so a dead instance's message is taken over when
  its lease runs out;
- `held`: thread → the message a worker holds;
- `open`: every open message, for `waiting`;
- `seen:<key>`: set when recorded, expiring after DEDUPE_TTL, so copies are dropped;
- `b:<window>:<counter>`: a budget counter (`m` messages, `t` tokens) and `bz:<window>`:
  the window's counters by messages (app/work/budget.py), each expiring with its window.

Time is the Redis server's (one clock for every instance), unless a test passes a clock.
The event (with the user's text) is deleted when the message is done. Redis must persist
(AOF) for the store to survive a Redis restart: see docs/reliability.md.

Any Redis failure is StoreUnavailable: the intake refuses the message (Slack delivers it
again) rather than answer without the shared store. The log says so once, and once more
when Redis is back.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from redis.asyncio import BlockingConnectionPool, Redis
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

from app.errors import label
from app.work.budget import Counter, Spent
from app.work.store import Batched, Job, StoreUnavailable, order

log = logging.getLogger("vouch.work")
T = TypeVar("T")

PREFIX = "{vouch}:"
TIMEOUT = 1.0  # one command (or connecting) may take this long: the intake answers Slack in time
CONNECTIONS = 50  # per instance
WAIT_FOR_CONNECTION = 2.0

# Every script's ARGV starts with the key prefix and the time (negative: the server's).
_NOW = """
local P = ARGV[1]
local now = tonumber(ARGV[2])
if now < 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
"""

# ARGV: P, now, key, thread, ts order, event, dedupe ttl (ms). 1 if recorded, 0 if a copy.
_PUT = (
    _NOW
    + """
local key, thread = ARGV[3], ARGV[4]
local m = P .. 'm:' .. key
if redis.call('EXISTS', m) == 1 then return 0 end
if not redis.call('SET', P .. 'seen:' .. key, '1', 'NX', 'PX', ARGV[7]) then return 0 end
redis.call('HSET', m, 'thread', thread, 'event', ARGV[6], 'tries', 0, 'owner', '')
redis.call('ZADD', P .. 't:' .. thread, ARGV[5], key)
redis.call('ZADD', P .. 'open', now, key)
redis.call('ZADD', P .. 'ready', 'NX', now, thread)
return 1
"""
)

# ARGV: P, now, owner, lease. {key, event, tries} or nil. Threads whose record is
# inconsistent (no open message) are dropped; at most 20 looked at per call.
_TAKE = (
    _NOW
    + """
for _ = 1, 20 do
  local due = redis.call('ZRANGEBYSCORE', P .. 'ready', '-inf', now, 'LIMIT', 0, 1)
  if #due == 0 then return false end
  local thread = due[1]
  local t = P .. 't:' .. thread
  local head = redis.call('ZRANGE', t, 0, 0)
  if #head == 0 then
    redis.call('ZREM', P .. 'ready', thread)
    redis.call('HDEL', P .. 'held', thread)
  else
    local key = head[1]
    local m = P .. 'm:' .. key
    local event = redis.call('HGET', m, 'event')
    if not event then
      redis.call('ZREM', t, key)
      redis.call('ZREM', P .. 'open', key)
    else
      local before = redis.call('HGET', P .. 'held', thread)
      if before and before ~= key and redis.call('EXISTS', P .. 'm:' .. before) == 1 then
        redis.call('HSET', P .. 'm:' .. before, 'owner', '')
      end
      redis.call('HSET', P .. 'held', thread, key)
      local tries = redis.call('HINCRBY', m, 'tries', 1)
      redis.call('HSET', m, 'owner', ARGV[3])
      redis.call('ZADD', P .. 'ready', 'XX', now + tonumber(ARGV[4]), thread)
      return {key, event, tries}
    end
  end
end
return false
"""
)

# The next scripts act only for the message's owner. ARGV: P, now, key, owner, ...
_OWNED = (
    _NOW
    + """
local key = ARGV[3]
local m = P .. 'm:' .. key
if redis.call('HGET', m, 'owner') ~= ARGV[4] then return 0 end
local thread = redis.call('HGET', m, 'thread')
local holds = redis.call('HGET', P .. 'held', thread) == key
"""
)

# ARGV: ..., lease.
_RENEW = (
    _OWNED
    + """
if not holds then return 0 end
redis.call('ZADD', P .. 'ready', 'XX', now + tonumber(ARGV[5]), thread)
return 1
"""
)

_DONE = (
    _OWNED
    + """
local t = P .. 't:' .. thread
redis.call('DEL', m)
redis.call('ZREM', t, key)
redis.call('ZREM', P .. 'open', key)
if holds then redis.call('HDEL', P .. 'held', thread) end
if redis.call('ZCARD', t) == 0 then
  redis.call('ZREM', P .. 'ready', thread)
elseif holds then
  redis.call('ZADD', P .. 'ready', now, thread)
end
return 1
"""
)

_RELEASE = (
    _OWNED
    + """
redis.call('HSET', m, 'owner', '')
if holds then redis.call('HDEL', P .. 'held', thread) end
redis.call('ZADD', P .. 'ready', now, thread)
return 1
"""
)

# ARGV: ..., delay.
_LATER = (
    _OWNED
    + """
redis.call('HSET', m, 'owner', '')
redis.call('ZADD', P .. 'ready', now + tonumber(ARGV[5]), thread)
return 1
"""
)


# ARGV: P, now, window, until (ms), then key, message limit, token limit per counter.
# {key, 'messages'|'tokens'} of the first counter at a limit (nothing counted), or nil.
_ADMIT = (
    _NOW
    + """
local window, expires = ARGV[3], ARGV[4]
for i = 5, #ARGV, 3 do
  local got = redis.call('HMGET', P .. 'b:' .. window .. ':' .. ARGV[i], 'm', 't')
  local m, t = tonumber(got[1]) or 0, tonumber(got[2]) or 0
  local ml, tl = tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  if ml > 0 and m >= ml then return {ARGV[i], 'messages'} end
  if tl > 0 and t >= tl then return {ARGV[i], 'tokens'} end
end
for i = 5, #ARGV, 3 do
  local b = P .. 'b:' .. window .. ':' .. ARGV[i]
  redis.call('HINCRBY', b, 'm', 1)
  redis.call('PEXPIREAT', b, expires)
  redis.call('ZINCRBY', P .. 'bz:' .. window, 1, ARGV[i])
end
redis.call('PEXPIREAT', P .. 'bz:' .. window, expires)
return false
"""
)


class RedisStore:
    """The store in Redis; implements app.work.store.Store. Puts arriving together
    go in one pipeline (a burst of events is one round trip, not one each)."""

    def __init__(
        self,
        url: str,
        ttl: float,
        *,
        timeout: float = TIMEOUT,
        clock: Callable[[], float] | None = None,
        prefix: str = PREFIX,
    ) -> None:
        self._ttl_ms = str(int(ttl * 1000))
        self._clock = clock
        self._prefix = prefix
        self._down = False
        self._puts = Batched[list[str]](self._put_all)
        pool = BlockingConnectionPool.from_url(
            url,
            max_connections=CONNECTIONS,
            timeout=WAIT_FOR_CONNECTION,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),  # a failure is reported at once: the intake decides
        )
        self.redis = Redis.from_pool(pool)
        self._scripts = {
            name: self.redis.register_script(body)
            for name, body in (
                ("put", _PUT),
                ("take", _TAKE),
                ("renew", _RENEW),
                ("done", _DONE),
                ("release", _RELEASE),
                ("later", _LATER),
                ("admit", _ADMIT),
            )
        }
        where = pool.connection_kwargs
        log.info(
            "messages recorded in redis at %s:%s/%s",
            where.get("host", "?"),
            where.get("port", "?"),
            where.get("db", 0),
        )

    async def put(self, key: str, thread: str, ts: str, event: dict[str, Any]) -> bool:
        rank = order(ts)
        args = [key, thread, "+inf" if rank == float("inf") else repr(rank), json.dumps(event)]
        return await self._puts.add(args)

    async def _put_all(self, batch: list[list[str]]) -> list[bool]:
        """One pipeline of put scripts for a batch of messages."""

        async def write() -> list[Any]:
            async with self.redis.pipeline(transaction=False) as pipe:
                for args in batch:
                    await self._scripts["put"](args=self._argv(*args, self._ttl_ms), client=pipe)
                return list(await pipe.execute())

        return [result == 1 for result in await self._guarded(write())]

    async def take(self, owner: str, lease: float) -> Job | None:
        found = await self._call("take", owner, repr(lease))
        if not found:
            return None
        key, event, tries = found
        return Job(_text(key), json.loads(event), int(tries))

    async def renew(self, key: str, owner: str, lease: float) -> bool:
        return bool(await self._call("renew", key, owner, repr(lease)))

    async def done(self, key: str, owner: str) -> None:
        await self._call("done", key, owner)

    async def release(self, key: str, owner: str) -> None:
        await self._call("release", key, owner)

    async def later(self, key: str, owner: str, delay: float) -> None:
        await self._call("later", key, owner, repr(delay))

    async def waiting(self) -> int:
        return int(await self._guarded(self.redis.zcard(self._prefix + "open")))

    async def hold(self, key: str, value: dict[str, Any], seconds: float) -> None:
        name = f"{self._prefix}held:{key}"
        await self._guarded(self.redis.set(name, json.dumps(value), px=max(1, int(seconds * 1000))))

    async def held(self, key: str) -> dict[str, Any] | None:
        found = await self._guarded(self.redis.get(f"{self._prefix}held:{key}"))
        return None if found is None else dict(json.loads(found))

    async def claim(self, key: str) -> dict[str, Any] | None:
        async def claim() -> Any:
            async with self.redis.pipeline(transaction=True) as pipe:  # MULTI: one gets it
                name = f"{self._prefix}held:{key}"
                pipe.get(name)
                pipe.delete(name)
                return (await pipe.execute())[0]

        found = await self._guarded(claim())
        return None if found is None else dict(json.loads(found))

    async def admit(
        self, window: str, counters: Sequence[Counter], until: float
    ) -> tuple[str, Spent] | None:
        """app.work.budget.Ledger.admit, in one script."""
        limits = [str(part) for counter in counters for part in counter]
        full = await self._call("admit", window, str(int(until * 1000)), *limits)
        return (_text(full[0]), _text(full[1])) if full else None  # type: ignore[return-value]

    async def spend(self, window: str, keys: Sequence[str], tokens: int, until: float) -> None:
        async def add() -> None:
            async with self.redis.pipeline(transaction=True) as pipe:
                for key in keys:
                    counter = f"{self._prefix}b:{window}:{key}"
                    pipe.hincrby(counter, "t", tokens)
                    pipe.pexpireat(counter, int(until * 1000))
                await pipe.execute()

        await self._guarded(add())

    async def spent(self, window: str, most: int) -> list[tuple[str, int, int]]:
        async def read() -> list[tuple[str, int, int]]:
            found = await self.redis.zrevrange(f"{self._prefix}bz:{window}", 0, most - 1)
            keys = [_text(k) for k in found if isinstance(k, bytes | str)]
            async with self.redis.pipeline(transaction=False) as pipe:  # one round trip
                for key in keys:
                    pipe.hmget(f"{self._prefix}b:{window}:{key}", ["m", "t"])
                counts = await pipe.execute()
            return [(k, int(m or 0), int(t or 0)) for k, (m, t) in zip(keys, counts, strict=True)]

        return await self._guarded(read())

    async def close(self) -> None:
        await self.redis.aclose()

    async def _call(self, script: str, *args: str) -> Any:
        return await self._guarded(self._scripts[script](args=self._argv(*args)))

    def _argv(self, *args: str) -> list[str]:
        now = "-1" if self._clock is None else repr(self._clock())
        return [self._prefix, now, *args]

    async def _guarded(self, call: Awaitable[T]) -> T:
        """Run a Redis call; a failure becomes StoreUnavailable, logged once per outage."""
        try:
            result = await call
        except RedisError as exc:
            raise self._unavailable(exc) from None
        if self._down:
            self._down = False
            log.warning("redis reachable again: taking messages")
        return result

    def _unavailable(self, error: BaseException) -> StoreUnavailable:
        if isinstance(error, StoreUnavailable):
            return error
        if not self._down:
            self._down = True
            log.error(
                "redis unreachable (%s): taking no new messages (Slack delivers them again "
                "later) until it is back",
                label(error),
            )
        return StoreUnavailable(label(error))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
