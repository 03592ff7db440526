"""The report of verification rates and failure patterns over a window: what
`python -m app metrics` prints (app/metrics/command.py) and the App Home shows
(app/slack/home.py), computed by the Langfuse Metrics API (v2, or v1 on self-hosted v3
servers, or from the scores API: see `app.metrics.api`) from the scores Vouch records on
each trace.

- verified_message_rate: the average of `verified` (BOOLEAN) — the share of answered
  messages that got a verified answer. Target: over 95%.
- pass_on_first_attempt_rate: the average of `pass_on_first_attempt` (BOOLEAN).
- avg_attempts_to_verify: the average of `attempts_to_verify` (NUMERIC, verified only).
- failure patterns: `issue_code` (CATEGORICAL) counted per code, and `issue_outcome`
  ("CODE/fate") splitting each code's count into repaired, retried into a pass, failed, and
  accepted (a warning left in a verified answer).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, get_args

from app.metrics.api import Ask, Reader, Rows, apis
from app.metrics.window import MetricsError
from app.settings import Settings
from app.telemetry import Fate

TARGET = 0.95
BUSY_LIMIT = 0.05  # busy replies (model or judge unavailable) above this share are flagged
FATES: tuple[str, ...] = get_args(Fate)  # what became of an issue, as telemetry records it

Query = Callable[[Ask], Rows]
__all__ = [
    "BUSY_LIMIT",
    "TARGET",
    "MetricsError",
    "Pattern",
    "Report",
    "decimal",
    "fetch",
    "percent",
    "questions",
    "report",
]


@dataclass(frozen=True)
class Pattern:
    """One issue code's share of every issue found, and what became of it."""

    code: str
    count: int
    share: float
    fates: Mapping[str, int]


@dataclass(frozen=True)
class Report:
    start: datetime
    end: datetime
    environment: str
    messages: int  # answered messages (each has an `outcome` score)
    rated: int  # those in the rates: all but "unavailable" (model down: told to retry)
    verified_rate: float | None
    first_rate: float | None
    avg_attempts: float | None
    avg_quality: float | None
    outcomes: Mapping[str, int] = field(default_factory=dict)
    patterns: tuple[Pattern, ...] = ()
    judged_rate: float | None = None  # of delivered answers, the share the judge passed
    triage: Mapping[str, int] = field(default_factory=dict)  # help channels: by category
    triage_unread: str | None = None  # why help channels' figures could not be read
    source: str = ""  # which Langfuse API answered

    @property
    def busy(self) -> int:
        return int(self.outcomes.get("unavailable", 0))

    @property
    def below_target(self) -> bool:
        return self.verified_rate is not None and self.verified_rate < TARGET

    @property
    def too_busy(self) -> bool:
        return self.messages > 0 and self.busy / self.messages > BUSY_LIMIT

    @property
    def alert(self) -> bool:
        return self.below_target or self.too_busy


def questions(start: datetime, end: datetime, environment: str) -> dict[str, Ask]:
    """The questions behind a report: three for the rates, the last for help channels
    (asked last and apart: a busy help channel's many scores must not cost the rates)."""

    def ask(view: str, names: tuple[str, ...], by_value: bool, averaged: bool) -> Ask:
        return Ask(view, names, by_value, averaged, start, end, environment)

    return {
        "rates": ask(
            "scores-boolean", ("verified", "pass_on_first_attempt", "judged"), False, True
        ),
        "averages": ask("scores-numeric", ("attempts_to_verify", "quality_score"), False, True),
        "issues": ask(
            "scores-categorical", ("issue_code", "issue_outcome", "outcome"), True, False
        ),
        "triage": ask("scores-categorical", ("triage",), True, False),
    }


def report(ask: Query, since: timedelta, environment: str, now: datetime | None = None) -> Report:
    end = now or datetime.now(UTC)
    start = end - since
    asked = questions(start, end, environment)
    triage = asked.pop("triage")
    results = {name: ask(question) for name, question in asked.items()}
    rates = {row.get("name"): row for row in results["rates"]}
    averages = {row.get("name"): row for row in results["averages"]}
    counts: dict[str, dict[str, int]] = {}
    unread = None
    try:
        results["triage"] = ask(triage)
    except MetricsError as exc:  # help channels' figures only: the rates stand
        results["triage"], unread = [], str(exc)
    for row in [*results["issues"], *results["triage"]]:
        name, value = str(row.get("name")), str(row.get("stringValue"))
        counts.setdefault(name, {})[value] = int(_number(row, "count_count") or 0)
    outcomes = counts.get("outcome", {})
    rated = int(_number(rates.get("verified"), "count_count") or 0)
    return Report(
        start=start,
        end=end,
        environment=environment,
        messages=sum(outcomes.values()) or rated,
        rated=rated,
        verified_rate=_number(rates.get("verified"), "avg_value"),
        first_rate=_number(rates.get("pass_on_first_attempt"), "avg_value"),
        avg_attempts=_number(averages.get("attempts_to_verify"), "avg_value"),
        avg_quality=_number(averages.get("quality_score"), "avg_value"),
        outcomes=outcomes,
        patterns=_patterns(counts.get("issue_code", {}), counts.get("issue_outcome", {})),
        judged_rate=_number(rates.get("judged"), "avg_value"),
        triage=counts.get("triage", {}),
        triage_unread=unread,
    )


def _patterns(codes: Mapping[str, int], outcomes: Mapping[str, int]) -> tuple[Pattern, ...]:
    total = sum(codes.values())
    fates: dict[str, dict[str, int]] = {}
    for value, count in outcomes.items():
        code, _, fate = value.rpartition("/")
        fates.setdefault(code, {})[fate] = fates.get(code, {}).get(fate, 0) + count
    ranked = sorted(codes.items(), key=lambda item: (-item[1], item[0]))
    return tuple(
        Pattern(
            code, count, count / total, {fate: fates.get(code, {}).get(fate, 0) for fate in FATES}
        )
        for code, count in ranked
    )


def fetch(settings: Settings, window: timedelta) -> Report:
    """The report of the last `window` from the first Langfuse API the server offers: what
    the command prints and the App Home shows (app/slack/home.py), so both give the same
    figures. Blocking (HTTP); MetricsError without the keys or when Langfuse cannot answer."""
    public, secret = settings.langfuse_public_key, settings.langfuse_secret_key
    if public is None or secret is None:
        raise MetricsError("set LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY to read metrics")
    timeout = float(settings.langfuse_timeout * 6)  # the Metrics API aggregates on the server
    api, plain = apis(settings.langfuse_base_url, public, secret.get_secret_value(), timeout)
    with plain as http:
        reader = Reader(api, http)
        made = report(reader.ask, window, settings.langfuse_environment)
    return replace(made, source=reader.describe())


def _number(row: Mapping[str, Any] | None, alias: str) -> float | None:
    """A measure from a result row; counts come back as strings."""
    if row is None or row.get(alias) is None:
        return None
    try:
        return float(row[alias])
    except (TypeError, ValueError):
        raise MetricsError(f"Langfuse returned a non-number for {alias}") from None


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def decimal(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"
