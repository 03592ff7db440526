"""The Home tab through Bolt and the fakes: the general page for everyone; for admins the
figures of `python -m app metrics` from the fake Langfuse, cached, and the settings."""

from __future__ import annotations

import asyncio
import io
import logging
import re
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.metrics.command import run
from app.metrics.report import questions
from app.metrics.window import parse_window
from app.slack.home import CACHE_SECONDS, MAX_CHANNELS, Figures
from tests.fakes.langfuse import FakeLangfuse
from tests.fakes.server import free_port
from tests.fakes.slack import FakeSlack
from tests.slack.bolt import dispatch, make_app, settle, until
from tests.test_metrics import message_scores

ADMIN = "U0ADMIN"

# The questions one report asks Langfuse (app/metrics/report.py): rates, then help channels
ASKED = len(questions(datetime.now(UTC), datetime.now(UTC), "production"))


def opened(user: str = "U0001", tab: str = "home") -> dict[str, Any]:
    return {"type": "app_home_opened", "user": user, "channel": "D0001", "tab": tab}


def shown(view: dict[str, Any]) -> str:
    """Every text of a view's blocks."""
    texts = []
    for block in view["blocks"]:
        texts.append((block.get("text") or {}).get("text", ""))
        texts += [f["text"] for f in block.get("fields") or ()]
        texts += [e.get("text", "") for e in block.get("elements") or ()]
    return "\n".join(texts)


async def home_of(app: Any, slack: FakeSlack, user: str, count: int = 1) -> str:
    await dispatch(app, opened(user))
    await until(lambda: len(slack.published) >= count)  # published, not only called
    return shown(slack.homes[user])


async def test_everyone_sees_what_vouch_is_and_how_to_ask(
    make_settings: Any, fake_slack: FakeSlack, fake_langfuse: FakeLangfuse
) -> None:
    app = make_app(make_settings(admin_users=ADMIN))
    text = await home_of(app, fake_slack, "U0001")
    for heading in ("*What Vouch is*", "*How it checks answers*", "*How to ask*"):
        assert heading in text
    assert "up to 3 attempts" in text and "A second model then reviews it" in text
    assert "Last 7 days" not in text and "Settings in effect" not in text
    assert fake_langfuse.asked == []  # no figures asked for someone who sees none
    await dispatch(app, opened("U0001", tab="messages"))  # the DM: prompts, no publish
    await until(lambda: len(fake_slack.of("assistant.threads.setSuggestedPrompts")) == 1)
    await settle(fake_slack)
    assert len(fake_slack.of("views.publish")) == 1
    [call] = fake_slack.of("views.publish")
    assert call["user_id"] == "U0001"


async def test_an_admin_sees_the_figures_of_the_metrics_command_and_the_settings(
    langfuse_settings: Any, fake_slack: FakeSlack, fake_langfuse: FakeLangfuse
) -> None:
    now = datetime.now(UTC)
    for n in range(60):
        fake_langfuse.scores.extend(message_scores(f"t{n}", now - timedelta(hours=n), n))
    settings = langfuse_settings(admin_users=f"U0OTHER,{ADMIN}", follow_ups=False)
    out = io.StringIO()
    run(settings, parse_window("7d"), out)
    printed = out.getvalue()
    figures = {
        name: re.search(rf"{name}\s+(\S+)", printed).group(1)  # type: ignore[union-attr]
        for name in (
            "messages",
            "verified_message_rate",
            "pass_on_first_attempt_rate",
            "avg_attempts_to_verify",
            "avg_quality_score",
        )
    }
    assert figures["messages"] == "60" and figures["verified_message_rate"] == "85.0%"
    asked_by_the_command = len(fake_langfuse.queries)

    app = make_app(settings)
    text = await home_of(app, fake_slack, ADMIN)
    assert f"*Messages answered*\n{figures['messages']}" in text
    assert f"*Verified*\n{figures['verified_message_rate']} (target over 95%)" in text
    assert f"*Passed on the first attempt*\n{figures['pass_on_first_attempt_rate']}" in text
    assert f"*Attempts to verify (average)*\n{figures['avg_attempts_to_verify']}" in text
    assert f"*Quality score (average)*\n{figures['avg_quality_score']}" in text
    assert "The verified rate is under the 95% target" in text
    assert "`UNCITED` 15 (50%)" in text  # the failure patterns, as the command counts them
    assert f"<{fake_langfuse.url}|Open the Langfuse dashboard>" in text
    assert "From the Langfuse Metrics API v2." in text
    for row in (
        "Answer format: *mrkdwn*",
        "Reviewer model (judge): *on*",
        "Follow-ups without a mention: *off*",
        "Knowledge folder: *not set*",
        "Tools: *linked Slack messages*",
    ):
        assert row in text
    assert len(fake_langfuse.queries) == asked_by_the_command + ASKED  # one report's questions


async def test_the_figures_are_asked_once_per_cache_period(
    langfuse_settings: Any, fake_slack: FakeSlack, fake_langfuse: FakeLangfuse
) -> None:
    fake_langfuse.scores.extend(message_scores("t1", datetime.now(UTC), 1))
    settings = langfuse_settings(admin_users=ADMIN)
    app = make_app(settings)
    now = [1000.0]
    home = app.home
    assert home is not None
    home.figures = Figures(settings, clock=lambda: now[0])
    await dispatch(app, opened(ADMIN))
    await dispatch(app, opened(ADMIN))  # while the first is being asked: shares it
    await until(lambda: len(fake_slack.published) == 2)
    now[0] += CACHE_SECONDS - 1
    text = await home_of(app, fake_slack, ADMIN, count=3)
    assert "*Messages answered*\n1" in text
    assert len(fake_langfuse.queries) == ASKED  # one report for three opens
    now[0] += 2  # the period is over
    fake_langfuse.scores.extend(message_scores("t2", datetime.now(UTC), 2))
    text = await home_of(app, fake_slack, ADMIN, count=4)
    assert "*Messages answered*\n2" in text
    assert len(fake_langfuse.queries) == 2 * ASKED


async def test_langfuse_off_or_down_is_said_plainly(
    make_settings: Any,
    langfuse_settings: Any,
    fake_slack: FakeSlack,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="vouch.slack")
    app = make_app(make_settings(admin_users=ADMIN))  # no Langfuse keys
    text = await home_of(app, fake_slack, ADMIN)
    assert "Langfuse is off (no LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY)" in text
    assert "Settings in effect" in text
    down = langfuse_settings(admin_users=ADMIN, langfuse_base_url=f"http://127.0.0.1:{free_port()}")
    text = await home_of(make_app(down), fake_slack, ADMIN, count=2)
    assert "No figures: Langfuse is unreachable (ConnectError)." in text
    assert "Settings in effect" in text and "*How to ask*" in text
    assert "home tab figures unavailable: No figures: Langfuse is unreachable" in caplog.text


async def test_a_slow_langfuse_holds_the_tab_a_bounded_time_and_after_the_ack(
    langfuse_settings: Any, fake_slack: FakeSlack, fake_langfuse: FakeLangfuse
) -> None:
    fake_langfuse.scores.extend(message_scores("t1", datetime.now(UTC), 1))
    fake_langfuse.delay = 60.0  # Langfuse hangs: beyond the admin's wait (2 × LANGFUSE_TIMEOUT)
    app = make_app(langfuse_settings(admin_users=ADMIN, langfuse_timeout=1))
    assert await dispatch(app, opened(ADMIN)) == 200
    assert fake_slack.of("views.publish") == []  # acked before any figure came back
    await until(lambda: len(fake_slack.published) == 1)
    assert "Langfuse has not answered within 2 s" in shown(fake_slack.homes[ADMIN])
    fake_langfuse.delay = 0.0  # Langfuse answers after all: the report is kept
    home = app.home
    assert home is not None
    await home.figures.settled()
    assert len(fake_langfuse.queries) == ASKED
    text = await home_of(app, fake_slack, ADMIN, count=2)
    assert "*Messages answered*\n1" in text
    assert len(fake_langfuse.queries) == ASKED


async def test_many_channel_settings_stay_within_a_views_blocks(
    make_settings: Any, fake_slack: FakeSlack
) -> None:
    app = make_app(make_settings(admin_users=ADMIN))
    home = app.home
    assert home is not None
    home.channels = lambda: [(f"<#C{n:04d}>", [("Answer", "mention only")]) for n in range(200)]
    text = await home_of(app, fake_slack, ADMIN)
    assert "*<#C0000>*\nAnswer: *mention only*" in text
    assert f"And {200 - MAX_CHANNELS:,} more channels with settings of their own." in text
    assert len(fake_slack.homes[ADMIN]["blocks"]) <= 100


async def test_a_refused_publish_is_logged_by_its_error(
    make_settings: Any, fake_slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="vouch.slack")
    fake_slack.home_tab = False  # an app installed before the manifest turned the tab on
    app = make_app(make_settings())
    await dispatch(app, opened())
    await until(lambda: "home tab not published: not_enabled" in caplog.text)
    assert fake_slack.homes == {}


def test_a_hanging_langfuse_does_not_hold_up_the_exit(
    langfuse_settings: Any, fake_langfuse: FakeLangfuse
) -> None:
    """The report is asked on a daemon thread: asyncio.run (python -m app) returns after
    the admin's wait, without waiting for Langfuse's answer as it would for a thread of the
    default executor."""
    fake_langfuse.delay = 60.0
    figures = Figures(langfuse_settings(admin_users=ADMIN, langfuse_timeout=1))
    shown_instead = asyncio.run(figures.get())
    assert shown_instead == "Langfuse has not answered within 2 s: open the tab again soon."
    asking = [t for t in threading.enumerate() if t.name == "vouch-home-figures"]
    assert asking and all(t.daemon and t.is_alive() for t in asking)
    fake_langfuse.delay = 0.0  # lets it go: its answer finds the loop closed, and is dropped
    for thread in asking:
        thread.join(10)
    assert not any(t.is_alive() for t in asking)
