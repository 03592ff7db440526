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
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.verify.filler import BITS, SCALE, Model, bucket, features, pack, short

SENTENCES = Path(__file__).parent / "filler_sentences"
WEIGHTS = Path(__file__).parent.parent / "app" / "verify" / "filler.json"
EPOCHS = 30
RATE = 0.5  # the first epoch's learning rate, divided by the epoch's number after
L2 = 1e-4
MIN_COUNT = 2  # a feature seen fewer times in the sentences is not learnt
SEED = 7
LIMIT = 32767  # of a weight, in units of SCALE
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
    buckets of the features seen at least MIN_COUNT times, each example's step spread over
    its features as `Model.score` spreads its weights."""
    seen: Counter[str] = Counter()
    examples = []
    for sentence in data:
        grams = features(sentence.text)
        seen.update(grams)
        examples.append((grams, 1.0 if sentence.filler else 0.0))
    kept = [
        ([bucket(g) for g in sorted(grams) if seen[g] >= MIN_COUNT], y) for grams, y in examples
    ]
    weights: defaultdict[int, float] = defaultdict(float)
    bias = 0.0
    shuffle = random.Random(SEED)
    for epoch in range(EPOCHS):
        shuffle.shuffle(kept)
        rate = RATE / (1 + epoch)
        for indices, y in kept:
            norm = math.sqrt(len(indices)) if indices else 1.0
            z = bias + sum(weights[i] for i in indices) / norm
            error = y - 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            bias += rate * error
            step = rate * error / norm
            for i in indices:
                weights[i] += step - rate * L2 * weights[i]
    units = array("h", bytes(2 << BITS))
    for index, weight in weights.items():
        unit = round(weight / SCALE)
        if abs(unit) > LIMIT:
            raise ValueError(f"a weight of {weight:.2f} does not fit in 16 bits of {SCALE}")
        units[index] = unit
    learnt = bytearray(1 << (BITS - 3))
    for gram, count in seen.items():
        if count >= MIN_COUNT and short(gram):
            index = bucket(gram)
            learnt[index >> 3] |= 1 << (index & 7)
    return Model(round(bias, 4), units, bytes(learnt))


def write(model: Model, data_digest: str, path: Path = WEIGHTS) -> None:
    body = {"sentences": data_digest, **pack(model)}
    path.write_text(json.dumps(body, separators=(",", ":")) + "\n", "utf-8")


def _scored(folds: Iterable[tuple[list[Sentence], list[Sentence]]]) -> list[tuple[float, Sentence]]:
    out: list[tuple[float, Sentence]] = []
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
        used = sum(1 for unit in model.weights if unit)
        print(f"{len(data)} sentences, {used} buckets of {1 << BITS} weighed -> {WEIGHTS}")
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
