"""Read-only tools the model may call while it drafts, and what their results become:
sources, checked like the team's docs (a citation of a result that was not given fails,
and so does a link to nowhere it read).

A tool is anything with a name, a description, a JSON schema for its arguments and an
async `run` that returns the sources it read (the agent does not know Slack or the index:
app.slack and app.knowledge provide them). A tool that fails, or takes longer than its
time, gives the model an error result it can read (`is_error`, a fixed label), never a
crash. Bounded per message: calls per attempt, seconds per call, and the characters all
results may take together.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.agent.model import ToolUse
from app.agent.observer import Observer, Step
from app.agent.prompts import search_result
from app.errors import label
from app.verify import Source

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_REASON = re.compile(r"[a-z0-9_]{1,64}")


class Tool(Protocol):
    name: str
    description: str
    input_schema: dict[str, Any]

    async def run(self, arguments: Mapping[str, Any]) -> Sequence[Source]:
        """What the tool read, as sources (none: nothing found). Raises to fail."""
        ...


class ToolRefused(Exception):
    """The tool will not do this (bad arguments, a channel Vouch is not in): the model is
    told the label, which must be a short fixed phrase, never content."""

    def __init__(self, reason: str) -> None:
        # a reason from outside (a Slack error code) goes to the model and to telemetry:
        # only an identifier-shaped one is kept
        reason = reason if _REASON.fullmatch(reason) else "refused"
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ToolLimits:
    calls: int = 4  # tool calls per attempt; past them the model must answer
    seconds: float = 10.0  # per call
    result_chars: int = 24_000  # all results of one message together (about 6,000 tokens)


@dataclass
class Toolbox:
    """The tools of one message, and what their results have used of its budget."""

    tools: Sequence[Tool]
    limits: ToolLimits = field(default_factory=ToolLimits)
    used_chars: int = 0

    def __post_init__(self) -> None:
        names = [tool.name for tool in self.tools]
        if len(set(names)) != len(names) or not all(_NAME.match(n) for n in names):
            raise ValueError("tool names must be unique and match [a-zA-Z0-9_-]{1,64}")

    def definitions(self) -> list[dict[str, Any]]:
        return [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in self.tools
        ]

    async def use(
        self, uses: Sequence[ToolUse], observer: Observer, parent: Step | None, *, allowed: int
    ) -> tuple[list[dict[str, Any]], list[Source]]:
        """Run the calls (together; the first `allowed` of them, the rest told the limit is
        reached): the tool_result blocks for the next user turn, and the sources read."""
        runs = [
            self._one(use, observer, parent) if n < allowed else _refused(use, "call_limit")
            for n, use in enumerate(uses)
        ]
        done = await asyncio.gather(*runs)
        blocks = [block for block, _ in done]
        return blocks, [source for _, found in done for source in found]

    async def _one(
        self, use: ToolUse, observer: Observer, parent: Step | None
    ) -> tuple[dict[str, Any], list[Source]]:
        tool = next((t for t in self.tools if t.name == use.name), None)
        if tool is None:
            return await _refused(use, "unknown_tool")
        started = time.perf_counter()
        with observer.observe("tool." + tool.name, "tool", parent=parent) as step:
            try:
                async with asyncio.timeout(self.limits.seconds):
                    found = list(await tool.run(use.arguments))
            except ToolRefused as exc:
                step.fail(exc.reason, "WARNING")
                return _error(use, exc.reason), []
            except Exception as exc:  # a failing tool is the model's to read about
                reason = "timeout" if isinstance(exc, TimeoutError) else label(exc)
                step.fail(reason, "WARNING")
                return _error(use, reason), []
            kept = self._within_budget(found)
            size = sum(len(s.text) for s in kept)
            step.update(
                {
                    "results": len(kept),
                    "result_chars": size,
                    "dropped": len(found) - len(kept),
                    "duration_ms": round((time.perf_counter() - started) * 1000, 3),
                }
            )
        if not kept:
            reason = "result_budget_spent" if found else "no_results"
            return _result(use, [{"type": "text", "text": reason}]), []
        return _result(use, [search_result(s) for s in kept]), kept

    def _within_budget(self, found: list[Source]) -> list[Source]:
        kept = []
        for source in found:
            if self.used_chars + len(source.text) > self.limits.result_chars:
                break
            self.used_chars += len(source.text)
            kept.append(source)
        return kept


def _result(use: ToolUse, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": use.id, "content": content}


def _error(use: ToolUse, reason: str) -> dict[str, Any]:
    block = _result(use, [{"type": "text", "text": f"error: {reason}"}])
    return block | {"is_error": True}


async def _refused(use: ToolUse, reason: str) -> tuple[dict[str, Any], list[Source]]:
    return _error(use, reason), []
