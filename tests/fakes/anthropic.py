"""A loopback Anthropic Messages API speaking the real wire format, scripted per test.

`POST /v1/messages` pops the next scripted item: a `Reply` (an SSE stream when the request
asks to stream, a JSON message otherwise; `cited()` builds one whose text blocks carry
search-result citations, streamed as `citations_delta` events), a `Fail` (an HTTP error
body), a `StreamError` (a 200 stream that breaks with an `error` event) or a `Hang`.
Every request body is kept.
Judge requests (structured output: `output_config.format`) have their own script
(`judge(...)`, `judge_requests`) and pass by default, so a test that is not about the judge
sees the default settings at work without scripting it.
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
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from anthropic.types.message_count_tokens_params import MessageCountTokensParams
from anthropic.types.message_create_params import MessageCreateParamsStreaming

from tests.fakes.models import EFFORTS, MODELS
from tests.fakes.server import LoopbackServer


@dataclass(frozen=True)
class Cite:
    """A search-result citation on one text block, as the API writes it."""

    source: str
    cited_text: str
    title: str = ""
    index: int = 0  # search_result_index

    def wire(self) -> dict[str, Any]:
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
class Block:
    text: str
    citations: tuple[Cite, ...] = ()


@dataclass(frozen=True)
class Reply:
    text: str
    stop_reason: str = "end_turn"
    delay: float = 0.0  # seconds before the first byte
    chunk: int = 40  # characters per text_delta
    blocks: tuple[Block, ...] = ()  # when set, the content blocks (text is their join)
    thinking: str = ""  # thought before answering, unless the request disables thinking

    @property
    def content(self) -> tuple[Block, ...]:
        return self.blocks or (Block(self.text),)


def cited(*parts: str | tuple[str, Cite]) -> Reply:
    """A reply of text blocks; a (text, Cite) part is a block citing a search result."""
    blocks = tuple(Block(p) if isinstance(p, str) else Block(p[0], (p[1],)) for p in parts)
    return Reply("".join(b.text for b in blocks), blocks=blocks)


def search_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The search_result blocks of a request, in order (what search_result_index counts)."""
    return [
        block
        for message in request.get("messages", [])
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "search_result"
    ]


@dataclass(frozen=True)
class Fail:
    status: int
    error_type: str = "api_error"
    retry_after_ms: int = 1
    message: str = "scripted failure"
    retry_after: str = ""  # a `retry-after` header: seconds or an HTTP date


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
    return None if reason is None else Fail(400, "invalid_request_error", 0, reason)


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


def is_judge(body: dict[str, Any]) -> bool:
    return "format" in (body.get("output_config") or {})


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
    counted: list[dict[str, Any]] = field(default_factory=list)  # count_tokens bodies
    judge_default: Item | None = PASSING  # served to the judge when its script is empty
    judge_responder: Callable[[dict[str, Any]], Item] | None = None  # else this decides
    _seen_prefixes: set[str] = field(default_factory=set)

    def push(self, *items: Item) -> None:
        self.script.extend(items)

    def judge(self, *items: Item) -> None:
        """Script the judge's next replies."""
        self.judge_script.extend(items)

    def reset(self) -> None:
        self.script.clear()
        self.requests.clear()
        self.raw.clear()
        self.judge_script.clear()
        self.judge_requests.clear()
        self.judge_raw.clear()
        self.model_lookups.clear()
        self._seen_prefixes.clear()
        self.default = None
        self.responder = None
        self.judge_default = PASSING
        self.judge_responder = None
        self.min_cache_tokens = None
        self.counted.clear()

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/messages", self._messages)
        app.router.add_post("/v1/messages/count_tokens", self._count_tokens)
        app.router.add_get("/v1/models/{model_id}", self._model)

    async def _model(self, request: web.Request) -> web.Response:
        """GET /v1/models/{id}: the model's ModelInfo with its capabilities, or a 404."""
        model_id = request.match_info["model_id"]
        self.model_lookups.append(model_id)
        model = MODELS.get(model_id)
        if model is None:
            return _error(404, "not_found_error", f"model: {model_id}", 0)
        return web.json_response(model.info(model_id))

    async def _count_tokens(self, request: web.Request) -> web.Response:
        """POST /v1/messages/count_tokens: the input tokens the request would use."""
        body = await request.json()
        self.counted.append(body)
        failed = refusal(body, COUNT_FIELDS)
        if failed is not None:
            return _error(failed.status, failed.error_type, failed.message, 0)
        return web.json_response({"input_tokens": input_tokens(body)})

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        body = json.loads(raw)
        (self.judge_raw if is_judge(body) else self.raw).append(raw)
        item = refusal(body) or self._next(body) or NOTHING_SCRIPTED
        if isinstance(item, Fail):
            return _error(
                item.status, item.error_type, item.message, item.retry_after_ms, item.retry_after
            )
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
            usage["output_tokens"] = max(1, (len(thinking) + len(text)) // 4)
            message = _message(body, text, stop_reason, usage)
            blocks = item.content if text == item.text else (Block(text),)
            message["content"] = [
                *([_thinking(thinking)] if thinking else []),
                *(_block(block) for block in blocks),
            ]
            return web.json_response(message)
        return await self._stream(request, body, item, usage)

    def _next(self, body: dict[str, Any]) -> Item | None:
        if is_judge(body):
            self.judge_requests.append(body)
            return _pick(self.judge_script, self.judge_responder, self.judge_default, body)
        self.requests.append(body)
        return _pick(self.script, self.responder, self.default, body)

    async def _stream(
        self, request: web.Request, body: dict[str, Any], item: Item, usage: dict[str, int]
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={"content-type": "text/event-stream"})
        await response.prepare(request)
        start = _message(body, "", None, {**usage, "output_tokens": 1})
        start["content"] = []
        await _event(response, "message_start", {"type": "message_start", "message": start})
        await _event(response, "ping", {"type": "ping"})
        if isinstance(item, StreamError | Cut):
            await _event(response, "content_block_start", _block_start(0, _block(Block(""))))
            await _deltas(response, 0, "text", item.partial, 8)
            if isinstance(item, Cut):
                if request.transport is not None:
                    request.transport.close()
                return response
            error = {"type": "error", "error": {"type": item.error_type, "message": "Overloaded"}}
            await _event(response, "error", error)
            return response
        assert isinstance(item, Reply)
        thinking, text, stop_reason = fitted(item, body)
        blocks = item.content if text == item.text else (Block(text),)
        first = 0
        if thinking:
            await _event(response, "content_block_start", _block_start(0, _thinking("")))
            await _deltas(response, 0, "thinking", thinking, item.chunk)
            signed = {"type": "signature_delta", "signature": SIGNATURE}
            await _event(response, "content_block_delta", _delta(0, signed))
            await _event(response, "content_block_stop", {"type": "content_block_stop", "index": 0})
            first = 1
        for index, block in enumerate(blocks, first):
            start: dict[str, Any] = {"type": "text", "text": ""}
            if block.citations:
                start["citations"] = []
            await _event(response, "content_block_start", _block_start(index, start))
            for citation in block.citations:
                delta = {"type": "citations_delta", "citation": citation.wire()}
                await _event(response, "content_block_delta", _delta(index, delta))
            await _deltas(response, index, "text", block.text, item.chunk)
            stop = {"type": "content_block_stop", "index": index}
            await _event(response, "content_block_stop", stop)
        end = {"stop_reason": stop_reason, "stop_sequence": None}
        usage["output_tokens"] = max(1, (len(thinking) + len(text)) // 4)
        delta_usage = {"output_tokens": usage["output_tokens"]}
        await _event(
            response, "message_delta", {"type": "message_delta", "delta": end, "usage": delta_usage}
        )
        await _event(response, "message_stop", {"type": "message_stop"})
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
        plain = {k: v for k, v in block.items() if k != "cache_control"} if marked else block
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


def _block(block: Block) -> dict[str, Any]:
    wire: dict[str, Any] = {"type": "text", "text": block.text}
    if block.citations:
        wire["citations"] = [citation.wire() for citation in block.citations]
    return wire


def _block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


async def _deltas(
    response: web.StreamResponse, index: int, kind: str, text: str, chunk: int
) -> None:
    """A block's text or thinking, streamed `chunk` characters a delta."""
    for at in range(0, len(text), chunk):
        delta = {"type": f"{kind}_delta", kind: text[at : at + chunk]}
        await _event(response, "content_block_delta", _delta(index, delta))


async def _event(response: web.StreamResponse, name: str, data: dict[str, Any]) -> None:
    await response.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())


def _error(
    status: int, error_type: str, message: str, retry_after_ms: int, retry_after: str = ""
) -> web.Response:
    body = {"type": "error", "error": {"type": error_type, "message": message}}
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
