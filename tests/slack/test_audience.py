"""The audience rule: content read elsewhere goes into an answer only if everyone who will
read the answer may read it there. First the rule on Slack's facts, then as an attacker would
try it through Bolt and the strict fake Slack: links to another person's DM, to a private
channel, and anything into a Slack Connect channel."""

from __future__ import annotations

import json
from typing import Any

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from app.agent.loop import Deps
from app.knowledge.retrieve import Knowledge
from app.slack.audience import Audience, Where, refusal
from app.slack.conversations import Conversations, Place, place_of
from tests.fakes.anthropic import Cite, FakeAnthropic, Reply, ToolCall, cited, tool_results
from tests.fakes.anthropic import tool_use as calling
from tests.fakes.slack import BOT_USER, TEAM, FakeSlack, Fault, permalink
from tests.knowledge.grounding import in_turn
from tests.slack.bolt import dispatch, make_app, mention, message, replied

PUBLIC = Place("C0RANDOM", "public", TEAM, shared=False, external=False)
ENG = Place("C0ENG", "public", TEAM, shared=False, external=False)
EXEC = Place("G0EXEC", "private", TEAM, shared=False, external=False)
GROUP = Place("G0TRIO", "mpim", TEAM, shared=False, external=False)
FINN_DM = Place("D0FINN", "im", TEAM, shared=False, external=False, user="U0FINN")
DANA_DM = Place("D0DANA", "im", TEAM, shared=False, external=False, user="U0DANA")
CONNECT = Place("C0SHARED", "public", TEAM, shared=True, external=True)
ORG_WIDE = Place("C0ORG", "public", TEAM, shared=True, external=False)
ELSEWHERE = Place("C0OTHER", "public", "T0OTHER", shared=False, external=False)


@pytest.mark.parametrize(
    ("source", "answer", "asker_in", "expected"),
    [
        (ENG, ENG, None, None),  # the same conversation (a thread of it)
        (PUBLIC, ENG, None, None),  # a public channel into a channel of the workspace
        (PUBLIC, DANA_DM, None, None),
        (PUBLIC, CONNECT, None, "shared_channel"),  # Slack Connect: people of another org
        (PUBLIC, ORG_WIDE, None, "shared_channel"),  # other workspaces of the organisation
        (ELSEWHERE, ENG, None, "other_workspace"),
        (FINN_DM, ENG, False, "private_to_others"),  # another person's DM with Vouch
        (FINN_DM, DANA_DM, False, "private_to_others"),
        (EXEC, ENG, True, "private_to_others"),  # even when the asker is in it
        (EXEC, DANA_DM, True, None),  # the asker's own DM, and the asker is in it
        (EXEC, DANA_DM, False, "private_to_others"),
        (EXEC, DANA_DM, None, "audience_unknown"),  # Slack did not say who is in it
        (GROUP, DANA_DM, True, None),
        (GROUP, ENG, True, "private_to_others"),
        (DANA_DM, ENG, None, "private_to_others"),  # the asker's own DM into a channel
        (CONNECT, ENG, None, None),  # a shared channel's messages are public to our people
    ],
)
def test_the_rule(source: Place, answer: Place, asker_in: bool | None, expected: str) -> None:
    assert refusal(source, answer, "U0DANA", asker_in) == expected


def test_a_conversation_slack_describes_ambiguously_is_private() -> None:
    assert place_of({"id": "C1"}) == Place("C1", "private", "", False, False)  # no is_private
    assert place_of({"id": "D1", "is_im": True, "user": "U1"}).kind == "im"  # type: ignore[union-attr]
    pending = place_of({"id": "C1", "is_private": False, "is_pending_ext_shared": True})
    assert pending is not None and pending.shared and pending.external
    invited = place_of({"id": "C1", "is_private": False, "pending_shared": ["T0EXT"]})
    assert invited is not None and invited.shared
    assert place_of({"name": "no id"}) is None


def workspace(slack: FakeSlack) -> dict[str, str]:
    """The world of docs/security.md: #eng, #random (public), #exec (private, Finn),
    Finn's and Dana's DMs with Vouch, #globex-shared (Slack Connect); a message in each
    (what must never leak, or may be read), and a link to it."""
    slack.user("U0DANA", "Dana Reyes")
    slack.user("U0FINN", "Finn Walsh")
    slack.user("U0ELI", "Eli Park")
    slack.conversation("C0ENG", "channel", ["U0DANA", "U0ELI", BOT_USER])
    slack.conversation("C0RANDOM", "channel", ["U0ELI", "U0FINN", BOT_USER])
    slack.conversation("G0EXEC", "group", ["U0FINN", BOT_USER])
    slack.conversation("D0FINN", "im", user="U0FINN")
    slack.conversation("D0DANA", "im", user="U0DANA")
    slack.conversation("C0SHARED", "channel", ["U0DANA", "U0SAM", BOT_USER], shared="ext")
    said = {
        "G0EXEC": "Kestrel acquisition closes on the fourteenth",
        "D0FINN": "my offer from Globex is on the table",
        "C0RANDOM": "The office coffee machine is fixed",
    }
    links = {}
    for n, (channel, text) in enumerate(said.items()):
        ts = f"1700000{n}00.000100"
        slack.add_message(channel, text, user="U0FINN" if channel != "C0RANDOM" else "U0ELI", ts=ts)
        links[channel] = permalink(channel, ts)
    return links | {f"said:{c}": t for c, t in said.items()}


def reading(link: str, answer: str = "I can't read that message here.") -> Any:
    """A model that reads the link, then answers with what it got (quoting it if read)."""

    def respond(request: dict[str, Any]) -> Reply:
        result = tool_results(request)["toolu_read"]
        if result.get("is_error"):
            return Reply(answer)
        block = result["content"][0]
        said = block["content"][0]["text"]
        return cited((f"It says: {said}", Cite(block["source"], said)))

    return in_turn(
        lambda _: calling(ToolCall("read_slack_link", {"url": link}, id="toolu_read")), respond
    )


def everything_sent(slack: FakeSlack, anthropic: FakeAnthropic) -> str:
    return slack.text_sent() + json.dumps(anthropic.requests, ensure_ascii=False)


@pytest.mark.parametrize(
    "case",
    [
        ("C0ENG", "D0FINN", "private_to_others"),  # another person's DM with Vouch, in public
        ("D0DANA", "D0FINN", "private_to_others"),  # ... or in the asker's own DM
        ("C0ENG", "G0EXEC", "private_to_others"),  # a private channel the asker is not in
        ("D0DANA", "G0EXEC", "private_to_others"),
        ("C0SHARED", "C0RANDOM", "shared_channel"),  # a public channel into Slack Connect
    ],
)
async def test_a_link_the_audience_may_not_read_is_not_read(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    case: tuple[str, str, str],
) -> None:
    asked_in, linked, reason = case
    world = workspace(fake_slack)
    fake_anthropic.responder = reading(world[linked])
    app = make_app(make_settings())
    question = f"what does this say? <{world[linked]}>"
    kind = {"channel_type": "im"} if asked_in.startswith("D") else {}
    event = message if asked_in.startswith("D") else mention
    await dispatch(app, event(question, "501.000001", asked_in, user="U0DANA", **kind))
    await replied(fake_slack)
    result = tool_results(fake_anthropic.requests[1])["toolu_read"]
    assert result["is_error"] and result["content"][0]["text"] == f"error: {reason}"
    assert world[f"said:{linked}"] not in everything_sent(fake_slack, fake_anthropic)
    assert not [p for p in fake_slack.of("conversations.replies") if p["channel"] == linked]
    [posted] = fake_slack.of("chat.postMessage")
    assert posted["text"].startswith("I can't read that message here.")


@pytest.mark.parametrize(
    ("asked_in", "linked"),
    [("C0ENG", "C0RANDOM"), ("D0DANA", "C0RANDOM"), ("C0SHARED", "C0SHARED")],
)
async def test_a_link_everyone_here_may_read_is_read_and_cited(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    asked_in: str,
    linked: str,
) -> None:
    world = workspace(fake_slack)
    if linked == "C0SHARED":
        ts = "1700000900.000100"
        fake_slack.add_message("C0SHARED", "Globex ships on Friday", user="U0SAM", ts=ts)
        world |= {"C0SHARED": permalink("C0SHARED", ts), "said:C0SHARED": "Globex ships"}
    fake_anthropic.responder = reading(world[linked])
    app = make_app(make_settings())
    kind = {"channel_type": "im"} if asked_in.startswith("D") else {}
    event = message if asked_in.startswith("D") else mention
    question = f"what does this say? <{world[linked]}>"
    await dispatch(app, event(question, "502.000001", asked_in, user="U0DANA", **kind))
    await replied(fake_slack)
    [posted] = fake_slack.of("chat.postMessage")
    assert world[f"said:{linked}"] in posted["text"] and world[linked] in posted["text"]


async def test_the_asker_s_own_dm_may_read_a_private_channel_they_are_in(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    world = workspace(fake_slack)
    fake_slack.conversation("G0EXEC", "group", ["U0FINN", "U0DANA", BOT_USER])
    fake_anthropic.responder = reading(world["G0EXEC"])
    app = make_app(make_settings())
    question = f"what does this say? <{world['G0EXEC']}>"
    await dispatch(app, message(question, "503.000001", "D0DANA", user="U0DANA", channel_type="im"))
    await replied(fake_slack)
    [posted] = fake_slack.of("chat.postMessage")
    assert world["said:G0EXEC"] in posted["text"]
    assert {p["channel"] for p in fake_slack.of("conversations.members")} == {"G0EXEC"}


@pytest.mark.parametrize("method", ["conversations.info", "conversations.members"])
async def test_when_slack_cannot_say_who_may_read_nothing_is_read(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, method: str
) -> None:
    world = workspace(fake_slack)
    fake_slack.conversation("G0EXEC", "group", ["U0FINN", "U0DANA", BOT_USER])
    fake_slack.fail(method, *[Fault(status=429, error="ratelimited", retry_after=60)] * 4)
    fake_anthropic.responder = reading(world["G0EXEC"])
    app = make_app(make_settings())
    question = f"what does this say? <{world['G0EXEC']}>"
    await dispatch(app, message(question, "504.000001", "D0DANA", user="U0DANA", channel_type="im"))
    await replied(fake_slack)
    result = tool_results(fake_anthropic.requests[1])["toolu_read"]
    assert result["content"][0]["text"] == "error: audience_unknown"
    assert world["said:G0EXEC"] not in everything_sent(fake_slack, fake_anthropic)


async def test_the_audience_is_asked_of_slack_once_a_minute_per_conversation(
    fake_slack: FakeSlack,
) -> None:
    workspace(fake_slack)
    now = [0.0]
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.url)
    audience = Audience(Conversations(client, clock=lambda: now[0]))
    where = Where("D0DANA", TEAM, "U0DANA")
    for _ in range(3):
        assert await audience.check("G0EXEC", where) == "private_to_others"
    assert len(fake_slack.of("conversations.info")) == 2  # D0DANA and G0EXEC, once each
    assert len(fake_slack.of("conversations.members")) == 1
    fake_slack.conversation("G0EXEC", "group", ["U0FINN", "U0DANA", BOT_USER])  # Dana joins
    now[0] = 61.0
    assert await audience.check("G0EXEC", where) is None


async def test_search_results_the_audience_may_not_read_are_left_out(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """Real-time Search answers with what the asker may see; in a Slack Connect channel
    none of it is for the people of the other organisation."""
    world = workspace(fake_slack)
    fake_slack.rts = True
    fake_slack.add_message("C0SHARED", "Globex coffee order is in", user="U0SAM", ts="9.000001")
    token = fake_slack.action_token()
    call = ToolCall("search_slack", {"query": "coffee"}, id="toolu_s")
    fake_anthropic.responder = in_turn(
        lambda _: calling(call), lambda _: Reply("Nothing about coffee that I can share here.")
    )
    app = make_app(make_settings(slack_search=True))
    asked = {"assistant_thread": {"action_token": token}, "user": "U0DANA"}
    await dispatch(app, mention("anything about coffee?", "505.000001", "C0SHARED", **asked))
    await replied(fake_slack)
    result = tool_results(fake_anthropic.requests[1])["toolu_s"]["content"]
    assert [block["source"] for block in result if "source" in block] == [
        "slack-search:C0SHARED:9.000001"
    ]
    assert world["said:C0RANDOM"] not in everything_sent(fake_slack, fake_anthropic)


@pytest.mark.parametrize("shared", ["ext", "pending", None])
async def test_a_slack_connect_channel_gets_no_team_docs_but_its_own(
    knowledge_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    tmp_path: Any,
    shared: str | None,
) -> None:
    fake_slack.conversation("C0SHARED", "channel", ["U0001", BOT_USER], shared=shared)
    own = tmp_path / "partner-docs"
    own.mkdir()
    (own / "partners.md").write_text(
        "# Rolling back a billing deploy\n\nTo roll back a billing deploy, partners "
        "roll back billing by mail to the billing team.\n"
    )
    channels = tmp_path / "channels.yml"
    channels.write_text(f"channels:\n  C0OWN:\n    knowledge: {own}\n")
    fake_slack.conversation("C0OWN", "channel", ["U0001", BOT_USER], shared="ext")
    settings = knowledge_settings(channels_file=channels)
    knowledge = Knowledge.open(settings)
    app = make_app(settings, agent=Deps.from_settings(settings, knowledge=knowledge))
    fake_anthropic.default = Reply("I can't say from here.")
    question = "How do I roll back a billing deploy? Asking for {}."
    await dispatch(app, mention(question.format("Globex"), "506.000001", "C0SHARED"))
    await dispatch(app, mention(question.format("partners"), "506.000002", "C0OWN"))
    await replied(fake_slack, count=2)
    asked = [json.dumps(r) for r in fake_anthropic.requests if "for Globex" in json.dumps(r)]
    own = [json.dumps(r) for r in fake_anthropic.requests if "for partners" in json.dumps(r)]
    assert asked and own
    assert all(("Revert" in r) is (shared is None) for r in asked)  # team docs: org only
    assert all("roll back billing by mail" in r and "Revert" not in r for r in own)
