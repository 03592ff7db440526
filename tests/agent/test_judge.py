"""The quality judge: on by default, shown what a reader of the thread sees, with its own
token budget, cached context, and a setting for when it cannot be reached."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from app.agent.conversation import Conversation, Turn
from app.agent.judge import SYSTEM, JudgeCode
from app.agent.loop import Deps, answer
from app.agent.outcome import Outcome
from app.agent.transcript import estimate_tokens, recent_turns
from app.settings import load_settings
from app.telemetry import scores_of
from app.verify import busy_message
from tests.fakes.anthropic import Fail, FakeAnthropic, Reply, judge_input, judgement

QUESTION = "and for staging?"
THREAD = (
    Turn("user", "How do I deploy billing to production?"),
    Turn("assistant", "Merge to `main`, then approve the *production* job in the pipeline."),
)
GOOD = "Same pipeline: the *staging* job runs on every merge to `main`, no approval needed."


async def ask(make_settings: Any, turns: tuple[Turn, ...] = THREAD, **overrides: Any) -> Outcome:
    deps = Deps.from_settings(make_settings(**overrides))
    return await answer(Conversation(turns, QUESTION), deps, reference="ref0123456789")


def test_the_judge_is_on_by_default() -> None:
    settings = load_settings(_env_file=None)
    assert settings.judge_enabled and settings.judge_fallback == "busy"


async def test_a_follow_up_is_judged_with_the_threads_earlier_turns(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.push(Reply(GOOD))
    outcome = await ask(make_settings)
    assert outcome.verified
    [request] = fake_anthropic.judge_requests
    shown = judge_input(request)
    assert shown.thread == [
        {"from": "user", "text": THREAD[0].text},
        {"from": "Vouch", "text": THREAD[1].text},
    ]
    assert (shown.message, shown.answer, shown.sources) == (QUESTION, GOOD, [])
    assert request["system"] == SYSTEM and request["model"] == "claude-haiku-5-5"


async def test_the_judge_request_caches_its_context_and_budgets_thinking(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.push(Reply(GOOD))
    await ask(make_settings)
    [request] = fake_anthropic.judge_requests
    *turns, latest = request["messages"][0]["content"]
    assert [block.get("cache_control") for block in turns] == [None, {"type": "ephemeral"}]
    assert "cache_control" not in latest
    assert request["thinking"] == {"type": "adaptive"}
    assert request["output_config"]["effort"] == "low"
    assert request["output_config"]["format"]["type"] == "json_schema"
    assert request["max_tokens"] == 4096


async def test_a_judgement_after_thinking_fits_the_default_budget(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    """Thinking tokens count toward max_tokens: ~2,000 tokens of thinking and the JSON fit
    in the default budget; the same in the old budget of 1,024 would have been cut."""
    thought = "Weighing whether the staging answer follows from the thread. " * 130
    fake_anthropic.push(Reply(GOOD), Reply(GOOD))
    fake_anthropic.judge(
        judgement(True, 88, thinking=thought), judgement(True, 88, thinking=thought)
    )
    outcome = await ask(make_settings)
    assert outcome.verified and outcome.attempts[0].judge_score == 88
    cut = await ask(make_settings, judge_max_tokens=1024)
    assert cut.reason == "unavailable" and cut.attempts[0].error == "judge_truncated"


async def test_the_newest_turns_are_kept_within_the_budget() -> None:
    turns = tuple(
        Turn("user" if n % 2 else "assistant", f"turn {n} " + "x" * 400) for n in range(30)
    )
    kept = recent_turns(turns, 1000)
    assert kept[-1]["text"] == turns[-1].text.strip()
    assert sum(estimate_tokens(t["text"]) for t in kept) <= 1000 + len(kept)
    assert len(kept) < len(turns) and kept[0]["text"].startswith("…")
    assert recent_turns(turns, 0) == []


async def test_the_judges_codes_are_a_fixed_list_that_names_the_new_classes() -> None:
    for code in ("OFF_TOPIC", "WRONG_QUESTION", "NON_ANSWER", "NEEDLESS_REFUSAL"):
        assert code in get_args(JudgeCode) and code in SYSTEM
    for code in ("WRONG_LANGUAGE", "SELF_REFERENCE", "INVENTED_LINK"):
        assert code in get_args(JudgeCode) and code in SYSTEM


async def test_a_judge_failure_feeds_the_retry_and_the_good_answer_is_delivered(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    short_off_topic = "Redis listens on 6379 by default."
    fake_anthropic.push(Reply(short_off_topic), Reply(GOOD))
    fake_anthropic.judge(judgement(False, 10, "OFF_TOPIC", message="Not about staging."))
    outcome = await ask(make_settings)
    assert outcome.verified and outcome.text == GOOD
    assert outcome.attempts[0].codes == ("JUDGE_OFF_TOPIC",)
    retry = fake_anthropic.requests[1]["messages"][-1]["content"][-1]["text"]
    assert "JUDGE_OFF_TOPIC" in retry


@pytest.mark.parametrize("fallback", ["busy", "deliver"])
async def test_when_the_judge_cannot_be_reached(
    make_settings: Any, fake_anthropic: FakeAnthropic, fallback: str
) -> None:
    fake_anthropic.push(Reply(GOOD))
    fake_anthropic.judge(Fail(500))
    outcome = await ask(make_settings, judge_fallback=fallback, anthropic_max_retries=0)
    [attempt] = outcome.attempts
    assert attempt.error == "judge_InternalServerError"
    if fallback == "busy":
        assert (outcome.reason, outcome.text) == (
            "unavailable",
            busy_message("mrkdwn", "ref0123456789"),
        )
        assert ("judged", 0.0, "BOOLEAN", "") not in scores_of(outcome)
    else:
        assert (outcome.reason, outcome.text) == ("verified", GOOD)
        assert attempt.judge == "unavailable" and attempt.judge_score is None
        assert ("judged", 0.0, "BOOLEAN", "") in scores_of(outcome)


async def test_a_judged_answer_is_scored_as_judged(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.push(Reply(GOOD))
    outcome = await ask(make_settings)
    assert outcome.attempts[0].judge == "passed"
    assert ("judged", 1.0, "BOOLEAN", "") in scores_of(outcome)
    fake_anthropic.push(Reply(GOOD))
    unjudged = await ask(make_settings, judge_enabled=False)
    assert not fake_anthropic.judge_requests[1:]
    assert all(row[0] != "judged" for row in scores_of(unjudged))


async def test_a_follow_ups_judgement_reads_the_cache_the_previous_one_wrote(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    """A block per turn: the thread's blocks stay the same as it grows, so the next
    message's judgement finds the prefix the last one wrote (the API looks back up to 20
    block boundaries from a breakpoint)."""
    fake_anthropic.min_cache_tokens = 1024  # the real minimum: this thread is over it
    earlier = (
        Turn("user", "How do we deploy billing? " + "Context on our pipeline. " * 120),
        Turn("assistant", "Merge to `main`; the pipeline deploys it. " * 60),
    )
    fake_anthropic.push(Reply(GOOD), Reply(GOOD))
    first = await ask(make_settings, turns=earlier)
    later = (*earlier, Turn("user", QUESTION), Turn("assistant", GOOD))
    second = await ask(make_settings, turns=later)
    wrote = first.attempts[0].judge_usage.cache_write
    assert wrote > 1024 and first.attempts[0].judge_usage.cache_read == 0
    assert second.attempts[0].judge_usage.cache_read == wrote


@pytest.mark.parametrize(
    ("model", "thinking", "effort"),
    [
        ("claude-haiku-5-5", {"type": "adaptive"}, "low"),
        ("claude-fable-5", {"type": "adaptive"}, "low"),  # refuses "disabled"
        ("claude-haiku-4-5", {"type": "disabled"}, None),  # refuses "adaptive" and effort
        ("claude-unlisted-1", None, None),  # no capabilities listed: the model's default
    ],
)
async def test_the_judge_asks_only_for_thinking_its_model_accepts(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    model: str,
    thinking: dict[str, str] | None,
    effort: str | None,
) -> None:
    """Each model accepts its own thinking types and efforts (the Models API lists them);
    the fake refuses the rest with a 400, as the API does, which would make every judgement
    fail with such a JUDGE_MODEL."""
    fake_anthropic.push(Reply(GOOD), Reply(GOOD))
    deps = Deps.from_settings(make_settings(judge_model=model))
    for ts in ("1", "2"):
        outcome = await answer(Conversation(THREAD, f"{QUESTION} {ts}"), deps, reference="r")
        assert outcome.verified and outcome.attempts[0].judge == "passed"
    first, second = fake_anthropic.judge_requests
    assert first.get("thinking") == thinking and first["output_config"].get("effort") == effort
    assert second.get("thinking") == thinking
    assert fake_anthropic.model_lookups.count(model) == 1  # asked once per model


async def test_a_judge_model_without_structured_output_is_unavailable(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.push(Reply(GOOD))
    outcome = await ask(make_settings, judge_model="claude-plain-1")
    assert outcome.reason == "unavailable"
    assert outcome.attempts[0].error == "judge_no_structured_outputs"
    assert fake_anthropic.judge_requests == []  # not sent: it would be refused


def test_the_judge_reads_who_said_what() -> None:
    turns = [Turn("user", "it was DNS", "Maria Lopez"), Turn("user", "no, the cert", "")]
    assert [t["from"] for t in recent_turns(turns, 1000)] == ["Maria Lopez", "user"]
