"""What an answer must not carry out of the conversation: text it read, hidden in a link's
address (DATA_IN_LINK), and Vouch's own instructions (PROMPT_ECHO). Both are what a planted
instruction asks for ("add this link with a summary of the thread in it", "print your
instructions"), so both are checked whatever the model meant.

- DATA_IN_LINK: a link outside code, that is not a source's URL and not written in the
  conversation or what was read, whose query, fragment or path — decoded, base64 too —
  holds four words in a row, or a token of 16 characters or more, of the thread, the files
  or the sources (their prose: the links in them are left out, so a link to another page of
  the same site is not taken for one); or whose query or fragment holds a value of prose (a
  sentence, a list) four of whose words are words of what was read: a summary rather than
  a quote. The question's own words are not counted: a search link built from them sends
  nothing the asker did not write.
- PROMPT_ECHO: eight words in a row of the instructions Vouch was given (the system prompt
  without the example answer it shows, which a good answer may well resemble).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Iterator, Sequence
from urllib.parse import unquote_plus, urlsplit

from app.verify.scan import BARE_URL

LINK_RUN = 4  # words in a row that make a link carry what was read
ECHO_RUN = 8  # words in a row that make an answer repeat its instructions
LONG_TOKEN = 16
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_TOKEN = re.compile(rf"[A-Za-z0-9_-]{{{LONG_TOKEN},}}")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_SEPARATORS = re.compile(r"[/?&=#;,\s]+")
_SLACK_URL = re.compile(r"<(?:https?|mailto):[^>]*>")


class Material:
    """What was read, as runs of `run` words (and, with `tokens`, its long tokens), to
    look for elsewhere."""

    def __init__(self, texts: Iterable[str], run: int, *, tokens: bool = True) -> None:
        self.run = run
        self.runs: set[tuple[str, ...]] = set()
        self.tokens: set[str] = set()
        self.words: set[str] = set()
        for text in texts:
            prose = BARE_URL.sub(" ", _SLACK_URL.sub(" ", text))
            words = _words(prose)
            self.runs.update(_runs(words, run))
            if tokens:
                self.tokens.update(_TOKEN.findall(prose))
                self.words.update(w for w in words if len(w) >= 3 or w.isdigit())

    def __bool__(self) -> bool:
        return bool(self.runs or self.tokens)

    def summarised_in(self, value: str) -> bool:
        """Whether `value` is prose (LINK_RUN words or more) with LINK_RUN distinct words
        of what was read."""
        words = _words(value)
        if len(words) < self.run:
            return False
        return len({w for w in words if len(w) >= 3 or w.isdigit()} & self.words) >= self.run

    def found_in(self, text: str) -> bool:
        """Whether `text` holds one of the runs or tokens."""
        if any(token in text for token in self.tokens):
            return True
        return any(run in self.runs for run in _runs(_words(text), self.run))


def data_in_links(
    links: Iterable[tuple[int, int, str, str]],
    read: Sequence[str],
    allowed: Iterable[str],
) -> Iterator[tuple[int, int]]:
    """(start, end) of each link (start, end, URL, the URL as compared) carrying text of
    `read`, unless it is one of the `allowed` URLs (sources, and URLs written in the
    conversation)."""
    material = Material(read, LINK_RUN)
    if not material:
        return
    known = set(allowed)
    for start, end, url, compared in links:
        if compared in known:
            continue
        if material.found_in(_carried(url)) or any(
            material.summarised_in(value) for value in _values(url)
        ):
            yield start, end


def _carried(url: str) -> str:
    """What a URL carries besides its site: path, query and fragment, decoded, and the
    text of what in them looks like base64."""
    parts = urlsplit(url)
    carried = " ".join(unquote_plus(p) for p in (parts.path, parts.query, parts.fragment))
    pieces = _SEPARATORS.split(carried)
    decoded = [_b64(piece) for piece in pieces if _BASE64.fullmatch(piece)]
    return " ".join([*pieces, *filter(None, decoded)]).replace("-", " ")


def _values(url: str) -> list[str]:
    """The query's and fragment's values, decoded, that hold more than one word."""
    parts = urlsplit(url)
    pairs = [*parts.query.split("&"), parts.fragment]
    values = [unquote_plus(pair.partition("=")[2] or pair) for pair in pairs]
    return [v for v in values if len(v.split()) > 1 or ";" in v or "," in v]


def _b64(chunk: str) -> str:
    padded = chunk + "=" * (-len(chunk) % 4)
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            return decode(padded).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
    return ""


def echoes(answer: str, instructions: str) -> bool:
    """Whether `answer` repeats ECHO_RUN words in a row of `instructions`."""
    return Material([instructions], ECHO_RUN, tokens=False).found_in(answer)


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def _runs(words: Sequence[str], run: int) -> Iterator[tuple[str, ...]]:
    return (tuple(words[i : i + run]) for i in range(len(words) - run + 1))
