"""The real Slack payloads in ../shared/slack-payloads (recorded or documented in public Slack
SDKs; their sources are in its SOURCES.md), read as Slack would deliver them to this test's
Vouch: the installing team and bot ids become the fake Slack's, and every delivery gets a
fresh event_id and event_time. Each is listed here with what Vouch should do with it, from
the description SOURCES.md gives it."""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlencode

from tests.fakes.slack import BOT_ID, BOT_USER, TEAM

FOLDER = Path(__file__).resolve().parents[3] / "shared" / "slack-payloads"
Expect = Literal["answer", "ask", "silent"]
_ids = itertools.count(1)

# What Vouch does with each payload: answer it (a drafted reply in its thread), ask what
# the person wants (a bare mention), or stay silent (bots, edits, deletions, joins, other
# event types, events with nowhere to answer, clicks). Every one is acked.
ANSWERED = {
    "bolt-python__app_mention.json": "answer",
    "bolt-python__app_mention_recorded_T0G9PQBBK.json": "answer",
    "bolt-python__app_mention_slack_connect_other_org.json": "answer",
    "bolt-python__message_im_assistant_thread.json": "answer",
    "bolt-python__message_im_assistant_thread_extra_field.json": "answer",
    "bolt-python__message_im_assistant_action_token.json": "answer",
    "slack-go__app_mention_docs_example.json": "answer",
    "slack-go__app_mention_assistant_thread.json": "answer",
    "slack-go__app_mention_action_token.json": "answer",
    "slack-go__message_im_assistant_thread.json": "answer",
    "slack-go__message_im_action_token.json": "answer",
    "node-slack-sdk__app_mention_bare.json": "ask",
}


def names() -> list[str]:
    """Every payload file, in order (none when the folder is not beside this checkout)."""
    return sorted(p.name for p in FOLDER.glob("*.json")) if FOLDER.is_dir() else []


def expected(name: str) -> Expect:
    found = ANSWERED.get(name, "silent")
    return "answer" if found == "answer" else "ask" if found == "ask" else "silent"


def load(name: str) -> dict[str, Any]:
    """The payload, addressed to the fake Slack's team and bot, as a fresh delivery."""
    text = (FOLDER / name).read_text(encoding="utf-8")
    for recorded, ours in (("U0BOT", BOT_USER), ("B0BOT", BOT_ID), ("T0TEST", TEAM)):
        text = text.replace(recorded, ours)
    payload: dict[str, Any] = json.loads(text)
    if payload.get("event_id") == "set-at-send":
        payload["event_id"] = f"EvPAYLOAD{next(_ids):05d}"
    if payload.get("event_time") == "set-at-send":
        payload["event_time"] = int(time.time())
    return payload


def body(payload: dict[str, Any]) -> tuple[bytes, str]:
    """The request body Slack sends for it, and its content type: interactions
    (block_actions) as a form with a JSON `payload`, events as JSON."""
    if payload.get("type") == "block_actions":
        form = urlencode({"payload": json.dumps(payload)}).encode()
        return form, "application/x-www-form-urlencoded"
    return json.dumps(payload).encode(), "application/json"


def thread_of(payload: dict[str, Any]) -> tuple[str, str] | None:
    """(channel, thread ts) an answer to this event goes to."""
    event = payload.get("event")
    if not isinstance(event, dict):
        return None
    channel, ts = event.get("channel"), event.get("thread_ts") or event.get("ts")
    return (channel, ts) if isinstance(channel, str) and isinstance(ts, str) else None
