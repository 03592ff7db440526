"""The store of one instance (app/work/store.py says what a store does):
SQLite under data/, so a message acked before a crash, a kill or a shutdown is answered
after the restart.

A message is `queued` when taken in, `taken` by a worker under a lease, and `done` once
answered; done messages keep their key, without their text, for DEDUPE_TTL.

WAL with synchronous=NORMAL: a commit survives the process being killed (not the machine
losing power), at a fraction of a millisecond per message.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from app.work.budget import Counter, Spent
from app.work.store import Batched, Job, order

T = TypeVar("T")
_Row = tuple[str, str, float, str, float]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
    key TEXT PRIMARY KEY,
    thread TEXT NOT NULL,
    ts REAL NOT NULL,
    event TEXT,
    state TEXT NOT NULL,
    owner TEXT,
    lease_until REAL,
    tries INTEGER NOT NULL DEFAULT 0,
    added REAL NOT NULL,
    finished REAL
);
CREATE INDEX IF NOT EXISTS messages_open ON messages (state, added);
CREATE INDEX IF NOT EXISTS messages_thread ON messages (thread, state, ts);
CREATE TABLE IF NOT EXISTS budget (
    window TEXT NOT NULL,
    key TEXT NOT NULL,
    messages INTEGER NOT NULL DEFAULT 0,
    tokens INTEGER NOT NULL DEFAULT 0,
    expires REAL NOT NULL,
    PRIMARY KEY (window, key)
);
CREATE TABLE IF NOT EXISTS held (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    expires REAL NOT NULL
);
"""

# The oldest message no other message of its thread is ahead of: none taken under a live
# lease, none waiting with an earlier ts.
_NEXT = """
SELECT key, event, tries FROM messages m
WHERE (m.state = 'queued' OR (m.state = 'taken' AND m.lease_until < :now))
  AND NOT EXISTS (
    SELECT 1 FROM messages o
    WHERE o.thread = m.thread AND o.key != m.key AND (
      (o.state = 'taken' AND o.lease_until >= :now)
      OR ((o.state = 'queued' OR (o.state = 'taken' AND o.lease_until < :now)) AND o.ts < m.ts)
    )
  )
ORDER BY m.added LIMIT 1
"""


class SqliteStore:
    """The store, in one SQLite file; every call runs on one thread of its own.
    Implements app.work.store.Store."""

    def __init__(self, path: Path, ttl: float, clock: Callable[[], float] = time.time) -> None:
        self._ttl = ttl
        self._clock = clock
        self._puts = Batched[_Row](lambda rows: self._run(lambda: self._insert_all(rows)))
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vouch-store")
        self._closed = False
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.execute("PRAGMA secure_delete=ON")  # erased text is zeroed on disk
        self._db.executescript(_SCHEMA)

    async def put(self, key: str, thread: str, ts: str, event: dict[str, Any]) -> bool:
        """Store a message; False when it was recorded already (a duplicate). Messages
        arriving together are written in one transaction (a burst of events is one
        round trip to the database thread, not one each)."""
        return await self._puts.add((key, thread, order(ts), json.dumps(event), self._clock()))

    async def take(self, owner: str, lease: float) -> Job | None:
        """The next message a worker may answer, now held by `owner` for `lease` seconds."""
        return await self._run(lambda: self._take(owner, lease))

    async def renew(self, key: str, owner: str, lease: float) -> bool:
        """Extend the lease; False when `owner` no longer holds the message."""
        sql = "UPDATE messages SET lease_until = ? WHERE key = ? AND owner = ? AND state = 'taken'"
        args = (self._clock() + lease, key, owner)
        return await self._run(lambda: self._db.execute(sql, args).rowcount == 1)

    async def done(self, key: str, owner: str) -> None:
        """The message is answered: forget its text, keep its key for the dedupe TTL."""
        sql = (
            "UPDATE messages SET state = 'done', event = NULL, owner = NULL, finished = ? "
            "WHERE key = ? AND owner = ?"
        )
        args = (self._clock(), key, owner)
        await self._run(lambda: self._db.execute(sql, args))

    async def release(self, key: str, owner: str) -> None:
        """Give the message back unanswered (a shutdown): the next worker takes it."""
        sql = (
            "UPDATE messages SET state = 'queued', owner = NULL, lease_until = NULL "
            "WHERE key = ? AND owner = ? AND state = 'taken'"
        )
        await self._run(lambda: self._db.execute(sql, (key, owner)))

    async def later(self, key: str, owner: str, delay: float) -> None:
        """Let go of the message for `delay` seconds; then any worker may take it."""
        sql = (
            "UPDATE messages SET owner = NULL, lease_until = ? "
            "WHERE key = ? AND owner = ? AND state = 'taken'"
        )
        args = (self._clock() + delay, key, owner)
        await self._run(lambda: self._db.execute(sql, args))

    async def waiting(self) -> int:
        """Messages recorded and not yet answered."""
        sql = "SELECT count(*) FROM messages WHERE state != 'done'"
        return int(await self._run(lambda: self._db.execute(sql).fetchone()[0]))

    async def hold(self, key: str, value: dict[str, Any], seconds: float) -> None:
        sql = "INSERT OR REPLACE INTO held (key, value, expires) VALUES (?, ?, ?)"
        args = (key, json.dumps(value), self._clock() + seconds)
        await self._run(lambda: self._db.execute(sql, args))

    async def held(self, key: str) -> dict[str, Any] | None:
        return await self._run(lambda: self._held(key))

    async def claim(self, key: str) -> dict[str, Any] | None:
        def claim() -> dict[str, Any] | None:
            found = self._held(key)
            self._db.execute("DELETE FROM held WHERE key = ?", (key,))
            return found

        return await self._run(lambda: self._transaction(claim))

    def _held(self, key: str) -> dict[str, Any] | None:
        self._db.execute("DELETE FROM held WHERE expires < ?", (self._clock(),))
        row = self._db.execute("SELECT value FROM held WHERE key = ?", (key,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    async def admit(
        self, window: str, counters: Sequence[Counter], until: float
    ) -> tuple[str, Spent] | None:
        """app.work.budget.Ledger.admit, in one transaction."""
        return await self._run(
            lambda: self._transaction(lambda: self._admit(window, counters, until))
        )

    async def spend(self, window: str, keys: Sequence[str], tokens: int, until: float) -> None:
        sql = (
            "INSERT INTO budget (window, key, tokens, expires) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (window, key) DO UPDATE SET tokens = tokens + excluded.tokens"
        )
        rows = [(window, key, tokens, until) for key in keys]
        await self._run(lambda: self._transaction(lambda: self._db.executemany(sql, rows)))

    async def spent(self, window: str, most: int) -> list[tuple[str, int, int]]:
        sql = (
            "SELECT key, messages, tokens FROM budget WHERE window = ? "
            "ORDER BY messages DESC, tokens DESC, key LIMIT ?"
        )
        rows = await self._run(lambda: self._db.execute(sql, (window, most)).fetchall())
        return [(str(k), int(m), int(t)) for k, m, t in rows]

    def _admit(
        self, window: str, counters: Sequence[Counter], until: float
    ) -> tuple[str, Spent] | None:
        self._db.execute("DELETE FROM budget WHERE expires < ?", (self._clock(),))
        for key, message_limit, token_limit in counters:
            row = self._db.execute(
                "SELECT messages, tokens FROM budget WHERE window = ? AND key = ?", (window, key)
            ).fetchone()
            messages, tokens = row if row is not None else (0, 0)
            if message_limit and messages >= message_limit:
                return key, "messages"
            if token_limit and tokens >= token_limit:
                return key, "tokens"
        self._db.executemany(
            "INSERT INTO budget (window, key, messages, expires) VALUES (?, ?, 1, ?) "
            "ON CONFLICT (window, key) DO UPDATE SET messages = messages + 1",
            [(window, key, until) for key, _, _ in counters],
        )
        return None

    def _transaction(self, work: Callable[[], T]) -> T:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            result = work()
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")
        return result

    async def close(self) -> None:
        """Close the database (once: closing again does nothing)."""
        if self._closed:
            return
        self._closed = True
        await self._run(self._db.close)
        self._executor.shutdown(wait=True)

    def _insert_all(self, rows: list[_Row]) -> list[bool]:
        sql = (
            "INSERT OR IGNORE INTO messages (key, thread, ts, event, state, added) "
            "VALUES (?, ?, ?, ?, 'queued', ?)"
        )
        return self._transaction(lambda: [self._db.execute(sql, row).rowcount == 1 for row in rows])

    def _take(self, owner: str, lease: float) -> Job | None:
        now = self._clock()
        return self._transaction(lambda: self._next(owner, now, lease))

    def _next(self, owner: str, now: float, lease: float) -> Job | None:
        self._db.execute(
            "DELETE FROM messages WHERE state = 'done' AND finished < ?", (now - self._ttl,)
        )
        self._db.execute("DELETE FROM held WHERE expires < ?", (now,))  # its text zeroed
        row = self._db.execute(_NEXT, {"now": now}).fetchone()
        if row is None:
            return None
        key, event, tries = row
        self._db.execute(
            "UPDATE messages SET state = 'taken', owner = ?, lease_until = ?, "
            "tries = tries + 1 WHERE key = ?",
            (owner, now + lease, key),
        )
        return Job(key, json.loads(event), tries + 1)

    async def _run(self, call: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, call)
