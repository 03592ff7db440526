"""Help-channel triage's first pass (app/slack/triage.py) on the labelled channel messages
written blind (tests/fixtures/triage/, FORMAT.md): per label, how many it leaves alone and
why, and how many it leaves to the model. A question left alone is a question Vouch would
never answer: the figure to keep at 0.

The rules were written looking at batch1 and batch2 only (`--set dev`); batch3 and batch4
(`--set heldout`, the default) measure them. The model's part is not measured here: it
needs the real model.

Run: .venv/bin/python -m bench.triage [--set dev|heldout|all]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from app.slack.triage import Triage, triage

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "triage"
SETS = {
    "dev": ("batch1", "batch2"),
    "heldout": ("batch3", "batch4"),
    "all": ("batch1", "batch2", "batch3", "batch4"),
}


def items(name: str) -> list[dict[str, object]]:
    return [
        json.loads(line)
        for batch in SETS[name]
        for line in (FIXTURES / f"{batch}.jsonl").read_text().splitlines()
        if line.strip()
    ]


def decided(item: dict[str, object]) -> Triage:
    files = item.get("files")
    return triage(str(item["text"]), len(files) if isinstance(files, list) else 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=SETS, default="heldout")
    name = parser.parse_args().set
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


if __name__ == "__main__":
    main()
