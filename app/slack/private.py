"""Private answers: `/vouch <question>` is answered to its asker alone, through the
command's `response_url`, with a button to share the answer in the channel.

The answer is verified for everyone in the channel (the audience rule reads for the
channel, not for the asker alone), so sharing it shows no one anything they could not read.
Its verified text waits in the store for the click, for as long as Slack keeps the
response_url (HELD_FOR), and no longer: one click claims it and posts it in the channel
(by Vouch, saying who shared it; a long answer continues in that message's thread), then
deletes the private copy. A second click, or one after the half hour, is told privately
that the answer is gone; a post Slack refuses keeps the answer for what is left of its half
hour (one posted in part is not posted again). The clicker is always told with
`replace_original: false`, so the private answer stays. With the store away, the answer is
shown without the button.

An ephemeral message cannot be looked up, so the store also marks a command told (its
answer held, or its failure sent) for the half hour: a worker that takes it over sends a
held answer again (never a new draft), and nothing for one shared or failed. A crash in the
middle of sending may show its asker the same answer twice, never none; a store that
cannot say gets the command answered again."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
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
from app.work.store import UNREACHABLE, Store, message_key

log = logging.getLogger("vouch.slack")

SHARE_ACTION = "vouch_share"
HELD_FOR = 30 * 60  # seconds: a response_url's life, and so the share button's
_KEY = re.compile(r"cmd-[0-9a-f]{24}")  # a command's key (app.slack.events.command_event)
GONE = (
    "That answer can't be shared any more: it was shared already, or half an hour has "
    "passed. Ask again with `/vouch`."
)
NOT_NOW = "I couldn't share that answer just now. Try the button again in a minute."
PARTLY_SHARED = (
    "Only the start of that answer could be posted in the channel. Ask again with `/vouch` "
    "for the rest."
)
NOT_SHARED = (
    "I couldn't post that answer in the channel (am I still in it?). The answer is kept "
    "for you: try the button again."
)


def private_blocks(text: str, key: str, checked: str) -> list[dict[str, Any]]:
    """The answer in sections, the receipt, and the button that shares it (none without
    the `key` of an answer held)."""
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
    actions = {"type": "actions", "block_id": "share", "elements": [share]}
    return [*sections, *(receipt if checked else []), *([actions] if key else [])]


@dataclass(frozen=True, slots=True, kw_only=True)
class Private:
    client: AsyncWebClient  # posts a shared answer in its channel
    store: Store  # holds a private answer until it is shared
    telemetry: Telemetry
    clock: Callable[[], float] = time.time

    async def answer(self, message: Message, text: str, checked: str) -> bool:
        """Hold the verified `text` and mark the command told, then show the answer to the
        asker alone with the share button; whether Slack took it. With the store away, the
        answer is shown without the button (it could not be shared)."""
        key, user = message.ids.key, message.target.user
        held = {"text": text, "user": user, "reference": message.reference, "checked": checked}
        try:
            await self.store.hold(key, held | {"until": self.clock() + HELD_FOR}, HELD_FOR)
            await self.store.hold(told_key(key), {"user": user}, HELD_FOR)
            shared = True
        except UNREACHABLE as exc:
            log.warning("private answer not held (%s): shown without its share button", label(exc))
            shared = False
        return await self._show(message, text, checked, shared=shared)

    async def told(self, message: Message) -> None:
        """Mark a command told (its failure message sent privately), so that a worker that
        takes it over does not draft it again."""
        try:
            await self.store.hold(
                told_key(message.ids.key), {"user": message.target.user}, HELD_FOR
            )
        except UNREACHABLE as exc:
            log.warning("private failure not marked told: %s", label(exc))

    async def again(self, message: Message) -> bool:
        """A command taken over: whether its asker was told already (an ephemeral message
        cannot be looked up); a verified answer held is sent again (never a new draft). An
        answer shared, or a failure told, was told. A store that cannot say: not told."""
        key = message.ids.key
        try:
            held = await self.store.held(key)
            told = held is not None or await self.store.held(told_key(key)) is not None
        except UNREACHABLE as exc:
            log.warning("taken over, the store unreadable (%s): answered again", label(exc))
            return False
        if held is not None:
            log.info("taken over: the private answer held is sent again")
            await self._show(message, str(held["text"]), str(held.get("checked", "")))
        elif told:
            log.info("taken over: its asker was told already")
        return told

    async def _show(
        self, message: Message, text: str, checked: str, *, shared: bool = True
    ) -> bool:
        blocks = private_blocks(text, message.key_ts if shared else "", checked)
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
        given = body.get("response_url")
        url = given if isinstance(given, str) else None
        if _KEY.fullmatch(value) is None or not (team and user and channel):
            log.info("share of no known answer")  # forged actions carry anything
            await _tell(url, GONE)
            return
        key = message_key(team, channel, value)
        try:  # only its asker can see the button; a click of anyone else's claims nothing
            seen = await self.store.held(key)
            held = await self.store.claim(key) if seen and seen.get("user") == user else None
        except UNREACHABLE as exc:
            log.warning("share: the store unreadable (%s)", label(exc))
            await _tell(url, NOT_NOW)
            return
        if held is None:
            log.info("share of an answer no longer held")
            await _tell(url, GONE)
            return
        reference = str(held.get("reference", ""))
        with traced(reference):
            await self._share(key, held, Target(team, channel, "", user), url)

    async def _share(self, key: str, held: dict[str, Any], target: Target, url: str | None) -> None:
        reference = str(held.get("reference", ""))
        posted: list[str] = []
        try:
            await deliver(
                self.client,
                target,
                str(held["text"]),
                "mrkdwn",
                reference,
                checked=str(held.get("checked", "")),
                posted=posted,
                credit=f"Shared by <@{target.user}> from a private answer",
            )
        except SLACK_FAILURES as exc:
            log.warning("private answer not shared: %s", label(exc))
            await _tell(url, await self._keep(key, held) if not posted else PARTLY_SHARED)
            return
        log.info("private answer shared in the channel")
        self.telemetry.shared(reference)
        if url is not None:
            await respond(url, delete_original=True)

    async def _keep(self, key: str, held: dict[str, Any]) -> str:
        """Hold a claimed answer again after a failed post, for what is left of its half
        hour (never longer); what to tell the clicker."""
        left = float(held.get("until", 0)) - self.clock()
        if left <= 0:
            return GONE
        try:
            await self.store.hold(key, held, left)
        except UNREACHABLE as exc:
            log.warning("private answer not held again: %s", label(exc))
            return GONE
        return NOT_SHARED


def told_key(key: str) -> str:
    """Where a command's being told is marked (its answer held, shared or its failure)."""
    return f"{key}:told"


async def _tell(url: str | None, text: str) -> None:
    if url is not None:  # a click's payload carries one; a forged one may not
        await tell_privately(url, text)
