"""Read-only tools in the loop, through the real AsyncAnthropic client against the loopback
API (which checks that every tool_use gets its tool_result): a question the first
retrieval misses is answered after a docs-search call, with the passage it found as a
cited source; a citation of a tool result that does not exist fails and is retried with
the first call's results replayed, not fetched again; a failing, slow or unknown tool is
an error result the model reads; the calls per attempt are bounded."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

from app.agent.conversation import Conversation
from app.agent.loop import Deps, answer
from app.agent.tools import ToolRefused
from app.knowledge.retrieve import Knowledge
from app.knowledge.tool import DocsSearch
from app.settings import Settings
from app.verify import Source
from tests.fakes.anthropic import (
    Cite,
    FakeAnthropic,
    Reply,
    ToolCall,
    cited,
    search_results,
    tool_results,
    tool_use,
    tool_uses,
)
from tests.knowledge.grounding import ANSWER, ROLLBACK, in_turn

MISSED = "The thing I shipped is broken, what now?"  # no word of it is in the docs


class Counted(DocsSearch):
    """The docs tool, counting its runs."""

    runs = 0

    async def run(self, arguments: Mapping[str, Any]) -> Sequence[Source]:
        self.runs += 1
        return await super().run(arguments)


@pytest.fixture
def docs(knowledge_settings: Any) -> Iterator[tuple[Settings, Knowledge]]:
    settings = knowledge_settings()
    opened = Knowledge.open(settings)
    assert opened is not None
    yield settings, opened
    opened.close()


def found(request: dict[str, Any]) -> str:
    """The id of the rollback passage among the request's (tool) search results."""
    [result] = [r for r in search_results(request) if r["title"].endswith("Rollback")]
    return str(result["source"])


def citing(source: str) -> Reply:
    return cited(ANSWER, ("Or undo the rollout with kubectl.", Cite(source, ROLLBACK)))


SEARCH = tool_use(ToolCall("search_docs", {"query": "roll back a deploy"}, id="toolu_search1"))


async def test_a_question_the_retrieval_misses_is_answered_after_a_docs_search(
    docs: tuple[Settings, Knowledge], fake_anthropic: FakeAnthropic
) -> None:
    settings, knowledge = docs
    fake_anthropic.responder = in_turn(lambda _: SEARCH, lambda r: citing(found(r)))
    tool = Counted(knowledge)
    deps = Deps.from_settings(settings, knowledge=knowledge)
    outcome = await answer(Conversation((), MISSED), deps, "ref", tools=[tool])
    assert outcome.verified, outcome.attempts
    first, second = fake_anthropic.requests
    assert search_results(first) == []  # the first retrieval found nothing
    assert [t["name"] for t in first["tools"]] == ["search_docs"]
    assert "call tools" in first["system"][0]["text"]
    assert tool_results(second)["toolu_search1"]["content"][0]["type"] == "search_result"
    assert outcome.cited == (found(second),)
    assert "Sources" in outcome.text and "Rollback" in outcome.text  # the footer names it
    assert tool.runs == 1


async def test_a_citation_of_a_tool_result_that_does_not_exist_fails_and_is_retried(
    docs: tuple[Settings, Knowledge], fake_anthropic: FakeAnthropic
) -> None:
    settings, knowledge = docs
    made_up = cited(ANSWER, ("Or undo it.", Cite("toolu_made_up_result", ROLLBACK)))
    fake_anthropic.responder = in_turn(
        lambda _: SEARCH, lambda _: made_up, lambda r: citing(found(r))
    )
    tool = Counted(knowledge)
    deps = Deps.from_settings(settings, knowledge=knowledge)
    outcome = await answer(Conversation((), MISSED), deps, "ref", tools=[tool])
    assert outcome.verified
    assert [a.codes for a in outcome.attempts] == [("UNKNOWN_SOURCE", "UNCITED"), ()]
    retry = fake_anthropic.requests[2]
    assert [u["id"] for u in tool_uses(retry)] == ["toolu_search1"]  # replayed...
    assert "toolu_search1" in tool_results(retry)
    assert tool.runs == 1  # ...not searched again


class Failing:
    name = "flaky"
    description = "A tool that fails."
    input_schema: dict[str, Any] = {"type": "object", "properties": {}}  # noqa: RUF012

    def __init__(self, how: str) -> None:
        self.how = how

    async def run(self, arguments: Mapping[str, Any]) -> Sequence[Source]:
        if self.how == "slow":
            await asyncio.sleep(30)
        if self.how == "refused":
            raise ToolRefused("not_in_channel")
        raise ConnectionError("SECRET-CANARY in an error's text")


@pytest.mark.parametrize(
    ("how", "told"),
    [
        ("error", "error: ConnectionError"),
        ("slow", "error: timeout"),
        ("refused", "error: not_in_channel"),
    ],
)
async def test_a_failing_tool_is_an_error_result_the_model_reads(
    make_settings: Any, fake_anthropic: FakeAnthropic, how: str, told: str
) -> None:
    fake_anthropic.push(
        tool_use(ToolCall("flaky", {}, id="toolu_1")),
        Reply("Deploys take about 8 minutes."),
    )
    settings = make_settings(tool_timeout=0.2)
    deps = Deps.from_settings(settings)
    outcome = await answer(Conversation((), "deploys?"), deps, "ref", tools=[Failing(how)])
    assert outcome.verified
    results = tool_results(fake_anthropic.requests[1])
    assert results["toolu_1"]["is_error"] and results["toolu_1"]["content"][0]["text"] == told
    assert "SECRET-CANARY" not in str(fake_anthropic.requests[1])


async def test_tool_calls_are_bounded_per_attempt(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    """A model that keeps calling: after TOOL_CALLS the next call may not use tools."""
    calls = iter(range(100))

    def respond(request: dict[str, Any]) -> Reply:
        if request.get("tool_choice") == {"type": "none"}:
            return Reply("Deploys take about 8 minutes.")
        return tool_use(ToolCall("flaky", {}, id=f"toolu_{next(calls)}"))

    fake_anthropic.responder = respond
    settings = make_settings(tool_calls=2)
    outcome = await answer(
        Conversation((), "deploys?"), Deps.from_settings(settings), "ref", tools=[Failing("error")]
    )
    assert outcome.verified
    assert len(fake_anthropic.requests) == 3  # two with a call each, then the last word
    assert fake_anthropic.requests[-1]["tool_choice"] == {"type": "none"}


def test_a_refusal_carries_only_an_identifier_shaped_reason() -> None:
    """Reasons reach the model and telemetry: a Slack error code passes, free text not."""
    assert ToolRefused("not_in_channel").reason == "not_in_channel"
    assert ToolRefused("SECRET-CANARY the user's words").reason == "refused"
