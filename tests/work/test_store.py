"""The durable store, SQLite and Redis alike: each message taken once, a thread in Slack's
order, a dead worker's message taken over when its lease runs out, and what survives the
process (Redis's own outages and restarts: tests/work/test_redis_store.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from app.work.redis_store import RedisStore
from app.work.sqlite_store import SqliteStore
from app.work.store import Batched, Store
from app.work.workers import Workers
from tests.redis_server import RedisServer

Stores = Callable[..., Store]


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def event(ts: str) -> dict[str, str]:
    return {"ts": ts, "text": "deploy?"}


@pytest.fixture(params=["sqlite", "redis"])
async def stores(request: pytest.FixtureRequest) -> AsyncIterator[Stores]:
    """Opens stores of the kind the test runs with: (ttl=60, clock=None) → Store.
    Redis stores opened by one test share one (emptied) server, as instances would."""
    opened: list[Store] = []
    server = request.getfixturevalue("redis") if request.param == "redis" else None

    def open_store(ttl: float = 60, clock: Callable[[], float] | None = None) -> Store:
        store: Store
        if isinstance(server, RedisServer):
            store = RedisStore(server.url, ttl=ttl, clock=clock)
        elif clock is None:
            store = SqliteStore(Path(":memory:"), ttl=ttl)
        else:
            store = SqliteStore(Path(":memory:"), ttl=ttl, clock=clock)
        opened.append(store)
        return store

    yield open_store
    for store in opened:
        await store.close()


async def test_a_message_is_recorded_once(stores: Stores) -> None:
    store = stores()
    assert await store.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))
    assert not await store.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))  # a Slack retry
    job = await store.take("a", lease=10)
    assert job is not None and job.event == event("1.1") and job.tries == 1
    await store.done(job.key, "a")
    assert not await store.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))  # still a copy
    assert await store.take("a", lease=10) is None
    assert await store.waiting() == 0


async def test_a_thread_is_answered_one_message_at_a_time_in_slacks_order(
    stores: Stores,
) -> None:
    store = stores()
    await store.put("T:C:1.3", "T:C:1.0", "1.3", event("1.3"))  # arrived first, later ts
    await store.put("T:C:1.2", "T:C:1.0", "1.2", event("1.2"))
    await store.put("T:C:9.9", "T:C:9.9", "9.9", event("9.9"))  # another thread
    first = await store.take("a", lease=10)
    other = await store.take("b", lease=10)
    assert first is not None and first.key == "T:C:1.2"
    assert other is not None and other.key == "T:C:9.9"
    assert await store.take("c", lease=10) is None  # 1.3 waits for 1.2
    await store.done(first.key, "a")
    second = await store.take("c", lease=10)
    assert second is not None and second.key == "T:C:1.3"


async def test_a_message_whose_worker_died_is_taken_over_when_its_lease_runs_out(
    stores: Stores,
) -> None:
    clock = Clock()
    store = stores(clock=clock)
    await store.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))
    assert await store.take("dead", lease=10) is not None
    clock.now += 9
    assert await store.take("alive", lease=10) is None  # the lease still holds
    clock.now += 2
    job = await store.take("alive", lease=10)
    assert job is not None and job.tries == 2
    assert not await store.renew(job.key, "dead", lease=10)  # the dead one lost it
    assert await store.renew(job.key, "alive", lease=10)


async def test_a_message_given_back_is_taken_again_at_once_as_a_second_try(
    stores: Stores,
) -> None:
    store = stores()
    await store.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))
    job = await store.take("a", lease=10)
    assert job is not None
    await store.release(job.key, "a")
    again = await store.take("b", lease=10)  # no lease to wait for
    assert again is not None and again.tries == 2  # its taker looks for an answer first


async def test_done_keys_are_forgotten_after_the_ttl_and_their_text_at_once(
    tmp_path: Path,
) -> None:
    clock = Clock()
    path = tmp_path / "store.sqlite3"
    store = SqliteStore(path, ttl=60, clock=clock)
    await store.put("T:C:1.1", "T:C:1.1", "1.1", {"text": "SECRET-CANARY"})
    job = await store.take("a", lease=10)
    assert job is not None
    await store.done(job.key, "a")
    await store.close()
    assert b"SECRET-CANARY" not in b"".join(p.read_bytes() for p in tmp_path.iterdir())
    store = SqliteStore(path, ttl=60, clock=clock)
    clock.now += 61
    assert await store.take("a", lease=10) is None  # purges what is past the TTL
    assert await store.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))
    await store.close()


async def test_what_was_recorded_survives_the_process(tmp_path: Path) -> None:
    path = tmp_path / "data" / "store.sqlite3"
    store = SqliteStore(path, ttl=60)
    await store.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))
    await store.close()  # (a kill is tested with the process: tests/test_shutdown.py)
    reopened = SqliteStore(path, ttl=60)
    job = await reopened.take("a", lease=10)
    assert job is not None and job.key == "T:C:1.1"
    await reopened.close()


async def test_workers_answer_each_message_once_and_give_back_what_a_stop_cuts_short(
    stores: Stores,
) -> None:
    store = stores()
    answered: list[str] = []
    release = asyncio.Event()

    async def answer(job: object) -> None:
        key = getattr(job, "key", "")
        if key == "T:C:slow":
            await release.wait()
        answered.append(key)

    workers = Workers(store, answer, count=3, lease=5, poll=0.05)
    for n in range(10):
        await store.put(f"T:C:{n}", f"T:C:{n}", f"{n}.0", event(f"{n}.0"))
    await store.put("T:C:slow", "T:C:slow", "99.0", event("99.0"))
    workers.start()
    workers.wake()
    async with asyncio.timeout(10):
        while len(answered) < 10:
            await asyncio.sleep(0.01)
    assert await workers.stop(grace=0.1) == 1  # the slow one, given back
    assert sorted(answered) == sorted(f"T:C:{n}" for n in range(10))
    job = await store.take("next", lease=5)
    assert job is not None and job.key == "T:C:slow"


async def test_instances_share_one_redis_record(redis: RedisServer) -> None:
    """What one instance stores, another takes; a thread stays in order across them."""
    clock = Clock()
    a, b = (RedisStore(redis.url, ttl=60, clock=clock) for _ in range(2))
    await a.put("T:C:1.2", "T:C:1.0", "1.2", event("1.2"))
    assert not await b.put("T:C:1.2", "T:C:1.0", "1.2", event("1.2"))  # a copy, elsewhere
    await b.put("T:C:1.1", "T:C:1.0", "1.1", event("1.1"))
    first = await b.take("b", lease=10)
    assert first is not None and first.key == "T:C:1.1"
    assert await a.take("a", lease=10) is None  # 1.2 waits for 1.1, held by b
    clock.now += 11  # b died holding it
    again = await a.take("a", lease=10)
    assert again is not None and (again.key, again.tries) == ("T:C:1.1", 2)
    await b.done(first.key, "b")  # the dead one's late word changes nothing
    assert await a.take("c", lease=10) is None
    await a.done(again.key, "a")
    last = await a.take("a", lease=10)
    assert last is not None and last.key == "T:C:1.2"
    await a.close()
    await b.close()


async def test_a_message_let_go_for_later_blocks_its_thread_until_then(stores: Stores) -> None:
    clock = Clock()
    store = stores(clock=clock)
    await store.put("T:C:1.1", "T:C:1.0", "1.1", event("1.1"))
    await store.put("T:C:1.2", "T:C:1.0", "1.2", event("1.2"))
    job = await store.take("a", lease=10)
    assert job is not None
    await store.later(job.key, "a", 5)
    assert await store.take("b", lease=10) is None
    clock.now += 6
    again = await store.take("b", lease=10)
    assert again is not None and (again.key, again.tries) == ("T:C:1.1", 2)
    assert await store.waiting() == 2


async def test_puts_made_together_are_one_write_and_each_gets_its_own_result() -> None:
    writes: list[list[int]] = []

    async def write(batch: list[int]) -> list[bool]:
        writes.append(batch)
        return [n % 2 == 0 for n in batch]

    puts = Batched[int](write)
    results = await asyncio.gather(*(puts.add(n) for n in range(200)))
    assert writes == [list(range(200))]  # one round trip for the burst
    assert results == [n % 2 == 0 for n in range(200)]
    assert await puts.add(7) is False and len(writes) == 2  # a later put: its own write


async def test_what_is_held_is_claimed_once_and_read_until_then(stores: Stores) -> None:
    """A private answer waits for its share click: read again by a worker taking its
    message over, claimed by one click of two (two instances on Redis alike)."""
    first, second = stores(), stores()
    await first.hold("T:C:cmd", {"text": "verified"}, seconds=60)
    assert await first.held("T:C:cmd") == {"text": "verified"}
    if isinstance(second, RedisStore):  # instances on one Redis hold it together
        assert await second.held("T:C:cmd") == {"text": "verified"}
    claims = await asyncio.gather(first.claim("T:C:cmd"), first.claim("T:C:cmd"))
    assert sorted(claims, key=bool) == [None, {"text": "verified"}]
    assert await first.held("T:C:cmd") is None and await first.claim("T:C:cmd") is None


async def test_what_is_held_runs_out_and_its_text_is_erased(tmp_path: Path) -> None:
    clock = Clock()
    path = tmp_path / "store.sqlite3"
    store = SqliteStore(path, ttl=60, clock=clock)
    await store.hold("T:C:cmd", {"text": "HELD-CANARY"}, seconds=1800)
    clock.now += 1799
    assert await store.held("T:C:cmd") == {"text": "HELD-CANARY"}
    clock.now += 2
    assert await store.take("a", lease=10) is None  # purges what has run out
    await store.close()
    assert b"HELD-CANARY" not in b"".join(p.read_bytes() for p in tmp_path.iterdir())
    store = SqliteStore(path, ttl=60, clock=clock)
    assert await store.claim("T:C:cmd") is None
    await store.close()


async def test_what_is_held_in_redis_runs_out(redis: RedisServer) -> None:
    store = RedisStore(redis.url, ttl=60)
    try:
        await store.hold("T:C:cmd", {"text": "x"}, seconds=0.05)
        assert await store.held("T:C:cmd") == {"text": "x"}
        deadline = asyncio.get_running_loop().time() + 5
        while await store.held("T:C:cmd") is not None:  # Redis's own expiry: a signal
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.01)
    finally:
        await store.close()
