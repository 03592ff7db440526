"""The window a report covers, as the command line writes it ("90m", "24h", "7d", "2w"),
how many codes it lists, and the error that says one line to the user. Nothing here
imports the Langfuse SDK: a mistyped argument is told at once."""

from __future__ import annotations

import re
from datetime import timedelta

MAX_WINDOW = timedelta(days=3_660)
_WINDOW = re.compile(r"(\d+)([mhdw])")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


class MetricsError(Exception):
    """Langfuse could not be asked or answered badly, or the command line asked for what
    cannot be reported: one line for the user."""


def parse_window(text: str) -> timedelta:
    """ "90m", "24h", "7d", "2w" → a timedelta."""
    match = _WINDOW.fullmatch(text.strip())
    if match is None or int(match.group(1)) == 0:
        raise MetricsError(f"--since takes a number and m, h, d or w (e.g. 7d), not {text!r}")
    try:
        window = timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
    except OverflowError:
        window = MAX_WINDOW * 2
    if window > MAX_WINDOW:
        raise MetricsError("--since reaches back at most 10 years")
    return window


def top_codes(top: int) -> int:
    """--top: how many issue codes the report lists (1 or more)."""
    if top < 1:
        raise MetricsError("--top takes a number of codes, 1 or more")
    return top
