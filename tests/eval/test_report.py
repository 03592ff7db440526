"""The report's figures from known results: rates and their denominators, attempts, expected
behaviour per kind, latency without broken items, tokens and cost at list prices."""

from __future__ import annotations

import pytest

from app.agent.model import Usage
from app.agent.outcome import Attempt, Outcome
from app.eval.plan import Setup
from app.eval.prices import cost, price_of
from app.eval.report import compare, render, summarize
from app.eval.run import Result

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
