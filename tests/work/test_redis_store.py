"""The Redis record's own failures: an outage refuses new messages (said once, and once
more when Redis is back), a restart of a persisting Redis keeps what was recorded, the
text is gone once answered, and the URL's password is never logged."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from app.work.redis_store import RedisStore
from app.work.store import StoreUnavailable
from tests.redis_server import RedisServer, running_redis


def event(ts: str, text: str = "deploy?") -> dict[str, str]:
    return {"ts": ts, "text": text}


async def test_an_outage_refuses_messages_and_is_said_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="vouch.work")
    with running_redis(persist_in=tmp_path) as server:
        record = RedisStore(server.url, ttl=60, timeout=0.5)
        try:
            assert await record.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))
            server.stop()
            for n in range(3):
                with pytest.raises(StoreUnavailable):
                    await record.put(f"T:C:2.{n}", f"T:C:2.{n}", f"2.{n}", event(f"2.{n}"))
                with pytest.raises(StoreUnavailable):
                    await record.take("a", lease=10)
            assert caplog.text.count("redis unreachable (ConnectionError)") == 1
            server.start()  # the append-only file brings back what was recorded
            job = await record.take("a", lease=10)
            assert job is not None and job.key == "T:C:1.1"
            assert caplog.text.count("redis reachable again") == 1
            # a Slack retry of a refused message is recorded now, once
            assert await record.put("T:C:2.0", "T:C:2.0", "2.0", event("2.0"))
            assert not await record.put("T:C:2.0", "T:C:2.0", "2.0", event("2.0"))
        finally:
            await record.close()


async def test_a_burst_of_puts_tells_each_its_fate_copies_included(
    redis: RedisServer,
) -> None:
    record = RedisStore(redis.url, ttl=60)
    try:
        keys = [f"T:C:{n}.0" for n in range(200)] * 2  # each twice: copies in one burst
        written = await asyncio.gather(
            *(record.put(k, k, k.rsplit(":", 1)[1], event("x")) for k in keys)
        )
        assert written == [True] * 200 + [False] * 200
        assert await record.waiting() == 200
    finally:
        await record.close()


async def test_the_text_is_gone_once_answered_and_the_key_after_the_ttl(
    redis: RedisServer,
) -> None:
    record = RedisStore(redis.url, ttl=0.3)
    try:
        await record.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1", "SECRET-CANARY"))
        assert b"SECRET-CANARY" in redis.command("HGET", "{vouch}:m:T:C:1.1", "event")
        job = await record.take("a", lease=10)
        assert job is not None
        await record.done(job.key, "a")
        keys = redis.command("KEYS", "*")
        assert b"{vouch}:seen:T:C:1.1" in keys and b"{vouch}:m:" not in keys
        assert not await record.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))  # a copy
        async with asyncio.timeout(5):  # Redis expires the key after 0.3 s
            while not await record.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1")):
                await asyncio.sleep(0.05)
    finally:
        await record.close()


async def test_the_url_password_is_never_logged(
    redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    url = f"redis://:hunter2-canary@127.0.0.1:{redis.port}/0"
    record = RedisStore(url, ttl=60, timeout=0.5)
    try:
        await record.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))
    finally:
        await record.close()
    assert "127.0.0.1" in caplog.text
    assert "hunter2-canary" not in caplog.text
