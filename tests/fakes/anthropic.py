"""A loopback Anthropic Messages API speaking the real wire format, scripted per test.

`POST /v1/messages` pops the next scripted item: a `Reply` (an SSE stream when the request
asks to stream, a JSON message otherwise; `cited()` builds one whose text blocks carry
search-result citations, streamed as `citations_delta` events), a `Fail` (an HTTP error
body), a `StreamError` (a 200 stream that breaks with an `error` event) or a `Hang`.
Every request body is kept.
Judge requests (structured output: `output_config.format`) have their own script
(`judge(...)`, `judge_requests`) and pass by default, so a test that is not about the judge
sees the default settings at work without scripting it. Help-channel triage requests
(structured output whose schema has only `category`) have theirs (`triage(...)`,
`triage_requests`), answering `question` by default.
Strict where the API is: a field the SDK's request types do not list (and the removed
sampling parameters), malformed `thinking` or `effort`, more than four cache breakpoints,
thinking blocks sent back unsigned get a 400. `POST /v1/messages/count_tokens` counts a
request's input (`counted` keeps the bodies) and refuses what it does not take.
A reply may think first (`Reply.thinking`, shown as a thinking block unless thinking is
disabled); thinking tokens count toward max_tokens, and a reply that does not fit is cut
with stop_reason "max_tokens".
Prompt-cache usage is simulated per breakpoint: a prefix up to a `cache_control` block is a
cache write the first time it is seen and a cache read afterwards, if it is at least the
model's caching minimum (`tests/fakes/models.py`; `min_cache_tokens` overrides it).
Tools: a reply may call tools (`tool_use(ToolCall(name, input), ...)`: tool_use blocks and
stop_reason "tool_use", streamed as content_block_start, input_json_delta events and
content_block_stop). What the API refuses in tools, tool pairing, images and documents is in
tests/fakes/anthropic_blocks.py. Text blocks may cite documents (`DocCite`: char_location,
page_location or content_block_location, by the cited document's kind).
A scripted reply the real model could not give for that request (a tool not in `tools`, a
tool call `tool_choice` forbids, a citation of a document or search result the request does
not hold or whose citations are off) is answered with a 400 naming the mistake and noted in
`misscripted`: a test that scripts it fails loudly instead of passing on an impossible reply.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from anthropic.types.message_count_tokens_params import MessageCountTokensParams
from anthropic.types.message_create_params import MessageCreateParamsStreaming

from tests.fakes.anthropic_blocks import (
    MAX_REQUEST_BYTES,
    documents,
    refused,
    search_results,
    too_large,
)
from tests.fakes.models import EFFORTS, MODELS
from tests.fakes.server import LoopbackServer

__all__ = ["search_results"]  # re-exported: tests read a request's search results


@dataclass(frozen=True)
class Cite:
    """A search-result citation on one text block, as the API writes it."""

    source: str
    cited_text: str
    title: str = ""
    index: int = 0  # search_result_index

    def wire(self, request: dict[str, Any] | None = None) -> dict[str, Any]:
        return {
            "type": "search_result_location",
            "source": self.source,
            "title": self.title or None,
            "cited_text": self.cited_text,
            "search_result_index": self.index,
            "start_block_index": 0,
            "end_block_index": 1,
        }


@dataclass(frozen=True)
class DocCite:
    """A citation of a document block, as the API writes it for that document's kind:
    char_location for a text document (characters start..end, found from cited_text when
    not given), page_location for a PDF (pages start..end, end exclusive, 1-based; default
    page 1), content_block_location for a content document (blocks start..end, exclusive)."""

    document: int  # document_index: among the request's document blocks, in order
    cited_text: str
    start: int | None = None
    end: int | None = None

    def wire(self, request: dict[str, Any]) -> dict[str, Any]:
        doc = documents(request)[self.document]
        source = doc["source"]
        common = {
            "cited_text": self.cited_text,
            "document_index": self.document,
            "document_title": doc.get("title"),
        }
        if source["type"] == "text":
            found = max(0, source["data"].find(self.cited_text))
            start = found if self.start is None else self.start
            end = start + len(self.cited_text) if self.end is None else self.end
            return {
                "type": "char_location",
                **common,
                "start_char_index": start,
                "end_char_index": end,
            }
        if source["type"] == "base64":
            start = 1 if self.start is None else self.start
            end = start + 1 if self.end is None else self.end
            return {
                "type": "page_location",
                **common,
                "start_page_number": start,
                "end_page_number": end,
            }
        start = 0 if self.start is None else self.start
        end = start + 1 if self.end is None else self.end
        return {
            "type": "content_block_location",
            **common,
            "start_block_index": start,
            "end_block_index": end,
        }


Citation = Cite | DocCite


@dataclass(frozen=True)
class Block:
    text: str
    citations: tuple[Citation, ...] = ()


@dataclass(frozen=True)
class ToolCall:
    """One tool_use block of a scripted reply; the id is made up (toolu_…) when not given."""

    name: str
    input: dict[str, Any] = field(default_factory=dict)
    id: str = ""


@dataclass(frozen=True)
class Reply:
    text: str
    stop_reason: str = "end_turn"
    delay: float = 0.0  # seconds before the first byte
    chunk: int = 40  # characters per text_delta
    blocks: tuple[Block, ...] = ()  # when set, the content blocks (text is their join)
    thinking: str = ""  # thought before answering, unless the request disables thinking
    tools: tuple[ToolCall, ...] = ()  # tool_use blocks after the text (see `tool_use()`)

    @property
    def content(self) -> tuple[Block, ...]:
        if self.blocks or (self.tools and not self.text):
            return self.blocks
        return (Block(self.text),)


def cited(*parts: str | tuple[str, Citation]) -> Reply:
    """A reply of text blocks; a (text, Cite) part is a block citing a search result, a
    (text, DocCite) part one citing a document."""
    blocks = tuple(Block(p) if isinstance(p, str) else Block(p[0], (p[1],)) for p in parts)
    return Reply("".join(b.text for b in blocks), blocks=blocks)


def tool_use(*calls: ToolCall, text: str = "") -> Reply:
    """A turn that calls tools: optional text first, then one tool_use block per call, and
    stop_reason "tool_use" (the caller answers with tool_result blocks)."""
    return Reply(text, stop_reason="tool_use", tools=calls)


def tool_uses(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_use blocks a request sends back (the assistant turns), in order."""
    return [
        b
        for m in request.get("messages", [])
        if m["role"] == "assistant"
        for b in (m["content"] if isinstance(m["content"], list) else [])
        if b.get("type") == "tool_use"
    ]


def tool_results(request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The tool_result blocks of a request, by the tool_use id each answers."""
    return {
        b["tool_use_id"]: b
        for m in request.get("messages", [])
        if m["role"] == "user"
        for b in (m["content"] if isinstance(m["content"], list) else [])
        if b.get("type") == "tool_result"
    }


@dataclass(frozen=True)
class Fail:
    status: int
    error_type: str = "api_error"
    retry_after_ms: int = 1
    message: str = "scripted failure"
    retry_after: str = ""  # a `retry-after` header: seconds or an HTTP date
    details: dict[str, Any] | None = None  # the error's `details` (an error_code), if any


@dataclass(frozen=True)
class StreamError:
    error_type: str = "overloaded_error"
    partial: str = "a partial draft that must never be shown"


@dataclass(frozen=True)
class Hang:
    seconds: float


@dataclass(frozen=True)
class Drop:
    """The connection closes before any answer (a connection reset)."""


@dataclass(frozen=True)
class Cut:
    """A 200 stream that starts a draft, then the connection closes mid-stream."""

    partial: str = "a partial draft that must never be shown"


Item = Reply | Fail | StreamError | Hang | Drop | Cut


def judgement(
    passed: bool,
    score: int,
    *codes: str,
    message: str = "The rollback command is invented.",
    thinking: str = "",
) -> Reply:
    """The judge's structured reply (a JSON Judgement), passing or naming issue codes."""
    issues = [{"code": code, "message": message} for code in codes]
    fixes = ["Remove the invented command."] if codes else []
    body = {"passed": passed, "score": score, "issues": issues, "required_fixes": fixes}
    return Reply(json.dumps(body), thinking=thinking)


PASSING = judgement(True, 90)


def decided(category: str) -> Reply:
    """Triage's structured reply (app/agent/question.py): a message's category."""
    return Reply(json.dumps({"category": category}))


QUESTION = decided("question")
NOTHING_SCRIPTED = Fail(400, "invalid_request_error", 0, "fake: nothing scripted")
REMOVED = ("temperature", "top_p", "top_k")  # removed by API version 2026-10-21


def _fields(params: Any) -> frozenset[str]:
    return frozenset(params.__required_keys__ | params.__optional_keys__)


# What each endpoint takes: the SDK's own request types; any other field gets a 400.
MESSAGE_FIELDS = _fields(MessageCreateParamsStreaming)
COUNT_FIELDS = _fields(MessageCountTokensParams)


def refusal(body: dict[str, Any], fields: frozenset[str] = MESSAGE_FIELDS) -> Fail | None:
    """The error the real API would answer this request with, or None: 404 for a model it
    does not serve, 400 for a request it or the model refuses."""
    model = MODELS.get(body.get("model", ""))
    if model is None:
        return Fail(404, "not_found_error", 0, f"model: {body.get('model')}")
    reason = _refused(body, fields) or model.refuses(body)
    if reason is not None:
        return Fail(400, "invalid_request_error", 0, reason)
    content = refused(body)
    if content is not None:
        return Fail(
            content.status, "invalid_request_error", 0, content.message, details=content.details
        )
    schema = _schema_refused(body)
    return Fail(400, "invalid_request_error", 0, schema) if schema is not None else None


def _refused(body: dict[str, Any], fields: frozenset[str]) -> str | None:
    removed = [name for name in REMOVED if name in body] or sorted(set(body) - fields)
    if removed:
        return f"{removed[0]}: Extra inputs are not permitted"
    thinking = body.get("thinking")
    if thinking is not None:
        kind = thinking.get("type")
        if kind not in ("enabled", "adaptive", "disabled"):
            return "thinking.type: Input should be 'enabled', 'adaptive' or 'disabled'"
        budget = thinking.get("budget_tokens")
        if kind == "enabled" and not (
            isinstance(budget, int) and 1024 <= budget < body.get("max_tokens", 1 << 30)
        ):
            return "thinking.budget_tokens: must be >= 1024 and less than max_tokens"
    effort = (body.get("output_config") or {}).get("effort")
    if effort is not None and effort not in EFFORTS:
        return "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'"
    if len(_breakpoint_prefixes(body)) > 4:
        return "A maximum of 4 blocks with cache_control may be provided."
    return _thinking_sent_back(body)


def _schema_refused(body: dict[str, Any]) -> str | None:
    """Structured outputs take a JSON schema whose every object says
    `additionalProperties: false` (the SDK's transform_schema writes it for that reason)."""
    output = (body.get("output_config") or {}).get("format")
    if output is None:
        return None
    if output.get("type") != "json_schema" or not isinstance(output.get("schema"), dict):
        return "output_config.format: a json_schema with a schema is required"
    for where, node in _objects(output["schema"], "schema"):
        if node.get("additionalProperties") is not False:
            return f"output_config.format.{where}: additionalProperties must be false"
    return None


def _objects(node: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each object schema within a schema, with where it is."""
    if not isinstance(node, dict):
        return
    if node.get("type") == "object":
        yield where, node
    for key in ("properties", "$defs", "definitions"):
        for name, child in (node.get(key) or {}).items():
            yield from _objects(child, f"{where}.{key}.{name}")
    for key in ("items", "anyOf", "oneOf", "allOf"):
        children = node.get(key)
        for n, child in enumerate(children if isinstance(children, list) else [children]):
            yield from _objects(child, f"{where}.{key}.{n}")


def _off_schema(value: Any, schema: dict[str, Any], root: dict[str, Any]) -> str | None:
    """Where `value` breaks `schema` (types, enums, required and extra keys), or None: a
    reply under structured outputs cannot (constrained decoding)."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = (root.get("$defs") or root.get("definitions") or {}).get(name, {})
    if "enum" in schema and value not in schema["enum"]:
        return f"{value!r} is not one of {schema['enum']}"
    wrong = _wrong_type(value, schema.get("type"))
    if wrong is None and isinstance(value, dict):
        wrong = _wrong_keys(value, schema, root)
    if wrong is None and isinstance(value, list):
        found = (_off_schema(item, schema.get("items") or {}, root) for item in value)
        wrong = next((w for w in found if w is not None), None)
    return wrong


def _wrong_type(value: Any, kind: Any) -> str | None:
    kinds: dict[str, type] = {
        "object": dict,
        "array": list,
        "string": str,
        "boolean": bool,
        "null": type(None),
    }
    numbers: dict[str, type | tuple[type, ...]] = {"integer": int, "number": (int, float)}
    if kind in numbers and (isinstance(value, bool) or not isinstance(value, numbers[kind])):
        return f"{value!r} is not an {kind}"
    if kind in kinds and not isinstance(value, kinds[kind]):
        return f"{value!r} is not a {kind}"
    return None


def _wrong_keys(value: dict[str, Any], schema: dict[str, Any], root: dict[str, Any]) -> str | None:
    properties = schema.get("properties") or {}
    missing = [k for k in schema.get("required") or () if k not in value]
    closed = schema.get("additionalProperties") is False
    extra = [k for k in value if k not in properties] if closed else []
    if missing or extra:
        return f"keys missing {missing} or not in the schema {extra}"
    for key, item in value.items():
        wrong = _off_schema(item, properties.get(key, {}), root)
        if wrong:
            return f"{key}: {wrong}"
    return None


def _thinking_sent_back(body: dict[str, Any]) -> str | None:
    """A thinking block sent back must be the model's own, signed, in an assistant turn."""
    for n, message in enumerate(body.get("messages", [])):
        content = message["content"]
        for m, block in enumerate(content if isinstance(content, list) else []):
            if block.get("type") != "thinking":
                continue
            if message["role"] != "assistant":
                return f"messages.{n}.content.{m}: thinking is only allowed in assistant turns"
            if block.get("signature") != SIGNATURE:
                return f"messages.{n}.content.{m}: Invalid `signature` in `thinking` block"
    return None


def misscripted(item: Reply, body: dict[str, Any]) -> str | None:
    """Why the real model could not give this scripted reply to this request, or None."""
    return next(_mistakes(item, body), None)


def _structured(item: Reply, body: dict[str, Any]) -> Iterator[str]:
    """A whole structured reply (not one cut at max_tokens) that breaks its schema."""
    output = (body.get("output_config") or {}).get("format") or {}
    if not output.get("schema") or fitted(item, body)[2] == "max_tokens":
        return
    try:
        wrong = _off_schema(json.loads(item.text), output["schema"], output["schema"])
    except ValueError:
        wrong = "not JSON"
    if wrong is not None:
        yield f"a structured reply off its schema: {wrong}"


def _mistakes(item: Reply, body: dict[str, Any]) -> Iterator[str]:
    yield from _structured(item, body)
    names = [tool["name"] for tool in body.get("tools") or []]
    choice = body.get("tool_choice") or {"type": "auto"}
    calls = [] if item.stop_reason != "tool_use" else list(item.tools)
    if item.tools and item.stop_reason != "tool_use":
        yield "a reply with tool calls must stop with stop_reason 'tool_use'"
    if item.stop_reason == "tool_use" and not item.tools:
        yield "stop_reason 'tool_use' without a tool call"
    for call in calls:
        if call.name not in names:
            yield f"tool_use of {call.name!r}, which is not in the request's tools"
        if not isinstance(call.input, dict):
            yield f"tool_use of {call.name!r} with an input that is not an object"
    if choice["type"] == "none" and calls:
        yield "tool_use although tool_choice is 'none'"
    if choice["type"] in ("any", "tool") and not calls:
        yield f"no tool_use although tool_choice is {choice['type']!r}"
    if choice["type"] == "tool" and any(call.name != choice["name"] for call in calls):
        yield f"tool_use of another tool than tool_choice names ({choice['name']!r})"
    if choice.get("disable_parallel_tool_use") and len(calls) > 1:
        yield "more than one tool_use although disable_parallel_tool_use is set"
    ids = [call.id for call in calls if call.id]
    if len(set(ids)) < len(ids):
        yield "two tool_use blocks with the same id"
    yield from _miscited(item, body)


def _miscited(item: Reply, body: dict[str, Any]) -> Iterator[str]:
    docs, results = documents(body), search_results(body)
    for citation in (c for block in item.content for c in block.citations):
        if isinstance(citation, DocCite):
            if not 0 <= citation.document < len(docs):
                yield f"a citation of document {citation.document}; the request has {len(docs)}"
            if not (docs[citation.document].get("citations") or {}).get("enabled"):
                yield f"a citation of document {citation.document}, whose citations are off"
        else:
            if not 0 <= citation.index < len(results):
                yield f"a citation of search result {citation.index}; there are {len(results)}"
            if not (results[citation.index].get("citations") or {}).get("enabled"):
                yield f"a citation of search result {citation.index}, whose citations are off"


def is_judge(body: dict[str, Any]) -> bool:
    return "format" in (body.get("output_config") or {}) and not is_triage(body)


def is_triage(body: dict[str, Any]) -> bool:
    """A help channel's triage request: structured output of one `category`."""
    schema = ((body.get("output_config") or {}).get("format") or {}).get("schema") or {}
    return set(schema.get("properties") or ()) == {"category"}


def fitted(item: Reply, body: dict[str, Any]) -> tuple[str, str, str | None]:
    """(thinking, text, stop_reason) as the API would give them under max_tokens: thinking
    comes first and counts toward the limit; a reply that does not fit is cut."""
    thinking = "" if (body.get("thinking") or {}).get("type") == "disabled" else item.thinking
    room = body["max_tokens"] * 4 - len(thinking)
    if room < 0:
        return thinking[: body["max_tokens"] * 4], "", "max_tokens"
    if len(item.text) > room:
        return thinking, item.text[:room], "max_tokens"
    return thinking, item.text, item.stop_reason


@dataclass(eq=False)
class FakeAnthropic(LoopbackServer):
    script: deque[Item] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    raw: list[bytes] = field(default_factory=list)  # every draft request's body as sent
    default: Item | None = None  # served when the script is empty
    responder: Callable[[dict[str, Any]], Item] | None = None  # picks an item per request
    min_cache_tokens: int | None = None  # None: the model's minimum (1,024+ tokens)
    judge_script: deque[Item] = field(default_factory=deque)
    judge_requests: list[dict[str, Any]] = field(default_factory=list)
    judge_raw: list[bytes] = field(default_factory=list)
    model_lookups: list[str] = field(default_factory=list)  # GET /v1/models/{id}, in order
    models_api: bool = True  # False: a gateway that serves only the Messages API (404s)
    counted: list[dict[str, Any]] = field(default_factory=list)  # count_tokens bodies
    judge_default: Item | None = PASSING  # served to the judge when its script is empty
    judge_responder: Callable[[dict[str, Any]], Item] | None = None  # else this decides
    triage_script: deque[Item] = field(default_factory=deque)
    triage_requests: list[dict[str, Any]] = field(default_factory=list)
    triage_default: Item | None = QUESTION  # served to triage when its script is empty
    triage_responder: Callable[[dict[str, Any]], Item] | None = None  # else this decides
    max_body: int = 2 * MAX_REQUEST_BYTES  # room to see, and refuse, a body over 32 MB
    misscripted: list[str] = field(default_factory=list)  # scripted replies no model could give
    _seen_prefixes: set[str] = field(default_factory=set)
    _tool_ids: int = 0  # tool_use ids handed out, for unique made-up ids

    def push(self, *items: Item) -> None:
        self.script.extend(items)

    def judge(self, *items: Item) -> None:
        """Script the judge's next replies."""
        self.judge_script.extend(items)

    def triage(self, *items: Item) -> None:
        """Script help-channel triage's next replies."""
        self.triage_script.extend(items)

    def reset(self) -> None:
        self.script.clear()
        self.triage_script.clear()
        self.triage_requests.clear()
        self.triage_default = QUESTION
        self.triage_responder = None
        self.requests.clear()
        self.raw.clear()
        self.judge_script.clear()
        self.judge_requests.clear()
        self.judge_raw.clear()
        self.model_lookups.clear()
        self.models_api = True
        self._seen_prefixes.clear()
        self.default = None
        self.responder = None
        self.judge_default = PASSING
        self.judge_responder = None
        self.min_cache_tokens = None
        self.counted.clear()
        self.misscripted.clear()

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/messages", self._messages)
        app.router.add_post("/v1/messages/count_tokens", self._count_tokens)
        app.router.add_get("/v1/models/{model_id}", self._model)

    async def _model(self, request: web.Request) -> web.Response:
        """GET /v1/models/{id}: the model's ModelInfo with its capabilities, or a 404."""
        model_id = request.match_info["model_id"]
        self.model_lookups.append(model_id)
        if not self.models_api:  # no such route: a plain 404, not the API's error
            return web.Response(status=404, text="404: Not Found")
        model = MODELS.get(model_id)
        if model is None:
            return _error(404, "not_found_error", f"model: {model_id}", 0)
        return web.json_response(model.info(model_id))

    async def _count_tokens(self, request: web.Request) -> web.Response:
        """POST /v1/messages/count_tokens: the input tokens the request would use."""
        raw = await request.read()
        body = json.loads(raw)
        self.counted.append(body)
        failed = _too_large(raw) or refusal(body, COUNT_FIELDS)
        if failed is not None:
            return _error(
                failed.status, failed.error_type, failed.message, 0, details=failed.details
            )
        return web.json_response({"input_tokens": input_tokens(body)})

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        return await self.answer(request, raw, json.loads(raw))

    async def answer(
        self, request: web.Request, raw: bytes, body: dict[str, Any]
    ) -> web.StreamResponse:
        """Answer a Messages request `body` (with `model`, and `stream` when it streams):
        what the platform fakes (tests/fakes/platforms.py) call once they have checked
        their own wire format and put the request back in the first-party shape."""
        if not is_triage(body):
            (self.judge_raw if is_judge(body) else self.raw).append(raw)
        item = _too_large(raw) or refusal(body) or self._next(body) or NOTHING_SCRIPTED
        if isinstance(item, Reply):
            item = self._identified(item)
            mistake = misscripted(item, body)
            if mistake is not None:
                self.misscripted.append(mistake)
                item = Fail(400, "invalid_request_error", 0, f"fake: misscripted: {mistake}")
        if isinstance(item, Fail):
            return self.failed(item)
        if isinstance(item, Drop):
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=500)
        if isinstance(item, Hang):
            await asyncio.sleep(item.seconds)
            return _error(500, "api_error", "hung", 0)
        usage = self._usage(body, item.text if isinstance(item, Reply) else "")
        if isinstance(item, Reply) and item.delay:
            await asyncio.sleep(item.delay)
        if not body.get("stream"):
            assert isinstance(item, Reply), "only replies can be non-streaming"
            thinking, text, stop_reason = fitted(item, body)
            calls = item.tools if stop_reason == "tool_use" else ()
            usage["output_tokens"] = _output_tokens(thinking, text, calls)
            message = _message(body, text, stop_reason, usage)
            blocks = item.content if text == item.text else (Block(text),)
            message["content"] = [
                *([_thinking(thinking)] if thinking else []),
                *(_block(block, body) for block in blocks),
                *(_tool_use(call) for call in calls),
            ]
            return web.json_response(message)
        return await self._stream(request, body, item, usage)

    def failed(self, item: Fail) -> web.Response:
        """The HTTP error for a refusal or a scripted failure, as this API writes it."""
        return _error(
            item.status,
            item.error_type,
            item.message,
            item.retry_after_ms,
            retry_after=item.retry_after,
            details=item.details,
        )

    stream_type = "text/event-stream"

    async def event(self, response: web.StreamResponse, name: str, data: dict[str, Any]) -> None:
        """Write one stream event: server-sent events here; Bedrock frames them its way."""
        await _event(response, name, data)

    def _identified(self, item: Reply) -> Reply:
        """The reply with an id on each tool call that has none (toolu_…, unique)."""
        calls = []
        for call in item.tools:
            if call.id:
                calls.append(call)
                continue
            self._tool_ids += 1
            calls.append(ToolCall(call.name, call.input, f"toolu_fake{self._tool_ids:08d}"))
        return dataclasses.replace(item, tools=tuple(calls))

    def _next(self, body: dict[str, Any]) -> Item | None:
        if is_triage(body):
            self.triage_requests.append(body)
            return _pick(self.triage_script, self.triage_responder, self.triage_default, body)
        if is_judge(body):
            self.judge_requests.append(body)
            return _pick(self.judge_script, self.judge_responder, self.judge_default, body)
        self.requests.append(body)
        return _pick(self.script, self.responder, self.default, body)

    async def _stream(
        self, request: web.Request, body: dict[str, Any], item: Item, usage: dict[str, int]
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={"content-type": self.stream_type})
        await response.prepare(request)
        opening = _message(body, "", None, {**usage, "output_tokens": 1})
        opening["content"] = []
        await self.event(response, "message_start", {"type": "message_start", "message": opening})
        await self.event(response, "ping", {"type": "ping"})
        if isinstance(item, StreamError | Cut):
            empty = _block_start(0, _block(Block(""), body))
            await self.event(response, "content_block_start", empty)
            await _deltas(self.event, response, 0, "text", item.partial, chunk=8)
            if isinstance(item, Cut):
                if request.transport is not None:
                    request.transport.close()
                return response
            error = {"type": "error", "error": {"type": item.error_type, "message": "Overloaded"}}
            await self.event(response, "error", error)
            return response
        assert isinstance(item, Reply)
        thinking, text, stop_reason = fitted(item, body)
        blocks = item.content if text == item.text else (Block(text),)
        first = 0
        if thinking:
            await self.event(response, "content_block_start", _block_start(0, _thinking("")))
            await _deltas(self.event, response, 0, "thinking", thinking, chunk=item.chunk)
            signed = {"type": "signature_delta", "signature": SIGNATURE}
            await self.event(response, "content_block_delta", _delta(0, signed))
            stop = {"type": "content_block_stop", "index": 0}
            await self.event(response, "content_block_stop", stop)
            first = 1
        for index, block in enumerate(blocks, first):
            start: dict[str, Any] = {"type": "text", "text": ""}
            if block.citations:
                start["citations"] = []
            await self.event(response, "content_block_start", _block_start(index, start))
            for citation in block.citations:
                delta = {"type": "citations_delta", "citation": citation.wire(body)}
                await self.event(response, "content_block_delta", _delta(index, delta))
            await _deltas(self.event, response, index, "text", block.text, chunk=item.chunk)
            stop = {"type": "content_block_stop", "index": index}
            await self.event(response, "content_block_stop", stop)
        calls = item.tools if stop_reason == "tool_use" else ()
        for index, call in enumerate(calls, first + len(blocks)):
            await self.event(
                response,
                "content_block_start",
                _block_start(index, {**_tool_use(call), "input": {}}),
            )
            arguments = json.dumps(call.input)
            for at in range(0, len(arguments), item.chunk):
                delta = {
                    "type": "input_json_delta",
                    "partial_json": arguments[at : at + item.chunk],
                }
                await self.event(response, "content_block_delta", _delta(index, delta))
            stop = {"type": "content_block_stop", "index": index}
            await self.event(response, "content_block_stop", stop)
        end = {"stop_reason": stop_reason, "stop_sequence": None}
        usage["output_tokens"] = _output_tokens(thinking, text, calls)
        delta_usage = {"output_tokens": usage["output_tokens"]}
        await self.event(
            response, "message_delta", {"type": "message_delta", "delta": end, "usage": delta_usage}
        )
        await self.event(response, "message_stop", {"type": "message_stop"})
        return response

    def _usage(self, body: dict[str, Any], text: str) -> dict[str, int]:
        """Prompt caching as the API documents it: a prefix is written at a breakpoint once
        it is long enough; a request reads the longest prefix written before that ends at a
        block boundary up to 20 blocks before one of its breakpoints; the rest is input."""
        total = input_tokens(body)
        keys, breakpoints = _prefixes(body)
        minimum = self.min_cache_tokens
        if minimum is None:
            minimum = MODELS[body["model"]].min_cache_tokens
        long_enough = [keys[at] for at in breakpoints if len(keys[at]) // 4 >= minimum]
        read = 0
        for at in breakpoints:
            earlier = (keys[i] for i in range(at, max(-1, at - LOOKBACK), -1))
            hit = next((key for key in earlier if key in self._seen_prefixes), "")
            read = max(read, len(hit) // 4)
        written = max((len(key) // 4 for key in long_enough), default=0)
        self._seen_prefixes.update(long_enough)
        return {
            "input_tokens": max(0, total - max(read, written)),
            "output_tokens": max(1, len(text) // 4),
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": max(0, written - read),
        }


LOOKBACK = 20  # block boundaries the API checks for a cache hit before each breakpoint


def input_tokens(body: dict[str, Any]) -> int:
    """The fake's token count of a request's input: its system and messages, 4 characters
    a token (the real tokenizer cannot run here; bench.loop can ask the real API)."""
    return len(json.dumps([body.get("system"), body.get("messages")])) // 4


def _prefixes(body: dict[str, Any]) -> tuple[list[str], list[int]]:
    """The cache key of everything up to each block boundary (the model and the blocks,
    without their cache_control marks), and which boundaries are breakpoints."""
    parts: list[Any] = [body.get("model")]
    keys: list[str] = []
    breakpoints: list[int] = []
    system = body.get("system") or []
    blocks = [(None, block) for block in ([system] if isinstance(system, str) else system)]
    for message in body.get("messages", []):
        content = message["content"]
        blocks += [
            (message["role"], b) for b in (content if isinstance(content, list) else [content])
        ]
    for role, block in blocks:
        marked = isinstance(block, dict) and "cache_control" in block
        plain = (
            {k: v for k, v in block.items() if k != "cache_control"}
            if isinstance(block, dict) and marked
            else block
        )
        parts.append([role, plain])
        keys.append(json.dumps(parts))
        if marked:
            breakpoints.append(len(keys) - 1)
    return keys, breakpoints


def _breakpoint_prefixes(body: dict[str, Any]) -> list[str]:
    """The cache keys at each breakpoint (what the 4-breakpoint limit counts)."""
    keys, breakpoints = _prefixes(body)
    return [keys[at] for at in breakpoints]


def _message(
    body: dict[str, Any], text: str, stop_reason: str | None, usage: dict[str, int]
) -> dict[str, Any]:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "fake"),
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage,
    }


def _pick(
    script: deque[Item],
    responder: Callable[[dict[str, Any]], Item] | None,
    default: Item | None,
    body: dict[str, Any],
) -> Item | None:
    """The next scripted item, else the responder's, else the default."""
    if script:
        return script.popleft()
    return responder(body) if responder is not None else default


SIGNATURE = "fake-signature"  # what the fake signs its thinking with


def _thinking(thinking: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": thinking, "signature": SIGNATURE}


def _block(block: Block, body: dict[str, Any]) -> dict[str, Any]:
    wire: dict[str, Any] = {"type": "text", "text": block.text}
    if block.citations:
        wire["citations"] = [citation.wire(body) for citation in block.citations]
    return wire


def _tool_use(call: ToolCall) -> dict[str, Any]:
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": call.input}


def _output_tokens(thinking: str, text: str, calls: tuple[ToolCall, ...]) -> int:
    arguments = sum(len(json.dumps(call.input)) + len(call.name) for call in calls)
    return max(1, (len(thinking) + len(text) + arguments) // 4)


def _too_large(raw: bytes) -> Fail | None:
    """413 for a body over the Messages API's 32 MB."""
    big = too_large(raw)
    return None if big is None else Fail(big.status, "request_too_large", 0, big.message)


def _block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


Write = Callable[[web.StreamResponse, str, dict[str, Any]], Awaitable[None]]


async def _deltas(
    write: Write, response: web.StreamResponse, index: int, kind: str, text: str, *, chunk: int
) -> None:
    """A block's text or thinking, streamed `chunk` characters a delta."""
    for at in range(0, len(text), chunk):
        delta = {"type": f"{kind}_delta", kind: text[at : at + chunk]}
        await write(response, "content_block_delta", _delta(index, delta))


async def _event(response: web.StreamResponse, name: str, data: dict[str, Any]) -> None:
    await response.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())


def _error(
    status: int,
    error_type: str,
    message: str,
    retry_after_ms: int,
    *,
    retry_after: str = "",
    details: dict[str, Any] | None = None,
) -> web.Response:
    error: dict[str, Any] = {"type": error_type, "message": message}
    if details is not None:
        error["details"] = details
    body = {"type": "error", "error": error}
    headers = {"retry-after-ms": str(retry_after_ms)} if retry_after_ms else {}
    if retry_after:
        headers["retry-after"] = retry_after
    return web.json_response(body, status=status, headers=headers)


@dataclass(frozen=True)
class JudgeInput:
    """What a judge request showed: the thread's turns, the sources, the message, the answer."""

    thread: list[dict[str, str]]
    sources: list[dict[str, Any]]
    message: str
    answer: str


def judge_input(request: dict[str, Any]) -> JudgeInput:
    blocks = [json.loads(block["text"]) for block in request["messages"][0]["content"]]
    latest = blocks.pop()
    sources = blocks.pop()["sources"] if blocks and "sources" in blocks[-1] else []
    return JudgeInput(blocks, sources, latest["message"], latest["answer"])
