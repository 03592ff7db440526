"""What the model is told after a failed draft, and what the user sees when all drafts fail."""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.verify.dialects import bold
from app.verify.verdict import Dialect, Issue, Source, Verdict

MAX_FEEDBACK_LINES = 25
_SNIPPET = 60
_REFERENCE = re.compile(r"[A-Za-z0-9-]{1,64}")
REFERENCE_LENGTH = 12
CITATION_CODES = frozenset({"UNCITED", "UNKNOWN_SOURCE", "MISQUOTED"})
UNQUOTED = frozenset({"SECRET"})  # located by line only: quoting it would repeat it


def feedback(verdict: Verdict, sources: Sequence[Source] = ()) -> str:
    """The retry instruction: one line per issue with its code, what is wrong, how to fix it;
    after a citation issue, the sources that were available."""
    dialect = "Slack mrkdwn" if verdict.dialect == "mrkdwn" else "Markdown for Slack"
    lines = [
        f"Your previous answer was not posted: it failed verification ({dialect}). "
        "Fix every issue below:"
    ]
    lines += [_line(issue, verdict.text) for issue in verdict.issues[:MAX_FEEDBACK_LINES]]
    hidden = len(verdict.issues) - MAX_FEEDBACK_LINES
    if hidden > 0:
        lines.append(f"- … and {hidden} more issues of the kinds above.")
    if sources and CITATION_CODES.intersection(verdict.codes):
        lines.append("The search results you can cite (and link, where they have a URL):")
        lines += [_available(source) for source in sources]
    lines.append("Reply with the complete corrected answer only, with no preamble.")
    return "\n".join(lines)


def _line(issue: Issue, text: str) -> str:
    where = ""
    if issue.located:
        line = text.count("\n", 0, issue.start) + 1
        snippet = " ".join(text[issue.start : issue.end].split())
        if len(snippet) > _SNIPPET:
            snippet = snippet[: _SNIPPET - 1] + "…"
        where = f" (line {line})" if issue.code in UNQUOTED else f" (line {line}: {snippet!r})"
    return f"- {issue.code}{where}: {issue.message} Fix: {issue.fix}"


def _available(source: Source) -> str:
    url = f", {source.url}" if source.url else ""
    return f"- {source.title} (source {source.id}{url})"


def failure_message(dialect: Dialect, reference: str) -> str:
    """The graceful failure: says the answer could not be verified; holds no draft text.

    `reference` is an id (e.g. a trace id), shortened to its first 12 characters; anything
    that is not id-shaped is replaced by "unknown", so no other text can ride along.
    """
    ref = _reference(reference)
    headline = bold("I couldn't verify an answer to this, so I haven't posted one.", dialect)
    return (
        f":warning: {headline}\n"
        "Try asking again with more detail, or split the question into smaller parts. "
        f"If it keeps happening, share this reference with your admin: `{ref}`"
    )


def busy_message(dialect: Dialect, reference: str) -> str:
    """The model stayed unavailable: a distinct "busy, try again" reply, not a failure."""
    headline = bold("I'm swamped right now and couldn't answer this.", dialect)
    return (
        f":hourglass_flowing_sand: {headline}\n"
        f"Please ask again in a minute. Reference: `{_reference(reference)}`"
    )


def _reference(reference: str) -> str:
    return reference[:REFERENCE_LENGTH] if _REFERENCE.fullmatch(reference) else "unknown"
