"""Answering a recorded message, a worker's job: read it, make sure it was not answered
already (a message taken over from a worker that died), gather its conversation, reply.

The path of one message, in order: app/slack/intake.py (taken in, recorded) →
app/work/workers.py (taken from the store) → here → message.py → (triage.py, for an unasked
message in a help channel) → gather.py → reply.py → deliver.py."""

from __future__ import annotations

import logging
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from slack_sdk.web.async_client import AsyncWebClient

from app.errors import label
from app.logs import traced
from app.slack.conversations import Conversations
from app.slack.deliver import tell_privately
from app.slack.drain import InFlight
from app.slack.events import COMMAND_EVENT, SHORTCUT_EVENT
from app.slack.gather import Gathering
from app.slack.history import ThreadHistory, joined_unasked
from app.slack.message import Message, Reading, tell_failure
from app.slack.private import Private
from app.slack.reply import Replying
from app.slack.thread import Bot
from app.slack.triage import Decision, Triaging
from app.telemetry import Telemetry
from app.work.store import Job

log = logging.getLogger("vouch.slack")
MAX_TRIES = 3  # takes of one message before its user is told it cannot be answered
NOT_IN = (
    "I'm not in this conversation, so I can't answer there. Add me to it "
    "(`/invite @Vouch`), then ask again."
)
NO_TEXT = (
    "That message has no text I can answer. Mention me in its thread and say what you'd "
    "like to know."
)
USAGE = "Ask me a question after the command: `/vouch how do I rotate the VPN certificate?`"
NOT_IN_PRIVATELY = (
    "I'm not in this conversation, so I can't answer there. Ask me in a direct message, "
    "or add me to it (`/invite @Vouch`) and ask again."
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Answering:
    client: AsyncWebClient  # the workers' client (Bolt passes the same one to listeners)
    whoami: Callable[[], Awaitable[Bot]]  # the bot's ids (auth.test, asked once)
    reading: Reading
    threads: ThreadHistory
    gathering: Gathering
    replying: Replying
    triaging: Triaging  # help channels: whether an unasked message is taken
    conversations: Conversations  # is Vouch in a shortcut's or a command's conversation
    private: Private  # a command taken over: the answer it held, sent again
    telemetry: Telemetry
    inflight: InFlight

    async def answer(self, job: Job) -> None:
        """Answer a recorded message, or tell its user why not. One taken over (its worker
        died or gave it back) is first looked for in the thread: an answer posted before
        the worker could say so is not posted again. One taken more than MAX_TRIES times
        (its workers keep dying) gets the failure message."""
        bot = await self.whoami()  # after the ack: the intake does not ask
        message = self.reading.message(job.event, bot)
        with traced(message.reference), self.inflight.answering():
            if job.tries > 1 and await self._answered(message):
                log.info("taken over, but answered before: nothing posted again")
                return
            if job.tries > MAX_TRIES and message.unasked:  # never triaged: left alone
                log.warning("help channel: message taken %d times: left alone", job.tries)
                self._left(message, Decision("unavailable", "tries", 0.0))
                return
            if job.tries > MAX_TRIES:
                log.error("message taken %d times without an answer: failure message", job.tries)
                await tell_failure(self.client, message)
                self.telemetry.failed(message.ids, "tries_exhausted")
                return
            taken = await self._taken(message)
            if taken is None:
                return
            message, triaged = taken
            try:
                conversation = await self.gathering.gather(message, first=job.tries == 1)
            except Exception as exc:  # e.g. the thread could not be read
                _crashed(exc)
                if not message.follow_up:  # a follow-up's thread may not be Vouch's
                    await tell_failure(self.client, message)  # silence, when unasked
                    self.telemetry.failed(message.ids, label(exc), triage=message.triage)
                return
            if conversation is None:
                return
            try:
                await self.replying.reply(message, conversation, triaged)
            except Exception as exc:  # the trace has it; the user was told already
                _crashed(exc)

    async def _answered(self, message: Message) -> bool:
        """Whether a message taken over was answered before its worker died: its answer's
        mark in the thread or, for a command, its private answer held (sent again)."""
        if message.private:
            return await self.private.again(message)
        return await self.threads.answered(self.client, message.target, message.key_ts, message.bot)

    async def _taken(self, message: Message) -> tuple[Message, Decision | None] | None:
        """Whether a message is drafted (as what, and how it was triaged, when unasked),
        or left alone (None): help channels' follow-ups and unasked messages decide here."""
        asked_by_click = message.event.get("type") in (SHORTCUT_EVENT, COMMAND_EVENT)
        if asked_by_click and not await self._can_answer(message):
            return None
        if message.follow_up and message.here.help_channel:
            helped = await self._in_help_thread(message)
            if helped is None:
                return None
            message = helped
        triaged = await self._triage(message) if message.unasked else None
        if triaged is not None and not triaged.take:
            return None
        return message, triaged

    async def _can_answer(self, message: Message) -> bool:
        """Whether a shortcut's message, or a command's question, can be answered where it
        is: it has text, and Vouch is in its conversation (Slack would refuse the answer,
        after the model's work; and who would read it cannot be told). If not, the person
        who asked is told, privately, what to do instead."""
        channel = message.target.channel
        if not message.text.strip():
            why, said = "no text", USAGE if message.private else NO_TEXT
        elif await self.conversations.outside(channel):
            why, said = "not in the conversation", NOT_IN_PRIVATELY if message.private else NOT_IN
        else:
            return True
        log.info("%s not answered (%s): its asker is told", message.ids.kind, why)
        url = message.event.get("response_url")
        if isinstance(url, str):
            await tell_privately(url, said)
        return False

    async def _in_help_thread(self, message: Message) -> Message | None:
        """A follow-up in a help channel: in a thread Vouch joined unasked, only the asker's
        is taken, and unasked too (triaged, answered only when verified): people talking
        to each other there are not asking Vouch. Elsewhere, a follow-up as anywhere."""
        target = message.target
        replies, _ = await self.threads.read(self.client, target, message.ts, message.bot)
        if not joined_unasked(replies, target.thread_ts, message.bot):
            return message
        starter = next(m.get("user") for m in replies if m.get("ts") == target.thread_ts)
        if starter != target.user:
            log.info("help channel: a reply between people in a thread Vouch joined: left alone")
            return None
        return replace(message, unasked=True)

    async def _triage(self, message: Message) -> Decision:
        """Whether an unasked message (a help channel's) is taken; one left alone gets a
        trace of its own with why (no outcome: not in the rates), and nothing in Slack."""
        decision = await self.triaging.decide(message)
        if not decision.take:
            self._left(message, decision)
        return decision

    def _left(self, message: Message, decision: Decision) -> None:
        log.info("help channel: message left alone (%s, by %s)", decision.category, decision.by)
        with self.telemetry.trace(message.ids) as trace:
            decision.tell(trace)


def _crashed(exc: Exception) -> None:
    """Log an unexpected error by type and place only (its text may quote the message)."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = "; ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno}" for f in frames[-4:])
    log.error("answer failed: %s at %s", type(exc).__name__, where)
