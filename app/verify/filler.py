"""Whether a sentence of a reply is filler: it gives the reader nothing to know or do.

Greetings, thanks, courtesy, empathy, the question said back, a promise to look into it or
to explain, "it depends" with nothing it depends on, a closing offer: the sentences a
model writes before an answer, and sometimes instead of one. No list of phrases can hold
them in the languages people write to Vouch in ("Je les analyse et je reviens vers toi",
"Зараз допоможу розібратися"), so a small model tells them from sentences that carry
something: a logistic regression over the sentence's characters in runs of one to five
and its words, learnt from labelled sentences in 19 languages (`bench/filler/`, by
`python -m bench.filler --train`), its weights in `filler.json` beside this module.

`score` is the model's log-odds that a sentence is filler. It is evidence, not a verdict:
the rule that uses it (`preamble.py`) judges only sentences long enough to carry some,
and only above a threshold set for precision.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from app.verify.scan import EMOJI

GRAMS = (1, 2, 3, 4, 5)  # lengths of the character runs read
KNOWN_RUN = 3  # the runs of characters `Model.known` counts
MAX_CHARACTERS = 600  # of a sentence: longer ones are cut (a filler sentence is never long)
_NOT_WORD = re.compile(r"[^\w\s']+")
_DIGITS = re.compile(r"\d")
_SPACES = re.compile(r"\s+")


@lru_cache(maxsize=1024)  # the rule asks for a sentence's score and the share it knows
def features(sentence: str) -> frozenset[str]:
    """What the model reads of a sentence: its lower-cased characters in runs of one to
    five (spaces at the ends of words kept, so "hi " is not "hire"), and its words in angle
    brackets. Emoji, punctuation and the value of digits are left out."""
    text = unicodedata.normalize("NFKC", sentence[:MAX_CHARACTERS]).lower()
    text = _SPACES.sub(" ", _NOT_WORD.sub(" ", _DIGITS.sub("0", EMOJI.sub(" ", text)))).strip()
    if not text:
        return frozenset()
    padded = f" {text} "  # one space between words: no run but " " is all spaces
    grams = {padded[i : i + n] for n in GRAMS for i in range(len(padded) - n + 1)}
    grams.update(f"<{word}>" for word in text.split())
    return frozenset(grams)


@dataclass(frozen=True)
class Model:
    """A logistic regression's bias and weights. A sentence's log-odds is the bias plus its
    features' weights over the square root of how many features it has (a long sentence
    does not pile up evidence by its length alone)."""

    bias: float
    weights: Mapping[str, float]

    def score(self, sentence: str) -> float:
        grams = features(sentence)
        if not grams:
            return self.bias
        total = sum(self.weights.get(gram, 0.0) for gram in grams)
        return self.bias + total / math.sqrt(len(grams))

    def known(self, sentence: str) -> float:
        """The share of a sentence's runs of up to KNOWN_RUN characters the model has a
        weight for: low in a language or script it was not taught, where its score is
        little but its bias and the weights of a few borrowed words. (Longer runs and whole
        words are rarer in scripts written without spaces, where a word is a run.)"""
        grams = [g for g in features(sentence) if len(g) <= KNOWN_RUN and g[0] != "<"]
        return sum(gram in self.weights for gram in grams) / len(grams) if grams else 0.0


def score(sentence: str) -> float:
    """The log-odds that a sentence is filler, by the shipped model."""
    return model().score(sentence)


def known(sentence: str) -> float:
    """The share of a sentence's features the shipped model knows."""
    return model().known(sentence)


@cache
def model() -> Model:
    """The shipped model, read once (about 6 MB in memory)."""
    raw = json.loads(resources.files("app.verify").joinpath("filler.json").read_text("utf-8"))
    return Model(float(raw["bias"]), raw["weights"])  # as parsed: str to float, no copy
