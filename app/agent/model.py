"""One Claude call, streamed into memory: nothing of it leaves this module but a Draft."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anthropic
import httpx2
from anthropic import AsyncAnthropic, AsyncAnthropicBedrock, AsyncAnthropicVertex, omit

from app.agent.capabilities import Client, Thinking, Want, thinking_for
from app.agent.deadline import RetryPastDeadline, no_wait_past_deadline
from app.errors import Labelled
from app.settings import Settings
from app.verify import Citation

# Errors that mean "not now" rather than "never": the SDK has already retried them.
_TRANSIENT_STATUS = frozenset({408, 409, 429})
# Bedrock's event stream names its own (an `exception` message, which the SDK turns into
# the same `error` event): each says to retry.
_TRANSIENT_STREAM_ERRORS = frozenset(
    {
        "overloaded_error",
        "api_error",
        "modelStreamErrorException",
        "throttlingException",
        "serviceUnavailableException",
        "internalServerException",
    }
)


class CallFailed(Labelled):
    """A model call failed; `reason` is a short fixed label (e.g. "overloaded"), never content."""


class ModelUnavailable(CallFailed):
    """The model could not be reached or stayed overloaded: the user should try again."""


class StreamBroke(ModelUnavailable):
    """The connection failed after the stream began (the SDK does not retry that)."""


class ModelError(CallFailed):
    """The API rejected the request (4xx other than rate limits): retrying will not help."""


@dataclass(frozen=True, slots=True)
class Usage:
    input: int = 0  # uncached input tokens
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    @property
    def total(self) -> int:
        """Every token, cached or not, in and out."""
        return self.input + self.output + self.cache_read + self.cache_write

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
        )


@dataclass(frozen=True, slots=True)
class Request:
    model: str
    max_tokens: int
    system: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    thinking: Want = "light"
    tools: list[dict[str, Any]] | None = None  # definitions the model may call
    last_call: bool = False  # tools are listed (the history holds their use) but not callable
    documents: tuple[str, ...] = ()  # the source id of each document block, in order


@dataclass(frozen=True, slots=True)
class ToolUse:
    """A call the model asked for: its id (to pair the result with), tool, arguments."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Draft:
    text: str
    stop_reason: str | None
    usage: Usage
    citations: tuple[Citation, ...] = ()
    tool_uses: tuple[ToolUse, ...] = ()
    content: tuple[dict[str, Any], ...] = ()  # the response's blocks, to send back as its turn


def make_client(settings: Settings) -> Client:
    """The SDK's client for the provider settings name; its own spans hold no content.
    Bedrock's and Vertex's clients find their credentials as their platforms do (AWS's
    credential chain; Google's application default credentials), so none are settings."""
    common: dict[str, Any] = {
        "timeout": settings.anthropic_timeout,
        "max_retries": settings.anthropic_max_retries,
        "open_telemetry": {"traces": {"content_mode": "metadata_only"}},
        "middleware": [no_wait_past_deadline],
    }
    if settings.anthropic_provider == "bedrock":
        return AsyncAnthropicBedrock(base_url=settings.anthropic_bedrock_base_url, **common)
    if settings.anthropic_provider == "vertex":
        # the settings refuse vertex without either
        assert settings.cloud_ml_region and settings.anthropic_vertex_project_id
        return AsyncAnthropicVertex(
            region=settings.cloud_ml_region,
            project_id=settings.anthropic_vertex_project_id,
            base_url=settings.anthropic_vertex_base_url,
            **common,
        )
    key = settings.anthropic_api_key
    return AsyncAnthropic(
        api_key=key.get_secret_value() if key is not None else None,
        base_url=settings.anthropic_base_url,
        **common,
    )


async def draft(client: Client, request: Request) -> Draft:
    """Stream one response into memory. An overloaded error or a broken connection inside
    the stream, which the SDK does not retry, is retried once here; then the model counts
    as unavailable. Thinking is what the model accepts closest to `request.thinking`."""
    thinking = await thinking_for(client, request.model, request.thinking)
    try:
        return await _stream(client, request, thinking)
    except StreamBroke:
        pass
    except anthropic.APIStatusError as exc:
        if not _transient_stream_error(exc):
            raise _classify(exc) from None
    try:
        return await _stream(client, request, thinking)
    except anthropic.APIStatusError as exc:
        raise _classify(exc) from None


async def _stream(client: Client, request: Request, thinking: Thinking) -> Draft:
    try:
        async with client.messages.stream(
            model=request.model,
            max_tokens=request.max_tokens,
            system=request.system,  # type: ignore[arg-type]
            messages=request.messages,  # type: ignore[arg-type]
            thinking=thinking.config if thinking.config is not None else omit,
            output_config={"effort": thinking.effort} if thinking.effort else omit,
            tools=request.tools or omit,  # type: ignore[arg-type]
            tool_choice={"type": "none"} if request.tools and request.last_call else omit,
        ) as stream:
            final = await stream.get_final_message()
    except RetryPastDeadline as exc:
        raise ModelUnavailable(exc.reason) from None
    except anthropic.APIConnectionError as exc:  # includes APITimeoutError
        reason = "timeout" if isinstance(exc, anthropic.APITimeoutError) else "connection"
        raise ModelUnavailable(reason) from None
    except httpx2.TransportError as exc:  # mid-stream: the SDK's HTTP client, unwrapped
        reason = "timeout" if isinstance(exc, httpx2.TimeoutException) else "connection"
        raise StreamBroke(reason) from None
    # Only text is the draft: thinking blocks are neither verified nor sent back.
    texts = [block for block in final.content if block.type == "text"]
    text = "".join(block.text for block in texts)
    citations = tuple(
        citation_of(c, block.text, request.documents)
        for block in texts
        for c in block.citations or ()
    )
    uses = tuple(
        ToolUse(block.id, block.name, block.input if isinstance(block.input, dict) else {})
        for block in final.content
        if block.type == "tool_use"
    )
    content = tuple(p for p in map(_param_of, final.content) if p is not None) if uses else ()
    return Draft(text, final.stop_reason, usage_of(final.usage), citations, uses, content)


def _param_of(block: Any) -> dict[str, Any] | None:
    """A response block as the request's assistant turn sends it back (before the results
    of the tools it called): thinking with its signature, text, and the tool calls."""
    if block.type == "thinking":
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if block.type == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.data}
    if block.type == "text" and block.text:
        return {"type": "text", "text": block.text}
    if block.type == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    return None


def citation_of(
    citation: anthropic.types.TextCitation, claim: str = "", documents: tuple[str, ...] = ()
) -> Citation:
    """A citation as verification sees it, with the text block that carries it (its claim).
    Search-result citations name the source id we gave; document citations (of a file
    shared) name the id of the document at their index; any other kind (we give no web
    search) names what it points at, or its type, and so matches no source."""
    if citation.type == "search_result_location":
        source = citation.source
    elif citation.type in ("char_location", "page_location", "content_block_location"):
        index = citation.document_index
        source = documents[index] if 0 <= index < len(documents) else citation.type
    elif citation.type == "web_search_result_location":
        source = citation.url
    else:
        source = citation.type
    return Citation(source, getattr(citation, "title", None) or "", citation.cited_text, claim)


def usage_of(usage: anthropic.types.Usage) -> Usage:
    return Usage(
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_input_tokens or 0,
        usage.cache_creation_input_tokens or 0,
    )


def _transient_stream_error(exc: anthropic.APIStatusError) -> bool:
    return exc.status_code == 200 and _error_type(exc) in _TRANSIENT_STREAM_ERRORS


def _classify(exc: anthropic.APIStatusError) -> Exception:
    status = exc.status_code
    if status == 200:
        return ModelUnavailable(_error_type(exc) or "stream_error")
    if status in _TRANSIENT_STATUS or status >= 500:
        return ModelUnavailable("overloaded" if status == 529 else f"status_{status}")
    return ModelError(f"status_{status}")


def _error_type(exc: anthropic.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        kind = body["error"].get("type")
        return kind if isinstance(kind, str) and kind.isidentifier() else ""
    return ""
