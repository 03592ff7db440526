"""Graceful shutdown of `python -m app` (HTTP mode) on SIGTERM: no new events are taken,
the answer in flight is delivered, telemetry is flushed, and the wait is bounded."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import time
from typing import Any

import aiohttp

from app.slack.steps import INTERRUPTED
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.server import wait_healthy
from tests.fakes.slack import FakeSlack
from tests.slack.bolt import SIGNING_SECRET as SECRET
from tests.slack.bolt import mention, post_event, until
from tests.stderr import Lines

GOOD = "Merge to `main` and the pipeline deploys billing to staging."


async def answering(
    bot: Any, fake: FakeAnthropic, ts: str, delay: float, grace: str
) -> tuple[subprocess.Popen[str], int, Lines]:
    """A bot process with one answer in flight (the model takes `delay` seconds)."""
    fake.push(Reply(GOOD, delay=delay))
    process, port = bot(SHUTDOWN_GRACE=grace)
    lines = Lines(process)
    await wait_healthy(f"http://127.0.0.1:{port}")
    assert await post_event(port, mention("how do I deploy?", ts), SECRET) == 200
    await until(lambda: bool(fake.requests))
    return process, port, lines


async def shutting_down(process: subprocess.Popen[str], lines: Lines) -> None:
    """Send SIGTERM and wait until the process says it is shutting down."""
    process.send_signal(signal.SIGTERM)
    await until(lambda: bool(lines.messages("shutting down:")))


async def status(url: str) -> int:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status


async def test_sigterm_finishes_the_answer_in_flight_and_takes_no_new_events(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    process, port, lines = await answering(bot, fake_anthropic, "510.000001", 2.0, grace="10")
    base = f"http://127.0.0.1:{port}"
    stopping = time.monotonic()
    await shutting_down(process, lines)
    assert await status(f"{base}/healthz") == 503  # load balancers stop sending
    assert await post_event(port, mention("and staging?", "510.000002"), SECRET) == 503
    await asyncio.to_thread(process.wait, timeout=30)
    stderr = lines.join()
    assert process.returncode == 0
    assert time.monotonic() - stopping < 6.0
    [post] = fake_slack.of("chat.postMessage")
    assert post["text"] == GOOD and post["thread_ts"] == "510.000001"
    assert len(fake_anthropic.requests) == 1  # the refused event was never answered
    messages = [json.loads(line)["message"] for line in stderr.splitlines() if line.startswith("{")]
    assert "shutting down: 1 answer(s) in flight, waiting up to 10 s" in messages
    assert "shutdown: every answer finished" in messages
    assert "Traceback" not in stderr


async def test_the_wait_is_bounded_and_what_it_cut_short_is_answered_after_the_restart(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    process, _, lines = await answering(bot, fake_anthropic, "511.000001", delay=6.0, grace="1")
    stopping = time.monotonic()
    process.send_signal(signal.SIGTERM)
    await asyncio.to_thread(process.wait, timeout=30)
    stderr = lines.join()
    assert time.monotonic() - stopping < 4.0
    assert process.returncode == 0
    assert "shutdown: 1 answer(s) given back to the store for the restart" in stderr
    assert "Traceback" not in stderr
    assert fake_slack.of("chat.postMessage") == []  # nothing half-made was posted
    fake_anthropic.push(Reply(GOOD))
    _, port = bot(SHUTDOWN_GRACE="1")  # the same working directory: its record
    await wait_healthy(f"http://127.0.0.1:{port}")
    await until(lambda: bool(fake_slack.of("chat.postMessage")), timeout=30)
    [post] = fake_slack.of("chat.postMessage")
    assert post["text"] == GOOD and post["thread_ts"] == "511.000001"


async def test_a_killed_bot_answers_what_it_acked_after_the_restart(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """kill -9 with five messages acked and one being answered: each is answered once after
    the restart, the one in flight when its lease runs out (QUEUE_LEASE)."""
    fake_anthropic.push(*[Reply(GOOD, delay=30.0)] * 5)
    process, port = bot(QUEUE_LEASE="2", WORKERS="1")
    await wait_healthy(f"http://127.0.0.1:{port}")
    for n in range(1, 6):
        assert await post_event(port, mention("deploy?", f"513.00000{n}"), SECRET) == 200
    await until(lambda: bool(fake_anthropic.requests))
    process.kill()
    await asyncio.to_thread(process.wait, timeout=10)
    fake_anthropic.reset()
    fake_anthropic.default = Reply(GOOD)
    _, port = bot(QUEUE_LEASE="2")
    await wait_healthy(f"http://127.0.0.1:{port}")
    await until(lambda: len(fake_slack.of("chat.postMessage")) >= 5, timeout=40)
    threads = sorted(post["thread_ts"] for post in fake_slack.of("chat.postMessage"))
    assert threads == [f"513.00000{n}" for n in range(1, 6)]
    assert all(post["text"] == GOOD for post in fake_slack.of("chat.postMessage"))


async def test_a_second_signal_stops_at_once(bot: Any, fake_anthropic: FakeAnthropic) -> None:
    process, _, lines = await answering(bot, fake_anthropic, "512.000001", 8.0, grace="60")
    stopping = time.monotonic()
    await shutting_down(process, lines)  # the first signal is taken
    process.send_signal(signal.SIGTERM)
    await asyncio.to_thread(process.wait, timeout=30)
    assert time.monotonic() - stopping < 4.0  # not the 8 s the answer would take


async def test_steps_cut_short_by_a_shutdown_end_as_interrupted_and_the_restart_answers_once(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """SIGTERM while the steps show (markdown): the message showing them is ended, its
    steps marked interrupted, not left streaming with a draft "in progress"; after the
    restart the answer comes once, in a new message."""
    fake_anthropic.push(Reply(GOOD, delay=6.0))
    process, port = bot(SHUTDOWN_GRACE="1", RESPONSE_FORMAT="markdown")
    lines = Lines(process)
    await wait_healthy(f"http://127.0.0.1:{port}")
    assert await post_event(port, mention("how do I deploy?", "514.000001"), SECRET) == 200
    await until(lambda: bool(fake_anthropic.requests) and bool(fake_slack.steps))
    process.send_signal(signal.SIGTERM)
    await asyncio.to_thread(process.wait, timeout=30)
    assert "Traceback" not in lines.join()
    [cut] = list(fake_slack.steps)
    assert cut not in fake_slack.streaming  # ended
    updates = fake_slack.steps[cut]
    assert [u["title"] for u in updates if u["type"] == "plan_update"][-1] == INTERRUPTED
    last = {u["id"]: u["status"] for u in updates if u["type"] == "task_update"}
    assert "in_progress" not in last.values()
    assert GOOD not in fake_slack.text_sent()
    fake_anthropic.push(Reply(GOOD))
    _, port = bot(SHUTDOWN_GRACE="1", RESPONSE_FORMAT="markdown")
    await wait_healthy(f"http://127.0.0.1:{port}")
    await until(lambda: len(fake_slack.of("chat.stopStream")) >= 2, timeout=30)
    thread = fake_slack.threads[("C0001", "514.000001")]
    assert [m["text"] for m in thread if m.get("bot_id")] == ["", GOOD]
