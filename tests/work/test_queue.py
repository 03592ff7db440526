"""The durable record: each message taken once, a thread in Slack's order, a dead worker's
message taken over when its lease runs out, and what survives the process."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.work.queue import Queue
from app.work.workers import Workers


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def event(ts: str) -> dict[str, str]:
    return {"ts": ts, "text": "deploy?"}


async def test_a_message_is_recorded_once() -> None:
    queue = Queue(Path(":memory:"), ttl=60)
    assert await queue.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))
    assert not await queue.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))  # a Slack retry
    job = await queue.take("a", lease=10)
    assert job is not None and job.event == event("1.1") and job.tries == 1
    await queue.done(job.key, "a")
    assert not await queue.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))  # still a copy
    assert await queue.take("a", lease=10) is None
    assert await queue.waiting() == 0


async def test_a_thread_is_answered_one_message_at_a_time_in_slacks_order() -> None:
    queue = Queue(Path(":memory:"), ttl=60)
    await queue.put("T:C:1.3", "T:C:1.0", "1.3", event("1.3"))  # arrived first, later ts
    await queue.put("T:C:1.2", "T:C:1.0", "1.2", event("1.2"))
    await queue.put("T:C:9.9", "T:C:9.9", "9.9", event("9.9"))  # another thread
    first = await queue.take("a", lease=10)
    other = await queue.take("b", lease=10)
    assert first is not None and first.key == "T:C:1.2"
    assert other is not None and other.key == "T:C:9.9"
    assert await queue.take("c", lease=10) is None  # 1.3 waits for 1.2
    await queue.done(first.key, "a")
    second = await queue.take("c", lease=10)
    assert second is not None and second.key == "T:C:1.3"


async def test_a_message_whose_worker_died_is_taken_over_when_its_lease_runs_out() -> None:
    clock = Clock()
    queue = Queue(Path(":memory:"), ttl=60, clock=clock)
    await queue.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))
    assert await queue.take("dead", lease=10) is not None
    clock.now += 9
    assert await queue.take("alive", lease=10) is None  # the lease still holds
    clock.now += 2
    job = await queue.take("alive", lease=10)
    assert job is not None and job.tries == 2
    assert not await queue.renew(job.key, "dead", lease=10)  # the dead one lost it
    assert await queue.renew(job.key, "alive", lease=10)


async def test_a_message_given_back_is_taken_again_without_counting_a_try() -> None:
    queue = Queue(Path(":memory:"), ttl=60)
    await queue.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))
    job = await queue.take("a", lease=10)
    assert job is not None
    await queue.release(job.key, "a")
    again = await queue.take("b", lease=10)
    assert again is not None and again.tries == 1


async def test_done_keys_are_forgotten_after_the_ttl_and_their_text_at_once(
    tmp_path: Path,
) -> None:
    clock = Clock()
    path = tmp_path / "queue.sqlite3"
    queue = Queue(path, ttl=60, clock=clock)
    await queue.put("T:C:1.1", "T:C:1.1", "1.1", {"text": "SECRET-CANARY"})
    job = await queue.take("a", lease=10)
    assert job is not None
    await queue.done(job.key, "a")
    await queue.close()
    assert b"SECRET-CANARY" not in b"".join(p.read_bytes() for p in tmp_path.iterdir())
    queue = Queue(path, ttl=60, clock=clock)
    clock.now += 61
    assert await queue.take("a", lease=10) is None  # purges what is past the TTL
    assert await queue.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))
    await queue.close()


async def test_what_was_recorded_survives_the_process(tmp_path: Path) -> None:
    path = tmp_path / "data" / "queue.sqlite3"
    queue = Queue(path, ttl=60)
    await queue.put("T:C:1.1", "T:C:1.1", "1.1", event("1.1"))
    await queue.close()  # (a kill is tested with the process: tests/test_shutdown.py)
    reopened = Queue(path, ttl=60)
    job = await reopened.take("a", lease=10)
    assert job is not None and job.key == "T:C:1.1"
    await reopened.close()


async def test_workers_answer_each_message_once_and_give_back_what_a_stop_cuts_short() -> None:
    queue = Queue(Path(":memory:"), ttl=60)
    answered: list[str] = []
    release = asyncio.Event()

    async def answer(job: object) -> None:
        key = getattr(job, "key", "")
        if key == "T:C:slow":
            await release.wait()
        answered.append(key)

    workers = Workers(queue, answer, count=3, lease=5, poll=0.05)
    for n in range(10):
        await queue.put(f"T:C:{n}", f"T:C:{n}", f"{n}.0", event(f"{n}.0"))
    await queue.put("T:C:slow", "T:C:slow", "99.0", event("99.0"))
    workers.start()
    workers.wake()
    async with asyncio.timeout(10):
        while len(answered) < 10:
            await asyncio.sleep(0.01)
    assert await workers.stop(grace=0.1) == 1  # the slow one, given back
    assert sorted(answered) == sorted(f"T:C:{n}" for n in range(10))
    job = await queue.take("next", lease=5)
    assert job is not None and job.key == "T:C:slow"
