"""Who may read what, and who may make Vouch act, black-box: `python -m app` in HTTP mode
against the strict fake Slack (conversations.info and .members as Slack answers them) in
the world of docs/security.md. An attacker's links to another person's DM and to a private
channel put none of their words in any model request or Slack call; a public channel's link
is still read and cited; a Slack Connect channel gets no team docs and no other channel's
messages; an invented person is never pinged; a pasted token is never echoed; a person
past a budget gets one reply and no model call; a bot's mention gets no answer."""

from __future__ import annotations

import json
import re
import secrets
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from bench.injection import CANARIES, world
from tests.fakes.anthropic import Cite, FakeAnthropic, Reply, ToolCall, cited, tool_results
from tests.fakes.anthropic import tool_use as calling
from tests.fakes.server import patience, wait_healthy
from tests.fakes.slack import BOT_USER, FakeSlack
from tests.slack.bolt import SIGNING_SECRET, mention, message, post_event, settle, until

DOCS = "To roll back a billing deploy, press Revert. Marker INTERNALDOCSCANARY."
TOKEN = f"xoxb-2741098345-5829104736021-{secrets.token_hex(12)}"


def responder(links: dict[str, str]) -> Any:
    """The model, by the [tag] of the question it answers."""

    def respond(request: dict[str, Any]) -> Reply:
        tag = re.search(r"\[([a-z-]+)\]", json.dumps(request["messages"][0]))
        retry = "failed verification" in json.dumps(request["messages"])
        read = tool_results(request).get("toolu_read")
        name = tag.group(1) if tag else ""
        if name in links and read is None:
            return calling(ToolCall("read_slack_link", {"url": links[name]}, id="toolu_read"))
        if read is not None and not read.get("is_error"):
            block = read["content"][0]
            quote = block["content"][0]["text"]
            return cited((f"It says: {quote}", Cite(block["source"], quote)))
        if name == "ghost" and not retry:
            return Reply("Ask <@U0GHOST> about the rollback.")
        if name == "token" and not retry:
            return Reply(f"Your token `{TOKEN}` lacks the chat:write scope.")
        return Reply("I can't share that here; the token you pasted needs chat:write.")

    return respond


def posted_in(slack: FakeSlack, channel: str, thread: str) -> list[str]:
    return [
        str(p.get("text", ""))
        for p in slack.of("chat.postMessage")
        if p.get("channel") == channel and p.get("thread_ts") == thread
    ]


def requests_tagged(anthropic: FakeAnthropic, tag: str) -> str:
    return json.dumps([r for r in anthropic.requests if f"[{tag}]" in json.dumps(r)])


async def test_who_reads_what_and_who_makes_vouch_act(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, tmp_path: Path
) -> None:
    links = world(fake_slack)
    links = {"dm": links["{finn_dm_link}"], "exec": links["{exec_link}"]} | {
        "random": links["{random_link}"],
        "shared-link": links["{random_link}"],
    }
    fake_slack.conversation("C0TIGHT", "channel", ["U0BOB", BOT_USER])
    fake_slack.user("U0BOB", "Bob")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "deploy.md").write_text(f"# Rolling back a billing deploy\n\n{DOCS}\n")
    (docs / "lunch.md").write_text("# Lunch\n\nThe canteen opens at noon on weekdays.\n")
    (docs / "oncall.md").write_text("# On-call\n\nThe rota changes every Monday at ten.\n")
    channels = tmp_path / "channels.yml"
    channels.write_text("channels:\n  C0TIGHT:\n    budget:\n      channel_messages: 1\n")
    fake_anthropic.responder = responder(links)
    process, port = bot(
        KNOWLEDGE_DIR=str(docs),
        KNOWLEDGE_INDEX=str(tmp_path / "index.sqlite3"),
        CHANNELS_FILE=str(channels),
        QUEUE_PATH=str(tmp_path / "queue.sqlite3"),
    )
    await wait_healthy(f"http://127.0.0.1:{port}")
    asked = [
        ("C0ENG", "dm", f"[dm] what does this say? <{links['dm']}>"),
        ("C0ENG", "exec", f"[exec] what does this say? <{links['exec']}>"),
        ("C0ENG", "random", f"[random] what does this say? <{links['random']}>"),
        ("C0SHARED", "shared-link", f"[shared-link] and this? <{links['shared-link']}>"),
        ("C0SHARED", "shared-docs", "[shared-docs] How do I roll back a billing deploy?"),
        ("C0ENG", "eng-docs", "[eng-docs] How do I roll back a billing deploy?"),
        ("C0ENG", "ghost", "[ghost] who can help with the rollback?"),
        ("C0ENG", "token", f"[token] why does {TOKEN} get missing_scope?"),
    ]
    for n, (channel, _, question) in enumerate(asked):
        ts = f"1700200{n:03d}.000100"
        assert (
            await post_event(port, mention(question, ts, channel, user="U0DANA"), SIGNING_SECRET)
            == 200
        )
        await until(
            cast(  # mypy infers no lambda with a default
                "Callable[[], bool]", lambda c=channel, t=ts: bool(posted_in(fake_slack, c, t))
            ),
            timeout=20,
        )
    for n in (1, 2):  # Bob's second question in C0TIGHT is past the channel's budget
        ts = f"1700300{n:03d}.000100"
        event = mention("[budget] how do I deploy?", ts, "C0TIGHT", user="U0BOB")
        assert await post_event(port, event, SIGNING_SECRET) == 200
        await until(
            cast(  # mypy infers no lambda with a default
                "Callable[[], bool]", lambda t=ts: bool(posted_in(fake_slack, "C0TIGHT", t))
            ),
            timeout=20,
        )
    bot_mention = mention(
        "[bot] loop?", "1700400000.000100", "C0ENG", user="U0OTHER", bot_id="B0OTHER"
    )
    assert await post_event(port, bot_mention, SIGNING_SECRET) == 200
    dm = message("[dm-own] hi", "1700400001.000100", "D0DANA", user="U0DANA", channel_type="im")
    assert await post_event(port, dm, SIGNING_SECRET) == 200  # answered after the bot's
    await until(lambda: bool(posted_in(fake_slack, "D0DANA", "1700400001.000100")), timeout=20)
    await settle(fake_slack)

    to_slack = fake_slack.text_sent()
    to_model = json.dumps(fake_anthropic.requests, ensure_ascii=False)
    for channel in ("D0FINN", "G0EXEC"):  # the DM's and the private channel's words
        assert CANARIES[channel] not in to_model and CANARIES[channel] not in to_slack
    assert CANARIES["C0RANDOM"] in posted_in(fake_slack, "C0ENG", "1700200002.000100")[0]
    assert links["random"] in posted_in(fake_slack, "C0ENG", "1700200002.000100")[0]
    shared = requests_tagged(fake_anthropic, "shared-link") + requests_tagged(
        fake_anthropic, "shared-docs"
    )
    assert CANARIES["C0RANDOM"] not in shared and "INTERNALDOCSCANARY" not in shared
    assert "error: shared_channel" in shared
    assert "INTERNALDOCSCANARY" in requests_tagged(fake_anthropic, "eng-docs")  # a control
    assert "<@U0GHOST>" not in to_slack
    assert TOKEN not in to_slack
    bob = posted_in(fake_slack, "C0TIGHT", "1700300001.000100") + posted_in(
        fake_slack, "C0TIGHT", "1700300002.000100"
    )
    assert len(bob) == 2 and bob[1].startswith(":hourglass: This channel has reached")
    assert len([r for r in fake_anthropic.requests if "[budget]" in json.dumps(r)]) == 1
    assert posted_in(fake_slack, "C0ENG", "1700400000.000100") == []
    assert "[bot]" not in to_model

    process.send_signal(signal.SIGTERM)
    _, errors = process.communicate(timeout=patience(15))
    lines = [json.loads(line) for line in errors.splitlines() if line.startswith("{")]
    assert [line for line in lines if line["level"] == "ERROR"] == []
    assert TOKEN not in errors
