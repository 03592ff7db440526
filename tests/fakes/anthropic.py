"""A loopback Anthropic Messages API speaking the real wire format, scripted per test.

`POST /v1/messages` pops the next scripted item: a `Reply` (an SSE stream when the request
asks to stream, a JSON message otherwise), a `Fail` (an HTTP error body), a `StreamError`
(a 200 stream that breaks with an `error` event) or a `Hang`. Every request body is kept.
Prompt-cache usage is simulated per breakpoint: a prefix up to a `cache_control` block is a
cache write the first time it is seen and a cache read afterwards.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.server import LoopbackServer


@dataclass(frozen=True)
class Reply:
    text: str
    stop_reason: str = "end_turn"
    delay: float = 0.0  # seconds before the first byte
    chunk: int = 40  # characters per text_delta


@dataclass(frozen=True)
class Fail:
    status: int
    error_type: str = "api_error"
    retry_after_ms: int = 1


@dataclass(frozen=True)
class StreamError:
    error_type: str = "overloaded_error"
    partial: str = "a partial draft that must never be shown"


@dataclass(frozen=True)
class Hang:
    seconds: float


Item = Reply | Fail | StreamError | Hang


def judgement(
    passed: bool, score: int, *codes: str, message: str = "The rollback command is invented."
) -> Reply:
    """The judge's structured reply (a JSON Judgement), passing or naming issue codes."""
    issues = [{"code": code, "message": message} for code in codes]
    fixes = ["Remove the invented command."] if codes else []
    body = {"passed": passed, "score": score, "issues": issues, "required_fixes": fixes}
    return Reply(json.dumps(body))


@dataclass(eq=False)
class FakeAnthropic(LoopbackServer):
    script: deque[Item] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    raw: list[bytes] = field(default_factory=list)  # every request body as sent
    default: Item | None = None  # served when the script is empty
    responder: Callable[[dict[str, Any]], Item] | None = None  # picks an item per request
    min_cache_tokens: int = 0  # the real API caches prefixes of 1,024+ tokens (Sonnet)
    _seen_prefixes: set[str] = field(default_factory=set)

    def push(self, *items: Item) -> None:
        self.script.extend(items)

    def reset(self) -> None:
        self.script.clear()
        self.requests.clear()
        self.raw.clear()
        self._seen_prefixes.clear()
        self.default = None

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/messages", self._messages)

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        body = json.loads(raw)
        self.raw.append(raw)
        self.requests.append(body)
        if self.script:
            item: Item | None = self.script.popleft()
        elif self.responder is not None:
            item = self.responder(body)
        else:
            item = self.default
        if item is None:
            return _error(400, "invalid_request_error", "fake: nothing scripted", 0)
        if isinstance(item, Fail):
            return _error(item.status, item.error_type, "scripted failure", item.retry_after_ms)
        if isinstance(item, Hang):
            await asyncio.sleep(item.seconds)
            return _error(500, "api_error", "hung", 0)
        usage = self._usage(body, item.text if isinstance(item, Reply) else "")
        if isinstance(item, Reply) and item.delay:
            await asyncio.sleep(item.delay)
        if not body.get("stream"):
            assert isinstance(item, Reply), "only replies can be non-streaming"
            return web.json_response(_message(body, item.text, item.stop_reason, usage))
        return await self._stream(request, body, item, usage)

    async def _stream(
        self, request: web.Request, body: dict[str, Any], item: Item, usage: dict[str, int]
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={"content-type": "text/event-stream"})
        await response.prepare(request)
        start = _message(body, "", None, {**usage, "output_tokens": 1})
        start["content"] = []
        await _event(response, "message_start", {"type": "message_start", "message": start})
        await _event(response, "ping", {"type": "ping"})
        block = {"type": "text", "text": ""}
        await _event(response, "content_block_start", _block_start(block))
        text = item.text if isinstance(item, Reply) else item.partial  # type: ignore[union-attr]
        size = item.chunk if isinstance(item, Reply) else 8
        for at in range(0, len(text), size):
            delta = {"type": "text_delta", "text": text[at : at + size]}
            await _event(response, "content_block_delta", _delta(delta))
        if isinstance(item, StreamError):
            error = {"type": "error", "error": {"type": item.error_type, "message": "Overloaded"}}
            await _event(response, "error", error)
            return response
        assert isinstance(item, Reply)
        await _event(response, "content_block_stop", {"type": "content_block_stop", "index": 0})
        end = {"stop_reason": item.stop_reason, "stop_sequence": None}
        delta_usage = {"output_tokens": usage["output_tokens"]}
        await _event(
            response, "message_delta", {"type": "message_delta", "delta": end, "usage": delta_usage}
        )
        await _event(response, "message_stop", {"type": "message_stop"})
        return response

    def _usage(self, body: dict[str, Any], text: str) -> dict[str, int]:
        """Each breakpoint's prefix is cached once it is long enough; a request reads the
        longest prefix seen before and writes the rest up to its last breakpoint."""
        total = len(json.dumps([body.get("system"), body.get("messages")])) // 4
        prefixes = [p for p in _breakpoint_prefixes(body) if len(p) // 4 >= self.min_cache_tokens]
        read = max((len(p) // 4 for p in prefixes if p in self._seen_prefixes), default=0)
        cached = len(prefixes[-1]) // 4 if prefixes else 0
        self._seen_prefixes.update(prefixes)
        return {
            "input_tokens": total - cached,
            "output_tokens": max(1, len(text) // 4),
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": cached - read,
        }


def _breakpoint_prefixes(body: dict[str, Any]) -> list[str]:
    """The JSON of everything up to each block marked with cache_control, shortest first."""
    parts: list[Any] = []
    prefixes: list[str] = []
    for block in body.get("system") or []:
        parts.append(block)
        if isinstance(block, dict) and "cache_control" in block:
            prefixes.append(json.dumps(parts))
    for message in body.get("messages", []):
        content = message["content"]
        for block in content if isinstance(content, list) else [content]:
            parts.append([message["role"], block])
            if isinstance(block, dict) and "cache_control" in block:
                prefixes.append(json.dumps(parts))
    return prefixes


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


def _block_start(block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": 0, "content_block": block}


def _delta(delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": 0, "delta": delta}


async def _event(response: web.StreamResponse, name: str, data: dict[str, Any]) -> None:
    await response.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())


def _error(status: int, error_type: str, message: str, retry_after_ms: int) -> web.Response:
    body = {"type": "error", "error": {"type": error_type, "message": message}}
    headers = {"retry-after-ms": str(retry_after_ms)} if retry_after_ms else {}
    return web.json_response(body, status=status, headers=headers)
