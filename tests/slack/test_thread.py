"""Thread history → conversation; dedupe and per-thread order."""

from __future__ import annotations

from typing import Any

from app.slack.thread import Bot, mentioned, strip_mention, to_conversation
from app.work.store import message_key

BOT = Bot("UVOUCH", "BVOUCH")


def convert(replies: list[dict[str, str]], **kw: int) -> tuple[list[tuple[str, str]], str]:
    limits: dict[str, Any] = {"max_messages": 50, "max_chars": 10_000, **kw}
    conversation = to_conversation(
        replies, current_ts="9", text="now?", bot=BOT, dialect="mrkdwn", **limits
    )
    return [(t.role, t.text) for t in conversation.turns], conversation.message


def test_own_messages_are_assistant_turns_and_the_mention_is_stripped() -> None:
    replies = [
        {"ts": "1", "user": "U1", "text": "<@UVOUCH> how do I deploy?"},
        {"ts": "2", "user": "UVOUCH", "bot_id": "BVOUCH", "text": "Merge to main."},
        {"ts": "3", "user": "U2", "text": "and <@U1> asked too"},
        {"ts": "4", "bot_id": "BOTHER", "subtype": "bot_message", "text": "CI passed"},
        {"ts": "5", "user": "U3", "subtype": "channel_join", "text": "<@U3> joined"},
        {"ts": "9", "user": "U1", "text": "<@UVOUCH> now?"},
        {"ts": "10", "user": "U1", "text": "later message"},
    ]
    turns, message = convert(replies)
    assert turns == [
        ("user", "how do I deploy?"),
        ("assistant", "Merge to main."),
        ("user", "and <@U1> asked too"),
    ]
    assert message == "now?"


def test_history_is_bounded_by_count_and_characters_newest_kept() -> None:
    replies = [{"ts": str(i), "user": "U1", "text": f"m{i} " + "x" * 96} for i in range(1, 9)]
    turns, _ = convert(replies, max_messages=3)
    assert [t[1][:2] for t in turns] == ["m6", "m7", "m8"]
    turns, _ = convert(replies, max_chars=350)
    assert [t[1][:2] for t in turns] == ["m6", "m7", "m8"]


def test_strip_mention_handles_labels() -> None:
    assert strip_mention("<@UVOUCH|vouch>  hi <@UVOUCH>", BOT) == "hi"


def test_a_message_key_names_team_channel_and_ts() -> None:
    assert message_key("T1", "C1", "1.1") == "T1:C1:1.1"


def test_people_are_named_and_so_are_their_mentions() -> None:
    replies = [
        {"ts": "1", "user": "UMARIA", "text": "<@UVOUCH> the outage was the DNS change"},
        {"ts": "2", "user": "UJONAS", "text": "<@UMARIA|maria> no, the <@UNOBODY> cert"},
        {"ts": "3", "user": "UVOUCH", "bot_id": "BVOUCH", "text": "Noted."},
    ]
    names = {"UMARIA": "Maria Lopez", "UJONAS": "Jonas", "UASKER": "Ana"}
    conversation = to_conversation(
        replies,
        current_ts="9",
        text="what did <@UMARIA> say?",
        bot=BOT,
        dialect="mrkdwn",
        max_messages=50,
        max_chars=10_000,
        names=names,
        speaker="Ana",
    )
    assert [(t.role, t.speaker, t.text) for t in conversation.turns] == [
        ("user", "Maria Lopez", "the outage was the DNS change"),
        ("user", "Jonas", "@Maria Lopez no, the <@UNOBODY> cert"),  # unknown: left as is
        ("assistant", "", "Noted."),
    ]
    assert (conversation.speaker, conversation.message) == ("Ana", "what did @Maria Lopez say?")
    assert mentioned(["<@UMARIA|maria> and <@W123ABC>", "<#C123>"]) == {"UMARIA", "W123ABC"}
