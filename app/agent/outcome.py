"""What answering one message did: the Outcome, and an Attempt record per draft. These hold
ids, codes, counts and timings; the only text is an Outcome's verified answer or canned reply."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from app.agent.model import Usage

Reason = Literal["verified", "exhausted", "refused", "deadline", "unavailable", "rejected"]
# What the judge said of an attempt; "unavailable" with JUDGE_FALLBACK=deliver means the
# answer was delivered on the rules alone.
JudgeResult = Literal["passed", "failed", "unavailable"]


@dataclass(frozen=True, slots=True)
class Attempt:
    """What one attempt did, without its text: ids, codes, counts and timings only."""

    number: int
    passed: bool
    codes: tuple[str, ...]
    repaired: tuple[str, ...]
    draft_length: int
    question_length: int
    duration_ms: float
    usage: Usage
    stop_reason: str | None
    judge: JudgeResult | None = None  # None: not judged (rules failed, or no judge)
    judge_score: int | None = None
    judge_usage: Usage = field(default_factory=Usage)
    error: str | None = None  # a fixed label (e.g. "overloaded", "deadline"), never content


@dataclass(frozen=True, slots=True)
class Outcome:
    text: str  # the verified text, or a canned reply
    verified: bool
    reason: Reason
    attempts: tuple[Attempt, ...]
    score: float | None = None
    grade: str | None = None
    cited: tuple[str, ...] = ()  # ids of the sources the answer cites, listed in its footer

    @property
    def usage(self) -> Usage:
        total = Usage()
        for attempt in self.attempts:
            total = total + attempt.usage + attempt.judge_usage
        return total
