"""Structured logs: one JSON object per line, carrying the trace id of the message being
answered, so a log line leads to its Langfuse trace (and to the ref a user was shown).

No message content: Vouch's log calls pass ids, codes and counts only; an exception is logged
by its type alone (its message and traceback can quote data); third-party loggers that print
request or response bodies are kept to errors; the Langfuse SDK's lines keep their numbers and
ids but not the rest of their arguments (a server's error messages quote what was sent: a 207
on a batch of scores lists why each refused score was refused).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import IO

# Loggers that can print bodies (message text) below ERROR: Bolt prints an unhandled request
# whole as a warning; the SDKs and HTTP clients log requests at DEBUG.
QUIET = ("slack_bolt", "slack_sdk", "anthropic", "httpx", "httpx2", "aiohttp.access")
# Loggers whose warnings are useful (telemetry export problems) and hold no bodies.
WARNINGS_ONLY = ("langfuse", "opentelemetry")

# Ids, codes, labels, model names: no spaces, so no sentence fits.
TOKEN = re.compile(r"[\w.:/@+-]{0,128}", re.ASCII)
WITHHELD = "[withheld]"

_trace_id: ContextVar[str | None] = ContextVar("vouch_trace_id", default=None)


@contextmanager
def traced(trace_id: str) -> Iterator[None]:
    """Every line logged inside (in this task) carries `trace_id`."""
    token = _trace_id.set(trace_id)
    try:
        yield
    finally:
        _trace_id.reset(token)


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        trace_id = _trace_id.get()
        if trace_id:
            entry["trace_id"] = trace_id
        if record.exc_info and record.exc_info[0] is not None:
            entry["error"] = record.exc_info[0].__name__
        return json.dumps(entry, ensure_ascii=False)


class Withheld(logging.Filter):
    """In the lines of WARNINGS_ONLY loggers, every argument that is not a number or an
    id-like token is withheld (an exception is shown by its type)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.split(".")[0] in WARNINGS_ONLY and isinstance(record.args, tuple):
            record.args = tuple(_shown(arg) for arg in record.args)
        return True


def _shown(arg: object) -> object:
    if isinstance(arg, int | float) or (isinstance(arg, str) and TOKEN.fullmatch(arg)):
        return arg
    return type(arg).__name__ if isinstance(arg, BaseException) else WITHHELD


def configure(level: str, stream: IO[str] | None = None) -> logging.Handler:
    """Send every log record through JsonLines to `stream` (stderr by default)."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonLines())
    handler.addFilter(Withheld())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in QUIET:
        logging.getLogger(name).setLevel(logging.ERROR)
    for name in WARNINGS_ONLY:
        logging.getLogger(name).setLevel(logging.WARNING)
    return handler
