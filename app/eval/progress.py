"""A progress bar on stderr: redrawn in place on a terminal, a line at every tenth of the
way otherwise (CI logs), so a long run shows it is alive without flooding a log."""

from __future__ import annotations

import sys
import threading
from typing import TextIO

from app.eval.run import Result

WIDTH = 30


class Bar:
    def __init__(self, total: int, title: str, out: TextIO | None = None) -> None:
        self.total = total
        self.title = title
        self.out = out if out is not None else sys.stderr
        self.done = 0
        self.verified = 0
        self.tty = self.out.isatty()
        self._lock = threading.Lock()  # whole lines, whichever thread a run reports from
        self._shown = -1

    def __call__(self, result: Result) -> None:
        with self._lock:
            self.done += 1
            self.verified += result.verified
            self._draw()

    def _draw(self) -> None:
        filled = WIDTH * self.done // max(self.total, 1)
        line = (
            f"{self.title} [{'#' * filled}{'.' * (WIDTH - filled)}] "
            f"{self.done}/{self.total} · verified {self.verified}"
        )
        if self.tty:
            end = "\n" if self.done == self.total else ""
            self.out.write(f"\r{line}{end}")
        else:
            tenth = 10 * self.done // max(self.total, 1)
            if tenth == self._shown:
                return
            self._shown = tenth
            self.out.write(line + "\n")
        self.out.flush()
