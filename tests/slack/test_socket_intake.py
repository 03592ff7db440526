"""The Socket Mode intake, against the fake's Socket Mode: a user message is recorded and
acked before any Slack Web API call (the only one before is apps.connections.open, which
the connection needs), so a fresh instance whose auth.test fails still acks; a message
that cannot be recorded is not acked, and Slack's redelivery is."""

from __future__ import annotations

import asyncio
import logging
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from app.slack.intake import TAKEN_IN, SocketIntake
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.slack import FakeSlack, Fault
from tests.slack.bolt import (
    command,
    envelope,
    make_app,
    mention,
    replied,
    settle,
    share,
    shortcut,
    until,
)
from tests.stderr import Lines

GOOD = "Merge to `main` and the pipeline deploys billing to staging."
APP_TOKEN = "xapp-1-test"


async def connected(slack: FakeSlack) -> None:
    """Wait for the bot's Socket Mode connection (a process starts in 3-4 s)."""
    await until(lambda: slack.socket.connections == 1, timeout=40)


def before_ack(slack: FakeSlack, envelope_id: str) -> list[str]:
    """The Web API methods called before the envelope was acked."""
    ack = slack.socket.acked(envelope_id)
    assert ack is not None
    return [call.method for call in slack.calls if call.at < ack.at]


async def test_a_fresh_instance_acks_before_any_slack_call_answers_once_and_stops(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    process, _ = bot(SLACK_APP_TOKEN=APP_TOKEN)
    lines = Lines(process)
    await connected(fake_slack)
    payload = envelope(mention("how do I deploy?", "630.000001"))
    first = fake_slack.socket.push(payload)
    await until(lambda: fake_slack.socket.acked(first) is not None)
    assert before_ack(fake_slack, first) == ["apps.connections.open"]  # no auth.test
    [sent] = fake_slack.socket.sent
    assert fake_slack.socket.acks[0].at - sent.at < 1.0
    await until(lambda: bool(fake_slack.of("chat.postMessage")), timeout=20)
    again = fake_slack.socket.push(payload, retry_attempt=1, retry_reason="timeout")
    await until(lambda: fake_slack.socket.acked(again) is not None)  # a copy: acked too
    await settle(fake_slack)
    [post] = fake_slack.of("chat.postMessage")
    assert post["text"] == GOOD and post["thread_ts"] == "630.000001"
    assert len(fake_slack.of("auth.test")) == 1 and len(fake_anthropic.requests) == 1
    assert fake_slack.socket.refused == []
    process.send_signal(signal.SIGTERM)  # Socket Mode's shutdown: disconnect, drain, exit
    await asyncio.to_thread(process.wait, timeout=30)
    stderr = lines.join()
    assert process.returncode == 0
    assert lines.messages("shutdown: every answer finished")
    assert fake_slack.socket.connections == 0
    assert "Traceback" not in stderr


async def test_when_auth_test_fails_the_message_is_acked_and_answered_later(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    fake_slack.fail("auth.test", Fault(error="internal_error"))  # Slack not there at first
    bot(SLACK_APP_TOKEN=APP_TOKEN)
    await connected(fake_slack)
    pushed = fake_slack.socket.push(envelope(mention("how do I deploy?", "631.000001")))
    await until(lambda: fake_slack.socket.acked(pushed) is not None)
    assert before_ack(fake_slack, pushed) == ["apps.connections.open"]
    await replied(fake_slack)  # the worker's TryLater: asked again 5 s later
    [post] = fake_slack.of("chat.postMessage")
    assert post["text"] == GOOD and post["thread_ts"] == "631.000001"
    assert len(fake_slack.of("auth.test")) == 2  # failed once, asked again later
    assert fake_slack.socket.refused == []


async def test_a_shortcut_over_socket_mode_is_acked_before_any_slack_call_and_answered_once(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """The message shortcut in an `interactive` envelope: taken in like a message event
    (recorded, then acked, with auth.test failing), answered once in the message's thread."""
    fake_anthropic.default = Reply(GOOD)
    fake_slack.fail("auth.test", Fault(error="internal_error"))
    bot(SLACK_APP_TOKEN=APP_TOKEN)
    await connected(fake_slack)
    asked = {"ts": "632.000001", "user": "U0ANA", "text": "how do I deploy billing?"}
    pushed = fake_slack.socket.interact(shortcut(asked, "632.000090", user="U0BEN"))
    await until(lambda: fake_slack.socket.acked(pushed) is not None)
    assert before_ack(fake_slack, pushed) == ["apps.connections.open"]
    await replied(fake_slack)
    [post] = fake_slack.of("chat.postMessage")
    assert post["text"] == GOOD and post["thread_ts"] == "632.000001"
    assert fake_slack.socket.refused == []


async def test_a_command_over_socket_mode_is_acked_with_a_private_word_and_answered_privately(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """`/vouch` in a `slash_commands` envelope: recorded, then acked (with auth.test failing)
    with the private line its user sees at once; answered once, to its asker alone; shared
    in the channel by the click on its button, over the same connection."""
    fake_anthropic.default = Reply(GOOD)
    fake_slack.fail("auth.test", Fault(error="internal_error"))
    bot(SLACK_APP_TOKEN=APP_TOKEN)
    await connected(fake_slack)
    pushed = fake_slack.socket.command(command("how do I deploy?", fake_slack.response_url()))
    await until(lambda: fake_slack.socket.acked(pushed) is not None)
    assert before_ack(fake_slack, pushed) == ["apps.connections.open"]
    ack = fake_slack.socket.acked(pushed)
    assert ack is not None and ack.payload == {"response_type": "ephemeral", "text": TAKEN_IN}
    await until(lambda: bool(fake_slack.responses), timeout=20)
    [answer] = fake_slack.responses
    assert answer["text"] == GOOD and fake_slack.of("chat.postMessage") == []
    [actions] = [b for b in answer["blocks"] if b["type"] == "actions"]
    value = actions["elements"][0]["value"]
    fake_slack.socket.interact(share(value, fake_slack.response_url(click=True)))
    await until(lambda: bool(fake_slack.of("chat.postMessage")), timeout=20)
    await settle(fake_slack)
    [post] = fake_slack.of("chat.postMessage")
    assert post["text"] == GOOD and "thread_ts" not in post and len(fake_slack.deleted) == 1
    assert fake_slack.socket.refused == []


async def test_a_message_that_cannot_be_recorded_is_not_acked(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Another process holds the record's write lock past its busy timeout (5 s): the
    envelope goes unacked, so Slack delivers it again; the redelivery is acked."""
    caplog.set_level(logging.ERROR, logger="vouch.slack")
    fake_anthropic.default = Reply(GOOD)
    record = tmp_path / "queue.sqlite3"
    app = make_app(make_settings(queue_path=record))
    handler = SocketIntake(app.bolt, app.intake, APP_TOKEN)
    await handler.connect_async()  # type: ignore[no-untyped-call]
    try:
        await connected(fake_slack)
        lock = sqlite3.connect(record, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        payload = envelope(mention("how do I deploy?", "632.000001"))
        first = fake_slack.socket.push(payload)
        failed = "event not recorded, refused: OperationalError"
        await until(lambda: failed in caplog.messages, timeout=20)
        lock.execute("ROLLBACK")
        lock.close()
        assert fake_slack.socket.acked(first) is None
        assert await app.store.waiting() == 0
        again = fake_slack.socket.push(payload, retry_attempt=1, retry_reason="timeout")
        await until(lambda: fake_slack.socket.acked(again) is not None)
        await replied(fake_slack)
        [post] = fake_slack.of("chat.postMessage")
        assert post["thread_ts"] == "632.000001"
        assert fake_slack.socket.acked(first) is None
        assert "how do I deploy" not in caplog.text
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]
        await app.workers.stop(1)
        await app.store.close()


async def test_other_envelopes_still_go_to_bolt(make_settings: Any, fake_slack: FakeSlack) -> None:
    """App Home opened is not a user message: Bolt takes it (and asks auth.test first)."""
    app = make_app(make_settings())
    handler = SocketIntake(app.bolt, app.intake, APP_TOKEN)
    await handler.connect_async()  # type: ignore[no-untyped-call]
    try:
        await connected(fake_slack)
        opened = {"type": "app_home_opened", "user": "U0001", "channel": "D0001", "tab": "messages"}
        pushed = fake_slack.socket.push(envelope(opened))
        await until(lambda: fake_slack.socket.acked(pushed) is not None)
        assert before_ack(fake_slack, pushed) == ["apps.connections.open", "auth.test"]
        await until(lambda: bool(fake_slack.of("assistant.threads.setSuggestedPrompts")))
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]
        await app.workers.stop(1)
        await app.store.close()


async def test_events_vouch_does_not_take_are_acked_and_a_bots_mention_is_not_answered(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """Over Socket Mode too: an event of another type, one with a field of the wrong type
    and app_rate_limited are acked at once (no Slack call first); a bot's mention is acked
    and never answered; the person after it is."""
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    handler = SocketIntake(app.bolt, app.intake, APP_TOKEN)
    await handler.connect_async()  # type: ignore[no-untyped-call]
    try:
        await connected(fake_slack)
        odd = [
            envelope({"type": "reaction_added", "user": "U0001", "reaction": "tada"}),
            {**envelope(mention("hi", "633.000001")), "authorizations": "U0BOT"},
            {"type": "app_rate_limited", "team_id": "T0001", "minute_rate_limited": 1},
            envelope(mention("loop?", "633.000002", user="U0OTHER", bot_id="B0OTHER")),
        ]
        pushed = [fake_slack.socket.push(payload) for payload in odd]
        await until(lambda: all(fake_slack.socket.acked(p) is not None for p in pushed))
        assert all(before_ack(fake_slack, p) == ["apps.connections.open"] for p in pushed)
        fake_slack.socket.push(envelope(mention("how do I deploy?", "633.000003")))
        await replied(fake_slack)
        [post] = fake_slack.of("chat.postMessage")
        assert post["thread_ts"] == "633.000003" and len(fake_anthropic.requests) == 1
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]
        await app.workers.stop(1)
