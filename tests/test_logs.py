"""Log lines repeated fast are limited: a few per minute of each kind, then one that says
how many were held back; other lines, and lines below WARNING, are untouched."""

from __future__ import annotations

import asyncio
import errno
import io
import json
import logging
import socket
from collections.abc import Iterator

import pytest

from app import logs


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def record(msg: str, level: int = logging.ERROR, name: str = "asyncio") -> logging.LogRecord:
    return logging.LogRecord(name, level, __file__, 1, msg, (), None)


def test_a_repeated_line_passes_a_few_times_per_interval_then_says_how_many_were_held() -> None:
    clock = Clock()
    limit = logs.RepeatLimit(burst=3, interval=60.0, clock=clock)
    passed = [limit.filter(record("accept failed")) for _ in range(100)]
    assert passed == [True] * 3 + [False] * 97
    clock.now = 59.9
    assert not limit.filter(record("accept failed"))
    clock.now = 60.0
    after = record("accept failed")
    assert limit.filter(after) and after.suppressed == 98  # type: ignore[attr-defined]
    assert [limit.filter(record("accept failed")) for _ in range(3)] == [True, True, False]


def test_kinds_are_counted_apart_and_info_is_never_limited() -> None:
    limit = logs.RepeatLimit(burst=1, interval=60.0, clock=Clock())
    assert limit.filter(record("one %s"))
    assert limit.filter(record("two"))
    assert limit.filter(record("one %s", level=logging.WARNING))
    assert limit.filter(record("one %s", name="vouch"))
    assert not limit.filter(record("one %s"))
    assert all(limit.filter(record("answered", level=logging.INFO)) for _ in range(50))


def test_the_windows_kept_are_bounded() -> None:
    clock = Clock()
    limit = logs.RepeatLimit(burst=1, interval=1.0, clock=clock)
    for n in range(3 * logs.RepeatLimit.KINDS):
        clock.now = n / 100
        assert limit.filter(record(f"unique {n}"))
    assert len(limit._windows) <= logs.RepeatLimit.KINDS


@pytest.fixture
def log_output() -> Iterator[io.StringIO]:
    """The app's logging set-up into a buffer; the test process's restored afterwards."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    levels = {name: logging.getLogger(name).level for name in logs.QUIET + logs.WARNINGS_ONLY}
    stream = io.StringIO()
    logs.configure("INFO", stream)
    yield stream
    root.handlers[:], root.level = saved
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


async def test_asyncio_out_of_files_errors_are_a_few_lines_not_one_per_accept(
    log_output: io.StringIO,
) -> None:
    """What the event loop reports per failed accept at the open-file limit (EMFILE)."""
    loop = asyncio.get_running_loop()
    with socket.socket() as listening:
        for _ in range(200):
            loop.call_exception_handler(
                {
                    "message": "socket.accept() out of system resource",
                    "exception": OSError(errno.EMFILE, "Too many open files"),
                    "socket": listening,
                }
            )
    logging.getLogger("vouch").info("still logging")
    lines = [json.loads(line) for line in log_output.getvalue().splitlines()]
    assert [line["logger"] for line in lines] == ["asyncio"] * 5 + ["vouch"]
    assert lines[0]["level"] == "ERROR" and lines[0]["error"] == "OSError"
    assert "suppressed" not in lines[0]


def test_a_json_line_carries_the_number_held_back() -> None:
    limited = record("accept failed")
    limited.suppressed = 7
    assert json.loads(logs.JsonLines().format(limited))["suppressed"] == 7
    assert "suppressed" not in json.loads(logs.JsonLines().format(record("accept failed")))
