"""Checks of a draft that need the world outside the text (whether a person pinged is in
the conversation, whether a linked message exists): run after the rules pass and before the
judge, by the caller's own code (the agent knows no Slack). A check may rewrite what it can
repair deterministically, and fail what it cannot, like the rules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from app.verify import Dialect, Issue, Source


@dataclass(frozen=True, slots=True)
class Checked:
    """A check's result: the text (rewritten where it repaired), the codes it repaired,
    the issues left, and counts for telemetry (names from the metadata allowlist)."""

    text: str
    repaired: tuple[str, ...] = ()
    issues: tuple[Issue, ...] = ()
    counts: tuple[tuple[str, int], ...] = ()


class Check(Protocol):
    name: str  # its observation's name, e.g. "slack.entities"

    async def __call__(self, text: str, dialect: Dialect, sources: Sequence[Source]) -> Checked:
        """Check `text` (it passed the rules), given what the model read."""
        ...
