"""Drafts decide thinking explicitly: current models think unless told otherwise, and
thinking counts toward max_tokens, so a draft that thinks must still fit its budget."""

from __future__ import annotations

from typing import Any

import pytest

from app.agent.conversation import Conversation, Turn
from app.agent.loop import Deps, answer
from tests.fakes.anthropic import FakeAnthropic, Reply

QUESTION = "Why does the billing deploy to staging take so long?"
GOOD = "The pipeline runs the full integration suite before it deploys billing to staging."
UNCLOSED = "Deploy billing to staging with:\n```\nmake deploy ENV=staging"
THOUGHT = "Let me think about which pipeline stages are slow. " * 240  # ~3,000 tokens


async def ask(make_settings: Any, **overrides: Any) -> Any:
    deps = Deps.from_settings(make_settings(**overrides))
    conversation = Conversation((Turn("user", "hi"), Turn("assistant", "Hello!")), QUESTION)
    return await answer(conversation, deps, reference="r")


async def test_a_draft_after_some_thinking_fits_the_default_budget(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    """~3,000 tokens of thinking and a short answer: cut (TRUNCATED, retried, thought again,
    cut again) under the old 2,048-token budget; whole under the default."""
    fake_anthropic.default = Reply(GOOD, thinking=THOUGHT)
    outcome = await ask(make_settings)
    assert outcome.verified and outcome.text == GOOD
    assert [a.stop_reason for a in outcome.attempts] == ["end_turn"]
    [request] = fake_anthropic.requests
    assert request["thinking"] == {"type": "adaptive"}
    assert request["output_config"] == {"effort": "low"}


async def test_the_draft_is_the_text_alone_and_no_thinking_goes_back(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.push(Reply(UNCLOSED, thinking="secret plan"), Reply(GOOD, thinking="again"))
    outcome = await ask(make_settings)
    assert outcome.verified and outcome.text == GOOD
    assert outcome.attempts[0].draft_length == len(UNCLOSED)
    retry = fake_anthropic.requests[1]
    kinds = {block["type"] for message in retry["messages"] for block in message["content"]}
    assert kinds == {"text"}
    assert retry["messages"][-2]["content"] == [{"type": "text", "text": UNCLOSED}]


@pytest.mark.parametrize(
    ("model", "want", "expected"),
    [
        ("claude-sonnet-5-5", "light", ({"type": "adaptive"}, "low")),
        ("claude-sonnet-5-5", "adaptive", ({"type": "adaptive"}, None)),
        ("claude-sonnet-5-5", "off", ({"type": "disabled"}, None)),
        ("claude-fable-5", "off", ({"type": "adaptive"}, "low")),  # refuses "disabled"
        ("claude-haiku-4-5", "light", ({"type": "disabled"}, None)),  # refuses "adaptive"
        ("claude-unlisted-1", "light", (None, None)),  # no capabilities: the model's default
    ],
)
async def test_drafts_ask_for_the_thinking_set_within_what_the_model_accepts(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    model: str,
    want: str,
    expected: tuple[dict[str, str] | None, str | None],
) -> None:
    thinking, effort = expected
    fake_anthropic.default = Reply(GOOD, thinking="a thought")
    for _ in range(2):
        outcome = await ask(make_settings, anthropic_model=model, anthropic_thinking=want)
        assert outcome.verified
    first, second = fake_anthropic.requests
    assert first.get("thinking") == thinking == second.get("thinking")
    assert (first.get("output_config") or {}).get("effort") == effort
    assert fake_anthropic.model_lookups.count(model) == 2  # once per client (per Deps)


async def test_with_thinking_off_the_draft_does_not_think(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.default = Reply(GOOD, thinking=THOUGHT * 4)  # would not fit if it thought
    outcome = await ask(make_settings, anthropic_thinking="off")
    assert outcome.verified and outcome.attempts[0].usage.output < 100
