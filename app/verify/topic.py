"""Content words, for judging whether an answer is about the question (OFF_TOPIC).

Unicode-aware: text is NFKD-folded and lower-cased with accents dropped; scripts
written without spaces (CJK, kana, Thai, Lao, Khmer, Myanmar) become character bigrams.
Light normalisation strips a few English suffixes and keys words by their first 5
letters (4 in Cyrillic), so "deploy", "deploying" and "deployment" meet.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet

from app.verify.language import asks_for_language

# Overlap decides only between enough words: a short answer or a short question can be on
# topic without sharing a word ("what should we measure?" → the four DORA metrics), and is
# left to the judge.
MIN_QUESTION_TERMS = 4
MIN_ANSWER_TERMS = 30
CACHED_WORD = 40  # characters: longer words' terms are not kept

_WORD = re.compile(r"\w+")
_ENTITY = re.compile(r"<[@#!][^<>]*>")
_SPACELESS = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+"
)
_SPACELESS_RUNS = re.compile(f"({_SPACELESS.pattern})")
# Runs that carry content in a script written without spaces: Han, katakana, Thai, Lao,
# Khmer, Myanmar (hiragana is Japanese grammar), and words of other scripts inside them.
_CONTENT_RUN = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]+|[\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+"
    "|[^\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}"
)
_SUFFIXES = ("ing", "ed", "es", "s")
# The languages written in Cyrillic here (Russian, Ukrainian, Bulgarian, Serbian) inflect
# more than five letters can hold ("файли", "файлові"): their words are keyed by four.
_CYRILLIC = re.compile("[\u0400-\u04ff]")
# Where a name in CamelCase joins its words ("BlobEndpoint", "UseDevelopmentStorage")
_CAMEL_CASE = re.compile("(?<=[a-z])(?=[A-Z])")
# Hangul right after a Latin letter or digit: Korean glues its particles to loanwords
# (syllables, or the jamo that NFKD folds them into)
_GLUED_PARTICLE = re.compile("(?<=[a-z0-9])[\uac00-\ud7af\u1100-\u11ff]")

# Combining diacritical marks (the blocks Latin, Greek and Cyrillic accents decompose
# into), dropped after NFKD so "é" folds to "e"; other scripts' marks are kept as written.
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")

STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any anyone anything are aren as at
    be because been before being below between both but by can cannot could couldn did didn
    do does doesn doing don down during each either else ever every few for from further get
    gets got had has have having he hello her here hers hey hi him his how however i if in
    into is isn it its itself just know let like ll me might more most much must my myself
    need no nor not now of off ok okay on once one only or other our ours out over own please
    re really s same say see she should so some something such t tell than thank thanks that
    the their theirs them then there these they thing things this those through thx to too
    under until up us use using ve very via want was wasn way we were weren what whats when
    where whether which while who whom whose why will with without won would yes yet you your
    yours yourself
    aber als am an auch auf aus bei bin bist das dass dem den der des die doch du ein eine
    einem einen einer es für hat ich ist ja kann mit nicht noch oder sie sind und von was
    welche wie wir wo zu
    au aux avec ce ces comment dans de des du elle en est et il je la le les leur mais mes
    mon ne nous ou où par pas pour quand que quel quelle qui sa se ses son sont sur ta te tu
    un une vous
    al como con cuál cuándo cómo del el ella ellos es está esta este hay la las lo los mi no
    para pero por porque qué quién se si sin sobre su sus tu un una uno y ya
    """.split()
)


@functools.lru_cache(maxsize=512)
def content_terms(text: str) -> frozenset[str]:
    """The normalised content words of `text` (Slack entities and stop words removed).
    Cached: every attempt at a message, and every later message of its thread, asks
    about the same question and turns."""
    folded = _fold(_ENTITY.sub(" ", text))
    return frozenset(term for word in _WORD.findall(folded) for term in _terms(word))


def off_topic(question: str, answer: str, thread: Sequence[str] = ()) -> bool:
    """True when a long answer shares no content word with a question of several words, nor
    with the thread it follows. A translation shares none by design: it is never off topic."""
    question_terms = content_terms(question)
    if _words(question) < MIN_QUESTION_TERMS or asks_for_language(question):
        return False
    if _mentions(answer, question_terms) or _mentions(
        answer.lower(), question_terms
    ):  # the common cases
        return False
    folded = _fold(_CAMEL_CASE.sub(" ", answer))  # "UseDevelopmentStorage": storage
    if _mentions(folded, question_terms) or not _has_terms(folded, MIN_ANSWER_TERMS):
        return False
    said = set().union(*(content_terms(turn) for turn in thread))
    return not _mentions(folded, said)


def shares_a_word(text: str, question: str, thread: Sequence[str] = ()) -> bool:
    """Whether `text` has a content word of the question or of the thread."""
    said = content_terms(question).union(*(content_terms(turn) for turn in thread))
    return _mentions(_fold(text), said)


@functools.lru_cache(maxsize=256)
def _words(text: str) -> int:
    """How many content words `text` has: a run of a script written without spaces counts
    as one word (its bigrams are terms, not words: "セキュリティ研修" is two words and
    fourteen bigrams), and in Japanese a hiragana run is grammar, not a content word."""
    folded = _fold(_ENTITY.sub(" ", text))
    terms: set[str] = set()
    runs = 0
    for word in _WORD.findall(folded):
        if _SPACELESS.search(word):
            runs += len(_CONTENT_RUN.findall(word))
        else:
            terms.update(_terms(word))
    return len(terms) + runs


def _mentions(folded: str, question_terms: AbstractSet[str]) -> bool:
    """Whether any content word of `folded` has a key in `question_terms`.

    Every key is a prefix of its word, so only the places where a key occurs as a
    substring need a closer look; bigrams are compared directly. Each key's first place is
    looked at before any key's others: an answer on topic is found in a few steps, however
    often a key occurs inside other words first ("roll" in "rollout").
    """
    later: list[tuple[str, int]] = []
    for term in question_terms:
        if _SPACELESS.match(term):
            if term in folded:
                return True
            continue
        at = folded.find(term)
        if at != -1:
            if _word_with_key_at(folded, at, term):
                return True
            later.append((term, at))
    for term, first in later:
        at = folded.find(term, first + 1)
        while at != -1:
            if _word_with_key_at(folded, at, term):
                return True
            at = folded.find(term, at + 1)
    return False


def _word_with_key_at(folded: str, at: int, key: str) -> bool:
    if at > 0 and _is_word(folded[at - 1]):
        return False
    word = _WORD.match(folded, at)
    return word is not None and _key(_head(word.group().lower())) == key


def _head(word: str) -> str:
    """A word of Latin letters or digits without the Korean particle glued after it."""
    glued = _GLUED_PARTICLE.search(word)
    return word[: glued.start()] if glued else word


def _has_terms(folded: str, enough: int) -> bool:
    seen: set[str] = set()
    for m in _WORD.finditer(folded):
        seen.update(_terms(m.group()))
        if len(seen) >= enough:
            return True
    return False


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _fold(text: str) -> str:
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return _COMBINING.sub("", decomposed).lower()


def _key(word: str) -> str:
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2]:  # running -> runn -> run
                word = word[:-1]
            break
    return word[:4] if _CYRILLIC.match(word) else word[:5]


def _terms(word: str) -> tuple[str, ...]:
    """A word's terms (a word of up to CACHED_WORD characters cached: a language's common
    words come back in every text; a long run of a script written without spaces would
    hold its bigrams in memory for nothing)."""
    return _cached_terms(word) if len(word) <= CACHED_WORD else tuple(_word_terms(word))


@functools.lru_cache(maxsize=8192)
def _cached_terms(word: str) -> tuple[str, ...]:
    return tuple(_word_terms(word))


def _word_terms(word: str) -> Iterator[str]:
    """The terms one word gives: its key, unless it is short or a stop word; runs of a
    script written without spaces give their character bigrams instead; a Korean particle
    glued to a word of Latin letters or digits ("AI야", "API를") is cut off it."""
    if (head := _head(word)) != word:
        yield from _word_terms(head)
        return
    if not _SPACELESS.search(word):
        if len(word) >= 2 and word not in STOP_WORDS:
            yield _key(word)
        return
    for part in _SPACELESS_RUNS.split(word):
        if _SPACELESS.fullmatch(part):
            yield from (part[i : i + 2] for i in range(max(1, len(part) - 1)))
        elif part:
            yield from _word_terms(part)
