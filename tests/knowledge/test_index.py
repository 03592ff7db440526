"""The FTS5 index over tests/fixtures/knowledge: ranking, incremental sync, bad files,
non-English docs and queries."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from app.knowledge.index import Index
from app.knowledge.retrieve import Knowledge

BASE = "https://docs.example.com/"


@pytest.fixture
def index(docs: Path, tmp_path: Path) -> Index:
    made = Index(tmp_path / "data" / "knowledge.sqlite3")
    made.sync(docs, base_url=BASE)
    return made


def titles(index: Index, query: str, k: int = 3, floor: float = 0.0) -> list[str]:
    return [hit.passage.title for hit in index.search(query, k, floor)]


def test_ranks_the_relevant_passage_first(index: Index) -> None:
    assert titles(index, "how do I revert a billing deploy?")[0] == "Deploying billing › Rollback"
    assert titles(index, "who approves a production deploy")[0] == (
        "Deploying billing › Production"
    )
    assert titles(index, "page the on-call engineer")[0] == "On-call"
    [hit] = index.search("pizza", 5)
    assert hit.passage.path == "lunch.txt"
    assert hit.passage.url == "https://docs.example.com/lunch.txt"
    assert index.search("rollback", 1)[0].passage.url == "https://wiki.example.com/billing/deploy"


def test_k_floor_and_no_match(index: Index) -> None:
    assert len(index.search("billing deploy staging", 2)) == 2
    assert index.search("quantum chromodynamics", 5) == []
    assert index.search("", 5) == [] and index.search("?!", 5) == []
    best = index.search("rollback", 1)[0].relevance
    assert index.search("rollback", 5, floor=best + 0.01) == []


@pytest.mark.parametrize(
    "query",
    [
        '"deploy',
        "deploy OR",
        "NEAR(deploy billing)",
        "title:deploy",
        "deploy*",
        "-billing",
        "a AND",
    ],
)
def test_query_syntax_in_user_text_is_just_words(index: Index, query: str) -> None:
    index.search(query, 5)  # never an FTS5 syntax error


def test_non_english_docs_and_queries(index: Index) -> None:
    assert titles(index, "déploiement facturation")[0] == "Déploiement de la facturation"
    assert titles(index, "deploiement")[0] == "Déploiement de la facturation"  # accents folded
    assert titles(index, "デプロイ")[0] == "デプロイ手順"
    assert titles(index, "金曜日にデプロイできますか")[0] == "デプロイ手順"


def test_resync_reindexes_only_what_changed(index: Index, docs: Path) -> None:
    again = index.sync(docs, BASE)
    assert (again.added, again.updated, again.removed, again.unchanged) == ([], [], [], 5)

    (docs / "oncall.md").write_text("# On-call\n\nThe rotation now changes on Tuesdays.\n")
    os.utime(docs / "lunch.txt")  # touched, same content
    (docs / "fr" / "deploiement.md").unlink()
    (docs / "new.md").write_text("# Holidays\n\nThe office closes on 24 December.\n")
    changed = index.sync(docs, BASE)
    assert changed.updated == ["oncall.md"]
    assert changed.added == ["new.md"]
    assert changed.removed == ["fr/deploiement.md"]
    assert changed.unchanged == 3
    assert titles(index, "tuesdays rotation")[0] == "On-call"
    assert index.search("monday", 5) == []
    assert index.search("facturation", 5) == []
    assert titles(index, "office holidays")[0] == "Holidays"


def test_bad_files_are_skipped_with_a_warning_naming_them(
    docs: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (docs / "logo.md").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    (docs / "latin1.txt").write_bytes("caf\xe9 menu".encode("latin-1"))
    (docs / "huge.md").write_text("x" * 2_000)
    (docs / "image.png").write_bytes(b"\0")  # not a doc type: not even looked at
    index = Index(tmp_path / "k.sqlite3")
    done = index.sync(docs, max_bytes=1_000)
    assert sorted(done.skipped) == ["huge.md", "latin1.txt", "logo.md"]
    assert len(done.added) == 5
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert "knowledge: skipped logo.md (binary)" in warnings
    assert "knowledge: skipped latin1.txt (not UTF-8)" in warnings
    assert "knowledge: skipped huge.md (over 1000 bytes)" in warnings


def test_rebuild_and_persistence(index: Index, docs: Path, tmp_path: Path) -> None:
    count = index.count()
    index.close()
    reopened = Index(tmp_path / "data" / "knowledge.sqlite3")
    assert reopened.count() == count
    assert reopened.sync(docs, BASE).unchanged == 5
    rebuilt = reopened.rebuild(docs)
    assert len(rebuilt.added) == 5 and reopened.count() == count


@pytest.fixture
def crowded(tmp_path: Path) -> Path:
    """Twenty runbooks sharing common words; each has one word of its own."""
    folder = tmp_path / "crowded"
    folder.mkdir()
    for n in range(20):
        extra = {0: " Staging needs a feature flag.", 1: " A canary release needs approval."}.get(
            n % 4, ""
        )
        (folder / f"runbook{n}.md").write_text(
            f"# Runbook {n}\n\nThe team deploys the service with care.{extra} "
            f"Ask about codeword{n} in the channel.\n"
        )
    return folder


def test_planned_queries_score_few_passages_and_still_find_the_answer(
    crowded: Path, tmp_path: Path
) -> None:
    index = Index(tmp_path / "k.sqlite3", scored_rows=4)
    index.sync(crowded)
    # A rare word among common ones: only the rare word is scored, and wins.
    [best] = index.search("how does the team deploy codeword7?", 1, planned=True)
    assert best.passage.path == "runbook7.md"
    # Only words in most passages: BM25 gives them no weight, so nothing is relevant.
    assert index.search("the team deploys the service", 5) == []
    # No rare word, but words in a quarter of the passages: they are asked for together.
    found = {hit.passage.path for hit in index.search("staging feature flag", 10)}
    assert found == {f"runbook{n}.md" for n in range(0, 20, 4)}
    # Asked together the rare words are never in one passage: the rarest word alone then.
    found = {hit.passage.path for hit in index.search("canary staging", 10)}
    assert found == {f"runbook{n}.md" for n in range(1, 20, 4)}


def test_small_indexes_are_scored_exactly(index: Index) -> None:
    for query in ("how do I revert a billing deploy?", "page the on-call engineer", "デプロイ"):
        assert index.search(query, 5) == index.search(query, 5, planned=False)


def test_a_new_base_url_reindexes_everything(index: Index, docs: Path) -> None:
    assert index.search("pizza", 1)[0].passage.url == "https://docs.example.com/lunch.txt"
    moved = index.sync(docs, base_url="https://handbook.example.org/")
    assert len(moved.added) == 5
    assert index.search("pizza", 1)[0].passage.url == "https://handbook.example.org/lunch.txt"
    assert index.sync(docs, base_url="https://handbook.example.org/").unchanged == 5


@pytest.mark.parametrize(
    "query",
    [
        "how do I revert a billing deploy?",
        "who approves production deploys on staging",
        "déploiement de la facturation",
        "金曜日にデプロイできますか",
    ],
)
def test_rescoring_reproduces_fts5_bm25(docs: Path, tmp_path: Path, query: str) -> None:
    """A planned query's passages are re-scored in Python with every word; the scores are
    the ones FTS5's bm25() gives when the whole query is run."""
    index = Index(tmp_path / "k.sqlite3", scored_rows=0)  # plan every query
    index.sync(docs, BASE)
    exact = {hit.passage.source_id: hit.relevance for hit in index.search(query, 50, planned=False)}
    rescored = index.search(query, 50)
    assert rescored
    for hit in rescored:
        assert hit.relevance == pytest.approx(exact[hit.passage.source_id], rel=1e-6)


def test_greek_and_cyrillic_accents_are_folded_on_both_sides(tmp_path: Path) -> None:
    folder = tmp_path / "intl"
    folder.mkdir()
    (folder / "ru.md").write_text("# Йогурт\n\nЙогурт хранится в холодильнике.\n")
    (folder / "el.md").write_text("# Ελληνικά\n\nΗ άλφα έκδοση κυκλοφορεί σήμερα.\n")
    index = Index(tmp_path / "k.sqlite3")
    index.sync(folder)
    assert titles(index, "йогурт")[0] == "Йогурт"
    assert titles(index, "Ελληνικά άλφα")[0] == "Ελληνικά"
    assert titles(index, "αλφα εκδοση")[0] == "Ελληνικά"


def test_awkward_files_are_skipped_with_a_warning_and_nothing_breaks(
    docs: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    os.close(os.open(os.fsencode(docs) + b"/caf\xe9.md", os.O_CREAT | os.O_WRONLY))
    (docs / "gone.md").symlink_to(tmp_path / "nowhere.md")
    outside = tmp_path / "secret.md"
    outside.write_text("# Secret\n\nThe vault code.\n")
    (docs / "linked.md").symlink_to(outside)
    index = Index(tmp_path / "k.sqlite3")
    done = index.sync(docs, BASE)
    assert len(done.added) == 5
    assert sorted(done.skipped) == ["caf\\xe9.md", "gone.md", "linked.md"]
    warnings = {r.getMessage() for r in caplog.records if r.levelname == "WARNING"}
    assert "knowledge: skipped caf\\xe9.md (name not UTF-8)" in warnings
    assert "knowledge: skipped gone.md (unreadable: FileNotFoundError)" in warnings
    assert "knowledge: skipped linked.md (a link to outside the folder)" in warnings
    assert index.search("vault code", 5) == []


def test_edits_that_restore_the_modification_time_are_seen(index: Index, docs: Path) -> None:
    target = docs / "oncall.md"
    before = target.stat()
    text = target.read_text().replace("Monday", "Friday")
    target.write_text(text)
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert target.stat().st_size == before.st_size
    assert index.sync(docs, BASE).updated == ["oncall.md"]
    assert titles(index, "rotation friday")[0] == "On-call"


def test_a_lower_size_limit_drops_files_now_over_it(index: Index, docs: Path) -> None:
    done = index.sync(docs, BASE, max_bytes=300)
    assert "deploy.md" in done.skipped
    assert index.search("rollback", 5) == []


def test_a_missing_folder_leaves_the_index_as_it_was(index: Index, tmp_path: Path) -> None:
    count = index.count()
    with pytest.raises(NotADirectoryError):
        index.sync(tmp_path / "unmounted", BASE)
    assert index.count() == count


def test_a_rebuild_that_fails_keeps_the_old_index(
    index: Index, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    count = index.count()

    def broken(*args: object) -> list[object]:
        raise RuntimeError("disk full")

    monkeypatch.setattr("app.knowledge.index.passages", broken)
    with pytest.raises(RuntimeError):
        index.rebuild(docs, BASE)
    assert index.count() == count
    assert titles(index, "rollback")[0] == "Deploying billing › Rollback"


def test_an_index_whose_folder_cannot_be_made_means_no_sources(
    knowledge_settings: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Knowledge.open never raises: a file where the index's folder should be is logged,
    and the answers go on without sources (it raised FileExistsError before)."""
    blocked = tmp_path / "blocked"
    blocked.write_text("not a folder")
    settings = knowledge_settings(knowledge_index=blocked / "knowledge.sqlite3")
    assert Knowledge.open(settings) is None
    assert "knowledge: index unusable (FileExistsError)" in caplog.text
