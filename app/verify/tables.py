"""Markdown tables, which Slack shows as raw pipes, and their aligned code-block form."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise

from app.verify.lines import LinePattern, line_start
from app.verify.scan import Layout

_DELIMITER = LinePattern(r"[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+(?:[ \t]*:?-+:?[ \t]*)?$")


@dataclass(frozen=True, slots=True)
class Table:
    start: int
    end: int
    rows: tuple[tuple[str, ...], ...]  # header first; the delimiter row is dropped

    def as_code_block(self) -> str | None:
        """The table as aligned columns in a ``` block; None if a cell holds a fence."""
        if any("```" in cell for row in self.rows for cell in row):
            return None
        columns = max(len(row) for row in self.rows)
        rows = [row + ("",) * (columns - len(row)) for row in self.rows]
        widths = [max(len(row[i]) for row in rows) for i in range(columns)]
        lines = [" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
        lines.insert(1, "-+-".join("-" * w for w in widths))
        body = "\n".join(line.rstrip() for line in lines)
        return f"```\n{body}\n```"


def tables(layout: Layout) -> Iterator[Table]:
    """Each run of lines: a header with pipes, a delimiter row, then rows with pipes."""
    masked = layout.masked
    covered = 0  # tables do not overlap: rows of one table are not headers of another
    for m in _DELIMITER.finditer(masked):
        delimiter = line_start(m)
        if delimiter == 0 or delimiter <= covered:
            continue
        header_start = masked.rfind("\n", 0, delimiter - 1) + 1
        header_end = delimiter - 1
        if "|" not in masked[header_start:header_end]:
            continue
        bounds = [(header_start, header_end)]
        end = m.end()
        while end < len(masked):
            line_end = masked.find("\n", end + 1)
            line_end = len(masked) if line_end == -1 else line_end
            if "|" not in masked[end + 1 : line_end]:
                break
            bounds.append((end + 1, line_end))
            end = line_end
        rows = tuple(_cells(layout, start, stop) for start, stop in bounds)
        covered = end
        yield Table(header_start, end, rows)


def _cells(layout: Layout, start: int, end: int) -> tuple[str, ...]:
    masked, text = layout.masked[start:end], layout.text[start:end]
    cuts = [i for i, ch in enumerate(masked) if ch == "|" and (i == 0 or masked[i - 1] != "\\")]
    edges = [-1, *cuts, len(masked)]
    cells = [text[a + 1 : b].strip().replace("\\|", "|") for a, b in pairwise(edges)]
    outline = masked.strip()
    if outline.startswith("|"):
        cells = cells[1:]
    if outline.endswith("|") and cells:
        cells = cells[:-1]
    return tuple(cells)
