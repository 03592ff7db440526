"""The check shown on the answer: a verified answer ends with a quiet context line naming
the checks that ran and passed, in both dialects; canned replies carry none; a setting
turns it off."""

from __future__ import annotations

from typing import Any

import pytest

from app.agent.model import Usage
from app.agent.outcome import Attempt, Outcome
from app.slack.deliver import receipt
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.slack import FakeSlack
from tests.slack.bolt import dispatch, make_app, mention, replied

GOOD = "Merge to `main`: the pipeline deploys billing to staging in about 8 minutes."
UNCLOSED = "Deploy billing:\n```\nmake deploy"


def attempt(judge: Any) -> Attempt:
    return Attempt(1, True, (), (), 10, 10, 1.0, Usage(), "end_turn", judge=judge)


def test_the_receipt_names_only_the_checks_that_ran_and_passed() -> None:
    judged = Outcome("x", True, "verified", (attempt("passed"),), cited=("a", "b"))
    assert receipt(judged) == "Checked: formatting · 2 sources cited · reviewed"
    one = Outcome("x", True, "verified", (attempt(None),), cited=("a",))
    assert receipt(one) == "Checked: formatting · 1 source cited"
    unjudged = Outcome("x", True, "verified", (attempt("unavailable"),))
    assert receipt(unjudged) == "Checked: formatting"


def context_lines(blocks: list[dict[str, Any]] | None) -> list[str]:
    return [e["text"] for b in blocks or () if b["type"] == "context" for e in b["elements"]]


@pytest.mark.parametrize("dialect", ["mrkdwn", "markdown"])
async def test_a_verified_answer_carries_the_receipt_in_both_dialects(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, dialect: str
) -> None:
    fake_anthropic.push(Reply(GOOD))
    app = make_app(make_settings(response_format=dialect))
    await dispatch(app, mention("how do I deploy billing?", "600.000001"))
    method = "chat.postMessage" if dialect == "mrkdwn" else "chat.stopStream"
    await replied(fake_slack, method)
    [last] = fake_slack.of(method)
    assert context_lines(last.get("blocks")) == ["Checked: formatting · reviewed"]


async def test_canned_replies_and_a_team_that_turned_it_off_carry_no_receipt(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.push(*[Reply(UNCLOSED)] * 3)  # every attempt fails: the failure message
    app = make_app(make_settings())
    await dispatch(app, mention("how do I deploy billing?", "601.000001"))
    await replied(fake_slack)
    [failure] = fake_slack.of("chat.postMessage")
    assert "couldn't verify" in failure["text"] and not context_lines(failure.get("blocks"))
    fake_slack.calls.clear()
    fake_anthropic.push(Reply(GOOD))
    quiet = make_app(make_settings(check_receipt=False))
    await dispatch(quiet, mention("how do I deploy billing?", "602.000001"))
    await replied(fake_slack)
    [posted] = fake_slack.of("chat.postMessage")
    assert not context_lines(posted.get("blocks")) and posted["blocks"]  # buttons still
