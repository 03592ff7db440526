"""Put an Outcome's text into Slack: only that text, only once.

mrkdwn: chat.postMessage in the thread, revealed in two large steps with chat.update;
longer answers continue in new messages. markdown: Slack's chat streaming with a few large
appends, a new message before the streamed-message cap, and chat.update when a stream has
expired; a stream the user stopped ends the delivery (StoppedByUser). The last message
carries 👍/👎 feedback buttons.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import aiohttp
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from app.agent.outcome import Outcome
from app.errors import label
from app.slack.errors import SLACK_FAILURES, StoppedByUser, stopped_by_user
from app.slack.split import split, steps_of
from app.verify import Dialect, failure_message

MRKDWN_PIECE = 3000  # one section block (3,000 max); under Slack's ~3,500 safe text size
STREAM_PIECE = 9000  # roll over well before a streamed message fails at ~11-12k
REVEAL_FROM = 600  # shorter answers are posted in one step
FEEDBACK_ACTION = "vouch_feedback"
ESCALATE_ACTION = "vouch_escalate"
log = logging.getLogger("vouch.slack")


@dataclass(frozen=True, slots=True)
class Target:
    """Where an answer goes: the thread of the user's message ("": the channel itself, for
    an answer shared there)."""

    team: str
    channel: str
    thread_ts: str
    user: str

    @property
    def is_dm(self) -> bool:
        return self.channel.startswith("D")


@dataclass(frozen=True, slots=True)
class Opened:
    """A streamed message already started in the answer's thread (app/slack/steps.py: the
    loop's steps), and the chunks not sent yet: the answer goes into it."""

    ts: str
    chunks: tuple[dict[str, Any], ...] = ()


# Every post sets unfurl_links and unfurl_media off: Slack fetches nothing an answer links
# to (a link's query string could carry data to whoever serves it) and shows no preview
# (a message link's preview quotes the message).
ANSWER_EVENT = "vouch_answer"  # message metadata on an answer: which message it answers


def answer_mark(message_ts: str) -> dict[str, Any]:
    """The metadata on an answer's first message, naming the message it answers (its ts
    only), so a worker that takes a message over can see it was answered already."""
    return {"event_type": ANSWER_EVENT, "event_payload": {"message_ts": message_ts}}


def receipt(outcome: Outcome) -> str:
    """What was checked, for the reader: the checks that ran and passed, never content
    ("Checked: formatting · 2 sources cited · reviewed")."""
    checks = ["formatting"]  # the rules: formatting, coherence, language, safety
    if outcome.cited:
        count = len(outcome.cited)
        checks.append(f"{count} source{'s' if count > 1 else ''} cited")
    if outcome.attempts and outcome.attempts[-1].judge == "passed":
        checks.append("reviewed")
    return "Checked: " + " · ".join(checks)


async def deliver(
    client: AsyncWebClient,
    target: Target,
    text: str,
    dialect: Dialect,
    reference: str,
    *,
    answers: str = "",
    checked: str = "",
    person: bool = False,
    opened: Opened | None = None,
    posted: list[str] | None = None,
    credit: str = "",
) -> list[str]:
    """Post `text` (already verified) and return the ts of each message posted (also put
    in `posted` as each is, so a caller knows what went before a failure); the first
    carries `answer_mark(answers)` when `answers` (the user message's ts) is given, and
    `credit` (mrkdwn only: who shared it) as a context line above it; the last, `checked`
    (the receipt) as a quiet context line above the feedback buttons, and with `person` an
    "Ask a person" button beside them (for the message `answers`). A markdown answer's
    first piece goes into the `opened` stream when there is one."""
    mark = answer_mark(answers) if answers else None
    extras = {"checked": checked, "person": answers if person else ""}
    into = [] if posted is None else posted
    if dialect == "mrkdwn":
        return await _post(
            client, target, text, reference, mark=mark, posted=into, credit=credit, **extras
        )
    if credit:
        raise ValueError("a credit line is posted with mrkdwn answers only")
    return await _stream(
        client, target, text, reference, mark=mark, opened=opened, posted=into, **extras
    )


async def _post(
    client: AsyncWebClient,
    target: Target,
    text: str,
    reference: str,
    *,
    mark: dict[str, Any] | None,
    checked: str,
    person: str,
    posted: list[str],
    credit: str,
) -> list[str]:
    pieces = split(text, MRKDWN_PIECE)
    for index, piece in enumerate(pieces):
        last = index == len(pieces) - 1
        steps = steps_of(piece, 2) if len(piece) >= REVEAL_FROM else [piece]
        metadata = mark if index == 0 else None
        # the credit above the first piece, the buttons under the last; None: the text
        above = _context(credit) if index == 0 and credit else []
        buttons = feedback_blocks(piece, reference, checked, person) if last else []
        whole, start = _blocks(piece, above, buttons, last), _blocks(steps[0], above, [], False)
        # "": a new message in the channel, and the rest of a long answer in its thread
        thread = target.thread_ts or (posted[0] if posted else None)
        if len(steps) == 1:
            response = await client.chat_postMessage(
                channel=target.channel,
                thread_ts=thread,
                text=piece,
                blocks=whole,
                metadata=metadata,
                unfurl_links=False,  # no preview, no fetch (the note above)
                unfurl_media=False,
            )
            posted.append(str(response["ts"]))
        else:  # show the first half, then the whole
            response = await client.chat_postMessage(
                channel=target.channel,
                thread_ts=thread,
                text=steps[0],
                blocks=start,
                metadata=metadata,
                unfurl_links=False,  # no preview, no fetch (the note above)
                unfurl_media=False,
            )
            posted.append(str(response["ts"]))
            await client.chat_update(
                channel=target.channel,
                ts=response["ts"],
                text=piece,
                blocks=whole,
            )
    return posted


async def _stream(
    client: AsyncWebClient,
    target: Target,
    text: str,
    reference: str,
    *,
    mark: dict[str, Any] | None,
    checked: str,
    person: str,
    opened: Opened | None,
    posted: list[str],
) -> list[str]:
    # recipients are required in channels, not in DMs
    team = None if target.is_dm else target.team
    user = None if target.is_dm else target.user
    pieces = split(text, STREAM_PIECE)
    for index, piece in enumerate(pieces):
        chunks = steps_of(piece, 3)
        first: tuple[dict[str, Any], ...] = ()  # what goes with the first text appended
        if index == 0 and opened is not None:  # into the message showing the steps
            ts, first = opened.ts, opened.chunks
        else:
            started = await client.chat_startStream(
                channel=target.channel,
                thread_ts=target.thread_ts,
                markdown_text=chunks[0],
                recipient_team_id=team,
                recipient_user_id=user,
            )
            ts, chunks = str(started["ts"]), chunks[1:]
        posted.append(ts)
        last = index == len(pieces) - 1
        blocks = _buttons(reference, checked, person) if last else None
        metadata = mark if index == 0 else None
        try:
            for number, chunk in enumerate(chunks):
                if number == 0 and first:  # chunks and markdown_text go in one call only apart
                    text_chunk = {"type": "markdown_text", "text": chunk}
                    await client.chat_appendStream(
                        channel=target.channel, ts=ts, chunks=[*first, text_chunk]
                    )
                else:
                    await client.chat_appendStream(
                        channel=target.channel, ts=ts, markdown_text=chunk
                    )
            await client.chat_stopStream(
                channel=target.channel, ts=ts, blocks=blocks, metadata=metadata
            )
        except SLACK_FAILURES as exc:
            if stopped_by_user(exc):
                raise StoppedByUser from None
            log.warning("stream broke (%s): completing it with chat.update", label(exc))
            await _complete(client, target.channel, ts, piece, blocks, metadata=metadata)
    return posted


async def _complete(
    client: AsyncWebClient,
    channel: str,
    ts: str,
    piece: str,
    blocks: list[dict[str, Any]] | None,
    *,
    metadata: dict[str, Any] | None = None,
) -> None:
    """A stream broke (or expired) after it started: end it, then put the whole piece in
    with chat.update (Slack refuses to update a message that is still streaming), with the
    answer's mark when it is the first message. Slack takes `markdown_text` only alone
    (with `blocks` it answers markdown_text_conflict), so with the feedback buttons the
    piece goes in a `markdown` block, same dialect."""
    try:
        await client.chat_stopStream(channel=channel, ts=ts)
    except SLACK_FAILURES as exc:  # e.g. message_not_in_streaming_state: already ended
        log.info("stream not stopped: %s", label(exc))
    if blocks is None:
        await client.chat_update(channel=channel, ts=ts, markdown_text=piece, metadata=metadata)
    else:
        markdown = {"type": "markdown", "text": piece}
        await client.chat_update(
            channel=channel, ts=ts, text=piece, blocks=[markdown, *blocks], metadata=metadata
        )


WHY = "What was wrong with this answer?"
REASON_ACTION = "vouch_reason"
REASON_LABELS = {
    "wrong": "Wrong",
    "outdated": "Outdated",
    "not_asked": "Not what I asked",
    "formatting": "Formatting",
    "other": "Other",
}


async def post_plain(
    client: AsyncWebClient,
    target: Target,
    text: str,
    *,
    answers: str,
    blocks: list[dict[str, Any]] | None = None,
) -> list[str]:
    """Post fixed text (a failure, a budget, "what would you like to know?") in the
    thread, marked as the reply to message `answers`; the ts posted (none when Slack
    refused it)."""
    try:
        response = await client.chat_postMessage(
            channel=target.channel,
            thread_ts=target.thread_ts,
            text=text,
            blocks=blocks,
            metadata=answer_mark(answers),
            unfurl_links=False,
            unfurl_media=False,
        )
    except SLACK_FAILURES as exc:
        log.error("reply failed: %s", label(exc))
        return []
    return [str(response["ts"])]


async def tell_failure(
    client: AsyncWebClient,
    target: Target,
    *,
    dialect: Dialect,
    reference: str,
    answers: str,
    group: str | None,
    opened: Opened | None = None,
) -> None:
    """The failure message, with the reference a maintainer can look up (and, with a
    group to ask, the "Ask a person" button); nothing of any attempt. Into the `opened`
    stream (the steps shown) when there is one."""
    text = failure_message(dialect, reference)
    if opened is not None:
        try:
            await deliver(
                client,
                target,
                text,
                "markdown",
                reference,
                answers=answers,
                person=group is not None,
                opened=opened,
            )
        except StoppedByUser:
            log.info("failure not told: the user stopped the answer")
        except SLACK_FAILURES as exc:
            log.error("reply failed: %s", label(exc))
        return
    blocks = person_blocks(text, reference, answers) if group is not None else None
    await post_plain(client, target, text, answers=answers, blocks=blocks)


def reason_blocks(reference: str, answered: str) -> list[dict[str, Any]]:
    """The 👎 question's fixed choices; the block names the answer (trace id and ts)."""
    buttons = [
        {
            "type": "button",
            "text": {"type": "plain_text", "text": label_text},
            "action_id": f"{REASON_ACTION}_{value}",
            "value": value,
        }
        for value, label_text in REASON_LABELS.items()
    ]
    question = {"type": "section", "text": {"type": "mrkdwn", "text": WHY}}
    return [
        question,
        {"type": "actions", "block_id": f"reason:{reference}:{answered}", "elements": buttons},
    ]


def feedback_blocks(
    text: str, reference: str, checked: str = "", person: str = ""
) -> list[dict[str, Any]]:
    return [_section(text), *_buttons(reference, checked, person)]


def _blocks(
    text: str, above: list[dict[str, Any]], buttons: list[dict[str, Any]], last: bool
) -> list[dict[str, Any]] | None:
    """A piece's blocks: what goes above it, then the piece with its buttons when it is
    the last; None when there is neither (Slack shows the message's text)."""
    if last:
        return [*above, *buttons]
    return [*above, _section(text)] if above else None


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _context(text: str) -> list[dict[str, Any]]:
    """A quiet line of mrkdwn (a receipt, a credit)."""
    return [{"type": "context", "elements": [{"type": "mrkdwn", "text": text}]}]


def person_blocks(text: str, reference: str, question: str) -> list[dict[str, Any]]:
    """A canned reply with only the "Ask a person" button (for the message `asked`)."""
    section = {"type": "section", "text": {"type": "mrkdwn", "text": text}}
    elements = [_person_button(question)]
    return [section, {"type": "actions", "block_id": f"escalate:{reference}", "elements": elements}]


def _person_button(question: str) -> dict[str, Any]:
    return {
        "type": "button",
        "text": {"type": "plain_text", "text": "🙋 Ask a person", "emoji": True},
        "action_id": ESCALATE_ACTION,
        "value": question,
    }


def _buttons(reference: str, checked: str = "", person: str = "") -> list[dict[str, Any]]:
    """The receipt (a context line, when given), then the 👍/👎 buttons (and "Ask a
    person" for the message `person`, when given)."""
    line = _context(checked)

    def button(emoji: str, label: str, value: str) -> dict[str, Any]:
        return {
            "type": "button",
            "text": {"type": "plain_text", "text": f"{emoji} {label}", "emoji": True},
            "action_id": f"{FEEDBACK_ACTION}_{value}",
            "value": value,
        }

    return [
        *(line if checked else []),
        {
            "type": "actions",
            "block_id": f"feedback:{reference}",
            "elements": [
                button("👍", "Helpful", "up"),
                button("👎", "Not helpful", "down"),
                *([_person_button(person)] if person else []),
            ],
        },
    ]


PRIVATE_TIMEOUT = 10  # seconds a response_url gets to take a message


async def tell_privately(url: str, text: str) -> None:
    """A message only the person behind an interaction sees, through its `response_url`
    (Slack takes one for 30 minutes, 5 times; no membership needed), as a new message:
    a click's URL may otherwise replace the message clicked (Slack's default there)."""
    await respond(url, text=text, response_type="ephemeral", replace_original=False)


async def respond(url: str, **message: Any) -> bool:
    """POST a message (or `delete_original`) to a `response_url`; whether Slack took it.
    Failing to is logged by status or type, never with the URL (it is a credential for
    that person's view)."""
    try:
        response = await AsyncWebhookClient(url, timeout=PRIVATE_TIMEOUT).send_dict(message)
    except (aiohttp.ClientError, TimeoutError) as exc:
        log.warning("private reply not sent: %s", type(exc).__name__)
        return False
    if response.status_code != 200:
        log.warning("private reply refused: HTTP %d", response.status_code)
        return False
    return True
