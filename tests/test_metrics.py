"""`python -m app metrics`: the rates and failure patterns, from the Langfuse Metrics API
(a loopback fake, asked by the real LangfuseAPI client)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from app.metrics import MetricsError, Report, parse_window, render, report, run
from tests.conftest import Bot
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.langfuse import FakeLangfuse
from tests.fakes.slack import FakeSlack
from tests.slack.bolt import answered
from tests.test_telemetry import GOOD, UNCLOSED

ROWS: dict[str, list[dict[str, Any]]] = {
    "scores-boolean": [
        {"name": "verified", "avg_value": 0.9631, "count_count": "1600"},
        {"name": "pass_on_first_attempt", "avg_value": 0.875, "count_count": "1600"},
        {"name": "judged", "avg_value": 0.99, "count_count": "1541"},
    ],
    "scores-numeric": [
        {"name": "attempts_to_verify", "avg_value": 1.12, "count_count": "1541"},
        {"name": "quality_score", "avg_value": 0.934, "count_count": "1541"},
    ],
    "scores-categorical": [
        {"name": "issue_code", "stringValue": "UNCITED", "count_count": "120"},
        {"name": "issue_code", "stringValue": "MARKDOWN_BOLD", "count_count": "60"},
        {"name": "issue_code", "stringValue": "OFF_TOPIC", "count_count": "20"},
        {"name": "issue_outcome", "stringValue": "UNCITED/retried", "count_count": "100"},
        {"name": "issue_outcome", "stringValue": "UNCITED/failed", "count_count": "20"},
        {"name": "issue_outcome", "stringValue": "MARKDOWN_BOLD/repaired", "count_count": "60"},
        {"name": "issue_outcome", "stringValue": "OFF_TOPIC/retried", "count_count": "15"},
        {"name": "issue_outcome", "stringValue": "OFF_TOPIC/failed", "count_count": "5"},
        {"name": "outcome", "stringValue": "verified", "count_count": "1541"},
        {"name": "outcome", "stringValue": "exhausted", "count_count": "39"},
        {"name": "outcome", "stringValue": "deadline", "count_count": "20"},
        {"name": "outcome", "stringValue": "unavailable", "count_count": "25"},
    ],
}


@pytest.mark.parametrize(
    ("text", "window"),
    [
        ("7d", timedelta(days=7)),
        ("24h", timedelta(hours=24)),
        ("90m", timedelta(minutes=90)),
        ("2w", timedelta(weeks=2)),
        (" 1d ", timedelta(days=1)),
    ],
)
def test_windows(text: str, window: timedelta) -> None:
    assert parse_window(text) == window


@pytest.mark.parametrize(
    "text", ["", "7", "d", "0d", "7y", "-1d", "1.5h", "7 d", "99999999999w", "600w"]
)
def test_bad_windows(text: str) -> None:
    with pytest.raises(MetricsError):
        parse_window(text)


def settings_for(make_settings: Any, fake: FakeLangfuse, **overrides: Any) -> Any:
    return make_settings(
        langfuse_public_key="pk-lf-metrics",
        langfuse_secret_key="sk-lf-metrics",
        langfuse_base_url=fake.url,
        **overrides,
    )


def test_scripted_metrics_response(make_settings: Any, fake_langfuse: FakeLangfuse) -> None:
    fake_langfuse.metrics = lambda query: ROWS[query["view"]]
    out = io.StringIO()
    assert run(settings_for(make_settings, fake_langfuse), "7d", out) == 0
    text = out.getvalue()
    assert "messages                     1,625 (25 busy replies, model unavailable" in text
    assert "verified_message_rate        96.3%" in text
    assert "pass_on_first_attempt_rate   87.5%" in text
    assert "avg_attempts_to_verify       1.12" in text
    assert "avg_quality_score            0.93" in text
    assert "judged_rate                  99.0%   (the rest went out on the rules alone" in text
    assert "not verified, by reason      exhausted 39, deadline 20" in text
    assert "under the 95% target" not in text
    table = text.split("Failure patterns")[1].splitlines()
    assert table[2].split() == ["UNCITED", "120", "60.0%", "0", "100", "20", "0"]
    assert table[3].split() == ["MARKDOWN_BOLD", "60", "30.0%", "60", "0", "0", "0"]
    assert table[4].split() == ["OFF_TOPIC", "20", "10.0%", "0", "15", "5", "0"]

    views = [query["view"] for query in fake_langfuse.queries]
    assert views == ["scores-boolean", "scores-numeric", "scores-categorical"]
    for query in fake_langfuse.queries:
        start = datetime.fromisoformat(query["fromTimestamp"])
        end = datetime.fromisoformat(query["toTimestamp"])
        assert end - start == timedelta(days=7) and end.tzinfo is not None
        assert {"column": "environment", "operator": "any of", "value": ["production"]}.items() <= (
            query["filters"][1].items()
        )


def test_a_verified_rate_under_target_is_flagged(
    make_settings: Any, fake_langfuse: FakeLangfuse
) -> None:
    low = [{"name": "verified", "avg_value": 0.91, "count_count": "100"}]
    fake_langfuse.metrics = lambda query: low if query["view"] == "scores-boolean" else []
    out = io.StringIO()
    assert run(settings_for(make_settings, fake_langfuse), "24h", out) == 1
    assert "! verified_message_rate is under the 95% target." in out.getvalue()
    assert "verified_message_rate        91.0%" in out.getvalue()


def test_an_empty_window(make_settings: Any, fake_langfuse: FakeLangfuse) -> None:
    out = io.StringIO()
    assert run(settings_for(make_settings, fake_langfuse), "1d", out) == 0
    assert "No answered messages in this window." in out.getvalue()


def test_langfuse_failing_is_one_clear_error(
    make_settings: Any, fake_langfuse: FakeLangfuse
) -> None:
    fake_langfuse.status = 500
    with pytest.raises(MetricsError, match="answered 500"):
        run(settings_for(make_settings, fake_langfuse), "7d", io.StringIO())
    with pytest.raises(MetricsError, match="LANGFUSE_PUBLIC_KEY"):
        run(make_settings(), "7d", io.StringIO())


async def test_rates_from_the_scores_the_bot_recorded(
    telemetry_bot: Bot,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
) -> None:
    """Four messages through the bot (two pass first time, one after a retry, one exhausts
    its attempts); the Metrics API, aggregating what the bot sent, gives the three rates."""
    app, telemetry = telemetry_bot()
    fake_anthropic.push(Reply(GOOD), Reply(GOOD), Reply(UNCLOSED), Reply(GOOD))
    fake_anthropic.push(*[Reply(UNCLOSED)] * 3)
    for n in range(4):
        await answered(app, fake_slack, f"500.00000{n}")
        fake_slack.reset()
    assert await telemetry.flush()

    made = report(fake_langfuse.aggregate, timedelta(days=1), "production")
    assert made.messages == 4
    assert made.verified_rate == 0.75
    assert made.first_rate == 0.5
    assert made.avg_attempts == pytest.approx(4 / 3)
    assert made.outcomes == {"verified": 3, "exhausted": 1}
    [pattern] = made.patterns
    assert (pattern.code, pattern.count, pattern.share) == ("UNCLOSED_CODE_FENCE", 4, 1.0)
    assert dict(pattern.fates) == {"repaired": 0, "retried": 1, "failed": 3, "accepted": 0}
    assert "UNCLOSED_CODE_FENCE" in render(made)


def test_the_command_line(tmp_path: Path, fake_langfuse: FakeLangfuse) -> None:
    fake_langfuse.metrics = lambda query: ROWS[query["view"]]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("LANGFUSE_")}
    done = subprocess.run(
        [sys.executable, "-m", "app", "metrics", "--since", "24h", "--top", "1"],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # no .env here
        env={
            **clean,
            "LANGFUSE_PUBLIC_KEY": "pk-lf-cli",
            "LANGFUSE_SECRET_KEY": "sk-lf-cli",
            "LANGFUSE_BASE_URL": fake_langfuse.url,
        },
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "verified_message_rate        96.3%" in done.stdout
    assert "UNCITED" in done.stdout and "MARKDOWN_BOLD" not in done.stdout  # --top 1
    bad = subprocess.run(
        [sys.executable, "-m", "app", "metrics", "--since", "seven days"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr.startswith("Cannot report metrics: --since takes a number")
    assert "Traceback" not in bad.stderr


def test_many_busy_replies_are_flagged(make_settings: Any, fake_langfuse: FakeLangfuse) -> None:
    """A model or judge that is down turns every answer into the busy reply, which is kept
    out of the rates: the report must still raise the alarm."""
    rows = {
        "scores-boolean": [{"name": "verified", "avg_value": 1.0, "count_count": "90"}],
        "scores-categorical": [
            {"name": "outcome", "stringValue": "verified", "count_count": "90"},
            {"name": "outcome", "stringValue": "unavailable", "count_count": "10"},
        ],
    }
    fake_langfuse.metrics = lambda query: rows.get(query["view"], [])
    out = io.StringIO()
    assert run(settings_for(make_settings, fake_langfuse), "7d", out) == 1
    assert "! 10.0% of messages got the busy reply" in out.getvalue()


def test_odd_answers_and_arguments_are_clear_errors(
    make_settings: Any, fake_langfuse: FakeLangfuse
) -> None:
    settings = settings_for(make_settings, fake_langfuse)
    with pytest.raises(MetricsError, match="--top"):
        run(settings, "7d", io.StringIO(), top=0)
    fake_langfuse.metrics = lambda query: {"not": "rows"}  # type: ignore[assignment,return-value]
    with pytest.raises(MetricsError, match="unexpected answer"):
        run(settings, "7d", io.StringIO())


def test_answers_the_user_stopped_are_not_counted_as_unverified() -> None:
    now = datetime(2026, 11, 23, tzinfo=UTC)
    made = Report(
        start=now - timedelta(days=1),
        end=now,
        environment="production",
        messages=10,
        rated=10,
        verified_rate=0.9,
        first_rate=0.9,
        avg_attempts=1.0,
        avg_quality=0.9,
        outcomes={"verified": 6, "stopped": 3, "exhausted": 1},
    )
    assert "not verified, by reason      exhausted 1\n" in render(made) + "\n"
