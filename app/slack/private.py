"""Private answers: `/vouch <question>` is answered to its asker alone, through the
command's `response_url`, with a button to share the answer in the channel.

The answer is verified for everyone in the channel (the audience rule reads for the
channel, not for the asker alone), so sharing it shows no one anything they could not read.
Its verified text waits in the store for the click, for as long as Slack keeps the
response_url (HELD_FOR), and no longer: one click claims it and posts it in the channel
(by Vouch, saying who shared it), then deletes the private copy. A second click, or one
after the half hour, is told privately that the answer is gone.

An ephemeral message cannot be looked up: a command whose worker died after its answer was
held is sent that answer again (never a new draft), so a crash in the middle of sending may
show its asker the same answer twice, never none."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck
from slack_sdk.web.async_client import AsyncWebClient

from app.errors import label
from app.logs import traced
from app.slack.deliver import MRKDWN_PIECE, Target, deliver, respond, tell_privately
from app.slack.errors import SLACK_FAILURES
from app.slack.message import Message
from app.slack.split import split
from app.telemetry import Telemetry
from app.work.store import Store, StoreUnavailable, message_key

log = logging.getLogger("vouch.slack")

SHARE_ACTION = "vouch_share"
HELD_FOR = 30 * 60  # seconds: a response_url's life, and so the share button's
_KEY = re.compile(r"cmd-[0-9a-f]{24}")  # a command's key (app.slack.events.command_event)
GONE = (
    "That answer can't be shared any more: it was shared already, or half an hour has "
    "passed. Ask again with `/vouch`."
)
NOT_SHARED = (
    "I couldn't post that answer in the channel (am I still in it?). The answer is kept "
    "for you: try the button again."
)


def private_blocks(text: str, key: str, checked: str) -> list[dict[str, Any]]:
    """The answer in sections, the receipt, and the button that shares it."""
    sections = [
        {"type": "section", "text": {"type": "mrkdwn", "text": piece}}
        for piece in split(text, MRKDWN_PIECE)
    ]
    receipt = [{"type": "context", "elements": [{"type": "mrkdwn", "text": checked}]}]
    share = {
        "type": "button",
        "text": {"type": "plain_text", "text": "Share in channel"},
        "action_id": SHARE_ACTION,
        "value": key,
    }
    return [
        *sections,
        *(receipt if checked else []),
        {"type": "actions", "block_id": "share", "elements": [share]},
    ]


@dataclass(frozen=True, slots=True, kw_only=True)
class Private:
    client: AsyncWebClient  # posts a shared answer in its channel
    store: Store  # holds a private answer until it is shared
    telemetry: Telemetry

    async def answer(self, message: Message, text: str, checked: str) -> bool:
        """Hold the verified `text`, then show it to the asker alone with the share button;
        whether Slack took it."""
        held = {"text": text, "user": message.target.user, "reference": message.reference}
        await self.store.hold(message.ids.key, held | {"checked": checked}, HELD_FOR)
        return await self._show(message, text, checked)

    async def again(self, message: Message) -> bool:
        """A command taken over: its answer sent again, if one was verified and held before
        its worker died (a private message cannot be looked up); False: none was."""
        held = await self.store.held(message.ids.key)
        if held is None:
            return False
        log.info("taken over: the private answer held is sent again")
        await self._show(message, str(held["text"]), str(held.get("checked", "")))
        return True

    async def _show(self, message: Message, text: str, checked: str) -> bool:
        blocks = private_blocks(text, message.key_ts, checked)
        url = message.event["response_url"]
        return await respond(url, response_type="ephemeral", text=text, blocks=blocks)

    async def on_share(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        """ "Share in channel": the answer held, posted in the channel by Vouch (naming who
        shared it), once; then the private copy is deleted."""
        await ack()
        action = (body.get("actions") or [{}])[0]
        value = str(action.get("value", ""))
        team = str((body.get("team") or {}).get("id") or "")
        user = str((body.get("user") or {}).get("id") or "")
        channel = str((body.get("container") or {}).get("channel_id") or "")
        url = body.get("response_url")
        if _KEY.fullmatch(value) is None or not (team and user and channel):
            log.info("share of no known answer")  # forged actions carry anything
            return
        key = message_key(team, channel, value)
        try:  # only its asker can see the button; a click of anyone else's claims nothing
            seen = await self.store.held(key)
            held = await self.store.claim(key) if seen and seen.get("user") == user else None
        except StoreUnavailable:
            held = None
        if held is None:
            log.info("share of an answer no longer held")
            if isinstance(url, str):
                await tell_privately(url, GONE)
            return
        reference = str(held.get("reference", ""))
        with traced(reference):
            await self._share(key, held, Target(team, channel, "", user), url)

    async def _share(self, key: str, held: dict[str, Any], target: Target, url: Any) -> None:
        reference = str(held.get("reference", ""))
        shared = f"Shared by <@{target.user}> from a private answer"
        checked = str(held.get("checked", ""))
        try:
            await deliver(
                self.client,
                target,
                str(held["text"]),
                "mrkdwn",
                reference,
                checked=f"{shared} · {checked}" if checked else shared,
            )
        except SLACK_FAILURES as exc:
            log.warning("private answer not shared: %s", label(exc))
            await self.store.hold(key, held, HELD_FOR)  # the click may be tried again
            if isinstance(url, str):
                await tell_privately(url, NOT_SHARED)
            return
        log.info("private answer shared in the channel")
        self.telemetry.shared(reference)
        if isinstance(url, str):
            await respond(url, delete_original=True)
