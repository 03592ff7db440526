"""The lines a process a test started writes to stderr, read as they come."""

from __future__ import annotations

import json
import subprocess
import threading
from typing import Any


class Lines:
    """The lines a process writes to stderr, collected as they come."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        assert process.stderr is not None
        self._thread = threading.Thread(target=self.lines.extend, args=(process.stderr,))
        self._thread.start()

    def messages(self, needle: str) -> list[dict[str, Any]]:
        entries = [json.loads(line) for line in self.lines if line.startswith("{")]
        return [entry for entry in entries if needle in entry["message"]]

    def join(self) -> str:
        self._thread.join(timeout=30)
        return "".join(self.lines)
