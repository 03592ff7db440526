"""A Slack message or thread that a question links to, as a tool the model may call: read
with the bot's own token (`conversations.replies`), and only where everyone who will read
the answer may read it too (app/slack/audience.py: asked before anything is read; a DM of
another person, a private channel the asker is not in, anything into a Slack Connect
channel, or a conversation Slack says nothing of, is refused). A channel Vouch is not in,
or another workspace, is refused by Slack. Refusals are told to the model as an error.
What it reads is a source whose URL is the link, so the answer may cite it and link it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qs, urlsplit

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from app.agent.tools import ToolRefused
from app.slack.audience import Audience, Where
from app.slack.people import People
from app.slack.thread import mentioned, named
from app.verify import Source
from app.verify.mentions import PERMALINK

MAX_MESSAGES = 50  # of a linked thread, oldest first
MAX_CHARS = 12_000  # of its text


def links_in(texts: Sequence[str]) -> bool:
    """Whether any of `texts` links a Slack message (the tool is offered only then)."""
    return any(PERMALINK.search(text) for text in texts)


class SlackReader:
    """The `read_slack_link` tool (structurally an app.agent.tools.Tool)."""

    name = "read_slack_link"
    description = (
        "Read the Slack message a link in the conversation points at "
        "(https://…slack.com/archives/…), with its thread. Use it when the question refers "
        "to a linked message. Only channels Vouch is in can be read."
    )
    input_schema: dict[str, Any] = {  # noqa: RUF012 (read, never changed)
        "type": "object",
        "properties": {"url": {"type": "string", "description": "The message's Slack link."}},
        "required": ["url"],
    }

    def __init__(
        self, client: AsyncWebClient, people: People, audience: Audience, where: Where
    ) -> None:
        self.client = client
        self.people = people
        self.audience = audience
        self.where = where  # where the answer goes, and who asked

    async def run(self, arguments: Mapping[str, Any]) -> Sequence[Source]:
        url = arguments.get("url")
        found = PERMALINK.fullmatch(url.strip()) if isinstance(url, str) else None
        if found is None:
            raise ToolRefused("not_a_slack_message_link")
        channel, digits = found.group(1), found.group(2)
        ts = f"{digits[:10]}.{digits[10:]}"
        thread_ts = parse_qs(urlsplit(found.group(0)).query).get("thread_ts", [ts])[0]
        refused = await self.audience.check(channel, self.where)
        if refused is not None:
            raise ToolRefused(refused)  # nothing read
        try:
            response = await self.client.conversations_replies(
                channel=channel, ts=thread_ts, limit=MAX_MESSAGES
            )
        except SlackApiError as exc:
            error = exc.response.get("error") if exc.response is not None else None
            raise ToolRefused(error if isinstance(error, str) else "slack_error") from None
        messages = [m for m in response.get("messages") or () if isinstance(m, dict)]
        if not messages:
            raise ToolRefused("message_not_found")
        people = {m.get("user") for m in messages}
        people |= mentioned(str(m.get("text", "")) for m in messages)
        names = await self.people.names(p for p in people if isinstance(p, str))
        lines = []
        for message in messages[:MAX_MESSAGES]:
            who = names.get(str(message.get("user")), "someone")
            lines.append(f"{who}: {named(str(message.get('text', '')), names)}")
        text = "\n\n".join(lines)[:MAX_CHARS]
        return [Source(f"slack:{channel}:{thread_ts}", "Linked Slack thread", found.group(0), text)]
