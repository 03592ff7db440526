"""Verification rates and failure patterns from the scores Vouch records in Langfuse: the
report (`report.py`) from the first of Langfuse's read APIs the server offers (`api.py`).
`python -m app metrics` prints it (`command.py`, the command line, which nothing here
imports); the App Home shows it (app/slack/home.py)."""

from __future__ import annotations

from app.metrics.api import MetricsError
from app.metrics.report import (
    TARGET,
    Report,
    decimal,
    fetch,
    parse_window,
    percent,
    questions,
)

__all__ = [
    "TARGET",
    "MetricsError",
    "Report",
    "decimal",
    "fetch",
    "parse_window",
    "percent",
    "questions",
]
