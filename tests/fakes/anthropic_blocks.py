"""What the fake Anthropic API refuses in a request's tools and content blocks, as the real
one does (platform.claude.com docs: define tools, handle tool calls, vision, PDF support,
citations, search results; the wording of the tool pairing errors is the API's own, as
quoted in public bug reports):

- `tools`: a custom tool's name matches ^[a-zA-Z0-9_-]{1,64}$, its input_schema is an
  object schema, names are unique, and it has no field the SDK's ToolParam lacks.
  `tool_choice` is auto, any, tool (naming a tool given) or none, only with tools, and any
  or tool cannot go with thinking on.
- Tool pairing: tool_use only in assistant turns and tool_result only in user turns; every
  tool_use is answered by a tool_result at the start of the next (user) message; every
  tool_result answers a tool_use of the message before; ids are unique; a request carrying
  either needs `tools`.
- Blocks: only the fields of the SDK's block TypedDicts. Images: base64 PNG, JPEG, GIF or
  WebP whose bytes match the declared media type, at most 5 MB each, at most 8000 px a side
  (2000 px with more than 20 images; the API's image_dimensions_too_large error with its
  details), at most 100 a request. Documents: plain text, base64 PDF (bytes that are a PDF,
  at most 100 pages) or content; citations on all documents or none, and never with
  structured output. URL and Files API sources are not served (nothing to fetch here).
- A request body over 32 MB is a 413.
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from anthropic.types.document_block_param import DocumentBlockParam
from anthropic.types.image_block_param import ImageBlockParam
from anthropic.types.redacted_thinking_block_param import RedactedThinkingBlockParam
from anthropic.types.search_result_block_param import SearchResultBlockParam
from anthropic.types.text_block_param import TextBlockParam
from anthropic.types.thinking_block_param import ThinkingBlockParam
from anthropic.types.tool_param import ToolParam
from anthropic.types.tool_result_block_param import ToolResultBlockParam
from anthropic.types.tool_use_block_param import ToolUseBlockParam

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
TOOL_USE_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
MAX_IMAGE_BYTES = 5 * 1024 * 1024  # of base64, per image
MAX_SIDE, MAX_SIDE_MANY, MANY_IMAGES = 8000, 2000, 20
MAX_IMAGES = 100  # per request, for models with a 200k-token context window
MAX_PDF_PAGES = 100
MAX_REQUEST_BYTES = 32 * 1024 * 1024


def _fields(params: Any) -> frozenset[str]:
    return frozenset(params.__required_keys__ | params.__optional_keys__)


BLOCK_FIELDS: dict[str, frozenset[str]] = {
    "text": _fields(TextBlockParam),
    "image": _fields(ImageBlockParam),
    "document": _fields(DocumentBlockParam),
    "search_result": _fields(SearchResultBlockParam),
    "tool_use": _fields(ToolUseBlockParam),
    "tool_result": _fields(ToolResultBlockParam),
    "thinking": _fields(ThinkingBlockParam),
    "redacted_thinking": _fields(RedactedThinkingBlockParam),
}
TOOL_FIELDS = _fields(ToolParam)
NESTED = ("text", "image", "search_result", "document")  # what a tool_result may hold


@dataclass(frozen=True)
class Refusal:
    """A 400's message, and the `details` the API gives with some (an error_code)."""

    message: str
    details: dict[str, Any] | None = None
    status: int = 400


def refused(body: dict[str, Any]) -> Refusal | None:
    """Why the API would refuse this request's tools or content, or None."""
    reason = next(_tools(body), None) or next(_pairing(body), None) or _blocks(body)
    return Refusal(reason) if isinstance(reason, str) else reason


def too_large(raw: bytes) -> Refusal | None:
    if len(raw) > MAX_REQUEST_BYTES:
        return Refusal("Request exceeds the maximum allowed number of bytes.", status=413)
    return None


# --- tools -------------------------------------------------------------------------------


def _tools(body: dict[str, Any]) -> Iterator[str]:
    tools = body.get("tools")
    names: list[str] = []
    for n, tool in enumerate(tools or []):
        if tool.get("type") not in (None, "custom"):
            yield f"tools.{n}: fake: only custom tools are served, not {tool.get('type')!r}"
        extra = sorted(set(tool) - TOOL_FIELDS)
        if extra:
            yield f"tools.{n}.custom.{extra[0]}: Extra inputs are not permitted"
        if not TOOL_NAME.match(str(tool.get("name", ""))):
            yield f"tools.{n}.custom.name: String should match pattern '{TOOL_NAME.pattern}'"
        if (tool.get("input_schema") or {}).get("type") != "object":
            yield f"tools.{n}.custom.input_schema.type: Input should be 'object'"
        if tool["name"] in names:
            yield f"tools: Tool names must be unique. Duplicate: {tool['name']}"
        names.append(tool["name"])
    yield from _tool_choice(body, names)


def _tool_choice(body: dict[str, Any], names: list[str]) -> Iterator[str]:
    choice = body.get("tool_choice")
    if choice is None:
        return
    if not body.get("tools"):
        yield "tool_choice may only be specified while providing tools."
    kind = choice.get("type")
    allowed = {
        "auto": {"type", "disable_parallel_tool_use"},
        "any": {"type", "disable_parallel_tool_use"},
        "tool": {"type", "name", "disable_parallel_tool_use"},
        "none": {"type"},
    }
    if kind not in allowed:
        yield "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'"
    extra = sorted(set(choice) - allowed[kind])
    if extra:
        yield f"tool_choice.{kind}.{extra[0]}: Extra inputs are not permitted"
    if kind == "tool" and choice.get("name") not in names:
        yield f"tool_choice.tool.name: no tool named {choice.get('name')!r} in tools"
    thinking = (body.get("thinking") or {}).get("type")
    if kind in ("any", "tool") and thinking in ("enabled", "adaptive"):
        yield "Thinking may not be enabled when tool_choice forces tool use."


# --- tool_use / tool_result pairing ------------------------------------------------------


def _content(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def _pairing(body: dict[str, Any]) -> Iterator[str]:
    messages = body.get("messages", [])
    uses = [b for m in messages for b in _content(m) if b.get("type") == "tool_use"]
    results = [b for m in messages for b in _content(m) if b.get("type") == "tool_result"]
    if (uses or results) and not body.get("tools"):
        yield "Requests which include `tool_use` or `tool_result` blocks must define tools."
    seen: set[str] = set()
    for n, message in enumerate(messages):
        for m, block in enumerate(_content(message)):
            kind = block.get("type")
            if kind == "tool_use" and message["role"] != "assistant":
                yield f"messages.{n}.content.{m}: tool_use is only allowed in assistant turns"
            if kind == "tool_result" and message["role"] != "user":
                yield f"messages.{n}.content.{m}: tool_result is only allowed in user turns"
            if kind == "tool_use":
                if not TOOL_USE_ID.match(str(block.get("id", ""))):
                    yield f"messages.{n}.content.{m}.tool_use.id: String should match pattern"
                if block["id"] in seen:
                    yield f"messages.{n}.content.{m}: `tool_use` ids must be unique"
                seen.add(block["id"])
        reason = _answered(messages, n) or _expected(messages, n)
        if reason:
            yield reason


def _ids(message: dict[str, Any], kind: str) -> list[str]:
    key = "id" if kind == "tool_use" else "tool_use_id"
    return [b.get(key, "") for b in _content(message) if b.get("type") == kind]


def _answered(messages: list[dict[str, Any]], n: int) -> str | None:
    """Every tool_use of assistant message n is answered at the start of message n+1."""
    asked = _ids(messages[n], "tool_use")
    if not asked:
        return None
    following = messages[n + 1] if n + 1 < len(messages) else {"role": "none", "content": []}
    answered = _ids(following, "tool_result") if following["role"] == "user" else []
    missing = [i for i in asked if i not in answered]
    if missing:
        return (
            f"messages.{n}: `tool_use` ids were found without `tool_result` blocks immediately "
            f"after: {', '.join(missing)}. Each `tool_use` block must have a corresponding "
            "`tool_result` block in the next message."
        )
    content = _content(following)
    leading = 0
    while leading < len(content) and content[leading].get("type") == "tool_result":
        leading += 1
    if leading < len(answered):
        return (
            f"messages.{n + 1}: Did not find {len(asked)} `tool_result` block(s) at the "
            "beginning of this message. Messages following `tool_use` blocks must begin with a "
            "matching number of `tool_result` blocks."
        )
    return None


def _expected(messages: list[dict[str, Any]], n: int) -> str | None:
    """Every tool_result of user message n answers a tool_use of message n-1, once."""
    asked = _ids(messages[n - 1], "tool_use") if n else []
    given: set[str] = set()
    for m, block in enumerate(_content(messages[n])):
        if block.get("type") != "tool_result":
            continue
        use_id = block.get("tool_use_id", "")
        if use_id not in asked:
            return (
                f"messages.{n}.content.{m}: unexpected `tool_use_id` found in `tool_result` "
                f"blocks: {use_id}. Each `tool_result` block must have a corresponding "
                "`tool_use` block in the previous message."
            )
        if use_id in given:
            return f"messages.{n}.content.{m}: more than one `tool_result` for {use_id}"
        given.add(use_id)
    return None


# --- content blocks ----------------------------------------------------------------------


def blocks(body: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every content block of the messages with its path (`messages.0.content.1`, and
    `messages.0.content.1.content.0` inside a tool_result), in request order."""
    for n, message in enumerate(body.get("messages", [])):
        for m, block in enumerate(_content(message)):
            path = f"messages.{n}.content.{m}"
            yield path, block
            inner = block.get("content") if block.get("type") == "tool_result" else None
            for k, nested in enumerate(inner if isinstance(inner, list) else []):
                yield f"{path}.content.{k}", nested


def documents(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The document blocks of a request, in order (what document_index counts)."""
    return [block for _, block in blocks(body) if block.get("type") == "document"]


def search_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The search_result blocks of a request, in order, tool results included (what
    search_result_index counts)."""
    return [block for _, block in blocks(body) if block.get("type") == "search_result"]


def _blocks(body: dict[str, Any]) -> str | Refusal | None:
    images: list[tuple[str, tuple[int, int]]] = []
    for path, block in blocks(body):
        kind = block.get("type")
        if kind not in BLOCK_FIELDS:
            return f"{path}: fake: content block type {kind!r} is not served"
        if path.count("content") > 1 and kind not in NESTED:
            return f"{path}: a tool_result may not hold a {kind} block"
        extra = sorted(set(block) - BLOCK_FIELDS[kind])
        if extra:
            return f"{path}.{kind}.{extra[0]}: Extra inputs are not permitted"
        if kind == "image":
            size = _image(path, block)
            if isinstance(size, str):
                return size
            images.append((path, size))
        elif kind == "document":
            reason = next(_document(path, block), None)
            if reason:
                return reason
    return _images(images) or _citations(body)


def _image(path: str, block: dict[str, Any]) -> str | tuple[int, int]:
    """The image's (width, height), or why the API refuses it."""
    problem = next(_image_problems(path, block), None)
    if problem is not None:
        return problem
    size = image_size(base64.b64decode(block["source"]["data"]))
    return f"{path}.image.source.base64: Could not process image" if size is None else size


def _image_problems(path: str, block: dict[str, Any]) -> Iterator[str]:
    source = block.get("source") or {}
    if source.get("type") != "base64":
        yield f"{path}.image.source: fake: only base64 image sources are served"
    declared = source.get("media_type")
    if declared not in IMAGE_TYPES:
        yield (
            f"{path}.image.source.base64.media_type: Input should be 'image/jpeg', "
            "'image/png', 'image/gif' or 'image/webp'"
        )
    data = str(source.get("data", ""))
    if len(data) > MAX_IMAGE_BYTES:
        yield (
            f"{path}.image.source.base64: image exceeds 5 MB maximum: "
            f"{len(data)} bytes > {MAX_IMAGE_BYTES} bytes"
        )
    try:
        raw = base64.b64decode(data, validate=True)
    except binascii.Error:
        yield f"{path}.image.source.base64.data: invalid base64 data"
        return
    actual = image_type(raw)
    if actual != declared:
        yield (
            f"{path}.image.source.base64: The image was specified using the {declared} media "
            f"type, but the image appears to be a {actual or 'unknown'} image"
        )


def _images(images: list[tuple[str, tuple[int, int]]]) -> Refusal | str | None:
    if len(images) > MAX_IMAGES:
        return f"Too many images: {len(images)} > {MAX_IMAGES}"
    limit = MAX_SIDE_MANY if len(images) > MANY_IMAGES else MAX_SIDE
    over = [path for path, (w, h) in images if max(w, h) > limit]
    if not over:
        return None
    details = {
        "error_code": "image_dimensions_too_large",
        "max_side_length_pixels": limit,
        "paths": over,
    }
    return Refusal(f"{over[0]}: image dimensions exceed max allowed size: {limit} pixels", details)


def _document(path: str, block: dict[str, Any]) -> Iterator[str]:
    source = block.get("source") or {}
    kind = source.get("type")
    citations = block.get("citations")
    if citations is not None and set(citations) - {"enabled"}:
        yield f"{path}.document.citations: Extra inputs are not permitted"
    if kind == "text":
        if source.get("media_type") != "text/plain" or not isinstance(source.get("data"), str):
            yield f"{path}.document.source.text: media_type 'text/plain' and string data"
        return
    if kind == "content":
        content = source.get("content")
        inner = content if isinstance(content, list) else []
        if not isinstance(content, str | list) or any(
            b.get("type") not in ("text", "image") for b in inner
        ):
            yield f"{path}.document.source.content: a string or text and image blocks"
        return
    if kind != "base64":
        yield f"{path}.document.source: fake: {kind!r} document sources are not served"
    if source.get("media_type") != "application/pdf":
        yield f"{path}.document.source.base64.media_type: Input should be 'application/pdf'"
    try:
        raw = base64.b64decode(str(source.get("data", "")), validate=True)
    except binascii.Error:
        yield f"{path}.document.source.base64.data: invalid base64 data"
        return
    if not raw.startswith(b"%PDF-"):
        yield f"{path}.document.source.base64.data: The PDF specified was not valid."
    if pdf_pages(raw) > MAX_PDF_PAGES:
        yield f"A maximum of {MAX_PDF_PAGES} PDF pages may be provided."


def _citations(body: dict[str, Any]) -> str | None:
    enabled = [bool((d.get("citations") or {}).get("enabled")) for d in documents(body)]
    if len(set(enabled)) > 1:
        return "citations: must be enabled on all or none of the documents in a request"
    cited = any(enabled) or any(
        (s.get("citations") or {}).get("enabled") for s in search_results(body)
    )
    if cited and "format" in (body.get("output_config") or {}):
        return "Citations are not supported together with structured outputs (output_config.format)"
    return None


# --- bytes: what an image or a PDF is ----------------------------------------------------


def image_type(raw: bytes) -> str | None:
    """The media type an image's bytes say it is (its magic number)."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if raw.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if raw[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "image/webp"
    return None


def image_size(raw: bytes) -> tuple[int, int] | None:
    """(width, height) from an image's header, or None when it cannot be read."""
    kind = image_type(raw)
    try:
        if kind == "image/png":
            width, height = struct.unpack(">II", raw[16:24])
            return int(width), int(height)
        if kind == "image/gif":
            width, height = struct.unpack("<HH", raw[6:10])
            return int(width), int(height)
        if kind == "image/jpeg":
            return _jpeg_size(raw)
        if kind == "image/webp":
            return _webp_size(raw)
    except struct.error:
        return None
    return None


def _jpeg_size(raw: bytes) -> tuple[int, int] | None:
    at = 2
    for _ in range(10_000):  # markers before the frame header; bounded
        if at + 9 > len(raw) or raw[at] != 0xFF:
            return None
        marker = raw[at + 1]
        (length,) = struct.unpack(">H", raw[at + 2 : at + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", raw[at + 5 : at + 9])
            return int(width), int(height)
        at += 2 + length
    return None


def _webp_size(raw: bytes) -> tuple[int, int] | None:
    chunk = raw[12:16]
    if chunk == b"VP8X":
        width = int.from_bytes(raw[24:27], "little") + 1
        height = int.from_bytes(raw[27:30], "little") + 1
        return width, height
    if chunk == b"VP8L":
        bits = int.from_bytes(raw[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", raw[26:30])
        return int(width) & 0x3FFF, int(height) & 0x3FFF
    return None


PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")


def pdf_pages(raw: bytes) -> int:
    """A PDF's page count: its page objects (enough for the PDFs tests build)."""
    return len(PAGE.findall(raw))


# --- test data: real image and PDF bytes -------------------------------------------------


def png(width: int = 2, height: int = 2) -> bytes:
    """A valid PNG of that size (greyscale, all black): what a screenshot would be."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    rows = zlib.compress(b"\x00" * ((width + 1) * height), 9)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")
    )


def pdf(*pages: str) -> bytes:
    """A valid PDF with one page of text per argument (Helvetica, uncompressed), so a
    test can share a PDF whose page N says what it wants."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    font = 3 + 2 * len(pages)
    for i, text in enumerate(pages):
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode("latin-1", "replace")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
