"""A help channel, black-box: `python -m app` in HTTP mode against the strict fakes, with
`help_channel: true` for one channel in CHANNELS_FILE. A question gets a verified answer in
its thread; a statement and a question to a named person get nothing; a question whose
drafts all fail gets nothing at all (no status line, no failure message). Nothing of what
people wrote reaches the process's log."""

from __future__ import annotations

import asyncio
import json
import re
import signal
from pathlib import Path
from typing import Any

from tests.fakes.anthropic import FakeAnthropic, Reply, decided
from tests.fakes.server import patience, wait_healthy
from tests.fakes.slack import FakeSlack
from tests.slack.bolt import (
    SIGNING_SECRET,
    mention,
    message,
    post_event,
    post_interaction,
    settle,
    shortcut,
    until,
)

HELP = "C0HELP"
GOOD = "Restart the agent with `sudo systemctl restart vpn-agent`; it reconnects in a minute."
CANARY = "ZEBRAFINCH"  # in every message: it must reach no log line
ASKED = [
    ("question", f"[question] anyone know why the {CANARY} VPN drops on Ubuntu 24?"),
    ("statement", f"[statement] we moved the {CANARY} VPN to WireGuard this morning"),
    ("to-person", f"<@U0ANA> can you check the {CANARY} VPN config?"),
    ("failing", f"[failing] how do I rotate the {CANARY} VPN certificate?"),
]


def tagged(request: dict[str, Any]) -> str:
    found = re.search(r"\[([a-z]+)\]", json.dumps(request["messages"][0]))
    return found.group(1) if found else ""


def draft(request: dict[str, Any]) -> Reply:
    """Every draft of the failing question leaves a code fence open: it never verifies."""
    return (
        Reply("Rotate it:\n```\nvpn-cert rotate") if tagged(request) == "failing" else Reply(GOOD)
    )


def triage(request: dict[str, Any]) -> Reply:
    return decided("statement" if tagged(request) == "statement" else "question")


def shown_in(slack: FakeSlack, ts: str) -> list[str]:
    """The methods of every call that showed something in the thread of message `ts`."""
    return [
        call.method
        for call in slack.calls
        if call.method.startswith(("chat.", "assistant.threads."))
        and ts in (call.params.get("thread_ts"), call.params.get("ts"))
    ]


async def test_a_help_channel_answers_only_what_it_can_verify(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, tmp_path: Path
) -> None:
    fake_anthropic.responder = draft
    fake_anthropic.triage_responder = triage
    channels = tmp_path / "channels.yml"
    channels.write_text(f"channels:\n  {HELP}:\n    help_channel: true\n")
    process, port = bot(CHANNELS_FILE=str(channels), QUEUE_PATH=str(tmp_path / "q.sqlite3"))
    await wait_healthy(f"http://127.0.0.1:{port}")
    stamps = {}
    for n, (name, text) in enumerate(ASKED):
        stamps[name] = ts = f"1700500{n:03d}.000100"
        assert await post_event(port, message(text, ts, HELP, user="U0DANA"), SIGNING_SECRET) == 200
    await until(lambda: bool(shown_in(fake_slack, stamps["question"])), timeout=20)
    await until(lambda: _tried(fake_anthropic), timeout=20)
    await until(lambda: len(fake_anthropic.triage_requests) == 3, timeout=20)
    await settle(fake_slack, quiet=1.0)

    [answer] = [p for p in fake_slack.of("chat.postMessage") if p["channel"] == HELP]
    assert answer["thread_ts"] == stamps["question"] and GOOD in answer["text"]
    assert shown_in(fake_slack, stamps["question"]) == ["chat.postMessage"]  # no status line
    for name in ("statement", "to-person", "failing"):
        assert shown_in(fake_slack, stamps[name]) == [], name
    triaged = {tagged(r) for r in fake_anthropic.triage_requests}
    assert triaged == {"question", "statement", "failing"}  # to a person: by the first pass
    drafted = [tagged(r) for r in fake_anthropic.requests]
    assert drafted.count("question") == 1 and drafted.count("failing") == 3
    assert "statement" not in drafted

    process.send_signal(signal.SIGTERM)
    _, errors = process.communicate(timeout=patience(15))
    lines = [json.loads(line) for line in errors.splitlines() if line.startswith("{")]
    assert [line for line in lines if line["level"] == "ERROR"] == []
    assert CANARY not in errors and "VPN" not in errors
    left = [line["message"] for line in lines if "left alone" in line["message"]]
    assert sorted(left) == [
        "help channel: message left alone (statement, by model)",
        "help channel: message left alone (to_person, by rules)",
    ]
    assert any("no verified answer (exhausted)" in line["message"] for line in lines)


def _tried(fake: FakeAnthropic) -> bool:
    """Whether the failing question has had its three drafts."""
    return [tagged(r) for r in fake.requests].count("failing") >= 3


async def test_a_help_question_and_a_click_survive_kill_9_answered_once(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, tmp_path: Path
) -> None:
    """kill -9 while a help-channel question and a shortcut click are being drafted (the
    click on a message Vouch had answered when mentioned): after the restart each is
    answered once, in its thread, with no status line and no failure message."""
    channels = tmp_path / "channels.yml"
    channels.write_text(f"channels:\n  {HELP}:\n    help_channel: true\n")
    env = {"CHANNELS_FILE": str(channels), "QUEUE_PATH": str(tmp_path / "q.sqlite3")}
    fake_anthropic.default = Reply(GOOD)
    process, port = bot(**env, QUEUE_LEASE="2")
    await wait_healthy(f"http://127.0.0.1:{port}")
    mentioned = mention("how do I rotate the VPN certificate?", "1700600001.000100", "C0001")
    assert await post_event(port, mentioned, SIGNING_SECRET) == 200
    await until(lambda: bool(fake_slack.of("chat.postMessage")), timeout=20)
    await settle(fake_slack, quiet=1.0)
    fake_anthropic.default = Reply(GOOD, delay=30.0)  # the drafts the kill interrupts
    question = message(ASKED[0][1], "1700600002.000100", HELP, user="U0DANA")
    assert await post_event(port, question, SIGNING_SECRET) == 200
    asked = {"ts": "1700600001.000100", "user": "U0001", "text": mentioned["text"]}
    click = shortcut(asked, "1700600003.000100", user="U0BEN")
    assert await post_interaction(port, click, SIGNING_SECRET) == 200
    await until(lambda: len(fake_anthropic.requests) >= 3, timeout=20)  # both drafting
    process.kill()
    await asyncio.to_thread(process.wait, timeout=10)
    fake_anthropic.default = Reply(GOOD)
    _, port = bot(**env, QUEUE_LEASE="2")
    await wait_healthy(f"http://127.0.0.1:{port}")
    await until(lambda: len(fake_slack.of("chat.postMessage")) >= 3, timeout=40)
    await settle(fake_slack, quiet=1.0)
    threads = sorted(p["thread_ts"] for p in fake_slack.of("chat.postMessage"))
    assert threads == ["1700600001.000100", "1700600001.000100", "1700600002.000100"]
    assert all(GOOD in p["text"] for p in fake_slack.of("chat.postMessage"))
    assert shown_in(fake_slack, "1700600002.000100") == ["chat.postMessage"]  # no status
