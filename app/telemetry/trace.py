"""The telemetry of one message: a Trace observes the loop's events (observations, events,
the outcome) and scores the message when it closes; a Span is one observation. Both are
no-ops when telemetry is off. They are given ids, codes, counts and timings, never text."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from langfuse._client.span import LangfuseObservationWrapper

from app.agent.model import Usage
from app.agent.observer import Kind, Stage, Step
from app.agent.outcome import Attempt, Outcome
from app.errors import label
from app.telemetry.allowlist import Value, checked, token
from app.telemetry.guard import guarded
from app.telemetry.scores import FAILED, ScoreRow, budget_rows, scores_of

if TYPE_CHECKING:
    from app.telemetry.client import Telemetry


class Span:
    """One observation (a no-op when telemetry is off)."""

    def __init__(self, observation: LangfuseObservationWrapper | None) -> None:
        self.observation = observation

    def update(self, metadata: Mapping[str, Value]) -> None:
        self._apply("update", metadata=checked(metadata))

    def usage(self, usage: Usage, stop_reason: str | None) -> None:
        self._apply(
            "update",
            usage_details=usage_details(usage),
            metadata=checked({"stop_reason": stop_reason}),
        )

    def fail(self, reason: str, level: Literal["WARNING", "ERROR"] = "ERROR") -> None:
        """Mark the observation failed with a fixed label (anything else becomes "failed")."""
        self._apply("update", level=level, status_message=reason if token(reason) else "failed")

    def end(self) -> None:
        observation = self.observation
        if observation is not None:
            guarded("end", observation.end)
            self.observation = None

    def _apply(self, what: str, **fields: object) -> None:
        observation = self.observation
        if observation is not None:
            guarded(what, lambda: observation.update(**fields))  # type: ignore[arg-type]


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
        self.over_budget: str | None = None  # which budget the message was past (no answer)
        self.triage: str | None = None  # an unasked message's triage category (help channels)

    @property
    def left(self) -> bool:
        """An unasked message left alone (any category but `question`): no outcome, not
        in the rates."""
        return self.triage not in (None, "question")

    def stage(self, stage: Stage, attempt: int, total: int) -> None:
        return None  # the trace has a span per call and check; the stage is the status line's

    @contextmanager
    def observe(
        self,
        name: str,
        kind: Kind,
        *,
        parent: Step | None = None,
        model: str | None = None,
        **metadata: Value,
    ) -> Iterator[Span]:
        """A child observation timed by the body; an exception marks it failed, by its
        label, and goes on (observations are not "current": nothing records the exception)."""
        within = (parent if isinstance(parent, Span) else self.root).observation
        if within is None:
            yield Span(None)
            return
        span = Span(
            guarded(
                name,
                lambda: within.start_observation(
                    name=name,
                    as_type=kind,  # type: ignore[arg-type]  # overloaded per literal
                    model=model,
                    metadata=checked(metadata),
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
            guarded(name, lambda: root.create_event(name=name, metadata=checked(metadata)))

    def checked(self, check: Step, attempt: Attempt) -> None:
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

    def triaged(
        self,
        category: str,
        by: str,
        duration_ms: float,
        *,
        model: str | None = None,
        usage: Usage | None = None,
    ) -> None:
        """How an unasked message (a help channel's) was triaged: an observation `triage`
        (a generation, with its usage, when the model decided) and the `triage` score."""
        self.triage = category
        kind: Kind = "generation" if usage is not None else "span"
        with self.observe(
            "triage", kind, model=model, category=category, decided_by=by, duration_ms=duration_ms
        ) as span:
            if usage is not None:
                span.usage(usage, None)

    def undelivered(self) -> None:
        """Slack refused the answer (after retries): the user did not get it."""
        self.delivered = False

    def stopped_by_user(self) -> None:
        """The user stopped the streamed answer: what they saw of it was verified."""
        self.stopped = True

    def score(self) -> None:
        """The trace's scores: from the Outcome, or, when the message failed without one
        (e.g. its thread could not be read), as not verified with outcome `error`; an
        unasked message's triage category; only that for one left alone."""
        if self.telemetry is None:
            return
        rows: list[ScoreRow] | tuple[ScoreRow, ...] = (
            ()
            if self.left
            else budget_rows(self.over_budget)
            if self.over_budget is not None
            else scores_of(self.outcome, self.delivered, self.stopped)
            if self.outcome is not None
            else FAILED
        )
        if self.triage is not None:
            rows = [*rows, ("triage", self.triage, "CATEGORICAL", "")]
        self.telemetry.scores(self.trace_id, rows, at=self.at)


NO_TRACE = Trace("", None)


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
