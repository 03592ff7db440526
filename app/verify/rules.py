"""Content rules: is there an answer, is it a sensible size, is it on topic and well cited."""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from urllib.parse import urlsplit, urlunsplit

from app.verify.calculations import Calculator
from app.verify.dialects import unescape_mrkdwn
from app.verify.echo import echoes
from app.verify.figures import TAKEN_OFF, Key, Known, claims, key_value, working
from app.verify.formatting import Finding
from app.verify.language import wrong_language
from app.verify.length import too_short
from app.verify.preamble import no_content
from app.verify.scan import BARE_URL, Layout, scan
from app.verify.secrets import credentials
from app.verify.topic import off_topic, shares_a_word
from app.verify.verdict import Citation, Source
from app.verify.weekdays import Dates, Named

# Delivery splits long answers into continuation messages (~3,500 characters each in
# mrkdwn, ~9,000 per streamed message), so this only guards the absurd: about six messages.
MAX_ANSWER_CHARS = 20_000

_TRAILING = ".,;:!?'\"*_~"
_VISIBLE = re.compile(r"[^\s\u200b-\u200f\u2060\ufeff]")
MAX_CLAIM_FIGURES = 50  # figures checked per cited claim: a bound on the work
# One unit of time in a smaller one: an operand of working the calendar gives ("× 7 days",
# "× 24 h", "× 60 min")
ONE_UNIT = frozenset(("duration", str(s)) for s in (60, 3600, 86400, 604800))


def content_findings(
    layout: Layout,
    question: str,
    sources: Sequence[Source],
    citations: Sequence[Citation],
    *,
    cited: list[str] | None = None,
    thread: Sequence[str] = (),
    said: Sequence[str] = (),
    files: Sequence[Source] = (),
    instructions: str = "",
    theirs: Sequence[str] | None = None,
) -> Iterator[Finding]:
    text = layout.text
    if _VISIBLE.search(text) is None:
        yield Finding("EMPTY", 0, 0)
        return
    if len(text) > MAX_ANSWER_CHARS:
        yield Finding("TOO_LONG", 0, 0, detail=f"({len(text)} characters)")
    if too_short(text, question):
        yield Finding("TOO_SHORT", 0, 0)
    if layout.unclosed_fence is not None:
        yield Finding("UNCLOSED_CODE_FENCE", layout.unclosed_fence, layout.unclosed_fence + 3)
    if no_content(layout, question):
        yield Finding("NO_CONTENT", 0, 0)
    elif not grounded(sources, citations, question, thread) and off_topic(question, text, thread):
        yield Finding("OFF_TOPIC", 0, 0)
    if wrong_language(layout.masked, question, said, theirs):
        yield Finding("WRONG_LANGUAGE", 0, 0)
    yield from secret_findings(text)
    if instructions and echoes(text, instructions):  # in code too
        yield Finding("PROMPT_ECHO", 0, 0)
    texts = (question, *thread, *(source.text for source in (*sources, *files)))
    written = {normalise_url(url) for said_text in texts for url in _links_in(said_text)}
    cited = [] if cited is None else cited
    yield from citation_findings(layout, sources, citations, cited, files, written=written)
    yield from figure_findings((*sources, *files), citations, (question, *said), text)


@functools.lru_cache(maxsize=512)
def _links_in(text: str) -> tuple[str, ...]:
    """The URLs a text of the conversation links (cached: each attempt reads the same)."""
    return tuple(url for _, _, url in links(scan(text)))


def secret_findings(text: str) -> Iterator[Finding]:
    """SECRET for each credential in the answer, code included (its kind, not its value)."""
    seen: set[tuple[int, int]] = set()
    for start, end, kind in credentials(text):
        if (start, end) not in seen:
            seen.add((start, end))
            yield Finding("SECRET", start, end, detail=f"({kind})")


def citation_findings(
    layout: Layout,
    sources: Sequence[Source],
    citations: Sequence[Citation],
    cited: list[str],
    files: Sequence[Source] = (),
    *,
    written: AbstractSet[str] = frozenset(),  # URLs the conversation or a source wrote
) -> Iterator[Finding]:
    """UNKNOWN_SOURCE for each citation or link that names no given source, MISQUOTED for a
    citation quoting what its source does not say, UNCITED if nothing cites a source.
    The ids of the sources cited are appended to `cited`, each once, in order. With no
    sources, links are not checked (nothing was given to link to), but a citation still
    names nothing given. `files` (documents shared in the thread) may be cited and linked
    but need not be: they alone demand no citation and make no other link unknown."""
    if not sources and not files:
        for number, _ in enumerate(citations, 1):
            yield Finding("UNKNOWN_SOURCE", 0, 0, detail=f"(citation {number})")
        return
    given = _Given((*sources, *files))
    for number, citation in enumerate(citations, 1):
        named = given.named(citation.source)
        if named is None:
            yield Finding("UNKNOWN_SOURCE", 0, 0, detail=f"(citation {number})")
            continue
        if not quotes(citation.cited_text, named.text):
            yield Finding("MISQUOTED", 0, 0, detail=f"(citation {number}, {named.id})")
        if named.id not in cited:
            cited.append(named.id)
    yield from _link_findings(layout, given.by_url, cited, strict=bool(sources), written=written)
    if sources and not cited:
        yield Finding("UNCITED", 0, 0)


def _link_findings(
    layout: Layout,
    by_url: dict[str, Source],
    cited: list[str],
    *,
    strict: bool,
    written: AbstractSet[str],
) -> Iterator[Finding]:
    """UNKNOWN_SOURCE for a link to nothing given (when `strict`: with only files given,
    other links are as free as with nothing given) and written nowhere in the conversation
    or what was read; a link to a source cites it."""
    for start, end, url in links(layout):
        linked = by_url.get(normalise_url(url))
        if linked is None:
            if strict and normalise_url(url) not in written:
                yield Finding("UNKNOWN_SOURCE", start, end)
        elif linked.id not in cited:
            cited.append(linked.id)


def figure_findings(
    sources: Sequence[Source],
    citations: Sequence[Citation],
    messages: Sequence[str],
    answer: str = "",
) -> Iterator[Finding]:
    """UNSOURCED_FIGURE for each cited claim with a figure that no source and no message of
    the conversation gives (in any of its forms: units, number formats, dates), nor a
    calculation the answer shows works out; located at the claim in `answer` when it is
    there, so the feedback quotes it."""
    claimed = {citation.claim for citation in citations if citation.claim}
    if not sources or not claimed:
        return
    texts = tuple(source.text for source in sources)
    known = _known(texts, tuple(messages))
    calculator = Calculator(known)  # one budget for the answer and its claims
    answered = calculator.shown(answer)  # code too: aligned columns of working
    dates = Dates(known, (*texts, *messages), _masked(answer))
    unsourced = {
        claim
        for claim in claimed
        if _unsourced(claim, calculator, answered, dates, read=claim in answer)
    }
    for number, citation in enumerate(citations, 1):
        if citation.claim in unsourced:
            start = answer.find(citation.claim)  # not located (0, 0) if the answer lacks it
            start, end = (start, start + len(citation.claim)) if start >= 0 else (0, 0)
            yield Finding("UNSOURCED_FIGURE", start, end, detail=f"(citation {number})")


def _unsourced(
    claim: str,
    calculator: Calculator,
    answered: frozenset[Key],
    dates: Dates,
    *,
    read: bool,
) -> bool:
    """Whether a figure of the claim is neither given nor the result of a calculation the
    claim or the answer (`answered`) shows with given operands, nor a date a weekday rule
    of the texts or a shift from a date the answer sources gives (`dates`); or is the
    result of one shown wrong, or a date written with a weekday the calendar contradicts."""
    known = calculator.known
    # a claim the answer holds was read with it; another is read first, so that what it
    # works out wrong is refuted before anything else may explain its figures
    worked = answered if read else answered | calculator.shown(claim, answered, lists=False)
    _, counts, operands = working(claim)
    prose = working(calculator.unvouched(claim)).prose  # a held calculation's working vouches
    figures = list(itertools.islice(_figures(prose), MAX_CLAIM_FIGURES))
    named_dates: dict[frozenset[Key], Named] = {}
    if any(kind in ("date", "day") for figure in figures for kind, _ in figure):
        named_dates = {date.keys: date for date in Dates.written(_masked(prose))}
        if dates.slips(named_dates.values()):
            return True
    for operand in operands:  # "× 12か月": given, the year the texts name ("年間"), or worked
        if any(
            not (
                known.periodic(f)
                or known.stepped(f)
                or known.confirms(f)
                or f & worked
                or f & ONE_UNIT  # "3 × 7 dagar": a week in days, the calendar's
            )
            for f in claims(operand)
        ):
            return True
    written = frozenset(
        value for figure in figures for kind, raw in figure if (value := key_value(kind, raw))
    )
    for figure in figures:
        if figure & calculator.refuted and not figure & (known.keys | worked):
            return True  # the result of a calculation shown wrong
        if not (
            known.scaled(figure, counts)
            or known.confirms(figure)
            or figure & worked
            or _in_a_known_year(figure, known, worked)
            or (figure in named_dates and dates.reaches(named_dates[figure], worked))
            or dates.follows(figure, worked)
            or known.continues(figure, worked, written, taken_off=bool(TAKEN_OFF.search(claim)))
        ):
            return True
    return False


def _in_a_known_year(figure: frozenset[Key], known: Known, worked: frozenset[Key]) -> bool:
    """Whether a date is a day of a month the texts give without its year, in a year the
    answer works out ("op 1 juli" and "2024 + 1 = 2025": 1 juli 2025); not a day the texts
    date in another year ("15 March 2026" makes no "15 March 2027"), nor a year given for
    something else ("days from 2025" expire the year after)."""
    return any(
        kind == "date"
        and ("day", raw[5:]) in known.keys
        and raw[5:] not in known.dated_days
        and ("number", raw[:4]) in worked
        for kind, raw in figure
    )


@functools.lru_cache(maxsize=32)
def _known(texts: tuple[str, ...], messages: tuple[str, ...] = ()) -> Known:
    """The figures the sources and the conversation give (cached: every attempt at a
    message checks its claims against the same texts, and a long file costs a lot)."""
    return Known.of(texts, messages)


def _figures(claim: str) -> Iterator[frozenset[Key]]:
    """The figures of a claim's prose: code and URLs are not claims."""
    return claims(_masked(claim))


def _masked(claim: str) -> str:
    return BARE_URL.sub(" ", scan(claim).masked)


def grounded(
    sources: Sequence[Source],
    citations: Sequence[Citation],
    question: str,
    thread: Sequence[str] = (),
) -> bool:
    """Whether a citation quotes, word for word, a passage the search found for the
    question, and the words it quotes are about the question (they share a content word
    with it or the thread): the answer is then about what was found for it, whether or
    not it repeats the question's words, and whether that was the right passage is the
    judge's to say. A passage on something else (one planted where the search reads, say)
    grounds nothing."""
    given = _Given(sources)
    return any(
        (named := given.named(citation.source)) is not None
        and named.text  # quotes() finds any quote in a source with no text
        and citation.cited_text.strip()
        and quotes(citation.cited_text, named.text)
        and shares_a_word(citation.cited_text, question, thread)
        for citation in citations
    )


class _Given:
    """The sources a citation may name: by id, or by URL (the first source with it)."""

    def __init__(self, given: Sequence[Source]) -> None:
        self.by_id = {source.id: source for source in given}
        self.by_url: dict[str, Source] = {}
        for source in given:
            if source.url:
                self.by_url.setdefault(normalise_url(source.url), source)

    def named(self, name: str) -> Source | None:
        return self.by_id.get(name) or self.by_url.get(normalise_url(name))


def quotes(cited_text: str, source_text: str) -> bool:
    """Whether `cited_text` is in `source_text`, ignoring whitespace (the API joins cited
    blocks without it) and Unicode compatibility forms. Nothing to check is no misquote."""
    cited = _squashed(cited_text)
    return not cited or not source_text or cited in _squashed(source_text)


def _squashed(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


def links(layout: Layout) -> Iterator[tuple[int, int, str]]:
    """Every URL the answer links to outside code: Slack links, Markdown links, bare URLs."""
    for entity in layout.entities:
        if entity.kind == "link":
            yield entity.start, entity.end, entity.target
    for m in BARE_URL.finditer(layout.masked):
        url = m.group().rstrip(_TRAILING)
        yield m.start(), m.start() + len(url), url


def normalise_url(url: str) -> str:
    """A URL as compared: scheme and host in lower case, no trailing slash, and no
    fragment (a page's anchor is the same source)."""
    url = unescape_mrkdwn(url.strip()).strip("<>")
    try:
        parts = urlsplit(url)
    except ValueError:
        return url.rstrip("/")
    path = parts.path.rstrip("/")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))
