"""Shared fixtures: the loopback fakes, and settings that never read the developer's .env."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app.settings import Settings, load_settings
from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.langfuse import FakeLangfuse
from tests.fakes.server import cleaned, serving
from tests.fakes.slack import FakeSlack


@pytest.fixture(scope="session")
def anthropic_server() -> Iterator[FakeAnthropic]:
    yield from serving(FakeAnthropic())


@pytest.fixture(scope="session")
def slack_server() -> Iterator[FakeSlack]:
    yield from serving(FakeSlack())


@pytest.fixture(scope="session")
def langfuse_server() -> Iterator[FakeLangfuse]:
    yield from serving(FakeLangfuse())


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
            **overrides,
        }
        return load_settings(_env_file=None, **values)

    return make
