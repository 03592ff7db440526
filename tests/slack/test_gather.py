"""Gathering, end to end through Bolt and the fakes: a thread of three people reaches the
model with their names (users.info, asked once per person), and a question linking
another Slack thread is answered with that thread read by a tool, cited and linked — or,
in a channel Vouch is not in, told to the model as an error. Names never reach the logs."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.fakes.anthropic import Cite, FakeAnthropic, Reply, ToolCall, cited, tool_results
from tests.fakes.anthropic import tool_use as calling
from tests.fakes.slack import BOT_USER, FakeSlack, permalink
from tests.knowledge.grounding import in_turn
from tests.slack.bolt import dispatch, make_app, mention, message, replied

ROOT = "400.000001"


async def test_a_thread_of_three_people_reaches_the_model_with_their_names(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="vouch")
    for user, display, real in (
        ("U0MARIA", "", "Maria Zebracanary"),
        ("U0JONAS", "jonas.k", "Jonas Kim"),
        ("U0ANA", "Ana", "Ana Ruiz"),
    ):
        fake_slack.user(user, display, real)
    fake_slack.threads[("C0001", ROOT)] = [
        {"ts": ROOT, "user": "U0MARIA", "text": f"<@{BOT_USER}> the outage was the DNS change"},
        {"ts": "400.000002", "user": "U0JONAS", "text": "no, <@U0MARIA>, the cert expired"},
        {"ts": "400.000003", "user": "U0ANA", "text": "what did Maria say it was?"},
    ]
    fake_anthropic.push(Reply("Maria said the outage was the DNS change."))
    app = make_app(make_settings())
    event = mention("what did Maria say it was?", "400.000003", thread_ts=ROOT, user="U0ANA")
    await dispatch(app, event)
    await replied(fake_slack)
    [request] = fake_anthropic.requests
    sent = "\n".join(b["text"] for m in request["messages"] for b in m["content"])
    assert "Maria Zebracanary wrote:\nthe outage was the DNS change" in sent
    assert "jonas.k wrote:\nno, @Maria Zebracanary, the cert expired" in sent
    assert "Ana wrote:\nwhat did Maria say it was?" in sent
    assert len(fake_slack.of("users.info")) == 3  # once each
    await dispatch(app, mention("thanks", "400.000004", thread_ts=ROOT, user="U0ANA"))
    fake_anthropic.push(Reply("You're welcome."))
    await replied(fake_slack, count=2)
    assert len(fake_slack.of("users.info")) == 3  # kept, not asked again
    assert "Zebracanary" not in caplog.text


LINKED = "1700000000.000100"


def linked_thread(slack: FakeSlack) -> str:
    slack.user("U0MARIA", "Maria")
    slack.add_message(
        "C0002",
        "The deploy failed: the migration locked the users table.",
        user="U0MARIA",
        ts=LINKED,
    )
    slack.add_message(
        "C0002",
        "Fixed by running it at night.",
        user="U0MARIA",
        ts="1700000000.000200",
        thread_ts=LINKED,
    )
    return permalink("C0002", LINKED)


async def test_a_question_linking_a_slack_thread_is_answered_with_that_thread_read(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    link = linked_thread(fake_slack)
    quote = "Maria: The deploy failed: the migration locked the users table."

    def answer(request: dict[str, Any]) -> Reply:
        [result] = tool_results(request).values()
        source = result["content"][0]["source"]
        return cited(("The migration locked the users table.", Cite(source, quote)))

    fake_anthropic.responder = in_turn(
        lambda _: calling(ToolCall("read_slack_link", {"url": link}, id="toolu_read")), answer
    )
    app = make_app(make_settings())
    await dispatch(
        app,
        message(f"why did this fail? <{link}>", "401.000001", channel="D0001", channel_type="im"),
    )
    await replied(fake_slack)
    first, second = fake_anthropic.requests
    assert [t["name"] for t in first["tools"]] == ["read_slack_link"]
    read = tool_results(second)["toolu_read"]["content"][0]
    assert read["source"] == f"slack:C0002:{LINKED}"
    assert [b["text"] for b in read["content"]] == [quote, "Maria: Fixed by running it at night."]
    [posted] = fake_slack.of("chat.postMessage")
    assert posted["text"].startswith("The migration locked the users table.")
    assert link in posted["text"]  # the sources footer links the thread read


async def test_a_linked_thread_vouch_cannot_read_is_an_error_the_model_reads(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    link = linked_thread(fake_slack)
    fake_slack.joined = {"C0001", "D0001"}  # not C0002
    fake_anthropic.responder = in_turn(
        lambda _: calling(ToolCall("read_slack_link", {"url": link}, id="toolu_read")),
        lambda _: Reply("I can't read that channel; could you paste the message here?"),
    )
    app = make_app(make_settings())
    await dispatch(
        app,
        message(f"why did this fail? <{link}>", "402.000001", channel="D0001", channel_type="im"),
    )
    await replied(fake_slack)
    result = tool_results(fake_anthropic.requests[1])["toolu_read"]
    assert result["is_error"] and result["content"][0]["text"] == "error: not_in_channel"
    [posted] = fake_slack.of("chat.postMessage")
    assert posted["text"].startswith("I can't read that channel")
