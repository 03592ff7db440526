"""The fake Anthropic API refuses what the real one refuses, through the real client."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from app.agent.model import make_client
from tests.fakes.anthropic import FakeAnthropic, Reply

MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    ("extra", "refusal"),
    [
        ({"extra_body": {"temperature": 0.2}}, "temperature"),
        ({"extra_body": {"top_p": 0.9}}, "top_p"),
        ({"thinking": {"type": "enabled", "budget_tokens": 512}}, "budget_tokens"),
        ({"thinking": {"type": "enabled", "budget_tokens": 4096}}, "budget_tokens"),
        ({"thinking": {"type": "sometimes"}}, "thinking.type"),
        ({"output_config": {"effort": "extreme"}}, "effort"),
    ],
)
async def test_requests_the_api_refuses_get_a_400(
    make_settings: Any, fake_anthropic: FakeAnthropic, extra: dict[str, Any], refusal: str
) -> None:
    fake_anthropic.default = Reply("hello")
    client = make_client(make_settings(anthropic_max_retries=0))
    with pytest.raises(anthropic.BadRequestError, match=refusal):
        await client.messages.create(
            model="claude-sonnet-5-5", max_tokens=2048, messages=MESSAGES, **extra
        )


@pytest.mark.parametrize(
    ("role", "signature", "refusal"),
    [("assistant", "forged", "signature"), ("user", "fake-signature", "assistant turns")],
)
async def test_thinking_sent_back_must_be_the_models_own_in_an_assistant_turn(
    make_settings: Any, fake_anthropic: FakeAnthropic, role: str, signature: str, refusal: str
) -> None:
    fake_anthropic.default = Reply("hello")
    client = make_client(make_settings(anthropic_max_retries=0))
    thought = {"type": "thinking", "thinking": "hmm", "signature": signature}
    turns = [
        {"role": "user", "content": "hi"},
        {"role": role, "content": [thought, {"type": "text", "text": "Hello."}]},
        {"role": "user", "content": "and?"},
    ]
    if role == "user":
        turns = turns[1:2]
    with pytest.raises(anthropic.BadRequestError, match=refusal):
        await client.messages.create(
            model="claude-sonnet-5-5",
            max_tokens=2048,
            messages=turns,  # type: ignore[arg-type]
        )
    ok = {"role": "assistant", "content": [{**thought, "signature": "fake-signature"}]}
    reply = await client.messages.create(
        model="claude-sonnet-5-5",
        max_tokens=2048,
        messages=[MESSAGES[0], ok, {"role": "user", "content": "and?"}],  # type: ignore[list-item]
    )
    assert reply.content[0].type == "text"


async def test_more_than_four_cache_breakpoints_get_a_400(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.default = Reply("hello")
    client = make_client(make_settings(anthropic_max_retries=0))
    block = {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}
    with pytest.raises(anthropic.BadRequestError, match="cache_control"):
        await client.messages.create(
            model="claude-sonnet-5-5",
            max_tokens=64,
            messages=[{"role": "user", "content": [block] * 5}],  # type: ignore[list-item]
        )


async def test_thinking_counts_toward_max_tokens(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    client = make_client(make_settings())
    fake_anthropic.push(
        Reply("The answer.", thinking="t" * 400), Reply("The answer.", thinking="t" * 400)
    )
    thought = await client.messages.create(
        model="claude-sonnet-5-5", max_tokens=2048, messages=MESSAGES
    )
    assert [block.type for block in thought.content] == ["thinking", "text"]
    cut = await client.messages.create(model="claude-sonnet-5-5", max_tokens=64, messages=MESSAGES)
    assert cut.stop_reason == "max_tokens" and [b.type for b in cut.content] == ["thinking", "text"]
    fake_anthropic.push(Reply("The answer.", thinking="t" * 400))
    plain = await client.messages.create(
        model="claude-sonnet-5-5",
        max_tokens=64,
        messages=MESSAGES,
        thinking={"type": "disabled"},
    )
    assert [block.type for block in plain.content] == ["text"] and plain.stop_reason == "end_turn"


async def test_a_cached_prefix_is_found_up_to_twenty_blocks_before_a_breakpoint(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    client = make_client(make_settings())
    fake_anthropic.default = Reply("ok")

    def blocks(count: int) -> list[dict[str, Any]]:
        made: list[dict[str, Any]] = [
            {"type": "text", "text": f"block {n} " * 50} for n in range(count)
        ]
        made[-1] = {**made[-1], "cache_control": {"type": "ephemeral"}}
        return made

    async def usage(count: int) -> tuple[int, int]:
        reply = await client.messages.create(
            model="claude-sonnet-5-5",
            max_tokens=64,
            messages=[{"role": "user", "content": blocks(count)}],  # type: ignore[typeddict-item]
        )
        return (
            reply.usage.cache_read_input_tokens or 0,
            reply.usage.cache_creation_input_tokens or 0,
        )

    _, wrote = await usage(3)
    assert wrote > 0
    read, _ = await usage(10)  # 7 blocks further on: found
    assert read == wrote
    fake_anthropic.reset()
    fake_anthropic.default = Reply("ok")
    await usage(3)
    read, _ = await usage(30)  # 27 blocks further on: beyond the look-back
    assert read == 0


@pytest.mark.parametrize(
    ("model", "extra", "refusal"),
    [
        ("claude-fable-5", {"thinking": {"type": "disabled"}}, "thinking.type 'disabled'"),
        ("claude-haiku-4-5", {"thinking": {"type": "adaptive"}}, "thinking.type 'adaptive'"),
        ("claude-haiku-4-5", {"output_config": {"effort": "low"}}, "effort 'low'"),
        ("claude-sonnet-5-5", {"output_config": {"effort": "max"}}, "effort 'max'"),
        (
            "claude-plain-1",
            {"output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}}},
            "structured outputs",
        ),
    ],
)
async def test_each_model_refuses_what_it_does_not_support(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    model: str,
    extra: dict[str, Any],
    refusal: str,
) -> None:
    fake_anthropic.default = Reply("hello")
    client = make_client(make_settings(anthropic_max_retries=0))
    with pytest.raises(anthropic.BadRequestError, match=refusal):
        await client.messages.create(model=model, max_tokens=2048, messages=MESSAGES, **extra)
    info = await client.models.retrieve(model)
    assert info.capabilities is not None
    assert info.capabilities.structured_outputs.supported == (model != "claude-plain-1")


async def test_an_unknown_model_is_not_found(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.default = Reply("hello")
    client = make_client(make_settings(anthropic_max_retries=0))
    with pytest.raises(anthropic.NotFoundError):
        await client.messages.create(model="claude-nope-1", max_tokens=64, messages=MESSAGES)
    with pytest.raises(anthropic.NotFoundError):
        await client.models.retrieve("claude-nope-1")
