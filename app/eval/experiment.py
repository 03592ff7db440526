"""A run on a Langfuse dataset, recorded as an experiment (a dataset run) by the SDK's own
experiment runner: each item's trace holds the loop's observations (the same as the bot's:
calls, checks, tokens) under the SDK's item span, and Vouch's scores (`verified`,
`pass_on_first_attempt`, `attempts_to_verify`, `issue_code`, ..., and
`expected_behaviour`); the run gets run-level scores (`verified_rate`, ...), so runs are
compared in Langfuse's UI. Content goes to Langfuse here only: the items' own input and
Vouch's reply to each, shown with the run."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langfuse import Evaluation

from app.eval.dataset import DatasetError, Item, from_langfuse
from app.eval.plan import Setup
from app.eval.run import Progress, Result, Runner
from app.eval.summary import summarize
from app.telemetry.client import Telemetry
from app.telemetry.guard import guarded
from app.telemetry.scores import ScoreRow
from app.telemetry.trace import Trace

log = logging.getLogger("vouch.eval")
SENDERS = ("langfuse", "opentelemetry")  # the loggers of what sends to Langfuse


class Failures(logging.Handler):
    """Counts what the SDKs could not send: they log it (the span exporter and the score
    thread retry, then drop) and raise nothing, so this is how a run knows Langfuse did
    not get all of it."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


class Experiments:
    """Langfuse datasets and experiment runs (blocking: the SDK's HTTP calls)."""

    def __init__(self, telemetry: Telemetry) -> None:
        langfuse = telemetry.langfuse
        if langfuse is None:
            raise DatasetError("set LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY to use a dataset")
        self.telemetry = telemetry
        self.langfuse = langfuse
        self.failures = Failures()
        for name in SENDERS:
            logging.getLogger(name).addHandler(self.failures)

    def close(self) -> None:
        for name in SENDERS:
            logging.getLogger(name).removeHandler(self.failures)

    def items(self, name: str, base: Path) -> list[Item]:
        """The dataset's active items (archived ones are left out, as Langfuse's runs do)."""
        try:
            dataset = self.langfuse.get_dataset(name)
        except Exception as exc:  # the SDK raises its API errors and httpx's
            status = getattr(exc, "status_code", None)
            if status == 404:
                raise DatasetError(f"Langfuse has no dataset named {name!r}") from None
            raise DatasetError(
                f"Langfuse did not give the dataset ({type(exc).__name__})"
            ) from None
        active = [i for i in dataset.items if str(getattr(i, "status", "ACTIVE")) != "ARCHIVED"]
        items = [from_langfuse(item, base) for item in active]
        if not items:
            raise DatasetError(f"the dataset {name!r} holds no active items")
        return items

    def run(
        self,
        items: Sequence[Item],
        runner: Runner,
        setup: Setup,
        concurrency: int,
        progress: Progress,
    ) -> list[Result]:
        """Run the items as one experiment; the results in the dataset's order."""
        done: dict[str, Result] = {}
        by_id = {item.id: item for item in items}
        sources = [item.source for item in items]
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")

        async def task(*, item: Any, **_: Any) -> dict[str, Any]:
            result = await self._one(by_id[item.id], runner)
            done[item.id] = result
            progress(result)
            return _output(result)

        self.langfuse.run_experiment(
            name=f"vouch · {setup.label}",
            run_name=f"vouch · {setup.label} · {stamp}",
            description="python -m app eval",
            data=sources,
            task=task,
            run_evaluators=[_run_scores(setup, done)],
            max_concurrency=concurrency,
            metadata={
                "model": setup.model,
                "judge": setup.judge or "none",
                "max_attempts": str(setup.attempts),
                "changes": setup.label,
            },
        )
        missing = [item.id for item in items if item.id not in done]
        for item_id in missing:  # the SDK logs a task that raised; ours never should
            done[item_id] = Result(item_id, by_id[item_id].expect, None, 0.0, error="not_run")
        return [done[item.id] for item in items]

    async def _one(self, item: Item, runner: Runner) -> Result:
        """One item under the SDK's item span: the loop's trace as the bot's, and scores."""
        langfuse = self.langfuse
        trace_id = langfuse.get_current_trace_id() or ""
        parent = langfuse.get_current_observation_id()
        root = guarded(
            "trace",
            lambda: langfuse.start_observation(
                trace_context={"trace_id": trace_id, "parent_span_id": parent or ""},
                name="vouch.answer",
                as_type="span",
            ),
        )
        trace = Trace(trace_id, root, self.telemetry)
        try:
            result = await runner.run(item, observer=trace)
            if result.outcome is None:
                trace.root.fail(result.error or "failed")
            trace.score()
            if result.met is not None:
                row: ScoreRow = ("expected_behaviour", 1.0 if result.met else 0.0, "BOOLEAN", "")
                self.telemetry.scores(trace_id, [row], at=None)
        finally:
            trace.root.end()
        return result


def _output(result: Result) -> dict[str, Any]:
    """What Langfuse shows as the item's output: Vouch's reply (the verified answer or the
    canned one) and what happened."""
    outcome = result.outcome
    return {
        "reply": outcome.text if outcome is not None else None,
        "outcome": result.reason,
        "verified": result.verified,
        "attempts": len(outcome.attempts) if outcome is not None else 0,
        "issue_codes": [list(a.codes) for a in outcome.attempts] if outcome is not None else [],
        "cited": len(outcome.cited) if outcome is not None else 0,
        "as_expected": result.met,
    }


def _run_scores(setup: Setup, done: dict[str, Result]) -> Callable[..., list[Evaluation]]:
    """The run-level scores: the report's figures (app.eval.summary.summarize) of the
    results, not of what the SDK passes."""

    def vouch_rates(**_: Any) -> list[Evaluation]:
        if not done:
            return []
        made = summarize(setup, list(done.values()))
        rates = [
            Evaluation(name="verified_rate", value=made.verified_rate),
            Evaluation(name="pass_on_first_attempt_rate", value=made.first_pass_rate),
        ]
        if made.attempts_to_verify is not None:
            rates.append(Evaluation(name="avg_attempts_to_verify", value=made.attempts_to_verify))
        met, judged = made.met
        if judged:
            rates.append(Evaluation(name="expected_behaviour_rate", value=met / judged))
        return rates

    return vouch_rates
