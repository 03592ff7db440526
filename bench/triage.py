"""Help-channel triage (app/slack/triage.py) on the labelled channel messages written blind
(tests/fixtures/triage/, FORMAT.md): per label, how many the first pass leaves alone and
why, and how many it leaves to the model. A question left alone is a question Vouch would
never answer: the figure to keep at 0.

With `--model`, what the first pass leaves goes to the model too, as a worker asks it
(app/agent/question.py `decide`: JUDGE_MODEL at JUDGE_MAX_TOKENS, 30 s each, with the Anthropic
settings of the environment or .env), and the figures are end to end against the targets:
Vouch takes at least 90% of the questions, and at most 2% of what it should leave alone.
A message the model could not decide on is left alone (as in Vouch) and counted apart.

The rules were written looking at batch1 and batch2 only (`--set dev`); batch3 and batch4
(`--set heldout`, the default) measure them.

Run: .venv/bin/python -m bench.triage [--set dev|heldout|all] [--model]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from app.agent import question
from app.agent.model import Usage, make_client
from app.settings import Settings, SettingsError, load_settings
from app.slack.triage import Triage, triage
from bench.stats import p99

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "triage"
SETS = {
    "dev": ("batch1", "batch2"),
    "heldout": ("batch3", "batch4"),
    "all": ("batch1", "batch2", "batch3", "batch4"),
}
TAKE_AT_LEAST = 0.90  # of the questions
ANSWER_AT_MOST = 0.02  # of the messages to leave alone
AT_ONCE = 4  # model calls in flight


def items(name: str) -> list[dict[str, object]]:
    return [
        json.loads(line)
        for batch in SETS[name]
        for line in (FIXTURES / f"{batch}.jsonl").read_text().splitlines()
        if line.strip()
    ]


def decided(item: dict[str, object]) -> Triage:
    return triage(str(item["text"]), files(item))


def files(item: dict[str, object]) -> int:
    """How many files a labelled message shares."""
    shared = item.get("files")
    return len(shared) if isinstance(shared, list) else 0


@dataclass(frozen=True, slots=True)
class Asked:
    """The model's decision on one message: a category, or None (no decision)."""

    category: question.Category | None
    usage: Usage
    seconds: float


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=SETS, default="heldout")
    parser.add_argument(
        "--model", action="store_true", help="ask the model about what the first pass leaves"
    )
    args = parser.parse_args(argv)
    name = args.set
    rows = [(item, decided(item)) for item in items(name)]
    print(f"triage's first pass on {len(rows)} messages ({name}: {', '.join(SETS[name])})\n")
    print("| Label | Messages | Left alone | Why | To the model |")
    print("|---|---:|---:|---|---:|")
    for label in sorted({str(item["label"]) for item, _ in rows}):
        of = [t for item, t in rows if item["label"] == label]
        why = Counter(t.category for t in of if t.leave)
        reasons = ", ".join(f"{c} {n}" for c, n in why.most_common())
        left = sum(why.values())
        print(f"| {label} | {len(of)} | {left} | {reasons} | {len(of) - left} |")
    questions = [(item, t) for item, t in rows if item["take"]]
    others = [(item, t) for item, t in rows if not item["take"]]
    dropped = [item["id"] for item, t in questions if t.leave]
    left = sum(t.leave for _, t in others)
    print(
        f"\nquestions left alone: {len(dropped)} of {len(questions)} {dropped or ''}\n"
        f"other messages left alone without a model call: {left} of {len(others)} "
        f"({100 * left / len(others):.0f}%)\n"
        f"messages the model is asked about: {sum(not t.leave for _, t in rows)} of {len(rows)}"
    )
    if not args.model:
        return 0
    try:
        settings = load_settings()
    except SettingsError as exc:
        print(f"\n--model: {exc}")
        return 2
    if settings.anthropic_provider == "anthropic" and settings.anthropic_api_key is None:
        print("\n--model needs ANTHROPIC_API_KEY (or another provider's settings)")
        return 2
    asked = asyncio.run(ask_model(settings, [item for item, t in rows if not t.leave]))
    return end_to_end(rows, asked, settings.judge_model)


async def ask_model(settings: Settings, left: list[dict[str, object]]) -> dict[str, Asked]:
    """The model's decision on each message, by id, AT_ONCE at a time."""
    client = make_client(settings)
    gate = asyncio.Semaphore(AT_ONCE)

    async def one(item: dict[str, object]) -> tuple[str, Asked]:
        async with gate:  # as a worker asks it (app/slack/triage.py Triaging.decide)
            started = time.perf_counter()
            got = await question.decide(
                client,
                settings.judge_model,
                settings.judge_max_tokens,
                str(item["text"]),
                files(item),
            )
            category, usage = (None, Usage()) if isinstance(got, str) else got
            return str(item["id"]), Asked(category, usage, time.perf_counter() - started)

    try:
        return dict(await asyncio.gather(*(one(item) for item in left)))
    finally:
        await client.close()


def end_to_end(
    rows: list[tuple[dict[str, object], Triage]], asked: dict[str, Asked], model: str
) -> int:
    """Print what Vouch would take, per label and against the targets; 0 when both are met."""

    def taken(item: dict[str, object], first: Triage) -> bool:
        return not first.leave and asked[str(item["id"])].category == "question"

    print(f"\nend to end, with {model} on what the first pass leaves:\n")
    print("| Label | Messages | Taken | Left by the rules | Left by the model | No decision |")
    print("|---|---:|---:|---:|---:|---:|")
    for label in sorted({str(item["label"]) for item, _ in rows}):
        of = [(item, t) for item, t in rows if item["label"] == label]
        by_rules = sum(t.leave for _, t in of)
        none = sum(not t.leave and asked[str(i["id"])].category is None for i, t in of)
        took = sum(taken(i, t) for i, t in of)
        by_model = len(of) - took - by_rules - none
        print(f"| {label} | {len(of)} | {took} | {by_rules} | {by_model} | {none} |")
    questions = [(item, t) for item, t in rows if item["take"]]
    others = [(item, t) for item, t in rows if not item["take"]]
    missed = [str(i["id"]) for i, t in questions if not taken(i, t)]
    wrongly = [str(i["id"]) for i, t in others if taken(i, t)]
    took_share = 1 - len(missed) / len(questions)
    wrong_share = len(wrongly) / len(others)
    calls = list(asked.values())
    seconds = [a.seconds for a in calls] or [0.0]
    usage = sum((a.usage for a in calls), Usage())
    met = took_share >= TAKE_AT_LEAST and wrong_share <= ANSWER_AT_MOST
    print(
        f"\nquestions taken: {len(questions) - len(missed)} of {len(questions)} "
        f"({100 * took_share:.1f}%; target at least {100 * TAKE_AT_LEAST:.0f}%) "
        f"{missed or ''}\n"
        f"other messages taken: {len(wrongly)} of {len(others)} "
        f"({100 * wrong_share:.1f}%; target at most {100 * ANSWER_AT_MOST:.0f}%) "
        f"{wrongly or ''}\n"
        f"model calls: {len(calls)}, no decision {sum(a.category is None for a in calls)}; "
        f"median {1000 * statistics.median(seconds):.0f} ms, "
        f"p99 {1000 * p99(seconds):.0f} ms; "
        f"tokens {usage.input + usage.cache_read + usage.cache_write} in, {usage.output} out\n"
        f"targets {'met' if met else 'not met'}"
    )
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
