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
    fake_anthropic.min_cache_tokens = 0  # any length: this is about the look-back

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
    fake_anthropic.min_cache_tokens = 0
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


@pytest.mark.parametrize(
    ("model", "tokens", "cached"),
    [
        ("claude-sonnet-5-5", 900, False),
        ("claude-sonnet-5-5", 1200, True),
        ("claude-haiku-5-5", 2000, False),
        ("claude-haiku-5-5", 4200, True),
    ],
)
async def test_a_prefix_under_the_models_caching_minimum_is_not_cached(
    make_settings: Any, fake_anthropic: FakeAnthropic, model: str, tokens: int, cached: bool
) -> None:
    client = make_client(make_settings())
    fake_anthropic.default = Reply("ok")
    block = {"type": "text", "text": "x" * tokens * 4, "cache_control": {"type": "ephemeral"}}
    usages = [
        (
            await client.messages.create(
                model=model,
                max_tokens=64,
                messages=[{"role": "user", "content": [block]}],  # type: ignore[list-item]
            )
        ).usage
        for _ in range(2)
    ]
    assert ((usages[0].cache_creation_input_tokens or 0) > 0) is cached
    assert ((usages[1].cache_read_input_tokens or 0) > 0) is cached
    assert usages[0].input_tokens >= (0 if cached else tokens)


async def test_count_tokens_counts_what_a_request_would_send(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    client = make_client(make_settings())
    short = await client.messages.count_tokens(model="claude-sonnet-5-5", messages=MESSAGES)
    long = await client.messages.count_tokens(
        model="claude-sonnet-5-5",
        system="You are Vouch. " * 100,
        messages=MESSAGES,
        thinking={"type": "adaptive"},
    )
    assert 0 < short.input_tokens < long.input_tokens
    assert fake_anthropic.requests == []  # counting is not a message


@pytest.mark.parametrize(
    ("extra", "refusal"),
    [
        ({"extra_body": {"max_tokens": 64}}, "max_tokens: Extra inputs"),
        ({"extra_body": {"stream": True}}, "stream: Extra inputs"),
        ({"model": "claude-nonexistent"}, "model: claude-nonexistent"),
    ],
)
async def test_count_tokens_refuses_what_it_does_not_take(
    make_settings: Any, fake_anthropic: FakeAnthropic, extra: dict[str, Any], refusal: str
) -> None:
    client = make_client(make_settings(anthropic_max_retries=0))
    call = {"model": "claude-sonnet-5-5", "messages": MESSAGES, **extra}
    with pytest.raises(anthropic.APIStatusError, match=refusal):
        await client.messages.count_tokens(**call)


async def test_a_field_the_sdk_does_not_know_gets_a_400(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.default = Reply("hello")
    client = make_client(make_settings(anthropic_max_retries=0))
    with pytest.raises(anthropic.BadRequestError, match="frequency_penalty: Extra inputs"):
        await client.messages.create(
            model="claude-sonnet-5-5",
            max_tokens=64,
            messages=MESSAGES,
            extra_body={"frequency_penalty": 0.5},
        )
