"""Two bot instances on one Redis against the same fake Slack: duplicated and concurrent
deliveries are answered exactly once, a thread's messages one at a time, and a Redis
outage leaves both answering."""

from __future__ import annotations

import asyncio
import itertools
import logging
import signal
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from slack_bolt.async_app import AsyncApp

from app.agent.loop import Deps
from app.settings import Settings
from app.slack.app import create_app
from app.slack.shared import RedisStore
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.server import wait_healthy
from tests.fakes.slack import BOT_USER, FakeSlack
from tests.redis_server import RedisServer, running_redis
from tests.slack.bolt import SIGNING_SECRET, dispatch, mention, message, post_event, settle, until

Pair = tuple[AsyncApp, AsyncApp]


def answer_per_request() -> Callable[[dict[str, Any]], Reply]:
    """A distinct verified answer per model request, after a short think."""
    numbers = itertools.count(1)
    return lambda _: Reply(f"Answer {next(numbers)}: deploys take about 8 minutes.", delay=0.2)


def answers_in(slack: FakeSlack, ts: str) -> list[str]:
    return [p["text"] for p in slack.of("chat.postMessage") if p.get("thread_ts") == ts]


def two_stores(settings: Settings, url: str, **store: float) -> list[RedisStore]:
    return [RedisStore(url, settings.dedupe_ttl, **store) for _ in range(2)]


async def instances(settings: Settings, stores: list[RedisStore]) -> AsyncIterator[Pair]:
    apps = [create_app(settings, Deps.from_settings(settings), store=s) for s in stores]
    yield apps[0], apps[1]
    for s in stores:
        await s.close()


@pytest.fixture
async def pair(make_settings: Any, redis: RedisServer) -> AsyncIterator[Pair]:
    settings = make_settings()
    async for apps in instances(settings, two_stores(settings, redis.url)):
        yield apps


async def test_duplicated_deliveries_to_two_instances_are_answered_once(
    pair: Pair, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.responder = answer_per_request()
    a, b = pair
    stamps = [f"300.{n:06d}" for n in range(1, 21)]
    deliveries = []
    for ts in stamps:  # each message: both instances, Slack's retries, and message.channels
        deliveries += [
            dispatch(a, mention("how long do deploys take?", ts)),
            dispatch(b, mention("how long do deploys take?", ts)),
            dispatch(b, mention("how long do deploys take?", ts), retry=1),
            dispatch(a, message(f"<@{BOT_USER}> how long do deploys take?", ts)),
            dispatch(a, mention("how long do deploys take?", ts), retry=2),
        ]
    assert set(await asyncio.gather(*deliveries)) == {200}
    await until(lambda: len(fake_slack.of("chat.postMessage")) >= len(stamps))
    await settle(fake_slack)
    assert {ts: len(answers_in(fake_slack, ts)) for ts in stamps} == dict.fromkeys(stamps, 1)
    assert len(fake_anthropic.requests) == len(stamps)


async def test_a_threads_messages_are_answered_one_at_a_time_across_instances(
    pair: Pair, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """Two follow-ups in one thread reach different instances at once: the second is
    drafted only after the first's answer is posted."""
    answers = answer_per_request()
    asked: list[float] = []

    def respond(body: dict[str, Any]) -> Reply:
        asked.append(time.monotonic())
        return answers(body)

    fake_anthropic.responder = respond
    a, b = pair
    root = "310.000001"
    thread = fake_slack.threads[("C0001", root)] = [
        {"ts": root, "user": "U0001", "text": f"<@{BOT_USER}> how do I deploy?"}
    ]
    await dispatch(a, mention("how do I deploy?", root))
    await until(lambda: len(answers_in(fake_slack, root)) == 1)
    await settle(fake_slack, quiet=0.1)
    for ts, text in (("310.000002", "and rollback?"), ("310.000003", "and staging?")):
        thread.append({"ts": ts, "user": "U0001", "text": text, "thread_ts": root})
    await asyncio.gather(
        dispatch(a, message("and rollback?", "310.000002", thread_ts=root)),
        dispatch(b, message("and staging?", "310.000003", thread_ts=root)),
    )
    await until(lambda: len(answers_in(fake_slack, root)) == 3)
    posted = [c.at for c in fake_slack.calls if c.method == "chat.postMessage"]
    assert len(asked) == 3
    assert asked[2] > posted[1]  # the second follow-up waited for the first's answer
    # while two different threads are answered together
    asked.clear()
    await asyncio.gather(
        dispatch(a, mention("deploys?", "311.000001")),
        dispatch(b, mention("deploys?", "312.000001")),
    )
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 5)
    assert abs(asked[1] - asked[0]) < 0.15  # both asked before either answer (0.2 s think)


async def test_redis_outage_mid_run_keeps_both_instances_answering(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="vouch.shared")
    fake_anthropic.responder = answer_per_request()
    settings = make_settings()
    with running_redis() as server:
        stores = two_stores(settings, server.url, retry_after=0.3, timeout=0.5)
        async for a, b in instances(settings, stores):
            await asyncio.gather(
                dispatch(a, mention("deploys?", "320.000001")),
                dispatch(b, mention("deploys?", "320.000001")),
            )
            await until(lambda: len(answers_in(fake_slack, "320.000001")) == 1)
            await settle(fake_slack)  # the other instance has dropped its copy
            server.stop()
            # during the outage each instance answers, and catches its own duplicates
            await dispatch(a, mention("deploys?", "320.000002"))
            await dispatch(a, mention("deploys?", "320.000002"), retry=1)
            await dispatch(b, mention("deploys?", "320.000003"))
            await until(lambda: len(answers_in(fake_slack, "320.000003")) == 1)
            await until(lambda: len(answers_in(fake_slack, "320.000002")) == 1)
            assert "redis unavailable (ConnectionError)" in caplog.text

            server.start()
            await until(lambda: all(store.reachable for store in stores))  # 0.3 s later
            await asyncio.gather(
                dispatch(a, mention("deploys?", "320.000004")),
                dispatch(b, mention("deploys?", "320.000004")),
            )
            await until(lambda: len(answers_in(fake_slack, "320.000004")) == 1)
            await settle(fake_slack)
    texts = {ts: len(answers_in(fake_slack, ts)) for ts in ("320.000001", "320.000002")}
    assert texts == {"320.000001": 1, "320.000002": 1}
    assert len(answers_in(fake_slack, "320.000004")) == 1
    assert "redis reachable again" in caplog.text


async def test_without_redis_each_instance_dedupes_only_its_own(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """Why REDIS_URL matters: two in-process instances answer the same message twice."""
    fake_anthropic.responder = answer_per_request()
    settings = make_settings()
    a, b = (create_app(settings, Deps.from_settings(settings)) for _ in range(2))
    await asyncio.gather(
        dispatch(a, mention("deploys?", "330.000001")),
        dispatch(b, mention("deploys?", "330.000001")),
    )
    await until(lambda: len(answers_in(fake_slack, "330.000001")) == 2)


async def test_two_bot_processes_on_redis_answer_each_message_once(
    bot: Any, redis: RedisServer, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """`python -m app` twice, as HTTP replicas behind a load balancer would run."""
    fake_anthropic.responder = answer_per_request()
    replicas = [bot(REDIS_URL=redis.url) for _ in range(2)]
    for _, port in replicas:
        await wait_healthy(f"http://127.0.0.1:{port}")
    stamps = [f"340.{n:06d}" for n in range(1, 6)]
    posts = [
        post_event(port, mention("deploys?", ts), SIGNING_SECRET)
        for ts in stamps
        for _, port in replicas * 2
    ]
    assert set(await asyncio.gather(*posts)) == {200}
    await until(lambda: len(fake_slack.of("chat.postMessage")) >= len(stamps))
    await settle(fake_slack)
    assert {ts: len(answers_in(fake_slack, ts)) for ts in stamps} == dict.fromkeys(stamps, 1)
    for process, _ in replicas:
        process.send_signal(signal.SIGTERM)
        _, errors = process.communicate(timeout=15)
        assert process.returncode == 0
        assert f"shared through redis at 127.0.0.1:{redis.port}/0" in errors
