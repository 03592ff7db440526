"""Per-channel settings: a YAML file (CHANNELS_FILE) that says, for each channel, whether
Vouch answers there, whether it follows up in threads without a mention, whether it
answers questions posted there without a mention (a help channel), the dialect it
writes in, standing instructions for the model, whether the judge reviews, which group
"Ask a person" mentions, and which folder of the team's docs it searches (its own index,
app/knowledge/libraries.py). Unlisted channels use `default` (itself defaulting to the
global settings); DMs use `dm`.

The file is validated at start (an error names the line) and read again when it changes
(looked at no more often than every RELOAD_EVERY seconds, when a message arrives); a bad
edit keeps the last good settings and says why in the log, by line and field, never by
value.

    default:
      follow_ups: false
    dm:
      instructions: Answer briefly.
    channels:
      C0123ABCD:            # #payments
        answer: false       # Vouch stays silent here
      C0456EFGH:            # #platform
        help_channel: true  # questions posted here answered unasked, or nothing said
        dialect: markdown
        judge: false
        escalation_group: S0789IJKL
        knowledge: /srv/docs/platform
        budget:
          user_messages: 20   # a day (BUDGET_PERIOD), in place of BUDGET_USER_MESSAGES
        instructions: |
          We deploy with Argo CD. Say "rollout", not "release".
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, DirectoryPath, Field, ValidationError

log = logging.getLogger("vouch.channels")

RELOAD_EVERY = 5.0  # seconds between looks at the file's modification time
Dialect = Literal["mrkdwn", "markdown"]


class Budget(BaseModel):
    """A channel's own budgets per BUDGET_PERIOD (0: no limit), each in place of the
    global BUDGET_* one it names; an unset one keeps the global."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    user_messages: int = Field(0, ge=0, le=1_000_000)
    user_tokens: int = Field(0, ge=0, le=10_000_000_000)
    channel_messages: int = Field(0, ge=0, le=1_000_000)
    channel_tokens: int = Field(0, ge=0, le=10_000_000_000)


class ChannelSettings(BaseModel):
    """What one channel (or every unlisted one, or DMs) may set; None: the global setting."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    answer: bool = True
    follow_ups: bool | None = None
    help_channel: bool = False  # top-level questions answered without a mention, or silence
    dialect: Dialect | None = None
    instructions: str = Field("", max_length=4000)
    judge: bool | None = None
    escalation_group: str | None = Field(None, pattern=r"^S[A-Z0-9]{2,}$")
    knowledge: DirectoryPath | None = None  # the team's docs for this channel
    budget: Budget = Budget()


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    default: ChannelSettings = ChannelSettings()
    dm: ChannelSettings | None = None
    channels: dict[str, ChannelSettings] = Field(default_factory=dict)


class ChannelsError(Exception):
    """The file cannot be used: the message names the line and what is wrong."""


@dataclass(frozen=True)
class Channels:
    """The settings in effect, by channel."""

    default: ChannelSettings
    dm: ChannelSettings | None
    channels: dict[str, ChannelSettings]

    def of(self, channel: str) -> ChannelSettings:
        if channel in self.channels:
            return self.channels[channel]
        if channel.startswith("D") and self.dm is not None:
            return self.dm
        return self.default

    @classmethod
    def none(cls) -> Channels:
        return cls(ChannelSettings(), None, {})


def parse(text: str) -> Channels:
    """The settings in `text`; ChannelsError naming the line of the first problem."""
    try:
        root = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"line {mark.line + 1}" if mark is not None else "the file"
        raise ChannelsError(f"{line}: not valid YAML") from None
    try:
        parsed = _File.model_validate(data or {})
    except ValidationError as exc:
        error = exc.errors()[0]
        where = _line_of(root, error["loc"])
        field = ".".join(str(part) for part in error["loc"]) or "the file"
        raise ChannelsError(f"line {where}: {field}: {error['msg']}") from None
    return Channels(parsed.default, parsed.dm, dict(parsed.channels))


def _line_of(node: yaml.Node | None, path: tuple[Any, ...]) -> int:
    """The line (1-based) of the deepest node of `path` the document has."""
    line = node.start_mark.line + 1 if node is not None else 1
    for part in path:
        if not isinstance(node, yaml.MappingNode):
            break
        match = next((v for k, v in node.value if k.value == str(part)), None)
        key = next((k for k, _ in node.value if k.value == str(part)), None)
        if match is None or key is None:
            break
        node, line = match, key.start_mark.line + 1
    return line


class ChannelsFile:
    """The file, read at start (raises ChannelsError) and again when it changes."""

    def __init__(self, path: Path | None, clock: Callable[[], float] = time.monotonic) -> None:
        self.path = path
        self._clock = clock
        self._checked = clock()
        self._mtime = 0.0
        self.current = Channels.none()
        if path is not None:
            self._mtime = path.stat().st_mtime
            self.current = parse(path.read_text(encoding="utf-8"))
            log.info("channel settings: %d channel(s) listed", len(self.current.channels))

    def of(self, channel: str) -> ChannelSettings:
        self._reload_if_changed()
        return self.current.of(channel)

    def folders(self) -> set[Path]:
        """The knowledge folders the file names (indexed at start)."""
        current = self.current
        listed = [current.default, current.dm, *current.channels.values()]
        return {own.knowledge for own in listed if own is not None and own.knowledge is not None}

    def rows(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """What each listed channel (and `dm`, `default`) sets, as (name, value) rows for
        the App Home; a channel's instructions are counted, not shown."""
        current = self.current
        listed = [("Unlisted channels", current.default)]
        if current.dm is not None:
            listed.append(("DMs", current.dm))
        listed += [(f"<#{channel}>", own) for channel, own in sorted(current.channels.items())]
        return [(name, _rows(own)) for name, own in listed]

    def _reload_if_changed(self) -> None:
        if self.path is None or self._clock() - self._checked < RELOAD_EVERY:
            return
        self._checked = self._clock()
        try:
            mtime = self.path.stat().st_mtime
            if mtime == self._mtime:
                return
            self._mtime = mtime
            self.current = parse(self.path.read_text(encoding="utf-8"))
        except ChannelsError as exc:
            log.error("channel settings not reloaded (%s): the last good ones stay", exc)
            return
        except OSError as exc:
            log.error(
                "channel settings not reloaded (%s): the last good ones stay", type(exc).__name__
            )
            return
        log.info("channel settings reloaded: %d channel(s) listed", len(self.current.channels))


def _rows(own: ChannelSettings) -> list[tuple[str, str]]:
    rows = [("Answers here", "yes" if own.answer else "no (silent)")]
    if own.follow_ups is not None:
        rows.append(("Follow-ups without a mention", "on" if own.follow_ups else "off"))
    if own.help_channel:
        rows.append(("Questions without a mention", "answered when verified, else silence"))
    if own.dialect is not None:
        rows.append(("Answer format", "Markdown" if own.dialect == "markdown" else "mrkdwn"))
    if own.judge is not None:
        rows.append(("Quality judge", "on" if own.judge else "off"))
    if own.escalation_group is not None:
        rows.append(("Ask a person mentions", f"<!subteam^{own.escalation_group}>"))
    if own.instructions:
        rows.append(("Standing instructions", f"{len(own.instructions)} characters"))
    if own.knowledge is not None:
        rows.append(("Team docs", "a folder of their own"))
    rows += [(f"Budget: {name}", f"{limit:,}") for name, limit in budget_rows(own.budget)]
    return rows


def budget_rows(budget: Budget | None) -> list[tuple[str, int]]:
    """The limits a budget sets, named as a team reads them."""
    names = {
        "user_messages": "questions per person",
        "user_tokens": "tokens per person",
        "channel_messages": "questions per channel",
        "channel_tokens": "tokens per channel",
    }
    if budget is None:
        return []
    return [
        (label, getattr(budget, name)) for name, label in names.items() if getattr(budget, name)
    ]
