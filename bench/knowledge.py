"""The knowledge index: first how well it finds, on a labelled set of questions over two
team-docs folders; then build time and size for 10,000 generated documents, a re-sync with
nothing changed, and query latency (goal: p99 < 10 ms); then how often the planned query's
top 5 (and top 1) agree with scoring every passage that holds any query word.

Run: .venv/bin/python -m bench.knowledge [--docs N] [--queries Q]   (from the repository root)
     .venv/bin/python -m bench.knowledge --quality      (the labelled set only, a second)

The labelled set (tests/fixtures/knowledge/questions.jsonl) asks questions of the fixture
docs (tests/fixtures/knowledge, 5 files) and of a larger handbook (tests/fixtures/
knowledge-team, 40 files in 7 languages), each labelled as answered by the docs (with the
passages that answer it), answered only together with the thread's earlier turns, or not
covered at all. They go through Knowledge.sources, as a message does, with the default
KNOWLEDGE_TOP_K and KNOWLEDGE_MIN_RELEVANCE.

Documents are Markdown with a title, 3–6 headed sections of 1–3 paragraphs, drawn from a
vocabulary of 5,000 made-up words with a Zipf-like spread (a few common, many rare), so
postings look like real prose. Queries are 3–8 words from the same vocabulary.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from app.agent.conversation import Conversation, Turn
from app.knowledge.index import Index
from app.knowledge.retrieve import Knowledge
from app.settings import Settings
from app.verify import Source
from bench.stats import p99

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
FOLDERS = {"small": FIXTURES / "knowledge", "team": FIXTURES / "knowledge-team"}
QUESTIONS = FIXTURES / "knowledge" / "questions.jsonl"
RANKS = (1, 3)  # recall at these k, and at KNOWLEDGE_TOP_K


@dataclass(frozen=True)
class Question:
    id: str
    folder: str  # a key of FOLDERS
    kind: str  # "covered", "thread" (answered only with the earlier turns) or "uncovered"
    lang: str
    message: str
    thread: tuple[str, ...]  # earlier turns, oldest first, starting with the user's
    answers: tuple[str, ...]  # "path" or "path#heading": passages that answer it

    def conversation(self) -> Conversation:
        roles: tuple[Literal["user"], Literal["assistant"]] = ("user", "assistant")
        turns = tuple(Turn(roles[n % 2], text) for n, text in enumerate(self.thread))
        return Conversation(turns, self.message)

    def answered_by(self, source: Source, paths: dict[str, str]) -> bool:
        """Whether `source` is one of the labelled passages (`paths`: source id → path)."""
        for answer in self.answers:
            path, _, heading = answer.partition("#")
            if paths[source.id] == path and (
                not heading or source.title == heading or source.title.endswith(f"› {heading}")
            ):
                return True
        return False


@dataclass
class Quality:
    """What the labelled questions of one folder got."""

    folder: str
    k: int
    found: dict[int, int] = field(default_factory=dict)  # covered questions answered in top n
    covered: int = 0
    thread_found: int = 0  # thread questions answered within the top k
    threads: int = 0
    silent: int = 0  # uncovered questions given no source
    uncovered: int = 0
    false_sources: int = 0  # sources given to uncovered questions
    misses: list[str] = field(default_factory=list)  # ids, for looking into

    def recall(self, n: int) -> float:
        return self.found.get(n, 0) / max(self.covered, 1)


def load(path: Path = QUESTIONS) -> list[Question]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for row in rows:
        row["thread"], row["answers"] = tuple(row["thread"]), tuple(row["answers"])
    return [Question(**row) for row in rows]


def quality(
    folder: str, questions: Sequence[Question], scratch: Path, settings: Settings | None = None
) -> Quality:
    """The folder's questions asked through Knowledge.sources with `settings`' top k and
    floor (the defaults if none)."""
    settings = settings or Settings(_env_file=None)
    index = Index(scratch / f"{folder}.sqlite3")
    index.rebuild(FOLDERS[folder])
    paths = dict(index.db.execute("SELECT source_id, path FROM passages"))
    knowledge = Knowledge(index, settings.knowledge_top_k, settings.knowledge_min_relevance)
    got = Quality(folder, settings.knowledge_top_k)
    ranks = sorted({*RANKS, got.k})
    for question in (q for q in questions if q.folder == folder):
        sources = knowledge.sources(question.conversation())
        hit = next((n for n, s in enumerate(sources, 1) if question.answered_by(s, paths)), None)
        if question.kind == "uncovered":
            got.uncovered += 1
            got.silent += not sources
            got.false_sources += len(sources)
            if sources:
                got.misses.append(question.id)
        elif question.kind == "thread":
            got.threads += 1
            got.thread_found += hit is not None
            if hit is None:
                got.misses.append(question.id)
        else:
            got.covered += 1
            for n in ranks:
                got.found[n] = got.found.get(n, 0) + (hit is not None and hit <= n)
            if hit is None:
                got.misses.append(question.id)
    knowledge.close()
    return got


def report(figures: Quality) -> None:
    ranks = sorted({*RANKS, figures.k})
    recall = "   ".join(f"@{n} {figures.recall(n):6.1%}" for n in ranks)
    print(f"Labelled questions, {figures.folder} folder (top {figures.k})")
    print(f"  covered ({figures.covered}): recall {recall}")
    print(
        f"  thread-only ({figures.threads}): recall @{figures.k} "
        f"{figures.thread_found / max(figures.threads, 1):6.1%}"
    )
    silent = figures.silent / max(figures.uncovered, 1)
    print(
        f"  not covered ({figures.uncovered}): no sources {silent:6.1%}"
        f"   ({figures.false_sources} false sources)"
    )
    if figures.misses:
        print(f"  missed: {' '.join(figures.misses)}")


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


def agree(index: Index, queries: list[str], floor: float = 0.0) -> None:
    """Share of the unplanned top 5 (hits matching at least `floor`) the planned query also
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
        print(f"Agreement with unplanned scoring ({len(shares)} queries with hits)")
        print(f"  top 5 {statistics.mean(shares):6.1%}   top 1 {statistics.mean(firsts):6.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("--compare", type=int, default=300, help="queries checked unplanned")
    parser.add_argument("--quality", action="store_true", help="the labelled set only")
    args = parser.parse_args()
    questions = load()
    with tempfile.TemporaryDirectory() as scratch:
        for folder in FOLDERS:
            report(quality(folder, questions, Path(scratch)))
    if args.quality:
        return
    rng = random.Random(11)
    words = vocabulary(rng)
    weights = [1 / (rank + 1) for rank in range(len(words))]
    with tempfile.TemporaryDirectory() as scratch_dir:
        docs = Path(scratch_dir) / "docs"
        for n in range(args.docs):
            path = docs / f"team{n % 40}" / f"doc{n}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(document(rng, words, weights))
        database = Path(scratch_dir) / "knowledge.sqlite3"
        index = Index(database)
        started = time.perf_counter()
        synced = index.sync(docs)
        built = time.perf_counter() - started
        size = database.stat().st_size
        started = time.perf_counter()
        again = index.sync(docs)
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
