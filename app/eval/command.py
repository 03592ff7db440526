"""`python -m app eval DATASET`: run a dataset through the real loop and report; with
`--set KEY=VALUE` or `--prompt FILE`, run it again with the changes and print both side by
side. Exit 0, 1 when the last run's verified rate is under `--min-verified`, 2 when it
cannot run (bad settings, dataset or arguments)."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from pydantic import SecretStr

from app.eval.dataset import Item, read_jsonl
from app.eval.experiment import Experiments
from app.eval.progress import Bar
from app.eval.report import Setup, Summary, compare, render, summarize
from app.eval.run import NOT_ASKED, Result, Runner, run_all
from app.knowledge.libraries import Libraries
from app.settings import Settings, SettingsError, load_settings
from app.telemetry.client import Telemetry
from app.verify import language


class EvalError(Exception):
    """The evaluation cannot run: one sentence for the terminal."""


@dataclass(frozen=True)
class Plan:
    """What to run: the dataset, and the settings of each run (one, or two to compare)."""

    dataset: str
    runs: tuple[tuple[Setup, Settings, str], ...]  # (setup, settings, standing instructions)
    concurrency: int
    min_verified: float | None  # percent


def plan(
    settings: Settings,
    dataset: str,
    changes: Sequence[str],
    prompt: Path | None,
    *,
    concurrency: int = 4,
    min_verified: float | None = None,
    baseline: bool = True,
) -> Plan:
    """The runs: the configured settings, then (with changes) the settings changed."""
    if not 1 <= concurrency <= 32:
        raise EvalError("--concurrency takes 1 to 32")
    if min_verified is not None and not 0 <= min_verified <= 100:
        raise EvalError("--min-verified takes a percentage, 0 to 100")
    updates = _changes(changes)
    instructions = ""
    if prompt is not None:
        try:
            instructions = prompt.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise EvalError(f"cannot read --prompt {prompt}: {type(exc).__name__}") from None
        if not instructions:
            raise EvalError(f"--prompt {prompt} is empty")
    grader = settings.judge_model  # one ruler for both runs: the configured judge's model
    runs = [(_setup("configured", settings, grader), settings, "")]
    if updates or instructions:
        try:
            changed = load_settings(**{**dict(settings), **updates})  # validated again
        except SettingsError as exc:
            raise EvalError(f"--set: {exc}") from None
        label = " ".join(_shown(name, value) for name, value in updates.items())
        if prompt is not None:
            label = " ".join(filter(None, (label, f"prompt {prompt.name}")))
        runs.append((_setup(label, changed, grader), changed, instructions))
        if not baseline:
            runs = runs[1:]
    elif not baseline:
        raise EvalError("--no-baseline needs --set or --prompt: there is nothing else to run")
    return Plan(dataset, tuple(runs), concurrency, min_verified)


# What --set may change: the settings a message is answered with. The others (Slack,
# Langfuse, the record, the server) play no part in an evaluation.
ANSWERING = re.compile(
    r"(anthropic_.*|cloud_ml_region|response_format|max_attempts|message_deadline|tool_.*"
    r"|judge_.*|knowledge_.*)"
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,60}")


def _changes(changes: Sequence[str]) -> dict[str, str]:
    """--set KEY=VALUE pairs as settings' field names: each a setting a message is answered
    with, once."""
    fields = set(Settings.model_fields)
    updates: dict[str, str] = {}
    for change in changes:
        key, equals, value = change.partition("=")
        name = key.strip().lower()
        shown = repr(key.strip().upper()) if _NAME.fullmatch(key.strip()) else "that"
        if not equals or name not in fields:
            raise EvalError(
                f"--set takes KEY=VALUE where KEY is a setting (see .env.example), not {shown}"
            )
        if not ANSWERING.fullmatch(name):
            raise EvalError(f"--set {shown}: it plays no part in answering, so eval ignores it")
        if name in updates:
            raise EvalError(f"--set {shown} is given twice")
        updates[name] = value
    return updates


def _shown(name: str, value: str) -> str:
    """A change as the report, the progress bar and Langfuse show it: a secret's value
    never (its field is a SecretStr)."""
    secret = Settings.model_fields[name].annotation in (SecretStr, SecretStr | None)
    return f"{name.upper()}={'***' if secret else value}"


def _setup(label: str, settings: Settings, grader: str) -> Setup:
    judge = settings.judge_model if settings.judge_enabled else None
    return Setup(label, settings.anthropic_model, judge, settings.max_attempts, grader)


def run(plan: Plan, settings: Settings, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Run the plan and print the report; the exit status."""
    if any(_no_key(s) for _, s, _ in plan.runs):
        raise EvalError("ANTHROPIC_API_KEY is not set: the evaluation asks the real model")
    local = Path(plan.dataset)
    is_file = local.suffix == ".jsonl" or local.is_file()
    telemetry = Telemetry.off() if is_file else Telemetry.for_experiments(settings)
    experiments = None
    try:
        if is_file:
            items, title = read_jsonl(local), str(local)
        elif telemetry.langfuse is None:
            raise EvalError(
                f"{plan.dataset} is not a file, and without LANGFUSE_PUBLIC_KEY and "
                "LANGFUSE_SECRET_KEY it cannot be a Langfuse dataset"
            )
        else:
            experiments = Experiments(telemetry)
            items = experiments.items(plan.dataset, Path.cwd())
            title = f"Langfuse dataset {plan.dataset}"
        summaries = _runs(plan, _ready(items, err), experiments, err)
    finally:
        asyncio.run(telemetry.close())  # bounded; a no-op when off
        if experiments is not None:
            experiments.close()
    if len(summaries) == 1:
        print(render(summaries[0], title), file=out)
    else:
        print(compare(summaries[0], summaries[1], title), file=out)
    if experiments is not None and experiments.failures.count:
        print(
            f"\nLangfuse did not take all of the runs ({experiments.failures.count} sends "
            "failed, logged on stderr): what it shows of them is incomplete.",
            file=out,
        )
    elif experiments is not None:
        print(
            "\nSent to Langfuse as experiment runs of the dataset: see Datasets → "
            f"{plan.dataset} → Experiments.",
            file=out,
        )
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
    language.warm()
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
    try:
        return await run_all(items, runner.run, concurrency, bar)
    finally:
        await runner.aclose()


def _status(summaries: Sequence[Summary], threshold: float | None, out: TextIO) -> int:
    """2 when a run measured nothing (most items never reached the model); else the
    threshold on the last run's verified rate."""
    for summary in summaries:
        unanswered = sum(n for reason, n in summary.outcomes.items() if reason in NOT_ASKED)
        if unanswered * 2 >= summary.items:
            print(
                f"\n{summary.setup.label}: {unanswered} of {summary.items} items never got an "
                "answer from the model (unavailable or rejected): check the key, the model "
                "names and the service; these rates measure nothing.",
                file=out,
            )
            return 2
    if threshold is None:
        return 0
    rate = summaries[-1].verified_rate * 100
    if rate < threshold:
        print(f"\nVerified {rate:.1f}% is under --min-verified {threshold:g}%.", file=out)
        return 1
    print(f"\nVerified {rate:.1f}% meets --min-verified {threshold:g}%.", file=out)
    return 0


def _no_key(settings: Settings) -> bool:
    return settings.anthropic_provider == "anthropic" and settings.anthropic_api_key is None
