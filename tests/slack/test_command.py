"""`/vouch <question>`, through the intake, the real clients and the fakes: recorded before
its ack (which tells its user, privately, that an answer is coming), answered once to its
asker alone through the command's response_url, with a button that shares the verified
answer in the channel, once. Nothing of it is posted in the channel unless shared; what
cannot be answered there is told privately, with no model call."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from app.slack.events import Taken, command_event
from app.slack.intake import NOT_HERE, NOT_TAKEN, TAKEN_IN, take_command
from app.slack.private import (
    GONE,
    HELD_FOR,
    NOT_NOW,
    NOT_SHARED,
    PARTLY_SHARED,
    Private,
    told_key,
)
from app.telemetry import Telemetry
from app.work.redis_store import RedisStore
from app.work.sqlite_store import SqliteStore
from app.work.store import Job
from bench.injection import CANARIES, world
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.server import patience, wait_healthy
from tests.fakes.slack import TEAM, FakeSlack, Fault
from tests.slack.bolt import (
    SIGNING_SECRET,
    command,
    interact,
    make_app,
    post_command,
    post_interaction,
    settle,
    share,
    until,
)
from tests.test_security import responder

GOOD = "Rotate it with `vault write -f pki/rotate`; clients pick it up within five minutes."
UNCLOSED = "Rotate it:\n```\nvault write -f pki/rotate"
QUESTION = "how do we rotate the VPN certificate?"


def _button(response: dict[str, Any]) -> str:
    """The value of the share button under a private answer."""
    [actions] = [b for b in response["blocks"] if b["type"] == "actions"]
    [button] = actions["elements"]
    assert button["action_id"] == "vouch_share"
    return str(button["value"])


def _recorded(fields: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """A command's key in the store, and its event as recorded."""
    taken = command_event(fields)
    assert isinstance(taken, Taken)
    return f"{TEAM}:{fields['channel_id']}:{taken.event['ts']}", taken.event


def _in_channel(slack: FakeSlack) -> list[dict[str, Any]]:
    return [c.params for c in slack.calls if c.method.startswith(("chat.", "assistant."))]


async def test_a_command_is_answered_once_to_its_asker_alone(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    fields = command(QUESTION, fake_slack.response_url())
    assert await take_command(app.intake, fields) == {
        "response_type": "ephemeral",
        "text": TAKEN_IN,
    }
    await take_command(app.intake, fields)  # a Socket Mode envelope delivered again
    await until(lambda: bool(fake_slack.responses))
    await settle(fake_slack)
    [answer] = fake_slack.responses
    assert answer["response_type"] == "ephemeral" and answer["text"] == GOOD
    assert GOOD in json.dumps(answer["blocks"]) and _button(answer).startswith("cmd-")
    assert "replace_original" not in answer and "delete_original" not in answer
    assert _in_channel(fake_slack) == []  # no post, no status line: it is private
    [request] = fake_anthropic.requests
    assert QUESTION in json.dumps(request["messages"])


async def test_the_asker_shares_the_answer_in_the_channel_once(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    await take_command(app.intake, command(QUESTION, fake_slack.response_url(), user="U0ANA"))
    await until(lambda: bool(fake_slack.responses))
    value = _button(fake_slack.responses[0])
    click = fake_slack.response_url(click=True)
    assert await interact(app, share(value, fake_slack.response_url(), user="U0BEN")) == 200
    assert await interact(app, share(value, click, user="U0ANA")) == 200
    await until(lambda: bool(fake_slack.deleted))
    again = fake_slack.response_url()
    assert await interact(app, share(value, again, user="U0ANA")) == 200  # a second click
    await until(lambda: len(fake_slack.responses) == 3)
    await settle(fake_slack)
    [posted] = fake_slack.of("chat.postMessage")
    assert posted["channel"] == "C0001" and "thread_ts" not in posted
    assert posted["text"] == GOOD and "Shared by <@U0ANA>" in json.dumps(posted["blocks"])
    assert fake_slack.deleted == [click.rsplit("/response/", 1)[1]]  # the private copy
    told = [r["text"] for r in fake_slack.responses[1:]]
    assert told == [GONE, GONE]  # someone else's click, then the second click
    assert len(fake_anthropic.requests) == 1


async def test_a_command_whose_drafts_all_fail_tells_its_asker_privately_and_holds_nothing(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(UNCLOSED)
    app = make_app(make_settings())
    fields = command(QUESTION, fake_slack.response_url())
    await take_command(app.intake, fields)
    await until(lambda: bool(fake_slack.responses))
    await settle(fake_slack)
    [told] = fake_slack.responses
    assert "vault write" not in json.dumps(told) and "actions" not in json.dumps(told)
    assert "reference" in told["text"].lower() and _in_channel(fake_slack) == []
    assert len(fake_anthropic.requests) == 3  # every attempt was made
    key, _ = _recorded(fields)
    assert await app.store.held(key) is None


@pytest.mark.parametrize(
    ("channel", "text", "said"),
    [
        ("C0OUT", QUESTION, "I'm not in this conversation"),  # a public channel Vouch is not in
        ("G0OUT", QUESTION, "I'm not in this conversation"),  # a private one
        ("D0OTHERS", QUESTION, "I'm not in this conversation"),  # two other people's DM
        ("C0001", "   ", "Ask me a question after the command"),
    ],
)
async def test_what_cannot_be_answered_there_is_told_to_the_asker_alone(
    make_settings: Any,
    *,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    channel: str,
    text: str,
    said: str,
) -> None:
    """Who would read a shared answer cannot be told where Vouch is not a member: no model
    call, nothing in the channel; the asker is told privately what to do instead."""
    fake_slack.joined = {"C0001"}
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    await take_command(app.intake, command(text, fake_slack.response_url(), channel=channel))
    await until(lambda: bool(fake_slack.responses))
    await settle(fake_slack)
    [told] = fake_slack.responses
    assert said in told["text"] and told["response_type"] == "ephemeral"
    assert fake_anthropic.requests == [] and _in_channel(fake_slack) == []


async def test_a_command_in_a_silent_channel_is_told_so_in_its_ack(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, tmp_path: Path
) -> None:
    channels = tmp_path / "channels.yml"
    channels.write_text("channels:\n  C0SILENT:\n    answer: false\n")
    app = make_app(make_settings(channels_file=channels))
    fields = command(QUESTION, fake_slack.response_url(), channel="C0SILENT")
    assert (await take_command(app.intake, fields))["text"] == NOT_HERE
    await settle(fake_slack)
    assert fake_anthropic.requests == [] and fake_slack.responses == []


async def test_a_command_the_store_cannot_record_is_told_to_try_again(make_settings: Any) -> None:
    """Slack does not send a command again: rather than a silent loss, its ack says so."""
    store = RedisStore("redis://127.0.0.1:1/0", ttl=60, timeout=0.2)  # nothing listens
    app = make_app(make_settings(), store=store)
    try:
        told = await take_command(app.intake, command(QUESTION, "http://127.0.0.1:9/r"))
        assert told["text"] == NOT_TAKEN
    finally:
        await store.close()


async def test_a_command_taken_over_sends_the_answer_it_held_and_drafts_nothing(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """A worker died after the answer was verified and held: no new draft (and no second
    model call); the same verified text is sent again, since an ephemeral message cannot be
    looked up. Without one held, the command is answered anew."""
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    fields = command(QUESTION, fake_slack.response_url())
    await take_command(app.intake, fields)
    await until(lambda: bool(fake_slack.responses))
    key, event = _recorded(fields)
    await app.workers._answer(Job(key, event, tries=2))
    await settle(fake_slack)
    assert [r["text"] for r in fake_slack.responses] == [GOOD, GOOD]
    assert len(fake_anthropic.requests) == 1
    key, event = _recorded(command(QUESTION, fake_slack.response_url()))
    await app.workers._answer(Job(key, event, tries=2))
    await settle(fake_slack)
    assert len(fake_anthropic.requests) == 2 and len(fake_slack.responses) == 3


async def test_a_forged_share_posts_nothing(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    app = make_app(make_settings())
    forged = ("cmd-" + "0" * 24, "../../etc", "", "1700000000.000100")
    for value in forged:
        assert await interact(app, share(value, fake_slack.response_url(click=True))) == 200
    await until(lambda: len(fake_slack.responses) == len(forged))  # each told, privately
    await settle(fake_slack)
    assert fake_slack.of("chat.postMessage") == []
    assert [r["text"] for r in fake_slack.responses] == [GONE] * len(forged)
    assert fake_slack.replaced == []  # the message clicked is kept


class Locked(SqliteStore):
    """The SQLite store, but a held answer's reads and writes fail as a locked database's
    do, for the methods named in `failing`."""

    def __init__(self, *failing: str) -> None:
        super().__init__(Path(":memory:"), ttl=60)
        self.failing = set(failing)

    def _fails(self, method: str) -> None:
        if method in self.failing:
            raise sqlite3.OperationalError("database is locked")

    async def hold(self, key: str, value: dict[str, Any], seconds: float) -> None:
        self._fails("hold")
        await super().hold(key, value, seconds)

    async def held(self, key: str) -> dict[str, Any] | None:
        self._fails("held")
        return await super().held(key)

    async def claim(self, key: str) -> dict[str, Any] | None:
        self._fails("claim")
        return await super().claim(key)


async def test_an_answer_the_store_cannot_hold_is_shown_without_its_share_button(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    store = Locked("hold")
    app = make_app(make_settings(), store=store)
    try:
        await take_command(app.intake, command(QUESTION, fake_slack.response_url()))
        await until(lambda: bool(fake_slack.responses))
        await settle(fake_slack)
        [answer] = fake_slack.responses
        assert answer["text"] == GOOD and "actions" not in json.dumps(answer["blocks"])
        assert len(fake_anthropic.requests) == 1
    finally:
        await store.close()


async def test_a_command_taken_over_is_not_drafted_again_once_shared_or_told(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """Sharing removes the answer held, and a failure holds none: what its worker told is
    marked, so a worker that takes the command over sends nothing and drafts nothing."""
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    fields = command(QUESTION, fake_slack.response_url())
    await take_command(app.intake, fields)
    await until(lambda: bool(fake_slack.responses))
    click = fake_slack.response_url(click=True)
    assert await interact(app, share(_button(fake_slack.responses[0]), click)) == 200
    await until(lambda: bool(fake_slack.deleted))
    key, event = _recorded(fields)
    await app.workers._answer(Job(key, event, tries=2))
    fake_anthropic.default = Reply(UNCLOSED)
    failing = command(QUESTION, fake_slack.response_url())
    await take_command(app.intake, failing)
    key, event = _recorded(failing)
    for _ in range(500):  # the first worker marks it told after telling it: wait for that
        if await app.store.held(told_key(key)) is not None:
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError("the failure told was never marked told")
    assert len(fake_slack.responses) == 2
    await app.workers._answer(Job(key, event, tries=2))
    await settle(fake_slack)
    assert len(fake_anthropic.requests) == 1 + 3 and len(fake_slack.responses) == 2


async def test_a_command_taken_over_with_the_store_unreadable_is_answered_again(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """The store cannot say whether its asker was told: answered again (at least once),
    never dropped."""
    fake_anthropic.default = Reply(GOOD)
    store = Locked("held")
    app = make_app(make_settings(), store=store)
    try:
        key, event = _recorded(command(QUESTION, fake_slack.response_url()))
        await app.workers._answer(Job(key, event, tries=2))
        await settle(fake_slack)
        assert [r["text"] for r in fake_slack.responses] == [GOOD]
    finally:
        await store.close()


async def test_a_share_the_store_cannot_serve_says_try_again_and_keeps_the_answer(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    store = Locked()
    app = make_app(make_settings(), store=store)
    try:
        fields = command(QUESTION, fake_slack.response_url())
        await take_command(app.intake, fields)
        await until(lambda: bool(fake_slack.responses))
        value = _button(fake_slack.responses[0])
        store.failing = {"claim"}
        assert await interact(app, share(value, fake_slack.response_url(click=True))) == 200
        await until(lambda: len(fake_slack.responses) == 2)
        assert fake_slack.responses[1]["text"] == NOT_NOW and not fake_slack.replaced
        store.failing = set()
        key, _ = _recorded(fields)
        assert (await store.held(key) or {}).get("text") == GOOD  # a later click can share it
        assert fake_slack.of("chat.postMessage") == []
    finally:
        await store.close()


async def test_a_share_slack_refuses_is_told_and_the_next_click_shares_it(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """Slack refuses the post (Vouch left the channel): the clicker is told the answer is
    kept, the private copy stays, and the next click, once Slack takes it, shares it."""
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    await take_command(app.intake, command(QUESTION, fake_slack.response_url(), user="U0ANA"))
    await until(lambda: bool(fake_slack.responses))
    value = _button(fake_slack.responses[0])
    fake_slack.fail("chat.postMessage", Fault(error="not_in_channel"))
    refused = fake_slack.response_url(click=True)
    assert await interact(app, share(value, refused, user="U0ANA")) == 200
    await until(lambda: len(fake_slack.responses) == 2)
    assert fake_slack.responses[1]["text"] == NOT_SHARED and not fake_slack.deleted
    click = fake_slack.response_url(click=True)
    assert await interact(app, share(value, click, user="U0ANA")) == 200
    await until(lambda: bool(fake_slack.deleted))
    _, posted = fake_slack.of("chat.postMessage")  # the one refused, the one shared
    assert posted["text"] == GOOD and fake_slack.deleted == [click.rsplit("/response/", 1)[1]]


async def test_a_share_slack_refuses_keeps_the_answer_for_what_is_left_of_its_half_hour(
    make_settings: Any, fake_slack: FakeSlack, tmp_path: Path
) -> None:
    now = [1_000.0]
    store = SqliteStore(tmp_path / "s.sqlite3", ttl=60, clock=lambda: now[0])
    private = Private(
        client=AsyncWebClient(token="xoxb-test", base_url=fake_slack.url),
        store=store,
        telemetry=Telemetry.from_settings(make_settings()),  # off: no keys
        clock=lambda: now[0],
    )
    try:
        held = {"text": GOOD, "user": "U0001", "reference": "r", "until": now[0] + HELD_FOR}
        now[0] += HELD_FOR - 100  # a click 28 minutes in; the post fails
        assert await private._keep("k", held) == NOT_SHARED
        now[0] += 99
        assert await store.held("k") is not None
        now[0] += 2  # past the half hour since the answer: gone, not held anew
        assert await store.held("k") is None
        assert await private._keep("k", held) == GONE and await store.held("k") is None
    finally:
        await store.close()


async def test_a_share_posted_in_part_is_not_posted_again(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    paragraph = " ".join(["Rotate it with `vault write -f pki/rotate` and wait."] * 5)
    long = "\n\n".join([paragraph] * 4)  # revealed in two steps: a post, then an update
    fake_anthropic.default = Reply(long)
    app = make_app(make_settings())
    await take_command(app.intake, command(QUESTION, fake_slack.response_url()))
    await until(lambda: bool(fake_slack.responses))
    value = _button(fake_slack.responses[0])
    fake_slack.fail("chat.update", Fault(error="msg_too_long"))  # its first half is posted
    assert await interact(app, share(value, fake_slack.response_url(click=True))) == 200
    await until(lambda: len(fake_slack.responses) == 2)
    assert fake_slack.responses[1]["text"] == PARTLY_SHARED
    assert await interact(app, share(value, fake_slack.response_url(click=True))) == 200
    await until(lambda: len(fake_slack.responses) == 3)
    await settle(fake_slack)
    assert fake_slack.responses[2]["text"] == GONE
    assert len(fake_slack.of("chat.postMessage")) == 1 and not fake_slack.replaced


async def test_a_long_shared_answer_continues_in_the_thread_of_its_first_message(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    paragraph = "Rotate it with `vault write -f pki/rotate`; clients reload it. " * 8
    fake_anthropic.default = Reply("\n\n".join([paragraph] * 8))  # over one message's 3,000
    app = make_app(make_settings())
    await take_command(app.intake, command(QUESTION, fake_slack.response_url()))
    await until(lambda: bool(fake_slack.responses))
    value = _button(fake_slack.responses[0])
    assert await interact(app, share(value, fake_slack.response_url(click=True))) == 200
    await until(lambda: bool(fake_slack.deleted))
    first, *rest = fake_slack.of("chat.postMessage")
    assert "thread_ts" not in first and rest
    [(_, ts)] = list(fake_slack.threads)  # one thread: the first message's
    assert {p["thread_ts"] for p in rest} == {ts}
    # the channel sees who shared it on the message it sees, not at the thread's end
    assert "Shared by <@U0001>" in json.dumps(first["blocks"])
    assert not any("Shared by" in json.dumps(p.get("blocks")) for p in rest)
    updates = fake_slack.of("chat.update")
    assert all("Shared by" in json.dumps(u["blocks"]) for u in updates if u["ts"] == ts)


async def test_a_question_too_long_for_the_command_is_told_so_not_cut(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    app = make_app(make_settings())
    text = "x " * 1995 + "so which port does the VPN use?"  # its question past 4,000
    told = await take_command(app.intake, command(text, fake_slack.response_url()))
    assert told["response_type"] == "ephemeral"
    assert told["text"].startswith("That question is too long for `/vouch` (4,021 characters")
    await settle(fake_slack)
    assert fake_anthropic.requests == [] and fake_slack.responses == []


async def test_a_command_to_the_bot_process_is_answered_privately_once_and_shared_once(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, tmp_path: Path
) -> None:
    """Black-box, HTTP mode: the signed form Slack posts is acked with the private line
    (auth.test failing: no Slack call before the ack); an unsigned one is refused; the
    answer goes to the asker alone, once; the share click posts it in the channel, once;
    nothing of the question or the answer in the process's output."""
    fake_anthropic.default = Reply(GOOD)
    process, port = bot(QUEUE_PATH=str(tmp_path / "q.sqlite3"))
    await wait_healthy(f"http://127.0.0.1:{port}")
    fake_slack.fail("auth.test", Fault(error="internal_error"))
    fields = command(f"{QUESTION} CANARY-7Q2", fake_slack.response_url())
    assert (await post_command(port, fields, "not-the-secret"))[0] == 401
    assert await post_command(port, fields, SIGNING_SECRET) == (
        200,
        {"response_type": "ephemeral", "text": TAKEN_IN},
    )
    await until(lambda: bool(fake_slack.responses), timeout=20)
    value = _button(fake_slack.responses[0])
    click = share(value, fake_slack.response_url(click=True))
    assert await post_interaction(port, click, SIGNING_SECRET) == 200
    assert await post_interaction(port, click, SIGNING_SECRET) == 200  # clicked twice
    await until(lambda: bool(fake_slack.deleted) and len(fake_slack.responses) == 2, timeout=20)
    await settle(fake_slack, quiet=1.0)
    assert [r["text"] for r in fake_slack.responses] == [GOOD, GONE]
    [posted] = fake_slack.of("chat.postMessage")
    assert posted["text"] == GOOD and len(fake_anthropic.requests) == 1
    process.send_signal(signal.SIGTERM)
    _, errors = process.communicate(timeout=patience(15))
    lines = [json.loads(line) for line in errors.splitlines() if line.startswith("{")]
    assert lines and [line for line in lines if line["level"] == "ERROR"] == []
    assert "CANARY-7Q2" not in errors and "vault" not in errors


async def test_a_private_answer_reads_only_what_the_whole_channel_could(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """The answer may be shared, so it is gathered for everyone in the channel, not for its
    asker alone: Finn's `/vouch` in #random about his own DM with Vouch and a private
    channel he is in reads neither, since others in #random could not (their words reach
    no model request and no Slack call, private or not); #random's own link is read."""
    links = world(fake_slack)
    fake_anthropic.responder = responder(
        {
            "dm": links["{finn_dm_link}"],
            "exec": links["{exec_link}"],
            "random": links["{random_link}"],
        }
    )
    app = make_app(make_settings())
    for tag, link in (
        ("dm", "{finn_dm_link}"),
        ("exec", "{exec_link}"),
        ("random", "{random_link}"),
    ):
        question = f"[{tag}] what does this say? <{links[link]}>"
        fields = command(question, fake_slack.response_url(), user="U0FINN", channel="C0RANDOM")
        await take_command(app.intake, fields)
    await until(lambda: len(fake_slack.responses) == 3, timeout=20)
    await settle(fake_slack)
    sent = fake_slack.text_sent() + json.dumps(fake_slack.responses, ensure_ascii=False)
    to_model = json.dumps(fake_anthropic.requests, ensure_ascii=False)
    for channel in ("D0FINN", "G0EXEC"):
        assert CANARIES[channel] not in to_model and CANARIES[channel] not in sent
    assert CANARIES["C0RANDOM"] in json.dumps(fake_slack.responses, ensure_ascii=False)
