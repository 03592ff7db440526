"""Budgets: how many messages, and how many model tokens, each person and each channel may
spend per period (BUDGET_* settings; a channel's own in CHANNELS_FILE), counted in the
store so that every instance sees the same counts (SQLite, or Redis with
REDIS_URL: `Ledger`).

Periods are fixed windows in UTC (an hour, a day from midnight, a week from Monday), so
everyone's budget resets at the same, stated time. A message is counted when it is about
to be drafted, and only if no counter it touches is at its limit; its tokens (input,
cached or not, and output, drafts and judge together) are added when it is answered. A
message past a budget gets one short reply saying when the budget resets, and no model
call. A limit of 0 is no limit.

When the store cannot be reached, the message is answered (and the log says so): a
budget bounds spend, it must not stop Vouch while Redis restarts.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime, timedelta
from typing import Literal, Protocol

from app.errors import label
from app.work.store import UNREACHABLE

log = logging.getLogger("vouch.work")

Period = Literal["hour", "day", "week"]
Which = Literal["user_messages", "user_tokens", "channel_messages", "channel_tokens"]
# What a store raises when it cannot be reached: Redis away, a locked or full SQLite file.
Counter = tuple[str, int, int]  # a counter's key, its message limit and its token limit
Spent = Literal["messages", "tokens"]


class Ledger(Protocol):
    """Counters of messages and tokens per window: what budgets need of the store."""

    async def admit(
        self, window: str, counters: Sequence[Counter], until: float
    ) -> tuple[str, Spent] | None:
        """Count one message on each counter, unless one of them is at its message or
        token limit (0: none): then nothing is counted, and that counter's key and which
        limit it is at are returned. Counters are kept until `until` (epoch seconds)."""
        ...

    async def spend(self, window: str, keys: Sequence[str], tokens: int, until: float) -> None:
        """Add `tokens` to each counter."""
        ...

    async def spent(self, window: str, most: int) -> list[tuple[str, int, int]]:
        """(key, messages, tokens) of the window's counters, most messages first."""
        ...


@dataclass(frozen=True, slots=True)
class Limits:
    """Per period; 0: no limit."""

    user_messages: int = 0
    user_tokens: int = 0
    channel_messages: int = 0
    channel_tokens: int = 0

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    def over(self, limits: Limits) -> Limits:
        """These limits, with each one `limits` sets (not 0) in its place."""
        return Limits(*(getattr(limits, f.name) or getattr(self, f.name) for f in fields(self)))


@dataclass(frozen=True, slots=True)
class Over:
    """A message past a budget: which one, its limit, and when it resets (epoch seconds)."""

    which: Which
    limit: int
    resets: float


def window(period: Period, now: float) -> tuple[str, float]:
    """The window `now` is in: its name and when it ends (epoch seconds)."""
    moment = datetime.fromtimestamp(now, UTC)
    if period == "hour":
        start = moment.replace(minute=0, second=0, microsecond=0)
        return start.strftime("h%Y%m%d%H"), (start + timedelta(hours=1)).timestamp()
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "day":
        return day.strftime("d%Y%m%d"), (day + timedelta(days=1)).timestamp()
    monday = day - timedelta(days=day.weekday())
    return monday.strftime("w%Y%m%d"), (monday + timedelta(days=7)).timestamp()


def user_key(team: str, user: str) -> str:
    return f"user:{team}:{user}"


def channel_key(team: str, channel: str) -> str:
    return f"channel:{team}:{channel}"


def counted(key: str) -> tuple[Literal["user", "channel"], str]:
    """Who a counter's key counts: ("user", a user id) or ("channel", a channel id)."""
    kind, _, rest = key.partition(":")
    return ("user" if kind == "user" else "channel"), rest.rpartition(":")[2]


class Budgets:
    """The budgets of every message, kept in a Ledger."""

    def __init__(
        self,
        ledger: Ledger,
        period: Period,
        limits: Limits,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.ledger = ledger
        self.period = period
        self.limits = limits  # the global ones; a channel's own may replace each
        self._clock = clock

    async def admit(self, team: str, channel: str, user: str, own: Limits) -> Over | None:
        """Count a message about to be drafted; Over (nothing counted) when past a budget."""
        limits = self.limits.over(own)
        if not limits:
            return None
        name, ends = window(self.period, self._clock())
        counters = [
            (user_key(team, user), limits.user_messages, limits.user_tokens),
            (channel_key(team, channel), limits.channel_messages, limits.channel_tokens),
        ]
        try:
            full = await self.ledger.admit(name, counters, ends)
        except UNREACHABLE as exc:  # the store is away: answer, and say so
            log.warning("budget not checked (%s): the message is answered", label(exc))
            return None
        if full is None:
            return None
        key, spent = full
        which: Which = f"{key.split(':', 1)[0]}_{spent}"  # type: ignore[assignment]
        return Over(which, getattr(limits, which), ends)

    async def spend(self, team: str, channel: str, user: str, tokens: int, own: Limits) -> None:
        """Add an answered message's tokens to its person's and channel's counters."""
        if not self.limits.over(own) or tokens <= 0:
            return
        name, ends = window(self.period, self._clock())
        keys = [user_key(team, user), channel_key(team, channel)]
        try:
            await self.ledger.spend(name, keys, tokens, ends)
        except UNREACHABLE as exc:
            log.warning("tokens not counted (%s)", label(exc))

    async def use(self, most: int = 10) -> list[tuple[str, int, int]]:
        """This window's counters, most messages first (for the App Home)."""
        return await self.ledger.spent(window(self.period, self._clock())[0], most)


def reply(over: Over, period: Period) -> str:
    """What a person past a budget is told, in mrkdwn (Slack shows the reset time in each
    reader's own time zone); no model call was made."""
    every = {"hour": "an hour", "day": "a day", "week": "a week"}[period]
    who = "You have" if over.which.startswith("user") else "This channel has"
    what = (
        f"its limit of {over.limit:,} question{'s' if over.limit != 1 else ''} to Vouch {every}"
        if over.which.endswith("messages")
        else f"its share of Vouch's model use ({over.limit:,} tokens {every})"
    )
    if who == "You have":
        what = what.replace("its ", "your ", 1)
    stamp = int(over.resets)
    utc = datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%d %H:%M UTC")
    when = f"<!date^{stamp}^{{date_short_pretty}} at {{time}}|{utc}>"
    return f":hourglass: {who} reached {what}. It resets {when}."
