"""Products an answer states in words: an amount per a thing, times a count of that thing.

"€ 2,40 per thuiswerkdag, dus voor 9 dagen krijg je € 21,60", "180 € pro Nacht, für zwei
Nächte also bis 360 €", "1泊15,000円が上限なので、2泊で最大30,000円", "km당 300원이 지급되니,
240km면 72,000원", "3,81 kr. pr. km … de første 200 km … altså 762 kr.". The answer writes
the rate with the thing it is given per, the count with the same thing, and the result,
without a sign of working between them: what `app.verify.calculations` reads in "9 × € 2,40
= € 21,60", read in prose.

A result holds when it is the rate times the count, to the cent; the rate is a figure the
texts give or the answer works out; the count and the result are in one sentence, the
count written with the thing the rate is given per (the same word, another form of it, or
the same unit of time: "per thuiswerkdag" and "9 dagen"). The count is the answer's
reasoning, as a bare count in a calculation is ("3 × 180 €" for two nights is the judge's
to weigh). A count of another thing multiplies nothing: "$10 … arrives in 2 days" and
"$40 per hour … 90 minutes" make no $20 nor $3,600. A product that does not hold refutes
nothing: prose may multiply something else.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from app.verify.figures import CURRENCY_SYMBOLS, Key, claims, key_value, spelled, unit_seconds
from app.verify.scan import CJK

MAX_AMOUNTS = 40  # amounts read per text (a bound on the work)
MAX_COUNTS = 20  # counts read per sentence
MAX_FACTOR = 1000  # the largest count a rate is multiplied by
_YEAR = ("duration", str(365 * 86400))  # "12 måneder", "12 ay": the calendar's
_NUMBER = (
    r"[0-9]{1,3}(?:[\x20\u00a0\u202f][0-9]{3})+(?:,[0-9]{1,2})?(?![0-9])"  # "3 360", "1 150,50"
    r"|[0-9](?:[0-9.,]*[0-9])?"
)
# An amount: a currency before or after a number ("€ 21,60", "R$ 1.200", "762 kr.", "7,500円")
_PER_WORD = r"(?:per|pro|pr|par|por|je|za|om|im|al|à|a|в|на|за)(?![^\W\d_])"
_AMOUNT = re.compile(
    rf"(?<![.,])(?<![^\W{CJK}])(?:(?:[{CURRENCY_SYMBOLS}]|R\$|(?-i:[A-Z]{{3}}))\s?)?(?:{_NUMBER})"
    rf"(?:\s?(?:[{CURRENCY_SYMBOLS}]|(?!{_PER_WORD})[^\W\d_]{{1,4}}(?![^\W\d_{CJK}])\.?))?"
)
# The words that give an amount per a thing after it: "per", "pro", "pr.", "/", "za
# každý", "в", "на", "om", "à"
_EACH = (
    r"(?:each|every|jede[nrs]?|chaque|cada|ogni|elke|iedere?|varje|hver|hvert|każd\w{0,2}"
    r"|každ\w{0,2}|кажд\w{0,3}|кожн\w{0,3}|her)"
)
_PER_AFTER = re.compile(
    rf"\s?(?:/|(?:per|pro|pr\.?|par|por|je|à|al|za|в|на|за|om|im|a)\s(?:{_EACH}\s)?)"
    r"(?:(?P<first>[^\W\d_]{3,20})\s)?(?P<unit>[^\W\d_]{1,20})",
    re.IGNORECASE,
)
# Before it, a thing per one ("1泊15,000円", "每晚不超过600元", "1박 90,000원", "her ay 4.500
# TL", "km당 300원")
_PER_BEFORE = re.compile(
    rf"(?:(?<![0-9])[1一]|[每毎])\s?(?P<cjk>[{CJK}])[{CJK}]{{0,4}}\s?[:：]?\s?\Z"
    r"|(?P<korean>[^\W\d_]{1,4})당\s?\Z"
    rf"|\b{_EACH}\s(?P<unit>[^\W\d_]{{2,20}})\s?\Z",
    re.IGNORECASE,
)
BEFORE = 12  # characters before an amount its thing per one may take
# A count and the word after it ("9 dagen", "zwei Nächte", "2泊", "240km면"); in CJK
# text, the run of characters after the number, which the thing begins ("3晚最多"). Read
# in a lookahead, so that each word may be a count ("Hotel für zwei Nächte")
_COUNT = re.compile(
    rf"(?<![.,/:])(?<![^\W{CJK}])(?=(?P<number>[0-9]{{1,4}}(?![0-9.,])|[^\W\d_]{{2,12}}(?![^\W\d_]))"
    r"\s?(?P<unit>[^\W\d_]{1,20}))"
)
# The end of a sentence: a full stop and a capital after it (not "kr. pr. km"), or one of
# CJK, or a line's end
_STOP = re.compile(r"[.!?;]\s+(?=\w)|[。！？；\n]")


@dataclass(frozen=True)
class _Amount:
    start: int
    end: int
    keys: frozenset[Key]
    values: frozenset[Fraction]


@dataclass(frozen=True)
class _Rate:
    amount: _Amount
    things: tuple[str, ...]  # the words of the thing it is given per


class Products(NamedTuple):
    keys: set[Key]  # the results' keys
    counts: set[str]  # the counts that multiply, as written ("12 måneder"): no claims


def products(
    text: str,
    vouched: Callable[[frozenset[Key]], bool],
    counted: Callable[[frozenset[Key]], bool],
) -> Products:
    """The amounts `text` states as a rate it gives per a thing times a count of that thing
    (above); `vouched` says whether a rate is given or worked out, and `counted` whether a
    count that is a figure ("144 km", "12 dagen") may be one: a count of 10 or more, or
    with a unit the rules read, is a figure, and given, worked out or a year ("12
    måneder"); a bare count of things ("zwei Nächte", "3晚") is the answer's."""
    amounts = list(itertools.islice(_amounts(text), MAX_AMOUNTS))
    rates = [rate for rate in _rates(text, amounts) if vouched(rate.amount.keys)]
    found = Products(set(), set())
    if not rates:
        return found
    start = 0
    for end in _sentence_ends(text):
        results = [a for a in amounts if start <= a.start and a.end <= end]
        counts = list(_counts(text, start, end, amounts)) if results else []
        for result in results:
            for n, thing, written in counts:
                figure = next(claims(written), None)
                if figure is not None and not (_YEAR in figure or counted(figure)):
                    continue
                if any(
                    result != rate.amount
                    and _same_thing(rate.things, thing)
                    and {_cents(value * n) for value in rate.amount.values}
                    & {_cents(value) for value in result.values}
                    for rate in rates
                ):
                    found.keys.update(result.keys)
                    found.counts.add(written)
        start = end
    return found


def _sentence_ends(text: str) -> list[int]:
    """Where each sentence of `text` ends: at a stop a capital follows, or a CJK one."""
    ends = [
        m.end()
        for m in _STOP.finditer(text)
        if m.group()[0] not in ".!?;" or text[m.end()].isupper()
    ]
    return [*ends, len(text)]


def _amounts(text: str) -> Iterator[_Amount]:
    """The amounts of money `text` writes, where it writes them."""
    for m in _AMOUNT.finditer(text):
        for figure in claims(m.group()):
            money = frozenset(
                value
                for kind, raw in figure
                if kind == "money" and (value := key_value(kind, raw)) is not None and value > 0
            )
            if money:  # "1.431 kr.": both readings
                yield _Amount(m.start(), m.end(), figure, money)
                break


def _rates(text: str, amounts: list[_Amount]) -> Iterator[_Rate]:
    """The amounts `text` gives per a thing, with the words of the thing."""
    for amount in amounts:
        after = _PER_AFTER.match(text, amount.end)
        if after:
            yield _Rate(amount, tuple(w for w in after.group("first", "unit") if w))
            continue
        before = _PER_BEFORE.search(text, max(amount.start - BEFORE, 0), amount.start)
        if before:
            yield _Rate(amount, tuple(w for w in before.group("cjk", "korean", "unit") if w))


def _counts(
    text: str, start: int, end: int, amounts: list[_Amount]
) -> Iterator[tuple[int, str, str]]:
    """The counts of things between `start` and `end` that are no amount: the count, the
    word after it, and both as written."""
    taken = [(a.start, a.end) for a in amounts]
    found = 0
    for m in _COUNT.finditer(text, start, end):
        if any(a <= m.start() < b for a, b in taken):
            continue
        number = m.group("number")
        n = int(number) if number.isdigit() else spelled(number)
        if n is not None and 2 <= n <= MAX_FACTOR:
            yield n, m.group("unit"), text[m.start("number") : m.end("unit")]
            found += 1
            if found >= MAX_COUNTS:
                return


def _same_thing(things: tuple[str, ...], word: str) -> bool:
    """Whether a count's word names a thing a rate is given per: the same word or another
    form of it ("Nacht", "Nächte"; "måned", "måneder"), the same unit of time ("dag",
    "dagen"; "thuiswerkdag" ends in one), or, in CJK text, the run that begins with it
    ("晚", "晚最多"; "km", "km면")."""
    counted = _fold(word)
    for thing in map(_fold, things):
        if counted == thing or (len(thing) <= 2 and counted.startswith(thing)):
            return True  # "km", "泊", "박": the count's run begins with it
        shorter = min(len(thing), len(counted))
        if shorter >= 3 and _common(thing, counted) >= min(4, shorter):
            return True
        seconds = unit_seconds(word.rstrip("."))
        if seconds is not None and seconds == _seconds_at_end(thing):
            return True
    return False


def _seconds_at_end(word: str) -> Fraction | None:
    """The unit of time a word is or ends with ("dag", "thuiswerkdag", "arbeitstag")."""
    for cut in range(max(len(word) - 6, 0), len(word) - 2):
        seconds = unit_seconds(word[cut:])
        if seconds is not None:
            return seconds
    return None


def _common(a: str, b: str) -> int:
    """The length of the prefix two words share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _fold(word: str) -> str:
    """A word without case, accents or a final full stop: "Nächte" is "nachte"."""
    decomposed = unicodedata.normalize("NFKD", word.casefold().rstrip("."))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _cents(value: Fraction) -> Fraction:
    """An amount to the cent."""
    return Fraction(round(value * 100), 100)
