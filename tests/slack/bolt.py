"""Drive the real Bolt app with raw Events API payloads and wait for its replies."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

import aiohttp
from slack_bolt.request.async_request import AsyncBoltRequest

from app.settings import Settings
from app.wiring import Vouch, build
from tests.fakes.server import patience
from tests.fakes.slack import BOT_USER, TEAM, FakeSlack, signed_headers

_ids = itertools.count(1)
SIGNING_SECRET = "process-test-secret"  # of bot processes started by the `bot` fixture


BUILT: list[Vouch] = []  # every app a test made: closed after the test (conftest)


def make_app(settings: Settings, **parts: Any) -> Vouch:
    """The app, as app.wiring.build makes it (with `parts` given), closed after the test."""
    vouch = build(settings, **parts)
    BUILT.append(vouch)
    return vouch


async def close_built() -> None:
    """Close every app the test made (its workers, store, docs and model client)."""
    while BUILT:
        await BUILT.pop().close()


def envelope(event: dict[str, Any]) -> dict[str, Any]:
    return {
        "token": "legacy",
        "team_id": TEAM,
        "api_app_id": "A0001",
        "type": "event_callback",
        "event_id": f"Ev{next(_ids):06d}",
        "event_time": 1700000000,
        "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": True}],
        "event": {"team": TEAM, **event},
    }


def mention(text: str, ts: str, channel: str = "C0001", **extra: Any) -> dict[str, Any]:
    event = {"type": "app_mention", "user": "U0001", "text": f"<@{BOT_USER}> {text}"}
    return {**event, "channel": channel, "ts": ts, "event_ts": ts, **extra}


def message(text: str, ts: str, channel: str = "C0001", **extra: Any) -> dict[str, Any]:
    event = {"type": "message", "user": "U0001", "text": text, "channel_type": "channel"}
    return {**event, "channel": channel, "ts": ts, "event_ts": ts, **extra}


def shortcut(
    asked: dict[str, Any], action_ts: str, user: str = "U0001", channel: str = "C0001"
) -> dict[str, Any]:
    """ "Ask Vouch about this" on message `asked`, as Slack sends the interaction."""
    return {
        "type": "message_action",
        "token": "legacy",
        "action_ts": action_ts,
        "team": {"id": TEAM, "domain": "example"},
        "user": {"id": user, "name": "someone", "team_id": TEAM},
        "channel": {"id": channel, "name": "general"},
        "is_enterprise_install": False,
        "callback_id": "vouch_ask",
        "trigger_id": f"{next(_ids)}.1.abc",
        "response_url": "http://127.0.0.1:9/response/none",  # loopback, nothing listens
        "message_ts": asked["ts"],
        "message": {"type": "message", **asked},
    }


def command(
    text: str, response_url: str, user: str = "U0001", channel: str = "C0001"
) -> dict[str, str]:
    """`/vouch <text>` as Slack sends a slash command's fields (a form over HTTP, an
    envelope's payload in Socket Mode)."""
    return {
        "token": "legacy",
        "team_id": TEAM,
        "team_domain": "example",
        "channel_id": channel,
        "channel_name": "general",
        "user_id": user,
        "user_name": "someone",
        "command": "/vouch",
        "text": text,
        "api_app_id": "A0001",
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": f"{next(_ids)}.1.{next(_ids):x}",
    }


def share(
    value: str, response_url: str, user: str = "U0001", channel: str = "C0001"
) -> dict[str, Any]:
    """A click on "Share in channel" under a private answer, as Slack sends a click on an
    ephemeral message (no `message`: Slack does not send an ephemeral message's content)."""
    return {
        "type": "block_actions",
        "token": "legacy",
        "team": {"id": TEAM, "domain": "example"},
        "user": {"id": user, "name": "someone", "team_id": TEAM},
        "api_app_id": "A0001",
        "container": {
            "type": "message",
            "message_ts": "1700000000.000100",
            "channel_id": channel,
            "is_ephemeral": True,
        },
        "channel": {"id": channel, "name": "general"},
        "trigger_id": f"{next(_ids)}.1.abc",
        "response_url": response_url,
        "actions": [
            {
                "type": "button",
                "action_id": "vouch_share",
                "block_id": "share",
                "value": value,
                "action_ts": "1700000001.000200",
                "text": {"type": "plain_text", "text": "Share in channel"},
            }
        ],
    }


async def post_command(port: int, fields: dict[str, str], secret: str) -> tuple[int, Any]:
    """POST one signed slash command to the bot's HTTP server, as a form, as Slack sends
    it; its status and its body read as JSON (None when empty)."""
    body = urlencode(fields).encode()
    headers = signed_headers(body, secret) | {"Content-Type": "application/x-www-form-urlencoded"}
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"http://127.0.0.1:{port}/slack/events", data=body, headers=headers
        ) as response,
    ):
        text = await response.text()
        return response.status, json.loads(text) if text else None


async def interact(app: Vouch, payload: dict[str, Any]) -> int:
    """An interaction (a shortcut, a click) through Bolt, as Socket Mode hands it over."""
    response = await app.bolt.async_dispatch(AsyncBoltRequest(body=payload, mode="socket_mode"))
    return response.status


async def post_interaction(port: int, payload: dict[str, Any], secret: str) -> int:
    """POST one signed interaction to the bot's HTTP server, as a form with a JSON
    `payload`, as Slack sends it."""
    body = urlencode({"payload": json.dumps(payload)}).encode()
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    return await _post(port, body, signed_headers(body, secret) | form)


async def dispatch(app: Vouch, event: dict[str, Any], retry: int = 0) -> int:
    headers: dict[str, str | Sequence[str]] = {"x-slack-retry-num": [str(retry)]} if retry else {}
    request = AsyncBoltRequest(body=envelope(event), headers=headers, mode="socket_mode")
    response = await app.bolt.async_dispatch(request)
    return response.status


async def until(check: Callable[[], object], timeout: float = 10.0) -> None:
    """Wait until `check()` holds (Bolt runs listeners after the ack); `timeout` on a quiet
    machine."""
    deadline = asyncio.get_running_loop().time() + patience(timeout)
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting for the app")
        await asyncio.sleep(0.01)


QUIET = 0.3  # seconds with no Slack call: nothing more happens (a process under test)
CALM = 3  # looks, LOOK apart, at apps that answer nothing, wait for nothing and call no one
LOOK = 0.02


async def settle(slack: FakeSlack, quiet: float = QUIET, timeout: float = 30.0) -> None:
    """Wait until nothing more happens: with the apps this test built, until none of them
    is busy (a message answered or work after an ack), their stores hold no message
    waiting, and no Slack call arrives over a few looks; otherwise (a bot process), until
    no Slack call has arrived for `quiet` seconds. A longer `quiet` asks for the quiet
    period in any case: that nothing comes later (for anything positive, wait for it with
    `until`)."""
    deadline = asyncio.get_running_loop().time() + patience(timeout)
    if BUILT and quiet == QUIET:
        calm, seen = 0, -1
        while calm < CALM:
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"the app still answering after {timeout} s")
            idle = not any(app.busy for app in BUILT) and await _drained()
            calm = calm + 1 if idle and seen == len(slack.calls) else 0
            seen = len(slack.calls)
            await asyncio.sleep(LOOK)
        return
    seen = -1
    while seen != len(slack.calls):
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"Slack calls still arriving after {timeout} s")
        seen = len(slack.calls)
        await asyncio.sleep(quiet)


async def _drained() -> bool:
    """Whether no store of the apps this test built holds a message still to answer."""
    for app in BUILT:
        if await app.store.waiting():
            return False
    return True


async def replied(slack: FakeSlack, method: str = "chat.postMessage", count: int = 1) -> None:
    """Wait for `count` calls of `method` (the reply), then until Slack calls stop."""
    await until(lambda: len(slack.of(method)) >= count)
    await settle(slack)


def answers_in(slack: FakeSlack, thread: str) -> list[str]:
    """The text of each message Vouch posted in the thread whose ts is `thread`."""
    return [p["text"] for p in slack.of("chat.postMessage") if p.get("thread_ts") == thread]


def final_texts(slack: FakeSlack) -> dict[str, str]:
    """The text each message ends with, by ts, after posts and updates."""
    texts = {}
    for thread in slack.threads.values():
        for msg in thread:
            texts[msg["ts"]] = msg["text"]
    return texts


async def answered(app: Vouch, slack: FakeSlack, ts: str, text: str = "how do I deploy?") -> str:
    """Mention Vouch at `ts` in C0001 and wait for the reply; the message's key."""
    await dispatch(app, mention(text, ts))
    await replied(slack)
    return f"{TEAM}:C0001:{ts}"


async def post_event(port: int, event: dict[str, Any], secret: str, retry: int = 0) -> int:
    """POST one signed Events API request to the bot's HTTP server on loopback (`retry`:
    Slack's retry number, with its reason, as Slack sends a delivery again)."""
    body = json.dumps(envelope(event)).encode()
    headers = signed_headers(body, secret)
    if retry:
        headers |= {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_error"}
    return await _post(port, body, headers)


async def _post(port: int, body: bytes, headers: dict[str, str]) -> int:
    """POST `body` to the bot's Slack endpoint on loopback; the HTTP status."""
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"http://127.0.0.1:{port}/slack/events", data=body, headers=headers
        ) as response,
    ):
        return response.status
