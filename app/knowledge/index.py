"""The knowledge index: passages of the team's docs in an embedded SQLite FTS5 index,
ranked with BM25; kept in step with the folder by re-indexing only files that changed.

Text is indexed with the unicode61 tokenizer, as app/knowledge/terms.py analyses it (case
and accents folded, words as their stems, Chinese, Japanese and Korean characters one by
one) and searched with the terms it makes of a question (CJK characters as pairs, so
"デプロイ" finds "デプロイ手順").

Layout: `passages` holds each passage once; `search` is a contentless FTS5 table over its
title and text (rowid = passage id); `vocab` holds how many passages each term is in, so a
query can be planned before it runs; `files` remembers what was indexed. The file is a
cache of the folder: a different layout version is dropped and rebuilt.

Speed: BM25 costs about a microsecond for every passage that matches any query word, so a
question of common words would score most of the index. A query is therefore planned:
when its words would match more than SCORED_ROWS passages, words in over half the passages
are left out (FTS5 gives them no weight: their idf is floored at 1e-6) and the rarest words
are used, up to SCORED_ROWS passages; a question with no word that rare asks for passages
holding its rarest words together, or else with them in the title, and only if that finds
too few, for its rarest word alone. The best RERANKED of
those are then scored again with every query word, by FTS5's BM25 formula (here in Python,
over their text), so the words left out still order them.
"""

from __future__ import annotations

import hashlib
import logging
import math
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from app.errors import label
from app.knowledge.chunk import Passage, passages
from app.knowledge.terms import ANALYZER, Term, indexed, pairs_of, terms_of, tokens_of

log = logging.getLogger("vouch.knowledge")

SUFFIXES = frozenset({".md", ".markdown", ".txt"})
SCORED_ROWS = 4_000  # passages one query may score; beyond it the query is planned
LAYOUT = 4  # PRAGMA user_version of the current layout
_TITLE_WEIGHT, _TEXT_WEIGHT = 4.0, 1.0  # bm25() weights: a title match counts more
_K1, _B = 1.2, 0.75  # FTS5's bm25() constants
RERANKED = 30  # a query's best passages, re-scored with every query word

_TABLES = ("files", "passages", "search", "vocab", "meta")
SCHEMA = """
CREATE TABLE files (path TEXT PRIMARY KEY, stamp TEXT NOT NULL, digest TEXT NOT NULL);
CREATE TABLE passages (
    id INTEGER PRIMARY KEY, source_id TEXT NOT NULL, path TEXT NOT NULL, title TEXT NOT NULL,
    url TEXT, text TEXT NOT NULL
);
CREATE INDEX passages_path ON passages(path);
CREATE VIRTUAL TABLE search USING fts5(
    title_terms, terms, content = '', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE vocab (term TEXT PRIMARY KEY, rows INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


@dataclass(frozen=True, slots=True)
class Hit:
    passage: Passage
    relevance: float  # BM25, higher is better (SQLite's bm25() negated)
    match: float = 1.0  # share of the query's weight (idf) whose words the passage holds


@dataclass
class Synced:
    """What one sync did, by relative path."""

    added: list[str]
    updated: list[str]
    removed: list[str]
    skipped: list[str]
    unchanged: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)


class Index:
    def __init__(self, path: Path | str, scored_rows: int = SCORED_ROWS) -> None:
        self.scored_rows = scored_rows
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), check_same_thread=False)
        if self.db.execute("PRAGMA user_version").fetchone()[0] != LAYOUT:
            with self.db:
                for table in _TABLES:
                    self.db.execute(f"DROP TABLE IF EXISTS {table}")
                self.db.executescript(SCHEMA)
                self.db.execute(f"PRAGMA user_version = {LAYOUT}")
        self.db.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_vocab "
            "USING fts5vocab(main, search, 'row')"
        )
        self.total, self.tokens = self.count(), self._token_total()

    def close(self) -> None:
        self.db.close()

    def sync(
        self,
        folder: Path,
        base_url: str | None = None,
        max_bytes: int = 1_000_000,
        *,
        clear: bool = False,
    ) -> Synced:
        """Index new and changed files, drop deleted ones, in one transaction; unreadable
        files are skipped with a warning naming them (and dropped if they were indexed
        before). `clear`, or a different base URL than last time (it changes every
        passage's URL), re-indexes everything. A folder that is not there raises
        NotADirectoryError and leaves the index as it was."""
        if not folder.is_dir():
            raise NotADirectoryError(f"{folder} is not a folder")
        root = folder.resolve()
        done = Synced([], [], [], [])
        with self.db:
            row = self.db.execute("SELECT value FROM meta WHERE key = 'base_url'").fetchone()
            analyzer = self.db.execute("SELECT value FROM meta WHERE key = 'analyzer'").fetchone()
            stale = analyzer is not None and analyzer[0] != ANALYZER
            if clear or stale or (row is not None and row[0] != (base_url or "")):
                self._clear()
            known = dict(self.db.execute("SELECT path, stamp FROM files"))
            seen: set[str] = set()
            for file in _files(folder):
                relative = _relative(file, folder)
                if relative is None:
                    done.skipped.append(_printable(file.relative_to(folder).as_posix()))
                    continue
                seen.add(relative)
                before = known.get(relative)
                self._sync_file(
                    file,
                    relative,
                    root=root,
                    stamp_before=before,
                    base_url=base_url,
                    max_bytes=max_bytes,
                    done=done,
                )
            for gone in sorted(set(known) - seen):
                self._drop(gone)
                done.removed.append(gone)
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('base_url', ?)", (base_url or "",))
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('analyzer', ?)", (ANALYZER,))
            if done.changed or done.skipped or clear:
                self.db.execute("DELETE FROM vocab")
                self.db.execute("INSERT INTO vocab SELECT term, doc FROM temp.search_vocab")
                self.db.execute(
                    "INSERT OR REPLACE INTO meta "
                    "SELECT 'tokens', coalesce(sum(cnt), 0) FROM temp.search_vocab"
                )
        self.total, self.tokens = self.count(), self._token_total()
        return done

    def _sync_file(
        self,
        file: Path,
        relative: str,
        *,
        root: Path,
        stamp_before: str | None,
        base_url: str | None,
        max_bytes: int,
        done: Synced,
    ) -> None:
        reason = None
        try:
            stat = file.stat()  # follows a symlink: a dangling one fails here
            # rglob does not enter linked folders: only a linked file can lead outside
            inside = not file.is_symlink() or file.resolve().is_relative_to(root)
        except OSError as exc:
            reason = f"unreadable: {label(exc)}"
        else:
            if not inside:
                reason = "a link to outside the folder"
            elif stat.st_size > max_bytes:
                reason = f"over {max_bytes} bytes"
        text = None
        if reason is None:
            # A copy that restores the modification time still changes ctime and inode.
            stamp = f"{stat.st_mtime_ns}:{stat.st_ctime_ns}:{stat.st_ino}:{stat.st_size}"
            if stamp == stamp_before:
                done.unchanged += 1
                return
            text, reason = _readable(file)
        if text is None:
            log.warning("knowledge: skipped %s (%s)", relative, reason)
            done.skipped.append(relative)
            if stamp_before is not None:
                self._drop(relative)
            return
        digest = hashlib.sha256(text.encode()).hexdigest()
        stored = self.db.execute("SELECT digest FROM files WHERE path = ?", (relative,)).fetchone()
        if stored is None or stored[0] != digest:
            if stored is not None:
                self._drop(relative)
            self._add(passages(relative, text, base_url))
            (done.added if stored is None else done.updated).append(relative)
        else:
            done.unchanged += 1
        self.db.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?)", (relative, stamp, digest))

    def rebuild(
        self, folder: Path, base_url: str | None = None, max_bytes: int = 1_000_000
    ) -> Synced:
        """Re-index everything, in one transaction: a failure keeps the old index."""
        return self.sync(folder, base_url, max_bytes, clear=True)

    def _clear(self) -> None:
        """Forget everything (within the caller's transaction)."""
        for table in ("files", "passages", "vocab", "meta"):
            self.db.execute(f"DELETE FROM {table}")
        self.db.execute("INSERT INTO search (search) VALUES ('delete-all')")

    def search(
        self, query: str, k: int, floor: float = 0.0, planned: bool = True, context: str = ""
    ) -> list[Hit]:
        """The `k` best passages for `query` whose match (the share of the query's weight
        they hold) is at least `floor`. Words of `context` (the thread's recent turns)
        weigh CONTEXT_WEIGHT of a word of the query; stop words nothing.
        `planned=False` scores every passage holding any of its words (slow on a large
        index; it is what the plan is measured against)."""
        terms = terms_of(query, context)
        if not terms or k <= 0:
            return []
        terms, rows = self._joined(terms, pairs_of(query, context))
        plans = self._plan(terms, rows) if planned else [_any(terms)]
        found: dict[str, Hit] = {}
        for match in plans:  # the next plan only if the last found too few
            for hit in self._matching(match, max(k, RERANKED)):
                found.setdefault(hit.passage.source_id, hit)
            if len(found) >= k:
                break
        scored = [hit for hit in self._rescored(found.values(), terms, rows) if hit.match >= floor]
        return sorted(scored, key=lambda h: -h.relevance)[:k]

    def _matching(self, match: str, limit: int) -> list[Hit]:
        rows = self.db.execute(
            "SELECT p.source_id, p.path, p.title, p.url, p.text, s.relevance FROM ("
            f"  SELECT rowid, -bm25(search, {_TITLE_WEIGHT}, {_TEXT_WEIGHT}) AS relevance"
            "   FROM search WHERE search MATCH ? ORDER BY relevance DESC LIMIT ?"
            ") AS s JOIN passages AS p ON p.id = s.rowid ORDER BY s.relevance DESC",
            (match, limit),
        )
        return [
            Hit(Passage(source_id, path, title, url, text), relevance)
            for source_id, path, title, url, text, relevance in rows
        ]

    def count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM passages").fetchone()[0])

    def _token_total(self) -> int:
        """How many tokens the index holds, over all passages and columns."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'tokens'").fetchone()
        return int(row[0]) if row is not None else 0

    def _joined(
        self, terms: list[Term], pairs: list[tuple[Term, Term, Term]]
    ) -> tuple[list[Term], dict[Term, int]]:
        """`terms` with the words of adjacent pairs written as one where the docs write them
        so ("roll back" → "rollback"), and without a word of such a pair that no passage
        holds; with how many passages hold each."""
        rows = self._rows([*terms, *(joined for joined, _, _ in pairs)])
        found = [
            (joined, parts) for joined, *parts in pairs if rows[joined] and joined not in terms
        ]
        gone = {part for _, parts in found for part in parts if not rows.get(part)}
        kept = [t for t in terms if t not in gone] + [joined for joined, _ in found]
        return kept, {t: rows[t] for t in kept}

    def _rows(self, terms: list[Term]) -> dict[Term, int]:
        """How many passages hold each term (a phrase: estimated by its rarest token, an
        upper bound; a token the index has never seen: none)."""
        tokens = sorted({token for term in terms for token in term.tokens})
        marks = ", ".join("?" * len(tokens))
        found = dict(
            self.db.execute(f"SELECT term, rows FROM vocab WHERE term IN ({marks})", tokens)
        )
        return {t: min(found.get(token, 0) for token in t.tokens) for t in terms}

    def _plan(self, terms: list[Term], rows: dict[Term, int]) -> list[str]:
        """FTS5 queries for `terms`, each scoring at most about `scored_rows` passages where
        it can; the first that finds enough wins. A last resort (the rarest word alone) may
        score more, and runs only when the cheaper queries found too few."""
        if sum(rows.values()) <= self.scored_rows:
            return [_any(terms)]
        # Words no passage holds cannot match; words in over half weigh nothing.
        useful = sorted((t for t in terms if 0 < rows[t] * 2 <= self.total), key=rows.__getitem__)
        if not useful:
            return []
        chosen, scored = [useful[0]], rows[useful[0]]
        for term in useful[1:]:
            if scored + rows[term] > self.scored_rows:
                break
            chosen.append(term)
            scored += rows[term]
        if scored <= self.scored_rows:
            return [_any(chosen)]
        together, expected = [useful[0]], float(rows[useful[0]])
        for term in useful[1:]:
            if expected <= self.scored_rows:
                break
            together.append(term)
            expected *= rows[term] / self.total
        if expected <= self.scored_rows:
            first = " AND ".join(term.expression for term in together)
        else:
            first = f"{{title_terms}} : ({_any(together)})"
        return [first, useful[0].expression]

    def _rescored(
        self, hits: Iterable[Hit], terms: list[Term], rows: dict[Term, int]
    ) -> Iterator[Hit]:
        """`hits` scored with every term, as FTS5's bm25() would with all of them in the
        query (idf floored at 1e-6, column weights on term counts, length normalised by
        the passage's tokens over the index's average), each term's part times its
        weight; and their match: the weight of the terms they hold over the query's.

        The match weighs a term by an idf that stays positive however common the term
        (ln(1 + (N − n + 0.5)/(n + 0.5)), as Lucene's BM25 has it), so it is a share
        between 0 and 1 whatever the folder's size: a passage holding every word of the
        question matches 1, one holding only its most common word little, and a word no
        passage holds weighs most (the docs may not be about it)."""
        total = max(self.total, 1)
        average = max(self.tokens / total, 1.0)
        idf = {t: max(math.log((total - n + 0.5) / (n + 0.5)), 1e-6) for t, n in rows.items()}
        share = {t: t.weight * math.log1p((total - n + 0.5) / (n + 0.5)) for t, n in rows.items()}
        whole = sum(share.values())
        for hit in hits:
            title = tokens_of(hit.passage.title)
            text = tokens_of(hit.passage.text)
            norm = _K1 * (1 - _B + _B * (len(title) + len(text)) / average)
            title_counts, text_counts = _counts(title, terms), _counts(text, terms)
            score = held = 0.0
            for term in terms:
                freq = _TITLE_WEIGHT * title_counts[term] + _TEXT_WEIGHT * text_counts[term]
                score += term.weight * idf[term] * freq * (_K1 + 1) / (freq + norm)
                held += share[term] if freq else 0.0
            yield Hit(hit.passage, score, held / whole)

    def _add(self, found: Iterable[Passage]) -> None:
        for p in found:
            cursor = self.db.execute(
                "INSERT INTO passages (source_id, path, title, url, text) VALUES (?, ?, ?, ?, ?)",
                (p.source_id, p.path, p.title, p.url, p.text),
            )
            self.db.execute(
                "INSERT INTO search (rowid, title_terms, terms) VALUES (?, ?, ?)",
                (cursor.lastrowid, indexed(p.title), indexed(p.text)),
            )

    def _drop(self, relative: str) -> None:
        """Forget a file: a contentless FTS5 row is deleted by giving back what it indexed."""
        rows = self.db.execute(
            "SELECT id, title, text FROM passages WHERE path = ?", (relative,)
        ).fetchall()
        self.db.executemany(
            "INSERT INTO search (search, rowid, title_terms, terms) VALUES ('delete', ?, ?, ?)",
            ((id_, indexed(title), indexed(text)) for id_, title, text in rows),
        )
        self.db.execute("DELETE FROM passages WHERE path = ?", (relative,))
        self.db.execute("DELETE FROM files WHERE path = ?", (relative,))


def _files(folder: Path) -> Iterator[Path]:
    for file in sorted(folder.rglob("*")):
        wanted = file.suffix.lower() in SUFFIXES and not file.name.startswith(".")
        if wanted and (file.is_file() or file.is_symlink()):
            yield file


def _relative(file: Path, folder: Path) -> str | None:
    """The file's path in the folder, or None (with a warning) when the name is not UTF-8
    (SQLite could not store it)."""
    relative = file.relative_to(folder).as_posix()
    try:
        relative.encode("utf-8")
    except UnicodeEncodeError:
        log.warning("knowledge: skipped %s (name not UTF-8)", _printable(relative))
        return None
    return relative


def _printable(name: str) -> str:
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _readable(file: Path) -> tuple[str, None] | tuple[None, str]:
    """The file's text, or why it cannot be indexed."""
    try:
        data = file.read_bytes()
    except OSError as exc:
        return None, f"unreadable: {label(exc)}"
    if b"\0" in data:
        return None, "binary"
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError:
        return None, "not UTF-8"


def _counts(tokens: list[str], terms: list[Term]) -> Counter[Term]:
    """How often each term (a token, or a phrase of consecutive tokens) occurs."""
    single = Counter(tokens)
    counts: Counter[Term] = Counter()
    for term in terms:
        if len(term.tokens) == 1:
            counts[term] = single[term.tokens[0]]
        else:
            width = len(term.tokens)
            counts[term] = sum(
                1
                for i in range(len(tokens) - width + 1)
                if tuple(tokens[i : i + width]) == term.tokens
            )
    return counts


def _any(terms: list[Term]) -> str:
    return " OR ".join(term.expression for term in terms)
