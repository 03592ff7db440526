"""NO_CONTENT's model of filler sentences: train it, and measure it by cross-validation.

Run: .venv/bin/python -m bench.filler [--train]
The sentences are in bench/filler_sentences/*.jsonl, one JSON object a line: `lang`,
`label` ("filler" or "content"), `type` (greeting, thanks, courtesy, empathy, restate,
deferral, plan, promise, generic, closing_offer, meta, wait; or terse, courtesy_fact,
empathy_fact, first_person_fact, steps, depends_fact, offer_fact, restate_answer, reason,
plain_fact) and `text`. Helper sessions wrote them blind to the efficacy sets and to the
rule, from a brief that asked for hard cases: content built to look like filler.

Without --train it prints, from five folds (each fifth of the sentences scored by a model
learnt on the other four) and from leaving out each language in turn, the share of filler
sentences scored above each threshold, and the share of content sentences, per type.
With --train it learns from every sentence and writes app/verify/filler.json.

Training is deterministic: the same sentences give the same weights (a seeded shuffle),
and the file records a digest of the sentences it was learnt from, which a test compares.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.verify.filler import Model, features

SENTENCES = Path(__file__).parent / "filler_sentences"
WEIGHTS = Path(__file__).parent.parent / "app" / "verify" / "filler.json"
EPOCHS = 30
RATE = 0.5  # the first epoch's learning rate, divided by the epoch's number after
L2 = 1e-4
MIN_COUNT = 2  # a feature seen fewer times in the sentences is not learnt
SEED = 7
DIGITS = 4  # of a weight in the file
THRESHOLDS = (0.0, 0.5, 1.0, 1.5, 2.0)
FOLDS = 5


@dataclass(frozen=True)
class Sentence:
    lang: str
    label: str
    type: str
    text: str

    @property
    def filler(self) -> bool:
        return self.label == "filler"


def sentences(folder: Path = SENTENCES) -> list[Sentence]:
    found = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                raw = json.loads(line)
                found.append(Sentence(raw["lang"], raw["label"], raw["type"], raw["text"]))
    return found


def digest(folder: Path = SENTENCES) -> str:
    """The sentences' digest: their files' names and bytes, in order."""
    sha = hashlib.sha256()
    for path in sorted(folder.glob("*.jsonl")):
        sha.update(path.name.encode())
        sha.update(path.read_bytes())
    return sha.hexdigest()


def train(data: Sequence[Sentence]) -> Model:
    """A logistic regression by stochastic gradient descent with L2 decay, over the
    features seen at least MIN_COUNT times, each example's step spread over its features
    as `Model.score` spreads its weights."""
    seen: Counter[str] = Counter()
    examples = []
    for sentence in data:
        grams = features(sentence.text)
        seen.update(grams)
        examples.append((grams, 1.0 if sentence.filler else 0.0))
    kept = [(sorted(g for g in grams if seen[g] >= MIN_COUNT), y) for grams, y in examples]
    weights: defaultdict[str, float] = defaultdict(float)
    bias = 0.0
    shuffle = random.Random(SEED)
    for epoch in range(EPOCHS):
        shuffle.shuffle(kept)
        rate = RATE / (1 + epoch)
        for grams, y in kept:
            norm = math.sqrt(len(grams)) if grams else 1.0
            z = bias + sum(weights[g] for g in grams) / norm
            error = y - 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            bias += rate * error
            step = rate * error / norm
            for g in grams:
                weights[g] += step - rate * L2 * weights[g]
    return Model(
        round(bias, DIGITS),
        {g: round(w, DIGITS) for g, w in sorted(weights.items()) if round(w, DIGITS)},
    )


def write(model: Model, data_digest: str, path: Path = WEIGHTS) -> None:
    body = {"sentences": data_digest, "bias": model.bias, "weights": dict(model.weights)}
    path.write_text(json.dumps(body, ensure_ascii=False, separators=(",", ":")) + "\n", "utf-8")


def _scored(folds: Iterable[tuple[list[Sentence], list[Sentence]]]) -> list[tuple[float, Sentence]]:
    out = []
    for learn, test in folds:
        model = train(learn)
        out.extend((model.score(s.text), s) for s in test)
    return out


def _table(scored: list[tuple[float, Sentence]], title: str) -> None:
    print(f"{title}: share of sentences scored above each threshold\n")
    print("| Label | Type | Sentences | " + " | ".join(f"> {t}" for t in THRESHOLDS) + " |")
    print("|---|---|---:|" + "---:|" * len(THRESHOLDS))
    groups: defaultdict[tuple[str, str], list[float]] = defaultdict(list)
    for value, s in scored:
        groups[(s.label, s.type)].append(value)
        groups[(s.label, "all")].append(value)
    for (label, kind), values in sorted(groups.items()):
        shares = " | ".join(f"{sum(v > t for v in values) / len(values):.2f}" for t in THRESHOLDS)
        print(f"| {label} | {kind} | {len(values)} | {shares} |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", action="store_true", help="write app/verify/filler.json")
    args = parser.parse_args()
    data = sentences()
    if args.train:
        model = train(data)
        write(model, digest())
        print(f"{len(data)} sentences, {len(model.weights)} weights -> {WEIGHTS}")
        return
    order = list(range(len(data)))
    random.Random(SEED).shuffle(order)
    folds = [
        (
            [data[i] for j, i in enumerate(order) if j % FOLDS != k],
            [data[i] for j, i in enumerate(order) if j % FOLDS == k],
        )
        for k in range(FOLDS)
    ]
    _table(_scored(folds), f"{FOLDS} folds")
    languages = sorted({s.lang for s in data})
    by_language = [
        ([s for s in data if s.lang != x], [s for s in data if s.lang == x]) for x in languages
    ]
    _table(_scored(by_language), "each language left out")


if __name__ == "__main__":
    main()
