"""Langfuse telemetry: one trace per answered message, an observation per model call and per
verification, events and scores. They hold ids, codes, counts and timings, never content.

Three layers keep content out: nothing here is given text (no input or output is ever set);
metadata keys come from one list, METADATA_KEYS; and an export-stage allowlist
(`allow_listed`) drops any span attribute that is not a known key with an id-like value.

Telemetry can neither break nor delay an answer: observations end in memory and the SDK's
background threads export them; every call into the SDK is guarded; flushing and shutdown run
in a worker thread with a time bound.

    client.py     Telemetry: the Langfuse client, a trace per message, scores, flush, close
    trace.py      Trace (the loop's observer) and Span (one observation)
    scores.py     score policy: the scores of an Outcome, the 👍/👎 score
    allowlist.py  METADATA_KEYS and the export-stage allowlist
    ids.py        MessageIds, salted hashes, trace ids, a Slack message's time
    guard.py      SDK calls guarded, blocking ones bounded in time
"""

from app.agent.observer import Kind
from app.errors import label
from app.telemetry.allowlist import METADATA_KEYS, Value, allow_listed, allowed
from app.telemetry.client import TRACE_NAME, Telemetry
from app.telemetry.ids import MessageIds, message_time
from app.telemetry.scores import Fate, ScoreRow, issues_found, scores_of
from app.telemetry.trace import NO_TRACE, Span, Trace, attempt_metadata, usage_details

__all__ = [
    "METADATA_KEYS",
    "NO_TRACE",
    "TRACE_NAME",
    "Fate",
    "Kind",
    "MessageIds",
    "ScoreRow",
    "Span",
    "Telemetry",
    "Trace",
    "Value",
    "allow_listed",
    "allowed",
    "attempt_metadata",
    "issues_found",
    "label",
    "message_time",
    "scores_of",
    "usage_details",
]
