"""An answer's pings and Slack links, checked with Slack before anyone reads them: the
`slack.entities` check of the loop (app/agent/checks.py), run after the rules pass.

- A person may be pinged (`<@U…>`) when they asked, or Slack lists them in the conversation
  (`conversations.members`). Anyone else is written as their name without a ping
  (OUTSIDE_PING, repaired): "@Finn Walsh". So is everyone but the asker when Slack cannot
  say who is in the conversation, and a person whose name cannot be had is "@U0123".
- A user group may be pinged (`<!subteam^S…>`) when every one of its members is in the
  conversation (`usergroups.list` with its users, `usergroups:read`, kept five minutes);
  else it is written as its handle.
- A person, group, channel or Slack message that Slack says does not exist
  (`user_not_found`, not among the groups, `channel_not_found`, a message not there) fails
  the draft with UNKNOWN_ENTITY and is retried, as Slackbot marks invented people and
  channels "not found". What the conversation itself names (the question, the thread, the
  sources' links) is the conversation's own and is not looked up. Where a lookup cannot be
  made (an error, a rate limit, a timeout), nothing fails: the ping is shown as text.

Bounded: at most MAX_LOOKUPS entities looked up per draft, within CHECK_WITHIN seconds.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from slack_sdk.web.async_client import AsyncWebClient

from app.agent.checks import Checked
from app.errors import label
from app.slack.audience import Where
from app.slack.conversations import Conversations
from app.slack.errors import SLACK_FAILURES
from app.slack.people import People
from app.verify import Dialect, Source
from app.verify.codes import issue
from app.verify.mentions import Mentions, Message, mentions, unping

log = logging.getLogger("vouch.slack")

MAX_LOOKUPS = 20  # entities looked up per draft; the rest are unchecked (pings as text)
CHECK_WITHIN = 5.0  # seconds for all of a draft's lookups
GROUPS_KEEP = 300.0  # seconds the workspace's user groups are kept
GONE = frozenset({"channel_not_found", "not_in_channel", "thread_not_found"})


@dataclass(frozen=True, slots=True)
class Group:
    handle: str
    members: frozenset[str]


class Groups:
    """The workspace's user groups, with their members (usergroups.list), kept briefly."""

    def __init__(self, client: AsyncWebClient, clock: Callable[[], float] = time.monotonic):
        self._client = client
        self._clock = clock
        self._kept: tuple[dict[str, Group] | None, float] = (None, 0.0)

    async def all(self) -> dict[str, Group] | None:
        """Groups by id; None when Slack did not say."""
        groups, until = self._kept
        if until > self._clock():
            return groups
        try:
            response = await self._client.usergroups_list(include_users=True)
        except SLACK_FAILURES as exc:
            log.info("usergroups.list refused: %s", label(exc))
            self._kept = (None, self._clock() + 10.0)
            return None
        groups = {
            g["id"]: Group(str(g.get("handle") or "group"), frozenset(g.get("users") or ()))
            for g in response.get("usergroups") or ()
            if isinstance(g, dict) and isinstance(g.get("id"), str)
        }
        self._kept = (groups, self._clock() + GROUPS_KEEP)
        return groups


@dataclass(frozen=True, slots=True)
class Lookups:
    """What the check asks Slack with, made once: a client that does not wait out rate
    limits, names, conversations and groups (each kept briefly)."""

    client: AsyncWebClient
    people: People
    conversations: Conversations
    groups: Groups

    def check(self, where: Where, given: Sequence[str]) -> Entities:
        """The check of one message's drafts: answered at `where`; `given` is the text of
        the conversation (the question, the thread)."""
        return Entities(self, where, "\n".join(given))


class Entities:
    """The check (structurally an app.agent.checks.Check) for one message's drafts."""

    name = "slack.entities"

    def __init__(self, lookups: Lookups, where: Where, given: str) -> None:
        self.client = lookups.client
        self.people = lookups.people
        self.conversations = lookups.conversations
        self.groups = lookups.groups
        self.where = where
        self.given = given  # the conversation's own text: what it names is real

    async def __call__(self, text: str, dialect: Dialect, sources: Sequence[Source]) -> Checked:
        found = mentions(text)
        if not (found.users or found.groups or found.channels or found.messages):
            return Checked(text)
        try:
            async with asyncio.timeout(CHECK_WITHIN):
                return await self._check(text, dialect, found, sources)
        except TimeoutError:
            log.warning("entities: lookups took over %.0f s; pings shown as text", CHECK_WITHIN)
            names = {u: u for u in found.users - {self.where.asker}}
            names |= dict.fromkeys(found.groups, "group")
            return self._result(text, dialect, names, unknown=0, unchecked=len(names))

    async def _check(
        self, text: str, dialect: Dialect, found: Mentions, sources: Sequence[Source]
    ) -> Checked:
        members = await self.conversations.members(self.where.channel)
        outside = sorted(found.users - {self.where.asker} - (members or frozenset()))
        names = await self.people.names(outside[:MAX_LOOKUPS])
        missing = await self.people.missing(u for u in outside[:MAX_LOOKUPS] if not self._own(u))
        unping_as = {u: names.get(u, u) for u in outside if u not in missing}
        groups, gone_groups = await self._groups(found.groups, members)
        unping_as |= groups
        gone = len(missing) + gone_groups
        gone += sum([await self._absent(c) for c in sorted(found.channels)[:MAX_LOOKUPS]])
        linked = {s.url for s in sources if s.url}
        messages = [m for m in found.messages if m.url not in linked and not self._own(m.url)]
        gone += sum([await self._lost(m) for m in messages[:MAX_LOOKUPS]])
        unchecked = max(0, len(outside) - MAX_LOOKUPS) + max(0, len(messages) - MAX_LOOKUPS)
        return self._result(text, dialect, unping_as, unknown=gone, unchecked=unchecked)

    def _result(
        self, text: str, dialect: Dialect, names: dict[str, str], *, unknown: int, unchecked: int
    ) -> Checked:
        rewritten = unping(text, names, dialect) if names else text
        return Checked(
            rewritten,
            repaired=("OUTSIDE_PING",) if rewritten != text else (),
            issues=(issue("UNKNOWN_ENTITY", detail=f"({unknown} found)"),) if unknown else (),
            counts=(("unpinged", len(names)), ("not_found", unknown), ("unchecked", unchecked)),
        )

    async def _groups(
        self, wanted: frozenset[str], members: frozenset[str] | None
    ) -> tuple[dict[str, str], int]:
        """(groups to write as text, by handle; how many do not exist)."""
        if not wanted:
            return {}, 0
        known = await self.groups.all()
        if known is None:
            return dict.fromkeys(wanted, "group"), 0
        text = {
            g: known[g].handle
            for g in wanted
            if g in known and (members is None or not known[g].members <= members)
        }
        return text, sum(1 for g in wanted if g not in known and not self._own(g))

    async def _absent(self, channel: str) -> bool:
        return not self._own(channel) and await self.conversations.absent(channel)

    async def _lost(self, message: Message) -> bool:
        """Whether Slack says the linked message is not there (False: it is, or Slack did
        not say)."""
        try:
            if message.thread == message.ts:
                response = await self.client.conversations_history(
                    channel=message.channel, latest=message.ts, inclusive=True, limit=1
                )
            else:
                response = await self.client.conversations_replies(
                    channel=message.channel, ts=message.thread, latest=message.ts, inclusive=True
                )
        except SLACK_FAILURES as exc:
            return label(exc) in GONE
        read = response.get("messages") or ()
        if any(isinstance(m, dict) and m.get("ts") == message.ts for m in read):
            return False
        if message.thread == message.ts:  # history from its ts: it is first, or not there
            return True
        more = response.get("has_more") or (response.get("response_metadata") or {}).get(
            "next_cursor"
        )
        return not more  # a thread paged (15 messages for some apps): not known to be missing

    def _own(self, name: str) -> bool:
        return name in self.given
