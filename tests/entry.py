"""The command line in this process: `main(argv)` as `python -m app ARGS` would run it,
its stdout and stderr captured, and the logging it sets up undone afterwards (main points
the root logger at the stderr of the moment, which here is pytest's capture)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from app import logs
from app.__main__ import main


@dataclass(frozen=True)
class Done:
    """What a command did: its exit status and what it printed."""

    status: int
    out: str
    err: str


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> Done:
    """`python -m app ARGV`, in process, with the environment the test set."""
    capsys.readouterr()  # what the test printed before is not the command's
    with _logging_kept():
        status = main(list(argv))
    captured = capsys.readouterr()
    return Done(status, captured.out, captured.err)


@contextmanager
def _logging_kept() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    named = [logging.getLogger(name) for name in (*logs.QUIET, *logs.WARNINGS_ONLY)]
    levels = [logger.level for logger in named]
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        for logger, was in zip(named, levels, strict=True):
            logger.setLevel(was)
