"""A message taken over from a worker that died is answered once: if the dead worker had
already posted its answer (the answer's first message names the message it answers, in
Slack message metadata), nothing is posted again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.slack.deliver import answer_mark
from app.work.sqlite_store import SqliteStore
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.slack import BOT_ID, BOT_USER, TEAM, FakeSlack
from tests.slack.bolt import make_app, settle

GOOD = "Merge to `main` and the pipeline deploys billing to staging."
ROOT = "630.000001"
ASKED = "630.000002"


async def taken_over(
    make_settings: Any, answered_before: bool, fake_slack: FakeSlack
) -> SqliteStore:
    """A message a dead worker held (its lease runs out in 1 s), in a thread that holds
    the dead worker's answer when `answered_before`."""
    thread: list[dict[str, Any]] = [
        {"ts": ROOT, "user": "U0002", "text": "deploys are slow"},
        {"ts": ASKED, "user": "U0001", "text": f"<@{BOT_USER}> why?", "thread_ts": ROOT},
    ]
    if answered_before:
        answer = {"ts": "630.000003", "user": BOT_USER, "bot_id": BOT_ID, "text": GOOD}
        thread.append({**answer, "thread_ts": ROOT, "metadata": answer_mark(ASKED)})
    fake_slack.threads[("C0001", ROOT)] = thread
    app = make_app(make_settings(queue_lease=1))
    store = app.store
    assert isinstance(store, SqliteStore)  # queue_path ":memory:"
    event = {
        "type": "app_mention",
        "channel": "C0001",
        "ts": ASKED,
        "thread_ts": ROOT,
        "user": "U0001",
        "text": f"<@{BOT_USER}> why?",
        "team": TEAM,
        "follow_up": False,
    }
    key, root = f"{TEAM}:C0001:{ASKED}", f"{TEAM}:C0001:{ROOT}"
    assert await store.put(key, root, ASKED, event)
    assert await store.take("dead-worker", lease=1) is not None
    app.workers.start()
    return store


@pytest.mark.parametrize("answered_before", [True, False])
async def test_a_message_taken_over_is_answered_once(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    answered_before: bool,
) -> None:
    fake_anthropic.default = Reply(GOOD)
    store = await taken_over(make_settings, answered_before, fake_slack)
    async with asyncio.timeout(10):
        while await store.waiting():
            await asyncio.sleep(0.05)
    await settle(fake_slack)
    [replies] = [c.params for c in fake_slack.calls if c.method == "conversations.replies"][:1]
    assert replies["include_all_metadata"] in (True, "true", "1")
    if answered_before:
        assert fake_slack.of("chat.postMessage") == [] and fake_anthropic.requests == []
    else:
        [post] = fake_slack.of("chat.postMessage")
        assert post["text"] == GOOD and post["metadata"] == answer_mark(ASKED)
