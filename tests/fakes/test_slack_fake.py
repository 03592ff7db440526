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
    BOT_USER,
    MANIFEST,
    METHOD_SCOPES,
    STOPPED_BY_USER,
    TEAM,
    FakeSlack,
    Fault,
    granted,
    permalink,
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
    start: dict[str, Any] = {"channel": channel, "thread_ts": "1.1", "markdown_text": "hi"}
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


def fields(count: int, length: int) -> dict[str, Any]:
    field = {"type": "mrkdwn", "text": "x" * length}
    return {"type": "section", "fields": [field] * count}


def header(text: str) -> dict[str, Any]:
    return {"type": "header", "text": {"type": "plain_text", "text": text}}


@pytest.mark.parametrize(
    ("taken", "refused"),
    [
        ([section("x")] * 50, [section("x")] * 51),  # blocks in a message
        ([section("x" * 3000)], [section("x" * 3001)]),  # a section's text
        ([section("x")], [section("")]),
        ([{**section("x"), "block_id": "b" * 255}], [{**section("x"), "block_id": "b" * 256}]),
        ([buttons("x" * 75)], [buttons("x" * 76)]),  # a button's label
        ([fields(10, 2000)], [fields(11, 1)]),  # a section's fields
        ([fields(1, 2000)], [fields(1, 2001)]),
        ([fields(1, 1)], [fields(1, 0)]),
        ([header("x" * 150)], [header("x" * 151)]),
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


def task(**fields: Any) -> dict[str, Any]:
    return {"type": "task_update", "id": "draft-1", "title": "Draft", "status": "pending", **fields}


@pytest.mark.parametrize(
    ("taken", "refused"),
    [
        (task(), task(status="done")),  # pending, in_progress, complete or error
        (task(status="error"), task(id="")),
        (task(status="complete"), task(title=" ")),
        (task(details="x" * 256), task(details="x" * 257)),  # a task card's details
        (task(output="x" * 256), task(output="x" * 257)),
        ({"type": "plan_update", "title": "Checks"}, {"type": "plan_update"}),
        ({"type": "markdown_text", "text": "x"}, {"type": "markdown_text", "text": ""}),
        ({"type": "blocks", "blocks": [section("x")]}, {"type": "blocks", "blocks": [section("")]}),
        (task(), {"type": "thinking", "text": "x"}),  # no such chunk
    ],
)
async def test_streamed_chunks_are_checked_as_slack_shows_them(
    fake_slack: FakeSlack, taken: dict[str, Any], refused: dict[str, Any]
) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    start = {"channel": "D0001", "thread_ts": "1.1", "task_display_mode": "plan"}
    with pytest.raises(SlackApiError, match="invalid_chunks"):
        await client.chat_startStream(**start, chunks=[refused])
    started = await client.chat_startStream(**start, chunks=[taken])
    ts = started["ts"]
    with pytest.raises(SlackApiError, match="invalid_chunks"):
        await client.chat_appendStream(channel="D0001", ts=ts, chunks=[refused])
    await client.chat_appendStream(channel="D0001", ts=ts, chunks=[taken])
    with pytest.raises(SlackApiError, match="invalid_chunks"):
        await client.chat_stopStream(channel="D0001", ts=ts, chunks=[refused])
    await client.chat_stopStream(channel="D0001", ts=ts, chunks=[taken])
    steps = [taken] * 3 if taken["type"] in ("task_update", "plan_update") else []
    assert fake_slack.steps.get(ts, []) == steps


async def test_a_stream_takes_text_or_chunks_and_shows_tasks_in_two_modes(
    fake_slack: FakeSlack,
) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    start = {"channel": "D0001", "thread_ts": "1.1"}
    with pytest.raises(SlackApiError, match="invalid_arguments"):
        await client.chat_startStream(**start, chunks=[task()], task_display_mode="cards")
    for mode in ("timeline", "plan"):
        await client.chat_startStream(**start, chunks=[task()], task_display_mode=mode)
    started = await client.chat_startStream(**start, chunks=[task()])  # timeline by default
    ts = started["ts"]
    with pytest.raises(SlackApiError, match="invalid_chunks"):  # both at once: not both
        await client.chat_appendStream(
            channel="D0001", ts=ts, markdown_text="a", chunks=[task(status="complete")]
        )
    text = {"type": "markdown_text", "text": "**Yes.**"}
    await client.chat_appendStream(channel="D0001", ts=ts, chunks=[task(status="complete"), text])
    with pytest.raises(SlackApiError, match="msg_too_long"):
        long = {"type": "markdown_text", "text": "x" * 6001}
        await client.chat_appendStream(channel="D0001", ts=ts, chunks=[long, long])
    await client.chat_stopStream(channel="D0001", ts=ts)
    [message] = [m for m in fake_slack.threads[("D0001", "1.1")] if m["ts"] == ts]
    assert message["text"] == "**Yes.**"
    assert [step["status"] for step in fake_slack.steps[ts]] == ["pending", "complete"]


def home(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "home", "blocks": blocks}


@pytest.mark.parametrize(
    ("taken", "refused", "error"),
    [
        (home([section("x")]), {"type": "modal", "blocks": [section("x")]}, "invalid_arguments"),
        (home([section("x")]), {"blocks": [section("x")]}, "invalid_arguments"),
        (home([section("x")] * 100), home([section("x")] * 101), "invalid_arguments"),
        (home([section("x" * 3000)]), home([section("x" * 3001)]), "invalid_arguments"),
        (home([fields(10, 1)]), home([fields(11, 1)]), "invalid_arguments"),
        (home([section("x" * 2900)] * 80), home([section("x" * 2900)] * 90), "view_too_large"),
    ],
)
async def test_views_publish_takes_a_home_view_within_its_limits(
    fake_slack: FakeSlack, taken: dict[str, Any], refused: dict[str, Any], error: str
) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    with pytest.raises(SlackApiError, match=error):
        await client.views_publish(user_id="U0001", view=refused)
    assert fake_slack.homes == {}
    published = await client.views_publish(user_id="U0001", view=taken)
    assert fake_slack.homes["U0001"]["blocks"] == taken["blocks"]
    assert published["view"]["type"] == "home"
    assert fake_slack.published == ["U0001"]


async def test_views_publish_needs_a_user_and_the_home_tab_on(fake_slack: FakeSlack) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    with pytest.raises(SlackApiError, match="invalid_arguments"):
        await client.views_publish(user_id="", view=home([section("x")]))
    with pytest.raises(SlackApiError, match="invalid_arguments"):
        await client.api_call("views.publish", json={"user_id": "U0001", "view": "{not json"})
    fake_slack.home_tab = False  # an app whose manifest has home_tab_enabled: false
    with pytest.raises(SlackApiError, match="not_enabled"):
        await client.views_publish(user_id="U0001", view=home([section("x")]))
    assert fake_slack.homes == {}


async def test_views_publish_refuses_a_stale_hash(fake_slack: FakeSlack) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    with pytest.raises(SlackApiError, match="hash_conflict"):  # nothing published yet
        await client.views_publish(user_id="U0001", view=home([section("a")]), hash="1.1")
    first = await client.views_publish(user_id="U0001", view=home([section("a")]))
    second = await client.views_publish(
        user_id="U0001", view=home([section("b")]), hash=first["view"]["hash"]
    )
    with pytest.raises(SlackApiError, match="hash_conflict"):
        await client.views_publish(
            user_id="U0001", view=home([section("c")]), hash=first["view"]["hash"]
        )
    assert fake_slack.homes["U0001"]["hash"] == second["view"]["hash"]
    assert fake_slack.homes["U0001"]["blocks"] == [section("b")]


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
        if name.startswith(
            (
                "_auth_",
                "_chat_",
                "_assistant_",
                "_conversations_",
                "_users_",
                "_files_",
                "_views_",
            )
        )
    }
    scoped_by_type = {"conversations.replies", "conversations.history"}
    assert served - set(METHOD_SCOPES) == scoped_by_type


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
    wrongs: list[dict[str, Any]] = [
        {"event_type": "x"},
        {"event_payload": {}},
        {"event_type": 1, "event_payload": {}},
    ]
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


# --- users, files, permalinks, history, membership, Real-time Search ----------------------


def bot_client(fake_slack: FakeSlack, token: str = "xoxb-test") -> AsyncWebClient:
    return AsyncWebClient(token=token, base_url=fake_slack.url)


async def test_users_info_gives_a_persons_names(fake_slack: FakeSlack) -> None:
    fake_slack.scopes |= {"users:read"}
    fake_slack.user("U0MARIA", "maria", "Maria Lopez")
    client = bot_client(fake_slack)
    found = await client.users_info(user="U0MARIA")
    assert found["user"]["profile"]["display_name"] == "maria"
    assert found["user"]["profile"]["real_name"] == "Maria Lopez"
    with pytest.raises(SlackApiError, match="user_not_found"):
        await client.users_info(user="U0NOBODY")
    fake_slack.scopes -= {"users:read"}
    with pytest.raises(SlackApiError, match="missing_scope") as refused:
        await client.users_info(user="U0MARIA")
    assert refused.value.response["needed"] == "users:read"


async def download(url: str, token: str | None = None) -> tuple[int, str, bytes]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as response:
        return response.status, response.content_type, await response.read()


async def test_a_file_is_served_to_the_bot_token_and_a_sign_in_page_to_anything_else(
    fake_slack: FakeSlack,
) -> None:
    fake_slack.scopes |= {"files:read"}
    shared = fake_slack.add_file("error.png", b"\x89PNG bytes", "image/png", channels=("C0001",))
    assert shared["url_private"].startswith(fake_slack.host)
    info = await bot_client(fake_slack).files_info(file=shared["id"])
    assert info["file"]["url_private_download"] == shared["url_private_download"]
    assert info["file"]["size"] == len(b"\x89PNG bytes") and info["file"]["filetype"] == "png"
    got = await download(shared["url_private"], "xoxb-test")
    assert got == (200, "image/png", b"\x89PNG bytes")
    async with aiohttp.ClientSession() as session:
        bearer = {"Authorization": "Bearer xoxb-test"}
        async with session.get(shared["url_private_download"], headers=bearer) as response:
            assert "attachment" in response.headers["Content-Disposition"]
    for url, token in [
        (shared["url_private"], None),  # no Authorization header
        (shared["url_private"] + "?token=xoxb-test", None),  # a token in the query
        (shared["url_private"], "xapp-test"),  # not a bot token
        (shared["url_private"].replace("error.png", "other.png"), "xoxb-test"),
    ]:
        status, kind, body = await download(url, token)
        assert (status, kind) == (200, "text/html") and b"Sign in" in body
    fake_slack.scopes -= {"files:read"}
    status, kind, _ = await download(shared["url_private"], "xoxb-test")
    assert (status, kind) == (200, "text/html")
    served = [d.served for d in fake_slack.downloads]
    assert served == [True, True, False, False, False, False, False]


async def test_files_info_refuses_what_slack_refuses(fake_slack: FakeSlack) -> None:
    fake_slack.scopes |= {"files:read"}
    client = bot_client(fake_slack)
    elsewhere = fake_slack.add_file("a.pdf", b"%PDF-1.4", "application/pdf", channels=("G0SECRET",))
    gone = fake_slack.add_file("b.txt", b"hi", "text/plain", channels=("C0001",))
    fake_slack.files[gone["id"]].deleted = True
    fake_slack.joined = {"C0001"}
    with pytest.raises(SlackApiError, match="file_not_found"):
        await client.files_info(file="F_NOPE")
    with pytest.raises(SlackApiError, match="file_not_found"):  # shared where the bot is not
        await client.files_info(file=elsewhere["id"])
    _, kind, _ = await download(elsewhere["url_private"], "xoxb-test")
    assert kind == "text/html"
    with pytest.raises(SlackApiError, match="file_deleted"):
        await client.files_info(file=gone["id"])
    fake_slack.scopes -= {"files:read"}
    with pytest.raises(SlackApiError, match="missing_scope"):
        await client.files_info(file=gone["id"])


async def test_a_file_download_can_fail(fake_slack: FakeSlack) -> None:
    fake_slack.scopes |= {"files:read"}
    shared = fake_slack.add_file("log.txt", b"line", "text/plain", channels=("C0001",))
    fake_slack.fail("url_private", Fault(500, "internal_error"))
    status, _, _ = await download(shared["url_private"], "xoxb-test")
    assert status == 500
    assert await download(shared["url_private"], "xoxb-test") == (200, "text/plain", b"line")


async def test_a_permalink_names_the_message_and_its_thread(fake_slack: FakeSlack) -> None:
    root = fake_slack.add_message("C0001", "the outage", ts="100.000100")
    reply = fake_slack.add_message("C0001", "fixed", ts="100.000200", thread_ts=root["ts"])
    fake_slack.add_message("G0SECRET", "private", ts="100.000300")
    client = bot_client(fake_slack)
    linked = await client.chat_getPermalink(channel="C0001", message_ts=root["ts"])
    assert linked["permalink"] == permalink("C0001", "100.000100")
    assert linked["permalink"].endswith("/archives/C0001/p100000100")
    in_thread = await client.chat_getPermalink(channel="C0001", message_ts=reply["ts"])
    assert in_thread["permalink"].endswith("?thread_ts=100.000100&cid=C0001")
    with pytest.raises(SlackApiError, match="message_not_found"):
        await client.chat_getPermalink(channel="C0001", message_ts="999.000001")
    fake_slack.joined = {"C0001"}
    with pytest.raises(SlackApiError, match="channel_not_found"):
        await client.chat_getPermalink(channel="G0SECRET", message_ts="100.000300")


async def test_history_reads_one_linked_message_and_pages_newest_first(
    fake_slack: FakeSlack,
) -> None:
    for n in range(1, 6):
        fake_slack.add_message("C0001", f"message {n}", ts=f"200.00000{n}")
    fake_slack.add_message("C0001", "a reply", ts="200.000009", thread_ts="200.000002")
    client = bot_client(fake_slack)
    one = await client.conversations_history(
        channel="C0001", latest="200.000003", inclusive=True, limit=1
    )
    assert [m["text"] for m in one["messages"]] == ["message 3"]
    before = await client.conversations_history(channel="C0001", latest="200.000003", limit=1)
    assert [m["text"] for m in before["messages"]] == ["message 2"]  # exclusive by default
    assert before["messages"][0]["reply_count"] == 1 and before["has_more"]
    page = await client.conversations_history(channel="C0001", limit=2)
    assert [m["text"] for m in page["messages"]] == ["message 5", "message 4"]
    rest = await client.conversations_history(
        channel="C0001", limit=10, cursor=page["response_metadata"]["next_cursor"]
    )
    assert [m["text"] for m in rest["messages"]] == ["message 3", "message 2", "message 1"]
    assert not rest["has_more"]


@pytest.mark.parametrize(
    ("channel", "error"),
    [
        ("C0OTHER", "not_in_channel"),
        ("G0SECRET", "channel_not_found"),
        ("D0OTHER", "channel_not_found"),
    ],
)
async def test_reading_where_the_bot_is_not_a_member_is_refused(
    fake_slack: FakeSlack, channel: str, error: str
) -> None:
    fake_slack.add_message(channel, "not for the bot", ts="300.000001")
    fake_slack.add_message("C0001", "for the bot", ts="300.000002")
    fake_slack.joined = {"C0001"}
    client = bot_client(fake_slack)
    with pytest.raises(SlackApiError, match=error):
        await client.conversations_history(channel=channel, latest="300.000001", inclusive=True)
    with pytest.raises(SlackApiError, match=error):
        await client.conversations_replies(channel=channel, ts="300.000001")
    read = await client.conversations_history(channel="C0001")
    assert [m["text"] for m in read["messages"]] == ["for the bot"]


async def test_history_needs_the_history_scope_of_the_conversations_type(
    fake_slack: FakeSlack, tmp_path: Path
) -> None:
    fake_slack.scopes = without({"groups:history"}, tmp_path)
    client = bot_client(fake_slack)
    with pytest.raises(SlackApiError, match="missing_scope") as refused:
        await client.conversations_history(channel="G0001")
    assert refused.value.response["needed"] == "groups:history"
    await client.conversations_history(channel="C0001")


async def test_real_time_search_only_where_allowed_with_an_action_token(
    fake_slack: FakeSlack,
) -> None:
    fake_slack.add_message("C0001", "the deploy failed at noon", ts="400.000001")
    fake_slack.add_message("G0001", "private deploy notes", ts="400.000002")
    client = bot_client(fake_slack)
    with pytest.raises(SlackApiError, match="unknown_method"):
        await client.assistant_search_context(query="deploy")
    fake_slack.rts = True
    fake_slack.scopes.discard("search:read.public")  # an app installed before it was asked
    with pytest.raises(SlackApiError, match="missing_scope") as refused:
        await client.assistant_search_context(query="deploy", action_token="x")
    assert refused.value.response["needed"] == "search:read.public"
    fake_slack.scopes |= {"search:read.public"}
    for token in (None, "forged"):
        with pytest.raises(SlackApiError, match="invalid_action_token"):
            await client.assistant_search_context(query="deploy", action_token=token)
    action = fake_slack.action_token()
    with pytest.raises(SlackApiError, match="invalid_arguments"):
        await client.assistant_search_context(query="", action_token=action)
    found = await client.assistant_search_context(query="deploy", action_token=action)
    [hit] = found["results"]["messages"]
    assert hit["channel_id"] == "C0001" and hit["permalink"] == permalink("C0001", "400.000001")
    with pytest.raises(SlackApiError, match="missing_scope") as refused:
        await client.assistant_search_context(
            query="deploy", action_token=action, channel_types=["public_channel", "private_channel"]
        )
    assert refused.value.response["needed"] == "search:read.private"
    for n in range(30):
        fake_slack.add_message("C0002", f"deploy {n}", ts=f"500.{n:06d}")
    many = await client.assistant_search_context(query="deploy", action_token=action, limit=50)
    assert len(many["results"]["messages"]) == 20


async def test_an_ephemeral_message_needs_its_user_and_a_conversation_the_bot_can_post_in(
    fake_slack: FakeSlack,
) -> None:
    client = bot_client(fake_slack)
    posted = await client.chat_postEphemeral(channel="C0001", user="U0001", text="why?")
    assert posted["message_ts"] and fake_slack.threads.get(("C0001", posted["message_ts"])) is None
    with pytest.raises(SlackApiError, match="invalid_arguments"):
        await client.chat_postEphemeral(channel="C0001", user="", text="why?")
    fake_slack.joined = {"D0001"}
    with pytest.raises(SlackApiError, match="not_in_channel"):
        await client.chat_postEphemeral(channel="C0001", user="U0001", text="why?")


async def test_conversations_info_describes_each_type_as_slack_does(fake_slack: FakeSlack) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    fake_slack.conversation("C0SH", "channel", ["U1"], shared="ext")
    fake_slack.conversation("D0U1", "im", user="U1")
    fake_slack.conversation("G0MP", "mpim", ["U1", "U2"])
    shared = (await client.conversations_info(channel="C0SH"))["channel"]
    assert shared["is_ext_shared"] and shared["is_shared"] and not shared["is_private"]
    assert shared["context_team_id"] == TEAM and len(shared["shared_team_ids"]) == 2
    im = (await client.conversations_info(channel="D0U1"))["channel"]
    assert im["is_im"] and im["user"] == "U1" and "is_private" not in im  # Slack's im object
    group = (await client.conversations_info(channel="G0MP"))["channel"]
    assert group["is_mpim"] and group["is_private"]
    plain = (await client.conversations_info(channel="C0001"))["channel"]
    assert not plain["is_private"] and not plain["is_shared"]


async def test_conversations_info_and_members_refuse_what_slack_refuses(
    fake_slack: FakeSlack,
) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    fake_slack.joined = {"C0001"}
    fake_slack.missing = {"C0GONE"}
    for method in (client.conversations_info, client.conversations_members):
        for channel in ("G0NOTIN", "D0NOTIN", "C0GONE"):  # private elsewhere, or none at all
            with pytest.raises(SlackApiError, match="channel_not_found"):
                await method(channel=channel)
        await method(channel="C0NOTIN")  # a public channel the bot is not in: described
    fake_slack.scopes.discard("groups:read")
    fake_slack.joined = None
    with pytest.raises(SlackApiError, match="missing_scope"):
        await client.conversations_info(channel="G0001")
    await client.conversations_info(channel="C0001")


async def test_conversations_members_pages_within_slacks_limit(fake_slack: FakeSlack) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    everyone = [f"U{n:04d}" for n in range(2500)]
    fake_slack.conversation("C0BIG", "channel", everyone)
    seen, cursor = [], None
    for _ in range(5):
        page = await client.conversations_members(channel="C0BIG", limit=999, cursor=cursor)
        seen += page["members"]
        cursor = page["response_metadata"]["next_cursor"]
        if not cursor:
            break
    assert seen == everyone
    for limit in (0, 1000):  # "specify a limit value under 1000"
        with pytest.raises(SlackApiError, match="invalid_limit"):
            await client.conversations_members(channel="C0BIG", limit=limit)
    with pytest.raises(SlackApiError, match="invalid_cursor"):
        await client.conversations_members(channel="C0BIG", cursor="dXNlcjpVMDYx")


async def test_users_conversations_lists_what_the_bot_shares_with_a_person(
    fake_slack: FakeSlack,
) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    fake_slack.user("U1", "Dana")
    fake_slack.conversation("C0PUB", "channel", ["U1"])  # public: listed, bot or not
    fake_slack.conversation("G0WITH", "group", ["U1", BOT_USER])
    fake_slack.conversation("G0WITHOUT", "group", ["U1"])  # the bot is not in it: hidden
    fake_slack.conversation("G0OTHER", "group", ["U2", BOT_USER])
    every = "public_channel,private_channel,mpim,im"
    listed = await client.users_conversations(user="U1", types=every)
    assert [c["id"] for c in listed["channels"]] == ["C0PUB", "G0WITH"]
    public = await client.users_conversations(user="U1")  # public channels by default
    assert [c["id"] for c in public["channels"]] == ["C0PUB"]
    with pytest.raises(SlackApiError, match="invalid_types"):
        await client.users_conversations(user="U1", types="channels")
    with pytest.raises(SlackApiError, match="user_not_found"):
        await client.users_conversations(user="U0NOBODY")
    with pytest.raises(SlackApiError, match="invalid_limit"):
        await client.users_conversations(user="U1", limit=1000)
    fake_slack.scopes.discard("groups:read")
    with pytest.raises(SlackApiError, match="missing_scope"):
        await client.users_conversations(user="U1", types="private_channel")


async def test_a_response_url_takes_five_messages_of_a_known_kind(fake_slack: FakeSlack) -> None:
    url = fake_slack.response_url()
    async with aiohttp.ClientSession() as session:

        async def send(body: object, to: str = url) -> tuple[int, str]:
            async with session.post(to, json=body) as response:
                return response.status, await response.text()

        assert await send({"text": "hi", "response_type": "shouted"}) == (400, "invalid_payload")
        assert await send({"response_type": "ephemeral"}) == (400, "invalid_payload")
        assert await send({"text": "x"}, to=url + "x") == (404, "expired_url")  # not issued
        for _ in range(5):
            assert await send({"text": "only you see this", "response_type": "ephemeral"}) == (
                200,
                "ok",
            )
        assert await send({"text": "a sixth"}) == (404, "used_url")
    assert len(fake_slack.responses) == 5


async def test_a_response_url_deletes_or_replaces_only_the_message_a_click_was_on(
    fake_slack: FakeSlack,
) -> None:
    """A command's or a shortcut's URL has no original message of the app's to act on; a
    click's may delete it. Blocks past Block Kit's limits are refused as in a post."""
    command, click = fake_slack.response_url(), fake_slack.response_url(click=True)
    async with aiohttp.ClientSession() as session:

        async def send(body: object, to: str) -> tuple[int, str]:
            async with session.post(to, json=body) as response:
                return response.status, await response.text()

        assert await send({"delete_original": True}, command) == (400, "no_original")
        replace = {"replace_original": True, "text": "new"}
        assert await send(replace, command) == (400, "no_original")
        section = {"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}
        assert await send({"blocks": [section]}, command) == (400, "invalid_blocks")
        assert await send({"delete_original": True}, click) == (200, "ok")
    assert fake_slack.deleted == [click.rsplit("/response/", 1)[1]] and not fake_slack.responses
    assert not fake_slack.replaced


async def test_a_message_to_a_clicks_url_replaces_the_clicked_one_unless_told_not_to(
    fake_slack: FakeSlack,
) -> None:
    command, click = fake_slack.response_url(), fake_slack.response_url(click=True)
    async with aiohttp.ClientSession() as session:
        for body, to in (
            ({"text": "a new one", "replace_original": False}, click),
            ({"text": "a new one"}, command),  # no original to replace
            ({"text": "instead of the clicked one"}, click),
        ):
            async with session.post(to, json=body) as response:
                assert response.status == 200
    assert fake_slack.replaced == [click.rsplit("/response/", 1)[1]]
    assert len(fake_slack.responses) == 3


async def test_posting_needs_the_bot_in_the_conversation(fake_slack: FakeSlack) -> None:
    """chat:write without chat:write.public: not_in_channel in a public channel the bot is
    not in, channel_not_found in a private one or another person's DM."""
    fake_slack.joined = {"C0IN"}
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    await client.chat_postMessage(channel="C0IN", text="hello")
    for channel, error in (("C0OUT", "not_in_channel"), ("G0OUT", "channel_not_found")):
        with pytest.raises(SlackApiError) as refused:
            await client.chat_postMessage(channel=channel, text="hello")
        assert refused.value.response["error"] == error
