"""The loop's parts for one message, by its channel's settings (CHANNELS_FILE): the
channel's own team docs, and the judge turned off, or on, where the file says."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from app.agent.judge import JudgeConfig
from app.agent.loop import Deps
from app.channels import ChannelSettings
from app.knowledge.libraries import Libraries
from app.settings import Settings


@dataclass(kw_only=True)
class ChannelDeps:
    base: Deps  # what every message is answered with (the process's)
    settings: Settings  # the judge's settings, for a channel that turns it on
    libraries: Libraries | None = None  # channels' own team docs

    async def of(self, here: ChannelSettings, outside: Callable[[], Awaitable[bool]]) -> Deps:
        """The parts for a message in a channel with settings `here`. A folder first named
        since start is indexed now, off the event loop. Where `outside()` says the answer
        may be read by people outside the organisation (a channel shared with another
        one, or one Slack says nothing of), the team's docs are left out, unless the
        channel names a folder of its own."""
        deps, config = self.base, self.base.config
        if here.knowledge is not None and self.libraries is not None:
            knowledge = await asyncio.to_thread(self.libraries.get, here.knowledge)
            deps = replace(deps, knowledge=knowledge)
        elif deps.knowledge is not None and await outside():
            deps = replace(deps, knowledge=None)
        if here.judge is False and config.judge is not None:
            deps = replace(deps, config=replace(config, judge=None))
        elif here.judge and config.judge is None:
            judge = JudgeConfig.from_settings(self.settings)
            deps = replace(deps, config=replace(config, judge=judge))
        return deps
