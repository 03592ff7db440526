"""The fake Slack Web API refuses what Slack refuses, through the real client."""

from __future__ import annotations

from typing import Any

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from tests.fakes.slack import FakeSlack

BLOCKS = [{"type": "section", "text": {"type": "mrkdwn", "text": "hi"}}]


@pytest.mark.parametrize(
    "extra", [{"text": "hi"}, {"blocks": BLOCKS}, {"text": "hi", "blocks": BLOCKS}]
)
async def test_markdown_text_goes_alone(fake_slack: FakeSlack, extra: dict[str, Any]) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    posted = await client.chat_postMessage(channel="C0001", markdown_text="**hi**")
    with pytest.raises(SlackApiError, match="markdown_text_conflict"):
        await client.chat_postMessage(channel="C0001", markdown_text="**hi**", **extra)
    with pytest.raises(SlackApiError, match="markdown_text_conflict"):
        await client.chat_update(channel="C0001", ts=posted["ts"], markdown_text="x", **extra)
    markdown = [{"type": "markdown", "text": "**done**"}]
    await client.chat_update(channel="C0001", ts=posted["ts"], text="done", blocks=markdown)
    [message] = fake_slack.threads[("C0001", posted["ts"])]
    assert message["text"] == "**done**"


async def test_at_most_12000_characters_of_markdown_go_in_one_message(
    fake_slack: FakeSlack,
) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    posted = await client.chat_postMessage(channel="C0001", markdown_text="x" * 12_000)
    with pytest.raises(SlackApiError, match="msg_too_long"):
        await client.chat_postMessage(channel="C0001", markdown_text="x" * 12_001)
    blocks = [{"type": "markdown", "text": "x" * 6_001}] * 2
    with pytest.raises(SlackApiError, match="invalid_blocks"):
        await client.chat_update(channel="C0001", ts=posted["ts"], text="x", blocks=blocks)
