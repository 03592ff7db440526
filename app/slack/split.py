"""Cut a long answer into messages: at blank lines, never inside a code block.

A code block longer than one message is cut at line ends, its fence closed at the cut and
reopened (with its info string) in the next piece; a paragraph longer than one message is
cut at line ends, then at spaces, then anywhere.
"""

from __future__ import annotations

from itertools import pairwise

from app.verify.scan import FENCE, fenced_lines


def split(text: str, limit: int) -> list[str]:
    """Pieces of at most `limit` characters that together hold all of `text`'s blocks."""
    pieces: list[str] = []
    current = ""
    for block in _blocks(text):
        for part in _fit(block, limit):
            joined = f"{current}\n\n{part}" if current else part
            if len(joined) <= limit:
                current = joined
            else:
                pieces.append(current)
                current = part
    if current or not pieces:
        pieces.append(current)
    return pieces


def steps_of(text: str, parts: int) -> list[str]:
    """`text` cut into at most `parts` chunks at blank lines outside code blocks, near equal
    in size; the chunks join back to exactly `text` (for revealing or streaming it)."""
    cuts = _paragraph_breaks(text)
    chosen: list[int] = []
    for k in range(1, parts):
        goal = len(text) * k // parts
        best = min(cuts, key=lambda at: abs(at - goal), default=None)
        if best is not None and (not chosen or best > chosen[-1]):
            chosen.append(best)
    edges = [0, *chosen, len(text)]
    return [text[a:b] for a, b in pairwise(edges) if text[a:b]]


def _paragraph_breaks(text: str) -> list[int]:
    """Offsets just after each blank line outside code blocks."""
    lines = text.split("\n")
    breaks: list[int] = []
    at = 0
    for line, kind in zip(lines, fenced_lines(lines), strict=True):
        at += len(line) + 1
        if kind == "prose" and not line.strip() and 0 < at < len(text):
            breaks.append(at)
    return breaks


def _blocks(text: str) -> list[str]:
    """Paragraphs and whole code blocks, in order; blank lines between them are dropped."""
    blocks: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            blocks.append("\n".join(current))
            current.clear()

    lines = text.split("\n")
    for line, kind in zip(lines, fenced_lines(lines), strict=True):
        if kind == "open":
            flush()
        if kind != "prose" or line.strip():
            current.append(line)
        if kind == "close" or (kind == "prose" and not line.strip()):
            flush()
    flush()
    return blocks


def _fit(block: str, limit: int) -> list[str]:
    if len(block) <= limit:
        return [block]
    opened = FENCE.match(block.split("\n", 1)[0])
    if opened and block.rstrip().endswith(opened.group(1)):
        return _fit_code(block, opened.group(0).strip(), opened.group(1), limit)
    return _cut(block, limit)


def _fit_code(block: str, opening: str, fence: str, limit: int) -> list[str]:
    body = block.split("\n")[1:-1]
    room = limit - len(opening) - len(fence) - 2
    parts = _cut("\n".join(body), max(room, 1))
    return [f"{opening}\n{part}\n{fence}" for part in parts]


def _cut(text: str, limit: int) -> list[str]:
    parts: list[str] = []
    while len(text) > limit:
        at = text.rfind("\n", 0, limit + 1)
        if at <= 0:
            at = text.rfind(" ", 0, limit + 1)
        if at <= 0:
            at = limit
        parts.append(text[:at])
        text = text[at:].lstrip("\n") if text[at : at + 1] == "\n" else text[at:].lstrip(" ")
    parts.append(text)
    return parts
