"""The knowledge index: build time and size for 10,000 generated documents, a re-sync
with nothing changed, and query latency (goal: p99 < 10 ms); then how often the planned
query's top 5 (and top 1) agree with scoring every passage that holds any query word.

Run: .venv/bin/python -m bench.knowledge [--docs N] [--queries Q]   (from the repository root)

Documents are Markdown with a title, 3–6 headed sections of 1–3 paragraphs, drawn from a
vocabulary of 5,000 made-up words with a Zipf-like spread (a few common, many rare), so
postings look like real prose. Queries are 3–8 words from the same vocabulary.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from app.knowledge.index import Index
from bench.stats import p99


def vocabulary(rng: random.Random, size: int = 5_000) -> list[str]:
    syllables = ["ka", "lo", "mi", "ten", "ra", "su", "dor", "vi", "ne", "pol", "ga", "ry"]
    words = {"".join(rng.choices(syllables, k=rng.randint(2, 4))) for _ in range(size * 2)}
    return sorted(words)[:size]


def sentence(rng: random.Random, words: list[str], weights: list[float]) -> str:
    return " ".join(rng.choices(words, weights, k=rng.randint(8, 20))).capitalize() + "."


def document(rng: random.Random, words: list[str], weights: list[float]) -> str:
    lines = [f"# {' '.join(rng.choices(words, weights, k=3)).title()}", ""]
    for _ in range(rng.randint(3, 6)):
        lines += [f"## {' '.join(rng.choices(words, weights, k=2)).title()}", ""]
        for _ in range(rng.randint(1, 3)):
            lines += [" ".join(sentence(rng, words, weights) for _ in range(3)), ""]
    return "\n".join(lines)


def agree(index: Index, queries: list[str], floor: float = 1.0) -> None:
    """Share of the unplanned top 5 (hits at or above `floor`) the planned query also
    returns, and how often the best hit is the same."""
    shares, firsts = [], []
    for query in queries:
        exact = index.search(query, 5, floor, planned=False)
        if not exact:
            continue
        planned = index.search(query, 5, floor)
        found = {hit.passage.source_id for hit in planned}
        shares.append(sum(hit.passage.source_id in found for hit in exact) / len(exact))
        firsts.append(bool(planned) and planned[0].passage == exact[0].passage)
    if shares:
        print(f"Agreement with unplanned scoring ({len(shares)} queries with hits >= {floor})")
        print(f"  top 5 {statistics.mean(shares):6.1%}   top 1 {statistics.mean(firsts):6.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("--compare", type=int, default=300, help="queries checked unplanned")
    args = parser.parse_args()
    rng = random.Random(11)
    words = vocabulary(rng)
    weights = [1 / (rank + 1) for rank in range(len(words))]
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "docs"
        for n in range(args.docs):
            path = folder / f"team{n % 40}" / f"doc{n}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(document(rng, words, weights))
        database = Path(scratch) / "knowledge.sqlite3"
        index = Index(database)
        started = time.perf_counter()
        synced = index.sync(folder)
        built = time.perf_counter() - started
        size = database.stat().st_size
        started = time.perf_counter()
        again = index.sync(folder)
        resynced = time.perf_counter() - started
        print(f"Index of {len(synced.added):,} documents, {index.count():,} passages")
        print(f"  build        {built:6.2f} s   size {size / 1e6:6.1f} MB")
        print(f"  re-sync      {resynced:6.2f} s   ({again.unchanged:,} unchanged)")
        queries = [
            " ".join(rng.choices(words, weights, k=rng.randint(3, 8))) for _ in range(args.queries)
        ]
        samples = []
        for query in queries:
            started = time.perf_counter()
            index.search(query, 5)
            samples.append((time.perf_counter() - started) * 1000)
        print(f"Query, top 5 of {args.queries:,} random questions (ms)")
        print(f"  median {statistics.median(samples):6.3f}   p99 {p99(samples):6.3f}")
        agree(index, queries[: args.compare])
        index.close()


if __name__ == "__main__":
    main()
