"""Relevance: stop words carry no match, the floor (a share of the question's weight) holds
on small and large folders alike, and the labelled set's figures (bench.knowledge, recorded
in docs/knowledge.md) do not regress."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from app.knowledge.index import Index
from app.settings import Settings
from bench.knowledge import FOLDERS, load, quality

TEAM = FOLDERS["team"]
FLOOR = Settings(_env_file=None).knowledge_min_relevance
UNCOVERED = [
    "Cafeteria lunch menu for Friday?",
    "What is the menu for the party on Friday?",
    "Who is the CEO?",
    "Where can I order a birthday cake for the team?",
    "Was gibt es heute in der Kantine?",
    "Quel est le menu de la cantine pour vendredi ?",
    "社員食堂の金曜日のメニューは？",
]


def indexed(folder: Path, scratch: Path) -> Index:
    index = Index(scratch / f"{folder.name}.sqlite3")
    index.sync(folder)
    return index


@pytest.fixture
def three_docs(tmp_path: Path) -> Path:
    """The folder of the issue: deploys, on-call, backups."""
    folder = tmp_path / "three"
    for name in ("deploys/deploy-process.md", "oncall/rotation.md", "backups/restore.md"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(TEAM / name, folder / name)
    return folder


@pytest.mark.parametrize("question", UNCOVERED)
def test_questions_the_docs_do_not_cover_get_no_sources(
    question: str, three_docs: Path, tmp_path: Path
) -> None:
    for folder in (three_docs, TEAM):
        index = indexed(folder, tmp_path)
        assert index.search(question, 5, FLOOR) == [], (folder.name, question)
        index.close()


def test_the_floor_holds_on_a_small_and_a_large_folder_alike(
    three_docs: Path, tmp_path: Path
) -> None:
    """The same question finds the same passage, with the same match, in 3 files and 40:
    a share of the question's weight does not grow with the folder as BM25 does."""
    small, large = indexed(three_docs, tmp_path), indexed(TEAM, tmp_path)
    for question, title in [
        ("Can I deploy to production on a Friday?", "Deploying a service › Deploy freeze"),
        ("How do I swap my on-call shift?", "On-call rotation › Swapping shifts"),
        ("When is the next restore drill?", "Restoring a database › Restore drills"),
    ]:
        for index in (small, large):
            assert title in [hit.passage.title for hit in index.search(question, 3, FLOOR)]
    # The lunch question's best match stays under the floor in both: its other words are
    # in no passage, though "Friday" is in both folders.
    for index in (small, large):
        [best] = index.search("Cafeteria lunch menu for Friday?", 1)
        assert 0 < best.match < FLOOR


@pytest.mark.parametrize(
    ("language", "function_words"),
    [
        ("en", "what is the for and how do I"),
        ("de", "wie ist die für und was ich"),
        ("fr", "quelle est la pour les et comment"),
        ("es", "dónde está la de las y cómo"),
        ("pt", "onde está a dos e como"),
        ("it", "dove si la della e come"),
        ("nl", "waar is de van het en hoe"),
        ("pl", "gdzie jest i na czy jak"),
        ("sv", "var finns för och hur"),
        ("tr", "ne nerede ve için nasıl"),
        ("ru", "где и на для как что"),
        ("uk", "де і на для як що"),
        ("ja", "はどこにありますか"),
        ("zh", "在什么的是我们"),
        ("ko", "어디 언제 에서 은"),
    ],
)
def test_stop_words_of_each_language_carry_no_match(
    language: str, function_words: str, tmp_path: Path
) -> None:
    """A passage holding only the question's function words is not found, even with no
    floor; the one holding its content word is, and matches fully."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "function.md").write_text(f"# Notes\n\n{function_words}\n")
    (folder / "content.md").write_text("# Rotation\n\nThe schedule is in PagerDuty.\n")
    index = indexed(folder, tmp_path)
    hits = index.search(f"{function_words} PagerDuty", 5)
    assert [hit.passage.path for hit in hits] == ["content.md"], language
    assert hits[0].match == 1.0
    assert index.search(function_words, 5) == []


def test_the_labelled_figures_do_not_regress() -> None:
    """Measured (docs/knowledge.md): small folder — covered recall@5 83%, uncovered 100%
    without sources; team handbook — covered recall@1 88%, @3 100%, thread-only 45%,
    uncovered 91% without sources. Thresholds a little below."""
    questions = load()
    with tempfile.TemporaryDirectory() as scratch:
        small, team = (quality(name, questions, Path(scratch)) for name in ("small", "team"))
    assert small.covered >= 12 and team.covered >= 45 and team.uncovered >= 30
    assert small.recall(5) >= 0.8
    assert small.silent == small.uncovered
    assert team.recall(1) >= 0.85 and team.recall(3) >= 0.97
    assert team.thread_found / team.threads >= 0.4
    assert team.silent / team.uncovered >= 0.85 and team.false_sources <= 5
