"""Whether a sentence of a reply is filler: it gives the reader nothing to know or do.

Greetings, thanks, courtesy, empathy, the question said back, a promise to look into it or
to explain, "it depends" with nothing it depends on, a closing offer: the sentences a
model writes before an answer, and sometimes instead of one. No list of phrases can hold
them in the languages people write to Vouch in ("Je les analyse et je reviens vers toi",
"Зараз допоможу розібратися"), so a small model tells them from sentences that carry
something: a logistic regression over the sentence's characters in runs of one to five
and its words, learnt from labelled sentences in 19 languages (`bench/filler_sentences/`,
by `python -m bench.filler --train`), its weights in `filler.json` beside this module.

The features are hashed (each to one of 2**BITS buckets by its CRC-32), so the model is
two flat arrays, not a table of 90,000 strings: a bucket's weight in 16-bit units of
SCALE, and a bit for each bucket a short run learnt falls in (`Model.known`). Features
that share a bucket share its weight, in training as in scoring: about 4 in 100 of those
learnt, and as many of those never seen, which pick up a stranger's weight.

`score` is the model's log-odds that a sentence is filler. It is evidence, not a verdict:
the rule that uses it (`preamble.py`) judges only sentences long enough to carry some,
and only above a threshold set for precision.
"""

from __future__ import annotations

import base64
import json
import math
import re
import sys
import unicodedata
import zlib
from array import array
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from app.verify.scan import EMOJI

GRAMS = (1, 2, 3, 4, 5)  # lengths of the character runs read
KNOWN_RUN = 3  # the runs of characters `Model.known` counts
MAX_CHARACTERS = 600  # of a sentence: longer ones are cut (a filler sentence is never long)
BITS = 21  # 2**BITS buckets: 4 MB of weights
MASK = (1 << BITS) - 1
SCALE = 2e-4  # a weight's unit: 16 bits hold -6.55 to 6.55
_PIECE = 1 << 16  # bytes inflated at a time
_NOT_WORD = re.compile(r"[^\w\s']+")
_DIGITS = re.compile(r"\d")
_SPACES = re.compile(r"\s+")


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


def bucket(feature: str) -> int:
    """The bucket a feature is hashed to: the same in every process (not `hash`)."""
    return zlib.crc32(feature.encode("utf-8")) & MASK


def short(feature: str) -> bool:
    """Whether a feature is a run `Model.known` counts (not a word)."""
    return len(feature) <= KNOWN_RUN and feature[0] != "<"


@lru_cache(maxsize=1024)  # the rule asks for a sentence's score and the share it knows
def buckets(sentence: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The buckets of a sentence's features, and those of its short runs (read once: the
    features themselves are not kept)."""
    grams = features(sentence)
    crc32 = zlib.crc32
    hashed = tuple(crc32(g.encode("utf-8")) & MASK for g in grams)  # `bucket`, inlined
    runs = tuple(  # `short`, inlined: this runs for every feature of a judged sentence
        b for g, b in zip(grams, hashed, strict=True) if len(g) <= KNOWN_RUN and g[0] != "<"
    )
    return hashed, runs


@dataclass(frozen=True)
class Model:
    """A logistic regression's bias and hashed weights. A sentence's log-odds is the bias
    plus its features' weights over the square root of how many features it has (a long
    sentence does not pile up evidence by its length alone). `weights` holds a bucket's
    weight in units of SCALE; `learnt` a bit for each bucket a short run learnt falls in."""

    bias: float
    weights: array[int]  # 'h', 2**BITS
    learnt: bytes  # 2**BITS bits

    def score(self, sentence: str) -> float:
        hashed, _ = buckets(sentence)
        if not hashed:
            return self.bias
        weights = self.weights
        return self.bias + sum(weights[b] for b in hashed) * SCALE / math.sqrt(len(hashed))

    def known(self, sentence: str) -> float:
        """The share of a sentence's runs of up to KNOWN_RUN characters the model has a
        weight for: low in a language or script it was not taught, where its score is
        little but its bias and the weights of a few borrowed words. (Longer runs and whole
        words are rarer in scripts written without spaces, where a word is a run.)"""
        _, runs = buckets(sentence)
        learnt = self.learnt
        return sum(learnt[b >> 3] >> (b & 7) & 1 for b in runs) / len(runs) if runs else 0.0


def score(sentence: str) -> float:
    """The log-odds that a sentence is filler, by the shipped model."""
    return model().score(sentence)


def known(sentence: str) -> float:
    """The share of a sentence's features the shipped model knows."""
    return model().known(sentence)


def pack(model: Model) -> dict[str, Any]:
    """A model as `filler.json` holds it: the arrays little-endian, deflated, in base64."""
    weights = array("h", model.weights)
    if sys.byteorder == "big":
        weights.byteswap()
    return {
        "bits": BITS,
        "scale": SCALE,
        "bias": model.bias,
        "weights": base64.b64encode(zlib.compress(weights.tobytes(), 9)).decode("ascii"),
        "learnt": base64.b64encode(zlib.compress(model.learnt, 9)).decode("ascii"),
    }


def unpack(raw: Mapping[str, Any]) -> Model:
    """The model `pack` wrote, refused when it was hashed another way."""
    if raw.get("bits") != BITS or raw.get("scale") != SCALE:
        raise ValueError("filler weights hashed for another model: run python -m bench.filler")
    weights = array("h", (0,)) * (1 << BITS)
    _inflate(raw["weights"], memoryview(weights).cast("B"))
    if sys.byteorder == "big":
        weights.byteswap()
    learnt = bytearray(1 << (BITS - 3))
    _inflate(raw["learnt"], memoryview(learnt))
    return Model(float(raw["bias"]), weights, bytes(learnt))


def _inflate(packed: str, into: memoryview) -> None:
    """Inflate a packed array into its place, a piece at a time (no second copy of it in
    memory while the model loads); refused unless it fills the place exactly."""
    inflater = zlib.decompressobj()
    data = base64.b64decode(packed)
    filled = 0
    while data and filled < len(into):
        piece = inflater.decompress(data, min(_PIECE, len(into) - filled))
        into[filled : filled + len(piece)] = piece
        filled += len(piece)
        data = inflater.unconsumed_tail
    if filled != len(into) or inflater.decompress(data, 1) or inflater.flush():
        raise ValueError("filler weights of the wrong size: run python -m bench.filler")


@cache
def model() -> Model:
    """The shipped model, read once (about 4.3 MB in memory)."""
    raw = json.loads(resources.files("app.verify").joinpath("filler.json").read_text("utf-8"))
    return unpack(raw)
