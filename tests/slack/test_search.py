"""Slack's Real-time Search as the `search_slack` tool, end to end through Bolt and the
fakes: with SLACK_SEARCH on and the event's action_token, a question is answered from a
message found in another channel, cited and linked by its permalink; off (the default),
or for an event without a token, the tool is not offered; what Slack refuses is an error
the model reads. Then the reading of odd responses: never a crash."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from app.agent.tools import ToolRefused
from app.slack.audience import Audience, Where
from app.slack.conversations import Conversations
from app.slack.people import People
from app.slack.search import MAX_CHARS, MAX_RESULTS, SlackSearch, action_token, found_messages
from tests.fakes.anthropic import Cite, FakeAnthropic, Reply, ToolCall, cited, tool_results
from tests.fakes.anthropic import tool_use as calling
from tests.fakes.slack import BOT_USER, TEAM, FakeSlack, permalink
from tests.knowledge.grounding import in_turn
from tests.slack.bolt import dispatch, make_app, mention, message, replied

FOUND = "1700000000.000100"
QUOTE = "Maria: The deploy failed because the migration locked the users table."


def discussed(slack: FakeSlack) -> str:
    """A workspace with Real-time Search on and a message about the deploy in C0002 (one
    Vouch is not asked in); an action_token, as Slack sends with a message event."""
    slack.rts = True
    slack.user("U0MARIA", "Maria")
    slack.add_message(
        "C0002",
        "The deploy failed because the migration locked the users table.",
        user="U0MARIA",
        ts=FOUND,
    )
    slack.add_message("C0002", "lunch?", user="U0MARIA", ts="1700000000.000200")
    return slack.action_token()


def searching(answer: Any) -> Any:
    return in_turn(
        lambda _: calling(ToolCall("search_slack", {"query": "deploy failed"}, id="toolu_s")),
        answer,
    )


def offered(request: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in request.get("tools", [])]


@pytest.mark.parametrize("kind", ["mention", "dm"])
async def test_a_question_is_answered_from_a_message_slack_search_found(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    caplog: pytest.LogCaptureFixture,
    kind: str,
) -> None:
    caplog.set_level(logging.DEBUG, logger="vouch")
    token = discussed(fake_slack)

    def answer(request: dict[str, Any]) -> Reply:
        [result] = tool_results(request).values()
        source = result["content"][0]["source"]
        return cited(("The migration locked the users table.", Cite(source, QUOTE)))

    fake_anthropic.responder = searching(answer)
    app = make_app(make_settings(slack_search=True))
    asked: dict[str, Any] = {"assistant_thread": {"action_token": token}}
    if kind == "mention":
        event = mention("why did the deploy fail?", "410.000001", **asked)
    else:
        event = message("why did the deploy fail?", "410.000001", "D0001", channel_type="im")
        event |= asked
    await dispatch(app, event)
    await replied(fake_slack)
    first, second = fake_anthropic.requests
    assert offered(first) == ["search_slack"]
    [search] = fake_slack.of("assistant.search.context")
    assert search["action_token"] == token and search["query"] == "deploy failed"
    assert search["channel_types"] == "public_channel" and int(search["limit"]) == MAX_RESULTS
    [found] = tool_results(second)["toolu_s"]["content"]
    assert found["source"] == f"slack-search:C0002:{FOUND}" and found["title"] == "Slack message"
    assert [b["text"] for b in found["content"]] == [QUOTE]
    [posted] = fake_slack.of("chat.postMessage")
    assert posted["text"].startswith("The migration locked the users table.")
    assert permalink("C0002", FOUND) in posted["text"]  # the footer links the message
    assert token not in caplog.text and "migration" not in caplog.text


async def test_slack_search_is_off_by_default(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    token = discussed(fake_slack)
    fake_anthropic.push(Reply("I don't know why the deploy failed."))
    app = make_app(make_settings())
    await dispatch(app, mention("why?", "411.000001", assistant_thread={"action_token": token}))
    await replied(fake_slack)
    [request] = fake_anthropic.requests
    assert "search_slack" not in offered(request)
    assert not fake_slack.of("assistant.search.context")


async def test_an_event_without_an_action_token_gets_no_search(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    discussed(fake_slack)
    fake_anthropic.push(Reply("I don't know why the deploy failed."))
    app = make_app(make_settings(slack_search=True))
    await dispatch(app, mention("why?", "412.000001"))
    await dispatch(app, mention("why?", "412.000002", assistant_thread={"action_token": " "}))
    await replied(fake_slack, count=2)
    assert all("search_slack" not in offered(r) for r in fake_anthropic.requests)
    assert len(fake_anthropic.requests) == 2


@pytest.mark.parametrize(
    ("case", "error"),
    [
        ("forged", "invalid_action_token"),  # a token Slack did not issue (or one expired)
        ("no_rts", "unknown_method"),  # the workspace does not allow Real-time Search
        ("no_scope", "missing_scope"),  # an app installed before the scope was asked
    ],
)
async def test_what_slack_refuses_is_an_error_the_model_reads(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, case: str, error: str
) -> None:
    issued = discussed(fake_slack)
    token = "1.2.forged" if case == "forged" else issued
    fake_slack.rts = case != "no_rts"
    if case == "no_scope":
        fake_slack.scopes.discard("search:read.public")
    fake_anthropic.responder = searching(lambda _: Reply("I couldn't search Slack."))
    app = make_app(make_settings(slack_search=True))
    await dispatch(app, mention("why?", "413.000001", assistant_thread={"action_token": token}))
    await replied(fake_slack)
    result = tool_results(fake_anthropic.requests[1])["toolu_s"]
    assert result["is_error"] and result["content"] == [{"type": "text", "text": f"error: {error}"}]
    [posted] = fake_slack.of("chat.postMessage")
    assert posted["text"].startswith("I couldn't search Slack.")


async def test_vouchs_own_messages_and_the_question_are_not_results(
    fake_slack: FakeSlack,
) -> None:
    token = discussed(fake_slack)
    fake_slack.add_message("C0001", "why did the deploy fail?", user="U0001", ts="414.000001")
    fake_slack.add_message("C0003", "Earlier: the deploy failed twice.", user=BOT_USER, ts="9.1")
    long = "deploy " + "x" * (MAX_CHARS + 500)
    fake_slack.add_message("C0004", long, user="U0GONE", ts="9.2")  # no name to be had
    for n in range(MAX_RESULTS + 5):
        fake_slack.add_message("C0005", f"deploy {n} of <@U0MARIA>", user="U0MARIA", ts=f"8.{n}")
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    where = Where("C0001", TEAM, "U0001")
    search = SlackSearch(
        client,
        People(client),
        token,
        Audience(Conversations(client)),
        where,
        skip={BOT_USER},
        current=("C0001", "414.000001"),
    )
    found = await search.run({"query": "deploy"})
    ids = [s.id for s in found]
    assert f"slack-search:C0002:{FOUND}" in ids
    assert "slack-search:C0001:414.000001" not in ids and "slack-search:C0003:9.1" not in ids
    assert len(found) <= MAX_RESULTS and all(len(s.text) <= MAX_CHARS for s in found)
    [unnamed] = [s for s in found if s.id == "slack-search:C0004:9.2"]
    assert unnamed.text.startswith("someone: deploy xxx")
    assert "deploy 0 of @Maria" in "".join(s.text for s in found)


@pytest.mark.parametrize("query", [None, "", "  ", 7, ["deploy"]])
async def test_a_search_without_a_query_is_refused_before_slack_is_asked(
    fake_slack: FakeSlack, query: Any
) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    audience = Audience(Conversations(client))
    search = SlackSearch(client, People(client), "1.2.x", audience, Where("C0001", TEAM, "U0001"))
    with pytest.raises(ToolRefused, match="no_query"):
        await search.run({"query": query})
    assert not fake_slack.calls


@pytest.mark.parametrize(
    "response",
    [
        None,
        "ok",
        {},
        {"ok": True},
        {"results": None},
        {"results": []},
        {"results": {"messages": None}},
        {"results": {"messages": {"channel_id": "C1"}}},
        {"results": {"messages": [None, 3, "x", []]}},
        {"results": {"messages": [{}]}},
        {"results": {"messages": [{"channel_id": "C1", "message_ts": "1.2"}]}},  # no text
        {"results": {"messages": [{"channel_id": "C1", "content": "hi"}]}},  # no ts
        {"results": {"messages": [{"message_ts": "1.2", "content": "hi"}]}},  # no channel
        {"results": {"messages": [{"channel_id": 5, "message_ts": 1.2, "content": "hi"}]}},
        {"results": {"messages": [{"channel_id": "C1", "message_ts": "1.2", "content": " "}]}},
    ],
)
def test_odd_responses_give_no_results(response: Any) -> None:
    assert found_messages(response) == []


def test_what_a_result_lacks_is_left_empty() -> None:
    response = {
        "results": {
            "messages": [
                {"channel_id": "C1", "message_ts": "1.2", "content": "a"},
                {"channel_id": "C1", "message_ts": "1.2", "content": "a again"},  # twice
                {
                    "channel_id": "C2",
                    "message_ts": "1.3",
                    "content": "b",
                    "author_user_id": 42,
                    "permalink": "javascript:alert(1)",
                },
                {
                    "channel_id": "C3",
                    "message_ts": "1.4",
                    "content": "c",
                    "author_user_id": "U1",
                    "permalink": "https://x.slack.com/archives/C3/p14",
                },
            ]
        }
    }
    first, second, third = found_messages(response)
    assert (first.channel, first.ts, first.text, first.author, first.permalink) == (
        "C1",
        "1.2",
        "a",
        "",
        None,
    )
    assert second.author == "" and second.permalink is None
    assert third.author == "U1" and third.permalink == "https://x.slack.com/archives/C3/p14"


@pytest.mark.parametrize(
    ("event", "token"),
    [
        ({"assistant_thread": {"action_token": "1.2.abc"}}, "1.2.abc"),
        ({"action_token": "1.2.top"}, "1.2.top"),
        ({"assistant_thread": {"action_token": "1.2.in"}, "action_token": "x"}, "1.2.in"),
        ({}, None),
        ({"assistant_thread": None}, None),
        ({"assistant_thread": "1.2.abc"}, None),
        ({"assistant_thread": {"action_token": 12}}, None),
        ({"assistant_thread": {"action_token": ""}}, None),
        ({"assistant_thread": {}, "action_token": ["1.2"]}, None),
    ],
)
def test_the_action_token_is_read_from_the_event(event: dict[str, Any], token: str | None) -> None:
    assert action_token(event) == token
