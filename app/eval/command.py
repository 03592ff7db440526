"""`python -m app eval DATASET`: run a dataset through the real loop and report; with
`--set KEY=VALUE` or `--prompt FILE`, run it again with the changes and print both side by
side. Exit 0, 1 when the last run's verified rate is under `--min-verified`, 2 when it
cannot run (bad arguments or settings, checked in app/eval/plan.py; a bad dataset; a model
the Models API does not know, app/eval/models.py) or when a run measured nothing."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from app.eval.dataset import Item, read_jsonl
from app.eval.experiment import Experiments
from app.eval.layout import paragraph
from app.eval.models import look_up
from app.eval.plan import EvalError, Plan
from app.eval.progress import Bar
from app.eval.report import compare, render
from app.eval.run import NOT_ASKED, Result, Runner, run_all
from app.eval.summary import Summary, summarize
from app.knowledge.libraries import Libraries
from app.settings import Settings
from app.telemetry.client import Telemetry
from app.verify import warm


def run(plan: Plan, settings: Settings, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Run the plan and print the report; the exit status. Before any item, every model
    the runs would ask is looked up (EvalError for a name the Models API does not know)."""
    local = plan.local
    telemetry = Telemetry.for_experiments(settings) if local is None else Telemetry.off()
    experiments = None
    try:
        if local is not None:
            items, title = read_jsonl(local), str(local)
        else:
            experiments = Experiments(telemetry)
            items = experiments.items(plan.dataset, Path.cwd())
            title = f"Langfuse dataset {plan.dataset}"
        ready = _ready(items, err)
        asyncio.run(look_up(plan))
        summaries = _runs(plan, ready, experiments, err)
    finally:
        asyncio.run(telemetry.close())  # bounded; a no-op when off
        if experiments is not None:
            experiments.close()
    if len(summaries) == 1:
        print(render(summaries[0], title), file=out)
    else:
        print(compare(summaries[0], summaries[1], title), file=out)
    if experiments is not None and experiments.failures.count:
        said = (
            f"Langfuse did not take all of the runs ({experiments.failures.count} sends "
            "failed, logged on stderr): what it shows of them is incomplete."
        )
        print(f"\n{paragraph(said)}", file=out)
    elif experiments is not None:
        said = (
            "Sent to Langfuse as experiment runs of the dataset: see Datasets → "
            f"{plan.dataset} → Experiments."
        )
        print(f"\n{paragraph(said)}", file=out)
    return _status(summaries, plan.min_verified, out)


def _ready(items: Sequence[Item], err: TextIO) -> list[Item]:
    """The items with a question (stubs from `collect` wait for a person)."""
    ready = [item for item in items if item.filled]
    if len(ready) < len(items):
        print(f"{len(items) - len(ready)} items have no question yet and are left out.", file=err)
    if not ready:
        raise EvalError("no item has a question to ask")
    return ready


def _runs(
    plan: Plan, items: Sequence[Item], experiments: Experiments | None, err: TextIO
) -> list[Summary]:
    """Each run of the plan; runs with the same docs settings share their indexes (a
    folder is synced once, not once a run)."""
    warm()
    summaries = []
    libraries: dict[tuple[object, ...], Libraries] = {}
    try:
        for setup, settings, instructions in plan.runs:
            docs = tuple(getattr(settings, name) for name in KNOWLEDGE_SETTINGS)
            shared = libraries.setdefault(docs, Libraries(settings))
            runner = Runner(settings, shared, instructions, setup.grader)
            runner.prepare(items)  # docs indexed before any item is timed
            bar = Bar(len(items), setup.label, err)
            if experiments is None:
                results = asyncio.run(_local(runner, items, plan.concurrency, bar))
            else:
                results = experiments.run(items, runner, setup, plan.concurrency, bar)
            summaries.append(summarize(setup, results))
    finally:
        for opened in libraries.values():
            opened.close()
    return summaries


# What a run's docs depend on: two runs that agree on these search the same indexes.
KNOWLEDGE_SETTINGS = tuple(name for name in Settings.model_fields if name.startswith("knowledge_"))


async def _local(runner: Runner, items: Sequence[Item], concurrency: int, bar: Bar) -> list[Result]:
    """The items through the loop; Ctrl-C stops the run at once (KeyboardInterrupt)."""
    interrupt = _Interrupt(asyncio.current_task())
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, interrupt)
    try:
        return await run_all(items, runner.run, concurrency, bar)
    except asyncio.CancelledError:
        if interrupt.asked:
            raise KeyboardInterrupt from None
        raise
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        interrupt.stop()  # the run has stopped: closing the clients is not cancelled
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CLOSE_WITHIN):
                await runner.aclose()


CLOSE_WITHIN = 2.0  # seconds the clients get to close after a run
AGAIN = 1.0  # seconds between cancellations after Ctrl-C, until the run has stopped


class _Interrupt:
    """Ctrl-C: cancel the run, and again every AGAIN seconds until it has stopped. One
    cancellation was not always enough: in test runs beside another suite, a run once went
    on for over a minute after a single Ctrl-C (a call under way took the cancellation and
    carried on; which one, it could not be caught doing again)."""

    def __init__(self, run: asyncio.Task[object] | None) -> None:
        self.run = run
        self.asked = False
        self._again: asyncio.TimerHandle | None = None

    def __call__(self) -> None:
        self.asked = True
        if self.run is not None and not self.run.done():
            self.run.cancel()
            self._again = asyncio.get_running_loop().call_later(AGAIN, self)

    def stop(self) -> None:
        """The run has stopped: no cancellation comes after this."""
        self.run = None
        if self._again is not None:
            self._again.cancel()


def _status(summaries: Sequence[Summary], threshold: float | None, out: TextIO) -> int:
    """2 when a run measured nothing (most items never reached the model); else the
    threshold on the last run's verified rate."""
    for summary in summaries:
        unanswered = sum(n for reason, n in summary.outcomes.items() if reason in NOT_ASKED)
        if unanswered * 2 >= summary.items:
            said = (
                f"{summary.setup.label}: {unanswered} of {summary.items} items never got an "
                "answer from the model (unavailable or rejected): check the key, the model "
                "names and the service; these rates measure nothing."
            )
            print(f"\n{paragraph(said)}", file=out)
            return 2
    if threshold is None:
        return 0
    rate = summaries[-1].verified_rate * 100
    if rate < threshold:
        print(f"\nVerified {rate:.1f}% is under --min-verified {threshold:g}%.", file=out)
        return 1
    print(f"\nVerified {rate:.1f}% meets --min-verified {threshold:g}%.", file=out)
    return 0
