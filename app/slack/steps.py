"""What Vouch is doing, as Slack's native task cards: a streamed message in the answer's
thread that shows a plan — the conversation read, each search, each draft, each check
(formatting, sources, review) and each retry — while the loop runs, then the answer below
it (app/slack/deliver.py puts the verified text, or the failure message, into the same
message). An observer of the loop, like the status line it replaces where answers are
streamed (the markdown dialect).

A step names a stage and, when a check fails, its codes: never content. Updates are sent
by a task of its own, the newest state of every changed step in one `chat.appendStream`
at most every `every` seconds, so a slow Slack holds up nothing; and every answer's steps
together take at most STEPS_PER_MINUTE of those calls a minute from this process (`Pace`):
the method is Slack's tier 4 (100+ a minute per workspace), and the answers' own appends
must not wait behind the steps' 429s. A step not sent in time goes with the answer.

If the user presses stop, nothing more is sent, the answer neither; if Slack refuses an
update for any other reason, the steps stop there and the answer still goes into the
message (deliver completes a broken stream)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from slack_sdk.web.async_client import AsyncWebClient

from app.agent.observer import Kind, Stage, Step, Unwatched, Value
from app.agent.outcome import Attempt
from app.errors import label
from app.slack.deliver import Opened, Target
from app.slack.errors import SLACK_FAILURES, stopped_by_user

TaskStatus = Literal["pending", "in_progress", "complete", "error"]  # a task card's

SEND_EVERY = 1.0  # seconds between two updates of one answer's steps
ENDING = 2.0  # seconds to end the steps of an answer cut short (a shutdown waits for it)
STEPS_PER_MINUTE = 50  # updates of all answers' steps from this process: half of tier 4
STARTED = "Checking an answer before posting it"
CHECKED = "Checked before posting"
NOT_CHECKED = "No answer could be checked"
INTERRUPTED = "Interrupted: Vouch will answer again"
READ = "Read the conversation"
DOCS = "Search the team's docs"
RULES = "Check formatting, language and safety"
SOURCES = "Check sources and figures"
REVIEW = "Review the answer as a reader would"
# Tools by name (app/agent/tools.py); one Vouch does not know shows as "Use a tool".
TOOLS = {
    "search_docs": DOCS,
    "read_slack_link": "Read a linked Slack message",
    "search_slack": "Search Slack",
}
# The rule codes shown under "sources" (the rest are formatting, language and safety;
# the judge's are JUDGE_*): the citation and figure checks of app/verify.
SOURCE_CODES = frozenset({"UNCITED", "UNKNOWN_SOURCE", "UNSOURCED_FIGURE", "MISQUOTED"})
OUTPUT_LIMIT = 256  # characters of a task card's output (Slack's limit)
log = logging.getLogger("vouch.slack")


@dataclass(slots=True)
class _Task:
    id: str
    title: str
    status: TaskStatus
    output: str = ""

    def chunk(self) -> dict[str, Any]:
        chunk = {"type": "task_update", "id": self.id, "title": self.title, "status": self.status}
        return {**chunk, "output": self.output} if self.output else chunk


class Pace:
    """At most `most` updates of steps in any `window` seconds, shared by every answer's
    steps in this process: `wait` returns when one more may go."""

    def __init__(
        self,
        most: int = STEPS_PER_MINUTE,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._most, self._window, self._clock = most, window, clock
        self._sent: deque[float] = deque()

    async def wait(self) -> None:
        while True:
            now = self._clock()
            while self._sent and now - self._sent[0] >= self._window:
                self._sent.popleft()
            if len(self._sent) < self._most:
                self._sent.append(now)
                return
            await asyncio.sleep(self._window - (now - self._sent[0]))


class Steps(Unwatched):
    """The loop's steps as a plan of task cards in the answer's streamed message."""

    def __init__(
        self, client: AsyncWebClient, target: Target, pace: Pace, every: float = SEND_EVERY
    ) -> None:
        self._client, self._target, self._every = client, target, every
        self._pace = pace
        self._tasks: dict[str, _Task] = {}
        self._changed: dict[str, None] = {}  # ids to send, in the order they first changed
        self._wake = asyncio.Event()
        self._sender: asyncio.Task[None] | None = None
        self._tools = 0
        self.ts = ""
        self.stopped = False  # the user pressed stop: nothing more is sent, the answer neither
        self._broken = False  # Slack refused an update: no more are sent

    async def start(self) -> bool:
        """Start the streamed message with the plan and its first step; whether Slack took
        it (if not, the caller shows the status line instead)."""
        self._update("read", READ, "complete")
        channel = self._target.channel
        recipients = (
            {}
            if self._target.is_dm
            else {"recipient_team_id": self._target.team, "recipient_user_id": self._target.user}
        )
        try:
            started = await self._client.chat_startStream(
                channel=channel,
                thread_ts=self._target.thread_ts,
                task_display_mode="plan",
                chunks=[_plan(STARTED), *self._pending()],
                **recipients,
            )
        except SLACK_FAILURES as exc:
            log.warning("steps not shown: %s", label(exc))
            return False
        self.ts = str(started["ts"])
        return True

    def stage(self, stage: Stage, attempt: int, total: int) -> None:
        if stage != "drafting":
            return
        title = "Write a draft" if attempt == 1 else f"Revise it: attempt {attempt} of {total}"
        self._update(f"draft-{attempt}", title, "in_progress")

    @contextmanager
    def observe(
        self,
        name: str,
        kind: Kind,
        *,
        parent: Step | None = None,
        model: str | None = None,
        **metadata: Value,
    ) -> Iterator[Step]:
        attempt = metadata.get("attempt")
        ended: tuple[str, str] | None = None  # a step that ends with this one
        if name == "knowledge.search":
            ended = ("docs", DOCS)
        elif name.startswith("tool."):
            self._tools += 1
            ended = (f"tool-{self._tools}", TOOLS.get(name.removeprefix("tool."), "Use a tool"))
        elif name == "agent.verify":
            self._done(f"draft-{attempt}")
            self._update(f"rules-{attempt}", RULES, "in_progress")
            self._update(f"sources-{attempt}", SOURCES, "in_progress")
        elif name == "claude.judge":  # the rules passed
            self._done(f"rules-{attempt}")
            self._done(f"sources-{attempt}")
            self._update(f"review-{attempt}", REVIEW, "in_progress")
        if ended is not None:
            self._update(*ended, "in_progress")
        with super().observe(name, kind, parent=parent, model=model, **metadata) as step:
            try:
                yield step
            except BaseException:
                if ended is not None:
                    self._update(*ended, "error")
                raise
        if ended is not None:
            self._update(*ended, "complete")

    def checked(self, check: Step, attempt: Attempt) -> None:
        """Each check's outcome: complete, or error with the codes it found."""
        number = attempt.number
        judged = tuple(c for c in attempt.codes if c.startswith("JUDGE_"))
        sources = tuple(c for c in attempt.codes if c in SOURCE_CODES)
        rules = tuple(c for c in attempt.codes if c not in SOURCE_CODES and c not in judged)
        checks = ((f"rules-{number}", RULES, rules), (f"sources-{number}", SOURCES, sources))
        for key, title, codes in checks:
            if key in self._tasks:
                self._update(key, title, "error" if codes else "complete", _output(codes))
        review = f"review-{number}"
        if review in self._tasks:
            failed = judged or ((attempt.error,) if attempt.error else ())
            self._update(review, REVIEW, "error" if failed else "complete", _output(failed))

    async def close(self, verified: bool, title: str = "") -> Opened:
        """Stop sending; every step still running ends (complete when the answer was
        verified, else error) and the plan's title says how it ended (`title`, or checked
        or not). What has not been sent goes with the answer's first text (deliver)."""
        if self._sender is not None:
            self._sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sender
            self._sender = None
        for task in list(self._tasks.values()):
            if task.status in ("pending", "in_progress"):
                self._update(task.id, task.title, "complete" if verified else "error")
        title = title or (CHECKED if verified else NOT_CHECKED)
        return Opened(self.ts, (_plan(title), *self._pending()))

    async def interrupted(self) -> None:
        """The answer was cut short (a shutdown gives its message back to the store, or
        another worker took it over, and it is answered in a new message): end the stream,
        its steps marked interrupted, within ENDING seconds, rather than leave a draft "in
        progress". After the answer went into it, Slack refuses the stop: logged."""
        opened = await self.close(verified=False, title=INTERRUPTED)
        if self.stopped:
            return
        try:
            async with asyncio.timeout(ENDING):
                await self._client.chat_stopStream(
                    channel=self._target.channel, ts=opened.ts, chunks=list(opened.chunks)
                )
        except (*SLACK_FAILURES, TimeoutError) as exc:
            log.warning("steps not ended: %s", label(exc))

    def _done(self, key: str) -> None:
        task = self._tasks.get(key)
        if task is not None and task.status != "error":
            self._update(key, task.title, "complete")

    def _update(self, key: str, title: str, status: TaskStatus, output: str = "") -> None:
        self._tasks[key] = _Task(key, title, status, output)
        self._changed[key] = None  # a step keeps its place: Slack shows them as first sent
        if self.ts and not (self.stopped or self._broken):
            self._wake.set()
            if self._sender is None:
                self._sender = asyncio.create_task(self._keep())

    def _pending(self) -> list[dict[str, Any]]:
        chunks = [self._tasks[key].chunk() for key in self._changed]
        self._changed.clear()
        return chunks

    async def _keep(self) -> None:
        while not (self.stopped or self._broken):
            await self._wake.wait()
            await self._pace.wait()  # meanwhile more changes gather
            self._wake.clear()
            sending = dict(self._changed)
            chunks = self._pending()
            try:
                await self._client.chat_appendStream(
                    channel=self._target.channel, ts=self.ts, chunks=chunks
                )
            except SLACK_FAILURES as exc:
                for key in sending:  # sent with the answer instead
                    self._changed.setdefault(key, None)
                if stopped_by_user(exc):
                    log.info("steps: the user stopped the answer")
                    self.stopped = True
                else:
                    log.warning("steps not updated: %s", label(exc))
                    self._broken = True
                return
            except asyncio.CancelledError:
                for key in sending:  # may not have reached Slack: sent again
                    self._changed.setdefault(key, None)
                raise
            await asyncio.sleep(self._every)


def _plan(title: str) -> dict[str, Any]:
    return {"type": "plan_update", "title": title}


def _output(codes: tuple[str, ...]) -> str:
    """A failed check's codes, as many as a task card's output holds."""
    shown: list[str] = []
    for code in codes:
        if len(", ".join([*shown, code])) > OUTPUT_LIMIT:
            break
        shown.append(code)
    return ", ".join(shown)
