"""The "Sources" footer under a verified answer: each cited source once, linked when its
URL is known, written for the dialect. Sections of one document share its URL: cited
together they are one entry, named by the document's title. Titles come from the team's
docs, so they are reduced to plain words first: nothing in a title can format, link or
ping."""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.verify.dialects import bold, escape_mrkdwn, link
from app.verify.verdict import Dialect, Source

_FORMATTING = re.compile(r"[a-z][a-z0-9+.-]*://\S*|[*_~`|<>\[\]()#!@\\]+", re.IGNORECASE)
MAX_TITLE = 120
SECTION = " › "  # between a document's title and a section's heading in a passage title


def sources_footer(sources: Sequence[Source], dialect: Dialect) -> str:
    """The footer for `sources` (already the cited ones, in order); "" when there are none."""
    if not sources:
        return ""
    entries: dict[str, tuple[str, str | None]] = {}  # by URL, else by id: (title, url)
    for source in sources:
        key = source.url or source.id
        title = plain_title(source.title) or source.id
        if key in entries:
            entries[key] = (entries[key][0].split(SECTION, 1)[0], source.url)
        else:
            entries[key] = (title, source.url)
    bullet = "•" if dialect == "mrkdwn" else "-"
    lines = [bold("Sources", dialect)]
    for title, url in entries.values():
        if url:
            entry = link(url, title, dialect)
        else:
            entry = escape_mrkdwn(title) if dialect == "mrkdwn" else title
        lines.append(f"{bullet} {entry}")
    return "\n".join(lines)


def plain_title(title: str) -> str:
    words = " ".join(_FORMATTING.sub(" ", title).split())
    return words if len(words) <= MAX_TITLE else words[: MAX_TITLE - 1].rstrip() + "…"
