"""Formatting checks: constructs the delivery dialect would not render, each with its fix.

Every check reads the masked prose of a Layout (code and Slack entities are invisible to
it) and yields Findings. A Finding carries the replacement for exactly the span it flags,
built from the original text, so repair never touches anything a rule did not flag.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from app.verify.dialects import bold, escape_mrkdwn, link, strike
from app.verify.lines import LinePattern, line_start
from app.verify.patterns import PatternSet
from app.verify.scan import MASK, Layout
from app.verify.tables import tables
from app.verify.verdict import Dialect


class Finding(NamedTuple):
    code: str
    start: int
    end: int
    fix: str | None = None  # replacement for text[start:end]; None when repair cannot fix it
    detail: str = ""  # appended to the issue message; never user or model content


Check = Callable[[Layout, Dialect], Iterator[Finding]]

_BROADCASTS = frozenset({"channel", "here", "everyone"})
# A WORD JOINER after the @ keeps "@here" readable but makes it no mention at all. (Wrapping
# it in backticks is not safe: an unmatched backtick on the line can pair with the new one.)
_JOINER = "\u2060"
_BARE_BROADCAST = re.compile(r"@(?<![\w@./-]@)(channel|here|everyone)\b", re.I)
_HTML_TAGS = (
    "a|abbr|b|blockquote|br|center|code|dd|del|details|div|dl|dt|em|font|h[1-6]|hr|i|img|ins|"
    "kbd|li|mark|ol|p|pre|s|small|span|strike|strong|sub|summary|sup|table|tbody|td|th|thead|"
    "tr|u|ul"
)
_HTML_PAIR = re.compile(r"<(b|strong|i|em|s|del|strike|code|kbd|u|ins)>([^<>\n]*?)</\1>", re.I)
_HTML_ANCHOR = re.compile(
    r"<a\s[^<>\n]*?\bhref\s*=\s*[\"']([^\"'<>\s]+)[\"'][^<>\n]*>([^<>\n]*)</a>", re.I
)
_HTML_TAG = re.compile(
    rf"</?(?:{_HTML_TAGS})(?:\s+[\w:-]+\s*=\s*(?:\"[^\"\n]*\"|'[^'\n]*'))*\s*/?>", re.I
)
# A URL may hold parentheses nested six deep (Kibana's rison state nests filters in
# queries: _a=(filters:!((query:(match_phrase:(…)))))). Each level's alternatives are
# disjoint (a parenthesis or not), so matching stays linear.
_PARENS = r"\([^()\s]*\)"
for _ in range(5):
    _PARENS = rf"\((?:[^()\s]|{_PARENS})*\)"
_MD_LINK = re.compile(
    rf"\[(?<![\w\]]\[)([^\[\]\n]*)\]\(\s*((?:[^()\s]|{_PARENS})*)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_MD_BOLD3 = re.compile(
    r"\*\*\*(?<![A-Za-z0-9_*]\*\*\*)(?![\s*])((?:[^*\n]|\*(?!\*))+)(?<!\s)\*\*\*(?!\*)"
)
_MD_BOLD2 = re.compile(
    r"\*\*(?<![A-Za-z0-9_*]\*\*)(?![\s*])((?:[^*\n]|\*(?!\*))+)(?<!\s)\*\*(?!\*)"
)
_MD_BOLD_UNDERSCORE = re.compile(r"__(?<![\w_]__)(?![\s_])([^_\n]+)(?<!\s)__(?![\w_])")
_STAR_ITALIC = re.compile(r"\*(?<![\w*]\*)(?![\s*])([^*\n]+)(?<!\s)\*(?![\w*])")
_MD_STRIKE = re.compile(r"~~(?<!~~~)(?![\s~])([^~\n]+)(?<!\s)~~(?!~)")
_MD_HEADING = LinePattern(r"[ \t]{0,3}#{1,6}[ \t]+(\S[^\n]*?)(?:[ \t]+#+)?[ \t]*$")
_NESTED_QUOTE = LinePattern(r"([ \t]*)>[ \t]*>[ \t>]*")
_NESTED_HINT = re.compile(r">[ \t]*>")
_QUOTE_MARKER = LinePattern(r"[ \t]*>")
_SPECIAL = "&<>"
_ENTITY_TAILS = ("amp;", "lt;", "gt;")
_LABEL_STAR = LinePattern(
    r"([ \t]*(?:(?:[-+*•]|\d+[.)])[ \t]+)?)\*(?![\s*])([^*\n]+)(?<![\s*])\*(?!\*)([^\n]*)$"
)
_RULE_LINE = LinePattern(r"[ \t]{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_RULE_HINTS = ("---", "***", "___", "- -", "* *", "_ _")
_TASK = LinePattern(r"([ \t]*(?:[-*+]|\d+[.)])[ \t]+)\[([ xX])\](?=[ \t])")
_WORDY = re.compile(r"\w+")


def _original(layout: Layout, m: re.Match[str], group: int) -> str:
    return layout.text[m.start(group) : m.end(group)]


def _rewrite(
    layout: Layout, start: int, end: int, pattern: re.Pattern[str], repl: Callable[[str], str]
) -> str:
    """text[start:end] with each prose match of `pattern` replaced by repl(its group 1)."""
    parts: list[str] = []
    last = start
    for m in pattern.finditer(layout.masked, start, end):
        parts += [layout.text[last : m.start()], repl(_original(layout, m, 1))]
        last = m.end()
    parts.append(layout.text[last:end])
    return "".join(parts)


def broadcast(layout: Layout, dialect: Dialect) -> Iterator[Finding]:
    for entity in layout.entities:
        name = entity.target[1:].lower()
        if entity.kind == "special" and name in _BROADCASTS:
            yield Finding("BROADCAST_MENTION", entity.start, entity.end, f"@{_JOINER}{name}")
    if "@" not in layout.masked:
        return
    for m in _BARE_BROADCAST.finditer(layout.masked):
        yield Finding("BROADCAST_MENTION", m.start(), m.end(), f"@{_JOINER}{m.group(1)}")


def raw_html(layout: Layout, dialect: Dialect) -> Iterator[Finding]:
    if "<" not in layout.masked:
        return
    for m in _HTML_PAIR.finditer(layout.masked):
        yield Finding("RAW_HTML", m.start(), m.end(), _html_pair(m.group(1), m, layout, dialect))
    for m in _HTML_ANCHOR.finditer(layout.masked):
        url, label = _original(layout, m, 1), _original(layout, m, 2)
        yield Finding("RAW_HTML", m.start(), m.end(), link(url, label or url, dialect))
    for m in _HTML_TAG.finditer(layout.masked):  # lone or block tags: markup, dropped
        fix = "\n" if m.group()[1:3].lower() == "br" else ""
        yield Finding("RAW_HTML", m.start(), m.end(), fix)


def _html_pair(tag: str, m: re.Match[str], layout: Layout, dialect: Dialect) -> str | None:
    content = _original(layout, m, 2).strip()
    tag = tag.lower()
    if tag in ("code", "kbd"):
        return f"`{content}`" if content and "`" not in content else None
    if not content or tag in ("u", "ins"):
        return content
    if tag in ("b", "strong"):
        return bold(content, dialect)
    if tag in ("i", "em"):
        return f"_{content}_"
    return strike(content, dialect)


def markdown_links(layout: Layout, dialect: Dialect) -> Iterator[Finding]:
    if "]" not in layout.masked or "](" not in layout.masked:
        return
    for m in _MD_LINK.finditer(layout.masked):
        label_masked, label = m.group(1), _original(layout, m, 1)
        url = _original(layout, m, 2).strip("<>")
        image = m.start() > 0 and layout.masked[m.start() - 1] == "!"
        start = m.start() - 1 if image else m.start()
        if not url:
            fix = label
        elif MASK in label_masked:  # code or an entity in the label: keep it, link after it
            fix = f"{label} ({link(url, '', dialect)})"
        else:
            fix = link(url, label.replace("**", "").replace("__", "") or url, dialect)
        yield Finding("MARKDOWN_IMAGE" if image else "MARKDOWN_LINK", start, m.end(), fix)


def markdown_emphasis(layout: Layout, dialect: Dialect) -> Iterator[Finding]:
    if _has_double(layout.masked, "*"):
        yield from _markdown_stars(layout)
    if _has_double(layout.masked, "_"):
        for m in _MD_BOLD_UNDERSCORE.finditer(layout.masked):
            if _WORDY.fullmatch(m.group(1)) is None:  # __init__ is a name, not bold
                yield Finding("MARKDOWN_BOLD", m.start(), m.end(), f"*{_original(layout, m, 1)}*")
    if _has_double(layout.masked, "~"):
        for m in _MD_STRIKE.finditer(layout.masked):
            yield Finding("MARKDOWN_STRIKE", m.start(), m.end(), f"~{_original(layout, m, 1)}~")


def _has_double(text: str, ch: str) -> bool:
    """Whether `ch` occurs twice in a row; a one-character test first, as it is far faster."""
    return ch in text and ch * 2 in text


def _markdown_stars(layout: Layout) -> Iterator[Finding]:
    for m in _MD_BOLD3.finditer(layout.masked):
        yield Finding("MARKDOWN_BOLD", m.start(), m.end(), f"*_{_original(layout, m, 1)}_*")
    for m in _MD_BOLD2.finditer(layout.masked):
        inner = _rewrite(layout, m.start(1), m.end(1), _STAR_ITALIC, lambda s: f"_{s}_")
        yield Finding("MARKDOWN_BOLD", m.start(), m.end(), f"*{inner}*")


def markdown_headings(layout: Layout, dialect: Dialect) -> Iterator[Finding]:
    if "#" not in layout.masked:
        return
    for m in _MD_HEADING.finditer(layout.masked):
        title = _rewrite(layout, m.start(1), m.end(1), _MD_BOLD2, lambda s: s)
        title = title.strip()
        if len(title) > 2 and title[0] == title[-1] == "*":
            title = title[1:-1]
        yield Finding("MARKDOWN_HEADING", line_start(m), m.end(), f"*{title}*")


def nested_quotes(layout: Layout, dialect: Dialect) -> Iterator[Finding]:
    if _NESTED_HINT.search(layout.masked) is None:
        return
    for m in _NESTED_QUOTE.finditer(layout.masked):
        yield Finding("MARKDOWN_QUOTE", line_start(m), m.end(), f"{m.group(1)}> ")


def unescaped(layout: Layout, dialect: Dialect) -> Iterator[Finding]:
    masked = layout.masked
    markers = {m.end() - 1 for m in _QUOTE_MARKER.finditer(masked)} if ">" in masked else set()
    for run_start, run_end in _special_runs(masked):
        start = run_start + 1 if run_start in markers else run_start
        end = run_end
        if masked[end - 1] == "&" and masked.startswith(_ENTITY_TAILS, end):
            end -= 1  # the & of an &amp; &lt; or &gt; that follows
        if start < end:
            yield Finding("UNESCAPED_CHARACTER", start, end, escape_mrkdwn(layout.text[start:end]))


def _special_runs(masked: str) -> list[tuple[int, int]]:
    """Runs of consecutive &, < and > (found with str.find, far faster than a class)."""
    positions = sorted(at for ch in _SPECIAL for at in _find_all(masked, ch))
    runs: list[tuple[int, int]] = []
    for at in positions:
        if runs and runs[-1][1] == at:
            runs[-1] = (runs[-1][0], at + 1)
        else:
            runs.append((at, at + 1))
    return runs


def _find_all(text: str, ch: str) -> Iterator[int]:
    at = text.find(ch)
    while at != -1:
        yield at
        at = text.find(ch, at + 1)


def mrkdwn_links(layout: Layout, dialect: Dialect) -> Iterator[Finding]:
    for entity in layout.entities:
        if entity.kind == "link" and entity.label is not None:
            fix = link(entity.target, entity.label or entity.target, dialect)
            yield Finding("MRKDWN_LINK", entity.start, entity.end, fix)


def mrkdwn_bold(layout: Layout, dialect: Dialect) -> Iterator[Finding]:
    """`*Label:*` or a whole `*Title*` line: meant as bold, shown as italics in Markdown."""
    if "*" not in layout.masked:
        return
    for m in _LABEL_STAR.finditer(layout.masked):
        content, rest = m.group(2), m.group(3).strip()
        label = content.endswith(":") or rest.startswith(":")
        title = not rest and not content.rstrip().endswith((".", "!", "?", "…"))
        if label or title:
            start, end = m.start(2) - 1, m.end(2) + 1
            yield Finding("MRKDWN_BOLD", start, end, f"**{_original(layout, m, 2)}**")


def rules_lines(layout: Layout, dialect: Dialect) -> Iterator[Finding]:
    if not any(hint in layout.masked for hint in _RULE_HINTS):
        return
    for m in _RULE_LINE.finditer(layout.masked):
        yield Finding("HORIZONTAL_RULE", line_start(m), m.end(), "")


def task_lists(layout: Layout, dialect: Dialect) -> Iterator[Finding]:
    if "[" not in layout.masked:
        return
    for m in _TASK.finditer(layout.masked):
        box = "☐" if m.group(2) == " " else "☑"
        yield Finding("TASK_LIST", line_start(m), m.end(), f"{m.group(1)}{box}")


def table_findings(layout: Layout, dialect: Dialect) -> Iterator[Finding]:
    if "|" not in layout.masked:
        return
    for table in tables(layout):
        yield Finding("TABLE", table.start, table.end, table.as_code_block())


CHECKS: dict[Dialect, tuple[Check, ...]] = {
    "mrkdwn": (
        broadcast,
        raw_html,
        markdown_links,
        markdown_emphasis,
        markdown_headings,
        nested_quotes,
        rules_lines,
        task_lists,
        table_findings,
        unescaped,
    ),
    "markdown": (
        broadcast,
        raw_html,
        mrkdwn_links,
        mrkdwn_bold,
        rules_lines,
        task_lists,
        table_findings,
    ),
}


# What the masked prose must hold for a check to find anything, for the checks whose own
# patterns read the whole text (the others look for a character with `in`, or at the
# entities): RE2 patterns that match wherever the check's do, or more. One pass of RE2's
# set of them tells which checks to run: on a clean answer, usually none (~40 µs of the
# checks' searches on 4 KB, for ~5).
_HINTS: dict[Check, tuple[str, ...]] = {
    markdown_emphasis: (r"\*\*[^\s*]", r"__[^\s_]", r"~~[^\s~]"),
    nested_quotes: (r">[ \t]*>",),
    rules_lines: (r"(?m)^[ \t]{0,3}(?:-[ \t]*-[ \t]*-|\*[ \t]*\*[ \t]*\*|_[ \t]*_[ \t]*_)",),
    task_lists: (r"(?m)^[ \t]*(?:[-*+]|\p{Nd}+[.)])[ \t]+\[[ xX]\][ \t]",),
    # an &, < or > that is neither an escape's (&amp; &lt; &gt;) nor a quote's marker
    unescaped: (
        "<",
        r"(?m)[^ \t\n][ \t]*>",
        r"&(?:[^agl]|\z|a(?:[^m]|\z|m(?:[^p]|\z|p(?:[^;]|\z)))"
        r"|[lg](?:[^t]|\z|t(?:[^;]|\z)))",
    ),
    mrkdwn_bold: (r"(?m)^[ \t]*(?:(?:[-+*•]|\p{Nd}+[.)])[ \t]+)?\*[^\s*]",),
}


_HINTED = PatternSet(_HINTS)


def find_formatting(layout: Layout, dialect: Dialect) -> list[Finding]:
    """All formatting findings for `dialect`, in text order."""
    hinted = _HINTED.found(layout.masked)
    found = [
        finding
        for check in CHECKS[dialect]
        if check in hinted or check not in _HINTS
        for finding in check(layout, dialect)
    ]
    found.sort(key=lambda f: (f.start, f.start - f.end))
    return found
