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


async def test_the_wait_for_answers_in_flight_is_bounded(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    process, _, lines = await answering(bot, fake_anthropic, "511.000001", delay=6.0, grace="1")
    stopping = time.monotonic()
    process.send_signal(signal.SIGTERM)
    await asyncio.to_thread(process.wait, timeout=30)
    stderr = lines.join()
    assert time.monotonic() - stopping < 4.0
    assert process.returncode == 0
    assert "shutdown: 1 answer(s) still in flight after 1 s" in stderr
    assert "Traceback" not in stderr
    assert fake_slack.of("chat.postMessage") == []  # nothing half-made was posted


async def test_a_second_signal_stops_at_once(bot: Any, fake_anthropic: FakeAnthropic) -> None:
    process, _, lines = await answering(bot, fake_anthropic, "512.000001", 8.0, grace="60")
    stopping = time.monotonic()
    await shutting_down(process, lines)  # the first signal is taken
    process.send_signal(signal.SIGTERM)
    await asyncio.to_thread(process.wait, timeout=30)
    assert time.monotonic() - stopping < 4.0  # not the 8 s the answer would take
