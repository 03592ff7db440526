"""Thread history: what the events delivered, and conversations.replies only to fill gaps.

Vouch receives every message of the conversations it is in (`message.*` events), so a
thread this process has followed from its first message is read from memory, with no API
call. conversations.replies is asked only for a thread whose start this process did not
see: after a restart, when the log dropped it, or with several instances (REDIS_URL),
where each instance receives only its share of the events. Slack allows commercially
distributed non-Marketplace apps one call of that method a minute and 15 messages a page,
and may refuse it (missing_scope): either way the answer goes on with the history the
events gave, logged as degraded, instead of waiting a minute or failing.

The log holds message text in memory only (never in logs, telemetry or Redis), bounded in
threads, messages and characters, and forgets a thread untouched for a day.
"""

from __future__ import annotations

import logging
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from app.errors import label
from app.slack.deliver import ANSWER_EVENT, Target, answer_mark
from app.slack.errors import SLACK_FAILURES
from app.slack.events import person
from app.slack.files import recorded
from app.slack.thread import Bot, is_own
from app.work.store import message_key

log = logging.getLogger("vouch.slack")

PAGE = 1000  # conversations.replies' largest page (Slack caps it at 15 for some apps)
PAGES = 10
TTL = 86_400.0  # seconds a thread no message touched is kept
FRESH = 5.0  # seconds a thread read whole from Slack is trusted when instances share events
KEPT = ("ts", "thread_ts", "user", "bot_id", "subtype", "text", "metadata", "files")
_TS = re.compile(r"[0-9]{1,12}(?:\.[0-9]{1,9})?")  # a Slack ts; anything else is not kept


def is_ts(value: object) -> bool:
    return isinstance(value, str) and _TS.fullmatch(value) is not None


@dataclass
class Logged:
    """One thread's messages as the events gave them, keyed by ts."""

    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    complete: bool = False  # seen from its first message, or read whole from Slack
    joined: bool = False  # Vouch has posted in it
    touched: float = 0.0
    read_at: float | None = None  # when it was last read whole from Slack

    def before(self, ts: str) -> list[dict[str, Any]]:
        """The messages older than `ts`, oldest first."""
        return [self.messages[t] for t in sorted(self.messages, key=float) if float(t) < float(ts)]


class ThreadLog:
    """The threads of this process's events, newest kept: at most `threads` threads, each
    within `messages` messages and `chars` characters (its oldest dropped first)."""

    def __init__(
        self,
        threads: int,
        messages: int,
        chars: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._threads: OrderedDict[str, Logged] = OrderedDict()
        self._limits = (threads, messages, chars)
        self._clock = clock

    def get(self, thread: str) -> Logged | None:
        logged = self._threads.get(thread)
        if logged is None or self._clock() - logged.touched > TTL:
            self._threads.pop(thread, None)
            return None
        return logged

    def keep(self, thread: str, message: dict[str, Any], own: bool, edit: bool = False) -> None:
        """Keep a new or edited message. A thread's first message makes its log complete
        when it is new; an edit of it does not (Slack sends one whenever a reply changes
        its reply count, so it says nothing of what this process saw)."""
        if self._limits[0] == 0 or not is_ts(message.get("ts")):
            return
        logged = self.get(thread) or Logged()
        logged.messages[message["ts"]] = _kept(message)
        first = not edit and thread.endswith(f":{message['ts']}")
        logged.complete = logged.complete or first
        logged.joined = logged.joined or own
        self._keep(thread, logged)

    def delete(self, thread: str, ts: str) -> None:
        logged = self.get(thread)
        if logged is not None:
            logged.messages.pop(ts, None)

    def fill(self, thread: str, messages: list[dict[str, Any]], joined: bool) -> None:
        """The thread as read from Slack (whole): complete from now on."""
        logged = self.get(thread) or Logged()
        for message in messages:
            if is_ts(message.get("ts")):
                logged.messages.setdefault(message["ts"], _kept(message))
        logged.complete, logged.joined = True, logged.joined or joined
        logged.read_at = self._clock()
        self._keep(thread, logged)

    def fresh(self, logged: Logged) -> bool:
        """Whether it was read whole from Slack within the last FRESH seconds."""
        return logged.read_at is not None and self._clock() - logged.read_at < FRESH

    def __len__(self) -> int:
        return len(self._threads)

    def _keep(self, thread: str, logged: Logged) -> None:
        threads, messages, chars = self._limits
        logged.touched = self._clock()
        newest = sorted(logged.messages, key=float, reverse=True)[:messages]
        total, kept = 0, dict[str, dict[str, Any]]()
        for ts in newest:
            total += len(str(logged.messages[ts].get("text") or ""))
            if total > chars and kept:
                break
            kept[ts] = logged.messages[ts]
        logged.messages = kept
        self._threads[thread] = logged
        self._threads.move_to_end(thread)
        while len(self._threads) > threads:
            self._threads.popitem(last=False)


@dataclass
class ThreadHistory:
    """Reads a thread's history from the log, and from Slack only where the log has gaps."""

    log: ThreadLog
    reader: AsyncWebClient | None  # a client that does not wait out rate limits
    shared: bool = False  # several instances: no log is complete on its own

    def keep(self, team: str, event: dict[str, Any], bot: Bot) -> None:
        """Keep what a message event says: a new message, an edit or a deletion."""
        channel = event.get("channel")
        if not isinstance(channel, str):
            return
        subtype = event.get("subtype")
        edit = subtype == "message_changed"
        if edit and isinstance(event.get("message"), dict):
            message = event["message"]
        elif subtype == "message_deleted":
            previous = event.get("previous_message") or {}
            root = previous.get("thread_ts") or event.get("deleted_ts")
            if isinstance(root, str) and isinstance(event.get("deleted_ts"), str):
                self.log.delete(f"{team}:{channel}:{root}", event["deleted_ts"])
            return
        else:
            message = event
        root = message.get("thread_ts") or message.get("ts")
        if isinstance(root, str):
            self.log.keep(f"{team}:{channel}:{root}", message, is_own(message, bot), edit)

    def posted(
        self, target: Target, posted: list[str], text: str, bot: Bot, answers: str = ""
    ) -> None:
        """Keep what Vouch posted in the thread (its own events may come later, or never);
        the first message carries the answer mark when it answers message `answers`."""
        thread = message_key(target.team, target.channel, target.thread_ts)
        for n, ts in enumerate(posted):
            message: dict[str, Any] = {"ts": ts, "thread_ts": target.thread_ts}
            message |= {"user": bot.user_id, "text": "" if n else text}
            if answers and not n:
                message["metadata"] = answer_mark(answers)
            self.log.keep(thread, message, own=True)

    async def answered(self, client: AsyncWebClient, target: Target, ts: str, bot: Bot) -> bool:
        """Whether an answer to message `ts` is in the thread already (its first message
        carries the answer mark): asked of a message taken over from a worker that died,
        which may have posted before it could say so. Unknown (Slack refused the read)
        counts as not answered: the user gets an answer rather than none."""
        if not is_ts(ts):
            return False
        thread = message_key(target.team, target.channel, target.thread_ts)
        logged = self.log.get(thread)
        known = list(logged.messages.values()) if logged is not None else []
        if not any(_answers(m, ts) for m in known) and is_ts(target.thread_ts):
            read = await self._replies(
                self.reader or client, target.channel, target.thread_ts, "", bot
            )
            if read is None:
                log.warning("takeover: the thread could not be read to look for an answer")
            known += read[0] if read is not None else []
        return any(_answers(m, ts) for m in known)

    async def replied(self, client: AsyncWebClient, target: Target, bot: Bot) -> bool:
        """Whether a person other than the one who asked has replied in the thread of
        `target` (people are answering it): from the log when it holds the whole thread,
        else from Slack. Unknown (Slack refused the read) is what the log says."""
        thread = message_key(target.team, target.channel, target.thread_ts)
        logged = self.log.get(thread)
        known = list(logged.messages.values()) if logged is not None else []
        if not self._whole(logged) and is_ts(target.thread_ts):
            read = await self._replies(
                self.reader or client, target.channel, target.thread_ts, "", bot
            )
            if read is not None:
                known += read[0]
                if read[2]:
                    self.log.fill(thread, read[0], read[1])
        return any(
            m.get("ts") != target.thread_ts
            and m.get("user") != target.user
            and person(m, bot.user_id)
            for m in known
        )

    def _whole(self, logged: Logged | None) -> bool:
        """Whether the log holds the whole thread: it saw it from its first message (and
        no other instance shares the events), or read it from Slack moments ago."""
        if logged is None or not logged.complete:
            return False
        return not self.shared or self.log.fresh(logged)

    async def read(
        self, client: AsyncWebClient, target: Target, ts: str, bot: Bot
    ) -> tuple[list[dict[str, Any]], bool]:
        """The messages of `target`'s thread before `ts`, oldest first, and whether Vouch
        has posted in it."""
        thread = message_key(target.team, target.channel, target.thread_ts)
        channel, root = target.channel, target.thread_ts
        if not (is_ts(ts) and is_ts(root)):
            return [], False  # not a message Slack sent: no history to read
        logged = self.log.get(thread)
        if logged is not None and self._whole(logged):
            return logged.before(ts), logged.joined
        read = await self._replies(self.reader or client, channel, root, ts, bot)
        if read is None:  # refused or limited: what the events gave
            known = len(logged.messages) if logged is not None else 0
            log.warning("thread history degraded: answering from %d message(s) of events", known)
            return (logged.before(ts), logged.joined) if logged is not None else ([], False)
        messages, joined, whole = read
        if whole:
            self.log.fill(thread, messages, joined)
        merged = {m["ts"]: m for m in messages}
        if logged is not None:
            merged = {**logged.messages, **merged}
            joined = joined or logged.joined
        older = sorted((t for t in merged if float(t) < float(ts)), key=float)
        return [merged[t] for t in older], joined

    async def _replies(
        self, client: AsyncWebClient, channel: str, root: str, ts: str, bot: Bot
    ) -> tuple[list[dict[str, Any]], bool, bool] | None:
        """(messages up to `ts`, Vouch posted, read to the end) from conversations.replies;
        None when Slack refused the first page. A later page refused keeps what was read."""
        messages: list[dict[str, Any]] = []
        cursor = None
        for _ in range(PAGES):
            try:
                response = await client.conversations_replies(
                    channel=channel, ts=root, limit=PAGE, cursor=cursor, include_all_metadata=True
                )
            except SLACK_FAILURES as exc:
                log.warning("conversations.replies refused: %s", label(exc))
                if not messages:
                    return None
                return messages, any(is_own(m, bot) for m in messages), False
            for m in response.get("messages") or ():
                if isinstance(m, dict) and is_ts(m.get("ts")):
                    messages.append(m)
                    if m["ts"] == ts:
                        return messages, any(is_own(m, bot) for m in messages), True
            cursor = (response.get("response_metadata") or {}).get("next_cursor")
            if not cursor:
                return messages, any(is_own(m, bot) for m in messages), True
        log.warning("thread over %d messages: answered from its oldest part", PAGE * PAGES)
        return messages, any(is_own(m, bot) for m in messages), False


def _kept(message: dict[str, Any]) -> dict[str, Any]:
    """What the log keeps of a message: what answering in its thread needs (of its files,
    what reading them needs)."""
    kept = {k: message[k] for k in KEPT if k in message}
    if "files" in kept:
        kept["files"] = recorded(kept["files"])
    return kept


def joined_unasked(messages: Sequence[dict[str, Any]], root: str, bot: Bot) -> bool:
    """Whether Vouch joined the thread by answering its first message unasked (a help
    channel's): its answer marks that message, which does not mention Vouch. A thread it
    was asked into (a mention, a shortcut's click) is not."""
    first = next((m for m in messages if m.get("ts") == root), None)
    if first is None or f"<@{bot.user_id}" in str(first.get("text") or ""):
        return False
    return any(is_own(m, bot) and _answers(m, root) for m in messages)


def _answers(message: dict[str, Any], ts: str) -> bool:
    metadata = message.get("metadata")
    if not isinstance(metadata, dict) or metadata.get("event_type") != ANSWER_EVENT:
        return False
    payload = metadata.get("event_payload")
    return isinstance(payload, dict) and payload.get("message_ts") == ts
