"""The verification engine: pure functions, no I/O.

`verify(text, question=...)` repairs what can be repaired and checks the rest; only
`Verdict.text` of a passing verdict may ever be delivered.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.verify import filler, language
from app.verify.codes import RULES, issue
from app.verify.feedback import busy_message, failure_message, feedback
from app.verify.repair import repair
from app.verify.rules import content_findings
from app.verify.score import grade, score
from app.verify.verdict import DIALECTS, Citation, Dialect, Issue, Source, Verdict

__all__ = [
    "RULES",
    "Citation",
    "Dialect",
    "Issue",
    "Source",
    "Verdict",
    "amend",
    "busy_message",
    "failure_message",
    "feedback",
    "verify",
    "warm",
]


def warm() -> None:
    """Load the rules' models now (the language model, the filler model: tens of
    milliseconds each), so no answer's check waits for them."""
    language.warm()
    filler.model()


def verify(
    text: str,
    *,
    question: str,
    dialect: Dialect = "mrkdwn",
    sources: Sequence[Source] = (),
    citations: Sequence[Citation] = (),
    thread: Sequence[str] = (),
    said: Sequence[str] | None = None,
    files: Sequence[Source] = (),
    instructions: str = "",
    theirs: Sequence[str] | None = None,
) -> Verdict:
    """Repair `text` for `dialect`, then check it; the Verdict says whether it may be delivered.
    `thread` is the text of the earlier turns, oldest first (the subject an answer may
    follow); `said` those of them people wrote (default: all), the only ones trusted for the
    language an answer may use and the figures it may state: the assistant's own earlier
    answers prove nothing. `files` are documents shared in the thread: checked like
    sources when cited, but an answer need not cite them. `instructions` are what the model
    was told (the system prompt, without its example answer): the answer may not repeat
    them. `theirs` are the asker's own earlier turns (default: all of `said`): only they
    may ask for another language."""
    if dialect not in DIALECTS:
        raise ValueError(f"dialect must be one of {', '.join(DIALECTS)}, not {dialect!r}")
    fixed = repair(text, dialect)
    cited: list[str] = []
    content = content_findings(
        fixed.layout,
        question,
        sources,
        citations,
        cited=cited,
        thread=thread,
        said=thread if said is None else said,
        files=files,
        instructions=instructions,
        theirs=theirs,
    )
    findings = [*fixed.findings, *content]
    issues = tuple(issue(f.code, f.start, f.end, f.detail) for f in findings)
    repaired = tuple(sorted(fixed.applied - {i.code for i in issues}))
    return _verdict(fixed.text, dialect, issues, repaired, cited=tuple(cited))


def amend(
    verdict: Verdict, issues: Sequence[Issue] = (), judge_score: float | None = None
) -> Verdict:
    """The verdict with issues found outside verify() (truncation, the judge) and the
    judge's score folded in; `passed`, `score` and `grade` are recomputed."""
    found = (*verdict.issues, *issues)
    return _verdict(
        verdict.text,
        verdict.dialect,
        found,
        verdict.repaired,
        judge_score=judge_score,
        cited=verdict.cited,
    )


def _verdict(
    text: str,
    dialect: Dialect,
    issues: tuple[Issue, ...],
    repaired: tuple[str, ...],
    *,
    judge_score: float | None = None,
    cited: tuple[str, ...] = (),
) -> Verdict:
    """The one place that decides a verdict: it fails on any remaining error."""
    value = score(issues, repaired, judge_score)
    passed = not any(i.severity == "error" for i in issues)
    return Verdict(passed, text, dialect, issues, repaired, value, grade(value), cited)
