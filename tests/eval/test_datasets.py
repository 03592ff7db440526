"""The datasets shipped in evals/ load as `python -m app eval` reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.eval.dataset import read_jsonl

EVALS = Path(__file__).resolve().parent.parent.parent / "evals"


@pytest.mark.parametrize("name", ["starter.jsonl", "team_facts.jsonl"])
def test_a_shipped_dataset_loads_with_unique_ids(name: str) -> None:
    items = read_jsonl(EVALS / name)
    assert len(items) >= 40
    assert len({item.id for item in items}) == len(items)


def test_team_facts_holds_both_halves() -> None:
    expects = [item.expect for item in read_jsonl(EVALS / "team_facts.jsonl")]
    assert expects.count("answer") >= 28 and expects.count("refuse") >= 12
