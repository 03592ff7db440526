"""Figures in text, normalised so the same figure written two ways compares equal.

A figure is a number with what makes it a claim: its unit (durations to seconds, sizes to
bytes, percentages, money), a date, a time of day or a version. "90 seconds" and "1.5
minutes", "1,000" and "1000", "2 GB" and "2048 MB", "v2.3" and "version 2.3", "March 3,
2026" and "2026-03-03", "every 24 hours" and "daily" each give a common key.

Precision comes first, because a false alarm fails a good answer: a lone digit without a
unit ("Step 2", "3 replicas", a list's "1.") is no figure, and neither is a number glued to
letters ("p99", "S3", "SHA-256", "HTTP/2").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction

Key = tuple[str, str]  # (kind, normalised value)

_UNITS: dict[str, tuple[str, Fraction]] = {}
for _kind, _scale, _names in (
    ("duration", Fraction(1, 1000), "ms millisecond milliseconds"),
    ("duration", Fraction(1), "s sec secs second seconds"),
    ("duration", Fraction(60), "m min mins minute minutes"),
    ("duration", Fraction(3600), "h hr hrs hour hours"),
    ("duration", Fraction(86400), "d day days"),
    ("duration", Fraction(604800), "w wk wks week weeks"),
    ("duration", Fraction(2592000), "month months"),
    ("duration", Fraction(31536000), "y yr yrs year years"),
    ("size", Fraction(1), "b byte bytes"),
    ("size", Fraction(1024), "kb kib kilobyte kilobytes"),
    ("size", Fraction(1024**2), "mb mib megabyte megabytes"),
    ("size", Fraction(1024**3), "gb gib gigabyte gigabytes"),
    ("size", Fraction(1024**4), "tb tib terabyte terabytes"),
    ("percent", Fraction(1), "% percent per cent pct"),
    ("money", Fraction(1), "usd eur gbp dollar dollars euro euros"),
    ("money", Fraction(1, 100), "cent cents"),
):
    for _name in _names.split():
        _UNITS[_name] = (_kind, _scale)

# Units with a second reading: a month is 30 days, or a twelfth of a year.
_ALSO = {"month": (Fraction(31536000, 12),)}
_WORDS = {
    word: value
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100}
_PERIODS = {"hourly": 3600, "daily": 86400, "nightly": 86400, "weekly": 604800}
# Month names in English, German, French, Spanish, Italian, Portuguese and Dutch.
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            "jan january januar janvier enero gennaio janeiro januari",
            "feb february februar février fevrier febrero febbraio fevereiro februari",
            "mar march märz maerz mars marzo março maart",
            "apr april avril abril aprile",
            "may mai mayo maggio maio mei",
            "jun june juni juin junio giugno junho",
            "jul july juli juillet julio luglio julho",
            "aug august août aout agosto augustus",
            "sep sept september septembre septiembre settembre setembro",
            "oct october oktober octobre octubre ottobre outubro",
            "nov november novembre noviembre novembro",
            "dec december dezember décembre decembre diciembre dicembre dezembro",
        ),
        1,
    )
    for name in names.split()
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
# Digit runs are bounded (a longer run is read in pieces, none of them a plausible figure);
# thousands are grouped by commas, dots (German "1.000") or non-breaking spaces.
_NUMBER = r"\d{1,3}(?:[,.\u202f\u00a0]\d{3}){1,5}(?:[.,]\d{1,6})?(?!\d)|\d{1,15}(?:[.,]\d{1,6})?"
# ASCII only: Unicode case folding would let "ſep" match "sep", and \d match any digit.
_FLAGS = re.IGNORECASE | re.ASCII
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b", re.ASCII)
_DOTTED_DATE = re.compile(r"\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b", re.ASCII)  # 20.12.2024
_MONTH_DAY = re.compile(
    rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", _FLAGS
)
_DAY_MONTH = re.compile(  # 3 March 2026, 20. Dezember 2024, 20 de diciembre de 2024
    rf"\b(\d{{1,2}})(?:st|nd|rd|th|\.)?\s+(?:de\s+)?({_MONTH})\.?(?:,?\s+(?:de\s+)?(\d{{4}}))?\b",
    _FLAGS,
)
_CLOCK = re.compile(r"\b(\d{1,2}):(\d{2})\b|\b(\d{1,2})\s?([ap])\.?m\b\.?", _FLAGS)
_VERSION = re.compile(
    r"(?:\b(?:v|version\s|release\s)\s?(\d+(?:\.\d+)*)|(?<![\w.])(\d+\.\d+\.\d+(?:\.\d+)*))"
    r"(?![\w.]*\d)",
    _FLAGS,
)
_QUANTITY = re.compile(
    rf"(?<![\w.,/-])(?:([$€£])\s?)?({_NUMBER}|{'|'.join(_WORDS)})(?![\w-]*\d)"
    r"(?:[\s-]?(%|[a-z]+))?(?![\w])",
    _FLAGS,
)
_ANY_NUMBER = re.compile(_NUMBER, re.ASCII)
_COMMA_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")
_DOT_THOUSANDS = re.compile(r"\d{1,3}(?:\.\d{3})+")
_GROUPED_DECIMAL = re.compile(r"\d{1,3}(?:,\d{3})+\.\d+|\d{1,3}(?:\.\d{3})+,\d+")
_EVERY = re.compile(r"\bevery\s+(hour|day|week)\b", _FLAGS)


@functools.lru_cache(maxsize=256)
def figures(text: str) -> frozenset[Key]:
    """The keys of every figure in `text` (what a source or a thread may confirm), and every
    number in it as a plain number, whatever its unit: a claim's "30-day" or "2026" is
    confirmed by a source's "30 days" or "2026-03-03". Cached: every attempt at a message,
    and every later message of its thread, gives the same sources and turns again."""
    keys = {key for found in claims(text) for key in found} | _periods(text)
    for number in _ANY_NUMBER.findall(text):
        keys.update(("number", _plain(v)) for v in _values(number))
    return frozenset(keys)


def claims(text: str) -> Iterator[frozenset[Key]]:
    """Each figure of `text` as the keys any one of which confirms it."""
    text, dates = _take_dates(text)
    yield from dates
    text, versions = _take(text, _VERSION, _version)
    yield from versions
    text, clocks = _take(text, _CLOCK, _clock)
    yield from clocks
    for m in _QUANTITY.finditer(text):
        keys = _quantity(m)
        if keys:
            yield keys


def _take_dates(text: str) -> tuple[str, list[frozenset[Key]]]:
    found: list[frozenset[Key]] = []
    patterns = ((_ISO_DATE, "ymd"), (_DOTTED_DATE, "dmy"), (_MONTH_DAY, "mdy"), (_DAY_MONTH, "dmy"))
    for pattern, order in patterns:
        text, dates = _take(text, pattern, functools.partial(_date, order=order))
        found += dates
    return text, found


def _take(
    text: str, pattern: re.Pattern[str], key: Callable[[re.Match[str]], frozenset[Key]]
) -> tuple[str, list[frozenset[Key]]]:
    """The figures `pattern` finds, and the text with them blanked out."""
    found: list[frozenset[Key]] = []

    def blank(m: re.Match[str]) -> str:
        keys = key(m)
        if keys:
            found.append(keys)
        return " " * len(m.group())

    return pattern.sub(blank, text), found


def _date(m: re.Match[str], order: str) -> frozenset[Key]:
    parts = dict(zip(order, m.groups(), strict=True))
    month = parts["m"]
    month_number = int(month) if month.isdigit() else _MONTHS.get(month.lower().rstrip("."), 0)
    if not 1 <= month_number <= 12:
        return frozenset()
    day = f"{month_number:02d}-{int(parts['d']):02d}"
    if parts["y"]:
        return frozenset({("date", f"{parts['y']}-{day}")})
    return frozenset({("day", day)})


def _version(m: re.Match[str]) -> frozenset[Key]:
    """A version; a source may write it as a bare number ("2.3")."""
    version = m.group(1) or m.group(2)
    if version.count(".") > 1:
        return frozenset({("version", version)})
    return frozenset({("version", version), ("number", version)})


def _clock(m: re.Match[str]) -> frozenset[Key]:
    if m.group(1) is not None:
        hour, minute = int(m.group(1)), int(m.group(2))
    else:
        hour, minute = int(m.group(3)) % 12 + (12 if m.group(4).lower() == "p" else 0), 0
    return frozenset({("time", f"{hour:02d}:{minute:02d}")})


def _quantity(m: re.Match[str]) -> frozenset[Key]:
    currency, number, unit = m.group(1), m.group(2), (m.group(3) or "").lower()
    values = _values(number)
    if not values:
        return frozenset()
    if currency:
        return frozenset(("money", _plain(v)) for v in values)
    if unit in _UNITS:
        kind, scale = _UNITS[unit]
        scales = {scale, *_ALSO.get(unit.rstrip("s"), ())}
        if kind == "size":
            scales.add(_decimal(scale))
        return frozenset((kind, _plain(v * s)) for v in values for s in scales)
    if max(values) < 10 and not re.search(r"[.,]", number):  # a count or a step, no claim
        return frozenset()
    return frozenset(("number", _plain(v)) for v in values)


@functools.lru_cache(maxsize=4096)
def _values(number: str) -> frozenset[Fraction]:
    """The values a written number can mean: "1,000" is a thousand, "1,5" one and a half,
    "1.000" a thousand in German or one in English."""
    word = _WORDS.get(number.lower())
    if word is not None:
        return frozenset({Fraction(word)})
    compact = number.replace("\u202f", "").replace("\u00a0", "")
    if _COMMA_THOUSANDS.fullmatch(compact):  # 12,000
        read = {compact.replace(",", "")}
    elif _DOT_THOUSANDS.fullmatch(compact):  # 1.000: German thousands, or 1.0
        read = {compact.replace(".", ""), compact}
    elif _GROUPED_DECIMAL.fullmatch(compact):  # 1,000.5 or 1.000,5
        cut = max(compact.rfind("."), compact.rfind(","))  # the decimal mark is the last
        whole = compact[:cut].replace(",", "").replace(".", "")
        read = {f"{whole}.{compact[cut + 1 :]}"}
    else:
        read = {compact.replace(",", ".")}
    values = set()
    for candidate in read:
        try:
            values.add(Fraction(candidate))
        except ValueError:  # not a number after all
            continue
    return frozenset(values)


def _decimal(scale: Fraction) -> Fraction:
    """A binary size unit read as decimal (vendors write GB for both)."""
    power = 0
    while scale >= 1024:
        scale, power = scale / 1024, power + 1
    return Fraction(1000**power)


def _plain(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def _periods(text: str) -> set[Key]:
    """Words that state a duration without a digit: "daily" is every 24 hours."""
    lowered = text.lower()
    keys = {("duration", str(s)) for w, s in _PERIODS.items() if re.search(rf"\b{w}\b", lowered)}
    for m in _EVERY.finditer(text):
        keys.add(("duration", _plain(_UNITS[m.group(1).lower()][1])))
    return keys


ARITHMETIC_POOL = 1000  # most known figures of one kind combined (a bound on the work)
SHARE_PERCENTS = 20  # most percentages applied to them
_GROUPS = {"time": "duration"}  # a difference of times of day is a duration
OPERAND_SHARE = Fraction(1, 20)  # each operand is at least this share of the result


@dataclass(frozen=True)
class Known:
    """The figures a claim may use: every key the sources, the message and the thread give,
    and the values of each kind, for sums and differences."""

    keys: frozenset[Key]
    pools: dict[str, frozenset[Fraction]]
    shares: dict[str, frozenset[Fraction]]  # a given percentage of a given figure, by kind

    @classmethod
    def of(cls, texts: Iterable[str]) -> Known:
        keys = frozenset(key for text in texts for key in figures(text))
        pools: dict[str, set[Fraction]] = {}
        for kind, raw in keys:
            value = _number(kind, raw)
            if value is not None and value > 0:
                pools.setdefault(_GROUPS.get(kind, kind), set()).add(value)
        bounded = {g: frozenset(sorted(v)[-ARITHMETIC_POOL:]) for g, v in pools.items()}
        percents = sorted(bounded.get("percent", ()))[:SHARE_PERCENTS]
        shares = {
            g: frozenset(p * a / 100 for p in percents for a in v) for g, v in bounded.items()
        }
        return cls(keys, bounded, shares)

    def confirms(self, claim: frozenset[Key]) -> bool:
        """Whether a claimed figure is given, in any of its forms, or derived from given
        figures: the sum or difference of two different ones of its kind, or a given
        percentage of one, plus or minus another ("1 hour" and "20 min ago" give "40
        minutes remain"; 1.4% + €0.25 of €3,200 is €45.05). Each operand must be at least a
        twentieth of the result, so an off-by-one (2027 from 2026 and a stray 1) is no sum.
        Products and longer chains are not tried: they would explain away real slips."""
        return bool(claim & self.keys) or any(self._derives(kind, raw) for kind, raw in claim)

    def _derives(self, kind: str, raw: str) -> bool:
        target = _number(kind, raw)
        if target is None or target <= 0 or (kind == "number" and target.denominator != 1):
            return False  # a decimal without a unit is a version or a ratio, not a sum
        pool = self.pools.get(_GROUPS.get(kind, kind), frozenset())
        least = target * OPERAND_SHARE
        for a in pool:
            other = target - a
            if other != a and other >= least and a >= least and other in pool:
                return True
            if a - target >= least and a - target in pool:
                return True
        shares = self.shares.get(_GROUPS.get(kind, kind), frozenset())
        return target in shares or any(
            target - share in pool or share - target in pool for share in shares
        )


def _number(kind: str, raw: str) -> Fraction | None:
    if kind == "time":
        hours, minutes = raw.split(":")
        return Fraction(int(hours) * 3600 + int(minutes) * 60)
    if kind in ("number", "duration", "size", "percent", "money"):
        try:
            return Fraction(raw)
        except ValueError:
            return None
    return None
