"""Every real Slack payload (../shared/slack-payloads) against `python -m app` in HTTP mode:
each is acked 2xx, only people who addressed Vouch get an answer (never a bot), and odd
bodies — unsigned and nested 100,000 deep, fields of the wrong type — get a clean refusal or
ack and no ERROR line."""

from __future__ import annotations

import json
import signal
from typing import Any

import aiohttp
import pytest

from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.server import patience, wait_healthy
from tests.fakes.slack import BOT_USER, FakeSlack, signed_headers
from tests.slack import payloads
from tests.slack.bolt import SIGNING_SECRET, envelope, mention, message, settle, until

GOOD = "Slack was released in 2013; the public launch was in February 2014."
ASK = "What would you like to know? Ask me anything in this thread."


async def post(port: int, body: bytes, headers: dict[str, str]) -> int:
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"http://127.0.0.1:{port}/slack/events", data=body, headers=headers) as r,
    ):
        return r.status


def signed(body: bytes, content_type: str = "application/json") -> dict[str, str]:
    return signed_headers(body, SIGNING_SECRET) | {"Content-Type": content_type}


def wrong_types() -> list[dict[str, Any]]:
    """Envelopes whose fields have types Slack never sends (the issue's four)."""
    reply = message("and the rollback?", "950.000002", thread_ts="950.000001")
    changed = message("", "950.000003", subtype="message_changed", previous_message="edited")
    return [
        envelope({**reply, "text": None}),  # text: null in a thread reply
        {**envelope(mention("hi", "950.000004")), "event": "app_mention"},
        {**envelope(mention("hi", "950.000005")), "authorizations": "U0BOT"},
        envelope(changed),
    ]


def replies_in(slack: FakeSlack, where: tuple[str, str] | None) -> list[str]:
    assert where is not None  # an answered or silent payload's thread (None is left out)
    channel, thread = where
    return [
        str(p.get("text", ""))
        for p in slack.of("chat.postMessage")
        if p.get("channel") == channel and p.get("thread_ts") == thread
    ]


@pytest.mark.skipif(not payloads.names(), reason="../shared/slack-payloads is not here")
async def test_every_recorded_payload_is_acked_and_only_people_are_answered(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    process, port = bot()
    await wait_healthy(f"http://127.0.0.1:{port}")

    deep = b'{"a":' * 100_000 + b"1" + b"}" * 100_000
    assert await post(port, deep, {"Content-Type": "application/json"}) == 401
    assert await post(port, deep, signed(deep)) == 400  # signed, yet no body Slack sends
    for odd in wrong_types():
        raw = json.dumps(odd).encode()
        assert await post(port, raw, signed(raw)) == 200, odd

    delivered = {name: payloads.load(name) for name in payloads.names()}
    for name, payload in delivered.items():
        raw, content_type = payloads.body(payload)
        assert await post(port, raw, signed(raw, content_type)) == 200, name

    wanted = {
        payloads.thread_of(p): payloads.expected(name)
        for name, p in delivered.items()
        if payloads.expected(name) != "silent"
    }
    await until(lambda: all(replies_in(fake_slack, w) for w in wanted), timeout=30)
    await settle(fake_slack)
    for where, expect in wanted.items():
        assert replies_in(fake_slack, where) == [GOOD if expect == "answer" else ASK], where
    silent = {payloads.thread_of(p) for n, p in delivered.items()} - set(wanted) - {None}
    for where in silent:
        assert replies_in(fake_slack, where) == [], where
    assert len(fake_anthropic.requests) == sum(e == "answer" for e in wanted.values())
    bot_mention = delivered["slack-go__app_mention_from_bot_with_files.json"]["event"]
    assert f"<@{BOT_USER}>" in bot_mention["text"] and bot_mention["bot_id"]  # and unanswered

    process.send_signal(signal.SIGTERM)
    _, errors = process.communicate(timeout=patience(15))
    lines = [json.loads(line) for line in errors.splitlines() if line.startswith("{")]
    assert [line for line in lines if line["level"] == "ERROR"] == []
    assert "Traceback" not in errors
    assert any("app_rate_limited" in line["message"] for line in lines)  # the operator sees it
