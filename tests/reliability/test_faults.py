"""Fault injection at every external call (tests/reliability/faults.py has the table): for
each case, at most one reply per user message, no text of an unverified draft in any Slack
call, the outcome the table promises, and the same app answering the next message."""

from __future__ import annotations

import itertools
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from app.slack.deliver import REVEAL_FROM
from app.slack.drain import InFlight
from app.telemetry import Telemetry
from app.verify import verify
from app.wiring import Vouch
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.langfuse import FakeLangfuse
from tests.fakes.slack import BOT_ID, FakeSlack
from tests.reliability.faults import (
    ALWAYS,
    CASES,
    RETRY_AFTER,
    TIMEOUT,
    Case,
    break_langfuse,
    model_fault,
    slack_fault,
)
from tests.slack.bolt import dispatch, make_app, mention, until

QUESTION = "how do I deploy billing?"
CANARY = "unverified-canary-5521"
UNVERIFIED = f"Deploy billing ({CANARY}):\n```\nmake deploy"  # an unclosed code block
GOOD = "\n\n".join(  # long enough to be revealed (mrkdwn) or streamed in three appends
    [
        "To deploy billing, merge your change to `main`: the pipeline builds it, runs the"
        " tests and deploys billing to staging in about 8 minutes.",
        "Check staging, then promote the build to production from the pipeline page. The"
        " promotion deploys the same build, so nothing is rebuilt on the way.",
        "If anything looks wrong after the deploy, roll back from the same page: the"
        " previous build is kept, and a rollback takes about a minute.",
        "Deploys are paused on Fridays after 3 pm; ask in the release channel if an urgent"
        " fix cannot wait until Monday.",
        "Database migrations run before the new build takes traffic, so keep each one"
        " backwards compatible with the build that is running.",
    ]
)
assert len(GOOD) >= REVEAL_FROM
_stamps = itertools.count(1)


class Counting(InFlight):
    """InFlight that also counts the answers begun, so a test can wait for one to end."""

    entered = 0

    @contextmanager
    def answering(self) -> Iterator[None]:
        self.entered += 1
        with super().answering():
            yield


@dataclass
class Rig:
    app: Vouch
    inflight: Counting
    slack: FakeSlack
    model: FakeAnthropic
    langfuse: FakeLangfuse
    asked: str = ""  # the ts of the last message asked

    async def ask(self, thread: str, ts: str | None = None, retry: int = 0) -> int:
        """Mention Vouch in `thread` (so its history is read), or deliver the mention at
        `ts` again as Slack's retry; wait until Slack calls stop; Bolt's status."""
        if ts is None:
            ts = f"700.{next(_stamps):06d}"
            self.slack.threads[("C0001", thread)].append(
                {"ts": ts, "user": "U0001", "text": QUESTION, "thread_ts": thread}
            )
        self.asked = ts
        before = self.inflight.entered
        status = await dispatch(self.app, mention(QUESTION, ts, thread_ts=thread), retry=retry)
        if status == 200:  # wait until the listener has run to its end
            await until(lambda: self.inflight.entered > before and not self.inflight.count, 30)
        return status

    def replies(self, thread: str) -> list[dict[str, Any]]:
        """Vouch's messages in `thread`, as they stand (after updates and appends)."""
        return [
            m for m in self.slack.threads.get(("C0001", thread), []) if m.get("bot_id") == BOT_ID
        ]


@pytest.fixture
async def rig(
    langfuse_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
    case: Case,
) -> AsyncIterator[Rig]:
    settings = langfuse_settings(
        slack_timeout=TIMEOUT,
        anthropic_timeout=TIMEOUT,
        langfuse_timeout=TIMEOUT,
        response_format=case.dialect,
        show_steps=case.steps,
    )
    telemetry = Telemetry.from_settings(settings)
    inflight = Counting()
    app = make_app(settings, telemetry=telemetry, inflight=inflight)
    yield Rig(app, inflight, fake_slack, fake_anthropic, fake_langfuse)
    fake_langfuse.reset()  # let a hanging export go before the flush
    await telemetry.close()


def test_good_passes_and_unverified_fails_verification() -> None:
    for dialect in ("mrkdwn", "markdown"):
        assert verify(GOOD, question=QUESTION, dialect=dialect).passed
        assert not verify(UNVERIFIED, question=QUESTION, dialect=dialect).passed


def inject(rig: Rig, case: Case) -> None:
    """Every case's model writes an unverified draft first, then a good one (so a canary
    is always in play); the fault goes where the case says."""
    count = 1 if case.times == "once" else ALWAYS
    if case.where.startswith("slack"):
        rig.slack.fail(case.method, *[slack_fault(case.kind, case.times)] * count)
        rig.model.push(Reply(UNVERIFIED))
        rig.model.default = Reply(GOOD)
    elif case.where.startswith("anthropic"):
        fault = model_fault(case.kind)
        rig.model.push(*[Reply(UNVERIFIED)] * (case.attempt - 1))
        if case.times == "once":
            rig.model.push(fault)
            rig.model.default = Reply(GOOD)
        else:
            rig.model.default = fault
    else:
        break_langfuse(rig.langfuse, case.kind)
        rig.model.push(Reply(UNVERIFIED))
        rig.model.default = Reply(GOOD)


def heal(rig: Rig) -> None:
    rig.slack.faults.clear()
    rig.model.script.clear()
    rig.model.default = Reply(GOOD)
    rig.langfuse.status, rig.langfuse.delay, rig.langfuse.drop = 0, 0.0, False


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_fault(rig: Rig, case: Case, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    root = "699.000001"  # an existing thread, so conversations.replies is called
    rig.slack.threads[("C0001", root)] = [{"ts": root, "user": "U0001", "text": "deploys"}]
    inject(rig, case)
    status = await rig.ask(root)
    replies = rig.replies(root)
    texts = [m["text"] for m in replies]

    assert len(replies) <= 1, texts  # at most one reply per user message
    assert CANARY not in rig.slack.text_sent()  # no unverified text in any Slack call
    errors = " ".join(
        r.getMessage() for r in caplog.records if r.name.startswith("vouch") and r.levelno >= 40
    )
    if case.expect == "answer":
        assert texts == [GOOD]
    elif case.expect == "failure":
        assert len(texts) == 1 and "couldn't verify an answer" in texts[0]
    elif case.expect == "busy":
        assert len(texts) == 1 and "ask again in a minute" in texts[0]
    elif case.expect == "nothing":
        assert texts == []
        assert "delivery failed" in errors or "event not handled" in errors  # the reason
    elif case.expect == "part":
        assert len(texts) == 1 and GOOD.startswith(texts[0]) and texts[0] != GOOD
        assert "delivery failed" in errors
    else:  # stopped: what had streamed, and nothing put in after the stop
        assert len(texts) == 1 and GOOD.startswith(texts[0]), texts
        assert not errors and "answer stopped by the user" in caplog.text
        assert rig.slack.of("chat.update") == []
        assert len(rig.slack.of("chat.startStream")) == 1
    # retried after Retry-After, not before (a status retry, or the steps', is dropped once
    # the answer is out: they have their own task and never hold the answer up)
    if (
        case.where.startswith("slack")
        and (case.kind, case.times) == ("429", "once")
        and case.method != "assistant.threads.setStatus"
        and not (case.steps and case.method == "chat.appendStream")
    ):
        first, retry = [c.at for c in rig.slack.calls if c.method == case.method][:2]
        assert retry - first >= RETRY_AFTER

    heal(rig)
    if case.expect == "nothing" and case.method == "auth.test":
        assert status == 500  # so Slack delivers it again, and then it is answered
        await rig.ask(root, ts=rig.asked, retry=1)
        assert [m["text"] for m in rig.replies(root)] == [GOOD]
        replies = rig.replies(root)
    # the same app answers the next message
    await rig.ask(root)
    assert [m["text"] for m in rig.replies(root)[len(replies) :]] == [GOOD]
    ours = [r for r in caplog.records if r.name.startswith("vouch")]
    assert not any(r.exc_info for r in ours)  # reasons only, never a traceback
