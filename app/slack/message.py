"""The message being answered: a recorded event as a worker reads it — where the answer
goes, under which ids, what was asked, and the channel's settings when it is answered."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from app.channels import ChannelSettings, ChannelsFile
from app.slack import deliver
from app.slack.audience import Where
from app.slack.deliver import Target, tell_privately
from app.slack.events import COMMAND_EVENT, SHORTCUT_EVENT
from app.slack.thread import Bot, strip_mention
from app.telemetry import MessageIds, Telemetry
from app.verify import Dialect, failure_message
from app.work.store import message_key


@dataclass(frozen=True, slots=True)
class Message:
    """One recorded user message, as a worker answers it."""

    event: dict[str, Any]  # as the store keeps it (app.slack.intake.STORED)
    ts: str
    target: Target
    ids: MessageIds
    reference: str  # its trace id, also the reference a failure message shows
    text: str  # without the mention of Vouch
    follow_up: bool
    unasked: bool  # a new message in a help channel: answered only when verified, else silence
    author: str  # who wrote the message answered: its asker; a shortcut's, whoever wrote it
    bot: Bot
    here: ChannelSettings  # the channel's settings (CHANNELS_FILE) when it is answered
    dialect: Dialect  # the channel's, or RESPONSE_FORMAT
    group: str | None  # the user group "Ask a person" mentions here, if any

    @property
    def key_ts(self) -> str:
        """The ts it is recorded, traced and answered under (its answer's mark): its own,
        or, for a shortcut, the click's (a message may be asked about more than once)."""
        return str(self.event.get("key_ts") or self.ts)

    @property
    def private(self) -> bool:
        """Asked with `/vouch`: answered to its asker alone, through its response_url."""
        return self.event.get("type") == COMMAND_EVENT

    @property
    def triage(self) -> str | None:
        """Its triage category once it is drafted: `question` when unasked (help channels)."""
        return "question" if self.unasked else None

    @property
    def where(self) -> Where:
        """Where the answer goes and who asked: what the audience rule is asked about."""
        return Where(self.target.channel, self.target.team, self.target.user)


@dataclass(frozen=True, slots=True)
class Reading:
    """Reads recorded events as messages, with the settings they are answered under."""

    telemetry: Telemetry
    channels: ChannelsFile
    dialect: Dialect  # RESPONSE_FORMAT
    group: str | None  # ESCALATION_GROUP

    def message(self, event: dict[str, Any], bot: Bot) -> Message:
        team = event.get("team") or ""
        target = Target(
            team, event["channel"], event.get("thread_ts") or event["ts"], event.get("user", "")
        )
        key = message_key(team, target.channel, str(event.get("key_ts") or event["ts"]))
        follow_up, unasked = bool(event.get("follow_up")), bool(event.get("unasked"))
        kind = (
            "follow_up"
            if follow_up
            else "help"
            if unasked
            else "shortcut"
            if event.get("type") == SHORTCUT_EVENT
            else "command"
            if event.get("type") == COMMAND_EVENT
            else "dm"
            if event.get("channel_type") == "im"
            else "mention"
        )
        ids = MessageIds(
            key=key,
            thread=message_key(team, target.channel, target.thread_ts),
            user=f"{team}:{target.user}",
            kind=kind,
        )
        here = self.channels.of(target.channel)
        return Message(
            event=event,
            ts=event["ts"],
            target=target,
            ids=ids,
            reference=self.telemetry.trace_id(key),
            text=strip_mention(event.get("text", ""), bot),
            follow_up=follow_up,
            unasked=unasked,
            author=str(event.get("author", target.user)),
            bot=bot,
            here=here,
            dialect=_dialect(event, here.dialect or self.dialect),
            group=self.group_of(target.channel),
        )

    def group_of(self, channel: str) -> str | None:
        """The user group "Ask a person" mentions in `channel`: its own, or
        ESCALATION_GROUP; None: no button."""
        return self.channels.of(channel).escalation_group or self.group


def _dialect(event: dict[str, Any], chosen: Dialect) -> Dialect:
    """The channel's dialect; a private answer's is mrkdwn: a response_url's message is
    blocks, never a stream."""
    return "mrkdwn" if event.get("type") == COMMAND_EVENT else chosen


async def tell_failure(
    client: AsyncWebClient, message: Message, opened: deliver.Opened | None = None
) -> None:
    """The failure message in the message's thread (into the message showing the steps,
    when `opened`), with its reference (and, with a group to ask, the "Ask a person"
    button); nothing of any attempt. An unasked message (in a help channel) gets nothing:
    no one asked Vouch, so its failure is only telemetry's. One asked with `/vouch` is
    told privately."""
    if message.unasked:
        return
    if message.private:
        text = failure_message(message.dialect, message.reference)
        await tell_privately(message.event["response_url"], text)
        return
    await deliver.tell_failure(
        client,
        message.target,
        dialect=message.dialect,
        reference=message.reference,
        answers=message.key_ts,
        group=message.group,
        opened=opened,
    )


async def say(client: AsyncWebClient, message: Message, text: str) -> list[str]:
    """A plain reply in the message's thread (what to ask, a budget's limit), marked as
    its answer; the ts posted. Nothing when no one asked Vouch (unasked: a help channel's):
    there, only a verified answer is ever posted."""
    if message.unasked:
        return []
    if message.private:
        await tell_privately(message.event["response_url"], text)
        return []
    return await deliver.post_plain(client, message.target, text, answers=message.key_ts)
