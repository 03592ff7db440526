"""Slack events → answers: mentions, DMs, thread follow-ups, the DM opening, feedback."""

from __future__ import annotations

import asyncio
import logging
import re
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.web.async_client import AsyncWebClient

from app.agent.loop import Deps, answer
from app.logs import traced
from app.settings import Settings
from app.slack.dedupe import MessageStore, message_key
from app.slack.deliver import Target, deliver
from app.slack.drain import InFlight
from app.slack.errors import SLACK_FAILURES, StoppedByUser, reason
from app.slack.history import ThreadHistory
from app.slack.status import Status, status_text
from app.slack.thread import Bot, strip_mention, to_conversation
from app.telemetry import MessageIds, Telemetry, label, message_time
from app.verify import Dialect, failure_message
from app.work.queue import Job, Queue
from app.work.workers import Workers

log = logging.getLogger("vouch.slack")
ASK = "What would you like to know? Ask me anything in this thread."
PROMPTS = [
    {"title": "What can you do?", "message": "What can you help me with?"},
    {"title": "Summarise a thread", "message": "How do I ask you about a thread?"},
    {"title": "Check an answer", "message": "How do you check your answers?"},
]
_ANSWERED_SUBTYPES = frozenset({None, "file_share", "thread_broadcast"})
# What the durable record keeps of an event: what answering it needs.
RECORDED = ("type", "channel", "ts", "thread_ts", "user", "text", "channel_type", "subtype")
MAX_TRIES = 3  # takes of one message before its user is told it cannot be answered
_REFERENCE = re.compile(r"[0-9a-f]{32}")  # a trace id


@dataclass
class _Progress:
    """How far one message got, so a failure is told to the user only when it should be."""

    accepted: bool = False  # Vouch took the message on (it is now Vouch's to answer)
    delivering: bool = False  # a reply has started to go out: never post a second one
    traced: bool = False  # its telemetry trace is open (and records its own failure)


@dataclass
class Listeners:
    settings: Settings
    agent: Deps
    store: MessageStore
    telemetry: Telemetry
    inflight: InFlight
    threads: ThreadHistory
    queue: Queue
    client: AsyncWebClient  # the workers' client (Bolt passes the same one to listeners)
    whoami: Callable[[], Awaitable[Bot]]  # the bot's ids (auth.test, asked once)
    workers: Workers = field(init=False)
    _background: set[asyncio.Task[None]] = field(default_factory=set, init=False)

    def __post_init__(self) -> None:
        self.workers = Workers(
            self.queue, self.answer, self.settings.workers, self.settings.queue_lease
        )

    async def on_mention(
        self, event: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        await self.take(event, context)

    async def on_message(
        self, event: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        await self.take(event, context)

    async def take(self, event: dict[str, Any], context: AsyncBoltContext) -> None:
        """A message event from the intake (HTTP or Socket Mode) or Bolt: into the thread
        log, and into the durable record when it is one to answer. Raises when the record
        cannot be written: the caller must not ack then."""
        self.record(event, context)
        if event.get("type") == "app_mention":
            await self.take_in(event, context)
            return
        if event.get("bot_id") or event.get("subtype") not in _ANSWERED_SUBTYPES:
            return  # bots, edits, deletions, joins: no model call
        if event.get("channel_type") == "im":
            await self.take_in(event, context)
        elif (
            self.settings.follow_ups
            and event.get("thread_ts")
            and f"<@{context.bot_user_id}" not in event.get("text", "")  # app_mention has it
        ):
            await self.take_in(event, context, follow_up=True)

    async def take_in(
        self, event: dict[str, Any], context: AsyncBoltContext, follow_up: bool = False
    ) -> None:
        """Record the message durably for a worker to answer (once: a copy is dropped)."""
        if not all(isinstance(event.get(name), str) for name in ("channel", "ts")):
            log.warning("event without a channel or ts ignored")  # nowhere to answer
            return
        team = context.team_id or event.get("team") or ""
        channel, ts = event["channel"], event["ts"]
        thread = message_key(team, channel, event.get("thread_ts") or ts)
        record = {k: event[k] for k in RECORDED if k in event}
        record |= {"team": team, "follow_up": follow_up}
        if not await self.queue.put(message_key(team, channel, ts), thread, ts, record):
            log.info("duplicate delivery ignored")
            return
        self.workers.start()
        self.workers.wake()

    async def answer(self, job: Job) -> None:
        """A worker's part: answer a recorded message (taken over: without the dedupe
        store, which the first taker marked). A message taken more than MAX_TRIES times
        (its worker keeps dying) gets the failure message instead of another try."""
        event = job.event
        bot = await self.whoami()  # after the ack: the intake does not ask
        context = AsyncBoltContext(
            team_id=event["team"], bot_user_id=bot.user_id, bot_id=bot.bot_id
        )
        if job.tries > MAX_TRIES:
            team, channel = event["team"], event["channel"]
            target = Target(team, channel, event.get("thread_ts") or event["ts"], "")
            reference = self.telemetry.trace_id(job.key)
            log.error("message taken %d times without an answer: failure message", job.tries)
            await self.post_plain(self.client, target, failure_message(self.dialect, reference))
            return
        follow_up = bool(event["follow_up"])
        await self.handle(event, context, self.client, follow_up, taken_over=job.tries > 1)

    def record(self, event: dict[str, Any], context: AsyncBoltContext) -> None:
        """Every message event goes to the thread log, Vouch's own and other bots' too."""
        bot = Bot(context.bot_user_id or "", context.bot_id or "")
        self.threads.record(context.team_id or event.get("team") or "", event, bot)

    async def on_home_opened(self, event: dict[str, Any], client: AsyncWebClient) -> None:
        """The DM opened: suggested prompts, set after the ack (Bolt acks when this returns)."""
        if event.get("tab") == "messages" and event.get("channel"):
            task = asyncio.create_task(self._suggest(client, event["channel"]))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _suggest(self, client: AsyncWebClient, channel: str) -> None:
        try:
            await client.assistant_threads_setSuggestedPrompts(
                channel_id=channel, prompts=PROMPTS, title="Try asking"
            )
        except SLACK_FAILURES as exc:
            log.warning("suggested prompts not set: %s", reason(exc))

    async def on_feedback(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        """A 👍/👎 click: a `user_feedback` score on the answer's trace."""
        await ack()
        action = (body.get("actions") or [{}])[0]
        value = action.get("value") if action.get("value") in ("up", "down") else "other"
        reference = str(action.get("block_id", "")).removeprefix("feedback:")
        if _REFERENCE.fullmatch(reference) is None:  # forged actions carry anything
            log.info("feedback %s on no known answer", value)
            return
        with traced(reference):
            log.info("feedback %s", value)
            if value != "other":
                team = (body.get("team") or {}).get("id") or ""
                user = (body.get("user") or {}).get("id") or ""
                answered = (body.get("container") or {}).get("message_ts") or ""
                self.telemetry.feedback(
                    reference,
                    f"{team}:{user}",
                    positive=value == "up",
                    at=message_time(str(answered)),
                )

    async def handle(
        self,
        event: dict[str, Any],
        context: AsyncBoltContext,
        client: AsyncWebClient,
        follow_up: bool = False,
        taken_over: bool = False,
    ) -> None:
        """Answer one user message exactly once; any failure ends in a plain reply."""
        team = context.team_id or event.get("team") or ""
        target = Target(
            team, event["channel"], event.get("thread_ts") or event["ts"], event.get("user", "")
        )
        key = message_key(team, target.channel, event["ts"])
        reference = self.telemetry.trace_id(key)  # also the ref a failure message shows
        ids = MessageIds(
            key=key,
            thread=message_key(team, target.channel, target.thread_ts),
            user=f"{team}:{target.user}",
            kind="follow_up"
            if follow_up
            else "dm"
            if event.get("channel_type") == "im"
            else "mention",
        )
        progress = _Progress()
        with traced(reference), self.inflight.answering():
            try:
                if not taken_over and await self.store.seen(key):  # another instance has it
                    log.info("duplicate delivery ignored")
                    return
                async with self.store.turn(ids.thread):
                    await self.respond(
                        event,
                        context,
                        client,
                        target=target,
                        ids=ids,
                        reference=reference,
                        follow_up=follow_up,
                        progress=progress,
                        taken_over=taken_over,
                    )
            except Exception as exc:  # the one place: log without content, tell the user
                frames = traceback.extract_tb(exc.__traceback__)
                where = "; ".join(
                    f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno}" for f in frames[-4:]
                )
                log.error("answer failed: %s at %s", type(exc).__name__, where)
                # a follow-up not yet taken on may be in a thread Vouch is not part of
                asked = progress.accepted or not follow_up
                if asked and not progress.delivering:
                    await self.post_plain(client, target, failure_message(self.dialect, reference))
                    if not progress.traced:
                        self.telemetry.failed(ids, label(exc))

    async def respond(
        self,
        event: dict[str, Any],
        context: AsyncBoltContext,
        client: AsyncWebClient,
        *,
        target: Target,
        ids: MessageIds,
        reference: str,
        follow_up: bool,
        progress: _Progress,
        taken_over: bool = False,
    ) -> None:
        bot = Bot(context.bot_user_id or "", context.bot_id or "")
        text = strip_mention(event.get("text", ""), bot)
        if follow_up and not text:
            return  # e.g. a file shared into the thread: nothing was asked
        replies, joined = await self.history(client, target, event, bot)
        if follow_up and not joined:
            return  # a thread Vouch is not part of
        if not (taken_over or await self.store.first(ids.key)):
            log.info("duplicate delivery ignored")
            return
        if taken_over and await self.threads.answered(client, target, event["ts"], bot):
            log.info("taken over, but answered before: nothing posted again")
            return
        progress.accepted = True
        if not text:
            progress.delivering = True
            self.threads.posted(target, await self.post_plain(client, target, ASK), ASK, bot)
            return
        conversation = to_conversation(
            replies,
            current_ts=event["ts"],
            text=text,
            bot=bot,
            dialect=self.dialect,
            max_messages=self.settings.thread_max_messages,
            max_chars=self.settings.thread_max_chars,
        )
        status = Status(client, target.channel, target.thread_ts)

        async def show(stage: str, attempt: int, total: int) -> None:
            await status.show(status_text(stage, attempt, total))

        progress.traced = True
        with self.telemetry.trace(replace(ids, history_messages=len(conversation.turns))) as trace:
            try:
                outcome = await answer(
                    conversation, self.agent, reference, observer=trace, progress=show
                )
            finally:
                await status.close()
            progress.delivering = True
            with trace.observe("slack.deliver", "span", format=self.dialect) as delivery:
                try:
                    posted = await deliver(
                        client, target, outcome.text, self.dialect, reference, answers=event["ts"]
                    )
                    self.threads.posted(target, posted, outcome.text, bot, event["ts"])
                except StoppedByUser:  # the user's choice: neither a failure nor undelivered
                    log.info("answer stopped by the user")
                    trace.stopped_by_user()
                except SLACK_FAILURES as exc:  # after the client's retries; never post twice
                    error = reason(exc)
                    log.error("delivery failed: %s", error)
                    delivery.fail(f"slack_{error}")
                    trace.undelivered()
                    await status.close(clear=True)

    async def history(
        self, client: AsyncWebClient, target: Target, event: dict[str, Any], bot: Bot
    ) -> tuple[list[dict[str, Any]], bool]:
        """The thread's messages before this one, and whether Vouch has posted in it."""
        if target.thread_ts == event["ts"]:
            return [], False  # a new thread has no history
        return await self.threads.read(client, target, event["ts"], bot)

    async def post_plain(self, client: AsyncWebClient, target: Target, text: str) -> list[str]:
        """Post `text` in the thread; the ts posted (none when Slack refused it)."""
        try:
            response = await client.chat_postMessage(
                channel=target.channel, thread_ts=target.thread_ts, text=text
            )
        except SLACK_FAILURES as exc:
            log.error("reply failed: %s", reason(exc))
            return []
        return [str(response["ts"])]

    @property
    def dialect(self) -> Dialect:
        return self.settings.response_format
