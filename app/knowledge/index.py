"""The knowledge index: passages of the team's docs in an embedded SQLite FTS5 table,
ranked with BM25; kept in step with the folder by re-indexing only files that changed.

Text is indexed with the unicode61 tokenizer (case and accents folded), and Chinese,
Japanese and Korean characters are indexed one by one (they have no spaces) and searched as
phrases, so "デプロイ" finds "デプロイ手順".
"""

from __future__ import annotations

import hashlib
import logging
import re
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from app.knowledge.chunk import Passage, passages

log = logging.getLogger("vouch.knowledge")

SUFFIXES = frozenset({".md", ".markdown", ".txt"})
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_WORD = re.compile(r"\w+")
_SCRIPTS = re.compile(f"{_CJK.pattern}+|(?:(?!{_CJK.pattern})\\w)+")
_MAX_TERMS = 32
# bm25() weights, one per column in SCHEMA's order: a title match counts more than the body.
_WEIGHTS = (0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 1.0)

SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, digest TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS passages USING fts5(
    source_id UNINDEXED, path UNINDEXED, title UNINDEXED, url UNINDEXED, text UNINDEXED,
    title_terms, terms, tokenize = 'unicode61 remove_diacritics 2'
);
"""


@dataclass(frozen=True, slots=True)
class Hit:
    passage: Passage
    relevance: float  # BM25, higher is better (SQLite's bm25() negated)


@dataclass
class Synced:
    """What one sync did, by relative path."""

    added: list[str]
    updated: list[str]
    removed: list[str]
    skipped: list[str]
    unchanged: int = 0


class Index:
    def __init__(self, path: Path | str) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), check_same_thread=False)
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def sync(self, folder: Path, base_url: str | None = None, max_bytes: int = 1_000_000) -> Synced:
        """Index new and changed files, drop deleted ones; unreadable files are skipped
        with a warning naming them (and dropped if they were indexed before)."""
        done = Synced([], [], [], [])
        known = dict(self.db.execute("SELECT path, mtime_ns || ':' || size FROM files"))
        seen: set[str] = set()
        with self.db:
            for file in _files(folder):
                relative = file.relative_to(folder).as_posix()
                seen.add(relative)
                stat = file.stat()
                if known.get(relative) == f"{stat.st_mtime_ns}:{stat.st_size}":
                    done.unchanged += 1
                    continue
                text = _readable(file, relative, stat.st_size, max_bytes)
                if text is None:
                    done.skipped.append(relative)
                    self._drop(relative)
                    continue
                digest = hashlib.sha256(text.encode()).hexdigest()
                stored = self.db.execute(
                    "SELECT digest FROM files WHERE path = ?", (relative,)
                ).fetchone()
                if stored is None or stored[0] != digest:
                    if stored is not None:
                        self._drop(relative)  # (a scan: path is not an indexed column)
                    self._add(passages(relative, text, base_url))
                    (done.added if stored is None else done.updated).append(relative)
                else:
                    done.unchanged += 1
                self.db.execute(
                    "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?)",
                    (relative, stat.st_mtime_ns, stat.st_size, digest),
                )
            for gone in sorted(set(known) - seen):
                self._drop(gone)
                done.removed.append(gone)
        return done

    def rebuild(
        self, folder: Path, base_url: str | None = None, max_bytes: int = 1_000_000
    ) -> Synced:
        with self.db:
            self.db.execute("DELETE FROM files")
            self.db.execute("DELETE FROM passages")
        return self.sync(folder, base_url, max_bytes)

    def search(self, query: str, k: int, floor: float = 0.0) -> list[Hit]:
        """The `k` best passages for `query` with relevance at least `floor`."""
        match = _match(query)
        if not match or k <= 0:
            return []
        weights = ", ".join(str(w) for w in _WEIGHTS)
        rows = self.db.execute(
            f"SELECT source_id, path, title, url, text, -bm25(passages, {weights}) AS relevance "
            "FROM passages WHERE passages MATCH ? ORDER BY relevance DESC LIMIT ?",
            (match, k),
        )
        return [
            Hit(Passage(source_id, path, title, url, text), relevance)
            for source_id, path, title, url, text, relevance in rows
            if relevance >= floor
        ]

    def count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM passages").fetchone()[0])

    def _add(self, found: Iterable[Passage]) -> None:
        self.db.executemany(
            "INSERT INTO passages VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                (p.source_id, p.path, p.title, p.url, p.text, _terms(p.title), _terms(p.text))
                for p in found
            ),
        )

    def _drop(self, relative: str) -> None:
        self.db.execute("DELETE FROM passages WHERE path = ?", (relative,))
        self.db.execute("DELETE FROM files WHERE path = ?", (relative,))


def _files(folder: Path) -> Iterator[Path]:
    for file in sorted(folder.rglob("*")):
        if file.is_file() and file.suffix.lower() in SUFFIXES and not file.name.startswith("."):
            yield file


def _readable(file: Path, relative: str, size: int, max_bytes: int) -> str | None:
    """The file's text, or None (with a warning naming it) when it cannot be indexed."""
    if size > max_bytes:
        log.warning("knowledge: skipped %s (over %d bytes)", relative, max_bytes)
        return None
    try:
        data = file.read_bytes()
    except OSError as exc:
        log.warning("knowledge: skipped %s (unreadable: %s)", relative, type(exc).__name__)
        return None
    if b"\0" in data:
        log.warning("knowledge: skipped %s (binary)", relative)
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        log.warning("knowledge: skipped %s (not UTF-8)", relative)
        return None


def _terms(text: str) -> str:
    """Text as the tokenizer should see it: CJK characters one by one."""
    return _CJK.sub(lambda m: f" {m.group(0)} ", text)


def _match(query: str) -> str:
    """An FTS5 query matching any of the query's words, each quoted so no user text is read
    as FTS syntax. A run of CJK characters gives its overlapping pairs, as phrases (the usual
    bigram search for text without spaces); a lone CJK character stands for itself."""
    terms: list[str] = []
    for word in _WORD.findall(query.lower()):
        for part in _SCRIPTS.findall(word):
            if _CJK.match(part):
                pairs = [f"{a} {b}" for a, b in pairwise(part)]
                terms.extend(pairs or [part])
            elif len(part) > 1:
                terms.append(part)
    unique = list(dict.fromkeys(terms))[:_MAX_TERMS]
    return " OR ".join(f'"{term}"' for term in unique)
