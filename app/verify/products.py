"""Products an answer states in words: an amount per a thing, times a count of that thing.

"€ 2,40 per thuiswerkdag, dus voor 9 dagen krijg je € 21,60", "1泊15,000円が上限なので、2泊で
最大30,000円", "km당 300원이 지급되니, 240km면 72,000원", "3,81 kr. pr. km … de første 200 km …
altså 762 kr.". The answer writes the rate with the thing it is given per, the count with
the same thing, and the result, without a sign of working between them: what
`app.verify.calculations` reads in "9 × € 2,40 = € 21,60", read in prose.

A result holds when it is the rate times the count, to the cent, and:
- the rate is a figure the texts give as written, or the answer works out; where the texts
  give that amount per a thing, it is the same thing ("$15 per week" is no "$15 per day");
  and it is per one thing ("120 € pro Person und Nacht", "1人1泊" are per two: no product);
- the count and the result are in one sentence, the count written with the thing the rate
  is given per (the same word, another form of it, or the same unit of time: "per
  thuiswerkdag" and "9 dagen");
- the count is one the asker or the thread states with that thing ("In oktober heb ik 9
  dagen thuisgewerkt"; not a limit of the texts, "at most 10 days"), or a number the
  answer works out; and, if it is a figure (a duration, a size, 10 or more), one given or
  worked out; or it is the year the texts name ("12 måneder" where they say "årlig");
- the texts give no other amount per that thing: of several (by city, by tier), which
  applies is the judge's; the asker gives no part of the count ("22 dagen, waarvan 9
  thuis"); and the texts count that thing nowhere themselves ("höchstens für 10 Tage").
Where the count and the rate come from is what makes this hold: in prose the model states
a count as readily as it miscounts one ("für zwei Nächte" when the asker stays three), and
a blind review of the first version, which took any count as the answer's reasoning and any
given rate as the one that applies, passed 45 such slips. Which of the texts' rules applies
to a day (a full day or the day of arrival) is the judge's to weigh, as in a calculation.
A product that does not hold refutes nothing: prose may multiply something else.

Also an amount per one period stated per another ("20 € pro Monat, aufs Jahr also 240 €",
"600 € par an, soit 50 € par mois", "aylık 2.000 TL, yıllık 24.000 TL", "月額3,000円なので、
年間では36,000円", "5 000 kr per kalenderår, ungefär 417 kr per månad"): months, quarters,
weeks and years in the calendar's ratios, the result rounded to the digits it is written
with; where the texts give that amount per that period, with no count beside it in their
sentence ("52.000 € in 13 Gehältern") nor of periods anywhere ("for the first six
months"), and no other amount per it; where the asker writes no date or month ("I joined
on 1 July"); and where they price nothing per the other period: "Monthly plan $150. Annual plan
$1,500." makes no annual $1,800, the slip a third review found when period words first
scaled amounts (stop 34).
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from app.verify.figures import (
    ANY_NUMBER,
    CJK_PERIODS,
    CURRENCY_SYMBOLS,
    EACH,
    Key,
    Known,
    canonical,
    claims,
    figures,
    key_value,
    period_seconds,
    spelled,
    unit_seconds,
)
from app.verify.scan import CJK

MAX_AMOUNTS = 40  # amounts read per text (a bound on the work)
MAX_COUNTS = 20  # counts read per sentence
MAX_FACTOR = 1000  # the largest count a rate is multiplied by
# An amount: a currency before or after a number ("€ 21,60", "R$ 1.200", "762 kr.", "7,500円")
_PER_WORD = r"(?:per|pro|pr|par|por|je|za|om|im|al|à|a|в|на|за)(?![^\W\d_])"
_AMOUNT = re.compile(
    rf"(?<![.,])(?<![^\W{CJK}])(?:(?:[{CURRENCY_SYMBOLS}]|R\$|(?-i:[A-Z]{{3}}))\s?)?(?:{ANY_NUMBER.pattern})"
    rf"(?:\s?(?:[{CURRENCY_SYMBOLS}]|(?!{_PER_WORD})[^\W\d_]{{1,4}}(?![^\W\d_{CJK}])\.?))?"
)
_BARE = ANY_NUMBER
# The words that give an amount per a thing after it: "per", "pro", "pr.", "/", "za
# každý", "в", "на", "om", "à"
_PER_AFTER = re.compile(
    rf"\s?(?:/|(?:per|pro|pr\.?|par|por|je|à|al|za|в|на|за|om|im|a)\s(?:{EACH}\s)?)"
    r"(?:(?P<first>[^\W\d_]{3,20})\s)?(?P<unit>[^\W\d_]{1,20})",
    re.IGNORECASE,
)
# A second thing after the first: "pro Person und Nacht", "per user per month", "/person/night"
_AND = r"(?:and|und|et|y|e|en|och|og|i|a|и|і|ve|per|pro|par|por|je|al|à|pr\.?|na|za|на|за)"
_SECOND = re.compile(rf"\s?/|\s{_AND}\s[^\W\d_]", re.IGNORECASE)
_AND_WORD = re.compile(rf"{_AND}\Z", re.IGNORECASE)
# Before it, a thing per one ("1泊15,000円", "每晚不超过600元", "1박 90,000원", "her ay 4.500
# TL", "km당 300원")
_PER_BEFORE = re.compile(
    # not the second of two things: "1人1泊", "每人每天", "1인 1박"
    rf"(?<![1一每毎][{CJK}])(?<![1一每毎][{CJK}]\s)"
    rf"(?:(?<![0-9])[1一]|[每毎])\s?(?P<cjk>[{CJK}])[{CJK}]{{0,4}}\s?[:：]?\s?\Z"
    r"|(?P<korean>[^\W\d_]{1,4})당\s?\Z"
    rf"|\b{EACH}\s(?P<unit>[^\W\d_]{{2,20}})\s?\Z",
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
# Words that give a part of a count: "22 dagen, waarvan 9 thuis", "10 Tage, davon 8"
_PART = re.compile(
    r"(?<![^\W\d_])(?:waarvan|davon|of which|of them|dont|de los cuales|de las cuales|di cui|"
    r"dos quais|varav|hvorav|heraf|z toho|z czego|из них|з них|bunun|其中|そのうち|うち|그중)"
    r"(?![^\W\d_])",
    re.IGNORECASE,
)
# Periods an amount is given per, and how many of one make another
_PERIOD_NAMES = {604800: "week", 2592000: "month", 2628000: "month", 31536000: "year"}
_PERIOD_NAMES |= {7776000: "quarter", 7884000: "quarter"}
_FACTORS = {("month", "year"): Fraction(12), ("quarter", "year"): Fraction(4)}
_FACTORS |= {("month", "quarter"): Fraction(3), ("week", "year"): Fraction(52)}
_FACTORS |= {("week", "quarter"): Fraction(13)}
_FACTORS |= {(b, a): 1 / f for (a, b), f in list(_FACTORS.items())}
# Words of period in CJK text, and Korean's before an amount ("월 200,000원")
# Words of period in CJK text, the figures' own ("月額", "年間", "분기") and those read only
# beside an amount ("월 200,000원", "1년이면")
_CJK_PERIODS = {word: _PERIOD_NAMES[seconds] for word, seconds in CJK_PERIODS.items()}
_CJK_PERIODS |= dict.fromkeys("1년 一年 1年 毎年 연".split(), "year") | {"월": "month"}
_CJK_PERIOD = re.compile(rf"(?<![0-9])(?:{'|'.join(sorted(_CJK_PERIODS, key=len, reverse=True))})")
_PAR_AN = re.compile(r"\bpar an\b", re.IGNORECASE)
_LAST_WORD = re.compile(r"([^\W\d_]+)\s?\Z")
_WORD = re.compile(rf"(?<![0-9])[^\W\d_{CJK}]+")
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
    counts: set[str]  # the counts that multiply, as written ("9 dagen"): no claims


def products(text: str, known: Known, worked: frozenset[Key]) -> Products:
    """The amounts `text` states as a rate it gives per a thing times a count of that thing
    (above), against what `known` gives and what the answer works out (`worked`)."""
    found = Products(set(), set())
    if not any(
        _things(text, m.start(), m.end()) or _period_before(text, m.start())
        for m in _AMOUNT.finditer(text)
    ):
        return found  # no rate written: nothing to read (most answers)
    amounts = list(itertools.islice(_amounts(text), MAX_AMOUNTS))
    given = known.keys | worked
    rates = [
        rate
        for rate in _rates(text, amounts)
        if rate.amount.keys & given and _per_as_given(rate, known)
    ]
    converted = _converted(text, amounts, known, given)
    found.keys.update(converted.keys)
    found.counts.update(converted.counts)
    if not rates:
        return found
    stated = [count for said in known.said for count in _stated(said)]
    start = 0
    for end in _sentence_ends(text):
        results = [a for a in amounts if start <= a.start and a.end <= end]
        counts = list(_counts(text, start, end, amounts)) if results else []
        for rate in rates:
            for n, thing, at, word in counts:
                matched = _same_thing(rate.things, thing)
                if not matched:
                    continue
                written = text[at : word + len(matched)]
                if not _counted(n, rate.things, written, known=known, worked=worked, stated=stated):
                    continue
                for result in results:
                    if result != rate.amount and {_cents(v * n) for v in rate.amount.values} & {
                        _cents(v) for v in result.values
                    }:
                        found.keys.update(result.keys)
                        found.counts.add(written)
        start = end
    return found


def _counted(
    n: int,
    things: tuple[str, ...],
    written: str,
    *,
    known: Known,
    worked: frozenset[Key],
    stated: list[tuple[int, str, int, int]],
) -> bool:
    """Whether a count may multiply a rate per `things`: the year the texts name ("12
    måneder" where they say "yearly"); or a number the answer works out, or one stated with
    that thing, and a figure, if it is one, given."""
    figure = next(claims(written), None)
    if figure is not None and known.periodic(figure):
        return True  # "12 måneder" where the texts name a year
    if figure is not None and not (figure & (known.keys | worked) or known.confirms(figure)):
        return False
    if ("number", canonical(Fraction(n))) in worked:
        return True
    if any(_PART.search(said) for said in known.said):
        return False  # "22 dagen gewerkt, waarvan 9 thuis": which count is the answer's
    if any(_same_thing(things, thing) for text in known.texts for _, thing, _, _ in _stated(text)):
        return False  # the texts count that thing themselves: "höchstens für 10 Tage"
    counts = {count for count, thing, _, _ in stated if _same_thing(things, thing)}
    return counts == {n}  # not one of two: "10 days away, 8 of them working days"


def _per_as_given(rate: _Rate, known: Known) -> bool:
    """Whether a rate is per the thing the texts give that amount per, where they do, and
    the one amount they give per that thing. Of several (by city, by tier: "Hamburg 180 €
    pro Nacht, Berlin 150 €"), which applies is the judge's to weigh: a blind review found
    the asker naming a city on the way ("über München nach Augsburg") and the answer
    naming a tier ("苏州按一线城市标准") as often as the right row."""
    if any(
        amount.values & rate.amount.values and not _per_as_written(rate, text, amount)
        for text in known.texts
        for amount in _text_amounts(text)
    ):
        return False
    given = [other for text in known.texts for other in _text_rates(text)]
    same = [o for o in given if o.amount.values & rate.amount.values]
    if not any(_same_thing(o.things, word) for o in same for word in rate.things):
        return not same  # an amount the texts give per another thing
    return not any(
        not o.amount.values & rate.amount.values
        and any(_same_thing(o.things, word) for word in rate.things)
        for o in given
    )


def _per_as_written(rate: _Rate, text: str, amount: _Amount) -> bool:
    """Whether a text's amount may be the rate: given per the rate's one thing, or per
    nothing read in a clause that names the thing ("€45 per day" may come from "Per diem
    (day): €45"; "€200 weekly" gives no "€200 per day", "par nuit et par personne" no
    "par nuit")."""
    if _things(text, amount.start, amount.end):
        return True  # compared with the rows below
    if _two_things(text, amount.end):
        return False
    words = _WORD.findall(_clause(text, amount))
    return any(_same_thing(rate.things, word) for word in words)


def _two_things(text: str, end: int) -> bool:
    """Whether the amount that ends at `end` is given per two things ("par nuit et par
    personne", "per user per month")."""
    after = _PER_AFTER.match(text, end)
    return bool(after and (_AND_WORD.match(after["unit"]) or _SECOND.match(text, after.end())))


def _clause(text: str, amount: _Amount) -> str:
    """The clause an amount is written in."""
    ends = [i for stop in ",;:，；：、。\n" if (i := text.find(stop, amount.end)) >= 0]
    return _row(text, amount.start) + text[amount.start : min(ends, default=len(text))]


@functools.lru_cache(maxsize=256)
def _text_amounts(text: str) -> tuple[_Amount, ...]:
    """The amounts a source's text writes (cached)."""
    return tuple(itertools.islice(_amounts(text), MAX_AMOUNTS))


def _row(text: str, at: int) -> str:
    """The words before an amount in its clause: its row's label ("Hamburg", "一线城市")."""
    start = max(text.rfind(stop, 0, at) for stop in ",;:，；：、。\n")
    return text[start + 1 : at]


@functools.lru_cache(maxsize=256)
def _text_rates(text: str) -> tuple[_Rate, ...]:
    """The rates a source's text gives (cached: every claim of every attempt reads them)."""
    return tuple(_rates(text, list(_text_amounts(text))))


@functools.lru_cache(maxsize=256)
def _stated(text: str) -> tuple[tuple[int, str, int, int], ...]:
    """The counts of things `text` states (cached: a message's every attempt reads them)."""
    return tuple(_counts(text, 0, len(text), list(itertools.islice(_amounts(text), MAX_AMOUNTS))))


def _converted(text: str, amounts: list[_Amount], known: Known, given: frozenset[Key]) -> Products:
    """The keys of the amounts a sentence states per another period than a rate it gives
    per one ("20 € pro Monat, aufs Jahr also 240 €", "600 € par an, soit 50 € par mois",
    "月額3,000円なので、年間では36,000円"): the rate given as written or worked out, the
    result rounded to the digits it is written with, and the texts giving no amount per
    that other period ("Monthly plan $150. Annual plan $1,500." makes no annual $1,800)."""
    rates = [
        (amount, period)
        for amount in amounts
        if amount.keys & given
        and (period := _amount_period(text, amount))
        and _period_as_given(amount, period, known.texts)
        and not _dated(known.said)
    ]
    found = Products(set(), set())
    if not rates:
        return found
    priced = {p for t in known.texts for p in _priced(t)}
    start = 0
    for end in _sentence_ends(text):
        marked = _periods_in(text, start, end)
        for result in (a for a in amounts if start <= a.start and a.end <= end):
            for amount, period in rates:
                for other in set(marked) - {period} - priced:
                    factor = _FACTORS.get((period, other))
                    if (
                        factor is not None
                        and result != amount
                        and any(
                            _rounded(value * factor, written)
                            for value in amount.values
                            for written in result.values
                        )
                    ):
                        found.keys.update(result.keys)
                        found.counts.update(marked[other])  # "1년": the year, no claim
        start = end
    return found


def _period_as_given(amount: _Amount, period: str, texts: tuple[str, ...]) -> bool:
    """Whether the texts give the amount per that period, in a sentence with no other
    number, and no other amount per that period: a blind review's slips took "50 € pro
    Quartal" for a month, "52.000 € in 13 Gehältern" for twelve, "$500 per week, for at
    most 16 weeks" for a year, and the part-time row for the full-time one."""
    found = False
    for text in texts:
        if any(_period(thing) for _, thing, _, _ in _stated(text)):
            return False  # "für die ersten sechs Monate", "for up to 16 weeks"
        for other in _text_amounts(text):
            own = _amount_period(text, other) or _named_period(text, other)
            if own != period:
                continue
            if not other.values & amount.values:
                return False  # another amount per that period: which applies is the judge's
            if _counts_beside(text, other):
                return False
            found = True
    return found


def _dated(said: tuple[str, ...]) -> bool:
    """Whether the asker or the thread write a date or a month ("I joined on 1 July",
    "nicht im August"): then not every month of a year may count."""
    return any(kind in ("date", "day", "month") for text in said for kind, _ in figures(text))


def _named_period(text: str, amount: _Amount) -> str | None:
    """The one period an amount's clause names, if it names one."""
    named = set(_periods_in(_clause(text, amount), 0, len(_clause(text, amount))))
    return next(iter(named)) if len(named) == 1 else None


def _counts_beside(text: str, amount: _Amount) -> bool:
    """Whether the sentence an amount is written in holds a number that is no amount ("in
    13 Gehältern", "for at most 16 weeks")."""
    ends = _sentence_ends(text)
    start = max((e for e in ends if e <= amount.start), default=0)
    end = min(e for e in ends if e >= amount.end)
    spans = [(a.start, a.end) for a in _text_amounts(text)]
    return any(
        not any(a <= m.start() < b for a, b in spans) for m in ANY_NUMBER.finditer(text, start, end)
    )


def _amount_period(text: str, amount: _Amount) -> str | None:
    """The period an amount is given per: "20 € pro Monat", "aylık 2.000 TL", "月額3,000円"."""
    for word in _things(text, amount.start, amount.end):
        period = "year" if word.casefold() == "an" else _period(word)  # "600 € par an"
        if period:
            return period
    return _period_before(text, amount.start)


def _period_before(text: str, at: int) -> str | None:
    """The period a word just before an amount names: "aylık 2.000 TL", "月額3,000円"."""
    before = text[max(at - BEFORE, 0) : at]
    cjk = [m for m in _CJK_PERIOD.finditer(before) if not before[m.end() :].strip()]
    if cjk:
        return _CJK_PERIODS[cjk[-1].group()]
    last = _LAST_WORD.search(before)
    return _period(last.group(1)) if last and period_seconds(last.group(1)) else None


def _periods_in(text: str, start: int, end: int) -> dict[str, set[str]]:
    """The periods a sentence names, each with the words it names them in: "aufs Jahr",
    "par mois", "yıllık", "年間", "1년"."""
    sentence = text[start:end]
    found: dict[str, set[str]] = {}
    for m in _WORD.finditer(sentence):
        period = _period(m.group())
        if period:
            found.setdefault(period, set()).add(m.group())
    for m in _CJK_PERIOD.finditer(sentence):
        found.setdefault(_CJK_PERIODS[m.group()], set()).add(m.group())
    for m in _PAR_AN.finditer(sentence):  # French "an" after "par" only: "an" is German too
        found.setdefault("year", set()).add(m.group())
    return found


@functools.lru_cache(maxsize=256)
def _priced(text: str) -> frozenset[str]:
    """The periods a source's text gives an amount per, or names in an amount's clause."""
    found: set[str] = set()
    for amount in itertools.islice(_amounts(text), MAX_AMOUNTS):
        period = _amount_period(text, amount)
        found |= {period} if period else set()
        found |= set(_periods_in(_clause(text, amount), 0, len(_clause(text, amount))))
    return frozenset(found)


def periods_ratio(before: str, after: str) -> Fraction | None:
    """How many of the period `before` ends on make the first one `after` names ("€840
    per month" and "= €10,080 per year": 12): 1 unless both name one, 0 where the calendar
    has no ratio of theirs (a week and a month)."""
    first = [p for m in _WORD.finditer(before[-24:]) if (p := _period(m.group()))]
    then = [p for m in _WORD.finditer(after[:40]) if (p := _period(m.group()))]
    if not first or not then:
        return Fraction(1)  # "$100 a month, × 5 = $500": five of them
    return Fraction(1) if first[-1] == then[0] else _FACTORS.get((first[-1], then[0]), Fraction(0))


def _period(word: str) -> str | None:
    """The period a word names: a unit of time or a word of period ("Monat", "yearly")."""
    if word.casefold() in ("quarter", "quarters"):
        return "quarter"
    seconds = unit_seconds(word) or period_seconds(word) or _seconds_at_end(word, shortest=2)
    return _PERIOD_NAMES.get(int(seconds)) if seconds else None


def _rounded(value: Fraction, written: Fraction) -> bool:
    """Whether `written` is `value` rounded to the digits it is written with."""
    places = 0
    while written * 10**places != int(written * 10**places) and places < 2:
        places += 1
    return round(value, places) == written


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
        if not _BARE.fullmatch(m.group()):  # a bare number is no amount
            read = _money(m.group())
            if read is not None:
                yield _Amount(m.start(), m.end(), *read)


@functools.lru_cache(maxsize=1024)
def _money(written: str) -> tuple[frozenset[Key], frozenset[Fraction]] | None:
    """An amount's keys and values ("1.431 kr.": both readings), if it is money."""
    for figure in claims(written):
        money = frozenset(
            value
            for kind, raw in figure
            if kind == "money" and (value := key_value(kind, raw)) is not None and value > 0
        )
        if money:
            return figure, money
    return None


def _rates(text: str, amounts: list[_Amount]) -> Iterator[_Rate]:
    """The amounts `text` gives per a thing, with the words of the thing."""
    for amount in amounts:
        things = _things(text, amount.start, amount.end)
        if things:
            yield _Rate(amount, things)


def _things(text: str, start: int, end: int) -> tuple[str, ...]:
    """The words of the one thing the amount written from `start` to `end` is given per, if
    it is given per one: after it ("180 € pro Nacht") or before it ("1泊15,000円")."""
    after = _PER_AFTER.match(text, end)
    if after:
        if _two_things(text, end):
            return ()
        return tuple(w for w in after.group("first", "unit") if w)
    before = _PER_BEFORE.search(text, max(start - BEFORE, 0), start)
    return tuple(w for w in before.group("cjk", "korean", "unit") if w) if before else ()


def _counts(
    text: str, start: int, end: int, amounts: list[_Amount]
) -> Iterator[tuple[int, str, int, int]]:
    """The counts of things between `start` and `end` that are no amount: the count, the
    word after it, and where each is written."""
    taken = [(a.start, a.end) for a in amounts]
    found = 0
    for m in _COUNT.finditer(text, start, end):
        if any(a <= m.start() < b for a, b in taken):
            continue
        number = m.group("number")
        n = int(number) if number.isdigit() else spelled(number)
        if n is not None and 2 <= n <= MAX_FACTOR:
            yield n, m.group("unit"), m.start("number"), m.start("unit")
            found += 1
            if found >= MAX_COUNTS:
                return


def _same_thing(things: tuple[str, ...], word: str) -> str:
    """The part of a count's word that names a thing a rate is given per ("" if none): the
    same word, or another form of it, one that ends in at most two letters more and may
    change the last ("Nacht", "Nächte"; "måned", "måneder"; "ночь", "ночей"; not "Tag",
    "Tagungen", nor "week", "weekend"); the same unit of time ("dag", "dagen";
    "thuiswerkdag" ends in one); or, in CJK text, the thing at the start of the run with
    a particle after it ("晚最多", "km면", "泊で"; not "h" in "holidays")."""
    counted = _fold(word)
    for thing in map(_fold, things):
        if counted == thing:
            return word
        rest = counted[len(thing) :]
        if counted.startswith(thing) and re.match(f"[{CJK}]", rest):
            return word[: len(thing)]
        shorter, longer = sorted((thing, counted), key=len)
        common = len(os.path.commonprefix([thing, counted]))  # noqa: RUF071 (letters, not paths)
        if len(shorter) >= 3 and common >= len(shorter) - 1 and len(longer) - common <= 2:
            return word
        seconds = unit_seconds(word.rstrip("."))
        if seconds is not None and seconds == _seconds_at_end(thing):
            return word
    return ""


def _seconds_at_end(word: str, shortest: int = 3) -> Fraction | None:
    """The unit of time a word is or ends with ("dag", "thuiswerkdag", "arbeitstag"; with
    `shortest` 2, "kalenderår")."""
    for cut in range(max(len(word) - 6, 0), len(word) - shortest + 1):
        seconds = unit_seconds(word[cut:])
        if seconds is not None:
            return seconds
    return None


def _fold(word: str) -> str:
    """A word without case, accents or a final full stop: "Nächte" is "nachte"."""
    decomposed = unicodedata.normalize("NFKD", word.casefold().rstrip("."))
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", bare)  # Hangul's syllables composed again


def _cents(value: Fraction) -> Fraction:
    """An amount to the cent."""
    return Fraction(round(value * 100), 100)
