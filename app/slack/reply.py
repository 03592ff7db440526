"""Replying: draft and verify a gathered conversation with this message's tools and its
channel's parts, watched by its trace and the thread's status line; deliver the verified
text, or tell the user the loop failed."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace
from functools import partial

from slack_sdk.web.async_client import AsyncWebClient

from app.agent.conversation import Conversation
from app.agent.loop import Deps, answer
from app.agent.observer import Observers
from app.agent.outcome import Outcome
from app.agent.tools import Tool
from app.deps import ChannelDeps
from app.errors import label
from app.knowledge.retrieve import Knowledge
from app.knowledge.tool import DocsSearch
from app.slack.audience import Audience
from app.slack.deliver import Opened, deliver, receipt
from app.slack.entities import Lookups
from app.slack.errors import SLACK_FAILURES, StoppedByUser
from app.slack.gather import limits_of
from app.slack.history import ThreadHistory
from app.slack.message import Message, tell_failure
from app.slack.people import People
from app.slack.private import Private
from app.slack.reader import SlackReader, links_in
from app.slack.search import SlackSearch, action_token
from app.slack.status import Status
from app.slack.steps import Pace, Steps
from app.slack.triage import Decision
from app.telemetry import Telemetry, Trace
from app.work.budget import Budgets

log = logging.getLogger("vouch.slack")


@dataclass(frozen=True, slots=True, kw_only=True)
class Replying:
    client: AsyncWebClient
    deps: ChannelDeps  # the loop's parts, by the channel's settings
    telemetry: Telemetry
    threads: ThreadHistory  # told what Vouch posted
    people: People
    audience: Audience  # what may go into an answer, by who will read it
    lookups: Lookups  # an answer's pings and Slack links, checked with Slack
    budgets: Budgets
    search: bool  # SLACK_SEARCH: Slack's Real-time Search, where the event allows it
    receipts: bool  # CHECK_RECEIPT: "Checked: …" under a verified answer
    private: Private  # /vouch's answers: to their asker alone, with a share button
    steps: Pace | None  # SHOW_STEPS: the loop's steps as task cards where answers are streamed

    async def reply(
        self, message: Message, conversation: Conversation, triaged: Decision | None = None
    ) -> None:
        """Answer: the verified text, or the failure message. An unasked message (a help
        channel's, taken by triage: `triaged`) shows no status line and gets only a
        verified answer: anything else is silence, and telemetry's."""
        shown = not (message.unasked or message.private)  # a command has no thread to show it in
        steps = await self._steps(message) if shown else None
        target = message.target
        status = Status(self.client, target.channel, target.thread_ts, shown=shown and not steps)
        try:
            await self._reply(message, conversation, triaged, steps, status)
        except asyncio.CancelledError:  # given back (a shutdown, a lease lost): it is answered
            await status.close()  # again, so its steps' message must not stay "in progress"
            if steps:
                await steps.interrupted()
            raise

    async def _reply(
        self,
        message: Message,
        conversation: Conversation,
        triaged: Decision | None,
        steps: Steps | None,
        status: Status,
    ) -> None:
        target = message.target
        ids = replace(
            message.ids,
            history_messages=len(conversation.turns),
            files=len(conversation.files),
            files_unread=len(conversation.unread),
        )
        with self.telemetry.trace(ids) as trace:
            if triaged is not None:
                triaged.tell(trace)
            try:
                outside = partial(self.audience.outside, message.where)
                deps = await self.deps.of(message.here, outside)
                outcome = await answer(
                    replace(conversation, instructions=message.here.instructions),
                    deps,
                    message.reference,
                    observer=Observers(trace, steps or status),
                    tools=self._tools(conversation, message, deps),
                    checks=[self.lookups.check(message.where, _texts(conversation))],
                )
            except Exception:  # nothing of any attempt goes with the failure message
                await status.close()
                opened = await steps.close(verified=False) if steps else None
                if not (steps and steps.stopped):
                    await tell_failure(self.client, message, opened)
                raise
            await status.close()
            opened = await steps.close(outcome.verified) if steps else None
            tokens = outcome.usage.total
            await self.budgets.spend(
                target.team, target.channel, target.user, tokens, limits_of(message.here)
            )
            if message.unasked and not outcome.verified:
                log.info("help channel: no verified answer (%s): nothing posted", outcome.reason)
                return
            if await self._answered_by_people(message):
                log.info("help channel: people answered while Vouch drafted: nothing posted")
                trace.triage = "answered"  # left to them: not in the rates
                return
            if steps and steps.stopped:  # pressed while Vouch worked: nothing more is sent
                log.info("answer stopped by the user")
                trace.stopped_by_user()
                return
            checked = receipt(outcome) if outcome.verified and self.receipts else ""
            if message.private:
                with trace.observe("slack.deliver", "span", format="private") as delivery:
                    if not outcome.verified:
                        await tell_failure(self.client, message)
                        await self.private.told(message)
                    elif not await self.private.answer(message, outcome.text, checked):
                        delivery.fail("slack_response_url")
                        trace.undelivered()
                return
            await self._deliver(
                message, outcome, checked=checked, trace=trace, status=status, opened=opened
            )

    async def _deliver(
        self,
        message: Message,
        outcome: Outcome,
        *,
        checked: str,
        trace: Trace,
        status: Status,
        opened: Opened | None,
    ) -> None:
        """Post the outcome's text in the message's thread (into the steps' message when
        `opened`), once."""
        target = message.target
        with trace.observe("slack.deliver", "span", format=message.dialect) as delivery:
            try:
                posted = await deliver(
                    self.client,
                    target,
                    outcome.text,
                    message.dialect,
                    message.reference,
                    answers=message.key_ts,
                    checked=checked,
                    person=message.group is not None
                    and outcome.reason != "unavailable"
                    and not outcome.verified,
                    opened=opened,
                )
                self.threads.posted(target, posted, outcome.text, message.bot, message.key_ts)
            except StoppedByUser:  # the user's choice: neither a failure nor undelivered
                log.info("answer stopped by the user")
                trace.stopped_by_user()
            except SLACK_FAILURES as exc:  # after the client's retries; never post twice
                error = label(exc)
                log.error("delivery failed: %s", error)
                delivery.fail(f"slack_{error}")
                trace.undelivered()
                await status.close(clear=True)

    async def _steps(self, message: Message) -> Steps | None:
        """The loop's steps, shown where answers are streamed (markdown) and SHOW_STEPS is
        on; None when they are not (then the status line shows what Vouch is doing)."""
        if self.steps is None or message.dialect != "markdown":
            return None
        steps = Steps(self.client, message.target, self.steps)
        return steps if await steps.start() else None

    async def _answered_by_people(self, message: Message) -> bool:
        """Whether someone other than the asker replied in an unasked message's thread
        while Vouch drafted: then they are answering it, and Vouch posts nothing."""
        if not message.unasked or message.follow_up:
            return False
        return await self.threads.replied(self.client, message.target, message.bot)

    def _tools(self, conversation: Conversation, message: Message, deps: Deps) -> list[Tool]:
        """The read-only tools this message's draft may call: the team's docs (with
        KNOWLEDGE_DIR), the Slack messages the conversation links to, and Slack's search
        (with SLACK_SEARCH, when the event carried a token for it)."""
        tools: list[Tool] = []
        if isinstance(deps.knowledge, Knowledge):  # the team's docs, searchable again
            tools.append(DocsSearch(deps.knowledge))
        where = message.where
        if links_in(_texts(conversation)):
            tools.append(SlackReader(self.client, self.people, self.audience, where))
        token = action_token(message.event) if self.search else None
        if token is not None:
            current = (message.target.channel, message.ts)
            skip = {message.bot.user_id}
            search = SlackSearch(
                self.client, self.people, token, self.audience, where, skip=skip, current=current
            )
            tools.append(search)
        return tools


def _texts(conversation: Conversation) -> list[str]:
    """What the conversation itself says: the message and the thread's turns."""
    return [conversation.message, *(turn.text for turn in conversation.turns)]
