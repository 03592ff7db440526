"""The rules on the labelled corpus (tests/fixtures/efficacy): the figures docs/verification.md
records may not regress. See bench/efficacy.py for the table."""

from __future__ import annotations

from bench.efficacy import evaluate, load, residue

ROWS = evaluate(load())


def test_the_corpus_is_large_and_covers_every_label() -> None:
    assert sum(row.total for row in ROWS.values()) >= 250
    assert ROWS["good"].total >= 150
    assert set(ROWS) >= {"good", "github_markdown", "no_content", "wrong_language", "wrong_figure"}


def test_no_good_answer_is_failed_by_the_rules() -> None:
    assert ROWS["good"].wrong == []


def test_every_github_markdown_answer_is_repaired_with_nothing_left() -> None:
    row = ROWS["github_markdown"]
    assert row.wrong == [] and row.repaired == row.total


def test_the_deterministic_classes_are_caught_at_least_as_often_as_recorded() -> None:
    caught = {
        label: ROWS[label].caught for label in ("no_content", "wrong_language", "wrong_figure")
    }
    assert caught["no_content"] == ROWS["no_content"].total  # 25 of 25
    assert caught["wrong_language"] >= 19  # of 25: the rest is left to the judge
    assert caught["wrong_figure"] >= 26  # of 30
    assert ROWS["off_topic"].caught >= 7  # of 22: long answers; short ones are the judge's


def test_the_residue_check_sees_markdown_left_in_mrkdwn() -> None:
    """The independent check the repaired figure relies on is not blind."""
    for left in ("**bold**", "# Title", "[a](https://x.io)", "- [ ] task", "---", "| a | b |"):
        assert residue(f"ok\n{left}\nok"), left
    assert not residue("*bold* and `**kwargs` and\n```\n# comment\n---\n```")
