"""Who and when, as telemetry sees it: Slack ids, their salted hashes, trace ids and the
time of a Slack message."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import UTC, datetime

from langfuse import Langfuse


@dataclass(frozen=True, slots=True)
class MessageIds:
    """Who and where a message came from, as Slack ids; only hashes of them leave."""

    key: str  # team:channel:ts of the message
    thread: str  # team:channel:thread_ts
    user: str  # team:user
    kind: str  # "mention", "dm", "follow_up", "help" (unasked, in a help channel), "shortcut",
    # "command" (/vouch, answered privately)
    history_messages: int = 0
    files: int = 0  # shared files read for the model
    files_unread: int = 0  # shared files named to it as not read


def hashed(salt: bytes, slack_id: str) -> str:
    """A salted one-way hash of a Slack id: stable, and useless without the salt."""
    return hmac.new(salt, slack_id.encode(), "sha256").hexdigest()[:32]


def trace_id(salt: bytes, message_key: str) -> str:
    """The trace id of a user message, from its team:channel:ts key (salted, so the id
    does not lead back to the message): the same for Slack's retries and for a feedback
    click on the answer. Shown to users as the failure message's ref."""
    return Langfuse.create_trace_id(seed=hashed(salt, message_key))


def derived_salt(secret_key: str) -> bytes:
    """The hashing key when TELEMETRY_SALT is not set: from the Langfuse secret key."""
    return hmac.new(secret_key.encode(), b"vouch-ids", "sha256").digest()


def message_time(slack_ts_or_key: str) -> datetime | None:
    """The time of a Slack message from its ts ("1700000000.000100"), or from a message key
    ending in one ("team:channel:ts"); None if there is none."""
    ts = slack_ts_or_key.rsplit(":", 1)[-1]
    try:
        return datetime.fromtimestamp(float(ts), UTC)
    except (ValueError, OverflowError, OSError):
        return None
