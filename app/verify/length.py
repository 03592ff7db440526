"""TOO_SHORT: an answer too short for what the message asks.

The length an answer needs comes from the message's ask, not from what it pastes: code,
quoted lines and pasted lines (logs, configs, tables, lists, key: value pairs) are left
out, since someone who pastes a changelog and asks "which version?" wants "v2.3.1". A
message that asks something pointed (a short question, or a short closing request such as
"reply only OK if you understood") accepts a one-token answer: a word or a number; a
short message that asks nothing and exclaims, or has three words at most ("thanks, that
worked!", "Got it, thanks.", "👍"), accepts an emoji. Only an answer with no such token, or
a short one to a long open question, is too short.
"""

from __future__ import annotations

import functools
import re

from app.verify.scan import CJK, MASK, PICTOGRAPH, SHORTCODE, scan

# An answer needs at least a tenth of the ask's visible characters, never fewer than
# FLOOR and never more than CAP (a sentence).
FLOOR, RATIO, CAP = 2, 10, 60
POINTED_WORDS = 20  # a question or closing request of at most this many words is pointed
PROSE_LETTERS = 0.5  # a line with a smaller share of letters is pasted (logs, tables, CSV)
QUESTION_TAIL = 16  # characters after a question mark that may still close a question
PROSE_MEASURED = 20  # visible characters a line needs before its share of letters tells
ACKNOWLEDGED = 40  # visible characters, at most, of a message that asks nothing ("thanks!")
ACKNOWLEDGING_WORDS = 3  # or words, without an exclamation: "Got it, thanks.", "谢谢"

_CODE = re.compile(f"{MASK}+")  # code, a link or a mention inside a line: a gap in its prose
_VISIBLE = re.compile(r"[^\s\u200b-\u200f\u2060\ufeff]")
_LETTER = re.compile(r"[^\W\d_]")
_CJK = re.compile(f"[{CJK}]")
# A token that answers: a number, a word of two letters or more, or one CJK character.
_TOKEN = re.compile(rf"\d|[^\W\d_]{{2}}|[{CJK}]")
_PASTED = re.compile(
    r"""^(?:
        [ \t]{2,}\S | \t                                   # indented
      | [ \t]*(?:>|&gt;)                                   # quoted
      | [ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]                  # a list item
      | [ \t]*\#{1,6}[ \t]                                 # a heading
      | [ \t]*\[?\d{1,4}[-/:.]\d                           # a timestamp or a date first
      | [ \t]*(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\b
      | [ \t]*[\w."'-]+[ \t]*[:=][ \t]*\S[^ \t]*(?:[ \t]+\S+){0,3}[ \t]*$  # key: value
    )""",
    re.VERBOSE,
)
# Greek ends a question with ";" (U+037E, which keyboards type as the ASCII ";"): after a
# Greek letter, ";" ends a question; after anything else, it is code.
_GREEK_QUESTION = r"(?<=[\u0370-\u03ff\u1f00-\u1fff]);"
_SENTENCE_END = re.compile(
    r"(?<=[.!?\u037e؟])\s+|(?<=[\u0370-\u03ff\u1f00-\u1fff];)\s+|(?<=[。！？])|\n"
)
# An answer of emoji alone: pictographs, their modifiers and joiners, or Slack shortcodes
_EMOJI_ONLY = re.compile(rf"\s*(?:(?:{PICTOGRAPH}|[\u200d\ufe0f]|{SHORTCODE})\s*)+")
QUESTION_MARK = re.compile(f"[?？¿\u037e؟]|{_GREEK_QUESTION}")  # Latin, CJK, Greek, Arabic
_EXCLAIMS = re.compile(rf"[!！¡]|{PICTOGRAPH}|{SHORTCODE}")
_QUESTION_END = re.compile(rf"(?:{QUESTION_MARK.pattern})\W*$")


def too_short(answer: str, question: str) -> bool:
    """Whether `answer` is too short for what `question` asks."""
    pointed_ask, needed = _asked(question)
    if pointed_ask and _TOKEN.search(answer):
        return False
    if _EMOJI_ONLY.fullmatch(answer) and _acknowledges(question):
        return False
    return _visible(answer, needed) < needed


@functools.lru_cache(maxsize=256)
def _asked(question: str) -> tuple[bool, int]:
    """Whether the question's ask is pointed, and how many visible characters an answer to
    it needs (cached: every attempt at a message asks again)."""
    ask = ask_of(question)
    return pointed(ask), min(CAP, max(FLOOR, _visible(ask, CAP * RATIO) // RATIO))


@functools.lru_cache(maxsize=256)
def _acknowledges(question: str) -> bool:
    """Whether a message is short, asks nothing, and exclaims or has three words at most
    ("Hat geklappt, danke!", "fatto, ora va 👍", "Got it, thanks."): an emoji answers it.
    Not a request or a question written without its mark ("Send me the on-call
    schedule", "会議室はどこですか。"); "Please restart it!" is the judge's."""
    ask = ask_of(question)
    short = _visible(ask, ACKNOWLEDGED + 1) <= ACKNOWLEDGED
    if not short or QUESTION_MARK.search(ask) is not None:
        return False
    return _EXCLAIMS.search(ask) is not None or _words(ask) <= ACKNOWLEDGING_WORDS


@functools.lru_cache(maxsize=256)
def ask_of(message: str) -> str:
    """The message's own words: its prose lines, without code (a line of code goes, code
    inside a sentence leaves a gap), quotes or pasted lines. Cached: every attempt at a
    message asks again."""
    masked = scan(message).masked
    lines = (_CODE.sub(" ", line) for line in masked.split("\n") if line.strip(MASK + " \t"))
    return "\n".join(line for line in lines if not _pasted(line))


def pointed(ask: str) -> bool:
    """Whether the ask has a short question, or ends with a short request."""
    sentences = [s.strip() for s in _SENTENCE_END.split(ask) if _LETTER.search(s)]
    if not sentences:
        return False
    short = [s for s in sentences if _words(s) <= POINTED_WORDS]
    return _words(sentences[-1]) <= POINTED_WORDS or any(_asks(s) for s in short)


def _asks(text: str) -> bool:
    """Whether `text` ends as a question (read from its last characters only: a search
    from every "?" to the end would take quadratic time on "? ? ? …")."""
    return _QUESTION_END.search(text, max(0, len(text) - QUESTION_TAIL)) is not None


def _pasted(line: str) -> bool:
    visible = _VISIBLE.findall(line)
    if not visible or _asks(line):  # a question is someone's own words
        return False
    if len(visible) >= PROSE_MEASURED and len(_LETTER.findall(line)) < PROSE_LETTERS * len(visible):
        return True
    return _PASTED.match(line) is not None


def _words(sentence: str) -> int:
    """Words, two characters of Chinese, Japanese or Korean counting one."""
    return len(sentence.split()) + len(_CJK.findall(sentence)) // 2


def _visible(text: str, enough: int) -> int:
    """How many visible characters `text` has, counting no further than `enough`: read in
    windows four times longer each, so a long text costs what its start does."""
    end = max(1, enough)
    while True:
        count = len(_VISIBLE.findall(text, 0, end))
        if count >= enough or end >= len(text):
            return min(count, enough)
        end *= 4
