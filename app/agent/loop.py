"""answer(): draft → verify → retry with feedback → Outcome.

Only two kinds of text ever leave this module: the text of a verdict that passed, or a
canned reply (the graceful failure, or "busy") that holds nothing from any draft.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from app.agent.capabilities import Client, Want
from app.agent.checks import Check
from app.agent.conversation import Conversation
from app.agent.deadline import within
from app.agent.judge import JudgeConfig, Judged, JudgeUnavailable, judge
from app.agent.model import (
    Draft,
    ModelError,
    ModelUnavailable,
    Request,
    Usage,
    draft,
    make_client,
)
from app.agent.observer import UNWATCHED, Observer, Step
from app.agent.outcome import Attempt, JudgeResult, Outcome, Reason
from app.agent.prompts import (
    conversation_messages,
    example,
    file_sources,
    retry_messages,
    system_blocks,
)
from app.agent.tools import Tool, Toolbox, ToolLimits
from app.settings import Settings
from app.verify import (
    Dialect,
    Source,
    Verdict,
    amend,
    busy_message,
    failure_message,
    feedback,
    verify,
)
from app.verify.codes import issue
from app.verify.footer import sources_footer

JudgeFallback = Literal["busy", "deliver"]
JUDGE_FILE_CHARS = 4000  # of each shared document's text, shown to the judge


@dataclass(frozen=True, slots=True)
class LoopConfig:
    model: str
    max_tokens: int
    max_attempts: int
    deadline: float  # seconds for the whole message
    judge: JudgeConfig | None  # None: no judge
    judge_fallback: JudgeFallback = "busy"  # when the judge cannot be reached
    thinking: Want = "light"  # how drafts think
    tools: ToolLimits = field(default_factory=ToolLimits)  # per attempt, call, message

    @classmethod
    def from_settings(cls, settings: Settings) -> LoopConfig:
        judge = JudgeConfig.from_settings(settings)
        return cls(
            model=settings.anthropic_model,
            max_tokens=settings.anthropic_max_tokens,
            max_attempts=settings.max_attempts,
            deadline=settings.message_deadline,
            judge=judge if settings.judge_enabled else None,
            judge_fallback=settings.judge_fallback,
            thinking=settings.anthropic_thinking,
            tools=ToolLimits(
                settings.tool_calls, settings.tool_timeout, settings.tool_result_chars
            ),
        )


Model = Callable[[Client, Request], Awaitable[Draft]]


class Retriever(Protocol):
    """Where a message's sources come from: the team's docs (app.knowledge's Knowledge),
    or the passages an evaluation item gives (app.eval)."""

    def sources(self, conversation: Conversation) -> tuple[Source, ...]: ...


@dataclass(frozen=True, slots=True)
class Deps:
    """What every message is answered with, made once per process."""

    client: Client
    config: LoopConfig
    knowledge: Retriever | None = None  # the team's docs; None: no sources, no citation rules
    model: Model = draft  # the model seam: benches and tests may answer without the API

    @classmethod
    def from_settings(cls, settings: Settings, knowledge: Retriever | None = None) -> Deps:
        config = LoopConfig.from_settings(settings)
        return cls(make_client(settings), config, knowledge=knowledge)


async def answer(
    conversation: Conversation,
    deps: Deps,
    reference: str = "",
    *,
    observer: Observer = UNWATCHED,
    tools: Sequence[Tool] = (),
    checks: Sequence[Check] = (),
) -> Outcome:
    """Answer the conversation's new message: exactly one Outcome, whatever happens.
    `observer` (e.g. the message's telemetry and status line, app.agent.observer.Observers)
    is told of each stage, call and check, and of the end. `tools` (read-only, this
    message's) may be called while drafting; what they read becomes sources. `checks` run
    on a draft that passed the rules, before the judge (app/agent/checks.py)."""
    limits = deps.config.tools
    toolbox = Toolbox(tools if limits.calls else (), limits)
    run = _Run(conversation, deps, reference, observer, toolbox, checks=checks)
    try:
        async with asyncio.timeout(deps.config.deadline):
            with within(deps.config.deadline):
                outcome = await run.loop()
    except TimeoutError:
        outcome = run.give_up("deadline", error="deadline")
    observer.conclude(outcome, deps.config.max_attempts)
    return outcome


class _Run:
    def __init__(
        self,
        conversation: Conversation,
        deps: Deps,
        reference: str,
        observer: Observer,
        toolbox: Toolbox,
        *,
        checks: Sequence[Check] = (),
    ) -> None:
        self.conversation = conversation
        self.checks = checks
        self.deps = deps
        self.reference = reference
        self.observer = observer
        self.toolbox = toolbox
        self.exchange: list[dict[str, Any]] = []  # tool calls and results, replayed on retries
        self.sources: tuple[Source, ...] = ()
        self.files = file_sources(conversation)  # documents shared: citable, not required
        self.system: list[dict[str, Any]] = []
        self.attempts: list[Attempt] = []
        self.number = 0
        self.started = time.perf_counter()

    async def loop(self) -> Outcome:
        self.sources = self.retrieve()
        named = bool(self.conversation.speaker) or any(t.speaker for t in self.conversation.turns)
        self.system = system_blocks(
            self.dialect,
            sources=bool(self.sources),
            speakers=named,
            tools=bool(self.toolbox.tools),
            files=bool(self.conversation.files or self.conversation.unread),
            instructions=self.conversation.instructions,
        )
        prefix = conversation_messages(self.conversation, self.sources)
        messages = prefix
        for number in range(1, self.deps.config.max_attempts + 1):
            result = await self.attempt(number, messages)
            if isinstance(result, Outcome):
                return result
            told = feedback(result, self.sources)
            messages = retry_messages([*prefix, *self.exchange], result.text, told)
        return self.give_up("exhausted")

    @property
    def instructions(self) -> str:
        """The system prompt, without the example answer it shows (an answer may be like
        it), for PROMPT_ECHO."""
        told = "\n".join(block["text"] for block in self.system)
        return told.replace(example(self.dialect), "")

    def retrieve(self) -> tuple[Source, ...]:
        """Passages of the team's docs for this message: the sources every draft is given
        (as search results) and checked against."""
        knowledge = self.deps.knowledge
        if knowledge is None:
            return ()
        with self.observer.observe("knowledge.search", "retriever") as search:
            sources = knowledge.sources(self.conversation)
            search.update({"sources": len(sources)})
        return sources

    async def attempt(self, number: int, messages: list[dict[str, Any]]) -> Verdict | Outcome:
        """One draft, verified (and judged): an Outcome when the loop ends, else the verdict."""
        self.number, self.started = number, time.perf_counter()
        self.observer.stage("drafting", self.number, self.deps.config.max_attempts)
        try:
            drafted = await self.draft(messages)
        except ModelUnavailable as exc:
            return self.give_up("unavailable", error=exc.reason)
        except ModelError as exc:
            return self.give_up("rejected", error=exc.reason)
        if drafted.stop_reason == "refusal":
            return self.give_up("refused", drafted, error="refusal")
        with self.observer.observe("agent.verify", "guardrail", attempt=number) as check:
            return await self.check(drafted, check)

    async def check(self, drafted: Draft, check: Step) -> Verdict | Outcome:
        verdict = verify(
            drafted.text,
            question=self.conversation.message,
            dialect=self.dialect,
            sources=self.sources,
            citations=drafted.citations,
            thread=tuple(turn.text for turn in self.conversation.turns),
            said=tuple(turn.text for turn in self.conversation.turns if turn.role == "user"),
            files=self.files,
            instructions=self.instructions,
            theirs=tuple(
                turn.text
                for turn in self.conversation.turns
                if turn.role == "user" and turn.speaker == self.conversation.speaker
            ),
        )
        if drafted.stop_reason == "max_tokens":
            verdict = amend(verdict, (issue("TRUNCATED"),))
        verdict = await self.inspect(verdict, check)
        judged: Judged | JudgeUnavailable | None = None
        error = None
        if verdict.passed and self.deps.config.judge is not None:
            judged = await self.judge(self.deps.config.judge, verdict.text, check)
            if isinstance(judged, JudgeUnavailable):
                error = f"judge_{judged.reason}"
                if self.deps.config.judge_fallback == "busy":
                    return self.give_up("unavailable", drafted, error=error, check=check)
            else:
                verdict = amend(
                    verdict,
                    () if judged.judgement.passed else judged.issues(),
                    judge_score=judged.judgement.score,
                )
        self.record(drafted, verdict, judged, error, check)
        if not verdict.passed:
            return verdict
        given = {source.id: source for source in (*self.sources, *self.files)}
        cited = [given[source_id] for source_id in verdict.cited]
        text = "\n\n".join(filter(None, (verdict.text, sources_footer(cited, self.dialect))))
        attempts = tuple(self.attempts)
        return Outcome(
            text,
            True,
            "verified",
            attempts,
            verdict.score,
            verdict.grade,
            cited=verdict.cited,
        )

    async def inspect(self, verdict: Verdict, parent: Step) -> Verdict:
        """The caller's checks, in turn, while the verdict passes: each may rewrite what it
        repairs and add issues."""
        for inspection in self.checks:
            if not verdict.passed:
                break
            with self.observer.observe(inspection.name, "guardrail", parent=parent) as step:
                given = (*self.sources, *self.files)
                result = await inspection(verdict.text, self.dialect, given)
                step.update(dict(result.counts))
            repaired = tuple(sorted({*verdict.repaired, *result.repaired}))
            verdict = amend(replace(verdict, text=result.text, repaired=repaired), result.issues)
        return verdict

    async def judge(self, config: JudgeConfig, text: str, check: Step) -> Judged | JudgeUnavailable:
        """The judge's verdict on the answer, or why there is none."""
        self.observer.stage("checking", self.number, self.deps.config.max_attempts)
        with self.observer.observe(
            "claude.judge", "generation", parent=check, model=config.model, attempt=self.number
        ) as call:
            try:
                shown = (
                    *self.sources,
                    *(replace(f, text=f.text[:JUDGE_FILE_CHARS]) for f in self.files),
                )
                judged = await judge(self.deps.client, config, self.conversation, text, shown)
            except JudgeUnavailable as exc:
                call.fail(f"judge_{exc.reason}")
                return exc
            call.usage(judged.usage, None)
            return judged

    async def draft(self, messages: list[dict[str, Any]]) -> Draft:
        """One draft: a model call, and while the model calls tools (at most ToolLimits.calls
        in this attempt), their results and the next call. The last call may not call tools."""
        limit = self.deps.config.tools.calls
        used, usage = 0, Usage()
        tools = self.toolbox.definitions() or None
        for _ in range(limit + 1):
            last = used >= limit
            with self.observer.observe(
                "claude.draft", "generation", model=self.deps.config.model, attempt=self.number
            ) as call:
                request = Request(
                    self.deps.config.model,
                    self.deps.config.max_tokens,
                    self.system,
                    messages,
                    self.deps.config.thinking,
                    tools,
                    last_call=last,
                    documents=tuple(f.id for f in self.files),
                )
                drafted = await self.deps.model(self.deps.client, request)
                call.usage(drafted.usage, drafted.stop_reason)
                if drafted.tool_uses:
                    call.update({"tool_calls": len(drafted.tool_uses)})
            usage += drafted.usage
            if drafted.stop_reason != "tool_use" or not drafted.tool_uses or last:
                break
            results, found = await self.toolbox.use(
                drafted.tool_uses, self.observer, None, allowed=limit - used
            )
            used += len(drafted.tool_uses)
            self.sources = (*self.sources, *(s for s in found if s not in self.sources))
            turn = [
                {"role": "assistant", "content": list(drafted.content)},
                {"role": "user", "content": results},
            ]
            self.exchange += turn
            messages = [*messages, *turn]
        return replace(drafted, usage=usage)

    def record(
        self,
        drafted: Draft | None,
        verdict: Verdict | None,
        judged: Judged | JudgeUnavailable | None = None,
        error: str | None = None,
        check: Step | None = None,
    ) -> None:
        """Keep the attempt's record; one that reached verification goes to the trace too."""
        attempt = Attempt(
            number=self.number,
            passed=verdict.passed if verdict is not None else False,
            codes=verdict.codes if verdict is not None else (),
            repaired=verdict.repaired if verdict is not None else (),
            draft_length=len(drafted.text) if drafted is not None else 0,
            question_length=len(self.conversation.message),
            duration_ms=round((time.perf_counter() - self.started) * 1000, 3),
            usage=drafted.usage if drafted is not None else Usage(),
            stop_reason=drafted.stop_reason if drafted is not None else None,
            judge=_judge_result(judged),
            judge_score=judged.judgement.score if isinstance(judged, Judged) else None,
            judge_usage=judged.usage if isinstance(judged, Judged) else Usage(),
            error=error,
        )
        self.attempts.append(attempt)
        if check is not None:
            self.observer.checked(check, attempt)

    def give_up(
        self,
        reason: Reason,
        drafted: Draft | None = None,
        error: str | None = None,
        check: Step | None = None,
    ) -> Outcome:
        """End without a verified answer: the canned reply carries nothing from any draft."""
        if error is not None and self.number > len(self.attempts):
            self.record(drafted, None, error=error, check=check)
        reply = busy_message if reason == "unavailable" else failure_message
        return Outcome(reply(self.dialect, self.reference), False, reason, tuple(self.attempts))

    @property
    def dialect(self) -> Dialect:
        return self.conversation.dialect


def _judge_result(judged: Judged | JudgeUnavailable | None) -> JudgeResult | None:
    if judged is None:
        return None
    if isinstance(judged, JudgeUnavailable):
        return "unavailable"
    return "passed" if judged.judgement.passed else "failed"
