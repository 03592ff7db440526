"""Deterministic repair: apply the fixes of the flagged spans until nothing fixable is left."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.verify.formatting import Finding, find_formatting
from app.verify.scan import Layout, scan
from app.verify.verdict import Dialect

# Each pass removes the constructs it fixes; nested ones (bold inside a link) take a
# second pass. Real drafts settle in one or two.
MAX_PASSES = 6


@dataclass(frozen=True, slots=True)
class Repaired:
    text: str
    layout: Layout
    findings: tuple[Finding, ...]  # formatting findings still present in `text`
    applied: frozenset[str]  # codes of every fix that was applied


def repair(text: str, dialect: Dialect) -> Repaired:
    """Fix what can be fixed in `text` for `dialect`; idempotent once it has settled."""
    applied: set[str] = set()
    layout = scan(text)
    findings = find_formatting(layout, dialect)
    for _ in range(MAX_PASSES):
        edits = _non_overlapping(f for f in findings if f.fix is not None)
        if not edits:
            break
        text = _apply(text, edits)
        applied.update(edit.code for edit in edits)
        layout = scan(text)
        findings = find_formatting(layout, dialect)
    return Repaired(text, layout, tuple(findings), frozenset(applied))


def _non_overlapping(findings: Iterable[Finding]) -> list[Finding]:
    """Earliest first, longest first at the same start; later overlaps wait for a new pass."""
    chosen: list[Finding] = []
    reach = -1
    for finding in sorted(findings, key=lambda f: (f.start, f.start - f.end)):
        if finding.start >= reach:
            chosen.append(finding)
            reach = max(finding.end, finding.start + 1)
    return chosen


def _apply(text: str, edits: list[Finding]) -> str:
    parts: list[str] = []
    last = 0
    for edit in edits:
        parts += [text[last : edit.start], edit.fix or ""]
        last = edit.end
    parts.append(text[last:])
    return "".join(parts)
