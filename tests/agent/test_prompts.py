"""The system prompt agrees with the rules; requests are well formed for the Messages API."""

from __future__ import annotations

import pytest

from app.agent.conversation import Conversation, Turn
from app.agent.prompts import (
    SYSTEM,
    conversation_messages,
    example,
    retry_messages,
    system_blocks,
)
from app.verify import Citation, Dialect, Source, verify


@pytest.mark.parametrize("dialect", ["mrkdwn", "markdown"])
def test_the_prompt_example_passes_its_dialect_untouched(dialect: Dialect) -> None:
    verdict = verify(example(dialect), question="How do I deploy billing?", dialect=dialect)
    assert verdict.passed and verdict.repaired == ()


@pytest.mark.parametrize("dialect", ["mrkdwn", "markdown"])
def test_the_prompt_example_breaks_the_other_dialect(dialect: Dialect) -> None:
    other: Dialect = "markdown" if dialect == "mrkdwn" else "mrkdwn"
    verdict = verify(example(dialect), question="How do I deploy billing?", dialect=other)
    assert verdict.repaired != ()


def test_prompts_forbid_broadcasts_and_name_their_link_syntax() -> None:
    for text in SYSTEM.values():
        assert "@here" in text and "@channel" in text
    assert "<https://example.com|link text>" in SYSTEM["mrkdwn"]
    assert "[link text](https://example.com)" in SYSTEM["markdown"]


def test_turns_alternate_start_with_the_user_and_end_cached() -> None:
    conversation = Conversation(
        (
            Turn("assistant", "Welcome!"),
            Turn("user", "first"),
            Turn("user", "second"),
            Turn("assistant", "   "),
            Turn("assistant", "reply"),
        ),
        "new question",
    )
    messages = conversation_messages(conversation)
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[0]["content"][0]["text"] == "first\n\nsecond"
    assert messages[-1]["content"][0] == {"type": "text", "text": "new question"}
    marked = [b["text"] for m in messages for b in m["content"] if "cache_control" in b]
    assert marked == ["reply"]  # the end of the thread, which later requests send again


def test_a_follow_up_after_user_turns_is_merged_into_one_user_message() -> None:
    messages = conversation_messages(Conversation((Turn("user", "earlier"),), "now"))
    assert len(messages) == 1 and messages[0]["content"][0]["text"] == "earlier\n\nnow"


def test_retry_keeps_the_prefix_and_never_sends_an_empty_turn() -> None:
    prefix = conversation_messages(Conversation((), "q"))
    retry = retry_messages(prefix, "", "- EMPTY: The answer is empty.")
    assert retry[: len(prefix)] == prefix
    assert retry[-2]["content"][0]["text"] == "(empty answer)"
    assert retry[-1]["role"] == "user"


def test_an_empty_message_is_refused() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        Conversation((), "  ")


def test_a_thread_of_three_people_reaches_the_model_with_their_names() -> None:
    turns = (
        Turn("user", "the outage was DNS", "Maria Lopez"),
        Turn("user", "no, the cert expired", "Jonas"),
        Turn("assistant", "The cert expired at 02:00."),
    )
    conversation = Conversation(turns, "what did Maria say?", speaker="Ana")
    messages = conversation_messages(conversation)
    first, answer, question = (m["content"][0]["text"] for m in messages)
    assert first == "Maria Lopez wrote:\nthe outage was DNS\n\nJonas wrote:\nno, the cert expired"
    assert answer == "The cert expired at 02:00."  # Vouch's own turn: no name
    assert question == "Ana wrote:\nwhat did Maria say?"
    assert "wrote:" in system_blocks("mrkdwn", speakers=True)[0]["text"]
    assert "wrote:" not in system_blocks("mrkdwn")[0]["text"]
    unnamed = conversation_messages(Conversation((Turn("user", "earlier"),), "now"))
    assert unnamed[0]["content"][0]["text"] == "earlier\n\nnow"  # nobody named: as before


def test_the_model_is_asked_to_show_its_working_wherever_figures_are_checked() -> None:
    """UNSOURCED_FIGURE checks cited figures against the docs and files given: with either,
    the model is asked to show a figure it works out, in the form the rule reads; without
    them nothing is checked and nothing is asked."""
    asked = "show the working with those figures"
    assert asked in system_blocks("mrkdwn", sources=True)[0]["text"]
    assert asked in system_blocks("markdown", files=True)[0]["text"]
    assert asked not in system_blocks("mrkdwn", tools=True)[0]["text"]
    example = "2 × €180 = €360"
    verdict = verify(
        f"Two nights: {example}.",
        question="Two nights?",
        sources=(Source("s1", "Travel", "https://wiki.example.com/t", "Hotels: €180 a night."),),
        citations=(Citation("s1", "", "Hotels: €180 a night.", f"Two nights: {example}."),),
    )
    assert verdict.passed  # the example the prompt gives is one the rule reads
