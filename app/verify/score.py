"""Quality score and grade of a verdict.

score = 1 − 0.45 × (distinct error codes) − 0.10 × (distinct warning codes)
          − 0.03 × (distinct repaired codes), clamped to [0, 1],
then × judge score / 100 when the quality judge scored the draft.
One remaining error puts a draft below 0.60, so every failing draft is graded "failed";
repairs cost a little, so a draft that needed none scores highest.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.verify.verdict import Grade, Issue

ERROR_PENALTY = 0.45
WARNING_PENALTY = 0.10
REPAIR_PENALTY = 0.03
GRADES: tuple[tuple[float, Grade], ...] = (
    (0.95, "excellent"),
    (0.85, "good"),
    (0.75, "acceptable"),
    (0.60, "poor"),
)


def score(
    issues: Iterable[Issue], repaired: Iterable[str], judge_score: float | None = None
) -> float:
    issues = list(issues)
    errors = {issue.code for issue in issues if issue.severity == "error"}
    warnings = {issue.code for issue in issues if issue.severity == "warning"}
    penalty = (
        ERROR_PENALTY * len(errors)
        + WARNING_PENALTY * len(warnings)
        + REPAIR_PENALTY * len(set(repaired))
    )
    value = min(1.0, max(0.0, 1.0 - penalty))
    if judge_score is not None:
        value *= min(100.0, max(0.0, judge_score)) / 100
    return round(value, 4)


def grade(value: float) -> Grade:
    for floor, name in GRADES:
        if value >= floor:
            return name
    return "failed"
