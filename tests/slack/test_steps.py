"""Native steps: where answers are streamed (markdown), the answer's message first shows the
loop's steps as Slack's task cards — in the order the loop ran them, naming stages and
codes, never content — then the verified answer, or the failure message, below them.
Where steps cannot be shown, the status line."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from typing import Any

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from app.agent.model import Usage
from app.agent.outcome import Attempt
from app.slack.deliver import ANSWER_EVENT, Target
from app.slack.steps import (
    CHECKED,
    INTERRUPTED,
    NOT_CHECKED,
    REVIEW,
    RULES,
    SOURCES,
    STARTED,
    Pace,
    Steps,
)
from tests.fakes.anthropic import FakeAnthropic, Reply, judgement
from tests.fakes.server import wait_healthy
from tests.fakes.slack import STOPPED_BY_USER, TEAM, FakeSlack, Fault
from tests.slack.bolt import (
    SIGNING_SECRET,
    dispatch,
    make_app,
    mention,
    message,
    post_event,
    replied,
    settle,
    until,
)

CANARY = "quokka-canary-5150"
GOOD = "Merge to `main`: the pipeline deploys **billing** to staging in about 8 minutes."
UNCLOSED = f"Deploy billing ({CANARY}):\n```\nmake deploy"  # UNCLOSED_CODE_FENCE: no repair
QUESTION = f"how do I deploy billing? ({CANARY})"
CODE = re.compile(r"[A-Z][A-Z_]*(, [A-Z][A-Z_]*)*")  # a failed check's output: codes only
TITLE = re.compile(r"Revise it: attempt \d of \d")


# The steps of a first draft the rules fail and a second that passes them and the review
ONE_RETRY = ["read", "draft-1", "rules-1", "sources-1", "draft-2", "rules-2", "sources-2"]
ONE_RETRY += ["review-2"]


def order(steps: list[dict[str, Any]]) -> list[str]:
    """Task ids in the order Slack first showed them."""
    seen: list[str] = []
    for step in steps:
        if step["type"] == "task_update" and step["id"] not in seen:
            seen.append(step["id"])
    return seen


def final(steps: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each task's last state, and the plan's last title under "plan"."""
    last: dict[str, dict[str, Any]] = {}
    for step in steps:
        last[step["id"] if step["type"] == "task_update" else "plan"] = step
    return last


def content_free(steps: list[dict[str, Any]]) -> None:
    """Every step's title is one of Vouch's fixed titles, its output only codes."""
    fixed = {STARTED, CHECKED, NOT_CHECKED, RULES, SOURCES, REVIEW, "Read the conversation"}
    fixed |= {"Write a draft", "Search the team's docs", "Search Slack", "Use a tool"}
    fixed |= {"Read a linked Slack message"}
    for step in steps:
        assert step["title"] in fixed or TITLE.fullmatch(step["title"]), step
        assert CODE.fullmatch(step.get("output", "A")), step
        assert CANARY not in json.dumps(step)


def streamed(fake_slack: FakeSlack) -> dict[str, Any]:
    """The one streamed message: its steps are in fake_slack.steps."""
    [ts] = fake_slack.steps
    [found] = [m for thread in fake_slack.threads.values() for m in thread if m["ts"] == ts]
    return found


async def test_a_verified_answer_follows_its_steps_in_the_order_the_loop_ran_them(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.push(Reply(GOOD))
    app = make_app(make_settings(response_format="markdown"))
    await dispatch(app, mention(QUESTION, "700.000001"))
    await replied(fake_slack, "chat.stopStream")
    [start] = fake_slack.of("chat.startStream")
    assert start["task_display_mode"] == "plan" and start["recipient_user_id"] == "U0001"
    answer = streamed(fake_slack)
    steps = fake_slack.steps[answer["ts"]]
    assert order(steps) == ["read", "draft-1", "rules-1", "sources-1", "review-1"]
    last = final(steps)
    assert last["plan"]["title"] == CHECKED
    assert {last[key]["status"] for key in order(steps)} == {"complete"}
    assert answer["text"] == GOOD  # below the steps, in the same message, once
    assert answer["metadata"]["event_type"] == ANSWER_EVENT  # marked answered
    assert not fake_slack.of("assistant.threads.setStatus")  # the steps replace the status
    assert not fake_slack.of("chat.postMessage")
    content_free(steps)


async def test_a_retry_shows_the_failed_checks_codes_and_the_revision(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.push(Reply(UNCLOSED), Reply(GOOD), Reply(GOOD))
    fake_anthropic.judge(judgement(False, 20, "OFF_TOPIC", message=f"Not it ({CANARY})."))
    app = make_app(make_settings(response_format="markdown"))
    await dispatch(app, mention(QUESTION, "701.000001"))
    await replied(fake_slack, "chat.stopStream")
    answer = streamed(fake_slack)
    steps = fake_slack.steps[answer["ts"]]
    assert order(steps) == [*ONE_RETRY, "draft-3", "rules-3", "sources-3", "review-3"]
    last = final(steps)
    assert (last["rules-1"]["status"], last["rules-1"]["output"]) == (
        "error",
        "UNCLOSED_CODE_FENCE",
    )
    assert last["sources-1"]["status"] == "complete"
    assert (last["review-2"]["status"], last["review-2"]["output"]) == ("error", "JUDGE_OFF_TOPIC")
    assert last["draft-2"]["title"] == "Revise it: attempt 2 of 3"
    assert last["review-3"]["status"] == "complete" and last["plan"]["title"] == CHECKED
    assert answer["text"] == GOOD
    assert CANARY not in fake_slack.text_sent()
    content_free(steps)


async def test_when_every_draft_fails_the_failure_message_follows_the_steps(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.push(*[Reply(UNCLOSED)] * 3)
    app = make_app(make_settings(response_format="markdown"))
    await dispatch(app, mention(QUESTION, "702.000001"))
    await replied(fake_slack, "chat.stopStream")
    answer = streamed(fake_slack)
    steps = fake_slack.steps[answer["ts"]]
    last = final(steps)
    assert last["plan"]["title"] == NOT_CHECKED
    assert [last[f"rules-{n}"]["status"] for n in (1, 2, 3)] == ["error"] * 3
    assert "couldn't verify" in answer["text"] and answer["metadata"]["event_type"] == ANSWER_EVENT
    assert CANARY not in fake_slack.text_sent() and "make deploy" not in fake_slack.text_sent()
    assert len(fake_slack.of("chat.startStream")) == 1 and not fake_slack.of("chat.postMessage")
    content_free(steps)


async def test_a_user_who_stops_the_steps_gets_no_answer_after_them(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake_slack.fail("chat.appendStream", Fault(error=STOPPED_BY_USER))
    fake_anthropic.push(Reply(GOOD))
    app = make_app(make_settings(response_format="markdown"))
    with caplog.at_level(logging.INFO, logger="vouch"):
        await dispatch(app, mention(QUESTION, "703.000001"))
        await until(lambda: "answer stopped by the user" in caplog.text)
        await settle(fake_slack)
    assert "staging in about 8 minutes" not in fake_slack.text_sent()  # none of the answer
    assert not fake_slack.of("chat.postMessage") and len(fake_slack.of("chat.startStream")) == 1


async def test_steps_cut_short_after_the_loop_end_as_interrupted(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """Given back while the verified answer goes into the steps' message (a shutdown, a
    lease lost), not only while the loop drafts: the stream ends, its plan interrupted."""
    fake_slack.fail("chat.stopStream", Fault(delay=20))  # the answer's end hangs
    fake_anthropic.push(Reply(GOOD))
    app = make_app(make_settings(response_format="markdown"))
    await dispatch(app, mention(QUESTION, "708.000001"))
    await until(lambda: "staging in about 8 minutes" in fake_slack.text_sent())
    await until(lambda: fake_slack.of("chat.stopStream"))  # the answer's end, hanging
    assert await app.stop(0) == 1  # given back to the store
    [ts] = fake_slack.steps
    assert final(fake_slack.steps[ts])["plan"]["title"] == INTERRUPTED


async def test_steps_slack_would_not_start_leave_the_status_line_and_the_answer(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_slack.fail("chat.startStream", Fault(error="internal_error"))  # ok:false, once
    fake_anthropic.push(Reply(GOOD))
    app = make_app(make_settings(response_format="markdown"))
    await dispatch(app, mention(QUESTION, "704.000001"))
    await replied(fake_slack, "chat.stopStream")
    assert fake_slack.of("assistant.threads.setStatus")  # the status line instead
    assert not fake_slack.steps
    [answer] = [m for m in fake_slack.threads[("C0001", "704.000001")] if m.get("bot_id")]
    assert answer["text"] == GOOD


async def test_steps_slack_stopped_taking_still_end_in_the_answer(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    # the stream expired under the steps: the answer completes the message with chat.update
    fake_slack.fail("chat.appendStream", *[Fault(error="message_not_in_streaming_state")] * 2)
    fake_anthropic.push(Reply(GOOD))
    app = make_app(make_settings(response_format="markdown"))
    await dispatch(app, mention(QUESTION, "705.000001"))
    await replied(fake_slack, "chat.update")
    [update] = fake_slack.of("chat.update")
    assert update["blocks"][0] == {"type": "markdown", "text": GOOD}
    answer = streamed(fake_slack)
    assert answer["text"] == GOOD and answer["metadata"]["event_type"] == ANSWER_EVENT


async def test_mrkdwn_answers_and_a_team_that_turned_steps_off_keep_the_status_line(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.push(Reply("Merge to `main`; the pipeline deploys billing to staging."))
    await dispatch(make_app(make_settings()), mention(QUESTION, "706.000001"))
    await replied(fake_slack)
    fake_anthropic.push(Reply(GOOD))
    quiet = make_app(make_settings(response_format="markdown", show_steps=False))
    await dispatch(quiet, mention(QUESTION, "707.000001"))
    await replied(fake_slack, "chat.stopStream")
    assert not fake_slack.steps
    assert len(fake_slack.of("assistant.threads.setStatus")) >= 2


async def test_a_help_channels_unasked_question_shows_no_steps(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, tmp_path: Any
) -> None:
    channels = tmp_path / "channels.yml"
    channels.write_text("channels:\n  C0HELP:\n    help_channel: true\n")
    fake_anthropic.push(*[Reply(UNCLOSED)] * 3)  # no verified answer: silence, steps included
    app = make_app(make_settings(response_format="markdown", channels_file=channels))
    await dispatch(app, message("How do I deploy billing to staging?", "708.000001", "C0HELP"))
    await until(lambda: len(fake_anthropic.requests) >= 3)
    await settle(fake_slack)
    assert not fake_slack.of("chat.startStream") and not fake_slack.steps


def attempt(number: int, codes: tuple[str, ...], judge: Any = None, error: Any = None) -> Attempt:
    return Attempt(
        number, not codes, codes, (), 10, 10, 1.0, Usage(), "end_turn", judge, error=error
    )


async def test_each_check_shows_its_own_codes_and_only_as_many_as_a_card_holds(
    fake_slack: FakeSlack,
) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    steps = Steps(client, Target(TEAM, "D0001", "709.000001", "U0001"), Pace(), every=3600)
    assert await steps.start()
    steps.stage("drafting", 1, 3)
    with steps.observe("agent.verify", "guardrail", attempt=1) as check:
        pass
    many = tuple(f"CODE_NUMBER_{n:02d}" for n in range(30))  # over 256 characters together
    steps.checked(check, attempt(1, ("TABLE", "UNSOURCED_FIGURE", *many)))
    steps.stage("drafting", 2, 3)
    with steps.observe("tool.search_slack", "tool"), steps.observe("tool.mystery", "tool"):
        pass
    with (
        steps.observe("agent.verify", "guardrail", attempt=2) as check,
        steps.observe("claude.judge", "generation", attempt=2),
    ):
        pass
    steps.checked(check, attempt(2, (), error="judge_timeout"))
    opened = await steps.close(verified=False)
    last = final(list(opened.chunks))
    assert last["rules-1"]["output"].startswith("TABLE, CODE_NUMBER_00")
    assert (
        len(last["rules-1"]["output"]) <= 256
        and "UNSOURCED_FIGURE" not in last["rules-1"]["output"]
    )
    assert (last["sources-1"]["status"], last["sources-1"]["output"]) == (
        "error",
        "UNSOURCED_FIGURE",
    )
    assert [last["tool-1"]["title"], last["tool-2"]["title"]] == ["Search Slack", "Use a tool"]
    assert (last["review-2"]["status"], last["review-2"]["output"]) == ("error", "judge_timeout")
    assert last["draft-2"]["status"] == "complete" and last["plan"]["title"] == NOT_CHECKED
    # nothing ran the sender (no await since start): all of it goes with the answer's text
    assert [step.get("id") for step in fake_slack.steps[steps.ts]] == [None, "read"]


async def test_every_answers_steps_share_one_pace_and_what_waits_goes_with_the_answer(
    fake_slack: FakeSlack,
) -> None:
    """Two answers' steps, one update a minute between them: the first sends one, the
    second none, and each one's last state still reaches Slack with its answer."""
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    pace = Pace(most=1, window=60)
    one, two = (
        Steps(client, Target(TEAM, "D0001", f"711.00000{n}", "U0001"), pace, every=0)
        for n in (1, 2)
    )
    assert await one.start() and await two.start()
    one.stage("drafting", 1, 3)
    await until(lambda: len(fake_slack.of("chat.appendStream")) == 1)
    two.stage("drafting", 1, 3)
    one.stage("drafting", 2, 3)
    await asyncio.sleep(0.2)  # room for a send that must not happen
    assert len(fake_slack.of("chat.appendStream")) == 1
    for steps in (one, two):
        opened = await steps.close(verified=True)
        await client.chat_stopStream(channel="D0001", ts=opened.ts, chunks=list(opened.chunks))
        assert {
            s["status"] for s in final(fake_slack.steps[steps.ts]).values() if "status" in s
        } == {"complete"}
    assert order(fake_slack.steps[one.ts]) == ["read", "draft-1", "draft-2"]


async def test_a_pace_lets_updates_go_again_once_its_window_has_passed() -> None:
    pace = Pace(most=2, window=0.3)
    started = time.monotonic()
    await pace.wait()
    await pace.wait()
    assert time.monotonic() - started < 0.25  # two go at once
    await asyncio.wait_for(pace.wait(), 5)  # the third once the first is 0.3 s old
    assert time.monotonic() - started >= 0.3


async def test_the_bot_process_shows_steps_in_order_and_no_content(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.push(Reply(UNCLOSED), Reply(GOOD))
    _, port = bot(RESPONSE_FORMAT="markdown")
    await wait_healthy(f"http://127.0.0.1:{port}")
    assert await post_event(port, mention(QUESTION, "710.000001"), SIGNING_SECRET) == 200
    await until(lambda: bool(fake_slack.of("chat.stopStream")), timeout=30)
    answer = streamed(fake_slack)
    steps = fake_slack.steps[answer["ts"]]
    assert order(steps) == ONE_RETRY
    assert answer["text"] == GOOD and final(steps)["plan"]["title"] == CHECKED
    assert CANARY not in fake_slack.text_sent()
    content_free(steps)
