"""Actions on Vouch's replies: 👍/👎 (a `user_feedback` score, and after 👎 the fixed
reasons, asked of the clicker only), a reason chosen, and "Ask a person" on a reply Vouch
could not verify. Every control's ids are checked: a forged action carries anything."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck
from slack_sdk.web.async_client import AsyncWebClient

from app.errors import label
from app.logs import traced
from app.slack.background import Background
from app.slack.deliver import WHY, reason_blocks
from app.slack.errors import SLACK_FAILURES
from app.slack.history import is_ts
from app.slack.message import Reading
from app.telemetry import Telemetry, message_time
from app.telemetry.scores import REASONS

log = logging.getLogger("vouch.slack")
_REFERENCE = re.compile(r"[0-9a-f]{32}")  # a trace id


@dataclass(kw_only=True)
class Actions:
    client: AsyncWebClient
    telemetry: Telemetry
    reading: Reading  # which group "Ask a person" mentions in a channel
    background: Background = field(default_factory=Background)
    _escalated: set[str] = field(default_factory=set, init=False)  # trace ids asked about

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
            if value == "other":
                return
            team = (body.get("team") or {}).get("id") or ""
            user = (body.get("user") or {}).get("id") or ""
            answered = (body.get("container") or {}).get("message_ts") or ""
            self.telemetry.feedback(
                reference, f"{team}:{user}", positive=value == "up", at=message_time(str(answered))
            )
            if value == "down" and is_ts(str(answered)):  # ask why, after the ack
                channel = (body.get("container") or {}).get("channel_id") or ""
                thread = (body.get("message") or {}).get("thread_ts") or answered
                self.background.start(
                    self._ask_why(str(channel), str(user), str(thread), reference, answered)
                )

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
            log.warning("reason not asked: %s", label(exc))

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

    async def on_escalate(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        """ "Ask a person" on a reply Vouch could not verify: a message in the thread that
        mentions the channel's escalation group and who asked (nothing of any draft), and
        an `escalated` score on the message's trace. Once per message."""
        await ack()
        action = (body.get("actions") or [{}])[0]
        reference = str(action.get("block_id", "")).split(":")[-1]
        question = str(action.get("value", ""))
        channel = str((body.get("container") or {}).get("channel_id") or "")
        group = self.reading.group_of(channel)
        if group is None or _REFERENCE.fullmatch(reference) is None or not is_ts(question):
            log.info("escalation on no known message")
            return
        if reference in self._escalated:
            return  # a second click: the group was told already
        self._escalated.add(reference)
        with traced(reference):
            thread = (body.get("message") or {}).get("thread_ts") or question
            user = str((body.get("user") or {}).get("id") or "")
            text = f"<!subteam^{group}> <@{user}> would like a person to answer this question."
            try:
                await self.client.chat_postMessage(channel=channel, thread_ts=thread, text=text)
            except SLACK_FAILURES as exc:
                log.error("escalation not posted: %s", label(exc))
                self._escalated.discard(reference)
                return
            log.info("escalated to a person")
            self.telemetry.escalated(reference, at=message_time(question))
