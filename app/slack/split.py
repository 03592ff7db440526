"""Cut a long answer into messages: at blank lines, never inside a code block.

A code block longer than one message is cut at line ends, its fence closed at the cut and
reopened (with its info string) in the next piece; a paragraph longer than one message is
cut at line ends, then at spaces, then anywhere.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"[ \t]*(```+)(.*)$")


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


def _blocks(text: str) -> list[str]:
    """Paragraphs and whole code blocks, in order; blank lines between them are dropped."""
    blocks: list[str] = []
    lines: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if fence is None and opened and "```" not in opened.group(2):
            if lines:
                blocks.append("\n".join(lines))
            lines, fence = [line], opened.group(1)
        elif fence is not None:
            lines.append(line)
            if line.strip() == fence:
                blocks.append("\n".join(lines))
                lines, fence = [], None
        elif line.strip():
            lines.append(line)
        elif lines:
            blocks.append("\n".join(lines))
            lines = []
    if lines:
        blocks.append("\n".join(lines))
    return blocks


def _fit(block: str, limit: int) -> list[str]:
    if len(block) <= limit:
        return [block]
    opened = _FENCE.match(block.split("\n", 1)[0])
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
