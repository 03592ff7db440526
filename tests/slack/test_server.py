"""HTTP mode as a real server: signed requests, forged and stale signatures, health, and
the command line's clear refusal to start without credentials."""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from app import __main__ as app_main
from app.server import serve
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.server import free_port, wait_healthy
from tests.fakes.slack import FakeSlack, signed_headers
from tests.isolation import process_env
from tests.slack.bolt import envelope, mention, replied, until

SECRET = "signing-secret-for-tests"
GOOD = "Merge to `main` and the pipeline deploys billing to staging."


def signed(body: bytes, secret: str = SECRET, age: float = 0) -> dict[str, str]:
    return signed_headers(body, secret, age)


@pytest.fixture
async def server(
    make_settings: Any, fake_slack: FakeSlack, fake_anthropic: FakeAnthropic
) -> AsyncIterator[str]:
    port = free_port()
    settings = make_settings(slack_signing_secret=SECRET, host="127.0.0.1", port=port)
    task = asyncio.create_task(serve(settings))
    url = f"http://127.0.0.1:{port}"
    await wait_healthy(url)
    yield url
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{url}/slack/events", data=body, headers=headers) as response,
    ):
        return response.status, await response.text()


async def test_health(server: str) -> None:
    async with aiohttp.ClientSession() as session, session.get(f"{server}/healthz") as response:
        assert response.status == 200 and await response.json() == {"ok": True}


async def test_signed_event_is_answered(
    server: str, fake_slack: FakeSlack, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.push(Reply(GOOD))
    body = json.dumps(envelope(mention("how do I deploy billing?", "300.000001"))).encode()
    status, _ = await post(server, body, signed(body))
    assert status == 200
    await until(lambda: bool(fake_slack.of("chat.postMessage")))
    assert fake_slack.of("chat.postMessage")[0]["text"] == GOOD


async def test_url_verification_challenge(server: str) -> None:
    body = json.dumps({"type": "url_verification", "challenge": "c-123", "token": "t"}).encode()
    status, text = await post(server, body, signed(body))
    assert status == 200 and "c-123" in text


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param(lambda b: signed(b, secret="wrong-secret"), id="forged"),
        pytest.param(lambda b: signed(b, age=6 * 60), id="stale"),
        pytest.param(lambda b: {"Content-Type": "application/json"}, id="unsigned"),
        pytest.param(lambda b: signed(b + b" "), id="tampered-body"),
    ],
)
async def test_bad_signatures_are_rejected(
    server: str, fake_slack: FakeSlack, fake_anthropic: FakeAnthropic, headers: Any
) -> None:
    fake_anthropic.default = Reply(GOOD)
    body = json.dumps(envelope(mention("how do I deploy?", "301.000001"))).encode()
    status, _ = await post(server, body, headers(body))
    assert status == 401
    # a signed event sent after it is answered, and it alone
    good = json.dumps(envelope(mention("how do I deploy?", "301.000002"))).encode()
    assert (await post(server, good, signed(good)))[0] == 200
    await replied(fake_slack)
    assert [p["thread_ts"] for p in fake_slack.of("chat.postMessage")] == ["301.000002"]


def test_missing_credentials_is_one_clear_message(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "app"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=process_env(SLACK_BOT_TOKEN="not-a-bot-token"),
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    for needle in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "manifest.yml", ".env.example"):
        assert needle in done.stderr


def test_the_collector_is_back_on_once_the_server_is_imported() -> None:
    """The command line imports the server with the collector off (the SDKs' objects live
    as long as the process); it must be on again after, or every cycle made while serving
    would stay in memory."""
    assert app_main._server() is serve
    assert gc.isenabled()
