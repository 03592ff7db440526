"""Langfuse telemetry: one trace per answered message, an observation per model call and per
verification, events and scores. They hold ids, codes, counts and timings, never content.

Three layers keep content out: nothing here is given text (no input or output is ever set);
metadata keys come from one list, METADATA_KEYS; and an export-stage allowlist
(`allow_listed`) drops any span attribute that is not a known key with an id-like value.

Telemetry can neither break nor delay an answer: observations end in memory and the SDK's
background threads export them; every call into the SDK is guarded; flushing and shutdown run
in a worker thread with a time bound.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, TypeVar

from langfuse import Langfuse, propagate_attributes
from langfuse._client.span import LangfuseObservationWrapper
from langfuse.span_filter import is_langfuse_span
from langfuse.types import MaskOtelSpansParams, MaskOtelSpansResult, OtelSpanPatch
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider

from app.agent.model import CallFailed, Usage
from app.agent.outcome import Attempt, Outcome
from app.logs import TOKEN
from app.settings import Settings

log = logging.getLogger("vouch.telemetry")

TRACE_NAME = "vouch.answer"
Kind = Literal["span", "generation", "guardrail", "retriever"]
Fate = Literal["repaired", "retried", "failed", "accepted"]
Value = str | int | float | bool | None | Sequence[str]
T = TypeVar("T")

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
        "format",
        # knowledge.search: how many passages were given as sources
        "sources",
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


@dataclass(frozen=True, slots=True)
class MessageIds:
    """Who and where a message came from, as Slack ids; only hashes of them leave."""

    key: str  # team:channel:ts of the message
    thread: str  # team:channel:thread_ts
    user: str  # team:user
    kind: str  # "mention", "dm" or "follow_up"
    history_messages: int = 0


class Telemetry:
    """Process-wide: the Langfuse client (None when telemetry is off), the hashing key and
    the tags every trace carries."""

    def __init__(
        self,
        client: Langfuse | None,
        *,
        salt: bytes = b"",
        tags: Sequence[str] = (),
        flush_timeout: float = 5.0,
        provider: TracerProvider | None = None,
    ) -> None:
        self._client = client
        self._provider = provider
        self._salt = salt
        self._tags = list(tags)
        self._flush_timeout = flush_timeout
        self._closed = False

    @classmethod
    def off(cls) -> Telemetry:
        return cls(None)

    @classmethod
    def from_settings(cls, settings: Settings) -> Telemetry:
        """The bot's telemetry; says once whether it is on."""
        environment = settings.langfuse_environment
        mode = "socket" if settings.slack_app_token is not None else "http"
        tags = (f"format:{settings.response_format}", f"mode:{mode}", f"env:{environment}")
        public, secret = settings.langfuse_public_key, settings.langfuse_secret_key
        if public is None or secret is None:
            log.info("telemetry off: set LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY to enable")
            return cls(None, tags=tags)
        # A provider of our own: other OpenTelemetry spans in the process (the Anthropic SDK's,
        # which carry the same token usage as our generations) never reach Langfuse.
        provider = TracerProvider(
            resource=Resource.create(
                {"service.name": "vouch", "langfuse.environment": environment}
            ),
            shutdown_on_exit=False,  # close() shuts down, within LANGFUSE_FLUSH_TIMEOUT
        )
        client = Langfuse(
            public_key=public,
            secret_key=secret.get_secret_value(),
            base_url=settings.langfuse_base_url,
            timeout=settings.langfuse_timeout,
            environment=environment,
            tracer_provider=provider,
            should_export_span=is_langfuse_span,
            mask_otel_spans=allow_listed,
        )
        salt_setting = settings.telemetry_salt
        salt = (
            salt_setting.get_secret_value().encode()
            if salt_setting is not None
            else hmac.new(secret.get_secret_value().encode(), b"vouch-ids", "sha256").digest()
        )
        log.info("telemetry on: traces and scores go to Langfuse (environment %s)", environment)
        flush_timeout = settings.langfuse_flush_timeout
        return cls(client, salt=salt, tags=tags, flush_timeout=flush_timeout, provider=provider)

    @property
    def enabled(self) -> bool:
        return self._client is not None and not self._closed

    def hashed(self, slack_id: str) -> str:
        """A salted one-way hash of a Slack id: stable, and useless without the salt."""
        return hmac.new(self._salt, slack_id.encode(), "sha256").hexdigest()[:32]

    def trace_id(self, message_key: str) -> str:
        """The trace id of a user message, from its team:channel:ts key (salted, so the id
        does not lead back to the message): the same for Slack's retries and for a feedback
        click on the answer. Shown to users as the failure message's ref."""
        return Langfuse.create_trace_id(seed=self.hashed(message_key))

    @contextmanager
    def trace(self, ids: MessageIds) -> Iterator[Trace]:
        """The trace of one message, its root observation open while the body runs."""
        trace_id = self.trace_id(ids.key)
        langfuse = self._client
        if langfuse is None or self._closed:
            yield Trace(trace_id, None, self, message_time(ids.key))
            return
        with propagate_attributes(
            user_id=self.hashed(ids.user),
            session_id=self.hashed(ids.thread),
            tags=self._tags,
            trace_name=TRACE_NAME,
        ):
            root = _guarded(
                "trace",
                lambda: langfuse.start_observation(
                    trace_context={"trace_id": trace_id},
                    name=TRACE_NAME,
                    as_type="span",
                    metadata=_checked({"kind": ids.kind, "history_messages": ids.history_messages}),
                ),
            )
            trace = Trace(trace_id, root, self, message_time(ids.key))
            scored = True
            try:
                yield trace
            except Exception as exc:  # the user is told of the failure: not verified
                trace.root.fail(label(exc))
                trace.outcome = None
                raise
            except BaseException as exc:  # cancelled (shutting down): nothing to score
                trace.root.fail(label(exc))
                scored = False
                raise
            finally:
                if scored:
                    trace.score()
                trace.root.end()

    def failed(self, ids: MessageIds, reason: str) -> None:
        """A message Vouch answered with the failure message before its trace opened (e.g.
        its thread could not be read): a trace of its own, counted as not verified."""
        with self.trace(ids) as trace:
            trace.root.fail(reason)

    def score(
        self,
        trace_id: str,
        name: str,
        value: float | str,
        data_type: Literal["BOOLEAN", "NUMERIC", "CATEGORICAL"],
        score_id: str,
        *,
        at: datetime | None = None,
    ) -> None:
        """Queue one trace score (sent by the SDK's score thread). A fixed score id makes a
        repeat (a Slack retry answered again after a restart, a second click) replace it,
        but Langfuse keeps one score per id and day of its timestamp: `at` is the time of
        the Slack message it is about, the same however late the repeat comes."""
        langfuse = self._client
        if langfuse is None or self._closed:
            return
        _guarded(
            "score",
            lambda: langfuse.create_score(
                name=name,
                value=value,  # type: ignore[arg-type]  # the overloads split float/str by type
                trace_id=trace_id,
                score_id=score_id,
                data_type=data_type,  # type: ignore[arg-type]
                timestamp=at,
            ),
        )

    def feedback(
        self, trace_id: str, user: str, positive: bool, at: datetime | None = None
    ) -> None:
        """A 👍/👎 click on an answer: `user_feedback` on the answer's trace, one per user,
        stamped with the answer's time (`at`) so a click days later replaces the first."""
        score_id = f"{trace_id}-user_feedback-{self.hashed(user)[:16]}"
        value = 1.0 if positive else 0.0
        self.score(trace_id, "user_feedback", value, "BOOLEAN", score_id, at=at)

    async def flush(self) -> bool:
        """Send what is queued, waiting at most LANGFUSE_FLUSH_TIMEOUT; True if all went."""
        langfuse = self._client
        if langfuse is None or self._closed:
            return True
        return await asyncio.to_thread(_bounded, langfuse.flush, self._flush_timeout)

    async def close(self) -> None:
        """Flush and stop the SDK's threads, within the bound; later calls are no-ops."""
        langfuse = self._client
        if langfuse is None or self._closed:
            return
        self._closed = True
        provider = self._provider

        def shutdown() -> None:
            langfuse.shutdown()  # flushes; stops the score and media threads
            if provider is not None:
                provider.shutdown()  # stops the span exporter's thread

        if not await asyncio.to_thread(_bounded, shutdown, self._flush_timeout):
            log.warning("telemetry: shutdown gave up after %ss", self._flush_timeout)


class Span:
    """One observation (a no-op when telemetry is off)."""

    def __init__(self, observation: LangfuseObservationWrapper | None) -> None:
        self.observation = observation

    def update(self, metadata: Mapping[str, Value]) -> None:
        self._apply("update", metadata=_checked(metadata))

    def usage(self, usage: Usage, stop_reason: str | None) -> None:
        self._apply(
            "update",
            usage_details=usage_details(usage),
            metadata=_checked({"stop_reason": stop_reason}),
        )

    def fail(self, reason: str, level: Literal["WARNING", "ERROR"] = "ERROR") -> None:
        """Mark the observation failed with a fixed label (anything else becomes "failed")."""
        self._apply("update", level=level, status_message=reason if _token(reason) else "failed")

    def end(self) -> None:
        observation = self.observation
        if observation is not None:
            _guarded("end", observation.end)
            self.observation = None

    def _apply(self, what: str, **fields: object) -> None:
        observation = self.observation
        if observation is not None:
            _guarded(what, lambda: observation.update(**fields))  # type: ignore[arg-type]


class Trace:
    """The telemetry of one message. The loop and the listener tell it what happened."""

    def __init__(
        self,
        trace_id: str,
        root: LangfuseObservationWrapper | None,
        telemetry: Telemetry | None = None,
        at: datetime | None = None,
    ) -> None:
        self.trace_id = trace_id
        self.at = at  # the user message's time: every score of the trace carries it
        self.root = Span(root)
        self.telemetry = telemetry
        self.outcome: Outcome | None = None  # what the loop concluded; scored at the end
        self.delivered = True
        self.stopped = False  # the user pressed stop on the streamed answer

    @contextmanager
    def observe(
        self,
        name: str,
        kind: Kind,
        *,
        parent: Span | None = None,
        model: str | None = None,
        **metadata: Value,
    ) -> Iterator[Span]:
        """A child observation timed by the body; an exception marks it failed, by its
        label, and goes on (observations are not "current": nothing records the exception)."""
        within = (parent or self.root).observation
        if within is None:
            yield Span(None)
            return
        span = Span(
            _guarded(
                name,
                lambda: within.start_observation(
                    name=name,
                    as_type=kind,  # type: ignore[arg-type]  # overloaded per literal
                    model=model,
                    metadata=_checked(metadata),
                ),
            )
        )
        try:
            yield span
        except BaseException as exc:
            span.fail(label(exc))
            raise
        finally:
            span.end()

    def event(self, name: str, metadata: Mapping[str, Value]) -> None:
        root = self.root.observation
        if root is not None:
            _guarded(name, lambda: root.create_event(name=name, metadata=_checked(metadata)))

    def checked(self, check: Span, attempt: Attempt) -> None:
        """An attempt was verified: its guardrail's metadata and a verification_result."""
        metadata = attempt_metadata(attempt, self.trace_id)
        check.update(metadata)
        if not attempt.passed:
            check.fail(attempt.error or "not_verified", "WARNING")
        self.event("verification_result", metadata)

    def conclude(self, outcome: Outcome, max_attempts: int) -> None:
        """The loop ended: the exhausted event and the root's summary; the scores go when
        the trace closes, once it is known whether the answer reached the user."""
        if self.telemetry is None:
            return  # NO_TRACE: keeps nothing
        self.outcome = outcome
        if outcome.reason == "exhausted":
            final = outcome.attempts[-1].codes if outcome.attempts else ()
            self.event(
                "verification_exhausted",
                {"max_attempts": max_attempts, "final_issue_codes": list(final)},
            )
        self.root.update(
            {
                "reason": outcome.reason,
                "attempts": len(outcome.attempts),
                "verified": outcome.verified,
            }
        )

    def undelivered(self) -> None:
        """Slack refused the answer (after retries): the user did not get it."""
        self.delivered = False

    def stopped_by_user(self) -> None:
        """The user stopped the streamed answer: what they saw of it was verified."""
        self.stopped = True

    def score(self) -> None:
        """The trace's scores: from the Outcome, or, when the message failed without one
        (e.g. its thread could not be read), as not verified with outcome `error`."""
        if self.telemetry is None:
            return
        rows: list[ScoreRow] = (
            scores_of(self.outcome, self.delivered, self.stopped)
            if self.outcome is not None
            else [
                ("outcome", "error", "CATEGORICAL", ""),
                ("verified", 0.0, "BOOLEAN", ""),
                ("pass_on_first_attempt", 0.0, "BOOLEAN", ""),
            ]
        )
        for name, value, data_type, suffix in rows:
            score_id = f"{self.trace_id}-{name}{suffix}"
            self.telemetry.score(self.trace_id, name, value, data_type, score_id, at=self.at)


NO_TRACE = Trace("", None)


ScoreRow = tuple[str, float | str, Literal["BOOLEAN", "NUMERIC", "CATEGORICAL"], str]


def scores_of(outcome: Outcome, delivered: bool = True, stopped: bool = False) -> list[ScoreRow]:
    """The trace scores of a message: (name, value, data type, id suffix). A message the
    model could not be asked about ("unavailable": the user was told to try again) is an
    outage, not a verification result: it gets an `outcome` but no rates. A verified answer
    Slack refused to take is `undelivered`: the user did not get it. One the user stopped
    while it streamed is `stopped`, and verified: all it showed was verified, and the stop
    was the user's choice, not a failure."""
    verified = outcome.verified and delivered
    reason: str = outcome.reason
    if outcome.verified and not delivered:
        reason = "undelivered"
    elif outcome.verified and stopped:
        reason = "stopped"
    rows: list[ScoreRow] = [("outcome", reason, "CATEGORICAL", "")]
    if outcome.reason != "unavailable":
        first = verified and len(outcome.attempts) == 1
        rows.append(("verified", 1.0 if verified else 0.0, "BOOLEAN", ""))
        rows.append(("pass_on_first_attempt", 1.0 if first else 0.0, "BOOLEAN", ""))
    if verified:
        rows.append(("attempts_to_verify", float(len(outcome.attempts)), "NUMERIC", ""))
    if verified and outcome.score is not None:
        rows.append(("quality_score", round(outcome.score, 4), "NUMERIC", ""))
    judge = outcome.attempts[-1].judge if verified and outcome.attempts else None
    if judge is not None:  # 0: the judge was unreachable and the rules alone verified it
        rows.append(("judged", 1.0 if judge == "passed" else 0.0, "BOOLEAN", ""))
    for index, (attempt, code, fate) in enumerate(issues_found(outcome)):
        suffix = f"-{attempt}-{index}"
        rows.append(("issue_code", code, "CATEGORICAL", suffix))
        rows.append(("issue_outcome", f"{code}/{fate}", "CATEGORICAL", suffix))
    return rows


def issues_found(outcome: Outcome) -> list[tuple[int, str, Fate]]:
    """(attempt, code, fate) for every issue any attempt had. Fates: repaired (fixed by the
    deterministic repair), retried (a later attempt passed), failed (no verified answer),
    accepted (a warning left in the answer that passed)."""
    found: list[tuple[int, str, Fate]] = []
    for attempt in outcome.attempts:
        found.extend((attempt.number, code, "repaired") for code in attempt.repaired)
        fate: Fate = "accepted" if attempt.passed else "retried" if outcome.verified else "failed"
        found.extend((attempt.number, code, fate) for code in attempt.codes)
    return found


def attempt_metadata(attempt: Attempt, trace_id: str) -> dict[str, Value]:
    metadata: dict[str, Value] = {
        "attempt": attempt.number,
        "passed": attempt.passed,
        "issue_codes": list(attempt.codes),
        "repaired_codes": list(attempt.repaired),
        "response_length": attempt.draft_length,
        "user_message_length": attempt.question_length,
        "judge_score": attempt.judge_score,
        "duration_ms": attempt.duration_ms,
        "trace_id": trace_id,
    }
    if attempt.judge is not None:
        metadata["judge"] = attempt.judge
    if attempt.error is not None:
        metadata["error"] = attempt.error
    return metadata


def usage_details(usage: Usage) -> dict[str, int]:
    """Token usage under the keys Langfuse prices Anthropic models by."""
    return {
        "input": usage.input,
        "output": usage.output,
        "cache_read_input_tokens": usage.cache_read,
        "cache_creation_input_tokens": usage.cache_write,
    }


def message_time(slack_ts_or_key: str) -> datetime | None:
    """The time of a Slack message from its ts ("1700000000.000100"), or from a message key
    ending in one ("team:channel:ts"); None if there is none."""
    ts = slack_ts_or_key.rsplit(":", 1)[-1]
    try:
        return datetime.fromtimestamp(float(ts), UTC)
    except (ValueError, OverflowError, OSError):
        return None


def label(exc: BaseException) -> str:
    """A fixed label for an exception: never its message, which may quote data."""
    reason = exc.reason if isinstance(exc, CallFailed) else type(exc).__name__
    return reason if TOKEN.fullmatch(reason) else type(exc).__name__


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
            _token(k) and type(v) is int for k, v in usage.items()
        )
    return _plain(value)


def _plain(value: object) -> bool:
    """A number, a flag, nothing, an id-like string, or a list of those strings."""
    if value is None or isinstance(value, bool | int | float):
        return True
    if isinstance(value, str):
        return _token(value)
    if isinstance(value, list | tuple):
        return all(isinstance(item, str) and _token(item) for item in value)
    return False


def _token(value: object) -> bool:
    return isinstance(value, str) and TOKEN.fullmatch(value) is not None


def _decoded(value: str) -> object:
    try:
        return json.loads(value)
    except ValueError:
        return _Undecodable


class _Undecodable:
    """Marks a metadata value that is not the SDK's JSON (so not plain)."""


def _checked(metadata: Mapping[str, Value]) -> dict[str, Value]:
    """Metadata as given, minus unknown keys (a bug, logged by name) and None values."""
    unknown = [key for key in metadata if key not in METADATA_KEYS]
    if unknown:
        log.error("telemetry: unknown metadata keys %s not recorded", sorted(unknown))
    return {
        key: list(value) if isinstance(value, tuple) else value
        for key, value in metadata.items()
        if key in METADATA_KEYS and value is not None
    }


def _guarded(what: str, call: Callable[[], T]) -> T | None:
    """Run one SDK call; telemetry failing must never break an answer."""
    try:
        return call()
    except Exception as exc:  # the SDK's own bugs included
        log.warning("telemetry: %s not recorded (%s)", what, type(exc).__name__)
        return None


def _bounded(action: Callable[[], object], timeout: float) -> bool:
    """Run a blocking SDK call (flush, shutdown) in a daemon thread, waiting at most
    `timeout` seconds: a slow or unreachable Langfuse cannot hold up the caller or exit."""
    worker = threading.Thread(target=_guarded, args=("flush or shutdown", action), daemon=True)
    worker.start()
    worker.join(timeout)
    return not worker.is_alive()
