"""Thread history from the events, with conversations.replies only for the gaps: a thread
followed from its first message needs no API call, and a refused or rate-limited call
degrades the history instead of failing the answer."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, cast

import pytest
from slack_sdk.errors import SlackApiError

from app.slack.app import make_web_client
from app.slack.history import TTL, ThreadLog
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.anthropic_blocks import pdf
from tests.fakes.slack import BOT_USER, FakeSlack
from tests.slack.bolt import dispatch, make_app, mention, message, until

GOOD = "Merge to `main` and the pipeline deploys billing to staging."


def history_of(request: dict[str, Any]) -> list[str]:
    """The texts of a draft request's messages before the new one."""
    return [m["content"][0]["text"] for m in request["messages"][:-1]]


async def test_a_thread_followed_from_its_start_is_read_from_the_events(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    root = "201.000001"
    await dispatch(app, message("deploys are slow today", root))  # the thread's first message
    await dispatch(app, message("which stage?", "201.000002", thread_ts=root, user="U0002"))
    await dispatch(app, mention("why is that?", "201.000003", thread_ts=root))
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 1)
    await dispatch(app, message("and on staging?", "201.000009", thread_ts=root))
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 2)
    assert fake_slack.of("conversations.replies") == []  # the events had it all
    first, follow_up = fake_anthropic.requests
    assert history_of(first) == []  # the three user messages merge into one user turn
    assert "deploys are slow today" in first["messages"][-1]["content"][-1]["text"]
    assert history_of(follow_up)[-1] == GOOD  # Vouch's own answer, as it posted it


async def test_after_a_restart_the_gap_is_filled_from_slack_once(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    root = "202.000001"
    await dispatch(make_app(make_settings()), mention("how do I deploy?", root))
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 1)
    fake_slack.threads[("C0001", root)].insert(0, {"ts": root, "user": "U0001", "text": "deploy?"})
    app = make_app(make_settings())  # a new process: an empty log
    for n, text in enumerate(("and rollback?", "and staging?"), 1):
        ts = f"202.10000{n}"
        fake_slack.threads[("C0001", root)].append({"ts": ts, "user": "U0001", "text": text})
        await dispatch(app, message(text, ts, thread_ts=root))
        await until(
            cast(
                "Callable[[], bool]",  # mypy infers no lambda with a default
                lambda n=n: len(fake_slack.of("chat.postMessage")) == 1 + n,
            )
        )
    assert len(fake_slack.of("conversations.replies")) == 1  # the gap, once
    assert GOOD in history_of(fake_anthropic.requests[-1])


@pytest.mark.parametrize("refusal", ["missing_scope", "ratelimited"])
async def test_a_refused_history_degrades_and_the_answer_goes_out(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    caplog: pytest.LogCaptureFixture,
    refusal: str,
) -> None:
    """missing_scope (Slack's method page says bot tokens lack it in channels), and a
    non-Marketplace app's one call a minute: the Retry-After of 60 s is not waited."""
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    if refusal == "missing_scope":
        fake_slack.scopes.discard("channels:history")
    else:
        fake_slack.non_marketplace = True
        fake_slack.threads[("C0001", "203.5")] = [{"ts": "203.5", "user": "U0002", "text": "?"}]
        await dispatch(app, mention("first?", "203.6", thread_ts="203.5"))  # the minute's call
        await until(lambda: len(fake_slack.of("chat.postMessage")) == 1)
    root = "203.000001"
    fake_slack.threads[("C0001", root)] = [{"ts": root, "user": "U0002", "text": "old news"}]
    started = time.monotonic()
    await dispatch(app, message("an earlier reply", "203.000002", thread_ts=root, user="U0002"))
    await dispatch(app, mention("what do you think?", "203.000003", thread_ts=root))
    await until(lambda: any(GOOD in m["text"] for m in fake_slack.threads[("C0001", root)]))
    assert time.monotonic() - started < 10
    replies = fake_slack.of("conversations.replies")
    assert replies[-1]["ts"] == root
    assert "an earlier reply" in fake_anthropic.requests[-1]["messages"][-1]["content"][-1]["text"]
    assert "old news" not in str(fake_anthropic.requests[-1])  # not readable: not there
    logged = " ".join(r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)
    assert "thread history degraded" in logged and refusal in logged


async def test_a_follow_up_in_a_thread_vouch_is_not_in_is_left_alone_when_unreadable(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_slack.scopes.discard("channels:history")
    app = make_app(make_settings())
    root = "204.000001"
    fake_slack.threads[("C0001", root)] = [{"ts": root, "user": "U0002", "text": "lunch?"}]
    await dispatch(app, message("pizza", "204.000002", thread_ts=root))
    await until(lambda: len(fake_slack.of("conversations.replies")) == 1)
    assert fake_anthropic.requests == [] and fake_slack.of("chat.postMessage") == []


def test_the_log_is_bounded_and_keeps_edits_and_deletions() -> None:
    now = [0.0]
    log = ThreadLog(threads=2, messages=3, chars=100, clock=lambda: now[0])
    for n in range(1, 6):
        log.keep("T:C:1.0", {"ts": f"{n}.0", "user": "U1", "text": f"m{n}"}, own=n == 2)
    logged = log.get("T:C:1.0")
    assert logged is not None and logged.complete and logged.joined
    assert [m["text"] for m in logged.before("9.0")] == ["m3", "m4", "m5"]  # newest 3
    log.keep("T:C:1.0", {"ts": "4.0", "user": "U1", "text": "m4 edited"}, own=False)
    log.delete("T:C:1.0", "5.0")
    assert [m["text"] for m in logged.before("9.0")] == ["m3", "m4 edited"]
    log.keep("T:C:1.0", {"ts": "6.0", "text": "y" * 90}, own=False)
    assert [m["ts"] for m in logged.before("9.0")] == ["4.0", "6.0"]  # within 100 characters
    log.keep("T:C:7.0", {"ts": "8.0", "text": "a reply"}, own=False)
    assert not log.get("T:C:7.0").complete  # type: ignore[union-attr]  # its start unseen
    log.keep("T:C:9.0", {"ts": "9.0", "text": "third thread"}, own=False)
    assert len(log) == 2 and log.get("T:C:1.0") is None  # the least recent dropped
    now[0] = TTL + 1
    assert log.get("T:C:9.0") is None  # a day untouched


async def test_a_forged_ts_is_no_history_and_no_crash(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    await dispatch(app, message("hello", "not-a-ts", thread_ts="also-not"))  # logged: ignored
    await dispatch(app, mention("how do I deploy?", "x.1", thread_ts="205.000001"))
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 1)
    assert fake_slack.of("chat.postMessage")[0]["text"] == GOOD
    assert history_of(fake_anthropic.requests[0]) == []


def test_a_log_of_no_threads_keeps_nothing() -> None:
    log = ThreadLog(threads=0, messages=3, chars=100)
    log.keep("T:C:1.0", {"ts": "1.0", "text": "hi"}, own=False)
    assert log.get("T:C:1.0") is None and len(log) == 0


async def test_the_fake_allows_a_non_marketplace_app_one_replies_call_a_minute(
    make_settings: Any, fake_slack: FakeSlack
) -> None:
    fake_slack.non_marketplace = True
    fake_slack.threads[("C0001", "1.0")] = [{"ts": f"1.{n}", "text": "m"} for n in range(20)]
    client = make_web_client(make_settings(), wait=False)
    page = await client.conversations_replies(channel="C0001", ts="1.0", limit=1000)
    assert len(page["messages"]) == 15  # at most 15 a page
    with pytest.raises(SlackApiError) as refused:
        await client.conversations_replies(channel="C0001", ts="1.0", limit=1000)
    assert refused.value.response.status_code == 429
    assert refused.value.response.headers.get("Retry-After") == "60"


async def test_a_file_shared_at_a_threads_start_is_read_when_asked_about_later(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """The thread log keeps a message's files: a thread followed from its start reads the
    PDF its first message shared, as it does after a restart (conversations.replies)."""
    page = "Rotate the database password every 90 days with the vault CLI."
    doc = fake_slack.add_file("policy.pdf", pdf(page), "application/pdf", channels=("C0001",))
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    root = "206.000001"
    await dispatch(app, message("the new policy", root, subtype="file_share", files=[doc]))
    await dispatch(app, mention("how often do we rotate it?", "206.000002", thread_ts=root))
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 1)
    assert fake_slack.of("conversations.replies") == []  # read from the events
    [request] = fake_anthropic.requests
    content = [b for m in request["messages"] for b in m["content"]]
    assert [b["title"] for b in content if b["type"] == "document"] == ["policy.pdf"]


async def test_a_follow_up_after_a_restart_and_an_edit_of_the_threads_start_is_answered(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """An edit of the thread's first message (Slack also sends one when a reply changes its
    reply count) is no sign this process saw the thread from its start: the thread is still
    read from Slack, where Vouch's earlier answer is."""
    fake_anthropic.default = Reply(GOOD)
    root = "207.000001"
    await dispatch(make_app(make_settings()), mention("how do I deploy?", root))
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 1)
    first = {"ts": root, "user": "U0001", "text": f"<@{BOT_USER}> how do I deploy?"}
    fake_slack.threads[("C0001", root)].insert(0, first)
    app = make_app(make_settings())  # a new process: an empty log
    edited = {**first, "text": f"<@{BOT_USER}> how do I deploy billing?", "thread_ts": root}
    edit = message("", "207.000005", subtype="message_changed", hidden=True, message=edited)
    await dispatch(app, edit)
    follow_up = {"ts": "207.000006", "user": "U0001", "text": "and rollback?"}
    fake_slack.threads[("C0001", root)].append(follow_up)
    await dispatch(app, message("and rollback?", "207.000006", thread_ts=root))
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 2)
    assert len(fake_slack.of("conversations.replies")) == 1
    assert GOOD in history_of(fake_anthropic.requests[-1])
