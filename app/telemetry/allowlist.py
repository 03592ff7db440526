"""What may leave the process: metadata keys from one list, and an export-stage allowlist
(`allow_listed`, the SDK's span mask) that drops any span attribute that is not a known key
with an id-like value."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence

from langfuse.types import MaskOtelSpansParams, MaskOtelSpansResult, OtelSpanPatch

from app.logs import TOKEN

log = logging.getLogger("vouch.telemetry")

Value = str | int | float | bool | None | Sequence[str]

# Every metadata key that may leave the process. The export allowlist drops any other.
METADATA_KEYS = frozenset(
    {
        # each attempt: the agent.verify guardrail and its verification_result event
        "attempt",
        "passed",
        "issue_codes",
        "repaired_codes",
        "response_length",
        "user_message_length",
        "judge_score",
        "judge",
        "duration_ms",
        "trace_id",
        "error",
        # verification_exhausted
        "max_attempts",
        "final_issue_codes",
        # model calls
        "stop_reason",
        # the message (the trace's root observation)
        "kind",
        "reason",
        "attempts",
        "verified",
        "history_messages",
        "files",
        "files_unread",
        "format",
        # knowledge.search: how many passages were given as sources
        "sources",
        # tool.<name>: one tool call (its size, never its arguments or results)
        "results",
        "result_chars",
        "dropped",
        "tool_calls",
        # triage: an unasked message in a help channel, taken or left, and why
        "category",
        "decided_by",
        # slack.entities: an answer's pings and Slack links, checked with Slack
        "unpinged",
        "not_found",
        "unchecked",
    }
)

# Span attributes the Langfuse SDK writes for what Vouch records (no input, no output).
_ATTRIBUTES = frozenset(
    {
        "langfuse.observation.type",
        "langfuse.observation.level",
        "langfuse.observation.status_message",
        "langfuse.observation.model.name",
        "langfuse.observation.usage_details",
        "langfuse.trace.name",
        "langfuse.trace.tags",
        "user.id",
        "session.id",
        "langfuse.environment",
        "langfuse.release",
        "langfuse.version",
        "langfuse.internal.as_root",
        "langfuse.internal.is_app_root",
    }
)
_METADATA = "langfuse.observation.metadata."


def checked(metadata: Mapping[str, Value]) -> dict[str, Value]:
    """Metadata as given, minus unknown keys (a bug, logged by name) and None values."""
    unknown = [key for key in metadata if key not in METADATA_KEYS]
    if unknown:
        log.error("telemetry: unknown metadata keys %s not recorded", sorted(unknown))
    return {
        key: list(value) if isinstance(value, tuple) else value
        for key, value in metadata.items()
        if key in METADATA_KEYS and value is not None
    }


def allow_listed(*, params: MaskOtelSpansParams) -> MaskOtelSpansResult:
    """Export-stage allowlist: delete every span attribute that is not a known key holding
    an id-like value. The last line of defence; nothing upstream should ever trip it."""
    patches: dict[object, OtelSpanPatch | None] = {}
    for identifier, span in params.spans.items():
        dropped = tuple(key for key, value in span.attributes.items() if not allowed(key, value))
        if dropped:
            patches[identifier] = OtelSpanPatch(delete_attributes=dropped)
            log.warning("telemetry: %d span attribute(s) dropped by the allowlist", len(dropped))
    return MaskOtelSpansResult(span_patches=patches)  # type: ignore[arg-type]


def allowed(key: str, value: object) -> bool:
    if key.startswith(_METADATA):
        if key.removeprefix(_METADATA) not in METADATA_KEYS or not isinstance(value, str):
            return False
        return _plain(_decoded(value))
    if key not in _ATTRIBUTES:
        return False
    if key == "langfuse.observation.usage_details":
        usage = _decoded(value) if isinstance(value, str) else None
        return isinstance(usage, dict) and all(
            token(k) and type(v) is int for k, v in usage.items()
        )
    return _plain(value)


def token(value: object) -> bool:
    """An id-like string: no spaces, so no sentence fits."""
    return isinstance(value, str) and TOKEN.fullmatch(value) is not None


def _plain(value: object) -> bool:
    """A number, a flag, nothing, an id-like string, or a list of those strings."""
    if value is None or isinstance(value, bool | int | float):
        return True
    if isinstance(value, str):
        return token(value)
    if isinstance(value, list | tuple):
        return all(isinstance(item, str) and token(item) for item in value)
    return False


def _decoded(value: str) -> object:
    try:
        return json.loads(value)
    except ValueError:
        return _Undecodable


class _Undecodable:
    """Marks a metadata value that is not the SDK's JSON (so not plain)."""
