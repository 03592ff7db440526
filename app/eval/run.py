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
from pathlib import Path

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


class KnowledgeUnavailable(Exception):
    """An item's docs folder could not be indexed (Knowledge.open logged why)."""


# Outcomes that say the model could not be asked (an outage, or a request it refused: a bad
# key or model id): they measure the setup, not the behaviour.
NOT_ASKED = frozenset({"unavailable", "rejected"})


class Runner:
    """Runs items with one set of settings (and standing instructions from a prompt file).
    `grader`: the model that reads whether a verified answer declines (the same for every
    run compared, so the ruler does not change with the settings). The model client's
    connections belong to the event loop they were made in, and each run is an
    asyncio.run of its own (here for a local dataset, in the SDK's run_experiment for a
    Langfuse one), so a client is made per loop; a local run closes its own (aclose), an
    experiment's is left to the process's end."""

    def __init__(
        self,
        settings: Settings,
        libraries: Libraries,
        instructions: str = "",
        grader: str = "",
    ) -> None:
        self.settings = settings
        self.libraries = libraries  # the caller's: runs with the same docs settings share it
        self.instructions = instructions
        self.grader = grader or settings.judge_model
        self._deps: dict[asyncio.AbstractEventLoop, Deps] = {}

    def deps(self) -> Deps:
        loop = asyncio.get_running_loop()
        if loop not in self._deps:
            self._deps[loop] = Deps.from_settings(self.settings)
        return self._deps[loop]

    def prepare(self, items: Sequence[Item]) -> None:
        """Index every item's docs folder now (blocking), so no item's time includes it."""
        folders = {self._folder(item) for item in items} - {None}
        for folder in folders:
            assert folder is not None
            self.libraries.get(folder)

    async def run(self, item: Item, observer: Observer = UNWATCHED) -> Result:
        """One item through the loop; never raises for the item's sake (its Result says)."""
        started = time.perf_counter()
        try:
            deps, tools = await self._parts(item)
            conversation = item.conversation(self.settings.response_format, self.instructions)
            outcome = await answer(
                conversation, deps, uuid.uuid4().hex[:12], observer=observer, tools=tools
            )
            seconds = time.perf_counter() - started
            met, usage = await self._met(item, outcome, deps)
        except Exception as exc:  # a broken item is reported, the others go on
            reason = (
                "knowledge_unavailable" if isinstance(exc, KnowledgeUnavailable) else label(exc)
            )
            log.error("eval item failed: %s", reason)
            seconds = time.perf_counter() - started
            return Result(item.id, item.expect, None, seconds, error=reason)
        return Result(item.id, item.expect, outcome, seconds, met, usage)

    def _folder(self, item: Item) -> Path | None:
        if item.sources:
            return None
        return item.knowledge or self.settings.knowledge_dir

    async def _parts(self, item: Item) -> tuple[Deps, list[Tool]]:
        """The loop's parts for the item: its docs (a folder of its own, its passages, or
        KNOWLEDGE_DIR) and, with a docs folder, the search_docs tool as the bot offers it."""
        deps = self.deps()
        if item.sources:
            return replace(deps, knowledge=Given(item.sources)), []
        folder = self._folder(item)
        if folder is None:
            return replace(deps, knowledge=None), []
        knowledge = await asyncio.to_thread(self.libraries.get, folder)
        if knowledge is None:
            raise KnowledgeUnavailable()
        return replace(deps, knowledge=knowledge), [DocsSearch(knowledge)]

    async def _met(self, item: Item, outcome: Outcome, deps: Deps) -> tuple[bool | None, Usage]:
        """Whether the outcome is what the item expects (None: it cannot be told).
        - answer: a verified answer that does not decline;
        - cite: a verified answer that cites a source and does not decline;
        - refuse: the model's refusal, or a verified answer that declines;
        - fail: no verified answer (the graceful failure).
        Whether a verified answer declines, the grader reads. An outcome in NOT_ASKED
        measures the setup, not the behaviour: None."""
        expect = item.expect
        if expect is None or outcome.reason in NOT_ASKED:
            return None, Usage()
        if expect == "fail" or not outcome.verified:
            return (not outcome.verified) if expect == "fail" else (
                expect == "refuse" and outcome.reason == "refused"
            ), Usage()
        if expect == "cite" and not outcome.cited:
            return False, Usage()
        try:
            said, usage = await declined(deps.client, self.grader, item.question, outcome.text)
        except GradeFailed as exc:
            log.warning("eval: answer not graded (%s)", exc)
            return None, Usage()
        return said == (expect == "refuse"), usage

    async def aclose(self) -> None:
        """Close this event loop's model client (its connections belong to the loop)."""
        deps = self._deps.pop(asyncio.get_running_loop(), None)
        if deps is not None:
            await deps.client.close()


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
