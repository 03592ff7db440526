"""Takeover: how long a message waits when the instance answering it dies.

Run: .venv/bin/python -m bench.takeover [--trials 5] [--messages 10] [--lease 15]

Two bot processes (`python -m app`) share a real redis-server (REDIS_URL). Each trial
sends `--messages` events to the first instance, waits until its model calls are in
flight (the model would take 60 s), kills it with SIGKILL, and times, for each message,
kill → the second instance's model call (the takeover) and kill → its answer in Slack.
The bound is QUEUE_LEASE (the dead worker's lease runs out) plus up to one POLL (1 s, the
survivor's look for work); every message must be answered exactly once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import time
from collections import Counter
from typing import Any

import aiohttp

from bench.bots import ANSWER, body_for, signed, start_bot
from bench.stats import p99
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.server import free_port, wait_healthy
from tests.fakes.slack import FakeSlack
from tests.redis_server import running_redis


async def trial(
    slack: FakeSlack,
    model: FakeAnthropic,
    asked: dict[int, float],
    url: str,
    *,
    n: int,
    lease: int,
) -> tuple[list[float], list[float], Counter[str]]:
    """One kill: the takeover and answer times of `n` messages, and answers per message."""
    slack.reset()
    asked.clear()
    dying_port, other_port = free_port(), free_port()
    dying = start_bot(slack, model, dying_port, url, QUEUE_LEASE=str(lease))
    survivor = start_bot(slack, model, other_port, url, QUEUE_LEASE=str(lease))
    try:
        await wait_healthy(f"http://127.0.0.1:{dying_port}")
        await wait_healthy(f"http://127.0.0.1:{other_port}")
        stamps = []
        async with aiohttp.ClientSession() as session:
            for k in range(n):
                body = body_for(k, 0)
                stamps.append(json.loads(body)["event"]["ts"])
                events = f"http://127.0.0.1:{dying_port}/slack/events"
                async with session.post(events, data=body, headers=signed(body)) as response:
                    assert response.status == 200, response.status
        deadline = time.monotonic() + 30
        while len(asked) < n and time.monotonic() < deadline:  # all being answered
            await asyncio.sleep(0.02)
        assert len(asked) == n, f"the first instance started {len(asked)} of {n} answers"
        first_asked = dict(asked)
        dying.kill()
        killed = time.monotonic()
        dying.wait(10)
        deadline = killed + lease + 30
        while time.monotonic() < deadline:
            answered = {c.params.get("thread_ts") for c in slack.calls if _answer(c.method)}
            if set(stamps) <= answered:
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(1.0)  # let any duplicate show itself
        taken = [at - killed for k, at in asked.items() if at != first_asked.get(k)]
        posted = [c for c in slack.calls if _answer(c.method) and c.params.get("thread_ts")]
        answers = Counter(str(c.params["thread_ts"]) for c in posted)
        return taken, [c.at - killed for c in posted], answers
    finally:
        for bot in (dying, survivor):
            bot.kill()
            bot.wait(10)


def _answer(method: str) -> bool:
    return method == "chat.postMessage"


async def run(trials: int, messages: int, lease: int) -> None:
    asked: dict[int, float] = {}

    def respond(body: dict[str, Any]) -> Reply:
        question = body["messages"][-1]["content"][-1]["text"]
        k = int(re.search(r"question (\d+)", question).group(1))  # type: ignore[union-attr]
        slow = k not in asked  # the first instance's call hangs; the survivor's is quick
        asked[k] = time.monotonic()
        return Reply(ANSWER, delay=60.0 if slow else 0.05)

    slack, model = FakeSlack(), FakeAnthropic(responder=respond)
    slack.start()
    model.start()
    takeovers: list[float] = []
    answers: list[float] = []
    exact = total = 0
    try:
        with running_redis() as redis:
            for _ in range(trials):
                redis.command("FLUSHALL")
                taken, posted, per_message = await trial(
                    slack, model, asked, redis.url, n=messages, lease=lease
                )
                takeovers += taken
                answers += posted
                exact += sum(1 for count in per_message.values() if count == 1)
                total += messages
    finally:
        slack.stop()
        model.stop()
    print(f"takeover of a killed instance's messages (QUEUE_LEASE={lease} s, 2 instances)")
    print(f"  {trials} kills × {messages} messages: {exact}/{total} answered exactly once")
    for name, samples in (("kill → taken over", takeovers), ("kill → answered", answers)):
        if samples:
            median, worst = statistics.median(samples), p99(samples)
            print(f"  {name:18} median {median:5.2f} s   p99 {worst:5.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--messages", type=int, default=10)
    parser.add_argument("--lease", type=int, default=15, help="QUEUE_LEASE, seconds")
    args = parser.parse_args()
    asyncio.run(run(args.trials, args.messages, args.lease))


if __name__ == "__main__":
    main()
