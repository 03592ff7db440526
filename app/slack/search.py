"""Slack's Real-time Search API (`assistant.search.context`) as a tool the model may call:
a search of the workspace's public channels for messages about the question, run as the
person who asked. Slack allows it only where the workspace has it on, only with the
`action_token` of the event being answered (a short-lived token Slack puts in
`assistant_thread.action_token` of message and app_mention events), and only with
`search:read.public`. So it is offered behind SLACK_SEARCH, to messages whose event
carried a token; whatever Slack refuses (an expired token, a workspace without the API,
its rate limit of about ten searches a minute) is an error the model reads.

Slack answers with what the *asker* may see, and the answer is read by everyone in its
conversation: each result's conversation is put to the audience rule (app/slack/audience.py),
and a result it refuses is left out, unread by the model (into a Slack Connect channel,
none of another conversation's messages).

What it finds are sources like a linked thread: cited, quoted and linked by permalink.
Vouch's own answers are left out (an answer is not a source for itself), and so is the
message being answered. The response is read defensively: a result missing its channel,
time stamp or text is skipped, never a crash."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from app.agent.tools import ToolRefused
from app.slack.audience import Audience, Where
from app.slack.people import People
from app.slack.thread import mentioned, named
from app.verify import Source

MAX_RESULTS = 10  # messages asked for per search (Slack gives at most 20)
MAX_CHARS = 2_000  # of one message's text
MAX_QUERY = 500  # characters of the model's query sent to Slack


def action_token(event: Mapping[str, Any]) -> str | None:
    """The event's Real-time Search token, if Slack sent one."""
    thread = event.get("assistant_thread")
    token = thread.get("action_token") if isinstance(thread, Mapping) else None
    token = token if token is not None else event.get("action_token")
    return token if isinstance(token, str) and token.strip() else None


@dataclass(frozen=True, slots=True)
class Found:
    """One message of a search's results, as far as it could be read."""

    channel: str
    ts: str
    text: str
    author: str  # a user id, or "" when the result names none
    permalink: str | None


def found_messages(response: Any) -> list[Found]:
    """The messages of an `assistant.search.context` response, in Slack's order, each once;
    results without a channel, time stamp or text are left out."""
    results = response.get("results") if isinstance(response, Mapping) else None
    messages = results.get("messages") if isinstance(results, Mapping) else None
    found: list[Found] = []
    seen: set[tuple[str, str]] = set()
    for message in messages if isinstance(messages, list) else ():
        if not isinstance(message, Mapping):
            continue
        channel, ts = message.get("channel_id"), message.get("message_ts")
        text, author = message.get("content"), message.get("author_user_id")
        link = message.get("permalink")
        if not (_filled(channel) and _filled(ts) and _filled(text)) or (channel, ts) in seen:
            continue
        seen.add((channel, ts))
        found.append(
            Found(
                channel=channel,
                ts=ts,
                text=text,
                author=author if isinstance(author, str) else "",
                permalink=link if isinstance(link, str) and link.startswith("https://") else None,
            )
        )
    return found


def _channels(found: Sequence[Found]) -> list[str]:
    """The conversations of the results, each once, in order."""
    return list(dict.fromkeys(f.channel for f in found))


def _filled(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and bool(value.strip())


class SlackSearch:
    """The `search_slack` tool (structurally an app.agent.tools.Tool)."""

    name = "search_slack"
    description = (
        "Search the messages of the Slack workspace's public channels, as the person asking "
        "would. Use it when the question is about something discussed in Slack that the "
        "conversation does not show, with a few keywords. Returns matching messages, or none."
    )
    input_schema: dict[str, Any] = {  # noqa: RUF012 (read, never changed)
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for, in a few words."}
        },
        "required": ["query"],
    }

    def __init__(
        self,
        client: AsyncWebClient,
        people: People,
        token: str,
        audience: Audience,
        where: Where,
        *,
        skip: Iterable[str] = (),
        current: tuple[str, str] | None = None,
    ) -> None:
        self.client = client
        self.people = people
        self.token = token
        self.audience = audience
        self.where = where
        self.skip = frozenset(skip)  # authors left out: Vouch itself
        self.current = current  # (channel, ts) of the message being answered

    async def run(self, arguments: Mapping[str, Any]) -> Sequence[Source]:
        query = arguments.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ToolRefused("no_query")
        try:
            response = await self.client.assistant_search_context(
                query=query.strip()[:MAX_QUERY],
                action_token=self.token,
                channel_types=["public_channel"],
                content_types=["messages"],
                limit=MAX_RESULTS,
            )
        except SlackApiError as exc:
            error = exc.response.get("error") if exc.response is not None else None
            raise ToolRefused(error if isinstance(error, str) else "slack_error") from None
        found = [
            f
            for f in found_messages(response.data)
            if f.author not in self.skip and (f.channel, f.ts) != self.current
        ][:MAX_RESULTS]
        shown = {c: await self.audience.check(c, self.where) is None for c in _channels(found)}
        kept = [f for f in found if shown[f.channel]]
        people = {f.author for f in kept} | mentioned(f.text for f in kept)
        names = await self.people.names(p for p in people if p)
        return [
            Source(
                f"slack-search:{f.channel}:{f.ts}",
                "Slack message",
                f.permalink,
                f"{names.get(f.author, 'someone')}: {named(f.text, names)}"[:MAX_CHARS],
            )
            for f in kept
        ]
