"""The HTTP intake, with the bot as a process: a user message is recorded and acked before
any Slack call, so a fresh instance whose auth.test fails still acks, and answers once
Slack is back."""

from __future__ import annotations

import time
from typing import Any

from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.server import wait_healthy
from tests.fakes.slack import FakeSlack, Fault
from tests.slack.bolt import SIGNING_SECRET as SECRET
from tests.slack.bolt import dispatch, make_app, mention, post_event, until

GOOD = "Merge to `main` and the pipeline deploys billing to staging."


async def test_a_fresh_instance_acks_before_any_slack_call_and_answers_later(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    fake_slack.fail("auth.test", Fault(error="internal_error"))  # Slack not there at first
    _, port = bot()
    await wait_healthy(f"http://127.0.0.1:{port}")
    assert fake_slack.calls == []
    started = time.monotonic()
    assert await post_event(port, mention("how do I deploy?", "620.000001"), SECRET) == 200
    assert time.monotonic() - started < 1.0
    await until(lambda: bool(fake_slack.of("chat.postMessage")), timeout=20)
    [auth_fails, *_] = fake_slack.calls
    assert auth_fails.method == "auth.test"  # asked after the ack, by the worker
    [post] = fake_slack.of("chat.postMessage")
    assert post["text"] == GOOD and post["thread_ts"] == "620.000001"
    assert len(fake_slack.of("auth.test")) == 2  # failed once, asked again later


async def test_a_message_delivered_twice_over_http_is_answered_once(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    _, port = bot()
    await wait_healthy(f"http://127.0.0.1:{port}")
    event = mention("how do I deploy?", "621.000001")
    assert await post_event(port, event, SECRET) == 200
    assert await post_event(port, event, SECRET) == 200  # Slack's retry
    await until(lambda: bool(fake_slack.of("chat.postMessage")), timeout=20)
    assert await post_event(port, mention("and staging?", "621.000002"), SECRET) == 200
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 2, timeout=20)
    assert [p["thread_ts"] for p in fake_slack.of("chat.postMessage")] == [
        "621.000001",
        "621.000002",
    ]
    assert len(fake_anthropic.requests) == 2


async def test_through_bolt_the_ack_waits_for_the_record(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """Socket Mode (and any event through Bolt): Bolt acks when the listener returns, and
    the listener returns once the message is recorded."""
    fake_anthropic.default = Reply(GOOD, delay=2.0)
    app = make_app(make_settings())
    assert await dispatch(app, mention("how do I deploy?", "622.000001")) == 200
    assert await app.store.waiting() == 1  # stored before the ack
    await until(lambda: bool(fake_slack.of("chat.postMessage")), timeout=20)
