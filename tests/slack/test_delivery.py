"""Delivery in both formats: splits, streaming, buttons, fallbacks, rate limits."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from slack_bolt.request.async_request import AsyncBoltRequest

from app.slack.deliver import FEEDBACK_ACTION, MRKDWN_PIECE, STREAM_PIECE
from app.verify.scan import scan
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.slack import TEAM, FakeSlack, Fault
from tests.slack.bolt import (
    dispatch,
    final_texts,
    make_app,
    mention,
    message,
    replied,
    settle,
    until,
)

PARAGRAPH = "Deploys go through the pipeline; each stage is checked before it runs. " * 6
CODE = "```\n" + "\n".join(f"step_{i} = deploy({i})" for i in range(60)) + "\n```"


def long_answer(size: int) -> str:
    parts: list[str] = []
    while sum(len(p) + 2 for p in parts) < size:
        parts.append(CODE if len(parts) % 4 == 3 else PARAGRAPH)
    return "\n\n".join(parts)


async def test_long_mrkdwn_answer_is_split_into_continuations(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    text = long_answer(12_000)  # about 3,000 tokens: over the default ANTHROPIC_MAX_TOKENS
    fake_anthropic.push(Reply(text))
    app = make_app(make_settings(anthropic_max_tokens=8000))
    await dispatch(app, mention("how do deploys work?", "200.000001"))
    await until(lambda: len(fake_slack.of("chat.postMessage")) >= 4)
    await settle(fake_slack)
    posts = fake_slack.of("chat.postMessage")
    assert all(p["thread_ts"] == "200.000001" for p in posts)
    finals = [final_texts(fake_slack)[ts] for ts in sorted(final_texts(fake_slack))]
    assert len(finals) == len(posts) >= 4
    for piece in finals:
        assert len(piece) <= MRKDWN_PIECE
        assert scan(piece).unclosed_fence is None
    assert "".join(finals).replace("\n", "") == text.replace("\n", "")
    with_buttons = [c.params for c in fake_slack.calls if FEEDBACK_ACTION in str(c.params)]
    assert len(with_buttons) == 1  # on the last message only
    last_ts = max(final_texts(fake_slack))
    assert with_buttons[0].get("ts", last_ts) == last_ts


async def test_markdown_answer_streams_with_recipients_and_rolls_over(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    text = long_answer(17_000).replace("Deploys go", "**Deploys** go")
    fake_anthropic.push(Reply(text))
    app = make_app(make_settings(response_format="markdown", anthropic_max_tokens=8000))
    await dispatch(app, mention("how do deploys work?", "201.000001"))
    await until(lambda: len(fake_slack.of("chat.stopStream")) >= 2)
    await settle(fake_slack)
    starts = fake_slack.of("chat.startStream")
    assert len(starts) >= 2
    for start in starts:
        assert (start["recipient_team_id"], start["recipient_user_id"]) == (TEAM, "U0001")
        assert start["thread_ts"] == "201.000001"
    appends = fake_slack.of("chat.appendStream")
    assert len(appends) <= 2 * len(starts)  # a few large appends, never per token
    per_message = final_texts(fake_slack)
    assert all(len(t) <= STREAM_PIECE for t in per_message.values())
    assert "".join(per_message[ts] for ts in sorted(per_message)).replace("\n", "") == (
        text.replace("\n", "")
    )
    stops = fake_slack.of("chat.stopStream")
    assert [FEEDBACK_ACTION in str(s.get("blocks")) for s in stops] == [False] * (
        len(stops) - 1
    ) + [True]
    assert fake_slack.of("chat.postMessage") == []


async def test_dm_streams_without_recipients(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.push(Reply("Use **make deploy** from `main`."))
    app = make_app(make_settings(response_format="markdown"))
    await dispatch(app, message("how do I deploy?", "202.000001", "D0001", channel_type="im"))
    await until(lambda: bool(fake_slack.of("chat.stopStream")))
    [start] = fake_slack.of("chat.startStream")  # the steps first, then the answer in it
    assert "recipient_team_id" not in start and "recipient_user_id" not in start
    answer = fake_slack.threads[("D0001", "202.000001")][-1]
    assert answer["ts"] in fake_slack.steps
    assert answer["text"] == "Use **make deploy** from `main`."


async def test_expired_stream_falls_back_to_chat_update(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    text = long_answer(3_000)
    fake_anthropic.push(Reply(text))
    fake_slack.fail("chat.appendStream", Fault(error="message_not_in_streaming_state"))
    app = make_app(make_settings(response_format="markdown", show_steps=False))
    await dispatch(app, mention("how do deploys work?", "203.000001"))
    await replied(fake_slack, "chat.update")
    [update] = fake_slack.of("chat.update")
    markdown, checked, buttons = update["blocks"]  # markdown_text may not go with blocks
    assert markdown == {"type": "markdown", "text": text} and buttons["type"] == "actions"
    assert checked["type"] == "context"  # the receipt survives the fallback
    assert "markdown_text" not in update
    assert len(fake_slack.of("chat.startStream")) == 1


async def test_429_on_post_message_is_retried_after_retry_after(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.push(Reply("Merge to `main` and the pipeline deploys billing."))
    fake_slack.fail("chat.postMessage", Fault(status=429, error="ratelimited", retry_after=1))
    app = make_app(make_settings())
    started = time.monotonic()
    await dispatch(app, mention("how do I deploy billing?", "204.000001"))
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 2)
    assert time.monotonic() - started >= 1.0
    await settle(fake_slack)
    assert len(final_texts(fake_slack)) == 1  # one copy of the answer


async def test_delivery_that_finally_fails_is_not_posted_twice(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.push(Reply("Merge to `main` and the pipeline deploys billing."))
    fake_slack.fail("chat.postMessage", Fault(error="channel_not_found"))
    app = make_app(make_settings())
    await dispatch(app, mention("how do I deploy billing?", "205.000001"))
    await replied(fake_slack)
    assert len(fake_slack.of("chat.postMessage")) == 1


async def test_feedback_buttons_are_acked_and_logged_without_content(
    make_settings: Any, fake_slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="vouch.slack")
    app = make_app(make_settings())
    body: dict[str, Any] = {
        "type": "block_actions",
        "team": {"id": TEAM},
        "user": {"id": "U0001"},
        "api_app_id": "A0001",
        "container": {"type": "message", "channel_id": "C0001", "message_ts": "1.1"},
        "channel": {"id": "C0001"},
        "actions": [
            {
                "type": "button",
                "action_id": f"{FEEDBACK_ACTION}_up",
                "block_id": "feedback:" + "ab12" * 8,
                "value": "up",
            },
            {
                "type": "button",
                "action_id": f"{FEEDBACK_ACTION}_down",
                "block_id": "feedback:secret words from a forged action",
                "value": "forged secret value",
            },
        ],
    }
    response = await app.bolt.async_dispatch(AsyncBoltRequest(body=body, mode="socket_mode"))
    assert response.status == 200
    assert "feedback up" in caplog.text
    forged = {**body, "actions": body["actions"][1:]}
    response = await app.bolt.async_dispatch(AsyncBoltRequest(body=forged, mode="socket_mode"))
    assert response.status == 200
    assert "feedback other on no known answer" in caplog.text
    assert "secret" not in caplog.text


async def test_opening_the_dm_suggests_prompts(make_settings: Any, fake_slack: FakeSlack) -> None:
    app = make_app(make_settings())
    event = {"type": "app_home_opened", "user": "U0001", "channel": "D0001", "tab": "messages"}
    await dispatch(app, event)
    await until(lambda: bool(fake_slack.of("assistant.threads.setSuggestedPrompts")))
    [call] = fake_slack.of("assistant.threads.setSuggestedPrompts")
    assert call["channel_id"] == "D0001"
    await dispatch(app, {**event, "tab": "home"})
    await settle(fake_slack)
    assert len(fake_slack.of("assistant.threads.setSuggestedPrompts")) == 1


async def test_5xx_on_post_message_is_retried_a_bounded_number_of_times(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.push(Reply("Merge to `main` and the pipeline deploys billing."))
    fake_slack.fail("chat.postMessage", Fault(status=503, error="service_unavailable"))
    app = make_app(make_settings())
    await dispatch(app, mention("how do I deploy billing?", "206.000001"))
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 2)
    await settle(fake_slack)
    assert len(final_texts(fake_slack)) == 1

    fake_anthropic.push(Reply("Merge to `main` and the pipeline deploys billing."))
    fake_slack.fail("chat.postMessage", *[Fault(status=500)] * 10)
    await dispatch(app, mention("how do I deploy billing?", "207.000001"))
    await until(lambda: len(fake_slack.of("chat.postMessage")) >= 5)
    await settle(fake_slack, quiet=1.5)
    assert len(fake_slack.of("chat.postMessage")) == 2 + 3  # one try + 2 retries, then given up
