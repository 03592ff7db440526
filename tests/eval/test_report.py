"""The report's figures from known results: rates and their denominators, attempts, expected
behaviour per kind, latency without broken items, tokens and cost at list prices."""

from __future__ import annotations

import pytest

from app.agent.model import Usage
from app.agent.outcome import Attempt, Outcome
from app.eval.plan import Setup
from app.eval.prices import cost, price_of
from app.eval.report import compare, render
from app.eval.run import Result
from app.eval.summary import summarize
from app.verify.codes import RULES

SETUP = Setup("configured", "claude-sonnet-5-5", "claude-haiku-5-5", 3, "claude-haiku-5-5")


def attempt(number: int, passed: bool, *codes: str, tokens: int = 1000) -> Attempt:
    return Attempt(
        number=number,
        passed=passed,
        codes=codes,
        repaired=(),
        draft_length=10,
        question_length=10,
        duration_ms=1.0,
        usage=Usage(input=tokens, output=100, cache_read=500, cache_write=200),
        stop_reason="end_turn",
        judge="passed" if passed else None,
        judge_usage=Usage(input=300, output=50) if passed else Usage(),
    )


def outcome(*attempts: Attempt, cited: tuple[str, ...] = ()) -> Outcome:
    verified = attempts[-1].passed
    reason = "verified" if verified else "exhausted"
    return Outcome("text", verified, reason, attempts, cited=cited)  # type: ignore[arg-type]


RESULTS = [
    Result("a", "cite", outcome(attempt(1, True), cited=("doc#1",)), 2.0, True),
    Result("b", "answer", outcome(attempt(1, False, "UNCITED"), attempt(2, True)), 4.0, True),
    Result("c", "fail", outcome(*(attempt(n, False, "TABLE") for n in (1, 2, 3))), 6.0, True),
    Result("d", "answer", outcome(attempt(1, True)), 8.0, False),
    Result("e", "refuse", None, 0.0, error="knowledge_unavailable"),
]


def test_the_figures_and_their_denominators() -> None:
    made = summarize(SETUP, RESULTS)
    assert (made.items, made.verified, made.first_pass) == (5, 3, 2)
    assert made.verified_rate == pytest.approx(0.6)
    assert made.attempts_to_verify == pytest.approx(4 / 3)  # (1 + 2 + 1) / 3 verified
    assert made.expected == {"answer": (1, 2), "cite": (1, 1), "refuse": (0, 0), "fail": (1, 1)}
    assert made.met == (3, 4)
    assert made.outcomes == {"verified": 3, "exhausted": 1, "error": 1}
    assert dict(made.issues["UNCITED"]) == {"retried": 1}
    assert dict(made.issues["TABLE"]) == {"failed": 3}
    assert (made.p50, made.p95) == (4.0, 8.0)  # the broken item's 0 s is not a latency
    drafts = Usage(input=7000, output=700, cache_read=3500, cache_write=1400)  # 7 attempts
    assert made.draft_usage == drafts
    assert made.judge_usage == Usage(input=900, output=150)
    sonnet = (7000 * 2.0 + 700 * 10.0 + 3500 * 0.10 + 1400 * 2.50) / 1e6
    haiku = (900 * 0.10 + 150 * 0.50) / 1e6
    assert made.cost == pytest.approx(sonnet + haiku)


def test_a_model_without_a_list_price_has_no_cost() -> None:
    made = summarize(Setup("x", "claude-unknown-9", None, 3, "claude-haiku-5-5"), RESULTS)
    assert made.cost is None and made.unpriced == ("claude-unknown-9",)
    assert "— (no list price for claude-unknown-9)" in render(made, "set.jsonl")


def test_dated_model_ids_take_their_family_price() -> None:
    assert price_of("claude-haiku-4-5-20251001") == price_of("claude-haiku-4-5")
    assert price_of("claude-sonnet-5-5") != price_of("claude-sonnet-5")  # longest prefix
    assert cost("claude-opus-5", Usage(input=1_000_000)) == pytest.approx(5.0)


def test_the_comparison_lists_what_changed_and_the_deltas() -> None:
    before = summarize(SETUP, RESULTS)
    worse = [RESULTS[0], Result("b", "answer", outcome(attempt(1, False, "X")), 1.0, False)]
    after = summarize(
        Setup("B", "claude-haiku-5-5", "claude-haiku-5-5", 3, "claude-haiku-5-5"), worse
    )
    text = compare(before, after, "set.jsonl")
    verified = next(line for line in text.splitlines() if line.strip().startswith("verified"))
    assert verified.split()[-2:] == ["-10.0", "pts"]  # 60% -> 50%
    assert "b  verified ✓  →  exhausted ✗" in text
    assert "a  verified" not in text.split("Items (B)")[0].split("changed")[1]  # unchanged


def test_one_model_drafting_and_judging_is_priced_once_for_both() -> None:
    haiku = "claude-haiku-5-5"
    made = summarize(Setup("B", haiku, haiku, 3, haiku), RESULTS)
    both = made.draft_usage + made.judge_usage
    assert made.cost == pytest.approx(cost(haiku, both))


# Names as long as real ones get: Bedrock's inference profiles, several changes in a label,
# an id as long as a dataset allows (64), every rule's code.
BEDROCK_SONNET = "global.anthropic.claude-sonnet-4-5-20250929-v1:0"
BEDROCK_HAIKU = "global.anthropic.claude-haiku-4-5-20251001-v1:0"
LABEL = (
    f"ANTHROPIC_MODEL={BEDROCK_HAIKU} JUDGE_MODEL={BEDROCK_SONNET} MAX_ATTEMPTS=5 "
    "KNOWLEDGE_TOP_K=8 prompt terse-answers-for-the-platform-team.txt"
)
LONG_ID = "tf-mobile-release-train-missed-the-cut-and-the-hotfix-went-out-x1"
CODES = sorted(RULES)


def noisy(item: str, n: int) -> Result:
    """An item that failed every attempt with a handful of codes, then passed."""
    codes = CODES[n % len(CODES) :] + CODES
    failed = [attempt(k, False, *codes[k * 5 : k * 5 + 5], tokens=2_345_678) for k in (1, 2, 3)]
    return Result(item, "cite", outcome(*failed, attempt(4, True), cited=("a", "b")), 123.4, True)


WIDE = [noisy(LONG_ID, 0), noisy("short", 7), *RESULTS]


def test_every_line_of_a_report_is_at_most_100_columns() -> None:
    configured = Setup("configured", BEDROCK_SONNET, BEDROCK_HAIKU, 3, BEDROCK_HAIKU)
    changed = Setup(LABEL, BEDROCK_HAIKU, BEDROCK_SONNET, 5, BEDROCK_HAIKU)
    before, after = summarize(configured, WIDE), summarize(changed, WIDE[::-1])
    title = "Langfuse dataset vouch-questions-from-the-platform-team-support-channel-2026"
    for text in (render(before, title), render(after, title), compare(before, after, title)):
        assert len(before.issues) > 10  # many codes
        wide = [line for line in text.splitlines() if len(line) > 100]
        assert not wide, "\n".join(wide)
        assert LONG_ID in text and BEDROCK_SONNET in text  # ids and names never cut


def test_a_long_line_breaks_between_parts_and_keeps_each_whole() -> None:
    text = compare(summarize(SETUP, RESULTS), summarize(SETUP, WIDE), "set.jsonl")
    lines = text.splitlines()
    at = lines.index(f"  {LONG_ID}")  # longer than the id column: a line of its own
    assert lines[at + 1].strip().startswith("✓ expect cite    verified    4 att.  123.4 s")
    rows = lines[at + 1 : at + 5]
    assert " ".join(row.strip() for row in rows).endswith("→ pass · cites 2")
    outcome = WIDE[0].outcome
    assert outcome is not None
    codes = [code for attempt in outcome.attempts for code in attempt.codes]
    assert len(codes) == 15
    for code in codes:  # each code whole, on one line
        assert any(f"{code}," in row or f"{code} →" in row for row in rows)
    tokens = [line for line in lines if "cache write" in line or "tokens" in line]
    assert tokens[0].startswith("  tokens") and len(tokens) >= 2  # broken at its " · "
