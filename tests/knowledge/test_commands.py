"""`python -m app index` and `python -m app chat` with KNOWLEDGE_DIR, as processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.fakes.anthropic import FakeAnthropic
from tests.isolation import process_env
from tests.knowledge.grounding import QUESTION, citing, rollback_id


def run(
    tmp_path: Path, command: str, stdin: str = "", **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", command],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,  # no .env here; the index's default path is under it
        env=process_env(**env),
        timeout=60,
        check=False,
    )


def test_index_rebuilds_and_names_skipped_files(docs: Path, tmp_path: Path) -> None:
    (docs / "scan.md").write_bytes(b"%PDF-1.7\n\0\0binary")
    done = run(tmp_path, "index", KNOWLEDGE_DIR=str(docs))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        f"Indexed {docs}: 5 files added, 0 updated, 0 removed, 1 skipped, 0 unchanged;"
    )
    warnings = [json.loads(line) for line in done.stderr.splitlines()]
    assert [w["message"] for w in warnings if w["level"] == "WARNING"] == [
        "knowledge: skipped scan.md (binary)"
    ]
    assert (tmp_path / "data" / "knowledge.sqlite3").is_file()
    again = run(tmp_path, "index", KNOWLEDGE_DIR=str(docs))
    assert "5 files added" in again.stdout  # a rebuild re-reads everything


def test_index_without_a_folder_says_so(tmp_path: Path) -> None:
    done = run(tmp_path, "index")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == "KNOWLEDGE_DIR is not set: there is nothing to index."
    missing = run(tmp_path, "index", KNOWLEDGE_DIR=str(tmp_path / "nope"))
    assert missing.returncode == 2
    assert "KNOWLEDGE_DIR" in missing.stderr and "Traceback" not in missing.stderr


def test_chat_answers_from_the_docs_with_a_footer(
    docs: Path, tmp_path: Path, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.responder = lambda request: citing(rollback_id(request))
    done = run(
        tmp_path,
        "chat",
        f"{QUESTION}\n",
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=fake_anthropic.url,
        KNOWLEDGE_DIR=str(docs),
    )
    assert done.returncode == 0, done.stderr
    assert (
        "*Sources*\n• <https://wiki.example.com/billing/deploy|Deploying billing › Rollback>"
        in (done.stdout)
    )
    assert "attempt 1/3: passed" in done.stdout


def test_index_replaces_a_corrupt_index_file(docs: Path, tmp_path: Path) -> None:
    broken = tmp_path / "data" / "knowledge.sqlite3"
    broken.parent.mkdir()
    broken.write_bytes(b"not a database" * 500)
    done = run(tmp_path, "index", KNOWLEDGE_DIR=str(docs))
    assert done.returncode == 0, done.stderr
    assert "5 files added" in done.stdout and "Traceback" not in done.stderr
    assert "unreadable (DatabaseError); rebuilding it" in done.stderr
