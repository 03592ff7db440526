"""The agent loop against a loopback Anthropic API, through the real AsyncAnthropic client."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.agent.conversation import Conversation, Turn
from app.agent.loop import Deps, answer
from app.agent.model import make_client
from app.agent.observer import Observers, Stage, Unwatched
from app.agent.outcome import Outcome
from app.verify import busy_message, failure_message, verify
from tests.fakes.anthropic import Fail, FakeAnthropic, Hang, Reply, StreamError, judgement

QUESTION = "How do I deploy the billing service to staging?"
GOOD = "Merge to `main`: the pipeline deploys the billing service to staging in about 8 minutes."
MARKDOWNY = "**Deploy** billing: merge to `main` and the pipeline deploys it to staging."
UNCLOSED = "Deploy billing to staging with:\n```\nmake deploy ENV=staging"
PREAMBLE = "Absolutely, here is what you need:"  # fails NO_CONTENT
REF = "ref0123456789abc"


async def run(make_settings: Any, fake: FakeAnthropic, *items: Any, **overrides: Any) -> Outcome:
    fake.push(*items)
    settings = make_settings(**overrides)
    deps = Deps.from_settings(settings)
    conversation = Conversation((Turn("user", "hi"), Turn("assistant", "Hello!")), QUESTION)
    return await answer(conversation, deps, reference=REF)


def last_user_text(request: dict[str, Any]) -> str:
    return str(request["messages"][-1]["content"][-1]["text"])


async def test_pass_first_time(make_settings: Any, fake_anthropic: FakeAnthropic) -> None:
    outcome = await run(make_settings, fake_anthropic, Reply(GOOD))
    assert (outcome.verified, outcome.reason, outcome.text) == (True, "verified", GOOD)
    assert len(fake_anthropic.requests) == 1
    [attempt] = outcome.attempts
    assert attempt.passed and attempt.codes == () and attempt.stop_reason == "end_turn"
    assert attempt.draft_length == len(GOOD) and attempt.question_length == len(QUESTION)
    assert attempt.usage.output > 0 and attempt.usage.input > 0
    assert attempt.usage.cache_write == 0  # a short thread is under the caching minimum


async def test_repaired_without_a_retry(make_settings: Any, fake_anthropic: FakeAnthropic) -> None:
    outcome = await run(make_settings, fake_anthropic, Reply(MARKDOWNY))
    assert outcome.verified
    assert outcome.text == verify(MARKDOWNY, question=QUESTION).text
    assert outcome.text.startswith("*Deploy* billing")
    assert len(fake_anthropic.requests) == 1
    assert outcome.attempts[0].repaired == ("MARKDOWN_BOLD",)


async def test_fail_then_pass_sends_feedback_codes(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    outcome = await run(make_settings, fake_anthropic, Reply(UNCLOSED), Reply(GOOD))
    assert outcome.verified and outcome.text == GOOD
    _, second = fake_anthropic.requests
    assert "UNCLOSED_CODE_FENCE" in last_user_text(second)
    assert second["messages"][-2] == {
        "role": "assistant",
        "content": [{"type": "text", "text": UNCLOSED}],
    }
    assert [a.codes for a in outcome.attempts] == [("UNCLOSED_CODE_FENCE",), ()]


LONG = (
    Turn("user", "How is billing deployed to production? " * 60),
    Turn("assistant", "Through the release pipeline, after a staging soak. " * 60),
)  # with the system prompt, over Sonnet's 1,024-token caching minimum


async def test_retries_reuse_a_byte_identical_cached_prefix(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.push(Reply(UNCLOSED), Reply(PREAMBLE), Reply(GOOD))
    deps = Deps.from_settings(make_settings())
    outcome = await answer(Conversation(LONG, QUESTION), deps, reference=REF)
    assert outcome.verified
    first, *retries = fake_anthropic.requests
    prefix = first["messages"]
    assert "cache_control" not in first["system"][0]  # under every model's minimum alone
    assert prefix[-2]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    for retry in retries:
        assert json.dumps(retry["system"]) == json.dumps(first["system"])
        assert json.dumps(retry["messages"][: len(prefix)]) == json.dumps(prefix)
        assert len(retry["messages"]) == len(prefix) + 2
    assert [a.usage.cache_read > 0 for a in outcome.attempts] == [False, True, True]
    # on the wire: the first request's messages array, minus its closing bracket, opens
    # every retry's messages array byte for byte, and the system blocks are the same bytes
    raw_first, *raw_retries = fake_anthropic.raw
    messages_start = raw_first.index(b'"messages":[')
    first_messages = raw_first[messages_start : raw_first.index(b']}],"model"') + 3]
    system = raw_first[raw_first.index(b'"system":') :]
    for raw in raw_retries:
        assert raw[messages_start:].startswith(first_messages[:-1] + b",")
        assert system.split(b',"stream"')[0] in raw


async def test_fail_on_every_attempt_ends_in_the_graceful_failure(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    drafts = [Reply(UNCLOSED), Reply(PREAMBLE), Reply(UNCLOSED + " again")]
    outcome = await run(make_settings, fake_anthropic, *drafts, max_attempts=3)
    assert not outcome.verified and outcome.reason == "exhausted"
    assert outcome.text == failure_message("mrkdwn", REF)
    assert len(fake_anthropic.requests) == 3
    assert [a.passed for a in outcome.attempts] == [False, False, False]


@pytest.mark.parametrize("max_attempts", [1, 2, 5])
async def test_max_attempts_is_exact(
    make_settings: Any, fake_anthropic: FakeAnthropic, max_attempts: int
) -> None:
    fake_anthropic.default = Reply(UNCLOSED)
    outcome = await run(make_settings, fake_anthropic, max_attempts=max_attempts)
    assert outcome.reason == "exhausted"
    assert len(fake_anthropic.requests) == max_attempts


async def test_529_then_success_is_retried_by_the_sdk(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    outcome = await run(make_settings, fake_anthropic, Fail(529, "overloaded_error"), Reply(GOOD))
    assert outcome.verified
    assert len(fake_anthropic.requests) == 2
    assert len(outcome.attempts) == 1


async def test_overloaded_mid_stream_is_retried_once(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    outcome = await run(make_settings, fake_anthropic, StreamError(), Reply(GOOD))
    assert outcome.verified and outcome.text == GOOD
    assert len(fake_anthropic.requests) == 2


async def test_model_that_stays_unavailable_gets_the_busy_reply(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    partial = StreamError().partial
    outcome = await run(make_settings, fake_anthropic, StreamError(), StreamError())
    assert outcome.reason == "unavailable" and not outcome.verified
    assert outcome.text == busy_message("mrkdwn", REF)
    assert partial not in outcome.text
    assert outcome.attempts[0].error == "overloaded_error"


async def test_rate_limits_exhausting_sdk_retries_get_the_busy_reply(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.default = Fail(429, "rate_limit_error")
    outcome = await run(make_settings, fake_anthropic, anthropic_max_retries=2)
    assert outcome.reason == "unavailable"
    assert len(fake_anthropic.requests) == 3  # one try and the SDK's two retries


async def test_request_timeout_gets_the_busy_reply(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    outcome = await run(
        make_settings, fake_anthropic, Hang(3), anthropic_timeout=0.2, anthropic_max_retries=0
    )
    assert outcome.reason == "unavailable"
    assert outcome.attempts[0].error == "timeout"


async def test_deadline_ends_with_the_graceful_failure(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    outcome = await run(
        make_settings, fake_anthropic, Reply(UNCLOSED), Hang(3), message_deadline=0.5
    )
    assert outcome.reason == "deadline"
    assert outcome.text == failure_message("mrkdwn", REF)
    assert [a.error for a in outcome.attempts] == [None, "deadline"]


async def test_max_tokens_is_truncated_and_retried_shorter(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    cut = Reply(GOOD[:40], stop_reason="max_tokens")
    outcome = await run(make_settings, fake_anthropic, cut, Reply(GOOD))
    assert outcome.verified and outcome.text == GOOD
    assert outcome.attempts[0].codes == ("TRUNCATED",)
    assert "TRUNCATED" in last_user_text(fake_anthropic.requests[1])
    assert "shorter" in last_user_text(fake_anthropic.requests[1])


async def test_refusal_ends_with_the_graceful_failure(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    outcome = await run(make_settings, fake_anthropic, Reply("I can't help.", "refusal"))
    assert outcome.reason == "refused"
    assert outcome.text == failure_message("mrkdwn", REF)
    assert len(fake_anthropic.requests) == 1


async def test_rejected_request_is_not_retried(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    outcome = await run(make_settings, fake_anthropic, Fail(400, "invalid_request_error"))
    assert (outcome.reason, outcome.attempts[0].error) == ("rejected", "status_400")
    assert outcome.text == failure_message("mrkdwn", REF)
    assert len(fake_anthropic.requests) == 1


async def test_judge_pass(make_settings: Any, fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.judge(judgement(True, 90))
    outcome = await run(make_settings, fake_anthropic, Reply(GOOD))
    assert outcome.verified and outcome.text == GOOD
    [judged] = fake_anthropic.judge_requests
    assert judged["model"] == "claude-haiku-5-5" and not judged.get("stream")
    assert "output_config" in judged
    assert outcome.attempts[0].judge_score == 90
    assert outcome.score == pytest.approx(0.9)
    assert outcome.attempts[0].judge_usage.output > 0


async def test_judge_fail_then_pass(make_settings: Any, fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.judge(judgement(False, 30, "HALLUCINATION"), judgement(True, 95))
    outcome = await run(make_settings, fake_anthropic, Reply(GOOD), Reply(GOOD))
    assert outcome.verified
    retry = fake_anthropic.requests[1]
    assert "JUDGE_HALLUCINATION" in last_user_text(retry)
    assert "Remove the invented command." in last_user_text(retry)
    assert [a.codes for a in outcome.attempts] == [("JUDGE_HALLUCINATION",), ()]


@pytest.mark.parametrize(
    "judge_reply",
    [
        Fail(500),
        Fail(400, "invalid_request_error"),
        Reply('{"passed": true, "sco', stop_reason="max_tokens"),  # cut: no judgement
    ],
)
async def test_judge_unreachable_fails_closed(
    make_settings: Any, fake_anthropic: FakeAnthropic, judge_reply: Any
) -> None:
    fake_anthropic.judge(judge_reply)
    outcome = await run(make_settings, fake_anthropic, Reply(GOOD), anthropic_max_retries=0)
    assert not outcome.verified and outcome.reason == "unavailable"
    assert GOOD not in outcome.text
    assert outcome.attempts[0].error is not None
    assert outcome.attempts[0].error.startswith("judge_")


class Stages(Unwatched):
    def __init__(self) -> None:
        self.seen: list[tuple[str, int, int]] = []

    def stage(self, stage: Stage, attempt: int, total: int) -> None:
        self.seen.append((stage, attempt, total))


async def test_every_observer_is_told_each_stage(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.push(Reply(UNCLOSED), Reply(GOOD))
    settings = make_settings()
    first, second = Stages(), Stages()
    deps = Deps.from_settings(settings)
    await answer(Conversation((), QUESTION), deps, observer=Observers(first, second))
    assert first.seen == [("drafting", 1, 3), ("drafting", 2, 3), ("checking", 2, 3)]
    assert second.seen == first.seen


def test_the_sdk_spans_are_pinned_to_metadata_only(
    make_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE", "content")
    client = make_client(make_settings())
    assert client.open_telemetry["traces"]["content_mode"] == "metadata_only"
