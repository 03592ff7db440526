"""Line-anchored patterns that scan at C speed.

Python's regex engine skips ahead quickly only for patterns that begin with a literal;
a `^`-anchored pattern is tried at every character. `LinePattern` searches "\\n" + body
instead, and tries the body once at offset 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterator


class LinePattern:
    def __init__(self, body: str, flags: int = 0) -> None:
        self._first = re.compile(body, flags | re.M)
        self._rest = re.compile("\n" + body, flags | re.M)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """Matches of the body at line starts; use `line_start(m)` for where one begins."""
        first = self._first.match(text)
        if first is not None:
            yield first
        yield from self._rest.finditer(text, first.end() if first is not None else 0)


def line_start(m: re.Match[str]) -> int:
    """Where a LinePattern match begins (after the newline it was found by)."""
    start = m.start()
    return start + 1 if m.string.startswith("\n", start) else start
