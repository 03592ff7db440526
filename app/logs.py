"""Structured logs: one JSON object per line, carrying the trace id of the message being
answered, so a log line leads to its Langfuse trace (and to the ref a user was shown).

No message content: Vouch's log calls pass ids, codes and counts only; an exception is logged
by its type alone (its message and traceback can quote data); third-party loggers that print
request or response bodies are kept to errors; the Langfuse SDK's lines keep their numbers and
ids but not the rest of their arguments (a server's error messages quote what was sent: a 207
on a batch of scores lists why each refused score was refused).

No floods: a warning or error repeated fast (asyncio logs one per failed accept when the
process is out of open files) is let through a few times a minute, and the next one after
that carries how many were held back (`suppressed`).
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
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
        suppressed = getattr(record, "suppressed", 0)
        if suppressed:
            entry["suppressed"] = suppressed
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


class _Window:
    def __init__(self, start: float) -> None:
        self.start = start
        self.passed = 1
        self.suppressed = 0


class RepeatLimit(logging.Filter):
    """At most `burst` records of one kind (logger, level and message template), from
    WARNING up, pass per `interval` seconds; the first to pass after a window in which some
    were dropped carries their number as `record.suppressed`."""

    KINDS = 1024  # windows kept; past it, ended windows are forgotten

    def __init__(
        self, burst: int = 5, interval: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self._burst = burst
        self._interval = interval
        self._clock = clock
        self._windows: dict[tuple[str, int, str], _Window] = {}
        self._lock = threading.Lock()  # records come from worker threads too

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        kind = (record.name, record.levelno, str(record.msg))
        now = self._clock()
        with self._lock:
            window = self._windows.get(kind)
            if window is None or now - window.start >= self._interval:
                record.suppressed = window.suppressed if window else 0
                self._open(kind, now)
                return True
            if window.passed < self._burst:
                window.passed += 1
                return True
            window.suppressed += 1
            return False

    def _open(self, kind: tuple[str, int, str], now: float) -> None:
        if len(self._windows) >= self.KINDS:
            ended = [k for k, w in self._windows.items() if now - w.start >= self._interval]
            for k in ended or list(self._windows):
                del self._windows[k]
        self._windows[kind] = _Window(now)


def configure(level: str, stream: IO[str] | None = None) -> logging.Handler:
    """Send every log record through RepeatLimit and JsonLines to `stream` (stderr by
    default)."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonLines())
    handler.addFilter(Withheld())
    handler.addFilter(RepeatLimit())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in QUIET:
        logging.getLogger(name).setLevel(logging.ERROR)
    for name in WARNINGS_ONLY:
        logging.getLogger(name).setLevel(logging.WARNING)
    return handler
