"""An answer's pings and Slack links, checked with the strict fake Slack through Bolt: only
the conversation's people and the asker are pinged; invented people, groups, channels and
messages fail the draft and are retried; where Slack cannot say, a mention is text."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.slack import BOT_USER, FakeSlack, Fault, permalink
from tests.slack.bolt import dispatch, make_app, mention, replied

CLEAN = "Eli owns the billing deploy; ask him in this thread."


def team(slack: FakeSlack) -> None:
    """#eng (C0ENG) with Dana (who asks) and Eli; Finn exists but is not in it."""
    slack.user("U0DANA", "Dana Reyes")
    slack.user("U0ELI", "Eli Park")
    slack.user("U0FINN", "Finn Walsh")
    slack.conversation("C0ENG", "channel", ["U0DANA", "U0ELI", BOT_USER])
    slack.group("S0ENG", "eng-oncall", ["U0DANA", "U0ELI"])
    slack.group("S0EXEC", "execs", ["U0FINN", "U0DANA"])


async def ask(make_settings: Any, slack: FakeSlack) -> list[str]:
    """Dana asks in #eng who owns the deploy; what was posted."""
    app = make_app(make_settings())
    await dispatch(app, mention("who owns the deploy?", "601.000001", "C0ENG", user="U0DANA"))
    await replied(slack)
    return [str(p["text"]) for p in slack.of("chat.postMessage")]


async def test_only_people_in_the_conversation_and_the_asker_are_pinged(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    team(fake_slack)
    fake_anthropic.push(
        Reply("<@U0ELI> owns the billing deploy, <@U0DANA>; <@U0FINN> approves the budget.")
    )
    [posted] = await ask(make_settings, fake_slack)
    assert posted.startswith(
        "<@U0ELI> owns the billing deploy, <@U0DANA>; @Finn Walsh approves the budget."
    )
    assert "<@U0FINN>" not in fake_slack.text_sent()
    [call] = fake_slack.of("chat.postMessage")  # Slack fetches and previews nothing linked
    assert call["unfurl_links"] is False and call["unfurl_media"] is False


async def test_an_invented_person_channel_or_message_is_retried_and_never_posted(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    team(fake_slack)
    fake_slack.missing.add("C0NOPE")
    fake_slack.add_message("C0ENG", "deploy done", user="U0ELI", ts="1700000100.000200")
    real, invented = (
        permalink("C0ENG", "1700000100.000200"),
        permalink("C0ENG", "1700000999.000100"),
    )
    fake_anthropic.push(
        Reply(f"Ask <@U0GHOST>; it was done here: <{real}|the deploy>."),
        Reply(f"Ask in <#C0NOPE>; see <{invented}|the deploy>."),
        Reply(f"{CLEAN} It was done here: <{real}|the deploy>."),
    )
    [posted] = await ask(make_settings, fake_slack)
    assert posted.startswith(CLEAN)
    assert [p["user"] for p in fake_slack.of("users.info")].count("U0GHOST") == 1
    assert "C0NOPE" in json.dumps(fake_slack.of("conversations.info"))
    told = [json.dumps(r["messages"][-1]) for r in fake_anthropic.requests[1:]]
    assert all("UNKNOWN_ENTITY" in t for t in told)
    assert not [p for p in fake_slack.of("chat.postMessage") if "<@U0GHOST>" in str(p)]


async def test_a_group_is_pinged_only_when_all_its_members_are_here(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    team(fake_slack)
    fake_anthropic.push(
        Reply("Page <!subteam^S0ENG|@eng-oncall>; <!subteam^S0NONE> signs off."),  # no such
        Reply("Page <!subteam^S0ENG|@eng-oncall>; <!subteam^S0EXEC> signs off."),
    )
    [posted] = await ask(make_settings, fake_slack)
    assert posted.startswith("Page <!subteam^S0ENG|@eng-oncall>; @execs signs off.")
    assert "UNKNOWN_ENTITY" in json.dumps(fake_anthropic.requests[1]["messages"][-1])


@pytest.mark.parametrize("method", ["conversations.members", "users.info"])
async def test_where_slack_cannot_say_a_mention_is_text(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, method: str
) -> None:
    team(fake_slack)
    fake_slack.fail(method, *[Fault(error="fatal_error")] * 8)
    fake_anthropic.push(Reply("<@U0DANA>, <@U0ELI> and <@U0FINN> own the deploy."))
    [posted] = await ask(make_settings, fake_slack)
    if method == "conversations.members":  # who is here is unknown: only the asker
        assert posted.startswith("<@U0DANA>, @Eli Park and @Finn Walsh own the deploy.")
    else:  # Finn's name could not be had
        assert posted.startswith("<@U0DANA>, <@U0ELI> and @U0FINN own the deploy.")


async def test_a_linked_reply_past_the_first_page_of_its_thread_is_not_taken_for_invented(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """Slack pages a thread (15 messages for some apps): a reply Vouch did not see on the
    first page is not known to be missing."""
    team(fake_slack)
    fake_slack.non_marketplace = True
    root = "1700000500.000100"
    fake_slack.add_message("C0ENG", "deploy thread", user="U0ELI", ts=root)
    for n in range(1, 31):
        fake_slack.add_message(
            "C0ENG", f"step {n}", user="U0ELI", ts=f"1700000500.{100 + n:06d}", thread_ts=root
        )
    late = permalink("C0ENG", "1700000500.000125", root)
    fake_anthropic.push(Reply(f"{CLEAN} The rollback is <{late}|step 25>."))
    [posted] = await ask(make_settings, fake_slack)
    assert posted.startswith(CLEAN) and late in posted
    assert len(fake_anthropic.requests) == 1  # not retried


async def test_an_invented_message_in_a_busy_channel_is_still_found_missing(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """conversations.history from the link's ts gives the message there first, else an
    older one (and says there are more): that is a message that is not there."""
    team(fake_slack)
    for n in range(1, 6):
        fake_slack.add_message("C0ENG", f"note {n}", user="U0ELI", ts=f"170000060{n}.000100")
    invented = permalink("C0ENG", "1700000699.000100")
    fake_anthropic.push(Reply(f"See <{invented}|the note>."), Reply(CLEAN))
    [posted] = await ask(make_settings, fake_slack)
    assert posted.startswith(CLEAN)
    assert "UNKNOWN_ENTITY" in json.dumps(fake_anthropic.requests[1]["messages"][-1])
