"""The report's lines, at most WIDTH columns each (a terminal, a CI log, a pull request's
comment), however long the model names, labels, ids or lists of codes: a line breaks
between the parts of what it says, never inside a model name or a code when it fits."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator, Sequence

WIDTH = 100

# A part of a line: the separator that joins it to the part before (" → ", " · ", ","),
# and its text. At a break the separator's mark ends the line ("→", "·", ",").
Part = tuple[str, str]
MARK = 2  # the longest mark a separator leaves at a line's end (" →")


def parts(text: str, separator: str) -> list[Part]:
    """`text` split at `separator` into the parts that `wrapped` joins again."""
    return [("" if n == 0 else separator, piece) for n, piece in enumerate(text.split(separator))]


def wrapped(first: str, joined: Sequence[Part], indent: str, width: int = WIDTH) -> list[str]:
    """`first`, then each part after its separator, in lines of at most `width` columns:
    a line breaks before a part that does not fit on it (with the mark of the separator
    after it); later lines start with `indent`. A part longer than a whole line is cut (at
    spaces where it has them)."""
    pieces = list(_cut(joined, max(width - len(indent) - MARK, 1)))
    following = [separator.rstrip() for separator, _ in pieces[1:]] + [""]
    lines, line = [], first
    for (separator, text), mark in zip(pieces, following, strict=False):  # none: no parts
        if line.strip() and len(line) + len(separator) + len(text) + len(mark) > width:
            lines.append((line + separator).rstrip())
            line = indent + text
        else:
            line += separator + text
    return [*lines, line.rstrip()]


def paragraph(text: str) -> str:
    """A sentence or two of prose, broken between words."""
    return textwrap.fill(text, WIDTH, break_on_hyphens=False)


def _cut(joined: Sequence[Part], room: int) -> Iterator[Part]:
    for separator, text in joined:
        if len(text) <= room:
            yield separator, text
            continue
        pieces = textwrap.wrap(text, room, break_on_hyphens=False)
        yield separator, pieces[0]
        for piece in pieces[1:]:
            yield " ", piece
