"""Budgets: fixed windows in UTC, counted in the durable record — SQLite, and a real Redis
shared by several instances — atomically, past a limit nothing more counted."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.work.budget import Budgets, Limits, Over, reply, window
from app.work.redis_store import RedisStore
from app.work.sqlite_store import SqliteStore
from tests.redis_server import RedisServer

NOW = datetime(2026, 11, 26, 17, 45, 12, tzinfo=UTC).timestamp()  # a Thursday
# Stores expire a window's counters at its end by the real clock, so the tests that count
# run at a Thursday 17:45:12 next week: always ahead of the real clock, never crossing into
# a window that has already ended (as NOW would once the real date is past it).
LATER = window("week", time.time())[1] + 3 * 86400 + 17 * 3600 + 45 * 60 + 12


def test_windows_are_fixed_in_utc() -> None:
    assert window("hour", NOW) == (
        "h2026112617",
        datetime(2026, 11, 26, 18, tzinfo=UTC).timestamp(),
    )
    assert window("day", NOW) == ("d20261126", datetime(2026, 11, 27, tzinfo=UTC).timestamp())
    assert window("week", NOW) == ("w20261123", datetime(2026, 11, 30, tzinfo=UTC).timestamp())
    assert window("day", datetime(2026, 11, 27, tzinfo=UTC).timestamp())[0] == "d20261127"


def test_a_channels_own_limits_replace_the_ones_they_set() -> None:
    assert Limits(10, 0, 100, 0).over(Limits(user_messages=3)) == Limits(3, 0, 100, 0)
    assert not Limits() and Limits(channel_tokens=1)


def test_the_reply_says_what_was_reached_and_when_it_resets_in_the_readers_time() -> None:
    resets = datetime(2026, 11, 27, tzinfo=UTC).timestamp()
    told = reply(Over("user_messages", 50, resets), "day")
    assert told == (
        ":hourglass: You have reached your limit of 50 questions to Vouch a day. It resets "
        f"<!date^{int(resets)}^{{date_short_pretty}} at {{time}}|2026-11-27 00:00 UTC>."
    )
    told = reply(Over("channel_tokens", 200_000, resets), "week")
    assert told.startswith(":hourglass: This channel has reached its share of Vouch's model use")
    assert "(200,000 tokens a week)" in told


@pytest.fixture(params=["sqlite", "redis"])
async def ledger(
    request: pytest.FixtureRequest, tmp_path: Path, redis: RedisServer
) -> AsyncIterator[SqliteStore | RedisStore]:
    store = (
        SqliteStore(tmp_path / "store.sqlite3", ttl=60)
        if request.param == "sqlite"
        else RedisStore(redis.url, ttl=60)
    )
    yield store
    await store.close()


async def test_messages_are_counted_until_a_limit_and_then_none_more(
    ledger: SqliteStore | RedisStore,
) -> None:
    budgets = Budgets(ledger, "day", Limits(user_messages=3, channel_messages=5), lambda: LATER)
    own = Limits()
    admitted = [await budgets.admit("T1", "C1", "U1", own) for _ in range(4)]
    assert admitted[:3] == [None, None, None]
    assert admitted[3] == Over("user_messages", 3, window("day", LATER)[1])
    assert await budgets.admit("T1", "C1", "U2", own) is None  # another person: 4 in C1
    assert await budgets.admit("T1", "C1", "U3", own) is None  # 5 in C1
    assert await budgets.admit("T1", "C1", "U4", own) == Over(
        "channel_messages", 5, window("day", LATER)[1]
    )
    used = await budgets.use(10)  # most first
    assert used[:2] == [("channel:T1:C1", 5, 0), ("user:T1:U1", 3, 0)]
    assert sorted(used[2:]) == [("user:T1:U2", 1, 0), ("user:T1:U3", 1, 0)]


async def test_tokens_spent_close_the_budget_for_the_next_message(
    ledger: SqliteStore | RedisStore,
) -> None:
    budgets = Budgets(ledger, "day", Limits(user_tokens=1000), lambda: LATER)
    assert await budgets.admit("T1", "C1", "U1", Limits()) is None
    await budgets.spend("T1", "C1", "U1", 999, Limits())
    assert await budgets.admit("T1", "C1", "U1", Limits()) is None
    await budgets.spend("T1", "C1", "U1", 5, Limits())
    over = await budgets.admit("T1", "C1", "U1", Limits())
    assert over is not None and over.which == "user_tokens" and over.limit == 1000
    assert await budgets.admit("T1", "C9", "U2", Limits()) is None  # someone else


async def test_a_new_window_starts_from_nothing(ledger: SqliteStore | RedisStore) -> None:
    now = [LATER]
    budgets = Budgets(ledger, "hour", Limits(user_messages=1), lambda: now[0])
    assert await budgets.admit("T1", "C1", "U1", Limits()) is None
    assert await budgets.admit("T1", "C1", "U1", Limits()) is not None
    now[0] += 3600
    assert await budgets.admit("T1", "C1", "U1", Limits()) is None


async def test_no_limit_counts_nothing(ledger: SqliteStore | RedisStore) -> None:
    budgets = Budgets(ledger, "day", Limits(), lambda: LATER)
    assert await budgets.admit("T1", "C1", "U1", Limits()) is None
    await budgets.spend("T1", "C1", "U1", 500, Limits())
    assert await budgets.use() == []
    assert await budgets.admit("T1", "C1", "U1", Limits(user_messages=1)) is None  # its own
    assert await budgets.admit("T1", "C1", "U1", Limits(user_messages=1)) is not None


async def test_instances_racing_for_the_last_message_admit_exactly_the_limit(
    redis: RedisServer,
) -> None:
    """Two instances on one Redis, 40 messages at once for a limit of 25: 25 admitted."""
    stores = [RedisStore(redis.url, ttl=60) for _ in range(2)]
    try:
        limits = Limits(user_messages=25)
        each = [Budgets(store, "day", limits, lambda: LATER) for store in stores]
        results = await asyncio.gather(
            *(each[n % 2].admit("T1", "C1", "U1", Limits()) for n in range(40))
        )
        assert sum(r is None for r in results) == 25
        assert sorted(await each[0].use()) == [("channel:T1:C1", 25, 0), ("user:T1:U1", 25, 0)]
    finally:
        for store in stores:
            await store.close()


async def test_when_the_record_is_away_the_message_is_answered(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = RedisStore("redis://127.0.0.1:1/0", ttl=60, timeout=0.2)  # nothing listens
    try:
        budgets = Budgets(store, "day", Limits(user_messages=1), lambda: LATER)
        assert await budgets.admit("T1", "C1", "U1", Limits()) is None
        assert "budget not checked" in caplog.text
    finally:
        await store.close()
