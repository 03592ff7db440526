"""What an evaluation run measured, from its items' results: rates, attempts, expected
behaviour, outcomes, issue codes and their fates, latency, tokens and cost (app/eval/report.py
prints it). Ids, codes, counts and timings only: never a question or an answer."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from app.agent.model import Usage
from app.eval.dataset import EXPECTS
from app.eval.plan import Setup
from app.eval.prices import cost
from app.eval.run import Result
from app.telemetry.scores import issues_found


@dataclass(frozen=True)
class Summary:
    setup: Setup
    results: tuple[Result, ...]
    items: int
    verified: int
    first_pass: int
    attempts_to_verify: float | None
    expected: dict[str, tuple[int, int]]  # per expected behaviour: (met, judged)
    outcomes: Counter[str]
    issues: dict[str, Counter[str]]  # code -> fate -> count
    p50: float | None
    p95: float | None
    draft_usage: Usage
    judge_usage: Usage
    grade_usage: Usage
    cost: float | None  # drafts and judge; None when a model has no list price
    grade_cost: float | None
    unpriced: tuple[str, ...] = field(default=())

    @property
    def verified_rate(self) -> float:
        return self.verified / self.items if self.items else 0.0

    @property
    def first_pass_rate(self) -> float:
        return self.first_pass / self.items if self.items else 0.0

    @property
    def met(self) -> tuple[int, int]:
        pairs = self.expected.values()
        return sum(m for m, _ in pairs), sum(j for _, j in pairs)


def summarize(setup: Setup, results: Sequence[Result]) -> Summary:
    outcomes = [r.outcome for r in results if r.outcome is not None]
    verified = [o for o in outcomes if o.verified]
    expected: dict[str, tuple[int, int]] = {}
    for kind in EXPECTS:
        judged = [r for r in results if r.expect == kind and r.met is not None]
        if judged or any(r.expect == kind for r in results):
            expected[kind] = (sum(1 for r in judged if r.met), len(judged))
    issues: dict[str, Counter[str]] = {}
    for outcome in outcomes:
        for _, code, fate in issues_found(outcome):
            issues.setdefault(code, Counter())[fate] += 1
    draft, judge, grade = Usage(), Usage(), Usage()
    for result in results:
        grade += result.grade_usage
        for attempt in result.outcome.attempts if result.outcome else ():
            draft += attempt.usage
            judge += attempt.judge_usage
    spent: dict[str, Usage] = {}  # per model: drafts and judge may be one model
    for model, usage in ((setup.model, draft), (setup.judge, judge)):
        if model and usage != Usage():
            spent[model] = spent.get(model, Usage()) + usage
    costs = {model: cost(model, usage) for model, usage in spent.items()}
    grade_cost = cost(setup.grader, grade) if grade != Usage() else 0.0
    unpriced = tuple(sorted(model for model, dollars in costs.items() if dollars is None))
    seconds = sorted(r.seconds for r in results if r.outcome is not None)  # not broken ones
    return Summary(
        setup=setup,
        results=tuple(results),
        items=len(results),
        verified=len(verified),
        first_pass=sum(1 for o in verified if len(o.attempts) == 1),
        attempts_to_verify=(
            sum(len(o.attempts) for o in verified) / len(verified) if verified else None
        ),
        expected=expected,
        outcomes=Counter(r.reason for r in results),
        issues=issues,
        p50=percentile(seconds, 50),
        p95=percentile(seconds, 95),
        draft_usage=draft,
        judge_usage=judge,
        grade_usage=grade,
        cost=None if unpriced else sum(c for c in costs.values() if c is not None),
        grade_cost=grade_cost,
        unpriced=unpriced,
    )


def percentile(ordered: Sequence[float], p: float) -> float | None:
    """The nearest-rank percentile of sorted values (None for none)."""
    if not ordered:
        return None
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]
