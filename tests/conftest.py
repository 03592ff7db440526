"""Shared fixtures: the loopback fakes, and settings that never read the developer's .env."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app.settings import Settings, load_settings
from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.slack import FakeSlack


@pytest.fixture(scope="session")
def anthropic_server() -> Iterator[FakeAnthropic]:
    server = FakeAnthropic()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def fake_anthropic(anthropic_server: FakeAnthropic) -> Iterator[FakeAnthropic]:
    anthropic_server.reset()
    yield anthropic_server
    anthropic_server.reset()


@pytest.fixture
def make_settings(anthropic_server: FakeAnthropic) -> Any:
    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "anthropic_api_key": "test-key",
            "anthropic_base_url": anthropic_server.url,
            "anthropic_timeout": 5.0,
            "anthropic_max_retries": 2,
            "slack_bot_token": "xoxb-test",
            **overrides,
        }
        return load_settings(_env_file=None, **values)

    return make


@pytest.fixture(scope="session")
def slack_server() -> Iterator[FakeSlack]:
    server = FakeSlack()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def fake_slack(slack_server: FakeSlack) -> Iterator[FakeSlack]:
    slack_server.reset()
    yield slack_server
    slack_server.reset()
