"""The values that pass in and out of verification: sources, citations, issues, verdicts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Dialect = Literal["mrkdwn", "markdown"]
Severity = Literal["error", "warning"]
Grade = Literal["excellent", "good", "acceptable", "poor", "failed"]
DIALECTS: tuple[Dialect, ...] = ("mrkdwn", "markdown")


@dataclass(frozen=True, slots=True)
class Source:
    """A source given to the model: what a citation or link may point at, and the text a
    citation may quote (empty: quotes from it are not checked)."""

    id: str
    title: str
    url: str | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class Citation:
    """A citation the model returned; `source` names a Source by id or by url."""

    source: str
    title: str = ""
    cited_text: str = ""
    claim: str = ""  # the answer's text that carries the citation (its figures are checked)


@dataclass(frozen=True, slots=True)
class Issue:
    """One problem found in a draft.

    `start`/`end` are character offsets into the text the issue was found in (for the
    issues of a Verdict: `Verdict.text`); both are 0 for whole-answer issues.
    """

    code: str
    severity: Severity
    message: str
    fix: str
    start: int = 0
    end: int = 0

    @property
    def located(self) -> bool:
        return self.end > self.start


@dataclass(frozen=True, slots=True)
class Verdict:
    """The result of verifying one draft. `text` is the only text that may ever be delivered."""

    passed: bool
    text: str
    dialect: Dialect
    issues: tuple[Issue, ...]
    repaired: tuple[str, ...]
    score: float
    grade: Grade
    cited: tuple[str, ...] = ()  # ids of the given sources the text cites or links, in order

    @property
    def codes(self) -> tuple[str, ...]:
        """The distinct codes of the remaining issues, in order of first appearance."""
        return tuple(dict.fromkeys(issue.code for issue in self.issues))

    @property
    def errors(self) -> tuple[Issue, ...]:
        return tuple(issue for issue in self.issues if issue.severity == "error")
