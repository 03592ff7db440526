"""Gathering: the conversation a message is answered in — the thread before it, the names
of who spoke, the files shared — or nothing to draft (a follow-up in a thread Vouch is not
part of, a bare mention, a message past a budget)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from app.agent.conversation import Conversation
from app.channels import ChannelSettings
from app.slack.files import FileReader
from app.slack.history import ThreadHistory
from app.slack.message import Message, say
from app.slack.people import People
from app.slack.thread import is_own, mentioned, to_conversation
from app.telemetry import Telemetry
from app.work.budget import Budgets, Limits
from app.work.budget import reply as budget_reply

log = logging.getLogger("vouch.slack")
ASK = "What would you like to know? Ask me anything in this thread."


@dataclass(frozen=True, slots=True)
class ThreadLimits:
    """How much of a thread goes to the model (THREAD_MAX_MESSAGES, THREAD_MAX_CHARS), and
    how many of its files are read (FILES_MAX_COUNT)."""

    messages: int
    chars: int
    files: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Gathering:
    client: AsyncWebClient
    threads: ThreadHistory
    people: People  # names by user id (users.info, kept)
    files: FileReader  # the files shared in a message or its thread
    budgets: Budgets  # messages and tokens per person and channel, in the store
    telemetry: Telemetry
    limits: ThreadLimits

    async def gather(self, message: Message, *, first: bool = True) -> Conversation | None:
        """The conversation to answer; None when there is nothing to draft (a follow-up
        that asks nothing, a thread Vouch is not part of, a bare mention: asked what) or
        the message is past a budget (checked on its `first` take, before names are looked
        up and files downloaded)."""
        if message.follow_up and not message.text:
            return None  # e.g. a file shared into the thread: nothing was asked
        replies, joined = await self._history(message)
        if message.follow_up and not joined:
            return None  # a thread Vouch is not part of
        if not message.text:  # a bare mention: asked what
            posted = await say(self.client, message, ASK)
            self.threads.posted(message.target, posted, ASK, message.bot)
            return None
        if await self._over_budget(message, first=first):
            return None
        speakers = {r.get("user") for r in replies if not is_own(r, message.bot)}
        speakers |= mentioned([message.text, *(str(r.get("text", "")) for r in replies)])
        speakers = (speakers | {message.author}) - {message.bot.user_id, None, ""}
        names = await self.people.names(str(s) for s in speakers)
        conversation = to_conversation(
            replies,
            current_ts=message.ts,
            text=message.text,
            bot=message.bot,
            dialect=message.dialect,
            max_messages=self.limits.messages,
            max_chars=self.limits.chars,
            names=names,
            speaker=names.get(message.author, ""),
        )
        shared = [*(message.event.get("files") or ())]
        shared += [
            f for r in reversed(replies) for f in r.get("files") or () if isinstance(f, dict)
        ]
        if not shared or self.limits.files == 0:
            return conversation
        files, unread = await self.files.read(shared)
        return replace(conversation, files=files, unread=unread)

    async def _history(self, message: Message) -> tuple[list[dict[str, Any]], bool]:
        """The thread's messages before this one, and whether Vouch has posted in it."""
        if message.target.thread_ts == message.ts:
            return [], False  # a new thread has no history
        return await self.threads.read(self.client, message.target, message.ts, message.bot)

    async def _over_budget(self, message: Message, *, first: bool) -> bool:
        """Whether the message is past a budget: then its user is told when it resets
        (unless no one asked: an unasked message in a help channel), and no model is called.
        Counted on its first take only (a message taken over was)."""
        if not first:
            return False
        target = message.target
        over = await self.budgets.admit(
            target.team, target.channel, target.user, limits_of(message.here)
        )
        if over is None:
            return False
        log.info("over budget: %s", over.which)
        await say(self.client, message, budget_reply(over, self.budgets.period))
        self.telemetry.over_budget(message.ids, over.which, triage=message.triage)
        return True


def limits_of(here: ChannelSettings) -> Limits:
    """A channel's own budgets (CHANNELS_FILE), in place of the global ones they set."""
    return Limits(**here.budget.model_dump())
