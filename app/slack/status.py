"""The thread's "is thinking…" status, kept alive (Slack clears it after 2 minutes), and
never in the answer's way: an observer of the loop whose `show` returns at once while a
task of its own sends the newest status, so a slow `assistant.threads.setStatus` holds up
nothing."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from slack_sdk.web.async_client import AsyncWebClient

from app.agent.observer import Stage, Unwatched
from app.errors import label
from app.slack.errors import SLACK_FAILURES

REFRESH_SECONDS = 90.0
CLEAR_WITHIN = 5.0  # seconds a closing clear may take
log = logging.getLogger("vouch.slack")


class Status(Unwatched):
    """Shows a status line in a thread and re-sends it every `refresh` seconds until
    closed; as the loop's observer, shows each stage. Failing to show a status never stops
    an answer, nor slows it."""

    def __init__(
        self,
        client: AsyncWebClient,
        channel: str,
        thread_ts: str,
        refresh: float = REFRESH_SECONDS,
        *,
        shown: bool = True,  # False: nothing is sent (no one asked Vouch: a help channel)
    ) -> None:
        self._client, self._channel, self._thread_ts = client, channel, thread_ts
        self._shown = shown
        self._refresh = refresh
        self._text = ""
        self._changed = asyncio.Event()
        self._sender: asyncio.Task[None] | None = None

    def stage(self, stage: Stage, attempt: int, total: int) -> None:
        self.show(status_text(stage, attempt, total))

    def show(self, text: str) -> None:
        """Show `text` soon (the newest text wins if several wait); returns at once."""
        if not self._shown:
            return
        self._text = text
        self._changed.set()
        if self._sender is None:
            self._sender = asyncio.create_task(self._keep())

    async def close(self, clear: bool = False) -> None:
        """Stop showing (a send in progress is abandoned); `clear` empties the line."""
        if self._sender is not None:
            self._sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sender
            self._sender = None
        if clear and self._shown:
            self._text = ""
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CLEAR_WITHIN):
                    await self._send()

    async def _keep(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._refresh):
                    await self._changed.wait()
            self._changed.clear()
            await self._send()

    async def _send(self) -> None:
        try:
            await self._client.assistant_threads_setStatus(
                channel_id=self._channel, thread_ts=self._thread_ts, status=self._text
            )
        except SLACK_FAILURES as exc:
            log.warning("status not set: %s", label(exc))


def status_text(stage: Stage, attempt: int, total: int) -> str:
    """What Vouch is doing, for the status line."""
    if stage == "checking":
        return "is checking the answer…"
    if attempt == 1:
        return "is thinking…"
    return f"is revising, attempt {attempt} of {total}…"
