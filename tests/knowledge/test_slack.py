"""Knowledge through Slack: the bot (real Bolt app, real AsyncWebClient, loopback Slack and
Anthropic) delivers a cited answer with its Sources footer in both formats, and the server
brings the index up to date at start-up, re-reading only files that changed."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from app.agent.loop import Deps
from app.knowledge.retrieve import Knowledge
from app.server import serve
from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.server import free_port, wait_healthy
from tests.fakes.slack import FakeSlack
from tests.knowledge.grounding import ANSWER, QUESTION, citing, rollback_id
from tests.slack.bolt import (
    dispatch,
    final_texts,
    make_app,
    mention,
    post_event,
    replied,
    settle,
    until,
)

LINK = "https://wiki.example.com/billing/deploy"
SECRET = "signing-secret-for-tests"


@pytest.mark.parametrize(
    ("dialect", "footer"),
    [
        ("mrkdwn", f"*Sources*\n• <{LINK}|Deploying billing › Rollback>"),
        ("markdown", f"**Sources**\n- [Deploying billing › Rollback]({LINK})"),
    ],
)
async def test_cited_answer_reaches_slack_with_its_footer(
    knowledge_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    dialect: str,
    footer: str,
) -> None:
    settings = knowledge_settings(response_format=dialect)
    knowledge = Knowledge.open(settings)
    app = make_app(settings, agent=Deps.from_settings(settings, knowledge=knowledge))
    fake_anthropic.responder = lambda request: citing(rollback_id(request))
    await dispatch(app, mention(QUESTION, "401.000001"))
    if dialect == "mrkdwn":
        await replied(fake_slack)
        [post] = fake_slack.of("chat.postMessage")
        delivered = post["text"]
    else:
        await until(lambda: bool(fake_slack.of("chat.stopStream")))
        await settle(fake_slack)
        [delivered] = final_texts(fake_slack).values()
    assert delivered.startswith(ANSWER)
    assert delivered.endswith(footer)
    assert delivered.count("Sources") == 1


async def test_start_up_reindexes_only_what_changed(
    knowledge_settings: Any,
    docs: Path,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    caplog: pytest.LogCaptureFixture,
) -> None:
    port = free_port()
    settings = knowledge_settings(slack_signing_secret=SECRET, host="127.0.0.1", port=port)

    async def run_once(ts: str) -> list[str]:
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="vouch.knowledge"):
            task = asyncio.create_task(serve(settings))
            await wait_healthy(f"http://127.0.0.1:{port}")
            lines = [r.getMessage() for r in caplog.records if r.name == "vouch.knowledge"]
        fake_anthropic.responder = lambda request: citing(rollback_id(request))
        assert await post_event(port, mention(QUESTION, ts), SECRET) == 200
        await replied(fake_slack, count=len(fake_slack.of("chat.postMessage")) + 1)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return lines

    [first] = await run_once("402.000001")
    assert first.startswith(
        "knowledge: 5 files added, 0 updated, 0 removed, 0 skipped, 0 unchanged"
    )
    (docs / "oncall.md").write_text("# On-call\n\nThe rotation changes on Tuesdays.\n")
    (docs / "lunch.txt").unlink()
    [second] = await run_once("402.000002")
    assert second.startswith(
        "knowledge: 0 files added, 1 updated, 1 removed, 0 skipped, 3 unchanged"
    )
    posts = fake_slack.of("chat.postMessage")
    assert len(posts) == 2 and all(f"<{LINK}|" in post["text"] for post in posts)
