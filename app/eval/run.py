"""Running dataset items through the real loop: the configured model, judge, rules and
retries, each item's docs (its folder, its passages, or KNOWLEDGE_DIR), concurrently within
a bound. Each item's Result keeps what the report needs: the Outcome (ids, codes, counts,
timings; the answer only to grade a refusal and for a Langfuse experiment's output), the
time it took and whether it behaved as the item expects."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace

from app.agent.conversation import Conversation
from app.agent.loop import Deps, answer
from app.agent.model import Usage
from app.agent.observer import UNWATCHED, Observer
from app.agent.outcome import Outcome
from app.agent.tools import Tool
from app.errors import label
from app.eval.dataset import Expect, Item
from app.eval.grade import GradeFailed, declined
from app.knowledge.libraries import Libraries
from app.knowledge.retrieve import Knowledge
from app.knowledge.tool import DocsSearch
from app.settings import Settings
from app.verify import Source

log = logging.getLogger("vouch.eval")


@dataclass(frozen=True, slots=True)
class Result:
    """What one item did. `outcome` is None when the run itself broke (`error` says how)."""

    item: str
    expect: Expect | None
    outcome: Outcome | None
    seconds: float
    met: bool | None = None  # None: the item expects nothing (or it could not be told)
    grade_usage: Usage = field(
        default_factory=Usage
    )  # tokens the refusal grader spent (not Vouch's)
    error: str | None = None

    @property
    def verified(self) -> bool:
        return self.outcome is not None and self.outcome.verified

    @property
    def reason(self) -> str:
        return self.outcome.reason if self.outcome is not None else "error"


class Given:
    """An item's own passages: the sources of its message, whatever it asks."""

    def __init__(self, sources: Sequence[Source]) -> None:
        self._sources = tuple(sources)

    def sources(self, conversation: Conversation) -> tuple[Source, ...]:
        return self._sources


class Runner:
    """Runs items with one set of settings (and standing instructions from a prompt file).
    The model client belongs to the event loop it is first used in (a Langfuse experiment
    runs in a loop of its own), so one is made per loop."""

    def __init__(self, settings: Settings, instructions: str = "") -> None:
        self.settings = settings
        self.instructions = instructions
        self.libraries = Libraries(settings)
        self._deps: dict[int, Deps] = {}

    def deps(self) -> Deps:
        loop = id(asyncio.get_running_loop())
        if loop not in self._deps:
            self._deps[loop] = Deps.from_settings(self.settings)
        return self._deps[loop]

    async def run(self, item: Item, observer: Observer = UNWATCHED) -> Result:
        """One item through the loop; never raises for the item's sake (its Result says)."""
        started = time.perf_counter()
        try:
            deps, tools = await self._parts(item)
            conversation = item.conversation(self.settings.response_format, self.instructions)
            outcome = await answer(
                conversation, deps, uuid.uuid4().hex[:12], observer=observer, tools=tools
            )
        except Exception as exc:  # a broken item is reported, the others go on
            log.error("eval item failed: %s", label(exc))
            seconds = time.perf_counter() - started
            return Result(item.id, item.expect, None, seconds, error=label(exc))
        seconds = time.perf_counter() - started
        met, usage = await self._met(item, outcome, deps)
        return Result(item.id, item.expect, outcome, seconds, met, usage)

    async def _parts(self, item: Item) -> tuple[Deps, list[Tool]]:
        """The loop's parts for the item: its docs (a folder of its own, its passages, or
        KNOWLEDGE_DIR) and, with a docs folder, the search_docs tool as the bot offers it."""
        deps = self.deps()
        folder = item.knowledge or (None if item.sources else self.settings.knowledge_dir)
        if item.sources:
            return replace(deps, knowledge=Given(item.sources)), []
        if folder is None:
            return replace(deps, knowledge=None), []
        knowledge = await asyncio.to_thread(self.libraries.get, folder)
        tools: list[Tool] = [DocsSearch(knowledge)] if isinstance(knowledge, Knowledge) else []
        return replace(deps, knowledge=knowledge), tools

    async def _met(self, item: Item, outcome: Outcome, deps: Deps) -> tuple[bool | None, Usage]:
        """Whether the outcome is what the item expects: an answer (verified), a cited
        answer, a refusal (the model's, or a verified answer that declines, as the judge's
        model reads it), or a graceful failure (no verified answer, not for an outage)."""
        expect = item.expect
        if expect is None or outcome.reason == "unavailable":
            return None, Usage()  # an outage says nothing of the behaviour
        if expect != "refuse" or outcome.reason == "refused" or not outcome.verified:
            met = {
                "answer": outcome.verified,
                "cite": outcome.verified and bool(outcome.cited),
                "fail": not outcome.verified,
                "refuse": outcome.reason == "refused",
            }[expect]
            return met, Usage()
        try:
            return await declined(
                deps.client, self.settings.judge_model, item.question, outcome.text
            )
        except GradeFailed as exc:
            log.warning("eval: refusal not graded (%s)", exc)
            return None, Usage()

    def close(self) -> None:
        self.libraries.close()


Progress = Callable[[Result], None]


async def run_all(
    items: Sequence[Item],
    run: Callable[[Item], Awaitable[Result]],
    concurrency: int,
    progress: Progress,
) -> list[Result]:
    """Every item, at most `concurrency` at a time, in the dataset's order."""
    bound = asyncio.Semaphore(concurrency)

    async def one(item: Item) -> Result:
        async with bound:
            result = await run(item)
        progress(result)
        return result

    return list(await asyncio.gather(*(one(item) for item in items)))
