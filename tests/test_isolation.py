"""The developer's shell and `.env` change nothing in the tests, and a test that tries to
reach a host other than loopback fails (tests/isolation.py)."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from app.settings import load_settings
from tests.isolation import Guard, NonLoopback, foreign, process_env

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"  # its folder is the rootdir, wherever pytest runs

# What a developer's shell or .env may well hold: real-looking keys, a remote Redis, a proxy.
HOSTILE = {
    "ANTHROPIC_API_KEY": "sk-ant-api03-real-looking-key",
    "ANTHROPIC_AUTH_TOKEN": "real-looking-token",
    "ANTHROPIC_BASE_URL": "https://api.anthropic.com",
    "LANGFUSE_PUBLIC_KEY": "pk-lf-real-looking",
    "LANGFUSE_SECRET_KEY": "sk-lf-real-looking",
    "LANGFUSE_BASE_URL": "https://cloud.langfuse.com",
    "LANGFUSE_HOST": "https://cloud.langfuse.com",
    "LANGFUSE_SAMPLE_RATE": "0",
    "REDIS_URL": "redis://10.1.2.3:6379",
    "SLACK_BOT_TOKEN": "xoxb-real-looking",
    "SLACK_APP_TOKEN": "xapp-real-looking",
    "SLACK_SIGNING_SECRET": "real-looking-secret",
    "max_attempts": "1",  # pydantic-settings reads any case
    "HTTP_PROXY": "http://10.9.9.9:3128",
    "https_proxy": "http://10.9.9.9:3128",
    "ALL_PROXY": "http://10.9.9.9:3128",
    "OTEL_SDK_DISABLED": "true",
}

# An in-process test that reads telemetry keys and a bot process (HTTP mode, Slack's
# client, Redis when set): each would change with any of the above.
AFFECTED = (
    "tests/test_telemetry.py::test_without_keys_telemetry_is_off_and_says_so_once",
    "tests/test_shutdown.py::test_the_wait_is_bounded_and_what_it_cut_short_is_answered_after_the_restart",
)


def pytest_run(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-c", str(PYPROJECT), *args],
        cwd=cwd,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_every_setting_sdk_variable_and_proxy_is_foreign() -> None:
    for name in (
        "REDIS_URL",
        "redis_url",
        "LANGFUSE_HOST",
        "ANTHROPIC_AUTH_TOKEN",
        "no_proxy",
        "AWS_PROFILE",
        "GOOGLE_APPLICATION_CREDENTIALS",
    ):
        assert foreign(name)
    assert not foreign("PATH") and not foreign("REDIS_SERVER")  # the test's own knob
    assert not any(foreign(name) for name in process_env())


def test_settings_built_in_tests_ignore_the_shell_and_dotenv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".env").write_text("REDIS_URL=redis://10.1.2.3:6379\nMAX_ATTEMPTS=1\n")
    monkeypatch.chdir(tmp_path)
    settings = load_settings()
    assert settings.redis_url is None and settings.max_attempts == 3
    assert settings.langfuse_public_key is None and settings.anthropic_api_key is None


def test_a_shell_full_of_real_settings_changes_nothing(tmp_path: Path) -> None:
    """Tests run with all of HOSTILE in the environment and in a `.env` where they run."""
    (tmp_path / ".env").write_text("".join(f"{k}={v}\n" for k, v in HOSTILE.items()))
    done = pytest_run(tmp_path, {**process_env(), **HOSTILE}, *(str(ROOT / t) for t in AFFECTED))
    assert done.returncode == 0, done.stdout[-3000:]
    assert f"{len(AFFECTED)} passed" in done.stdout


def test_reaching_another_host_fails_the_test(loopback_only: Guard) -> None:
    with pytest.raises(NonLoopback, match="loopback only"):
        socket.create_connection(("10.1.2.3", 6379), timeout=1)
    with pytest.raises(NonLoopback):
        socket.getaddrinfo("cloud.langfuse.com", 443)
    assert len(loopback_only.attempts) == 2
    loopback_only.attempts.clear()  # (this test meant to try)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        socket.create_connection(sock.getsockname(), timeout=1).close()  # loopback is fine


def test_an_attempt_the_code_swallowed_still_fails_the_test(tmp_path: Path) -> None:
    (tmp_path / "test_swallows.py").write_text(
        "import socket\n\n"
        "def test_swallows():\n"
        "    try:\n"
        "        socket.create_connection(('10.1.2.3', 6379), timeout=1)\n"
        "    except OSError:\n"
        "        pass  # as a client with retries and a fallback would\n"
    )
    done = pytest_run(tmp_path, process_env(), "-p", "tests.isolation", "test_swallows.py")
    assert done.returncode == 1
    assert "tests may reach loopback only; this one tried [\"'10.1.2.3' port 6379\"]" in (
        done.stdout
    )
