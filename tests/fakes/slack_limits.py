"""What Slack refuses in a message, at the limits its docs give (docs.slack.dev):

- `text`: 40,000 characters (chat.postMessage reference: "Provide no more than 40,000
  characters"; its error for longer text is msg_too_long).
- `markdown_text`: 12,000 characters per call (chat.postMessage, chat.update and the
  chat.*Stream references); Markdown in `markdown` blocks: 12,000 in all (markdown block
  reference). `markdown_text` goes alone: with `text` or `blocks`, markdown_text_conflict.
- Block Kit (blocks reference, section block, button element): at most 50 blocks in a
  message; a section's text 1 to 3,000 characters; a block_id 255; a button's text 75.
  Slack answers a block over a limit with invalid_blocks.
- `metadata`: an object with an `event_type` and an `event_payload` object (message
  metadata reference); anything else is invalid_metadata_format.
- Streaming chunks (chat.startStream, chat.appendStream, chat.stopStream references, and
  slack_sdk's `models/messages/chunk.py`): `chunks` a list of objects of type markdown_text
  (`text`), task_update (`id`, `title`, `status` pending, in_progress, complete or error;
  optional `details` and `output`, at most 256 characters each: the limits documented
  beside Slack's task card), plan_update (`title`) or blocks (`blocks`, within Block Kit's
  limits). Anything else is invalid_chunks, and so is a call that sends both
  `markdown_text` and `chunks`; chat.startStream's `task_display_mode` is timeline or plan,
  else invalid_arguments. The error names are assumptions (the references list none for
  chunks), and so is refusing the pair: Slack's SDKs never send it, they wrap buffered
  text in a markdown_text chunk when they send chunks.
- Views (views.publish reference, view object reference): `view` a JSON object whose `type`
  is "home" (the only type views.publish takes), with at most 100 blocks within the Block
  Kit limits above, else invalid_arguments; over 250 kB, view_too_large. A section's
  `fields`: at most 10, each 1 to 2,000 characters; a header's text at most 150.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

TEXT_LIMIT = 40_000
TASK_TEXT_LIMIT = 256  # a task card's details or output
TASK_STATUSES = ("pending", "in_progress", "complete", "error")
DISPLAY_MODES = ("timeline", "plan")
MARKDOWN_LIMIT = 12_000  # characters of markdown_text, or of all markdown blocks, per call
MAX_BLOCKS = 50
SECTION_TEXT_LIMIT = 3_000
BLOCK_ID_LIMIT = 255
BUTTON_TEXT_LIMIT = 75
MAX_VIEW_BLOCKS = 100
VIEW_BYTES_LIMIT = 250_000
MAX_FIELDS = 10
FIELD_TEXT_LIMIT = 2_000
HEADER_TEXT_LIMIT = 150


class Refused(Exception):
    """A method's ok:false answer, as Slack gives it for a call it will not do; `extra`
    goes into the answer beside `error` (e.g. missing_scope's `needed` and `provided`)."""

    def __init__(self, error: str, **extra: str) -> None:
        super().__init__(error)
        self.extra = extra


def check_message(params: dict[str, Any]) -> None:
    """A chat.postMessage or chat.update Slack would take."""
    if "markdown_text" in params and ("text" in params or "blocks" in params):
        raise Refused("markdown_text_conflict")
    check_markdown(params)
    if len(params.get("text") or "") > TEXT_LIMIT:
        raise Refused("msg_too_long")
    check_blocks(blocks_of(params))


def check_markdown(params: dict[str, Any]) -> None:
    """At most 12,000 characters of `markdown_text` in one call (posts, updates, streams)."""
    if len(params.get("markdown_text") or "") > MARKDOWN_LIMIT:
        raise Refused("msg_too_long")


def check_blocks(blocks: list[dict[str, Any]]) -> None:
    if len(blocks) > MAX_BLOCKS or len(markdown_of(blocks)) > MARKDOWN_LIMIT:
        raise Refused("invalid_blocks")
    if not all(_within_limits(block) for block in blocks):
        raise Refused("invalid_blocks")


def _within_limits(block: dict[str, Any]) -> bool:
    if len(block.get("block_id") or "") > BLOCK_ID_LIMIT:
        return False
    section = (block.get("text") or {}).get("text") if block.get("type") == "section" else None
    if section is not None and not 1 <= len(section) <= SECTION_TEXT_LIMIT:
        return False
    fields = [f.get("text") or "" for f in block.get("fields") or ()]
    if len(fields) > MAX_FIELDS or not all(1 <= len(f) <= FIELD_TEXT_LIMIT for f in fields):
        return False
    if block.get("type") == "header" and len(block["text"].get("text") or "") > HEADER_TEXT_LIMIT:
        return False
    buttons = [e for e in block.get("elements") or () if e.get("type") == "button"]
    return all(len(b["text"].get("text") or "") <= BUTTON_TEXT_LIMIT for b in buttons)


def check_view(params: dict[str, Any]) -> dict[str, Any]:
    """A views.publish Slack would take: its view, as an object."""
    raw = params.get("view")
    if not isinstance(params.get("user_id"), str) or not params["user_id"] or raw is None:
        raise Refused("invalid_arguments")
    try:
        view = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError:
        raise Refused("invalid_arguments") from None
    if len(json.dumps(view).encode()) > VIEW_BYTES_LIMIT:
        raise Refused("view_too_large")
    if not isinstance(view, dict) or view.get("type") != "home":
        raise Refused("invalid_arguments")
    blocks = view.get("blocks")
    if not isinstance(blocks, list) or len(blocks) > MAX_VIEW_BLOCKS:
        raise Refused("invalid_arguments")
    if len(markdown_of(blocks)) > MARKDOWN_LIMIT or not all(map(_within_limits, blocks)):
        raise Refused("invalid_arguments")
    return view


def chunks_of(params: dict[str, Any]) -> list[dict[str, Any]]:
    """A streaming call's chunks, checked (sent as JSON, or form-encoded as a JSON string);
    invalid_chunks for any Slack would not show (the module's docstring)."""
    raw = params.get("chunks")
    if raw is None:
        return []
    if "markdown_text" in params:
        raise Refused("invalid_chunks")
    chunks = json.loads(raw) if isinstance(raw, str) else raw
    if not isinstance(chunks, list) or not chunks:
        raise Refused("invalid_chunks")
    for chunk in chunks:
        if not isinstance(chunk, dict) or not _chunk_ok(chunk):
            raise Refused("invalid_chunks")
    if len(markdown_in(chunks)) > MARKDOWN_LIMIT:
        raise Refused("msg_too_long")
    return chunks


def markdown_in(chunks: list[dict[str, Any]]) -> str:
    """The text of a call's markdown_text chunks, in order."""
    return "".join(c["text"] for c in chunks if c["type"] == "markdown_text")


def _chunk_ok(chunk: dict[str, Any]) -> bool:
    check = _CHUNKS.get(str(chunk.get("type")))
    return check is not None and check(chunk)


def _text_ok(chunk: dict[str, Any]) -> bool:
    return isinstance(chunk.get("text"), str) and bool(chunk["text"])


def _blocks_ok(chunk: dict[str, Any]) -> bool:
    blocks = chunk.get("blocks")
    if not isinstance(blocks, list):
        return False
    try:
        check_blocks(blocks)
    except Refused:
        return False
    return True


def _task_ok(chunk: dict[str, Any]) -> bool:
    texts = [chunk.get(key) for key in ("details", "output") if key in chunk]
    return (
        _filled(chunk.get("id"))
        and _filled(chunk.get("title"))
        and chunk.get("status") in TASK_STATUSES
        and all(isinstance(t, str) and len(t) <= TASK_TEXT_LIMIT for t in texts)
    )


_CHUNKS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "markdown_text": _text_ok,
    "plan_update": lambda chunk: _filled(chunk.get("title")),
    "blocks": _blocks_ok,
    "task_update": _task_ok,
}


def _filled(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def blocks_of(params: dict[str, Any]) -> list[dict[str, Any]]:
    """A call's blocks, sent as JSON (a list) or form-encoded (a JSON string)."""
    blocks = params.get("blocks")
    return json.loads(blocks) if isinstance(blocks, str) else list(blocks or [])


def markdown_of(blocks: list[dict[str, Any]]) -> str:
    return "".join(b["text"] for b in blocks if b.get("type") == "markdown")


def metadata_of(params: dict[str, Any]) -> dict[str, Any] | None:
    """A call's message metadata, sent as JSON (an object) or form-encoded (a string)."""
    metadata = params.get("metadata")
    if metadata is None:
        return None
    try:
        metadata = json.loads(metadata) if isinstance(metadata, str) else metadata
    except json.JSONDecodeError:
        raise Refused("invalid_metadata_format") from None
    if not (
        isinstance(metadata, dict)
        and isinstance(metadata.get("event_type"), str)
        and isinstance(metadata.get("event_payload"), dict)
    ):
        raise Refused("invalid_metadata_format")
    return {"event_type": metadata["event_type"], "event_payload": metadata["event_payload"]}


def shown(params: dict[str, Any]) -> str:
    """What a message shows: its markdown blocks, or its text, or its markdown_text."""
    return markdown_of(blocks_of(params)) or params.get("text") or params.get("markdown_text", "")
