"""Property: whatever the model writes and whatever fails, the Outcome's text is a draft
that passed verification (after repair) or a canned reply — never a failing draft or a
fragment of one."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.agent.conversation import Conversation
from app.agent.loop import Deps, answer
from app.knowledge.chunk import passages
from app.knowledge.index import Index
from app.knowledge.retrieve import Knowledge
from app.verify import Citation, Source, busy_message, failure_message, verify
from app.verify.footer import sources_footer
from tests.examples import examples
from tests.fakes.anthropic import (
    Cite,
    Fail,
    FakeAnthropic,
    Reply,
    StreamError,
    cited,
    judge_input,
    judgement,
    search_results,
)
from tests.knowledge.grounding import DOCS, ROLLBACK
from tests.knowledge.grounding import QUESTION as GROUNDED

QUESTION = "How do I deploy the billing service?"
REF = "prop0123"
KINDS = [
    "good",
    "repairable",
    "unclosed",
    "off_topic",
    "empty",
    "truncated",
    "refusal",
    "overloaded_stream",
    "status_529",
    "status_400",
]


def script(kind: str, n: int) -> tuple[Any, str | None]:
    """A scripted item and, when it carries text, the unique canary inside that text."""
    canary = f"canary{n}zq"
    texts = {
        "good": f"Deploy billing with `make deploy` ({canary}); the service restarts itself.",
        "repairable": f"**Deploy** billing with [the guide](https://x.io) ({canary}).",
        "unclosed": f"Deploy billing ({canary}):\n```\nmake deploy",
        "off_topic": f"Lunch is lasagne, salad, garlic bread and tiramisu at noon ({canary}).",
        "empty": "",
        "truncated": f"Deploy billing by {canary}",
        "refusal": f"I won't ({canary}).",
    }
    if kind in texts:
        stop = {"truncated": "max_tokens", "refusal": "refusal"}.get(kind, "end_turn")
        return Reply(texts[kind], stop), canary if texts[kind] else None
    if kind == "overloaded_stream":
        return StreamError(partial=f"partial {canary} draft"), canary
    return Fail(529 if kind == "status_529" else 400), None


def reviewer(judge: str) -> Any:
    """The judge's part: it fails the off-topic lunch answer (which the rules leave to it),
    passes the rest, or is down."""

    def review(request: dict[str, Any]) -> Any:
        if judge == "down":
            return Fail(500)
        if "lasagne" in judge_input(request).answer:
            return judgement(False, 10, "OFF_TOPIC", message="About lunch.")
        return judgement(True, 90)

    return review


@settings(max_examples=examples(150), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=8),
    max_attempts=st.integers(1, 5),
    judge=st.sampled_from(["up", "down"]),
    fallback=st.sampled_from(["busy", "deliver"]),
)
def test_outcome_text_is_verified_or_canned(
    anthropic_server: FakeAnthropic,
    make_settings: Any,
    *,
    kinds: list[str],
    max_attempts: int,
    judge: str,
    fallback: str,
) -> None:
    anthropic_server.reset()
    items = [script(kind, n) for n, kind in enumerate(kinds)]
    anthropic_server.push(*(item for item, _ in items))
    anthropic_server.default = Fail(400)
    anthropic_server.judge_responder = reviewer(judge)
    config = make_settings(
        max_attempts=max_attempts, anthropic_max_retries=0, judge_fallback=fallback
    )
    deps = Deps.from_settings(config)
    outcome = asyncio.run(answer(Conversation((), QUESTION), deps, REF))

    canned = {failure_message("mrkdwn", REF), busy_message("mrkdwn", REF)}
    passing = {
        verify(item.text, question=QUESTION).text
        for item, _ in items
        if isinstance(item, Reply) and item.stop_reason == "end_turn"
    }
    if outcome.verified:
        assert outcome.text in passing
        assert verify(outcome.text, question=QUESTION).passed
    else:
        assert outcome.text in canned
    delivered_canary = [c for _, c in items if c and c in outcome.text]
    assert len(delivered_canary) <= 1
    # the rules pass the lunch answer; only the judge stops it (unless it is down and the
    # team chose to deliver on the rules alone)
    unjudged = judge == "down" and fallback == "deliver"
    allowed = ("good", "repairable", "off_topic") if unjudged else ("good", "repairable")
    for (_, canary), kind in zip(items, kinds, strict=True):
        if canary and kind not in allowed:
            assert canary not in outcome.text, kind
    assert 1 <= len(outcome.attempts) <= max_attempts


CITED_KINDS = ["cited", "fabricated", "misquoted", "uncited", "unclosed_cited", "status_529"]


def rollback_source() -> Source:
    text = (DOCS / "deploy.md").read_text()
    [passage] = [p for p in passages("deploy.md", text) if p.title.endswith("Rollback")]
    return Source(passage.source_id, passage.title, passage.url, passage.text)


def cited_script(kind: str, n: int, source: str) -> tuple[Any, str | None]:
    canary = f"canary{n}zq"
    answer_text = f"Roll back billing with the Revert button ({canary}). "
    if kind == "status_529":
        return Fail(529), None
    if kind == "uncited":
        return Reply(answer_text), canary
    quote = {"misquoted": "Run `make rollback` on prod."}.get(kind, ROLLBACK)
    cite = Cite("https://made.up/doc" if kind == "fabricated" else source, quote)
    extra = "\n```\nkubectl" if kind == "unclosed_cited" else ""
    return cited(answer_text, (f"Or undo it with kubectl.{extra}", cite)), canary


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(CITED_KINDS), min_size=1, max_size=6), st.integers(1, 4))
def test_with_sources_only_a_verified_cited_draft_and_its_footer_are_delivered(
    anthropic_server: FakeAnthropic,
    make_settings: Any,
    tmp_path_factory: pytest.TempPathFactory,
    kinds: list[str],
    max_attempts: int,
) -> None:
    anthropic_server.reset()
    source = rollback_source()
    items = [cited_script(kind, n, source.id) for n, kind in enumerate(kinds)]
    anthropic_server.push(*(item for item, _ in items))
    anthropic_server.default = Fail(400)
    config = make_settings(max_attempts=max_attempts, anthropic_max_retries=0)
    index = Index(tmp_path_factory.mktemp("k") / "k.sqlite3")
    index.sync(DOCS)
    knowledge = Knowledge(index, top_k=5, floor=1.0)
    deps = Deps.from_settings(config, knowledge=knowledge)
    try:
        outcome = asyncio.run(answer(Conversation((), GROUNDED), deps, REF))
    finally:
        index.close()

    sources = knowledge_sources(anthropic_server)
    assert source.id in {s.id for s in sources}
    footer = sources_footer([source], "mrkdwn")
    passing = set()
    for item, _ in items:
        if isinstance(item, Reply):
            citations = tuple(
                Citation(c.source, c.title, c.cited_text)
                for b in item.content
                for c in cast("tuple[Cite, ...]", b.citations)  # cited_script cites with Cite
            )
            verdict = verify(item.text, question=GROUNDED, sources=sources, citations=citations)
            if verdict.passed:
                passing.add(f"{verdict.text}\n\n{footer}")
    if outcome.verified:
        assert outcome.text in passing
    else:
        assert outcome.text in {failure_message("mrkdwn", REF), busy_message("mrkdwn", REF)}
    for (_, canary), kind in zip(items, kinds, strict=True):
        if canary and kind != "cited":
            assert canary not in outcome.text, kind


def knowledge_sources(fake: FakeAnthropic) -> tuple[Source, ...]:
    """The sources the loop gave the model, read back from its first request."""
    results = search_results(fake.requests[0]) if fake.requests else []
    return tuple(
        Source(r["source"], r["title"], None, "\n\n".join(b["text"] for b in r["content"]))
        for r in results
    )
