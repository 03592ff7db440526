"""Answers grounded in the team's docs, through the real AsyncAnthropic client against the
loopback API: passages go as search_result blocks with citations on, citations come back
as `citations_delta` events, are checked against what was retrieved, and a verified answer
carries a Sources footer."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.agent.conversation import Conversation, Turn
from app.agent.loop import Deps, answer
from app.agent.outcome import Outcome
from app.knowledge.retrieve import Knowledge
from app.settings import Settings
from tests.fakes.anthropic import (
    Cite,
    FakeAnthropic,
    Reply,
    cited,
    judge_input,
    judgement,
    search_results,
)
from tests.knowledge.grounding import (
    ANSWER,
    QUESTION,
    ROLLBACK,
    citing,
    in_turn,
    rollback_id,
)


@pytest.fixture
def knowledge(knowledge_settings: Any) -> Iterator[tuple[Settings, Knowledge]]:
    settings = knowledge_settings()
    opened = Knowledge.open(settings)
    assert opened is not None
    yield settings, opened
    opened.close()


async def ask(
    settings: Settings, knowledge: Knowledge | None, question: str = QUESTION, **kw: Any
) -> Outcome:
    deps = Deps.from_settings(settings, knowledge=knowledge)
    return await answer(Conversation((), question, **kw), deps, reference="ref0123456789")


@pytest.mark.parametrize(
    ("dialect", "footer"),
    [
        (
            "mrkdwn",
            "*Sources*\n• <https://wiki.example.com/billing/deploy|Deploying billing › Rollback>",
        ),
        (
            "markdown",
            "**Sources**\n- [Deploying billing › Rollback](https://wiki.example.com/billing/deploy)",
        ),
    ],
)
async def test_cited_answer_is_delivered_with_its_sources_footer(
    knowledge: tuple[Settings, Knowledge],
    fake_anthropic: FakeAnthropic,
    dialect: Any,
    footer: str,
) -> None:
    settings, docs = knowledge
    fake_anthropic.responder = lambda request: citing(rollback_id(request))
    outcome = await ask(settings, docs, dialect=dialect)
    assert outcome.verified, outcome.attempts
    assert outcome.text == f"{ANSWER}Or undo the rollout with kubectl.\n\n{footer}"
    [request] = fake_anthropic.requests
    results = search_results(request)
    assert results[0]["title"] == "Deploying billing › Rollback"  # the best passage first
    assert all(r["citations"] == {"enabled": True} for r in results)
    assert results[0]["content"] == [{"type": "text", "text": ROLLBACK}]
    last = request["messages"][-1]["content"]
    assert last[-1] == {"type": "text", "text": QUESTION}
    assert "search results from the team's docs" in request["system"][0]["text"]
    assert outcome.cited == (rollback_id(request),)


async def test_each_cited_source_is_listed_once(
    knowledge: tuple[Settings, Knowledge], fake_anthropic: FakeAnthropic
) -> None:
    settings, docs = knowledge

    def reply(request: dict[str, Any]) -> Reply:
        rollback = rollback_id(request)
        staging = next(r for r in search_results(request) if r["title"].endswith("Staging"))
        quote = staging["content"][0]["text"]
        return cited(
            ANSWER,
            ("Use Revert.", Cite(rollback, ROLLBACK)),
            (" Staging redeploys on merge.", Cite(staging["source"], quote)),
            (" Revert again if needed.", Cite(rollback, ROLLBACK)),
        )

    fake_anthropic.responder = reply
    outcome = await ask(settings, docs, "How do I roll back a billing deploy on staging?")
    assert outcome.verified, outcome.attempts
    footer = outcome.text.split("*Sources*\n", 1)[1].splitlines()
    # two sections of one document: one entry, named by the document
    assert footer == ["• <https://wiki.example.com/billing/deploy|Deploying billing>"]


async def test_fabricated_source_is_retried_with_the_available_sources(
    knowledge: tuple[Settings, Knowledge], fake_anthropic: FakeAnthropic
) -> None:
    settings, docs = knowledge
    fake_anthropic.responder = in_turn(
        lambda r: citing("https://blog.example.net/rollbacks"), lambda r: citing(rollback_id(r))
    )
    outcome = await ask(settings, docs)
    assert outcome.verified and len(outcome.attempts) == 2
    assert outcome.attempts[0].codes == ("UNKNOWN_SOURCE", "UNCITED")
    feedback = fake_anthropic.requests[1]["messages"][-1]["content"][-1]["text"]
    assert "UNKNOWN_SOURCE" in feedback
    assert (
        f"- Deploying billing › Rollback (source {rollback_id(fake_anthropic.requests[0])}, "
        in feedback
    )
    assert "blog.example.net" not in outcome.text


async def test_misquote_is_retried(
    knowledge: tuple[Settings, Knowledge], fake_anthropic: FakeAnthropic
) -> None:
    settings, docs = knowledge
    invented = "Run `make rollback ENV=prod` to roll back billing."
    replies = iter([invented, ROLLBACK])
    fake_anthropic.responder = lambda request: citing(rollback_id(request), next(replies))
    outcome = await ask(settings, docs)
    assert outcome.verified and len(outcome.attempts) == 2
    assert outcome.attempts[0].codes == ("MISQUOTED",)
    assert "make rollback" not in outcome.text


async def test_an_uncited_answer_is_retried_when_sources_were_given(
    knowledge: tuple[Settings, Knowledge], fake_anthropic: FakeAnthropic
) -> None:
    settings, docs = knowledge
    fake_anthropic.push(Reply(ANSWER))
    fake_anthropic.responder = lambda request: citing(rollback_id(request))
    outcome = await ask(settings, docs)
    assert outcome.verified and [a.codes for a in outcome.attempts] == [("UNCITED",), ()]


async def test_no_relevant_passage_means_no_citation_demands(
    knowledge: tuple[Settings, Knowledge], fake_anthropic: FakeAnthropic
) -> None:
    settings, docs = knowledge
    question = "What's a good name for a goldfish?"
    fake_anthropic.push(Reply("A goldfish named Bubbles, Goldie or Captain Fin would suit it."))
    outcome = await ask(settings, docs, question)
    assert outcome.verified and outcome.cited == ()
    assert "Sources" not in outcome.text
    [request] = fake_anthropic.requests
    assert search_results(request) == []
    assert "search results" not in request["system"][0]["text"]


async def test_without_knowledge_dir_there_are_no_sources(
    make_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    settings = make_settings()
    assert Knowledge.open(settings) is None
    fake_anthropic.push(Reply(ANSWER + "See https://anywhere.example.com for more."))
    outcome = await ask(settings, None)
    assert outcome.verified and "Sources" not in outcome.text
    assert search_results(fake_anthropic.requests[0]) == []


async def test_follow_ups_search_with_the_thread(
    knowledge: tuple[Settings, Knowledge], fake_anthropic: FakeAnthropic
) -> None:
    settings, docs = knowledge
    fake_anthropic.responder = lambda request: citing(rollback_id(request))
    turns = (Turn("user", "How do we deploy billing?"), Turn("assistant", "Through the pipeline."))
    deps = Deps.from_settings(settings, knowledge=docs)
    outcome = await answer(Conversation(turns, "And how do I undo one with kubectl?"), deps)
    assert outcome.verified
    titles = [r["title"] for r in search_results(fake_anthropic.requests[0])]
    assert titles[0] == "Deploying billing › Rollback"


async def test_non_english_question_gets_non_english_sources(
    knowledge: tuple[Settings, Knowledge], fake_anthropic: FakeAnthropic
) -> None:
    settings, docs = knowledge

    def reply(request: dict[str, Any]) -> Reply:
        [first, *_] = search_results(request)
        quote = first["content"][0]["text"]
        return cited(
            "金曜日のデプロイは禁止です。",
            ("手順を参照してください。", Cite(first["source"], quote)),
        )

    fake_anthropic.responder = reply
    outcome = await ask(settings, docs, "金曜日にデプロイできますか？")
    assert outcome.verified, outcome.attempts
    assert "デプロイ手順" in outcome.text.split("*Sources*", 1)[1]


async def test_a_broken_index_answers_without_sources(
    knowledge: tuple[Settings, Knowledge],
    fake_anthropic: FakeAnthropic,
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings, docs = knowledge
    docs.index.db.execute("DROP TABLE passages")
    fake_anthropic.push(Reply(ANSWER))
    outcome = await ask(settings, docs)
    assert outcome.verified and search_results(fake_anthropic.requests[0]) == []
    assert "knowledge: search failed (OperationalError); answering without sources" in caplog.text


async def test_the_judge_sees_the_sources(
    knowledge_settings: Any, fake_anthropic: FakeAnthropic
) -> None:
    settings = knowledge_settings()
    docs = Knowledge.open(settings)
    assert docs is not None
    fake_anthropic.responder = in_turn(lambda r: citing(rollback_id(r)))
    fake_anthropic.judge(judgement(True, 90))
    outcome = await ask(settings, docs)
    assert outcome.verified
    [judged] = fake_anthropic.judge_requests
    assert any(source["text"] == ROLLBACK for source in judge_input(judged).sources)


def test_a_corrupt_index_file_is_rebuilt(
    knowledge_settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings = knowledge_settings()
    settings.knowledge_index.parent.mkdir(parents=True)
    settings.knowledge_index.write_bytes(b"this is not an SQLite database" * 100)
    docs = Knowledge.open(settings)
    assert docs is not None
    assert docs.index.count() > 0
    assert "unreadable (DatabaseError); rebuilding it" in caplog.text
    docs.close()


def test_a_vanished_folder_keeps_answering_from_the_index(
    knowledge_settings: Any, docs: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = knowledge_settings()
    first = Knowledge.open(settings)
    assert first is not None
    count = first.index.count()
    first.close()
    shutil.rmtree(docs)
    again = Knowledge.open(settings)
    assert again is not None and again.index.count() == count
    assert "is not a folder; answering from the index as it was" in caplog.text
    again.close()


async def test_a_follow_up_with_sources_reads_the_thread_the_last_message_cached(
    knowledge: tuple[Settings, Knowledge], fake_anthropic: FakeAnthropic
) -> None:
    """Sources go with the new message only, so the next follow-up's prefix parts from the
    last request's before them: the mark at the end of the earlier turns is what it reads."""
    settings, docs = knowledge
    fake_anthropic.responder = lambda request: citing(rollback_id(request))
    deps = Deps.from_settings(settings, knowledge=docs)
    thread = (
        Turn("user", "How is billing deployed to production? " * 60),
        Turn("assistant", "Through the release pipeline, after a staging soak. " * 60),
    )  # over the caching minimum with the system prompt
    first = await answer(Conversation(thread, QUESTION), deps, reference="r")
    assert first.verified
    later = (*thread, Turn("user", QUESTION), Turn("assistant", first.text))
    second = await answer(Conversation(later, f"{QUESTION} On staging?"), deps, reference="r")
    assert second.verified
    wrote = first.attempts[0].usage.cache_write
    assert wrote > 1024
    assert second.attempts[0].usage.cache_read > 1024
