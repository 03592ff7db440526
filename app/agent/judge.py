"""The optional quality judge: a second model reads the question and the answer and says
whether the answer may be posted. It fails closed: no judgement, no verified answer."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import anthropic
import pydantic
from anthropic import AsyncAnthropic
from pydantic import BaseModel, Field

from app.agent.model import CallFailed, Usage, usage_of
from app.verify import Issue, Source

JUDGE_MAX_TOKENS = 1024
JudgeCode = Literal[
    "HALLUCINATION", "UNSUPPORTED_CLAIM", "NON_ANSWER", "INCOMPLETE", "UNSAFE", "OTHER"
]

SYSTEM = """You review an answer that a Slack assistant wants to post, before anyone sees it.
Fail it (passed=false) if it states facts that are likely invented (HALLUCINATION), makes \
claims that nothing in the conversation supports and that are not common knowledge \
(UNSUPPORTED_CLAIM), does not answer the question (NON_ANSWER), leaves out what the question \
clearly asked for (INCOMPLETE), or could cause harm (UNSAFE); OTHER for anything else.
When sources from the team's docs are given, what they say counts as supported.
Do not judge formatting; it is checked elsewhere. score is 0-100 for overall quality.
For each issue give its code and a one-sentence message; list required_fixes as short \
instructions to the writer. An answer that passes has no issues."""


class JudgeIssue(BaseModel):
    code: JudgeCode
    message: str


class Judgement(BaseModel):
    passed: bool
    score: int = Field(ge=0, le=100)
    issues: list[JudgeIssue]
    required_fixes: list[str]


class JudgeUnavailable(CallFailed):
    """The judge could not be reached or gave no valid judgement."""


@dataclass(frozen=True, slots=True)
class Judged:
    judgement: Judgement
    usage: Usage

    def issues(self) -> tuple[Issue, ...]:
        """The judge's issues as verification issues, codes prefixed JUDGE_."""
        fix = " ".join(self.judgement.required_fixes) or "Address the reviewer's concern."
        found = self.judgement.issues or [JudgeIssue(code="OTHER", message="Rejected.")]
        return tuple(
            Issue(f"JUDGE_{item.code}", "error", f"Reviewer: {item.message}", fix) for item in found
        )


async def judge(
    client: AsyncAnthropic,
    model: str,
    question: str,
    answer: str,
    sources: Sequence[Source] = (),
) -> Judged:
    """One structured-output call; raises JudgeUnavailable rather than guess. Sources go as
    plain text: this call has no citations (they do not mix with structured output)."""
    given: dict[str, object] = {"question": question, "answer": answer}
    if sources:
        given["sources"] = [{"title": s.title, "text": s.text} for s in sources]
    prompt = json.dumps(given, ensure_ascii=False)
    try:
        message = await client.messages.parse(
            model=model,
            max_tokens=JUDGE_MAX_TOKENS,
            system=SYSTEM,
            messages=[{"role": "user", "content": prompt}],
            output_format=Judgement,
        )
    except anthropic.APIError as exc:
        raise JudgeUnavailable(type(exc).__name__) from None
    except (pydantic.ValidationError, ValueError):
        raise JudgeUnavailable("invalid_judgement") from None
    if message.parsed_output is None:
        raise JudgeUnavailable("no_judgement")
    return Judged(message.parsed_output, usage_of(message.usage))
