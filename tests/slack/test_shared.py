"""The Redis store against a real redis-server on loopback: one taker per message across
instances, one message at a time per thread, expiry of a dead holder's lock, and the
fallback to the in-process store while Redis is away."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest

from app.slack.shared import RedisStore
from tests.redis_server import RedisServer, running_redis
from tests.slack.bolt import until


@pytest.fixture
async def two(redis: RedisServer) -> AsyncIterator[tuple[RedisStore, RedisStore]]:
    """Two instances' stores on the same Redis."""
    a, b = RedisStore(redis.url, ttl=60), RedisStore(redis.url, ttl=60)
    yield a, b
    await a.close()
    await b.close()


async def test_each_key_is_taken_by_exactly_one_instance(
    two: tuple[RedisStore, RedisStore],
) -> None:
    a, b = two
    keys = [f"T1:C1:{n}.0001" for n in range(200)]
    takes = await asyncio.gather(*(s.first(k) for k in keys for s in (a, b, a, b)))
    per_key = [sum(takes[i * 4 : i * 4 + 4]) for i in range(len(keys))]
    assert per_key == [1] * len(keys)
    assert all([await a.seen(k) for k in keys]) and all([await b.seen(k) for k in keys])
    assert not await a.seen("T1:C1:other")


async def test_a_key_is_forgotten_after_the_ttl(redis: RedisServer) -> None:
    a, b = RedisStore(redis.url, ttl=0.2), RedisStore(redis.url, ttl=0.2)
    try:
        assert await a.first("k") and not await b.first("k")
        assert redis.command("PTTL", "vouch:seen:k").startswith(b":")  # an integer reply
        assert 0 < int(redis.command("PTTL", "vouch:seen:k")[1:]) <= 200
        # expired in Redis, and in b's own memory (which took note of it just after)
        await until(lambda: redis.command("EXISTS", "vouch:seen:k") == b":0\r\n")
        await until(lambda: "k" not in b.local.messages)
        assert not await b.seen("k")
        assert await b.first("k")
    finally:
        await a.close()
        await b.close()


async def test_one_message_of_a_thread_at_a_time_across_instances(
    two: tuple[RedisStore, RedisStore],
) -> None:
    inside: dict[str, int] = {"t1": 0, "t2": 0}
    most: dict[str, int] = {"t1": 0, "t2": 0}
    overlapped = asyncio.Event()

    async def answer(store: RedisStore, thread: str) -> None:
        async with store.turn(thread):
            inside[thread] += 1
            most[thread] = max(most[thread], inside[thread])
            if inside["t1"] and inside["t2"]:
                overlapped.set()
            await asyncio.sleep(0.05)
            inside[thread] -= 1

    a, b = two
    await asyncio.gather(*(answer(s, t) for s in (a, b) * 4 for t in ("t1", "t2")))
    assert most == {"t1": 1, "t2": 1}  # never two answers in one thread
    assert overlapped.is_set()  # different threads do run together
    assert await a.first("after") and not await b.first("after")


async def test_a_dead_instances_lock_expires(redis: RedisServer) -> None:
    """An instance that died holding a thread frees it after the lock's expiry."""
    redis.command("SET", "vouch:turn:t", "dead-instance", "PX", "400")
    store = RedisStore(redis.url, ttl=60, lock_ttl=5)
    try:
        started = asyncio.get_running_loop().time()
        async with store.turn("t"):
            waited = asyncio.get_running_loop().time() - started
        assert 0.3 < waited < 2
    finally:
        await store.close()


async def test_the_holder_renews_its_lock_while_it_answers(
    redis: RedisServer,
) -> None:
    a = RedisStore(redis.url, ttl=60, lock_ttl=0.3)
    b = RedisStore(redis.url, ttl=60, lock_ttl=0.3)
    order: list[str] = []
    holding = asyncio.Event()

    async def long_answer() -> None:
        async with a.turn("t"):
            order.append("a in")
            holding.set()
            await asyncio.sleep(1.0)  # the answer takes over three lock lifetimes
            order.append("a out")

    async def next_message() -> None:
        await holding.wait()
        async with b.turn("t"):
            order.append("b in")

    try:
        await asyncio.gather(long_answer(), next_message())
        assert order == ["a in", "a out", "b in"]
        assert redis.command("EXISTS", "vouch:turn:t") == b":0\r\n"  # released
    finally:
        await a.close()
        await b.close()


async def test_redis_going_away_falls_back_to_the_in_process_store(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="vouch.shared")
    with running_redis() as server:
        store = RedisStore(server.url, ttl=60, retry_after=0.3, timeout=0.5)
        try:
            assert await store.first("before")
            server.stop()
            # still answering: keys are taken in process, duplicates still caught
            assert await store.first("during")
            assert not await store.first("during")
            assert not await store.first("before")
            async with store.turn("t"):
                pass
            assert not store.reachable
            lost = [r for r in caplog.records if "redis unavailable" in r.getMessage()]
            assert len(lost) == 1  # said once per outage, with the error's type only
            assert "ConnectionError" in lost[0].getMessage()

            server.start()  # same port
            await until(lambda: store.reachable)  # RETRY_AFTER (0.3 s) later
            assert await store.first("after")
            assert store.reachable
            assert server.command("EXISTS", "vouch:seen:after") == b":1\r\n"
            assert any("reachable again" in r.getMessage() for r in caplog.records)
        finally:
            await store.close()


async def test_redis_down_from_the_start_still_answers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = RedisServer()  # never started: nothing listens on its port
    store = RedisStore(server.url, ttl=60, timeout=0.5)
    try:
        assert await store.first("k") and not await store.first("k")
        assert not await store.seen("other")
        async with store.turn("t"):
            pass
    finally:
        await store.close()
    assert "redis unavailable" in caplog.text


async def test_the_url_password_is_never_logged(
    redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    store = RedisStore(f"redis://:hunter2-canary@127.0.0.1:{redis.port}/0", ttl=60, timeout=0.5)
    try:
        await store.first("k")  # the server has no password: an auth error, logged by type
    finally:
        await store.close()
    assert "127.0.0.1" in caplog.text
    assert "hunter2-canary" not in caplog.text
