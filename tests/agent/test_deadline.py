"""No retry waits past the message's deadline: a rate limit that outlasts it is an outage
(the "busy" reply), not a verification that ran out of time."""

from __future__ import annotations

import email.utils
import time
from typing import Any

import pytest

from app.agent.conversation import Conversation, Turn
from app.agent.deadline import retry_after
from app.agent.loop import Deps, answer
from app.agent.outcome import Outcome
from app.verify import busy_message
from tests.fakes.anthropic import Fail, FakeAnthropic, Reply

QUESTION = "How do I deploy the billing service to staging?"
GOOD = "Merge to `main`: the pipeline deploys the billing service to staging in about 8 minutes."
LATER = email.utils.formatdate(time.time() + 600, usegmt=True)


async def ask(make_settings: Any, **overrides: Any) -> tuple[Outcome, float]:
    deps = Deps.from_settings(make_settings(**{"message_deadline": 8, **overrides}))
    conversation = Conversation((Turn("user", "hi"), Turn("assistant", "Hello!")), QUESTION)
    started = time.monotonic()
    outcome = await answer(conversation, deps, reference="r")
    return outcome, time.monotonic() - started


@pytest.mark.parametrize(
    ("fail", "reason"),
    [
        (Fail(429, "rate_limit_error", retry_after_ms=60_000), "rate_limited"),
        (Fail(429, "rate_limit_error", retry_after_ms=0, retry_after="60"), "rate_limited"),
        (Fail(429, "rate_limit_error", retry_after_ms=0, retry_after=LATER), "rate_limited"),
        (Fail(529, "overloaded_error", retry_after_ms=30_000), "overloaded"),
    ],
)
async def test_a_retry_after_past_the_deadline_is_busy_at_once(
    make_settings: Any, fake_anthropic: FakeAnthropic, fail: Fail, reason: str
) -> None:
    """The SDK would sleep the whole Retry-After and the deadline would end the message as
    "deadline", counted as a verification failure."""
    fake_anthropic.push(fail, Reply(GOOD))
    outcome, took = await ask(make_settings)
    assert (outcome.reason, outcome.attempts[0].error) == ("unavailable", reason)
    assert outcome.text == busy_message("mrkdwn", "r")
    assert len(fake_anthropic.requests) == 1 and took < 4


async def test_a_short_retry_after_is_waited_and_the_answer_delivered(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.push(Fail(429, "rate_limit_error", retry_after_ms=200), Reply(GOOD))
    outcome, _ = await ask(make_settings)
    assert outcome.verified and len(fake_anthropic.requests) == 2


async def test_backoff_without_a_retry_after_stops_before_the_deadline(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    """With no wait named, the SDK backs off up to 8 s: not when less time is left."""
    fake_anthropic.push(*[Fail(500, "api_error", retry_after_ms=0)] * 6, Reply(GOOD))
    outcome, took = await ask(make_settings, message_deadline=1, anthropic_max_retries=5)
    assert (outcome.reason, outcome.attempts[0].error) == ("unavailable", "status_500")
    assert took < 1


async def test_the_judge_rate_limited_past_the_deadline_is_busy(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.push(Reply(GOOD))
    fake_anthropic.judge(Fail(429, "rate_limit_error", retry_after_ms=60_000))
    outcome, took = await ask(make_settings)
    assert (outcome.reason, outcome.attempts[0].error) == ("unavailable", "judge_rate_limited")
    assert took < 4


def test_retry_after_is_read_as_the_sdk_reads_it() -> None:
    assert retry_after({"retry-after-ms": "1500"}) == 1.5
    assert retry_after({"retry-after": "2"}) == 2.0
    later = email.utils.formatdate(time.time() + 600, usegmt=True)  # whole seconds
    assert 598 < (retry_after({"retry-after": later}) or 0) <= 600
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None
