"""Shared fixtures: the loopback fakes, and settings that never read the developer's .env
(tests/isolation.py keeps the shell's environment out and every connection on loopback)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.settings import Settings, load_settings
from app.telemetry import Telemetry
from app.wiring import Vouch
from tests import examples  # noqa: F401 (registers and loads the Hypothesis profiles)
from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.langfuse import FakeLangfuse
from tests.fakes.server import cleaned, free_port, serving
from tests.fakes.slack import FakeSlack
from tests.isolation import isolated, loopback_only, process_env  # noqa: F401 (autouse)
from tests.knowledge.grounding import DOCS
from tests.redis_server import RedisServer, running_redis
from tests.slack.bolt import SIGNING_SECRET, close_built, make_app


@pytest.fixture(autouse=True)
async def closed_apps() -> AsyncIterator[None]:
    """Every app a test made is closed after it: workers stopped, store and model client
    closed (an open client's tasks outlive the test's event loop)."""
    yield
    await close_built()


@pytest.fixture(scope="session")
def anthropic_server() -> Iterator[FakeAnthropic]:
    yield from serving(FakeAnthropic())


@pytest.fixture(scope="session")
def slack_server() -> Iterator[FakeSlack]:
    yield from serving(FakeSlack())


@pytest.fixture(scope="session")
def langfuse_server() -> Iterator[FakeLangfuse]:
    yield from serving(FakeLangfuse())


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    with running_redis() as server:
        yield server


@pytest.fixture
def redis(redis_server: RedisServer) -> Iterator[RedisServer]:
    """The shared redis-server, emptied before the test."""
    redis_server.command("FLUSHALL")
    yield redis_server


@pytest.fixture
def fake_langfuse(langfuse_server: FakeLangfuse) -> Iterator[FakeLangfuse]:
    yield from cleaned(langfuse_server)


@pytest.fixture
def fake_anthropic(anthropic_server: FakeAnthropic) -> Iterator[FakeAnthropic]:
    yield from cleaned(anthropic_server)


@pytest.fixture
def fake_slack(slack_server: FakeSlack) -> Iterator[FakeSlack]:
    yield from cleaned(slack_server)


@pytest.fixture
def make_settings(anthropic_server: FakeAnthropic, slack_server: FakeSlack) -> Any:
    """Settings pointing at the loopback fakes; `overrides` (field names) win."""

    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "anthropic_api_key": "test-key",
            "anthropic_base_url": anthropic_server.url,
            "anthropic_timeout": 5.0,
            "anthropic_max_retries": 2,
            "slack_bot_token": "xoxb-test",
            "slack_api_url": slack_server.url,
            "queue_path": ":memory:",  # each app its own record (process tests: a file)
            **overrides,
        }
        return load_settings(_env_file=None, **values)

    return make


@pytest.fixture
def bot(tmp_path: Path, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack) -> Iterator[Any]:
    """Starts `python -m app` on a free port against the fakes; kills it at the end."""
    started: list[subprocess.Popen[str]] = []

    def start(**env: str) -> tuple[subprocess.Popen[str], int]:
        port = free_port()
        process = subprocess.Popen(
            [sys.executable, "-m", "app"],
            cwd=tmp_path,  # no .env here
            env=process_env(
                **{
                    "SLACK_BOT_TOKEN": "xoxb-test",
                    "SLACK_SIGNING_SECRET": SIGNING_SECRET,
                    "SLACK_API_URL": fake_slack.url,
                    "ANTHROPIC_API_KEY": "test-key",
                    "ANTHROPIC_BASE_URL": fake_anthropic.url,
                    "HOST": "127.0.0.1",
                    "PORT": str(port),
                    **env,
                }
            ),
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(process)
        return process, port

    yield start
    for process in started:
        process.kill()
        process.wait()


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A writable copy of the docs in tests/fixtures/knowledge."""
    folder = tmp_path / "docs"
    shutil.copytree(DOCS, folder)
    return folder


@pytest.fixture
def knowledge_settings(make_settings: Callable[..., Settings], docs: Path, tmp_path: Path) -> Any:
    """Settings with KNOWLEDGE_DIR on the fixture docs and the index in tmp_path."""

    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "knowledge_dir": docs,
            "knowledge_index": tmp_path / "data" / "knowledge.sqlite3",
            "knowledge_base_url": "https://docs.example.com/",
            **overrides,
        }
        return make_settings(**values)

    return make


@pytest.fixture
def langfuse_settings(make_settings: Callable[..., Settings], fake_langfuse: FakeLangfuse) -> Any:
    """Settings with telemetry on, into the fake Langfuse, under a fresh project key (the SDK
    keeps one client per public key, and the fake then records only this test's requests)."""

    def make(**overrides: Any) -> Settings:
        public_key = f"pk-lf-{uuid.uuid4().hex}"
        fake_langfuse.keys.add(public_key)
        values = {
            "langfuse_public_key": public_key,
            "langfuse_secret_key": "sk-lf-test",
            "langfuse_base_url": fake_langfuse.url,
            "telemetry_salt": "test-salt",
            **overrides,
        }
        return make_settings(**values)

    return make


Bot = Callable[..., tuple[Vouch, Telemetry]]


@pytest.fixture
async def telemetry_bot(langfuse_settings: Any) -> AsyncIterator[Bot]:
    """Makes the bot with telemetry on; closes every telemetry it made."""
    made: list[Telemetry] = []

    def make(**overrides: Any) -> tuple[Vouch, Telemetry]:
        settings = langfuse_settings(**overrides)
        telemetry = Telemetry.from_settings(settings)
        made.append(telemetry)
        return make_app(settings, telemetry=telemetry), telemetry

    yield make
    for telemetry in made:
        await telemetry.close()
