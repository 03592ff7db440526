"""The fake Slack Web API refuses what Slack refuses, through the real client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from tests.fakes.slack import (
    MANIFEST,
    METHOD_SCOPES,
    STOPPED_BY_USER,
    TEAM,
    FakeSlack,
    Fault,
    granted,
)
from tests.slack.bolt import until

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


@pytest.mark.parametrize("channel", ["C0001", "G0001", "G0MPIM"])
async def test_a_stream_outside_a_dm_needs_its_recipients(
    fake_slack: FakeSlack, channel: str
) -> None:
    fake_slack.kinds["G0MPIM"] = "mpim"
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    start = {"channel": channel, "thread_ts": "1.1", "markdown_text": "hi"}
    with pytest.raises(SlackApiError, match="missing_recipient_team_id"):
        await client.chat_startStream(**start, recipient_user_id="U0001")
    with pytest.raises(SlackApiError, match="missing_recipient_user_id"):
        await client.chat_startStream(**start, recipient_team_id=TEAM)
    assert fake_slack.streaming == set()
    await client.chat_startStream(**start, recipient_team_id=TEAM, recipient_user_id="U0001")
    await client.chat_startStream(channel="D0001", thread_ts="1.1", markdown_text="hi")
    assert len(fake_slack.streaming) == 2


async def test_text_takes_at_most_40000_characters(fake_slack: FakeSlack) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    posted = await client.chat_postMessage(channel="C0001", text="x" * 40_000)
    with pytest.raises(SlackApiError, match="msg_too_long"):
        await client.chat_postMessage(channel="C0001", text="x" * 40_001)
    with pytest.raises(SlackApiError, match="msg_too_long"):
        await client.chat_update(channel="C0001", ts=posted["ts"], text="x" * 40_001)
    [message] = fake_slack.threads[("C0001", posted["ts"])]
    assert len(message["text"]) == 40_000


def section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def buttons(label: str) -> dict[str, Any]:
    button = {"type": "button", "text": {"type": "plain_text", "text": label}, "value": "up"}
    return {"type": "actions", "elements": [button]}


@pytest.mark.parametrize(
    ("taken", "refused"),
    [
        ([section("x")] * 50, [section("x")] * 51),  # blocks in a message
        ([section("x" * 3000)], [section("x" * 3001)]),  # a section's text
        ([section("x")], [section("")]),
        ([{**section("x"), "block_id": "b" * 255}], [{**section("x"), "block_id": "b" * 256}]),
        ([buttons("x" * 75)], [buttons("x" * 76)]),  # a button's label
    ],
)
async def test_blocks_within_block_kit_limits(
    fake_slack: FakeSlack, taken: list[dict[str, Any]], refused: list[dict[str, Any]]
) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    posted = await client.chat_postMessage(channel="C0001", text="x", blocks=taken)
    await client.chat_update(channel="C0001", ts=posted["ts"], text="x", blocks=taken)
    with pytest.raises(SlackApiError, match="invalid_blocks"):
        await client.chat_postMessage(channel="C0001", text="x", blocks=refused)
    with pytest.raises(SlackApiError, match="invalid_blocks"):
        await client.chat_update(channel="C0001", ts=posted["ts"], text="x", blocks=refused)
    started = await client.chat_startStream(channel="D0001", thread_ts="1.1", markdown_text="x")
    with pytest.raises(SlackApiError, match="invalid_blocks"):
        await client.chat_stopStream(channel="D0001", ts=started["ts"], blocks=refused)
    await client.chat_stopStream(channel="D0001", ts=started["ts"], blocks=taken)


def without(scopes: set[str], tmp_path: Path) -> set[str]:
    """The scopes of an app installed from manifest.yml less `scopes`."""
    manifest = yaml.safe_load(MANIFEST.read_text())
    bot = manifest["oauth_config"]["scopes"]["bot"]
    manifest["oauth_config"]["scopes"]["bot"] = [s for s in bot if s not in scopes]
    path = tmp_path / "manifest.yml"
    path.write_text(yaml.safe_dump(manifest))
    return granted(path)


async def test_a_method_needs_a_scope_the_manifest_grants(
    fake_slack: FakeSlack, tmp_path: Path
) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    fake_slack.scopes = without({"chat:write"}, tmp_path)
    for call in (
        client.chat_postMessage(channel="C0001", text="hi"),
        client.chat_update(channel="C0001", ts="1.1", text="hi"),
        client.chat_startStream(channel="D0001", thread_ts="1.1", markdown_text="hi"),
        client.chat_appendStream(channel="D0001", ts="1.1", markdown_text="hi"),
        client.chat_stopStream(channel="D0001", ts="1.1"),
    ):
        with pytest.raises(SlackApiError, match="missing_scope") as refused:
            await call
        assert refused.value.response["needed"] == "chat:write"
        assert "chat:write" not in refused.value.response["provided"]
    assert fake_slack.threads == {}
    # setStatus still takes assistant:write (for now); the prompts need only that
    await client.assistant_threads_setStatus(channel_id="D0001", thread_ts="1.1", status="…")
    await client.assistant_threads_setSuggestedPrompts(channel_id="D0001", prompts=[])
    fake_slack.scopes = without({"chat:write", "assistant:write"}, tmp_path)
    with pytest.raises(SlackApiError, match="missing_scope"):
        await client.assistant_threads_setStatus(channel_id="D0001", thread_ts="1.1", status="…")
    with pytest.raises(SlackApiError, match="missing_scope"):
        await client.assistant_threads_setSuggestedPrompts(channel_id="D0001", prompts=[])
    await client.auth_test()  # needs no scope


def test_every_method_the_fake_serves_has_its_scopes() -> None:
    served = {
        name[1:].replace("_", ".")
        for name in vars(FakeSlack)
        if name.startswith(("_auth_", "_chat_", "_assistant_", "_conversations_"))
    }
    assert served - set(METHOD_SCOPES) == {"conversations.replies"}  # scoped by type


async def test_metadata_is_kept_and_read_back_only_when_asked_for(
    fake_slack: FakeSlack,
) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    metadata = {"event_type": "answer_posted", "event_payload": {"ref": "ab12"}}
    posted = await client.chat_postMessage(
        channel="C0001", thread_ts="1.1", text="hi", metadata=metadata
    )
    assert posted["message"]["metadata"] == metadata
    plain = await client.conversations_replies(channel="C0001", ts="1.1")
    assert "metadata" not in plain["messages"][0]
    full = await client.conversations_replies(channel="C0001", ts="1.1", include_all_metadata=True)
    assert full["messages"][0]["metadata"] == metadata
    wrongs = [{"event_type": "x"}, {"event_payload": {}}, {"event_type": 1, "event_payload": {}}]
    for wrong in wrongs:
        with pytest.raises(SlackApiError, match="invalid_metadata_format"):
            await client.chat_postMessage(channel="C0001", text="hi", metadata=wrong)


async def test_a_stream_the_user_stopped_takes_nothing_more(fake_slack: FakeSlack) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    started = await client.chat_startStream(channel="D0001", thread_ts="1.1", markdown_text="a")
    fake_slack.fail("chat.appendStream", Fault(error=STOPPED_BY_USER))
    for call in (
        client.chat_appendStream(channel="D0001", ts=started["ts"], markdown_text="b"),
        client.chat_appendStream(channel="D0001", ts=started["ts"], markdown_text="c"),
        client.chat_stopStream(channel="D0001", ts=started["ts"]),
    ):
        with pytest.raises(SlackApiError, match=STOPPED_BY_USER):
            await call
    assert fake_slack.streaming == set()
    [message] = fake_slack.threads[("D0001", "1.1")]
    assert message["text"] == "a"


async def test_a_rate_limited_call_says_when_to_retry(fake_slack: FakeSlack) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)  # no retry handler
    fake_slack.fail("chat.update", Fault(429, "ratelimited", retry_after=7))
    with pytest.raises(SlackApiError, match="ratelimited") as limited:
        await client.chat_update(channel="C0001", ts="1.1", text="hi")
    assert limited.value.response.status_code == 429
    assert limited.value.response.headers["Retry-After"] == "7"


async def test_a_socket_mode_url_takes_an_app_level_token_in_the_header(
    fake_slack: FakeSlack,
) -> None:
    client = AsyncWebClient(base_url=fake_slack.url)
    for token, error in [
        ("xoxb-test", "not_allowed_token_type"),
        ("xoxp-test", "not_allowed_token_type"),
        ("nonsense", "invalid_auth"),
    ]:
        with pytest.raises(SlackApiError, match=error):
            await client.apps_connections_open(app_token=token)
    with pytest.raises(SlackApiError, match="not_authed"):
        await client.api_call("apps.connections.open")
    url = f"{fake_slack.url}apps.connections.open"
    async with aiohttp.ClientSession() as session:
        async with session.post(url, data={"token": "xapp-test"}) as response:
            assert (await response.json())["error"] == "not_authed"  # a POST parameter
        bearer = {"Authorization": "Bearer xapp-test"}
        async with session.get(url, headers=bearer) as response:
            assert (await response.json())["error"] == "insecure_request"
    opened = await client.apps_connections_open(app_token="xapp-test")
    assert opened["url"].startswith(fake_slack.url.replace("http://", "ws://").removesuffix("api/"))
    with pytest.raises(SlackApiError, match="not_allowed_token_type"):
        await AsyncWebClient(token="xapp-test", base_url=fake_slack.url).auth_test()


async def test_socket_mode_says_hello_records_acks_and_refuses_what_is_no_ack(
    fake_slack: FakeSlack,
) -> None:
    socket = fake_slack.socket
    opened = await AsyncWebClient(base_url=fake_slack.url).apps_connections_open(
        app_token="xapp-test"
    )
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.WSServerHandshakeError):
            await session.ws_connect(opened["url"].replace("ticket=", "ticket=forged"))
        async with session.ws_connect(opened["url"]) as ws:
            hello = await ws.receive_json(timeout=5)
            assert hello["type"] == "hello" and hello["num_connections"] == 1
            envelope_id = socket.push({"type": "event_callback"}, retry_attempt=1)
            envelope = await ws.receive_json(timeout=5)
            assert envelope["envelope_id"] == envelope_id and envelope["retry_attempt"] == 1
            assert envelope["type"] == "events_api" and not envelope["accepts_response_payload"]
            frames = [
                "not json",
                json.dumps({"id": envelope_id}),
                json.dumps({"envelope_id": "never-sent"}),
                json.dumps({"envelope_id": envelope_id, "payload": {"text": "hi"}}),
            ]
            for frame in frames:
                await ws.send_str(frame)
            await until(lambda: len(socket.refused) == 4)
            assert socket.acks == []
            await ws.send_json({"envelope_id": envelope_id})
            await until(lambda: len(socket.acks) == 1)
            await ws.send_json({"envelope_id": envelope_id})
            await until(lambda: len(socket.refused) == 5)
    assert socket.refused == [
        "not_json",
        "no_envelope_id",
        "unknown_envelope_id",
        "payload_not_accepted",
        "acked_twice",
    ]
    [ack] = socket.acks
    assert ack.envelope_id == envelope_id and ack.at >= socket.sent[0].at
