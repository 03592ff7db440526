"""Text as the knowledge index sees it, in the docs and in questions alike: folded as
FTS5's unicode61 tokenizer folds it (case and accents), split into tokens (Chinese,
Japanese and Korean characters one by one: they have no spaces), words as their Snowball
stems; and a question's words as query terms, without stop words (app/knowledge/stopwords.py),
a run of CJK characters as its overlapping pairs, so "デプロイ" finds "デプロイ手順".
"""

from __future__ import annotations

import functools
import importlib.metadata
import re
import unicodedata
from dataclasses import dataclass
from itertools import pairwise

import Stemmer  # type: ignore[import-not-found]  # PyStemmer: Snowball's stemmers, in C

from app.knowledge import stopwords

# Words are indexed as their stems: a change of stemmer re-indexes (a contentless FTS5 row
# is deleted by giving back the terms it was indexed with).
ANALYZER = f"snowball english+russian, pystemmer {importlib.metadata.version('pystemmer')}"
CONTEXT_WEIGHT = 0.1  # a word of the thread's recent turns, against one of the message (measured)
_CYRILLIC = re.compile("[\u0400-\u04ff]")
_CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK = re.compile(f"[{_CJK_RANGES}]")
_WORD = re.compile(r"[^\W_]+")
_SCRIPTS = re.compile(f"[{_CJK_RANGES}]+|[^\\W_{_CJK_RANGES}]+")
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_TOKEN = re.compile(f"[{_CJK_RANGES}]|[^\\W_{_CJK_RANGES}]+")  # CJK one by one
_MAX_TERMS = 32
_HIRAGANA = re.compile("[\u3040-\u309f]{2}")


@dataclass(frozen=True, slots=True)
class Term:
    expression: str  # an FTS5 phrase, quoted
    tokens: tuple[str, ...]  # as the tokenizer folds them
    weight: float = 1.0  # CONTEXT_WEIGHT for a word only the context has


def indexed(text: str) -> str:
    """Text as the tokenizer should see it: folded here, as queries are (unicode61 alone
    keeps Greek and Cyrillic accents), words as their stems, CJK characters one by one."""
    return " ".join(tokens_of(text))


def fold(word: str) -> str:
    """Text as unicode61 with remove_diacritics folds it: lower case, no accents on Latin,
    Greek and Cyrillic letters (combining marks removed), everything else as it is."""
    if word.isascii():
        return word.lower()
    bare = _COMBINING.sub("", unicodedata.normalize("NFD", word.lower()))
    return unicodedata.normalize("NFC", bare)  # kana keep their voicing marks, as in FTS5


def tokens_of(text: str) -> list[str]:
    """Text as the index tokenizes it (unicode61's word characters are letters and
    digits, as here), words as their stems, CJK characters one by one."""
    return [stem(token) for token in _TOKEN.findall(fold(text))]


@functools.lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """A folded word's stem, so "deploys", "deployed" and "deploying" are one term: by
    Snowball's English stemmer for Latin script (English is what team docs are mostly
    written in; other languages' words are mostly left alone by it, and a document and a
    question are stemmed alike), its Russian one for Cyrillic; other scripts as they are."""
    if word.isascii() or _LATIN.fullmatch(word):
        return str(_STEMMERS["english"].stemWord(word))
    if _CYRILLIC.match(word):
        return str(_STEMMERS["russian"].stemWord(word))
    return word


_STEMMERS = {name: Stemmer.Stemmer(name) for name in ("english", "russian")}
_LATIN = re.compile("[0-9a-z\u00c0-\u024f]+")


def terms_of(query: str, context: str = "") -> list[Term]:
    """The words of the query, then of its context (weighing CONTEXT_WEIGHT), without stop
    words, as FTS5 phrases, each quoted so no user text is read as FTS5 syntax. A run of
    CJK characters gives its overlapping pairs (the usual bigram search for text without
    spaces); a lone CJK character stands for itself."""
    terms: dict[str, Term] = {}
    for text, weight in ((query, 1.0), (context, CONTEXT_WEIGHT)):
        for word in _WORD.findall(text):
            for part in _SCRIPTS.findall(fold(word)):
                pieces: list[tuple[str, ...]]
                if _CJK.match(part):
                    pieces = [(a, b) for a, b in pairwise(part)] or [(part,)]
                elif len(part) > 1 and part not in _STOP_WORDS:
                    pieces = [(stem(part),)]
                else:
                    continue
                for tokens in pieces:
                    phrase = " ".join(tokens)
                    if not _stop(tokens):
                        terms.setdefault(phrase, Term(f'"{phrase}"', tokens, weight))
    return list(terms.values())[:_MAX_TERMS]


def pairs_of(query: str, context: str = "") -> list[tuple[Term, Term, Term]]:
    """Adjacent words of the query (not stop words, not CJK) joined, with the two words:
    docs write "rollback", "setup" and "oncall" where people ask "roll back"."""
    pairs = []
    for text, weight in ((query, 1.0), (context, CONTEXT_WEIGHT)):
        words = [fold(word) for word in _WORD.findall(text)]
        for a, b in pairwise(words):
            if {a, b} & _STOP_WORDS or _CJK.search(a + b) or min(len(a), len(b)) < 2:
                continue
            terms = [Term(f'"{s}"', (s,), weight) for s in map(stem, (a + b, a, b))]
            pairs.append((terms[0], terms[1], terms[2]))
    return pairs[:_MAX_TERMS]


def _stop(tokens: tuple[str, ...]) -> bool:
    """Whether a term is a stop word (a CJK pair: a stop pair; a lone CJK character: a
    function character or hiragana)."""
    joined = "".join(tokens)
    return (
        joined in _STOP_WORDS
        or all(token in _STOP_CHARACTERS for token in tokens)
        or bool(_HIRAGANA.fullmatch(joined))
        or (len(joined) == 1 and "\u3040" <= joined <= "\u309f")
    )


def _stop_words() -> frozenset[str]:
    """The stop words as the index folds them; a CJK word gives its character pairs."""
    words: set[str] = set()
    for listed in stopwords.WORDS.values():
        for word in map(fold, listed.split()):
            if _CJK.match(word) and len(word) > 1:
                words.update(a + b for a, b in pairwise(word))
            else:
                words.add(word)
    return frozenset(words)


_STOP_WORDS = _stop_words()
_STOP_CHARACTERS = frozenset("".join(stopwords.CHARACTERS.values()))
