"""`python -m app metrics`: the rates and failure patterns, from the Langfuse Metrics API
(a loopback fake, asked by the real LangfuseAPI client)."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from langfuse.api import LangfuseAPI

from app.metrics.api import Reader, client
from app.metrics.command import render, run
from app.metrics.report import Report, questions, report
from app.metrics.window import MetricsError, parse_window
from tests.conftest import Bot
from tests.entry import run_main
from tests.fakes.anthropic import FakeAnthropic, Reply, decided
from tests.fakes.langfuse import FakeLangfuse
from tests.fakes.slack import FakeSlack
from tests.isolation import process_env
from tests.slack.bolt import answered, dispatch, message, settle
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
    values = {
        "langfuse_public_key": "pk-lf-metrics",
        "langfuse_secret_key": "sk-lf-metrics",
        "langfuse_base_url": fake.url,
        **overrides,
    }
    return make_settings(**values)


def test_scripted_metrics_response(make_settings: Any, fake_langfuse: FakeLangfuse) -> None:
    fake_langfuse.metrics = lambda query: ROWS[query["view"]]
    out = io.StringIO()
    assert run(settings_for(make_settings, fake_langfuse), parse_window("7d"), out) == 0
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
    categorical = ["scores-categorical", "scores-categorical"]  # the last: triage, apart
    assert views == ["scores-boolean", "scores-numeric", *categorical]
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
    assert run(settings_for(make_settings, fake_langfuse), parse_window("24h"), out) == 1
    assert "! verified_message_rate is under the 95% target." in out.getvalue()
    assert "verified_message_rate        91.0%" in out.getvalue()


def test_an_empty_window(make_settings: Any, fake_langfuse: FakeLangfuse) -> None:
    out = io.StringIO()
    assert run(settings_for(make_settings, fake_langfuse), parse_window("1d"), out) == 0
    assert "No answered messages in this window." in out.getvalue()


def test_langfuse_failing_is_one_clear_error(
    make_settings: Any, fake_langfuse: FakeLangfuse
) -> None:
    fake_langfuse.status = 500
    with pytest.raises(MetricsError, match="answered 500"):
        run(settings_for(make_settings, fake_langfuse), parse_window("7d"), io.StringIO())
    with pytest.raises(MetricsError, match="LANGFUSE_PUBLIC_KEY"):
        run(make_settings(), parse_window("7d"), io.StringIO())


async def test_rates_from_the_scores_the_bot_recorded(
    make_settings: Any,
    telemetry_bot: Bot,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
) -> None:
    """Four messages through the bot (two pass first time, one after a retry, one exhausts
    its attempts), an hour ago; Langfuse, aggregating what the bot sent, gives the three
    rates, and the same report whichever of its APIs the server offers."""
    app, telemetry = telemetry_bot()
    fake_anthropic.push(Reply(GOOD), Reply(GOOD), Reply(UNCLOSED), Reply(GOOD))
    fake_anthropic.push(*[Reply(UNCLOSED)] * 3)
    hour_ago = int(time.time()) - 3600
    for n in range(4):
        await answered(app, fake_slack, f"{hour_ago + n}.000100")
        fake_slack.reset()
    assert await telemetry.flush()

    reports = reported(make_settings, fake_langfuse, "1d")
    text = reports["v4"]
    assert "messages                     4\n" in text
    assert "verified_message_rate        75.0%" in text
    assert "pass_on_first_attempt_rate   50.0%" in text
    assert "avg_attempts_to_verify       1.33" in text
    assert "not verified, by reason      exhausted 1" in text
    table = text.split("Failure patterns")[1].splitlines()
    assert table[2].split() == ["UNCLOSED_CODE_FENCE", "4", "100.0%", "0", "1", "3", "0"]
    assert reports["v3"] == text and reports["scores-only"] == text


async def test_help_channels_count_what_was_taken_and_left_outside_the_rates(
    make_settings: Any,
    *,
    telemetry_bot: Bot,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
    tmp_path: Path,
) -> None:
    """In a help channel, a question answered and two messages left alone (by the model,
    by the first pass): one message in the rates, and why the others were left."""
    channels = tmp_path / "channels.yml"
    channels.write_text("channels:\n  C0HELP:\n    help_channel: true\n")
    app, telemetry = telemetry_bot(channels_file=channels)
    fake_anthropic.push(Reply(GOOD))
    fake_anthropic.triage(decided("question"), decided("joke"))
    hour_ago = int(time.time()) - 3600
    texts = (
        "how do I deploy billing to staging?",
        "deploys on Fridays, what could go wrong",
        "ty!",
    )
    for n, text in enumerate(texts):
        await dispatch(app, message(text, f"{hour_ago + n}.000100", "C0HELP"))
        await settle(fake_slack)
        assert await telemetry.flush()
    assert len(fake_langfuse.scores_named("triage")) == 3

    reports = reported(make_settings, fake_langfuse, "1d")
    text = reports["v4"]
    assert "messages                     1\n" in text
    assert "verified_message_rate        100.0%" in text
    assert "help channels                taken 1, left alone 2 (joke 1, thanks 1)" in text
    assert reports["v3"] == text and reports["scores-only"] == text


def reported(make_settings: Any, fake: FakeLangfuse, since: str) -> dict[str, str]:
    """The report from a v4, a v3 and a scores-only server holding the same scores, its
    source line checked and taken out, and its window's times too (the three reports may
    be made on either side of a minute's turn)."""
    sources = {
        "v4": r"From the Langfuse Metrics API v2\.",
        "v3": r"From the Langfuse Metrics API v1 \(Metrics API v2 not offered by this server\)\.",
        "scores-only": r"From the Langfuse scores API, [\d,]+ scores read and aggregated here "
        r"\(Metrics API v2 and Metrics API v1 not offered by this server\)\.",
    }
    reports = {}
    for version, source in sources.items():
        fake.version = version
        out = io.StringIO()
        run(settings_for(make_settings, fake), parse_window(since), out)
        header, line, *rest = out.getvalue().splitlines()
        assert re.fullmatch(source, line), (version, line)
        header = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "<time>", header)
        reports[version] = "\n".join([header, *rest])
    fake.version = "v4"
    return reports


def test_every_api_gives_the_same_figures(make_settings: Any, fake_langfuse: FakeLangfuse) -> None:
    """Several pages of scores of each name, with scores outside the window, of another
    environment, and a repeat on the same day (stored once) and on another (stored twice)."""
    now = datetime.now(UTC)
    scores = [
        score
        for n in range(260)
        for score in message_scores(f"t{n}", now - timedelta(hours=n % 50), n)
    ]
    scores += message_scores("old", now - timedelta(days=3), 1)  # outside --since 2d
    scores += message_scores("staging", now - timedelta(hours=1), 0, environment="staging")
    scores += message_scores("t1", now - timedelta(hours=1), 0)  # same id and day: replaces
    scores += message_scores("t2", now - timedelta(hours=30), 0)  # another day: kept
    fake_langfuse.scores.extend(scores)

    reports = reported(make_settings, fake_langfuse, "2d")
    assert reports["v3"] == reports["v4"] == reports["scores-only"]
    # 260 messages, 10 of them 48 or 49 hours ago (outside), and t2's repeat on another day
    assert "messages                     251" in reports["v4"]
    # v1 has no scores-boolean view: BOOLEAN scores are asked of scores-numeric
    views = [query["view"] for query in fake_langfuse.queries]
    assert views[4:] == ["scores-numeric", "scores-numeric", *["scores-categorical"] * 2]
    assert fake_langfuse.queries[4]["filters"][2] == {
        "column": "dataType",
        "operator": "any of",
        "value": ["BOOLEAN"],
        "type": "stringOptions",
    }


def message_scores(
    trace: str, at: datetime, n: int, environment: str = "production"
) -> list[dict[str, Any]]:
    """The scores the SDK sends for one message: verified unless n % 7 == 0, first time
    unless n % 3 == 0, an issue every other message."""
    verified = n % 7 != 0
    rows: list[tuple[str, Any, str]] = [
        ("outcome", "verified" if verified else "exhausted", "CATEGORICAL"),
        ("verified", 1.0 if verified else 0.0, "BOOLEAN"),
        ("pass_on_first_attempt", 1.0 if verified and n % 3 else 0.0, "BOOLEAN"),
    ]
    if verified:
        rows += [("attempts_to_verify", 1.0 if n % 3 else 2.0, "NUMERIC")]
        rows += [("quality_score", round(0.5 + (n % 10) / 20, 4), "NUMERIC")]
        rows += [("judged", 1.0 if n % 11 else 0.0, "BOOLEAN")]
    if n % 2:
        code = ("UNCITED", "MARKDOWN_BOLD")[n % 4 // 2]
        rows += [
            ("issue_code", code, "CATEGORICAL"),
            ("issue_outcome", f"{code}/retried", "CATEGORICAL"),
        ]
    return [
        {
            "id": f"{trace}-{name}",
            "traceId": trace,
            "name": name,
            "value": value,
            "dataType": kind,
            "environment": environment,
            "timestamp": at.isoformat(),
        }
        for name, value, kind in rows
    ]


def test_a_v3_server_is_asked_the_metrics_api_v1(
    make_settings: Any, fake_langfuse: FakeLangfuse
) -> None:
    """The v2 Metrics API is asked once; its 404 moves every query to v1."""
    fake_langfuse.version = "v3"
    out = io.StringIO()
    assert run(settings_for(make_settings, fake_langfuse), parse_window("7d"), out) == 0
    assert fake_langfuse.asked == ["/api/public/v2/metrics"] + ["/api/public/metrics"] * 4
    assert "From the Langfuse Metrics API v1 (Metrics API v2 not offered" in out.getvalue()


def test_no_metrics_api_nor_scores_api_is_one_clear_error(
    make_settings: Any, fake_langfuse: FakeLangfuse
) -> None:
    """A base URL where nothing answers (every path 404), and a v3 server failing on v1."""
    settings = settings_for(
        make_settings, fake_langfuse, langfuse_base_url=f"{fake_langfuse.url}/x"
    )
    with pytest.raises(MetricsError, match=r"neither the Metrics API \(v2 or v1\) nor the scores"):
        run(settings, parse_window("7d"), io.StringIO())
    fake_langfuse.version, fake_langfuse.status = "v3", 500
    with pytest.raises(MetricsError, match="the Langfuse Metrics API v1 answered 500"):
        run(settings_for(make_settings, fake_langfuse), parse_window("7d"), io.StringIO())


def test_reading_scores_is_bounded_in_pages_and_time(
    make_settings: Any, fake_langfuse: FakeLangfuse
) -> None:
    now = datetime.now(UTC)
    for n in range(230):
        fake_langfuse.scores.extend(message_scores(f"t{n}", now - timedelta(minutes=n), n))
    fake_langfuse.version = "scores-only"
    question = questions(now - timedelta(days=1), now + timedelta(minutes=1), "production")["rates"]
    settings = settings_for(make_settings, fake_langfuse)
    with (
        reader(settings, max_pages=2) as bounded,
        pytest.raises(MetricsError, match="more than 200 verified"),
    ):
        bounded.ask(question)
    ticks = iter(range(0, 10_000, 50))  # 50 s pass between pages
    with (
        reader(settings, clock=lambda: next(ticks)) as slow,
        pytest.raises(MetricsError, match="took over 120 s"),
    ):
        slow.ask(question)
    with reader(settings) as whole:
        rows = {row["name"]: row for row in whole.ask(question)}
    verified = rows["verified"]
    assert verified == {
        "name": "verified",
        "count_count": "230",
        "avg_value": pytest.approx(197 / 230),
    }
    assert whole.scores_read == 230 + 230 + 197


@contextmanager
def reader(settings: Any, **bounds: Any) -> Iterator[Reader]:
    public, secret = settings.langfuse_public_key, settings.langfuse_secret_key.get_secret_value()
    api = LangfuseAPI(base_url=settings.langfuse_base_url, username=public, password=secret)
    with client(settings.langfuse_base_url, public, secret, 5.0) as http:
        yield Reader(api, http, **bounds)


def test_the_command_line(tmp_path: Path, fake_langfuse: FakeLangfuse) -> None:
    fake_langfuse.metrics = lambda query: ROWS[query["view"]]
    done = subprocess.run(
        [sys.executable, "-m", "app", "metrics", "--since", "24h", "--top", "1"],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # no .env here
        env=process_env(
            LANGFUSE_PUBLIC_KEY="pk-lf-cli",
            LANGFUSE_SECRET_KEY="sk-lf-cli",
            LANGFUSE_BASE_URL=fake_langfuse.url,
        ),
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "verified_message_rate        96.3%" in done.stdout
    assert "UNCITED" in done.stdout and "MARKDOWN_BOLD" not in done.stdout  # --top 1


def test_a_bad_window_is_one_clear_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    bad = run_main(capsys, "metrics", "--since", "seven days")
    assert bad.status == 2
    assert bad.err.startswith("Cannot report metrics: --since takes a number")
    assert "Traceback" not in bad.err


def test_many_busy_replies_are_flagged(make_settings: Any, fake_langfuse: FakeLangfuse) -> None:
    """A model or judge that is down turns every answer into the busy reply, which is kept
    out of the rates: the report must still raise the alarm."""
    rows: dict[str, list[dict[str, Any]]] = {
        "scores-boolean": [{"name": "verified", "avg_value": 1.0, "count_count": "90"}],
        "scores-categorical": [
            {"name": "outcome", "stringValue": "verified", "count_count": "90"},
            {"name": "outcome", "stringValue": "unavailable", "count_count": "10"},
        ],
    }
    fake_langfuse.metrics = lambda query: rows.get(query["view"], [])
    out = io.StringIO()
    assert run(settings_for(make_settings, fake_langfuse), parse_window("7d"), out) == 1
    assert "! 10.0% of messages got the busy reply" in out.getvalue()


def test_odd_answers_and_arguments_are_clear_errors(
    make_settings: Any, fake_langfuse: FakeLangfuse
) -> None:
    settings = settings_for(make_settings, fake_langfuse)
    with pytest.raises(MetricsError, match="--top"):
        run(settings, parse_window("7d"), io.StringIO(), top=0)
    fake_langfuse.metrics = lambda query: {"not": "rows"}  # type: ignore[assignment,return-value]
    with pytest.raises(MetricsError, match="unexpected answer"):
        run(settings, parse_window("7d"), io.StringIO())


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


def test_help_channels_are_reported_when_nothing_was_answered() -> None:
    """A window where help channels left everything alone still says so (and why)."""
    now = datetime(2026, 11, 26, tzinfo=UTC)
    report = Report(now - timedelta(days=1), now, "production", 0, 0, None, None, None, None)
    assert "help channels" not in render(report)
    left = Report(
        now - timedelta(days=1),
        now,
        "production",
        0,
        0,
        None,
        None,
        None,
        None,
        triage={"statement": 5, "unavailable": 40, "thanks": 5},
    )
    text = render(left)
    assert "No answered messages in this window." in text
    assert "taken 0, left alone 50 (unavailable 40, statement 5, thanks 5)" in text


def test_help_channels_that_cannot_be_read_leave_the_rates_standing() -> None:
    """Triage's scores are asked last and apart: a busy help channel past the scores
    API's bounds costs its own line, not the report."""

    def ask(question: Any) -> list[dict[str, Any]]:
        if question.names == ("triage",):
            raise MetricsError("reading scores took over 120 s: try a shorter --since")
        return ROWS[question.view]

    made = report(ask, timedelta(days=7), "production")
    text = render(made)
    assert "verified_message_rate        96.3%" in text
    assert "help channels                not read: reading scores took over 120 s" in text
