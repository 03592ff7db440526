"""The fake Anthropic API refuses what the real one refuses, through the real client."""

from __future__ import annotations

import base64
import struct
from collections.abc import Iterable
from typing import Any, Literal, cast

import anthropic
import pytest
from anthropic.types import (
    Base64PDFSourceParam,
    CitationCharLocation,
    CitationContentBlockLocation,
    CitationPageLocation,
    DocumentBlockParam,
    ImageBlockParam,
    MessageParam,
    OutputConfigParam,
    PlainTextSourceParam,
    TextBlockParam,
    ToolParam,
    ToolResultBlockParam,
    ToolUseBlockParam,
)

from app.agent import question
from app.agent.model import make_client
from tests.fakes.anthropic import (
    Cite,
    DocCite,
    FakeAnthropic,
    Reply,
    ToolCall,
    cited,
    decided,
    tool_results,
    tool_use,
    tool_uses,
)
from tests.fakes.anthropic_blocks import pdf, png

MESSAGES: list[MessageParam] = [{"role": "user", "content": "hi"}]


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
    block: TextBlockParam = {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}
    with pytest.raises(anthropic.BadRequestError, match="cache_control"):
        await client.messages.create(
            model="claude-sonnet-5-5",
            max_tokens=64,
            messages=[{"role": "user", "content": [block] * 5}],
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

    def blocks(count: int) -> list[TextBlockParam]:
        made: list[TextBlockParam] = [
            {"type": "text", "text": f"block {n} " * 50} for n in range(count)
        ]
        made[-1] = {**made[-1], "cache_control": {"type": "ephemeral"}}
        return made

    async def usage(count: int) -> tuple[int, int]:
        reply = await client.messages.create(
            model="claude-sonnet-5-5",
            max_tokens=64,
            messages=[{"role": "user", "content": blocks(count)}],
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
    assert isinstance(client, anthropic.AsyncAnthropic)  # .models is the first-party API's
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
    assert isinstance(client, anthropic.AsyncAnthropic)  # .models is the first-party API's
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
    block: TextBlockParam = {
        "type": "text",
        "text": "x" * tokens * 4,
        "cache_control": {"type": "ephemeral"},
    }
    usages = [
        (
            await client.messages.create(
                model=model,
                max_tokens=64,
                messages=[{"role": "user", "content": [block]}],
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


# --- tools ----------------------------------------------------------------------------

MODEL = "claude-sonnet-5-5"
SEARCH_TOOL: ToolParam = {
    "name": "search_docs",
    "description": "Search the team's docs.",
    "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}},
}
READ_TOOL: ToolParam = {**SEARCH_TOOL, "name": "read_thread"}
TOOLS: list[ToolParam] = [SEARCH_TOOL, READ_TOOL]


def client_of(make_settings: Any) -> anthropic.AsyncAnthropic:
    client = make_client(make_settings(anthropic_max_retries=0))
    assert isinstance(client, anthropic.AsyncAnthropic)  # the fakes' settings: first-party API
    return client


@pytest.mark.parametrize("streamed", [True, False])
async def test_a_tool_use_turn_comes_as_the_api_sends_it(
    make_settings: Any, fake_anthropic: FakeAnthropic, streamed: bool
) -> None:
    fake_anthropic.push(
        tool_use(
            ToolCall("search_docs", {"query": "rollback " * 20}),
            ToolCall("read_thread", {"url": "https://x"}, id="toolu_given"),
            text="Let me look.",
        )
    )
    client = client_of(make_settings)
    call: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 1024,
        "messages": MESSAGES,
        "tools": TOOLS,
    }
    if streamed:
        async with client.messages.stream(**call) as stream:
            events = [event.type async for event in stream]
            reply = await stream.get_final_message()
        assert "input_json" in events  # the input came as input_json_delta events
    else:
        reply = await client.messages.create(**call)
    assert reply.stop_reason == "tool_use"
    text, first, second = reply.content
    assert text.type == "text" and text.text == "Let me look."
    assert first.type == "tool_use" and first.name == "search_docs"
    assert first.input == {"query": "rollback " * 20} and first.id.startswith("toolu_")
    assert second.type == "tool_use" and second.id == "toolu_given"


async def test_tool_results_answer_the_tool_uses_and_are_recorded(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.push(tool_use(ToolCall("search_docs", {"query": "deploy"})), Reply("Done."))
    client = client_of(make_settings)
    first = await client.messages.create(
        model=MODEL,
        max_tokens=1024,
        messages=MESSAGES,
        tools=TOOLS,
    )
    [use] = first.content
    assert use.type == "tool_use"
    result: ToolResultBlockParam = {
        "type": "tool_result",
        "tool_use_id": use.id,
        "content": "Deploys run at 10.",
    }
    turns: list[MessageParam] = [
        *MESSAGES,
        {
            "role": "assistant",
            "content": [cast(ToolUseBlockParam, use.model_dump(exclude_none=True))],
        },
        {"role": "user", "content": [result, {"type": "text", "text": "Answer now."}]},
    ]
    reply = await client.messages.create(
        model=MODEL,
        max_tokens=1024,
        messages=turns,
        tools=TOOLS,
    )
    assert reply.content[0].type == "text"
    request = fake_anthropic.requests[-1]
    assert [u["id"] for u in tool_uses(request)] == [use.id]
    assert tool_results(request)[use.id]["content"] == "Deploys run at 10."


def use(tool_id: str, name: str = "search_docs") -> ToolUseBlockParam:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": {"query": "x"}}


def result(tool_id: str) -> ToolResultBlockParam:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "found"}


TEXT = {"type": "text", "text": "go on"}


@pytest.mark.parametrize(
    ("messages", "refusal"),
    [
        (  # no answer at all
            [{"role": "assistant", "content": [use("toolu_1")]}, {"role": "user", "content": "x"}],
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
            "after: toolu_1",
        ),
        (  # one of two answered
            [
                {"role": "assistant", "content": [use("toolu_1"), use("toolu_2", "read_thread")]},
                {"role": "user", "content": [result("toolu_1")]},
            ],
            "without `tool_result` blocks immediately after: toolu_2",
        ),
        (  # the answer is not first in the next message
            [
                {"role": "assistant", "content": [use("toolu_1")]},
                {"role": "user", "content": [TEXT, result("toolu_1")]},
            ],
            "messages.2: Did not find 1 `tool_result` block\\(s\\) at the beginning",
        ),
        (  # an answer to nothing
            [
                {"role": "assistant", "content": "hi"},
                {"role": "user", "content": [result("toolu_9")]},
            ],
            "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9",
        ),
        (  # the assistant's last word is a tool call nobody answered
            [{"role": "assistant", "content": [use("toolu_1")]}],
            "without `tool_result` blocks immediately after: toolu_1",
        ),
        (  # answered twice
            [
                {"role": "assistant", "content": [use("toolu_1")]},
                {"role": "user", "content": [result("toolu_1"), result("toolu_1")]},
            ],
            "more than one `tool_result`",
        ),
        (  # the same id twice
            [
                {"role": "assistant", "content": [use("toolu_1"), use("toolu_1")]},
                {"role": "user", "content": [result("toolu_1")]},
            ],
            "ids must be unique",
        ),
        ([{"role": "user", "content": [use("toolu_1")]}], "only allowed in assistant turns"),
        (
            [{"role": "assistant", "content": [{**use("toolu_1"), "id": "no spaces"}]}],
            "tool_use.id",
        ),
    ],
)
async def test_tool_use_and_tool_result_must_pair(
    make_settings: Any, fake_anthropic: FakeAnthropic, messages: list[Any], refusal: str
) -> None:
    fake_anthropic.default = Reply("hello")
    with pytest.raises(anthropic.BadRequestError, match=refusal):
        await client_of(make_settings).messages.create(
            model=MODEL, max_tokens=64, messages=[*MESSAGES, *messages], tools=TOOLS
        )
    assert fake_anthropic.requests == []  # refused before any reply was used


async def test_tool_blocks_need_tools(make_settings: Any, fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.default = Reply("hello")
    turns: list[MessageParam] = [
        *MESSAGES,
        {"role": "assistant", "content": [use("toolu_1")]},
        {"role": "user", "content": [result("toolu_1")]},
    ]
    with pytest.raises(anthropic.BadRequestError, match="must define tools"):
        await client_of(make_settings).messages.create(
            model=MODEL,
            max_tokens=64,
            messages=turns,
        )


@pytest.mark.parametrize(
    ("extra", "refusal"),
    [
        ({"tools": [{**SEARCH_TOOL, "name": "search docs"}]}, "name: String should match"),
        ({"tools": [{**SEARCH_TOOL, "name": "x" * 65}]}, "name: String should match"),
        ({"tools": [{**SEARCH_TOOL, "input_schema": {"type": "string"}}]}, "input_schema.type"),
        ({"tools": [SEARCH_TOOL, SEARCH_TOOL]}, "Tool names must be unique"),
        ({"tools": [{**SEARCH_TOOL, "parameters": {}}]}, "parameters: Extra inputs"),
        ({"tools": [{**SEARCH_TOOL, "type": "web_search_20250305"}]}, "only custom tools"),
        ({"tool_choice": {"type": "auto"}}, "tool_choice may only be specified"),
        ({"tools": TOOLS, "tool_choice": {"type": "sometimes"}}, "tool_choice.type"),
        ({"tools": TOOLS, "tool_choice": {"type": "tool", "name": "nope"}}, "no tool named"),
        (
            {"tools": TOOLS, "tool_choice": {"type": "none", "disable_parallel_tool_use": True}},
            "disable_parallel_tool_use: Extra inputs",
        ),
        (
            {"tools": TOOLS, "tool_choice": {"type": "any"}, "thinking": {"type": "adaptive"}},
            "Thinking may not be enabled when tool_choice forces tool use",
        ),
    ],
)
async def test_tool_definitions_and_tool_choice_the_api_refuses(
    make_settings: Any, fake_anthropic: FakeAnthropic, extra: dict[str, Any], refusal: str
) -> None:
    fake_anthropic.default = Reply("hello")
    with pytest.raises(anthropic.BadRequestError, match=refusal):
        await client_of(make_settings).messages.create(
            model=MODEL, max_tokens=2048, messages=MESSAGES, **extra
        )
    with pytest.raises(anthropic.BadRequestError, match=refusal):  # counting refuses alike
        await client_of(make_settings).messages.count_tokens(
            model=MODEL, messages=MESSAGES, **extra
        )


@pytest.mark.parametrize(
    ("item", "extra", "mistake"),
    [
        (tool_use(ToolCall("delete_prod")), {}, "'delete_prod', which is not in"),
        (tool_use(ToolCall("search_docs")), {"tool_choice": {"type": "none"}}, "is 'none'"),
        (Reply("no tool"), {"tool_choice": {"type": "any"}}, "no tool_use although"),
        (
            tool_use(ToolCall("read_thread")),
            {"tool_choice": {"type": "tool", "name": "search_docs"}},
            "another tool than tool_choice names",
        ),
        (
            tool_use(ToolCall("search_docs"), ToolCall("read_thread")),
            {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}},
            "more than one tool_use",
        ),
        (Reply("x", stop_reason="tool_use"), {}, "without a tool call"),
        (cited(("x", DocCite(0, "x"))), {}, "citation of document 0; the request has 0"),
        (cited(("x", Cite("S1", "x"))), {}, "citation of search result 0; there are 0"),
    ],
)
async def test_a_reply_no_model_could_give_fails_the_test_loudly(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    item: Reply,
    extra: dict[str, Any],
    mistake: str,
) -> None:
    fake_anthropic.push(item)
    with pytest.raises(anthropic.BadRequestError, match="fake: misscripted"):
        await client_of(make_settings).messages.create(
            model=MODEL, max_tokens=1024, messages=MESSAGES, tools=TOOLS, **extra
        )
    [noted] = fake_anthropic.misscripted
    assert mistake in noted


# --- documents, citations, images --------------------------------------------------------


def text_doc(data: str, cite: bool = True) -> DocumentBlockParam:
    source: PlainTextSourceParam = {"type": "text", "media_type": "text/plain", "data": data}
    return {
        "type": "document",
        "source": source,
        "title": "notes.txt",
        "citations": {"enabled": cite},
    }


def pdf_doc(raw: bytes) -> DocumentBlockParam:
    source: Base64PDFSourceParam = {
        "type": "base64",
        "media_type": "application/pdf",
        "data": b64(raw),
    }
    return {
        "type": "document",
        "source": source,
        "title": "runbook.pdf",
        "citations": {"enabled": True},
    }


def content_doc(*texts: str) -> DocumentBlockParam:
    content: list[TextBlockParam] = [{"type": "text", "text": t} for t in texts]
    return {
        "type": "document",
        "source": {"type": "content", "content": content},
        "citations": {"enabled": True},
    }


ImageType = Literal["image/jpeg", "image/png", "image/gif", "image/webp"]
DocumentCitation = CitationCharLocation | CitationPageLocation | CitationContentBlockLocation


def image(raw: bytes, media_type: ImageType = "image/png") -> ImageBlockParam:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": b64(raw)},
    }


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def asking(*blocks: ImageBlockParam | DocumentBlockParam) -> list[MessageParam]:
    return [{"role": "user", "content": [*blocks, {"type": "text", "text": "What does it say?"}]}]


@pytest.mark.parametrize("streamed", [True, False])
async def test_citations_of_each_document_kind(
    make_settings: Any, fake_anthropic: FakeAnthropic, streamed: bool
) -> None:
    fake_anthropic.push(
        cited(
            ("Deploys run at ten.", DocCite(0, "run at 10")),
            ("Rollback is step two.", DocCite(1, "Step two: roll back", start=2)),
            ("Ask on-call.", DocCite(2, "Ask on-call.", start=1)),
        )
    )
    messages = asking(
        text_doc("Deploys run at 10 daily."),
        pdf_doc(pdf("Intro", "Step two: roll back")),
        content_doc("Hello.", "Ask on-call."),
    )
    client = client_of(make_settings)
    call: dict[str, Any] = {"model": MODEL, "max_tokens": 1024, "messages": messages}
    if streamed:
        async with client.messages.stream(**call) as stream:
            reply = await stream.get_final_message()
    else:
        reply = await client.messages.create(**call)
    kinds = [
        (c.type, c.document_index)
        for b in reply.content
        if b.type == "text"
        for c in cast("Iterable[DocumentCitation]", b.citations or ())
    ]
    assert kinds == [("char_location", 0), ("page_location", 1), ("content_block_location", 2)]
    char = reply.content[0].citations[0]  # type: ignore[union-attr,index]
    assert isinstance(char, CitationCharLocation)  # as kinds says
    assert (char.start_char_index, char.end_char_index) == (8, 17)
    page = reply.content[1].citations[0]  # type: ignore[union-attr,index]
    assert isinstance(page, CitationPageLocation)  # as kinds says
    assert (page.start_page_number, page.end_page_number) == (2, 3)
    assert page.document_title == "runbook.pdf"


async def test_a_citation_of_a_document_without_citations_is_misscripted(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.push(cited(("x", DocCite(0, "Deploys"))))
    with pytest.raises(anthropic.BadRequestError, match="citations are off"):
        await client_of(make_settings).messages.create(
            model=MODEL, max_tokens=64, messages=asking(text_doc("Deploys.", cite=False))
        )


async def test_documents_and_images_the_api_takes(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.default = Reply("ok")
    gif = b"GIF89a" + struct.pack("<HH", 640, 480) + b"\x00" * 20
    jpeg = b"\xff\xd8\xff\xe0" + struct.pack(">H", 4) + b"\x00\x00" + b"\xff\xc0\x00\x11\x08"
    jpeg += struct.pack(">HH", 480, 640) + b"\x00" * 12
    webp = b"RIFF\x00\x00\x00\x00WEBPVP8X" + b"\x00" * 8
    webp += (639).to_bytes(3, "little") + (479).to_bytes(3, "little")
    blocks: list[ImageBlockParam | DocumentBlockParam] = [
        image(png(800, 600)),
        image(gif, "image/gif"),
        image(jpeg, "image/jpeg"),
        image(webp, "image/webp"),
        text_doc("notes"),
        pdf_doc(pdf("one page")),
    ]
    reply = await client_of(make_settings).messages.create(
        model=MODEL,
        max_tokens=64,
        messages=asking(*blocks),
    )
    assert reply.content[0].type == "text"
    nested: ToolResultBlockParam = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [image(png(2, 2))],
    }
    turns: list[MessageParam] = [
        *MESSAGES,
        {"role": "assistant", "content": [use("toolu_1")]},
        {"role": "user", "content": [nested]},
    ]
    await client_of(make_settings).messages.create(
        model=MODEL,
        max_tokens=64,
        messages=turns,
        tools=TOOLS,
    )


@pytest.mark.parametrize(
    ("blocks", "refusal"),
    [
        (
            [image(png(), "image/jpeg")],
            "specified using the image/jpeg media type, but the image "
            "appears to be a image/png image",
        ),
        ([image(b"not an image")], "appears to be a unknown image"),
        (
            [image(png(), "image/bmp")],  # type: ignore[arg-type]  # the API refuses it: sent anyway
            "media_type: Input should be",
        ),
        (
            [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "%%"},
                }
            ],
            "invalid base64",
        ),
        ([image(b"\x89PNG\r\n\x1a\n" + b"\x00" * (4 * 1024 * 1024))], "image exceeds 5 MB maximum"),
        ([{"type": "image", "source": {"type": "url", "url": "https://x/y.png"}}], "only base64"),
        ([image(png(2, 2))] * 101, "Too many images: 101 > 100"),
        (
            [{**text_doc("x"), "source": {"type": "text", "media_type": "text/csv", "data": "x"}}],
            "text/plain",
        ),
        ([pdf_doc(b"plain text, not a PDF")], "The PDF specified was not valid"),
        ([pdf_doc(pdf(*["page"] * 101))], "A maximum of 100 PDF pages may be provided"),
        ([text_doc("a"), text_doc("b", cite=False)], "all or none of the documents"),
        ([{**text_doc("a"), "citations": {"enabled": True, "style": "apa"}}], "citations: Extra"),
        ([{**text_doc("a"), "summary": "x"}], "document.summary: Extra inputs"),
        ([{"type": "video", "source": {}}], "'video' is not served"),
    ],
)
async def test_documents_and_images_the_api_refuses(
    make_settings: Any, fake_anthropic: FakeAnthropic, blocks: list[dict[str, Any]], refusal: str
) -> None:
    fake_anthropic.default = Reply("ok")
    with pytest.raises(anthropic.BadRequestError, match=refusal):
        await client_of(make_settings).messages.create(
            model=MODEL,
            max_tokens=64,
            messages=asking(*blocks),  # type: ignore[arg-type]  # blocks the API refuses: sent anyway
        )


@pytest.mark.parametrize(("count", "side", "limit"), [(1, 8001, 8000), (21, 2001, 2000)])
async def test_an_image_too_large_is_refused_with_the_apis_details(
    make_settings: Any, fake_anthropic: FakeAnthropic, count: int, side: int, limit: int
) -> None:
    fake_anthropic.default = Reply("ok")
    big, small = image(png(side, 2)), image(png(limit, 2))
    client = client_of(make_settings)
    await client.messages.create(
        model=MODEL,
        max_tokens=64,
        messages=asking(*[small] * count),
    )
    with pytest.raises(anthropic.BadRequestError) as refused:
        await client.messages.create(
            model=MODEL,
            max_tokens=64,
            messages=asking(*[small] * (count - 1), big),
        )
    assert refused.value.error_code == "image_dimensions_too_large"
    details = refused.value.body["error"]["details"]  # type: ignore[index]
    assert details["max_side_length_pixels"] == limit
    assert details["paths"] == [f"messages.0.content.{count - 1}"]


async def test_citations_do_not_go_with_structured_output(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    output: OutputConfigParam = {"format": {"type": "json_schema", "schema": {"type": "object"}}}
    with pytest.raises(anthropic.BadRequestError, match="structured outputs"):
        await client_of(make_settings).messages.create(
            model=MODEL,
            max_tokens=64,
            messages=asking(text_doc("x")),
            output_config=output,
        )


async def test_a_request_over_32_mb_is_too_large(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.default = Reply("ok")
    huge: list[MessageParam] = [{"role": "user", "content": "x" * (32 * 1024 * 1024 + 1)}]
    with pytest.raises(anthropic.APIStatusError) as refused:
        await client_of(make_settings).messages.create(model=MODEL, max_tokens=64, messages=huge)
    assert refused.value.status_code == 413
    assert fake_anthropic.requests == []


async def test_structured_output_takes_closed_objects_and_answers_within_its_schema(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    """Every object of the schema must say additionalProperties: false; and a scripted
    reply off the schema (a category not in its enum, text that is not JSON) is one no
    model gives under constrained decoding: misscripted. One cut at max_tokens may be."""
    client = client_of(make_settings)
    open_object: OutputConfigParam = {
        "format": {"type": "json_schema", "schema": {"type": "object"}}
    }
    with pytest.raises(anthropic.BadRequestError, match="additionalProperties must be false"):
        await client.messages.create(
            model=MODEL,
            max_tokens=64,
            messages=[{"role": "user", "content": "q"}],
            output_config=open_object,
        )
    closed: OutputConfigParam = {"format": question.FORMAT}
    for reply in (decided("banana"), Reply("not json at all")):
        fake_anthropic.triage(reply)
        with pytest.raises(anthropic.BadRequestError, match="fake: misscripted"):
            await client.messages.create(
                model=MODEL,
                max_tokens=64,
                messages=[{"role": "user", "content": "q"}],
                output_config=closed,
            )
    assert len(fake_anthropic.misscripted) == 2
    fake_anthropic.triage(Reply('{"category": "quest', stop_reason="max_tokens"))
    cut = await client.messages.create(
        model=MODEL,
        max_tokens=64,
        messages=[{"role": "user", "content": "q"}],
        output_config=closed,
    )
    assert cut.stop_reason == "max_tokens"
