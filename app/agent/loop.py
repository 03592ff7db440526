"""answer(): draft → verify → retry with feedback → Outcome.

Only two kinds of text ever leave this module: the text of a verdict that passed, or a
canned reply (the graceful failure, or "busy") that holds nothing from any draft.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from anthropic import AsyncAnthropic

from app.agent.conversation import Conversation
from app.agent.judge import Judged, JudgeUnavailable, judge
from app.agent.model import (
    Draft,
    ModelError,
    ModelUnavailable,
    Request,
    Usage,
    draft,
    make_client,
)
from app.agent.prompts import conversation_messages, retry_messages, system_blocks
from app.settings import Settings
from app.verify import Dialect, Verdict, amend, busy_message, failure_message, feedback, verify
from app.verify.codes import issue

Reason = Literal["verified", "exhausted", "refused", "deadline", "unavailable", "rejected"]
Stage = Literal["drafting", "checking"]
Progress = Callable[[Stage, int, int], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class LoopConfig:
    model: str
    max_tokens: int
    max_attempts: int
    deadline: float  # seconds for the whole message
    judge_model: str | None  # None: no judge

    @classmethod
    def from_settings(cls, settings: Settings) -> LoopConfig:
        return cls(
            model=settings.anthropic_model,
            max_tokens=settings.anthropic_max_tokens,
            max_attempts=settings.max_attempts,
            deadline=settings.message_deadline,
            judge_model=settings.judge_model if settings.judge_enabled else None,
        )


@dataclass(frozen=True, slots=True)
class Deps:
    client: AsyncAnthropic
    config: LoopConfig
    progress: Progress | None = None  # told when each attempt drafts and is judged

    @classmethod
    def from_settings(cls, settings: Settings, progress: Progress | None = None) -> Deps:
        return cls(make_client(settings), LoopConfig.from_settings(settings), progress)


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

    @property
    def usage(self) -> Usage:
        total = Usage()
        for attempt in self.attempts:
            total = total + attempt.usage + attempt.judge_usage
        return total


async def answer(conversation: Conversation, deps: Deps, reference: str = "") -> Outcome:
    """Answer the conversation's new message: exactly one Outcome, whatever happens."""
    run = _Run(conversation, deps, reference)
    try:
        async with asyncio.timeout(deps.config.deadline):
            return await run.loop()
    except TimeoutError:
        return run.give_up("deadline", error="deadline")


class _Run:
    def __init__(self, conversation: Conversation, deps: Deps, reference: str) -> None:
        self.conversation = conversation
        self.deps = deps
        self.reference = reference
        self.prefix = conversation_messages(conversation)
        self.system = system_blocks(conversation.dialect)
        self.attempts: list[Attempt] = []
        self.number = 0
        self.started = time.perf_counter()

    async def loop(self) -> Outcome:
        messages = self.prefix
        for number in range(1, self.deps.config.max_attempts + 1):
            result = await self.attempt(number, messages)
            if isinstance(result, Outcome):
                return result
            messages = retry_messages(self.prefix, result.text, feedback(result))
        return self.give_up("exhausted")

    async def attempt(self, number: int, messages: list[dict[str, Any]]) -> Verdict | Outcome:
        """One draft, verified (and judged): an Outcome when the loop ends, else the verdict."""
        self.number, self.started = number, time.perf_counter()
        await self.tell("drafting")
        try:
            drafted = await draft(self.deps.client, self.request(messages))
        except ModelUnavailable as exc:
            return self.give_up("unavailable", error=exc.reason)
        except ModelError as exc:
            return self.give_up("rejected", error=exc.reason)
        if drafted.stop_reason == "refusal":
            return self.give_up("refused", drafted, error="refusal")
        verdict = verify(drafted.text, question=self.conversation.message, dialect=self.dialect)
        if drafted.stop_reason == "max_tokens":
            verdict = amend(verdict, (issue("TRUNCATED"),))
        judged = None
        judge_model = self.deps.config.judge_model
        if verdict.passed and judge_model is not None:
            try:
                judged = await self.judge(judge_model, verdict.text)
            except JudgeUnavailable as exc:
                return self.give_up("unavailable", drafted, error=f"judge_{exc.reason}")
            verdict = amend(
                verdict,
                () if judged.judgement.passed else judged.issues(),
                judge_score=judged.judgement.score,
            )
        self.record(drafted, verdict, judged)
        if not verdict.passed:
            return verdict
        attempts = tuple(self.attempts)
        return Outcome(verdict.text, True, "verified", attempts, verdict.score, verdict.grade)

    async def judge(self, model: str, text: str) -> Judged:
        await self.tell("checking")
        return await judge(self.deps.client, model, self.conversation.message, text)

    def request(self, messages: list[dict[str, Any]]) -> Request:
        config = self.deps.config
        return Request(config.model, config.max_tokens, self.system, messages)

    async def tell(self, stage: Stage) -> None:
        if self.deps.progress is not None:
            await self.deps.progress(stage, self.number, self.deps.config.max_attempts)

    def record(
        self,
        drafted: Draft | None,
        verdict: Verdict | None,
        judged: Judged | None = None,
        error: str | None = None,
    ) -> None:
        self.attempts.append(
            Attempt(
                number=self.number,
                passed=verdict.passed if verdict is not None else False,
                codes=verdict.codes if verdict is not None else (),
                repaired=verdict.repaired if verdict is not None else (),
                draft_length=len(drafted.text) if drafted is not None else 0,
                question_length=len(self.conversation.message),
                duration_ms=round((time.perf_counter() - self.started) * 1000, 3),
                usage=drafted.usage if drafted is not None else Usage(),
                stop_reason=drafted.stop_reason if drafted is not None else None,
                judge_score=judged.judgement.score if judged is not None else None,
                judge_usage=judged.usage if judged is not None else Usage(),
                error=error,
            )
        )

    def give_up(
        self, reason: Reason, drafted: Draft | None = None, error: str | None = None
    ) -> Outcome:
        """End without a verified answer: the canned reply carries nothing from any draft."""
        if error is not None and self.number > len(self.attempts):
            self.record(drafted, None, error=error)
        reply = busy_message if reason == "unavailable" else failure_message
        return Outcome(reply(self.dialect, self.reference), False, reason, tuple(self.attempts))

    @property
    def dialect(self) -> Dialect:
        return self.conversation.dialect
