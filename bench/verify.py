"""Time verify() on realistic answers: 1, 4 and 12 KB, both dialects, clean and needing repair.

Run: make bench   (or .venv/bin/python -m bench.verify [--runs N] [--labelled])
Prints median and p99 in microseconds per call, and µs per KB to show growth with size.
Every call verifies a new draft, as every attempt does; the question's side is warm, as it
is from a message's second attempt on (its first pays a few microseconds more).
`--labelled` times verify() once on each labelled draft of bench.efficacy's sets instead:
what real answers, of every size, cost on a first attempt.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

from app.verify import Dialect, verify
from app.verify.verdict import DIALECTS
from bench.stats import p99

COMMANDS = (
    "```\n$ make deploy ENV=staging SERVICE=billing\n$ kubectl rollout undo deploy/billing\n```"
)
QUESTION = "How do I deploy the billing service to staging, and how do I roll it back?"

PARAGRAPHS: dict[tuple[Dialect, bool], list[str]] = {
    ("mrkdwn", True): [
        "*Deploying billing to staging*\nMerge to `main` and the pipeline builds the image, "
        "runs the tests and deploys billing to staging. It takes about 8 minutes &amp; posts "
        "to <#C0123|deploys> when done.",
        "• *Check the rollout*: open <https://ci.example.com/billing|the pipeline> and wait "
        "for the green tick.\n• *Roll back*: press _Revert_ on the last deploy, or run the "
        "command below.",
        COMMANDS,
        "> If the migration step fails, the deploy stops before traffic moves, so staging "
        "keeps the previous version. Ask <@U0456> if the lock stays held.",
    ],
    ("mrkdwn", False): [
        "## Deploying billing to staging\nMerge to `main` and the pipeline builds the image, "
        "runs the tests and deploys billing to staging. It takes about 8 minutes & posts "
        "to <#C0123|deploys> when done.",
        "- **Check the rollout**: open [the pipeline](https://ci.example.com/billing) and "
        "wait for the green tick.\n- **Roll back**: press __Revert now__ on the last deploy.",
        "| Step | Time |\n|------|------|\n| build | 3 min |\n| deploy | 5 min |",
        COMMANDS,
    ],
    ("markdown", True): [
        "## Deploying billing to staging\nMerge to `main` and the pipeline builds the image, "
        "runs the tests and deploys billing to staging. It takes about 8 minutes & posts "
        "to the deploys channel when done.",
        "- **Check the rollout**: open [the pipeline](https://ci.example.com/billing) and "
        "wait for the green tick.\n- **Roll back**: press *Revert* on the last deploy.",
        COMMANDS,
        "> If the migration step fails, the deploy stops before traffic moves, so staging "
        "keeps the previous version. Ask <@U0456> if the lock stays held.",
    ],
    ("markdown", False): [
        "*Deploying billing to staging*\nMerge to `main` and the pipeline builds the image, "
        "runs the tests and deploys billing to staging. It takes about 8 minutes.",
        "- *Check the rollout:* open <https://ci.example.com/billing|the pipeline> and "
        "wait for the green tick.\n- [ ] roll back with <b>Revert</b> if needed",
        "---",
        "| Step | Time |\n|------|------|\n| build | 3 min |\n| deploy | 5 min |",
    ],
}


def answer(dialect: Dialect, clean: bool, size: int) -> str:
    """Paragraphs of the given kind, repeated to about `size` characters."""
    parts: list[str] = []
    paragraphs = PARAGRAPHS[(dialect, clean)]
    while sum(len(p) + 2 for p in parts) < size:
        parts.append(paragraphs[len(parts) % len(paragraphs)])
    return "\n\n".join(parts)


def drafts(text: str, runs: int) -> list[str]:
    """`runs` distinct drafts of `text`, as each attempt is a new draft: the same text again
    would hit the caches kept for the question's side (the answer's language, its links)
    and time only part of the work."""
    openers = ("Sure", "Here is how", "In short", "Yes", "Good question", "To do this")
    return [f"{openers[i % len(openers)]} ({i}): {text}" for i in range(runs)]


def measure(text: str, dialect: Dialect, runs: int) -> list[float]:
    verify(text, question=QUESTION, dialect=dialect)  # warm the regex and question caches
    samples = []
    gc.disable()
    for draft in drafts(text, runs):
        started = time.perf_counter_ns()
        verify(draft, question=QUESTION, dialect=dialect)
        samples.append((time.perf_counter_ns() - started) / 1000)
    gc.enable()
    return samples


def labelled() -> None:
    """verify() once on every labelled draft of bench.efficacy's sets, with its question,
    thread, sources and citations, as a first attempt pays it (nothing of it cached): what
    real answers cost, by size."""
    from bench.efficacy import SETS, load  # noqa: PLC0415 (only for this table)

    items = [item for folder in SETS.values() for item in load(folder)]
    calls = [
        (
            item.draft,
            {
                "question": item.question,
                "dialect": item.dialect,
                "sources": item.sources,
                "citations": item.citations,
                "thread": item.thread,
                "said": item.said,
                "instructions": item.instructions,
            },
        )
        for item in items
    ]
    verify("warm the patterns and the model", question="?")
    by_size: dict[str, list[float]] = {"< 1 KB": [], "1-4 KB": [], "> 4 KB": []}
    gc.disable()
    for draft, fields in calls:
        started = time.perf_counter_ns()
        verify(draft, **fields)  # type: ignore[arg-type]
        took = (time.perf_counter_ns() - started) / 1000
        size = "< 1 KB" if len(draft) < 1024 else "1-4 KB" if len(draft) <= 4096 else "> 4 KB"
        by_size[size].append(took)
    gc.enable()
    print(f"verify() once on each of {len(calls)} labelled drafts, first attempt (µs)")
    print(f"{'size':8} {'drafts':>6} {'median':>9} {'p99':>9}")
    for size, samples in (*by_size.items(), ("all", [t for s in by_size.values() for t in s])):
        if samples:
            median = statistics.median(samples)
            print(f"{size:8} {len(samples):>6} {median:>9.1f} {p99(samples):>9.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=2000, help="calls per case (default 2000)")
    parser.add_argument(
        "--labelled", action="store_true", help="time the labelled drafts of bench.efficacy"
    )
    args = parser.parse_args()
    if args.labelled:
        labelled()
        return
    runs = args.runs
    print(f"verify() on this machine, {runs} calls per case (µs)")
    header = ("dialect", "kind", "size", "median", "p99", "µs/KB", "passed", "repaired")
    print("{:9} {:7} {:>6} {:>9} {:>9} {:>7}  {:6}  {}".format(*header))
    for dialect in DIALECTS:
        for clean in (True, False):
            for size in (1024, 4096, 12288):
                text = answer(dialect, clean, size)
                verdict = verify(text, question=QUESTION, dialect=dialect)
                samples = measure(text, dialect, runs)
                median = statistics.median(samples)
                kind = "clean" if clean else "repair"
                assert not (clean and verdict.repaired), verdict.repaired
                per_kb = median / (len(text) / 1024)
                print(
                    f"{dialect:9} {kind:7} {len(text):>6} {median:>9.1f} {p99(samples):>9.1f} "
                    f"{per_kb:>7.1f}  {verdict.passed!s:6}  {len(verdict.repaired)}"
                )


if __name__ == "__main__":
    main()
