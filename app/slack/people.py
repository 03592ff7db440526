"""Who said what: Slack user ids → the names people see in the workspace, asked of
`users.info` once per person and kept (`users:read`). Names go to the model only: never to
logs or telemetry (a failed lookup is logged by its error's label)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from app.errors import label
from app.slack.errors import SLACK_FAILURES

log = logging.getLogger("vouch.slack")

KEEP = 3600.0  # seconds a name is kept (people rename themselves rarely)
KEEP_UNKNOWN = 300.0  # seconds a failed lookup is not asked again
SIZE = 10_000  # names kept, least recently used dropped first
AT_ONCE = 8  # lookups in flight for one thread
LOOKUP_WITHIN = 5.0  # seconds all of a thread's lookups may take
NO_SUCH_USER = "\x00"  # kept for an id Slack says no one has (no name can be it)


class People:
    """Names by user id, looked up on first sight and kept for KEEP seconds."""

    def __init__(
        self,
        client: AsyncWebClient,
        keep: float = KEEP,
        size: int = SIZE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._keep = keep
        self._size = size
        self._clock = clock
        self._known: OrderedDict[str, tuple[str, float]] = OrderedDict()  # id → (name, until)

    async def names(self, users: Iterable[str]) -> dict[str, str]:
        """The names of `users` that could be had (within LOOKUP_WITHIN seconds); the rest
        are left out, and the model reads their messages unnamed."""
        found = await self._found(users)
        return {u: name for u, name in found.items() if name and name != NO_SUCH_USER}

    async def missing(self, users: Iterable[str]) -> set[str]:
        """The ids of `users` Slack says no one has (user_not_found): not an error of
        the lookup, an answer."""
        found = await self._found(users)
        return {u for u, name in found.items() if name == NO_SUCH_USER}

    async def _found(self, users: Iterable[str]) -> dict[str, str | None]:
        wanted = {u for u in users if isinstance(u, str) and u}
        missing = [u for u in wanted if self._get(u) is None]
        if missing:
            gate = asyncio.Semaphore(AT_ONCE)

            async def one(user: str) -> None:
                async with gate:
                    await self._look_up(user)

            try:
                async with asyncio.timeout(LOOKUP_WITHIN):
                    await asyncio.gather(*(one(u) for u in missing))
            except TimeoutError:
                log.warning("names: lookups took over %.0f s; some speakers unnamed", LOOKUP_WITHIN)
        return {u: self._get(u) for u in wanted}

    def _get(self, user: str) -> str | None:
        kept = self._known.get(user)
        if kept is None or kept[1] < self._clock():
            return None
        self._known.move_to_end(user)
        return kept[0]

    async def _look_up(self, user: str) -> None:
        try:
            response = await self._client.users_info(user=user)
        except SLACK_FAILURES as exc:
            if label(exc) == "user_not_found":
                self._keep_name(user, NO_SUCH_USER, self._keep)
                return
            log.warning("name not looked up: %s", label(exc))
            self._keep_name(user, "", KEEP_UNKNOWN)
            return
        self._keep_name(user, name_of(response.get("user")), self._keep)

    def _keep_name(self, user: str, name: str, keep: float) -> None:
        self._known[user] = (name, self._clock() + keep)
        self._known.move_to_end(user)
        while len(self._known) > self._size:
            self._known.popitem(last=False)


def name_of(user: Any) -> str:
    """The name Slack shows for a user: display name, else real name, else the handle."""
    if not isinstance(user, dict):
        return ""
    found = user.get("profile")
    profile: dict[str, Any] = found if isinstance(found, dict) else {}
    for name in (profile.get("display_name"), profile.get("real_name"), user.get("real_name")):
        if isinstance(name, str) and name.strip():
            return name.strip()[:80]
    handle = user.get("name")
    return handle.strip()[:80] if isinstance(handle, str) else ""
