"""The thread status is re-sent on a timer (Slack clears it after 2 minutes) until closed."""

from __future__ import annotations

import asyncio
from typing import Any

from app.slack.app import make_web_client
from app.slack.status import REFRESH_SECONDS, Status, status_text
from tests.fakes.slack import FakeSlack, Fault
from tests.slack.bolt import settle, until


async def test_status_is_refreshed_until_closed(make_settings: Any, fake_slack: FakeSlack) -> None:
    client = make_web_client(make_settings())
    status = Status(client, "C0001", "1.1", refresh=0.05)
    status.show("is thinking…")
    await until(lambda: len(fake_slack.of("assistant.threads.setStatus")) >= 4)
    await status.close()
    sent = len(fake_slack.of("assistant.threads.setStatus"))
    await settle(fake_slack)  # six refresh periods
    assert len(fake_slack.of("assistant.threads.setStatus")) == sent  # stopped
    assert {p["status"] for p in fake_slack.of("assistant.threads.setStatus")} == {"is thinking…"}


async def test_status_failure_never_stops_an_answer(
    make_settings: Any, fake_slack: FakeSlack
) -> None:
    client = make_web_client(make_settings())
    fake_slack.fail("assistant.threads.setStatus", Fault(error="missing_scope"))
    status = Status(client, "C0001", "1.1")
    status.show("is thinking…")  # must not raise
    await until(lambda: bool(fake_slack.of("assistant.threads.setStatus")))
    await status.close(clear=True)
    assert [p["status"] for p in fake_slack.of("assistant.threads.setStatus")] == [
        "is thinking…",
        "",
    ]


def test_refresh_is_well_inside_slacks_two_minutes() -> None:
    assert REFRESH_SECONDS <= 90
    assert status_text("drafting", 1, 3) == "is thinking…"
    assert status_text("drafting", 3, 3) == "is revising, attempt 3 of 3…"
    assert status_text("checking", 2, 3) == "is checking the answer…"


async def test_a_slow_status_holds_up_nothing(make_settings: Any, fake_slack: FakeSlack) -> None:
    """setStatus taking 20 s: show() and close() return at once (the answer goes on)."""
    client = make_web_client(make_settings(slack_timeout=30))
    fake_slack.fail("assistant.threads.setStatus", Fault(delay=20.0))
    status = Status(client, "C0001", "1.1")
    async with asyncio.timeout(1):
        status.show("is thinking…")
        status.show("is checking the answer…")
        await until(lambda: bool(fake_slack.of("assistant.threads.setStatus")))
        await status.close()
