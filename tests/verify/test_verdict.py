"""The Verdict, its score and grade, retry feedback and the graceful failure message."""

from __future__ import annotations

import pytest

from app.verify import Dialect, Source, amend, busy_message, failure_message, feedback, verify
from app.verify.codes import RULES
from app.verify.score import grade, score
from app.verify.verdict import Issue


def test_clean_answer_passes_unchanged_with_top_score() -> None:
    text = "Run *make test* to check everything. See <https://x.io|the guide>."
    verdict = verify(text, question="How do I run the tests?")
    assert verdict.passed
    assert verdict.text == text
    assert (verdict.issues, verdict.repaired) == ((), ())
    assert (verdict.score, verdict.grade) == (1.0, "excellent")


def test_unknown_dialect_is_rejected_clearly() -> None:
    with pytest.raises(ValueError, match="dialect must be one of mrkdwn, markdown"):
        verify("x", question="q", dialect="html")  # type: ignore[arg-type]


def test_issues_locate_the_problem_in_the_delivered_text() -> None:
    sources = (Source("d1", "Guide", "https://docs.example.com/guide"),)
    verdict = verify("See <https://evil.example.com|this>.", question="hi", sources=sources)
    located = [i for i in verdict.issues if i.code == "UNKNOWN_SOURCE"]
    assert len(located) == 1
    assert verdict.text[located[0].start : located[0].end] == "<https://evil.example.com|this>"


@pytest.mark.parametrize(
    ("issues", "repaired", "expected"),
    [
        ((), (), 1.0),
        ((), ("MARKDOWN_BOLD",), 0.97),
        ((), ("MARKDOWN_BOLD", "TABLE", "RAW_HTML"), 0.91),
        ((Issue("MRKDWN_BOLD", "warning", "m", "f"),), (), 0.9),
        ((Issue("EMPTY", "error", "m", "f"),), (), 0.55),
        ((Issue("OFF_TOPIC", "error", "m", "f"), Issue("OFF_TOPIC", "error", "m", "f")), (), 0.55),
        ((Issue("EMPTY", "error", "m", "f"), Issue("UNCITED", "error", "m", "f")), (), 0.1),
        (tuple(Issue(c, "error", "m", "f") for c in ("A", "B", "C")), (), 0.0),
    ],
)
def test_score_formula(
    issues: tuple[Issue, ...], repaired: tuple[str, ...], expected: float
) -> None:
    assert score(issues, repaired) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0, "excellent"),
        (0.95, "excellent"),
        (0.9499, "good"),
        (0.85, "good"),
        (0.8, "acceptable"),
        (0.75, "acceptable"),
        (0.6, "poor"),
        (0.5999, "failed"),
        (0.0, "failed"),
    ],
)
def test_grades(value: float, expected: str) -> None:
    assert grade(value) == expected


def test_every_failing_verdict_is_graded_failed() -> None:
    for code, rule in RULES.items():
        if rule.severity == "error":
            assert grade(score((Issue(code, "error", "m", "f"),), ())) == "failed"


def test_feedback_has_one_line_per_issue_with_code_problem_and_fix() -> None:
    sources = (Source("d1", "Guide", "https://docs.example.com/guide"),)
    text = "Lunch is lasagne, salad and bread today, then tiramisu at the canteen.\n```\nx"
    verdict = verify(text, question="How do I rotate credentials?", sources=sources)
    assert not verdict.passed
    lines = feedback(verdict).splitlines()
    issue_lines = [line for line in lines if line.startswith("- ")]
    assert len(issue_lines) == len(verdict.issues)
    for line, issue in zip(issue_lines, verdict.issues, strict=True):
        assert line.startswith(f"- {issue.code}")
        assert RULES[issue.code].message in line
        assert f"Fix: {RULES[issue.code].fix}" in line
    assert "line 2" in feedback(verdict)  # the unclosed fence is located
    assert "try again" not in feedback(verdict).lower()


def test_feedback_is_bounded_for_many_issues() -> None:
    sources = (Source("d1", "Guide", "https://docs.example.com/guide"),)
    text = " ".join(f"https://bad{i}.example.com" for i in range(60))
    verdict = verify(text, question="hi", sources=sources)
    lines = feedback(verdict).splitlines()
    assert len(lines) <= 28
    assert "more issues" in lines[-2]


@pytest.mark.parametrize("dialect", ["mrkdwn", "markdown"])
def test_failure_message_is_verified_text_in_its_dialect(dialect: Dialect) -> None:
    message = failure_message(dialect, "tr-12ab")
    assert "`tr-12ab`" in message
    verdict = verify(message, question="hi", dialect=dialect)
    assert verdict.passed
    assert verdict.text == message  # needs no repair in its own dialect
    assert ("**" in message) is (dialect == "markdown")


def test_failure_message_cannot_smuggle_text_through_the_reference() -> None:
    message = failure_message("mrkdwn", "<!here> secret draft text")
    assert "secret" not in message
    assert "<!here>" not in message
    assert "`unknown`" in message
    assert "`0123456789ab`" in failure_message("mrkdwn", "0123456789abcdef0123")


@pytest.mark.parametrize("dialect", ["mrkdwn", "markdown"])
def test_busy_message_is_distinct_and_verified(dialect: Dialect) -> None:
    message = busy_message(dialect, "ref-1")
    assert message != failure_message(dialect, "ref-1")
    assert "`ref-1`" in message
    verdict = verify(message, question="hi", dialect=dialect)
    assert verdict.passed and verdict.text == message


def test_amend_adds_issues_and_folds_in_the_judge_score() -> None:
    verdict = verify("A fine answer about deploys.", question="hi")
    judged = amend(verdict, judge_score=80)
    assert judged.passed and judged.score == pytest.approx(0.8) and judged.grade == "acceptable"
    failed = amend(verdict, (Issue("JUDGE_OTHER", "error", "m", "f"),), judge_score=80)
    assert not failed.passed and failed.grade == "failed"
    assert failed.codes == ("JUDGE_OTHER",)


def test_feedback_names_the_available_sources_after_a_citation_issue() -> None:
    sources = (
        Source("a1b2c3d4e5f60718", "Deploying billing › Rollback", "https://wiki.example.com/b"),
        Source("0f1e2d3c4b5a6978", "On-call", None),
    )
    text = "Deploys run from CI on merge; roll back with the deploy button in the console."
    uncited = verify(text, question="hi", sources=sources)
    assert uncited.codes == ("UNCITED",)
    told = feedback(uncited, sources)
    assert (
        "- Deploying billing › Rollback (source a1b2c3d4e5f60718, https://wiki.example.com/b)"
        in told
    )
    assert "- On-call (source 0f1e2d3c4b5a6978)" in told
    formatting = verify("**Deploys** run from CI.\n```\nx", question="hi")
    assert "search results" not in feedback(formatting, sources)  # not a citation issue
