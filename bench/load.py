"""Load: N concurrent conversations against the bot running as a process in HTTP mode,
first one instance, then two instances sharing a real redis-server (REDIS_URL).

Run: .venv/bin/python -m bench.load [--conversations 200] [--rounds 4] [--instances 1 2]
[--takeovers 3]

The bot (`python -m app`) runs as its own process against the loopback fakes; the model
streams each answer after a latency of 1-3 s (seeded). This script sends every event at
once, signed as Slack signs them, from a process of its own (the fakes' work does not
delay the sending), and reports: every message answered exactly once; the
time to acknowledge an event (p50/p99, while all answers are in flight), for events sent
all at once (burst) and spread over one second (ramp); the overhead per
message beyond model time (reply arrival − event sent − model latency); the bot's peak RSS;
the time from starting the processes to every instance answering its health check.
With two instances every event is sent to one of them (round robin, as a load balancer
would) and a copy to the other (as a Slack retry landing elsewhere would): each message
must still be answered exactly once. Then, with two instances, the time for the survivor
to take over the messages of one killed while answering (bench/takeover.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import multiprocessing
import random
import re
import statistics
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import aiohttp

from bench import takeover, wire
from bench.bots import ANSWER, body_for, signed, start_bot
from bench.stats import p99
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.server import free_port, wait_healthy
from tests.fakes.slack import FakeSlack
from tests.redis_server import running_redis

RAMP = 1.0  # seconds over which a ramp round spreads its events; answers take 1-3 s


def send_round(
    urls: list[str], n: int, r: int, ramp: float
) -> tuple[list[float], dict[str, float]]:
    """Slack's side of a round, in a process of its own (as Slack is not on the bot's
    machine, and so that the fakes' work in this process does not delay the sending): each
    event signed and posted on a new connection, to one instance then its copy to the
    others. The ack times (ms) and when each event was sent (the monotonic clock is the
    machine's, shared by both processes)."""
    return asyncio.run(_send(urls, n, r, ramp))


async def _send(
    urls: list[str], n: int, r: int, ramp: float
) -> tuple[list[float], dict[str, float]]:
    sent: dict[str, float] = {}
    sender = wire.Sender()

    async def send(i: int) -> None:
        await asyncio.sleep(ramp * i / n)
        body = body_for(i, r)
        sent[json.loads(body)["event"]["ts"]] = time.monotonic()
        order = urls[i % len(urls) :] + urls[: i % len(urls)]  # round robin, then copies
        await asyncio.gather(*(sender.send(url, body, signed(body)) for url in order))

    gc.collect()
    gc.freeze()
    try:
        await asyncio.gather(*(send(i) for i in range(n)))
    finally:
        sender.close()
    return sender.acks, sent


async def one_round(
    urls: list[str],
    slack: FakeSlack,
    delays: dict[str, float],
    sender: ProcessPoolExecutor,
    *,
    n: int,
    r: int,
    ramp: float,
) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    acks, sent = await loop.run_in_executor(sender, send_round, urls, n, r, ramp)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        posted = [c for c in slack.calls if c.method == "chat.postMessage"]
        if len({c.params.get("thread_ts") for c in posted} & set(sent)) == n:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(1.0)  # let any duplicate show itself
    posted = [
        c
        for c in slack.calls
        if c.method == "chat.postMessage" and c.params.get("thread_ts") in sent
    ]
    per_thread = Counter(c.params["thread_ts"] for c in posted)
    overhead = [
        (c.at - sent[c.params["thread_ts"]] - delays[c.params["thread_ts"]]) * 1000 for c in posted
    ]
    return {"acks": acks, "answered": per_thread, "overhead": overhead}


async def warm_up(urls: list[str], slack: FakeSlack) -> None:
    """One uncounted message per instance, so the first auth.test and connection setup are
    not measured."""
    async with aiohttp.ClientSession() as session:
        for k, url in enumerate(urls):
            body = body_for(k, 99)
            await session.post(f"{url}/slack/events", data=body, headers=signed(body))
    while sum(c.method == "chat.postMessage" for c in slack.calls) < len(urls):
        await asyncio.sleep(0.05)


def settle_heap() -> None:
    """This process hosts the fakes, whose records of every call grow round by round: a
    full collection walking them during a round paused their answers 150-400 ms. Frozen
    before each round, they are no longer walked."""
    gc.collect()
    gc.freeze()


def peak_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def spread(samples: list[float]) -> str:
    return f"p50 {statistics.median(samples):7.1f} ms   p99 {p99(samples):7.1f} ms"


async def run(conversations: int, rounds: int, instances: int) -> None:
    rng = random.Random(42)
    delays: dict[str, float] = {}

    def respond(body: dict[str, Any]) -> Reply:
        question = body["messages"][-1]["content"][-1]["text"]
        n = int(re.search(r"question (\d+)", question).group(1))  # type: ignore[union-attr]
        return Reply(ANSWER, delay=delays_by_n[n])

    delays_by_n = {n: rng.uniform(1.0, 3.0) for n in range(conversations)}
    slack, model = FakeSlack(), FakeAnthropic(responder=respond)
    slack.start()
    model.start()
    with contextlib.ExitStack() as stack:
        redis_url = None
        if instances > 1:
            redis_url = stack.enter_context(running_redis()).url
        ports = [free_port() for _ in range(instances)]
        started = time.monotonic()
        bots = [start_bot(slack, model, port, redis_url) for port in ports]
        urls = [f"http://127.0.0.1:{port}" for port in ports]
        try:
            for url in urls:
                await wait_healthy(url)
            print(f"  ready after start      {time.monotonic() - started:.2f} s (all instances)")
            await warm_up(urls, slack)
            await measure(urls, slack, delays, delays_by_n, rounds=rounds)
            rss = ", ".join(f"{peak_rss_mb(bot.pid):.0f}" for bot in bots)
            print(f"  bot peak RSS           {rss} MB")
        finally:
            for bot in bots:
                bot.terminate()
                bot.wait(10)
            slack.stop()
            model.stop()


async def measure(
    urls: list[str],
    slack: FakeSlack,
    delays: dict[str, float],
    delays_by_n: dict[int, float],
    *,
    rounds: int,
) -> None:
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=spawn) as sender:
        await _measure(urls, slack, delays, delays_by_n, sender, rounds=rounds)


async def _measure(
    urls: list[str],
    slack: FakeSlack,
    delays: dict[str, float],
    delays_by_n: dict[int, float],
    sender: ProcessPoolExecutor,
    *,
    rounds: int,
) -> None:
    conversations = len(delays_by_n)
    acks_by: dict[str, list[float]] = {}
    overhead: list[float] = []
    for r in range(rounds):
        for n, delay in delays_by_n.items():
            delays[json.loads(body_for(n, r))["event"]["ts"]] = delay
        ramp = 0.0 if r % 2 == 0 else RAMP
        settle_heap()
        result = await one_round(urls, slack, delays, sender, n=conversations, r=r, ramp=ramp)
        answered = result["answered"]
        once = sum(1 for count in answered.values() if count == 1)
        kind = "burst" if ramp == 0 else f"ramp {ramp:.0f} s"
        print(
            f"round {r + 1} ({kind}): {len(answered)}/{conversations} answered, "
            f"{once} exactly once; ack {spread(result['acks'])}"
        )
        acks_by[kind] = acks_by.get(kind, []) + result["acks"]
        overhead += result["overhead"]
    where = "one instance" if len(urls) == 1 else f"{len(urls)} instances on Redis"
    print(f"\n{conversations} concurrent conversations × {rounds} rounds, {where}")
    for kind, acks in acks_by.items():
        print(f"  ack latency, {kind:9} {spread(acks)}")
    print(f"  overhead/message       {spread(overhead)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=4, help="alternating burst and ramp")
    parser.add_argument("--instances", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--takeovers", type=int, default=3, help="kills timed (bench.takeover)")
    args = parser.parse_args()
    for instances in args.instances:
        asyncio.run(run(args.conversations, args.rounds, instances))
        print()
    if args.takeovers and max(args.instances) > 1:
        asyncio.run(takeover.run(args.takeovers, messages=10, lease=15))


if __name__ == "__main__":
    main()
