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

from app.agent.conversation import Conversation
from app.agent.judge import JudgeConfig
from app.agent.loop import Deps, answer
from app.agent.observer import Observers
from app.agent.tools import Tool
from app.channels import ChannelSettings, ChannelsFile
from app.knowledge.libraries import Libraries
from app.knowledge.retrieve import Knowledge
from app.knowledge.tool import DocsSearch
from app.logs import traced
from app.settings import Settings
from app.slack.audience import Audience, Where
from app.slack.deliver import (
    WHY,
    Target,
    answer_mark,
    deliver,
    person_blocks,
    reason_blocks,
    receipt,
)
from app.slack.drain import InFlight
from app.slack.entities import Lookups
from app.slack.errors import SLACK_FAILURES, StoppedByUser, reason
from app.slack.events import Dropped, cleaned, person
from app.slack.files import FileReader, recorded
from app.slack.history import ThreadHistory, is_ts
from app.slack.home import Home
from app.slack.people import People
from app.slack.reader import SlackReader, links_in
from app.slack.search import SlackSearch, action_token
from app.slack.status import Status
from app.slack.thread import Bot, is_own, mentioned, strip_mention, to_conversation
from app.telemetry import MessageIds, Telemetry, label, message_time
from app.telemetry.scores import REASONS
from app.verify import Dialect, failure_message
from app.work.budget import Budgets, Limits
from app.work.budget import reply as budget_reply
from app.work.record import Job, Record, message_key
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
RECORDED = (
    "type",
    "channel",
    "ts",
    "thread_ts",
    "user",
    "text",
    "channel_type",
    "subtype",
    "assistant_thread",  # its action_token: Real-time Search (app/slack/search.py)
    "action_token",  # the same, where an event carries it at the top
)
MAX_TRIES = 3  # takes of one message before its user is told it cannot be answered
_REFERENCE = re.compile(r"[0-9a-f]{32}")  # a trace id


@dataclass(frozen=True, slots=True)
class _Message:
    """One recorded user message, as a worker answers it."""

    event: dict[str, Any]
    ts: str
    target: Target
    ids: MessageIds
    reference: str  # its trace id
    text: str  # without the mention of Vouch
    follow_up: bool
    bot: Bot
    here: ChannelSettings  # the channel's settings (CHANNELS_FILE) when it is answered

    @property
    def where(self) -> Where:
        """Where the answer goes and who asked: what the audience rule is asked about."""
        return Where(self.target.channel, self.target.team, self.target.user)


@dataclass
class Listeners:
    settings: Settings
    agent: Deps
    telemetry: Telemetry
    inflight: InFlight
    threads: ThreadHistory
    queue: Record
    client: AsyncWebClient  # the workers' client (Bolt passes the same one to listeners)
    whoami: Callable[[], Awaitable[Bot]]  # the bot's ids (auth.test, asked once)
    people: People  # names by user id (users.info, kept)
    channels: ChannelsFile  # per-channel settings (CHANNELS_FILE), reloaded when changed
    files: FileReader  # the files shared in a message or its thread
    audience: Audience  # what may go into an answer, by who will read it
    lookups: Lookups  # an answer's pings and Slack links, checked with Slack
    budgets: Budgets  # messages and tokens per person and channel, in the durable record
    workers: Workers = field(init=False)
    _background: set[asyncio.Task[None]] = field(default_factory=set, init=False)
    home: Home | None = None  # the Home tab (app/slack/home.py)
    libraries: Libraries | None = None  # channels' own team docs (CHANNELS_FILE)
    _escalated: set[str] = field(default_factory=set, init=False)  # trace ids asked about

    def __post_init__(self) -> None:
        self.workers = Workers(
            self.queue, self.answer, self.settings.workers, self.settings.queue_lease
        )

    async def on_message(
        self, event: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        """`app_mention` and `message` events Bolt hands over (those the intake leaves to
        it: no bot authorization in the envelope), read as the intake reads its own."""
        read = cleaned(event)
        if isinstance(read, Dropped):
            log.info("event dropped: %s", read.reason)
            return
        await self.take(read, context)

    async def take(self, event: dict[str, Any], context: AsyncBoltContext) -> None:
        """A message event (app.slack.events.cleaned) from the intake (HTTP or Socket Mode)
        or Bolt: into the thread log, and into the durable record when it is one to answer.
        Raises when the record cannot be written: the caller must not ack then."""
        self.record(event, context)
        if not person(event, context.bot_user_id):
            return  # only people make Vouch act: never a bot, never Vouch itself
        here = self.channels.of(str(event.get("channel") or ""))
        if not here.answer:
            return  # CHANNELS_FILE: Vouch stays silent here (no record, no model call)
        if event.get("type") == "app_mention":
            await self.take_in(event, context)
            return
        if event.get("subtype") not in _ANSWERED_SUBTYPES:
            return  # edits, deletions, joins: no model call
        if event.get("channel_type") == "im":
            await self.take_in(event, context)
        elif (
            (self.settings.follow_ups if here.follow_ups is None else here.follow_ups)
            and event.get("thread_ts")
            and f"<@{context.bot_user_id}" not in event.get("text", "")  # app_mention has it
        ):
            await self.take_in(event, context, follow_up=True)

    async def take_in(
        self, event: dict[str, Any], context: AsyncBoltContext, follow_up: bool = False
    ) -> None:
        """Record the message durably for a worker to answer (once: a copy is dropped).
        RecordUnavailable goes up: the intake refuses the event (HTTP 503, no Socket Mode
        ack), so Slack delivers it again."""
        if not all(isinstance(event.get(name), str) for name in ("channel", "ts")):
            log.warning("event without a channel or ts ignored")  # nowhere to answer
            return
        team = context.team_id or event.get("team") or ""
        channel, ts = event["channel"], event["ts"]
        thread = message_key(team, channel, event.get("thread_ts") or ts)
        record = {k: event[k] for k in RECORDED if k in event}
        record |= {"team": team, "follow_up": follow_up}
        if event.get("files"):
            record["files"] = recorded(event["files"])
        if not await self.queue.put(message_key(team, channel, ts), thread, ts, record):
            log.info("duplicate delivery ignored")
            return
        self.workers.start()
        self.workers.wake()

    async def answer(self, job: Job) -> None:
        """A worker's part: answer a recorded message, or tell its user why not. One taken
        over (its worker died or gave it back) is first looked for in the thread: an answer
        posted before the worker could say so is not posted again. One taken more than
        MAX_TRIES times (its workers keep dying) gets the failure message."""
        bot = await self.whoami()  # after the ack: the intake does not ask
        message = self.message(job.event, bot)
        with traced(message.reference), self.inflight.answering():
            if job.tries > 1 and await self.threads.answered(
                self.client, message.target, message.ts, bot
            ):
                log.info("taken over, but answered before: nothing posted again")
                return
            if job.tries > MAX_TRIES:
                log.error("message taken %d times without an answer: failure message", job.tries)
                await self.tell_failure(message)
                self.telemetry.failed(message.ids, "tries_exhausted")
                return
            try:
                conversation = await self.gather(message, first=job.tries == 1)
            except Exception as exc:  # e.g. the thread could not be read
                _crashed(exc)
                if not message.follow_up:  # a follow-up's thread may not be Vouch's
                    await self.tell_failure(message)
                    self.telemetry.failed(message.ids, label(exc))
                return
            if conversation is None:
                return
            try:
                await self.reply(message, conversation)
            except Exception as exc:  # the trace has it; the user was told already
                _crashed(exc)

    async def over_budget(self, message: _Message, *, first: bool) -> bool:
        """Whether the message is past a budget: then its user is told when it resets, and
        no model is called. Counted on its first take only (a message taken over was)."""
        if not first:
            return False
        target = message.target
        limits = _limits(message.here)
        over = await self.budgets.admit(target.team, target.channel, target.user, limits)
        if over is None:
            return False
        log.info("over budget: %s", over.which)
        await self.post_plain(message, budget_reply(over, self.budgets.period))
        self.telemetry.over_budget(message.ids, over.which)
        return True

    def message(self, event: dict[str, Any], bot: Bot) -> _Message:
        """A recorded event as the worker answers it: where, under which ids, what."""
        team = event.get("team") or ""
        target = Target(
            team, event["channel"], event.get("thread_ts") or event["ts"], event.get("user", "")
        )
        key = message_key(team, target.channel, event["ts"])
        follow_up = bool(event.get("follow_up"))
        kind = (
            "follow_up" if follow_up else "dm" if event.get("channel_type") == "im" else "mention"
        )
        ids = MessageIds(
            key=key,
            thread=message_key(team, target.channel, target.thread_ts),
            user=f"{team}:{target.user}",
            kind=kind,
        )
        return _Message(
            event=event,
            ts=event["ts"],
            target=target,
            ids=ids,
            reference=self.telemetry.trace_id(key),  # also the ref a failure message shows
            text=strip_mention(event.get("text", ""), bot),
            follow_up=follow_up,
            bot=bot,
            here=self.channels.of(target.channel),
        )

    def record(self, event: dict[str, Any], context: AsyncBoltContext) -> None:
        """Every message event goes to the thread log, Vouch's own and other bots' too."""
        bot = Bot(context.bot_user_id or "", context.bot_id or "")
        self.threads.record(context.team_id or event.get("team") or "", event, bot)

    async def on_home_opened(self, event: dict[str, Any], client: AsyncWebClient) -> None:
        """The DM opened: suggested prompts; the Home tab: its view. Both after the ack
        (Bolt acks when this returns)."""
        if event.get("tab") == "messages" and event.get("channel"):
            task = asyncio.create_task(self._suggest(client, event["channel"]))
        elif event.get("tab") == "home" and event.get("user") and self.home is not None:
            task = asyncio.create_task(self.home.publish(client, str(event["user"])))
        else:
            return
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
                if value == "down" and is_ts(str(answered)):  # ask why, after the ack
                    channel = (body.get("container") or {}).get("channel_id") or ""
                    thread = (body.get("message") or {}).get("thread_ts") or answered
                    asking = self._ask_why(
                        str(channel), str(user), str(thread), reference, answered
                    )
                    task = asyncio.create_task(asking)
                    self._background.add(task)
                    task.add_done_callback(self._background.discard)

    async def _ask_why(
        self, channel: str, user: str, thread: str, reference: str, answered: str
    ) -> None:
        """Only the person who clicked 👎 sees the question, with the fixed choices."""
        try:
            await self.client.chat_postEphemeral(
                channel=channel,
                user=user,
                thread_ts=thread,
                text=WHY,
                blocks=reason_blocks(reference, answered),
            )
        except SLACK_FAILURES as exc:
            log.warning("reason not asked: %s", reason(exc))

    async def on_escalate(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        """ "Ask a person" on a reply Vouch could not verify: a message in the thread that
        mentions ESCALATION_GROUP and who asked (nothing of any draft), and an `escalated`
        score on the message's trace. Once per message."""
        await ack()
        action = (body.get("actions") or [{}])[0]
        reference = str(action.get("block_id", "")).split(":")[-1]
        asked = str(action.get("value", ""))
        channel = str((body.get("container") or {}).get("channel_id") or "")
        group = self.group(self.channels.of(channel))
        if group is None or _REFERENCE.fullmatch(reference) is None or not is_ts(asked):
            log.info("escalation on no known message")
            return
        if reference in self._escalated:
            return  # a second click: the group was told already
        self._escalated.add(reference)
        with traced(reference):
            thread = (body.get("message") or {}).get("thread_ts") or asked
            user = str((body.get("user") or {}).get("id") or "")
            text = f"<!subteam^{group}> <@{user}> would like a person to answer this question."
            try:
                await self.client.chat_postMessage(channel=channel, thread_ts=thread, text=text)
            except SLACK_FAILURES as exc:
                log.error("escalation not posted: %s", reason(exc))
                self._escalated.discard(reference)
                return
            log.info("escalated to a person")
            self.telemetry.escalated(reference, at=message_time(asked))

    async def on_reason(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        """A 👎 reason chosen: a categorical `user_feedback_reason` score on the answer."""
        await ack()
        action = (body.get("actions") or [{}])[0]
        why = action.get("value")
        _, reference, answered = [*str(action.get("block_id", "")).split(":"), "", ""][:3]
        if why not in REASONS or _REFERENCE.fullmatch(reference) is None or not is_ts(answered):
            log.info("feedback reason on no known answer")
            return
        with traced(reference):
            log.info("feedback reason %s", why)
            team = (body.get("team") or {}).get("id") or ""
            user = (body.get("user") or {}).get("id") or ""
            self.telemetry.feedback_reason(
                reference, f"{team}:{user}", str(why), at=message_time(answered)
            )

    async def gather(self, message: _Message, *, first: bool = True) -> Conversation | None:
        """The conversation to answer; None when there is nothing to draft (a follow-up
        that asks nothing, a thread Vouch is not part of, a bare mention: asked what) or
        the message is past a budget (checked on its `first` take, before names are looked
        up and files downloaded)."""
        if message.follow_up and not message.text:
            return None  # e.g. a file shared into the thread: nothing was asked
        replies, joined = await self.history(message)
        if message.follow_up and not joined:
            return None  # a thread Vouch is not part of
        if not message.text:
            posted = await self.post_plain(message, ASK)
            self.threads.posted(message.target, posted, ASK, message.bot)
            return None
        if await self.over_budget(message, first=first):
            return None
        speakers = {r.get("user") for r in replies if not is_own(r, message.bot)}
        speakers |= mentioned([message.text, *(str(r.get("text", "")) for r in replies)])
        speakers = (speakers | {message.target.user}) - {message.bot.user_id, None, ""}
        names = await self.people.names(str(s) for s in speakers)
        conversation = to_conversation(
            replies,
            current_ts=message.ts,
            text=message.text,
            bot=message.bot,
            dialect=self.dialect(message),
            max_messages=self.settings.thread_max_messages,
            max_chars=self.settings.thread_max_chars,
            names=names,
            speaker=names.get(message.target.user, ""),
        )
        shared = [*(message.event.get("files") or ())]
        shared += [
            f for r in reversed(replies) for f in r.get("files") or () if isinstance(f, dict)
        ]
        if not shared or self.settings.files_max_count == 0:
            return conversation
        files, unread = await self.files.read(shared)
        return replace(conversation, files=files, unread=unread)

    async def reply(self, message: _Message, conversation: Conversation) -> None:
        """Draft and verify under the message's trace, with the thread's status line as a
        second observer; deliver the verified text, or tell the user the loop failed."""
        target = message.target
        status = Status(self.client, target.channel, target.thread_ts)
        ids = replace(
            message.ids,
            history_messages=len(conversation.turns),
            files=len(conversation.files),
            files_unread=len(conversation.unread),
        )
        with self.telemetry.trace(ids) as trace:
            try:
                deps = await self.deps_for(message)
                outcome = await answer(
                    replace(conversation, instructions=message.here.instructions),
                    deps,
                    message.reference,
                    observer=Observers(trace, status),
                    tools=self.tools(conversation, message, deps),
                    checks=[self.lookups.check(message.where, _texts(conversation))],
                )
            except Exception:  # nothing of any attempt goes with the failure message
                await status.close()
                await self.tell_failure(message)
                raise
            await status.close()
            target, limits = message.target, _limits(message.here)
            tokens = outcome.usage.total
            await self.budgets.spend(target.team, target.channel, target.user, tokens, limits)
            dialect = self.dialect(message)
            with trace.observe("slack.deliver", "span", format=dialect) as delivery:
                try:
                    posted = await deliver(
                        self.client,
                        target,
                        outcome.text,
                        dialect,
                        message.reference,
                        answers=message.ts,
                        checked=receipt(outcome)
                        if outcome.verified and self.settings.check_receipt
                        else "",
                        person=self.group(message.here) is not None
                        and outcome.reason != "unavailable"
                        and not outcome.verified,
                    )
                    self.threads.posted(target, posted, outcome.text, message.bot, message.ts)
                except StoppedByUser:  # the user's choice: neither a failure nor undelivered
                    log.info("answer stopped by the user")
                    trace.stopped_by_user()
                except SLACK_FAILURES as exc:  # after the client's retries; never post twice
                    error = reason(exc)
                    log.error("delivery failed: %s", error)
                    delivery.fail(f"slack_{error}")
                    trace.undelivered()
                    await status.close(clear=True)

    def tools(self, conversation: Conversation, message: _Message, deps: Deps) -> list[Tool]:
        """The read-only tools this message's draft may call: the team's docs (with
        KNOWLEDGE_DIR), the Slack messages the conversation links to, and Slack's search
        (with SLACK_SEARCH, when the event carried a token for it)."""
        tools: list[Tool] = []
        if isinstance(deps.knowledge, Knowledge):  # the team's docs, searchable again
            tools.append(DocsSearch(deps.knowledge))
        where = message.where
        if links_in(_texts(conversation)):
            tools.append(SlackReader(self.client, self.people, self.audience, where))
        token = action_token(message.event) if self.settings.slack_search else None
        if token is not None:
            asked = (message.target.channel, message.ts)
            skip = {message.bot.user_id}
            search = SlackSearch(
                self.client, self.people, token, self.audience, where, skip=skip, asked=asked
            )
            tools.append(search)
        return tools

    async def history(self, message: _Message) -> tuple[list[dict[str, Any]], bool]:
        """The thread's messages before this one, and whether Vouch has posted in it."""
        if message.target.thread_ts == message.ts:
            return [], False  # a new thread has no history
        return await self.threads.read(self.client, message.target, message.ts, message.bot)

    async def tell_failure(self, message: _Message) -> None:
        """The failure message, with the reference a maintainer can look up (and, with
        ESCALATION_GROUP, the "Ask a person" button)."""
        text = failure_message(self.dialect(message), message.reference)
        asked = message.reference, message.ts
        blocks = person_blocks(text, *asked) if self.group(message.here) is not None else None
        await self.post_plain(message, text, blocks)

    async def post_plain(
        self, message: _Message, text: str, blocks: list[dict[str, Any]] | None = None
    ) -> list[str]:
        """Post `text` in the thread, marked as the reply to the message; the ts posted
        (none when Slack refused it)."""
        target = message.target
        try:
            response = await self.client.chat_postMessage(
                channel=target.channel,
                thread_ts=target.thread_ts,
                text=text,
                blocks=blocks,
                metadata=answer_mark(message.ts),
                unfurl_links=False,  # no preview, no fetch: see deliver.py
                unfurl_media=False,
            )
        except SLACK_FAILURES as exc:
            log.error("reply failed: %s", reason(exc))
            return []
        return [str(response["ts"])]

    async def deps_for(self, message: _Message) -> Deps:
        """The loop's parts for this channel: its own team docs, and the judge turned off,
        or on, where CHANNELS_FILE says (a folder first named since start is indexed now,
        off the event loop). A channel shared with another organisation (or one Slack says
        nothing of) gets no team docs but a folder of its own."""
        here = message.here
        deps, config = self.agent, self.agent.config
        if here.knowledge is not None and self.libraries is not None:
            knowledge = await asyncio.to_thread(self.libraries.get, here.knowledge)
            deps = replace(deps, knowledge=knowledge)
        elif deps.knowledge is not None and await self.audience.outside(message.where):
            deps = replace(deps, knowledge=None)
        if here.judge is False and config.judge is not None:
            deps = replace(deps, config=replace(config, judge=None))
        elif here.judge and config.judge is None:
            judge = JudgeConfig.from_settings(self.settings)
            deps = replace(deps, config=replace(config, judge=judge))
        return deps

    def dialect(self, message: _Message) -> Dialect:
        return message.here.dialect or self.settings.response_format

    def group(self, here: ChannelSettings) -> str | None:
        """The user group "Ask a person" mentions in this channel, if any."""
        return here.escalation_group or self.settings.escalation_group


def _limits(here: ChannelSettings) -> Limits:
    """A channel's own budgets (CHANNELS_FILE), in place of the global ones they set."""
    return Limits(**here.budget.model_dump())


def _texts(conversation: Conversation) -> list[str]:
    """What the conversation itself says: the message and the thread's turns."""
    return [conversation.message, *(turn.text for turn in conversation.turns)]


def _crashed(exc: Exception) -> None:
    """Log an unexpected error by type and place only (its text may quote the message)."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = "; ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno}" for f in frames[-4:])
    log.error("answer failed: %s at %s", type(exc).__name__, where)
