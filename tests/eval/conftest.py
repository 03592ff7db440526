"""The fake Anthropic API scripted for the eval tests' dataset (tests/eval/test_eval.py)."""

from __future__ import annotations

import pytest

from tests.eval.test_eval import answers, grading
from tests.fakes.anthropic import FakeAnthropic


@pytest.fixture
def scripted(fake_anthropic: FakeAnthropic) -> FakeAnthropic:
    """Each item answered by what it asks; the judge passes, the grader reads declines."""
    fake_anthropic.responder = answers()
    fake_anthropic.judge_responder = grading
    return fake_anthropic
