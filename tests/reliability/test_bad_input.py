"""Bad input: odd messages get one clear reply; malformed, forged, replayed and flooded
requests get a clear refusal or are dropped; none crash the bot or lose the next message."""

from __future__ import annotations

import asyncio
import json
import signal
from typing import Any

import aiohttp
import pytest

from app.wiring import Vouch
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.server import patience, wait_healthy
from tests.fakes.slack import BOT_ID, BOT_USER, FakeSlack, signed_headers
from tests.slack.bolt import (
    SIGNING_SECRET,
    dispatch,
    envelope,
    make_app,
    mention,
    message,
    post_event,
    replied,
    settle,
    until,
)

GOOD = "Merge to `main`: the pipeline deploys billing to staging in about 8 minutes."


def replies(slack: FakeSlack, thread: str) -> list[str]:
    return [p["text"] for p in slack.of("chat.postMessage") if p.get("thread_ts") == thread]


@pytest.fixture
def app(make_settings: Any, fake_anthropic: FakeAnthropic) -> Vouch:
    fake_anthropic.default = Reply(GOOD)
    return make_app(make_settings())


async def next_message_is_answered(app: Vouch, slack: FakeSlack) -> None:
    await dispatch(app, mention("how do I deploy billing?", "899.000001"))
    await until(lambda: replies(slack, "899.000001") == [GOOD])


@pytest.mark.parametrize(
    "text",
    [
        "how do I deploy? " + "x" * 40_000,  # Slack's longest message
        "🎉🚀🔥 :tada:",  # emoji only
        "```\nSELECT id FROM invoices WHERE paid = false;\n```",  # code only
        # right-to-left words and bidi marks in an English question (an English answer to an
        # Arabic or Hebrew question would rightly fail: WRONG_LANGUAGE)
        "how do I deploy billing (\u202bאיך אני פורס?\u202c, كيف أنشر) to staging?",
        "\u200b\u200d",  # only invisible characters
    ],
    ids=["40000-chars", "emoji-only", "code-only", "right-to-left", "invisible-only"],
)
async def test_odd_messages_get_one_reply(
    app: Vouch, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, text: str
) -> None:
    assert await dispatch(app, mention(text, "800.000001")) == 200
    await replied(fake_slack)
    assert replies(fake_slack, "800.000001") == [GOOD]
    [request] = fake_anthropic.requests
    assert request["messages"][-1]["content"][-1]["text"] == text.strip()  # whole, as written
    await next_message_is_answered(app, fake_slack)


async def test_an_empty_mention_is_asked_what_to_answer(
    app: Vouch, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    await dispatch(app, mention("", "801.000001"))
    await replied(fake_slack)
    assert replies(fake_slack, "801.000001") == [
        "What would you like to know? Ask me anything in this thread."
    ]
    assert fake_anthropic.requests == []
    await next_message_is_answered(app, fake_slack)


async def test_a_thread_of_1000_messages_is_read_to_its_end(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """Slack gives a thread oldest first, a page at a time: the model gets the newest
    messages, and a follow-up counts as Vouch's thread when Vouch posted near the top."""
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings(thread_max_messages=20))
    root = "810.000000"
    thread = [{"ts": root, "user": "U0001", "text": f"<@{BOT_USER}> deploys?"}]
    thread.append({"ts": "810.000001", "user": BOT_USER, "bot_id": BOT_ID, "text": GOOD})
    thread += [
        {"ts": f"810.{n:06d}", "user": "U0002", "text": f"note {n}", "thread_ts": root}
        for n in range(2, 1500)
    ]
    ts = "810.001500"
    thread.append({"ts": ts, "user": "U0001", "text": "and rollback?", "thread_ts": root})
    fake_slack.threads[("C0001", root)] = thread
    await dispatch(app, message("and rollback?", ts, thread_ts=root))  # a follow-up
    await until(lambda: len(replies(fake_slack, root)) == 1)
    pages = fake_slack.of("conversations.replies")
    assert [p.get("cursor") for p in pages] == [None, "1000"]
    said = json.dumps(fake_anthropic.requests[0]["messages"])
    assert "note 1499" in said and "note 1480" in said and "note 1479" not in said
    await settle(fake_slack)
    await next_message_is_answered(app, fake_slack)


async def test_a_flood_of_1000_duplicate_deliveries_is_answered_once(
    app: Vouch, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    event = mention("how do I deploy billing?", "820.000001")
    statuses = await asyncio.gather(
        *(dispatch(app, event, retry=n % 4) for n in range(1000)),
        dispatch(app, message(f"<@{BOT_USER}> how do I deploy billing?", "820.000001")),
    )
    assert set(statuses) == {200}
    await replied(fake_slack)
    assert replies(fake_slack, "820.000001") == [GOOD]
    assert len(fake_anthropic.requests) == 1
    assert len(fake_slack.of("auth.test")) == 1  # a fresh app: the copies shared one call
    await next_message_is_answered(app, fake_slack)


async def test_events_missing_their_fields_or_of_unknown_types_are_dropped(
    app: Vouch, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    broken: list[dict[str, Any]] = [
        {"type": "app_mention", "text": f"<@{BOT_USER}> hi", "ts": "830.000001"},  # no channel
        {"type": "app_mention", "text": f"<@{BOT_USER}> hi", "channel": "C0001"},  # no ts
        {"type": "app_mention", "channel": "C0001", "ts": "830.000002", "event_ts": "1"},  # text
        {"type": "message", "channel": "C0001", "channel_type": "im"},  # a DM with nothing
        {"type": "reaction_added", "reaction": "tada"},  # unknown to Vouch
        {"type": "totally_new_event", "channel": "C0001"},
        {"channel": "C0001", "ts": "830.000003"},  # no type
    ]
    for event in broken:
        assert await dispatch(app, event) in (200, 404)
    await settle(fake_slack)
    texts = [p.get("text", "") for p in fake_slack.of("chat.postMessage")]
    assert all("What would you like to know" in t for t in texts)  # the text-less mention
    assert fake_anthropic.requests == []
    await next_message_is_answered(app, fake_slack)


async def raw_post(port: int, body: bytes, headers: dict[str, str]) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"http://127.0.0.1:{port}/slack/events", data=body, headers=headers
        ) as response,
    ):
        return response.status, await response.text()


async def test_the_http_server_refuses_bad_requests_and_keeps_answering(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """`python -m app` in HTTP mode: malformed, forged, replayed and flooded requests."""
    fake_anthropic.default = Reply(GOOD)
    process, port = bot(LOG_LEVEL="WARNING")  # the flood's log lines would fill the pipe
    await wait_healthy(f"http://127.0.0.1:{port}")
    valid = json.dumps(envelope(mention("deploys?", "840.000001"))).encode()

    def signed(body: bytes) -> dict[str, str]:
        return signed_headers(body, SIGNING_SECRET)

    forged = signed_headers(valid, "not-the-secret")
    replayed = signed_headers(valid, SIGNING_SECRET, age=600)  # five minutes is the limit
    cases = [
        (valid, forged, 401),
        (valid, replayed, 401),
        (valid, {"Content-Type": "application/json"}, 401),  # not signed at all
        (b"{not json", signed(b"{not json"), 400),
        (b"", signed(b""), 400),
        (b"[1, 2, 3]", signed(b"[1, 2, 3]"), 400),
        (b'{"type": "event_callback"}', signed(b'{"type": "event_callback"}'), 200),  # acked
        (b"\xff\xfe\x00garbage", signed(b"\xff\xfe\x00garbage"), 401),  # not UTF-8: unverifiable
        (valid, {**signed(valid), "X-Slack-Request-Timestamp": "soon"}, 401),
    ]
    for body, headers, expected in cases:
        status, text = await raw_post(port, body, headers)
        assert status == expected, (body[:20], status)
        assert "Traceback" not in text
    assert fake_anthropic.requests == []

    flood = [
        post_event(port, mention("deploys?", "841.000001"), SIGNING_SECRET) for _ in range(1000)
    ]
    assert set(await asyncio.gather(*flood)) == {200}
    await until(lambda: len(replies(fake_slack, "841.000001")) == 1)
    await settle(fake_slack)
    assert replies(fake_slack, "841.000001") == [GOOD]

    assert await post_event(port, mention("deploys?", "842.000001"), SIGNING_SECRET) == 200
    await until(lambda: replies(fake_slack, "842.000001") == [GOOD])
    assert process.poll() is None  # still running
    process.send_signal(signal.SIGTERM)
    _, errors = process.communicate(timeout=patience(15))
    assert process.returncode == 0
    assert "Traceback" not in errors
