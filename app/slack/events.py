"""What a request to Vouch's Events API endpoint is, before anything acts on it.

- A body is parsed only within MAX_DEPTH levels of nesting: a body nested 100,000 deep is
  malformed, not a RecursionError (HTTP checks the signature before this; app/slack/intake.py).
- An envelope is sorted: a message event to take in (`Taken`), one Bolt handles (None:
  URL verification, the App Home, interactions), or one acked and dropped with a logged
  reason (`Dropped`): an event type Vouch does not handle, Slack's `app_rate_limited`, or
  fields of the wrong type (`text: null` is read as no text). Slack delivers again what
  is not answered 200, and may turn off an app's events when too many are not, so nothing
  Slack can send gets a 5xx for its shape.
- Only people make Vouch act (`person`): an event from a bot (`bot_id`, `bot_profile`, the
  `bot_message` subtype, Slackbot), from Vouch itself, or with no person as its author is recorded
  in the thread log but never answered, whatever its type (Slack delivers `app_mention`
  for other bots' posts too).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext

MAX_DEPTH = 64  # of a body's nesting; Slack's own payloads stay under 20
TAKEN = frozenset({"app_mention", "message"})
FOR_BOLT = frozenset({"app_home_opened"})  # event types Bolt's listeners handle
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(rb"[\[\]{}]")
_NAME = re.compile(r"[a-z_]{1,40}")
# The fields of a message event Vouch reads, and the types Slack sends them as.
_FIELDS: dict[str, type | tuple[type, ...]] = {
    "channel": str,
    "ts": str,
    "thread_ts": str,
    "user": str,
    "text": str,
    "subtype": str,
    "channel_type": str,
    "bot_id": str,
    "files": list,
    "message": dict,
    "previous_message": dict,
    "assistant_thread": dict,
    "action_token": str,
    "deleted_ts": str,
}


class Malformed(ValueError):
    """Not a body Slack sends: not UTF-8 JSON, or nested deeper than MAX_DEPTH."""


def parse(body: bytes) -> Any:
    """The JSON value of `body`, its nesting checked before it is decoded."""
    if too_deep(body):
        raise Malformed(f"nested deeper than {MAX_DEPTH}")
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise Malformed(type(exc).__name__) from None


def too_deep(body: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether brackets outside JSON strings nest deeper than `limit`."""
    depth = 0
    for bracket in _BRACKETS.finditer(_STRINGS.sub(b"", body)):
        depth += 1 if bracket.group() in (b"[", b"{") else -1
        if depth > limit:
            return True
    return False


@dataclass(frozen=True, slots=True)
class Taken:
    """A message event to take in, and who it is for (the installed bot)."""

    event: dict[str, Any]
    context: AsyncBoltContext


@dataclass(frozen=True, slots=True)
class Dropped:
    """Acked and dropped; `reason` is logged (fixed words and Slack identifiers only)."""

    reason: str
    warning: bool = False  # the operator should see it
    told: str = ""  # what the person who asked is told (a command's ack), if anything


def sort(payload: Any) -> Taken | Dropped | None:
    """What to do with an Events API body: take it in, drop it (acked), or None: Bolt's."""
    kind = payload.get("type") if isinstance(payload, dict) else None
    if kind == "event_callback":
        return _callback(payload)
    if kind == "url_verification":
        return None
    if kind == "message_action":  # a message shortcut: Vouch's is taken in like a message
        return _shortcut(payload)
    if kind in INTERACTIONS:
        return None  # clicks: Bolt's listeners
    if kind == "app_rate_limited":
        minute = payload.get("minute_rate_limited")
        at = minute if isinstance(minute, int) else "unknown"
        return Dropped(f"Slack is holding back events (app_rate_limited, minute {at})", True)
    return Dropped(f"envelope {_name(kind)}")


def _callback(payload: dict[str, Any]) -> Taken | Dropped | None:
    event = payload.get("event")
    if not isinstance(event, dict):
        return Dropped("event_callback without an event object")
    if event.get("type") not in TAKEN:
        return (
            None
            if event.get("type") in FOR_BOLT
            else Dropped(f"event {_name(event.get('type'))} not handled")
        )
    authorizations = payload.get("authorizations")
    if authorizations is not None and not isinstance(authorizations, list):
        return Dropped("authorizations of the wrong type")
    bots = [a for a in authorizations or () if isinstance(a, dict) and a.get("is_bot")]
    if not bots or not isinstance(bots[0].get("user_id"), str):
        return None  # Bolt's way: it asks auth.test who the bot is
    team = payload.get("team_id") if isinstance(payload.get("team_id"), str) else ""
    read = cleaned(event)
    if isinstance(read, Dropped):
        return read
    return Taken(read, AsyncBoltContext(team_id=team, bot_user_id=bots[0]["user_id"]))


def cleaned(event: dict[str, Any]) -> dict[str, Any] | Dropped:
    """A message event as Vouch reads it (`text: null` is no text), or why it is dropped:
    a field of a type Slack never sends it as."""
    wrong = wrong_field(event)
    if wrong is not None:
        return Dropped(f"message event with {wrong} of the wrong type")
    return {**event, "text": event.get("text") or ""}


def wrong_field(event: Mapping[str, Any], nested: bool = True) -> str | None:
    """The first field Vouch reads that has a type Slack never sends it as (None and a
    missing field are fine), in the event or in the message it carries."""
    for name, kinds in _FIELDS.items():
        value = event.get(name)
        if value is not None and not isinstance(value, kinds):
            return name
    for name in ("message", "previous_message"):
        inner = event.get(name)
        if nested and isinstance(inner, dict) and wrong_field(inner, nested=False) is not None:
            return name
    return None


SLACKBOT = "USLACKBOT"  # Slack's own bot: its messages carry it as their user
SHORTCUT = "vouch_ask"  # the message shortcut's callback_id (manifest.yml)
SHORTCUT_EVENT = "message_action"  # a shortcut taken in, as the store keeps it
# Interactions a transport hands to Bolt (its listeners ack them): clicks and views.
INTERACTIONS = frozenset({"block_actions", "view_submission", "view_closed", "shortcut"})


def _shortcut(payload: dict[str, Any]) -> Taken | Dropped:
    if payload.get("callback_id") != SHORTCUT:
        return Dropped(f"shortcut {_name(payload.get('callback_id'))} not handled")
    event = shortcut_event(payload)
    if isinstance(event, Dropped):
        return event
    return Taken(event, AsyncBoltContext(team_id=event["team"]))


def shortcut_event(body: Mapping[str, Any]) -> dict[str, Any] | Dropped:
    """A message shortcut's payload as the message event Vouch answers: the message asked
    about (its channel, ts, thread, text, files and author), asked by the person who
    clicked (`user`), recorded under the shortcut's own `action_ts` (`key_ts`), so that a
    message asked about twice, or mentioned too, is answered each time it is asked. Dropped:
    a payload without the fields Slack sends, or of the wrong types."""
    message, channel = body.get("message"), body.get("channel")
    user, team = body.get("user"), body.get("team")
    if not (isinstance(message, dict) and isinstance(channel, dict) and isinstance(user, dict)):
        return Dropped("shortcut without a message, channel or user")
    wrong = wrong_field(message, nested=False)
    ids = (channel.get("id"), user.get("id"), message.get("ts"), body.get("action_ts"))
    if wrong is not None or not all(isinstance(v, str) and v for v in ids):
        return Dropped("shortcut with fields of the wrong type")
    event: dict[str, Any] = {
        "type": SHORTCUT_EVENT,
        "channel": channel["id"],
        "ts": message["ts"],
        "thread_ts": message.get("thread_ts") or message["ts"],
        "user": user["id"],
        "text": message.get("text") or "",
        "author": message.get("user") or message.get("bot_id") or "",  # never the clicker
        "team": str(team.get("id") or "") if isinstance(team, dict) else "",
        "key_ts": body["action_ts"],
    }
    if message.get("files"):
        event["files"] = message["files"]
    if isinstance(body.get("response_url"), str):  # to tell the clicker privately
        event["response_url"] = body["response_url"]
    return event


COMMAND = "/vouch"  # the slash command (manifest.yml)
COMMAND_EVENT = "slash_command"  # a command taken in, as the store keeps it
MAX_COMMAND_CHARS = 4_000  # a question longer than this is refused, not cut
TOO_LONG = (
    "That question is too long for `/vouch` ({count:,} characters; at most {most:,}). Ask me "
    "in a message instead: mention me, or write to me directly."
)


def command_event(fields: Mapping[str, Any]) -> Taken | Dropped:
    """`/vouch <question>` (a form over HTTP, a `slash_commands` envelope's payload) as the
    message Vouch answers privately: asked by `user_id` in `channel_id`, recorded under a
    key made from its `trigger_id` (one per use of the command; a Socket Mode envelope
    delivered again carries the same), answered through its `response_url`. Dropped: a
    command that is not Vouch's, or a payload without the fields Slack sends."""
    if fields.get("command") != COMMAND:
        return Dropped(f"slash command {_name(str(fields.get('command', '')).lstrip('/'))}")
    ids = [fields.get(name) for name in ("team_id", "channel_id", "user_id", "trigger_id")]
    url, text = fields.get("response_url"), fields.get("text", "")
    if not all(isinstance(v, str) and v for v in (*ids, url)) or not isinstance(text, str):
        return Dropped("slash command without the fields Slack sends")
    if len(text) > MAX_COMMAND_CHARS:  # cut, its question could be lost: say so instead
        return Dropped(
            "slash command too long", told=TOO_LONG.format(count=len(text), most=MAX_COMMAND_CHARS)
        )
    team, channel, user, trigger = (str(v) for v in ids)
    key = "cmd-" + hashlib.sha256(trigger.encode()).hexdigest()[:24]
    event = {
        "type": COMMAND_EVENT,
        "channel": channel,
        "ts": key,  # not a message: no thread to read, nothing posted in the channel
        "thread_ts": key,
        "user": user,
        "text": text,
        "team": team,
        "response_url": url,
    }
    return Taken(event, AsyncBoltContext(team_id=team))


def person(event: Mapping[str, Any], bot_user_id: str | None) -> bool:
    """Whether a person wrote this event (never a bot, never Vouch itself)."""
    user = event.get("user")
    return (
        not event.get("bot_id")
        and not event.get("bot_profile")
        and event.get("subtype") != "bot_message"
        and isinstance(user, str)
        and bool(user.strip())
        and user not in (bot_user_id, SLACKBOT)  # Slackbot posts reminders, auto-responses
    )


def _name(value: Any) -> str:
    """An event type, for a log line: only when it is identifier-shaped."""
    return value if isinstance(value, str) and _NAME.fullmatch(value) else "of an unknown type"
