"""A document → passages: split by headings, then by paragraphs up to a size, each with a
stable source id, a title (document title + heading) and a URL.

Pure: no I/O. Markdown headings (`#`…`######`, outside code fences) start sections; a
section longer than MAX_CHARS is cut at paragraph breaks (a paragraph longer than that is cut
at the limit). Front matter (`---` … `---` at the top) may give `title:` and `url:`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from urllib.parse import quote, urljoin

from app.verify.footer import SECTION
from app.verify.scan import fenced_lines

MAX_CHARS = 1_500  # per passage: a few paragraphs, what a citation can point at
_HEADING = re.compile(r"(#{1,6})[ \t]+(\S.*)")  # the closing #s are trimmed in Python
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.DOTALL)
_FIELD = re.compile(r"^([A-Za-z_]+)[ \t]*:(.*)$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Passage:
    source_id: str  # stable while the file's path, the section's heading (and which of the
    # sections with that heading it is) and the piece's place in the section stay
    path: str  # relative to the knowledge folder, with "/"
    title: str  # "Document title › Heading"
    url: str | None
    text: str


def passages(path: str, text: str, base_url: str | None = None) -> list[Passage]:
    """The passages of one document (`path` relative, with "/")."""
    fields, body = _front_matter(text)
    doc_title = fields.get("title") or _first_heading(body) or _name(path)
    url = _web_url(fields.get("url", "")) or (urljoin(base_url, quote(path)) if base_url else None)
    found: list[Passage] = []
    repeats: dict[str | None, int] = {}
    for heading, section in _sections(body):
        repeat = repeats[heading] = repeats.get(heading, -1) + 1
        title = doc_title if heading in (None, doc_title) else f"{doc_title}{SECTION}{heading}"
        for n, piece in enumerate(_pieces(section)):
            seed = f"{path}\0{heading or ''}\0{repeat}\0{n}"
            source_id = hashlib.sha256(seed.encode()).hexdigest()[:16]
            found.append(Passage(source_id, path, title, url, piece))
    return found


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    match = _FRONT_MATTER.match(text)
    if match is None:
        return {}, text
    fields = {
        key.lower(): value.strip().strip("'\"") for key, value in _FIELD.findall(match.group(1))
    }
    return fields, text[match.end() :]


def _web_url(value: str) -> str | None:
    """A front-matter URL if it is an http(s) one, with unsafe characters percent-encoded."""
    if not re.fullmatch(r"https?://[^\s/]+[^\n]*", value, re.IGNORECASE):
        return None
    return quote(value, safe=":/?#[]@!$&'*+,;=%~")


def _first_heading(body: str) -> str | None:
    return next((heading for heading, _ in _all_sections(body) if heading is not None), None)


def _name(path: str) -> str:
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return stem.replace("-", " ").replace("_", " ").strip() or path


def _sections(body: str) -> list[tuple[str | None, str]]:
    """(heading, text under it) in order, for sections with text; text before the first
    heading has None."""
    return [(heading, text) for heading, text in _all_sections(body) if text]


def _all_sections(body: str) -> list[tuple[str | None, str]]:
    sections: list[tuple[str | None, list[str]]] = [(None, [])]
    lines = body.splitlines()
    for line, kind in zip(lines, fenced_lines(lines, markdown=True), strict=True):
        heading = _HEADING.fullmatch(line) if kind == "prose" else None
        if heading is not None:
            sections.append((_heading_text(heading.group(2)), []))
        else:
            sections[-1][1].append(line)
    return [(h, "\n".join(lines).strip()) for h, lines in sections]


def _heading_text(raw: str) -> str:
    """A heading without its optional closing #s (which need a space before them)."""
    text = raw.rstrip(" \t")
    bare = text.rstrip("#")
    if bare != text and (not bare or bare[-1] in " \t"):
        text = bare.rstrip(" \t")
    return text or raw.strip()


def _pieces(section: str) -> list[str]:
    """Paragraphs gathered into pieces of at most MAX_CHARS."""
    pieces: list[str] = []
    current = ""
    for raw in re.split(r"\n[ \t]*\n", section):
        paragraph = raw.strip()
        while len(paragraph) > MAX_CHARS:  # one huge paragraph: cut at the limit
            if current:
                pieces.append(current)
                current = ""
            pieces.append(paragraph[:MAX_CHARS])
            paragraph = paragraph[MAX_CHARS:].strip()
        if not paragraph:
            continue
        if current and len(current) + 2 + len(paragraph) > MAX_CHARS:
            pieces.append(current)
            current = paragraph
        else:
            current = f"{current}\n\n{paragraph}" if current else paragraph
    if current:
        pieces.append(current)
    return pieces
