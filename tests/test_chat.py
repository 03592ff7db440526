"""`python -m app chat` as a process: answers through the fake API, or one clear sentence."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.isolation import process_env

UNCLOSED = "Deploy with:\n```\nmake deploy"
GOOD = "Run `make deploy` from the **main** branch to deploy."


def run_chat(tmp_path: Path, stdin: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", "chat"],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,  # no .env here
        env=process_env(**env),
        timeout=60,
        check=False,
    )


def test_chat_prints_the_answer_and_one_line_per_attempt(
    tmp_path: Path, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.push(Reply(UNCLOSED), Reply(GOOD))
    done = run_chat(
        tmp_path,
        "How do I deploy?\n",
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=fake_anthropic.url,
    )
    assert done.returncode == 0, done.stderr
    assert "vouch> Run `make deploy` from the *main* branch to deploy." in done.stdout
    assert "attempt 1/3: failed UNCLOSED_CODE_FENCE" in done.stdout
    assert "attempt 2/3: passed · repaired MARKDOWN_BOLD" in done.stdout
    assert "cache read" in done.stdout
    assert "make deploy\n" not in done.stdout  # the failed draft is never printed
    assert "Traceback" not in done.stderr


def test_chat_without_a_key_says_so_in_one_sentence(tmp_path: Path) -> None:
    done = run_chat(tmp_path, "hi\n")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().count("\n") == 0
    assert "ANTHROPIC_API_KEY is not set" in done.stderr


def test_bad_setting_is_one_clear_message(tmp_path: Path) -> None:
    done = run_chat(tmp_path, "", ANTHROPIC_API_KEY="k", MAX_ATTEMPTS="9")
    assert done.returncode == 2
    assert "MAX_ATTEMPTS" in done.stderr and "Traceback" not in done.stderr
