"""`python -m app chat`: answers through the fake API (as a process), or one clear sentence
(in this process, through the entry point's `main`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.entry import run_main
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


def test_chat_without_a_key_says_so_in_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    done = run_main(capsys, "chat")
    assert done.status == 2
    assert done.out == ""
    assert done.err.strip().count("\n") == 0
    assert "ANTHROPIC_API_KEY is not set" in done.err


def test_bad_setting_is_one_clear_message(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("MAX_ATTEMPTS", "9")
    done = run_main(capsys, "chat")
    assert done.status == 2
    assert "MAX_ATTEMPTS" in done.err and "Traceback" not in done.err
