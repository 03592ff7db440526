"""What Slack says a conversation is, and who is in it: `conversations.info` and
`conversations.members` (scopes channels:read, groups:read, im:read, mpim:read), asked with
a client that does not wait out rate limits, each answer kept for KEEP seconds in a
bounded cache. Slack's refusal (an error, a rate limit, a timeout) is kept too, for a
shorter time, and read as "unknown": the callers fail closed on it (app/slack/audience.py).

A conversation's privacy and sharing are read from `is_private`, `is_im`, `is_mpim` and the
sharing flags, as Slack's Slack Connect guide says to (ids' prefixes are not reliable)."""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from slack_sdk.web.async_client import AsyncWebClient

from app.errors import label
from app.slack.errors import SLACK_FAILURES

log = logging.getLogger("vouch.slack")

Kind = Literal["public", "private", "im", "mpim"]
KEEP = 60.0  # seconds an answer is kept: a person who leaves a channel is out within it
KEEP_UNKNOWN = 10.0  # seconds a refusal is kept (not asked again at once)
SIZE = 2_000  # conversations kept, least recently used dropped first
PAGE = 999  # conversations.members: "a limit value under 1000"
PAGES = 10  # past 9,990 members, who is in a conversation is unknown
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Place:
    """A conversation, as conversations.info describes it."""

    id: str
    kind: Kind
    team: str  # the workspace it belongs to (context_team_id; "" when Slack gives none)
    shared: bool  # with other workspaces or organisations in any way (or about to be)
    external: bool  # with another organisation: Slack Connect (or about to be)
    user: str = ""  # an im's person (the one who is not the bot)
    member: bool = True  # Vouch is in it (`is_member`; absent: taken as in)


def place_of(channel: dict[str, Any]) -> Place | None:
    """A conversations.info `channel` object as a Place (None when it lacks its id)."""
    if not isinstance(channel.get("id"), str):
        return None
    flag = {name: channel.get(name) is True for name in _FLAGS}
    kind: Kind = (
        "im"
        if flag["is_im"]
        else "mpim"
        if flag["is_mpim"]
        else "private"
        if flag["is_private"] or channel.get("is_private") is None
        else "public"
    )
    external = flag["is_ext_shared"] or flag["is_pending_ext_shared"]
    pending = channel.get("pending_shared")
    shared = external or flag["is_shared"] or flag["is_org_shared"] or bool(pending)
    team = channel.get("context_team_id")
    user = channel.get("user")
    return Place(
        channel["id"],
        kind,
        team if isinstance(team, str) else "",
        shared,
        external,
        user if isinstance(user, str) else "",
        channel.get("is_member") is not False,
    )


_FLAGS = (
    "is_im",
    "is_mpim",
    "is_private",
    "is_shared",
    "is_ext_shared",
    "is_org_shared",
    "is_pending_ext_shared",
)


class _Kept(Generic[T]):
    """Answers by conversation id, each until its time; None is kept as "unknown"."""

    def __init__(self, clock: Callable[[], float], size: int) -> None:
        self._clock = clock
        self._size = size
        self._items: OrderedDict[str, tuple[T | None, float]] = OrderedDict()

    async def get(self, key: str, ask: Callable[[], Awaitable[T | None]]) -> T | None:
        kept = self._items.get(key)
        if kept is not None and kept[1] > self._clock():
            self._items.move_to_end(key)
            return kept[0]
        value = await ask()
        until = self._clock() + (KEEP if value is not None else KEEP_UNKNOWN)
        self._items[key] = (value, until)
        self._items.move_to_end(key)
        while len(self._items) > self._size:
            self._items.popitem(last=False)
        return value


@dataclass(frozen=True, slots=True)
class Absent:
    """Slack's answer `channel_not_found`: no such conversation, or none Vouch may know of."""


class Conversations:
    """conversations.info and conversations.members, kept briefly."""

    def __init__(self, client: AsyncWebClient, clock: Callable[[], float] = time.monotonic) -> None:
        self._client = client
        self._places = _Kept[Place | Absent](clock, SIZE)
        self._members = _Kept[frozenset[str]](clock, SIZE)

    async def place(self, channel: str) -> Place | None:
        """What the conversation is; None when Slack did not say (not found, refused)."""
        found = await self._places.get(channel, lambda: self._info(channel))
        return found if isinstance(found, Place) else None

    async def absent(self, channel: str) -> bool:
        """Whether Slack says there is no such conversation (or none Vouch may know of:
        `channel_not_found` means both); False when it described it or did not answer."""
        found = await self._places.get(channel, lambda: self._info(channel))
        return isinstance(found, Absent)

    async def outside(self, channel: str) -> bool:
        """Whether Vouch is not in the conversation, as far as Slack says: it says there
        is none Vouch may know of, or that Vouch is not a member. Unknown is not outside."""
        if await self.absent(channel):
            return True
        place = await self.place(channel)
        return place is not None and not place.member

    async def members(self, channel: str) -> frozenset[str] | None:
        """Who is in it (user ids); None when Slack did not say all of them."""
        return await self._members.get(channel, lambda: self._list(channel))

    async def _info(self, channel: str) -> Place | Absent | None:
        try:
            response = await self._client.conversations_info(channel=channel)
        except SLACK_FAILURES as exc:
            log.info("conversations.info refused: %s", label(exc))
            return Absent() if label(exc) == "channel_not_found" else None
        found = response.get("channel")
        return place_of(found) if isinstance(found, dict) else None

    async def _list(self, channel: str) -> frozenset[str] | None:
        members: set[str] = set()
        cursor = None
        for _ in range(PAGES):
            try:
                response = await self._client.conversations_members(
                    channel=channel, limit=PAGE, cursor=cursor
                )
            except SLACK_FAILURES as exc:
                log.info("conversations.members refused: %s", label(exc))
                return None
            members.update(m for m in response.get("members") or () if isinstance(m, str))
            cursor = (response.get("response_metadata") or {}).get("next_cursor")
            if not cursor:
                return frozenset(members)
        log.info("conversations.members: over %d members, membership unknown", PAGE * PAGES)
        return None
