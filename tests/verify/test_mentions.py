"""What an answer names in Slack, and pings made plain text: code and other entities stay."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.verify.mentions import Message, mentions, unping

LINK = "https://acme.slack.com/archives/C0ENG/p1700000100000200"
REPLY = "https://acme.slack.com/archives/C0ENG/p1700000100000300?thread_ts=1700000100.000200"


def test_an_answer_names_people_groups_channels_and_messages_outside_code() -> None:
    found = mentions(
        f"Ask <@U0FINN> or <@W0GRID|finn> in <#C0ENG|eng>, cc <!subteam^S0OPS|@ops>. "
        f"See <{LINK}|this> and {REPLY}. `<@U0CODE>` and\n```\n<#C0CODE> {LINK}x\n```"
    )
    assert found.users == {"U0FINN", "W0GRID"} and found.groups == {"S0OPS"}
    assert found.channels == {"C0ENG"}
    assert found.messages == (
        Message(LINK, "C0ENG", "1700000100.000200", "1700000100.000200"),
        Message(REPLY, "C0ENG", "1700000100.000300", "1700000100.000200"),
    )


def test_a_ping_becomes_a_name_that_pings_no_one_in_each_dialect() -> None:
    text = "Ask <@U0FINN> and <@U0ELI>, or <!subteam^S0OPS|@ops>; not `<@U0FINN>`."
    names = {"U0FINN": "Finn <Walsh> & *Co*", "S0OPS": "ops"}
    assert unping(text, names, "mrkdwn") == (
        "Ask @Finn &lt;Walsh&gt; &amp; Co and <@U0ELI>, or @ops; not `<@U0FINN>`."
    )
    assert unping(text, names, "markdown") == (
        "Ask @Finn Walsh & Co and <@U0ELI>, or @ops; not `<@U0FINN>`."
    )


@given(st.text(max_size=300), st.sampled_from(["mrkdwn", "markdown"]))
def test_after_unping_the_people_named_are_pinged_no_more(text: str, dialect: str) -> None:
    found = mentions(text)
    names = dict.fromkeys(found.users | found.groups, "someone")
    rewritten = unping(text, names, dialect)  # type: ignore[arg-type]
    after = mentions(rewritten)
    assert not (after.users & found.users) and not (after.groups & found.groups)
