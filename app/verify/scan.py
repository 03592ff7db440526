"""Split a draft into what rules may look at (prose) and what they must never touch.

Code spans, fenced code and Slack entities are *protected*. `scan` returns the text with
every protected character (except newlines) replaced by MASK, so rules can run plain
regular expressions over prose with offsets that map one to one onto the original text.
Everything here is linear in the size of the text.

`fenced_lines` is the same idea by whole lines, for what cuts text at line ends (splitting an
answer into messages, a document into sections): which lines open, hold or close a fenced
code block. Unlike `scan`, which pairs backtick runs wherever Slack does, it sees a fence
only at the start of a line and a closing fence only as a line of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal, NamedTuple

MASK = "\ue000"
# Scripts written without spaces, or whose characters carry a syllable or a word: kana,
# Han and Hangul (a character class body, for the rules that count or skip them).
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_TICKS = re.compile(r"``*")  # not `+: only a literal-led pattern is scanned at C speed
_FENCE_INDENT = re.compile(r"[ \t]*(?:(?:[-*+]|\d+[.)])[ \t]+)?")
# A line that starts with a fence: group 1 the fence, group 2 the rest (the info string).
FENCE = re.compile(r"[ \t]*(```+)(.*)$")
_MARKDOWN_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
_ENTITY = re.compile(
    r"<(?P<target>[@#!][^<>\s|]*|(?:https?|mailto|tel|ftp|slack):[^<>\s|]+)"
    r"(?:\|(?P<label>[^<>\n]*))?>"
)

EntityKind = Literal["user", "channel", "special", "link"]
_KIND_BY_SIGIL: dict[str, EntityKind] = {"@": "user", "#": "channel", "!": "special"}


class Entity(NamedTuple):
    """A Slack entity such as <@U123>, <#C1|general>, <!here> or <https://x|label>."""

    start: int
    end: int
    kind: EntityKind
    target: str
    label: str | None


# An emoji: a pictograph (joiners and variation selectors go with them), or a Slack
# shortcode (":tada:", ":+1:")
PICTOGRAPH = "[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff]"
SHORTCODE = ":[a-z0-9_+-]+:"
EMOJI = re.compile(f"{SHORTCODE}|{PICTOGRAPH}|\ufe0f")  # one, with its variation selectors
# A URL written out in prose (outside code and Slack links, which the mask hides).
BARE_URL = re.compile(r"http(?<!\whttp)s?://(?:[^\s<>()\[\]|`\ue000]|\([^\s<>()]*\))+")


# Words in quotation marks, on one line: what someone else wrote (an error, a label, a
# colleague's message), in whatever language it was written. A single quote opens only
# where no letter stands before it ("l'équipe", "don't" hold apostrophes). Each quote is
# at most QUOTE characters and holds no mark that opens it: an unclosed "„" reads on to
# the next one, not to the line's end, so a text full of them is read once.
QUOTE = 300
_MARKS = (
    ('"', '"'), ("“", "”"), ("„", "“”"), ("«", "»"), ("»", "«»"), ("”", "”"),
    ("‚", "‘’"), ("‹", "›"), ("「", "」"), ("『", "』"),
)  # fmt: skip
CLOSING_MARKS = "".join(dict.fromkeys("".join(closes for _, closes in _MARKS) + "’"))
QUOTED = re.compile(
    "|".join(f"{opens}[^{opens}{closes}\n]{{1,{QUOTE}}}[{closes}]" for opens, closes in _MARKS)
    + f"|(?<!\\w)(?:'[^'\n]{{1,{QUOTE}}}'|‘[^‘’\n]{{1,{QUOTE}}}’|’[^’\n]{{1,{QUOTE}}}’)(?!\\w)"
)


@dataclass(frozen=True, slots=True)
class Layout:
    text: str
    masked: str
    code: tuple[tuple[int, int], ...]
    entities: tuple[Entity, ...]
    unclosed_fence: int | None  # offset of a ``` fence that is never closed


def scan(text: str) -> Layout:
    """Find the protected regions of `text` and mask them."""
    code, unclosed = _code_regions(text)
    code_masked = _mask(text, code)
    masked, entities = _mask_entities(code_masked)
    return Layout(text, masked, tuple(code), entities, unclosed)


def _mask(text: str, regions: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> str:
    if not regions:
        return text
    parts: list[str] = []
    last = 0
    for start, end in regions:
        parts.append(text[last:start])
        segment = text[start:end]
        if "\n" in segment:
            parts.append("\n".join(MASK * len(line) for line in segment.split("\n")))
        else:
            parts.append(MASK * len(segment))
        last = end
    parts.append(text[last:])
    return "".join(parts)


def _code_regions(text: str) -> tuple[list[tuple[int, int]], int | None]:
    """Pair backtick runs: a run closes at the next run of the same length.

    Runs of one or two backticks (inline code) must close on the same line; runs of three
    or more (fences, or Slack's inline ```x```) may span lines. An unmatched run of three
    or more at the start of a line is an unclosed fence: the rest of the text is code.
    """
    runs = [m.span() for m in _TICKS.finditer(text)]
    next_same = _next_same_length(runs)
    regions: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        start, end = runs[i]
        j = next_same[i]
        if j is not None and (end - start >= 3 or _same_line(text, end, runs[j][0])):
            regions.append((start, runs[j][1]))
            i = j + 1
            continue
        if end - start >= 3 and _at_line_start(text, start):
            regions.append((start, len(text)))
            return regions, start
        i += 1
    return regions, None


def _next_same_length(runs: list[tuple[int, int]]) -> list[int | None]:
    following: dict[int, int] = {}
    result: list[int | None] = [None] * len(runs)
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        result[i] = following.get(length)
        following[length] = i
    return result


def _same_line(text: str, start: int, end: int) -> bool:
    newline = text.find("\n", start, end)
    return newline == -1


def _at_line_start(text: str, pos: int) -> bool:
    line_start = text.rfind("\n", 0, pos) + 1
    prefix = _FENCE_INDENT.match(text, line_start)
    return prefix is not None and prefix.end() == pos


def _mask_entities(code_masked: str) -> tuple[str, tuple[Entity, ...]]:
    """The Slack entities outside code, and the text with them masked too (in one pass:
    an entity holds no line break, so each is masked whole)."""
    if "<" not in code_masked:
        return code_masked, ()
    found: list[Entity] = []
    parts: list[str] = []
    last = 0
    for m in _ENTITY.finditer(code_masked):
        start, end = m.span()
        target, label = m.groups()
        found.append(Entity(start, end, _KIND_BY_SIGIL.get(target[0], "link"), target, label))
        parts += (code_masked[last:start], MASK * (end - start))
        last = end
    parts.append(code_masked[last:])
    return "".join(parts), tuple(found)


LineKind = Literal["open", "code", "close", "prose"]


def fenced_lines(lines: Iterable[str], *, markdown: bool = False) -> Iterator[LineKind]:
    """Each line's place: a fence that opens a block, inside it, its closing fence, or prose.

    An answer (the default): a line of 3+ backticks opens a block (unless the same line
    closes it again), and a line of exactly that fence closes it. A Markdown document
    (`markdown`, as CommonMark writes fences): 3+ backticks or tildes open a block, and a
    line that starts with at least as many of the same character closes it."""
    fence: str | None = None
    for line in lines:
        if fence is None:
            fence = _opening(line, markdown)
            yield "prose" if fence is None else "open"
        elif _closing(line, fence, markdown):
            fence = None
            yield "close"
        else:
            yield "code"


def _opening(line: str, markdown: bool) -> str | None:
    """The fence `line` opens, if it opens one."""
    if markdown:
        marker = _MARKDOWN_FENCE.match(line)
        return marker.group(1) if marker else None
    opened = FENCE.match(line)
    return opened.group(1) if opened and "```" not in opened.group(2) else None


def _closing(line: str, fence: str, markdown: bool) -> bool:
    if markdown:
        marker = _MARKDOWN_FENCE.match(line)
        return marker is not None and marker.group(1).startswith(fence)
    return line.strip() == fence
