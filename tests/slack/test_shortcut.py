""" "Ask Vouch about this", the message shortcut, through Bolt, the real clients and the
fakes: recorded before its ack, like a mention under the message asked about, by the
person who clicked; answered once in that message's thread, with the message (and its
author) as the question. A message asked about again, or mentioned too, is answered each
time it is asked; a payload Slack would not send is acked and dropped."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from app.slack.events import shortcut_event
from app.work.redis_store import RedisStore
from app.work.store import Job
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.server import patience, wait_healthy
from tests.fakes.slack import BOT_USER, TEAM, FakeSlack, Fault
from tests.slack.bolt import (
    SIGNING_SECRET,
    answers_in,
    dispatch,
    interact,
    make_app,
    mention,
    message,
    post_interaction,
    settle,
    shortcut,
    until,
)

GOOD = "Rotate it with `vault write -f pki/rotate`; clients pick it up within five minutes."
ASKED = {"ts": "900.000001", "user": "U0ANA", "text": "how do we rotate the VPN certificate?"}


async def test_a_shortcut_answers_in_the_thread_of_the_message_it_asks_about(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_slack.user("U0ANA", "Ana")
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    await dispatch(app, message(ASKED["text"], ASKED["ts"], user="U0ANA"))  # not for Vouch
    assert await interact(app, shortcut(ASKED, "900.000050", user="U0BEN")) == 200
    await until(lambda: bool(answers_in(fake_slack, ASKED["ts"])))
    await settle(fake_slack)
    assert answers_in(fake_slack, ASKED["ts"]) == [GOOD]
    [request] = fake_anthropic.requests
    latest = json.dumps(request["messages"][-1], ensure_ascii=False)
    assert ASKED["text"] in latest and "Ana" in latest  # the message, by its author


async def test_each_ask_is_answered_once_and_a_mention_does_not_hide_it(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    await dispatch(app, mention("how do we rotate the VPN certificate?", "901.000001"))
    await until(lambda: len(answers_in(fake_slack, "901.000001")) == 1)
    asked = {"ts": "901.000001", "user": "U0001", "text": f"<@{BOT_USER}> how do we rotate?"}
    click = shortcut(asked, "901.000090")
    assert await interact(app, click) == 200
    assert await interact(app, click) == 200  # the same click again: recorded once
    await until(lambda: len(answers_in(fake_slack, "901.000001")) == 2)
    await settle(fake_slack)
    assert len(answers_in(fake_slack, "901.000001")) == 2
    assert len(fake_anthropic.requests) == 2


async def test_a_reply_asked_about_is_answered_in_its_thread_from_what_came_before(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    await dispatch(app, message("the VPN cert expires Friday", "902.000001"))
    reply = {"ts": "902.000002", "thread_ts": "902.000001", "user": "U0ANA", "text": "so how?"}
    await dispatch(app, message(reply["text"], reply["ts"], thread_ts="902.000001", user="U0ANA"))
    assert await interact(app, shortcut(reply, "902.000090")) == 200
    await until(lambda: bool(answers_in(fake_slack, "902.000001")))
    await settle(fake_slack)
    [request] = fake_anthropic.requests
    assert "the VPN cert expires Friday" in json.dumps(request["messages"])


async def test_a_bots_message_asked_about_is_not_put_in_the_clickers_mouth(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_slack.user("U0BEN", "Ben Clicker")
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    alert = {"ts": "905.000001", "bot_id": "B0PAGER", "text": "Incident 42 triggered: VPN down"}
    assert await interact(app, shortcut(alert, "905.000090", user="U0BEN")) == 200
    await until(lambda: bool(answers_in(fake_slack, alert["ts"])))
    await settle(fake_slack)
    [request] = fake_anthropic.requests
    assert "Incident 42" in json.dumps(request) and "Ben Clicker" not in json.dumps(request)


async def test_a_click_taken_over_is_not_hidden_by_an_earlier_answer_to_the_message(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """A worker died holding a click on a message Vouch had answered (when mentioned): the
    click's own answer is looked for, not the message's, so it is answered."""
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    await dispatch(app, mention("how do we rotate the VPN certificate?", "906.000001"))
    await until(lambda: len(answers_in(fake_slack, "906.000001")) == 1)
    await settle(fake_slack)
    asked = {"ts": "906.000001", "user": "U0001", "text": f"<@{BOT_USER}> how do we rotate?"}
    event = shortcut_event(shortcut(asked, "906.000090"))
    assert isinstance(event, dict)
    await app.workers._answer(Job(f"{TEAM}:C0001:906.000090", event, tries=2))
    assert len(answers_in(fake_slack, "906.000001")) == 2


@pytest.mark.parametrize(
    ("channel", "asked", "said"),
    [
        ("C0OUT", ASKED, "I'm not in this conversation"),  # a public channel Vouch is not in
        ("G0OUT", ASKED, "I'm not in this conversation"),  # a private one
        ("D0OTHERS", ASKED, "I'm not in this conversation"),  # two other people's DM
        ("C0001", {**ASKED, "text": "", "files": [{"id": "F0SHOT"}]}, "has no text"),
    ],
)
async def test_what_cannot_be_answered_there_is_told_to_the_clicker_alone(
    make_settings: Any,
    *,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    channel: str,
    asked: dict[str, Any],
    said: str,
) -> None:
    """No model call, nothing in the channel: the person who clicked is told privately
    (the shortcut's response_url) what to do instead."""
    fake_slack.joined = {"C0001"}
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    click = shortcut(asked, "907.000090", channel=channel) | {
        "response_url": fake_slack.response_url()
    }
    assert await interact(app, click) == 200
    await until(lambda: bool(fake_slack.responses))
    await settle(fake_slack)
    [told] = fake_slack.responses
    assert said in told["text"] and told["response_type"] == "ephemeral"
    assert fake_anthropic.requests == []
    assert not [c for c in fake_slack.calls if c.method.startswith(("chat.", "assistant."))]


async def test_what_is_not_asked_gets_nothing(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, tmp_path: Path
) -> None:
    """A channel where Vouch stays silent, and payloads Slack would not send (no message,
    a ts that is not a string), are acked and get nothing."""
    channels = tmp_path / "channels.yml"
    channels.write_text("channels:\n  C0SILENT:\n    answer: false\n")
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings(channels_file=channels))
    silent = shortcut(ASKED, "903.000090", channel="C0SILENT")
    no_message = {k: v for k, v in shortcut(ASKED, "903.000091").items() if k != "message"}
    bad_ts = shortcut({**ASKED, "ts": 903.000001}, "903.000092")
    for payload in (silent, no_message, bad_ts):
        assert await interact(app, payload) == 200
    await settle(fake_slack)
    assert fake_slack.of("chat.postMessage") == [] and fake_anthropic.requests == []


async def test_a_shortcut_to_the_bot_process_is_answered_once(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, tmp_path: Path
) -> None:
    """Black-box, HTTP mode: the signed form Slack posts, acked after it is recorded;
    sent twice (the person clicked again before the first answer), answered once per
    click; an unsigned one refused."""
    fake_anthropic.default = Reply(GOOD)
    process, port = bot(QUEUE_PATH=str(tmp_path / "q.sqlite3"))
    await wait_healthy(f"http://127.0.0.1:{port}")
    fake_slack.fail("auth.test", Fault(error="internal_error"))  # acked all the same
    click = shortcut(ASKED, "904.000090", user="U0BEN")
    assert await post_interaction(port, click, "not-the-secret") == 401
    assert await post_interaction(port, click, SIGNING_SECRET) == 200
    assert await post_interaction(port, click, SIGNING_SECRET) == 200  # the same click
    await until(lambda: bool(answers_in(fake_slack, ASKED["ts"])), timeout=20)
    await settle(fake_slack, quiet=1.0)
    assert answers_in(fake_slack, ASKED["ts"]) == [GOOD]
    process.send_signal(signal.SIGTERM)
    _, errors = process.communicate(timeout=patience(15))
    lines = [json.loads(line) for line in errors.splitlines() if line.startswith("{")]
    assert lines and [line for line in lines if line["level"] == "ERROR"] == []
    assert "VPN" not in errors


async def test_a_click_the_store_cannot_record_is_not_acked(make_settings: Any) -> None:
    """Redis away: the click is refused (no ack), so Slack tells the person it failed,
    rather than acked and lost."""
    store = RedisStore("redis://127.0.0.1:1/0", ttl=60, timeout=0.2)  # nothing listens
    app = make_app(make_settings(), store=store)
    try:
        assert await interact(app, shortcut(ASKED, "908.000090")) != 200
    finally:
        await store.close()
