"""Calculations an answer writes out with their operands, and which of their results hold.

"2 × €180 = €360", "€600 ÷ 12 = €50", "14 € + 14 € + 28 € = 56 €", "$41,760 − 10% =
$37,584", "14:10 + 15 min = 14:25", "€300 ÷ €1,200 = 25%", and running ones, "2 × 190 km =
380 km × 0,30 € = 114 €", read a step at a time. The drafting prompt asks the model to show
what it works out in this form (app.agent.prompts), and UNSOURCED_FIGURE's fix says so: a
result shown here is sourced like a given figure.

A result holds when the arithmetic does, to the digits it is written with (with "=", a
result with decimals may be rounded to them; with "≈", any result), and every operand that
is a figure (an amount, a duration, a size, a percentage, a time of day, a number of 10 or
more) is given, one the calendar gives (12 months, 7 days …) or the result of an earlier
step. A bare count (of nights, of people) is the answer's reasoning and may multiply or
divide a figure; which count, and which given figure, a calculation should use is the
judge's to weigh. Figures added together share their unit ("45 mi + 12 km" is no sum).
"""

from __future__ import annotations

import datetime
import itertools
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

from app.verify.figures import (
    ANY_NUMBER,
    CURRENCY_SYMBOLS,
    DATES,
    Key,
    Known,
    add_months,
    canonical,
    claims,
    key_value,
    written_values,
)
from app.verify.scan import CJK

# A number: a time of day, thousands set apart by spaces ("210 000 zł"), or digits with
# their separators, possibly a fraction ("4/5").
_NUMBER = (
    r"[0-9]{1,2}:[0-9]{2}(?![0-9])"
    r"|[0-9]{1,3}(?:\x20[0-9]{3})++(?![0-9])(?:,[0-9]+)?"
    r"|[0-9](?:[0-9.,\u202f\u00a0']*[0-9])?(?:/[0-9]{1,3})?"  # ends on a digit: "= 24. See"
)
_UNIT = rf"(?:[{CURRENCY_SYMBOLS}%％]|(?![xX]\s?[0-9])[^\W\d_]{{1,15}}\.?)"  # "kr.", "円"
_PER = r"\s(?:per|pro|por|par|a|je|à|al)\s[^\W\d_]{1,15}(?:\s[^\W\d_]{1,15})?"  # "pro km"
_DATE = "|".join(f"(?i:{pattern.pattern})" for pattern in DATES)  # "2 maj 2025", "6月5日"
# An operand is atomic: once read, it is never read shorter, so a run of operands that
# leads to no "=" fails at once instead of trying every split of its spaces and units.
_ASIDE = r"(?:\s?[(（][^()（）\n]{1,20}[)）])?"  # "14日（2週間）"
_OPERAND = (
    rf"(?>(?:{_DATE}|(?:[{CURRENCY_SYMBOLS}]|R\$|[A-Z]{{3}}\x20)?\s?(?:{_NUMBER})"
    rf"(?:\s?{_UNIT})?(?:{_PER})?){_ASIDE})"
)
# Signs that are also dashes, slashes and colons in prose count only set apart by spaces.
_OPERATOR = r"\s?(?:[×✕⨉·÷+−]|(?<=\s)[xX/:\-–](?=\s))\s?"
_EXPRESSION = rf"{_OPERAND}(?:{_OPERATOR}{_OPERAND}){{0,5}}"
_EQUALS = r"\s?([=＝≈≒])\s?"
_EQUATION = re.compile(
    rf"(?<![.,/\u00a0\u202f'-])(?<![^\W{CJK}])(?<![0-9]\x20)"
    rf"{_EXPRESSION}(?:{_EQUALS}{_EXPRESSION}){{1,4}}(?![0-9])"
)
_SIGNS = re.compile("[=＝≈≒]")
_SPLIT_EQUALS = re.compile(_EQUALS)
_SPLIT_OPERATOR = re.compile(f"({_OPERATOR})")
_ADDS, _SUBTRACTS, _DIVIDES = frozenset("+"), frozenset("−-–"), frozenset("÷/:")
_APPROXIMATE = frozenset("≈≒")
_EMPHASIS = re.compile(r"[*_~]+")  # bold and italics around a figure: "= *$16,650*"
_FRACTION = re.compile(r"^([0-9]{1,3})/([0-9]{1,3})$")
_NOT_UNIT = re.compile(r"[0-9\s.,:'/\u00a0\u202f]+")
_DECIMALS = re.compile(r"[.,]([0-9]+)$")
_MULTIPLIED = re.compile(r"[0-9]\s?(?:k|K|M|bn|Mio|Mrd|千|万|萬|億|억|만)")  # "$37.6k"
WINDOW = 300  # characters read on each side of an equals sign
MAX_SHOWN = 30  # calculations read per text
MAX_COMBINATIONS = 81  # readings of the operands tried together
MAX_TRIES = 500  # readings of calculations tried per text (a bound on the work)
ROUNDING = Fraction(1, 100)  # a result rounded to its written digits is at most this far off
# Numbers the calendar and the units give: one, working days and days of a week, months,
# hours of a day, days of a month, weeks of a year, minutes, percent, days of a year,
# thousands; and the whole ("100 %") and the units of time ("365日", "24 Stunden")
CONSTANTS = frozenset(map(Fraction, (1, 5, 7, 12, 24, 30, 31, 52, 60, 100, 365, 366, 1000)))
_CONSTANT_FIGURES = frozenset(
    {("number", n) for n in CONSTANTS}
    | {("percent", Fraction(100))}
    | {("duration", Fraction(s)) for s in (60, 3600, 86400, 604800, 31536000, 31622400)}
)
_KINDS = frozenset({"number", "percent", "duration"})

# kind, value, seconds per unit written (durations). Kinds of operands: the figures'
# ("money", "duration", "size", "percent", "time"), "figure" (a given figure read as a
# number: "72 km", "240"), "number" (a count given) and "bare" (a count nothing gives).
Reading = tuple[str, Fraction, Fraction | None]
# kind and value of a term or result: the figures' kinds, and numbers: "figured" (of a
# given figure, by counts), "plain" (of counts given), "count" (of counts, one bare),
# "written" (a figure's number as written, "30 Urlaubstage × 4/5 = 24"), and "share" (a
# percentage added or taken off)
Value = tuple[str, Fraction]
_NUMBERS = ("count", "written", "plain", "figured")  # kinds of numbers, weakest first
_MEASURED = ("money", "duration", "size")
# Operands that stand alone as a term: a time of day, a date (with its year, or a day of a
# month), a number of calendar months, and a percentage, added or taken off as a share
_ALONE = {"time": "time", "date": "date", "day": "day", "months": "months", "percent": "share"}
_DATED = frozenset({"date", "day"})
_OWN_ARITHMETIC = frozenset({"duration", "time", "percent", "date", "day", "months"})
_COUNTS = ("number", "figure", "percent", "bare")


@dataclass
class _Reader:
    """What one text's calculations are read against: the figures given, the readings
    left to try, and each operand's figure once read (operands repeat)."""

    known: Known
    left: int = MAX_TRIES
    figures: dict[str, tuple[frozenset[Key] | None, bool]] = field(default_factory=dict)

    def spend(self) -> bool:
        self.left -= 1
        return self.left >= 0

    def figure(self, operand: str) -> tuple[frozenset[Key] | None, bool]:
        """The operand's figure (None for a count) and whether it is given."""
        if operand not in self.figures:
            figure = next(claims(operand), None)
            constant = figure is not None and any(
                (kind, Fraction(raw)) in _CONSTANT_FIGURES for kind, raw in figure if kind in _KINDS
            )
            given = figure is not None and (constant or self.known.confirms(figure))
            self.figures[operand] = (figure, given)
        return self.figures[operand]


def shown(text: str, known: Known, worked: frozenset[Key] = frozenset()) -> frozenset[Key]:
    """The keys of the results that hold of the calculations `text` writes out; `worked`
    are results shown before it (elsewhere in the answer), which its steps may use."""
    results: set[Key] = set()
    reader = _Reader(known)
    for run in itertools.islice(_runs(_EMPHASIS.sub("", text)), MAX_SHOWN):
        parts = _SPLIT_EQUALS.split(run)  # expression, sign, expression, sign, …
        for i in range(0, len(parts) - 2, 2):
            before, sign, after = parts[i], parts[i + 1], parts[i + 2]
            first = _SPLIT_OPERATOR.split(after, maxsplit=1)[0].strip()
            # a run's first expression may start with a list's number: "Teil 2 – 30 × 4/5"
            for expression in _suffixes(before) if i == 0 else (before,):
                values, units, constants = _evaluate(expression, reader, worked | results)
                held = _held(values, first, units, approximate=sign in _APPROXIMATE)
                if held:
                    results |= held | constants
                    break
    return frozenset(results)


def _runs(text: str) -> Iterator[str]:
    """Each run of expressions joined by equals signs, read only near the signs."""
    windows: list[list[int]] = []
    for m in _SIGNS.finditer(text):
        start, end = max(m.start() - WINDOW, 0), m.end() + WINDOW
        if windows and start <= windows[-1][1]:
            windows[-1][1] = end
        else:
            windows.append([start, end])
    for start, end in windows:
        for m in _EQUATION.finditer(text, start, min(end, len(text))):
            yield m.group()


def _suffixes(expression: str) -> Iterator[str]:
    """The expression, then what follows each of its signs."""
    parts = _SPLIT_OPERATOR.split(expression)
    for i in range(0, len(parts), 2):
        yield "".join(parts[i:])


class Units(NamedTuple):
    """The units an expression's result may be written in: the one its terms share when it
    adds them ("" when it does not, or they have none), and those of its operands that are
    figures read as numbers ("190 km")."""

    shared: str
    figures: frozenset[str]


def _evaluate(
    expression: str, reader: _Reader, worked: frozenset[Key]
) -> tuple[set[Value], Units, frozenset[Key]]:
    """What an expression may come to, over the readings of its operands; its units; and
    the figures among its operands that the calendar gives ("1 uur", "365日"), which the
    claim states with the result."""
    parts = _SPLIT_OPERATOR.split(expression)
    operands, signs = [part.strip() for part in parts[0::2]], [p.strip() for p in parts[1::2]]
    readings = [_readings(operand, reader, worked) for operand in operands]
    shared = _shared_unit(operands, signs, readings) if all(readings) else None
    if shared is None:
        return set(), Units("", frozenset()), frozenset()
    figures = frozenset(
        _unit(operand)
        for operand, found in zip(operands, readings, strict=True)
        if any(kind == "figure" for kind, _, _ in found)
    )
    values: set[Value] = set()
    for combination in itertools.islice(itertools.product(*readings), MAX_COMBINATIONS):
        if not reader.spend():
            break
        values.update(_calculate(combination, signs, reader.known))
    constants = frozenset(
        (kind, raw)
        for operand in operands
        if (figure := reader.figure(operand)[0])
        for kind, raw in figure
        if kind in _KINDS and (kind, Fraction(raw)) in _CONSTANT_FIGURES
    )
    return values, Units(shared, figures), constants


def _shared_unit(
    operands: Sequence[str], signs: Sequence[str], readings: Sequence[list[Reading]]
) -> str | None:
    """The unit the terms of a sum are written in ("€", "km"), "" for none or no sum, None
    if two differ ("45 mi + 12 km", "€14 + $28"). Times and durations have their own
    arithmetic ("1 h + 30 min"), and a term that is a product carries no unit of its own."""
    if not any(sign in _ADDS or sign in _SUBTRACTS for sign in signs) or any(
        kind in _DATED for found in readings for kind, _, _ in found
    ):
        return ""  # no sum, or a date's ("11월 3일 + 7일 = 11월 10일")
    alone = [True] * len(operands)  # operands that are a term by themselves
    for i, sign in enumerate(signs):
        if not (sign in _ADDS or sign in _SUBTRACTS):
            alone[i] = alone[i + 1] = False
    units = {
        _unit(operand)
        for operand, single, found in zip(operands, alone, readings, strict=True)
        if single and not any(kind in _OWN_ARITHMETIC for kind, _, _ in found)
    } - {""}
    return None if len(units) > 1 else next(iter(units), "")


def _unit(operand: str) -> str:
    """What an operand is written with besides its number: "€", "km", "chf", "kr"."""
    return _NOT_UNIT.sub("", operand).casefold().rstrip(".")


def _calculate(readings: Sequence[Reading], signs: Sequence[str], known: Known) -> list[Value]:
    """The values of one reading of an expression: products and quotients first, then sums
    from the left. A time of day and a percentage standing alone are terms as they are."""
    terms: list[tuple[str, list[Reading], list[Reading]]] = [("+", [readings[0]], [])]
    for sign, reading in zip(signs, readings[1:], strict=True):
        if sign in _ADDS or sign in _SUBTRACTS:
            terms.append((sign, [reading], []))
        elif sign in _DIVIDES:
            terms[-1][2].append(reading)
        else:
            terms[-1][1].append(reading)
    options = [_term(factors, divisors, known) for _, factors, divisors in terms]
    if len(terms) > 1:  # a figure's number as written is no term of a sum
        options = [[v for v in option if v[0] != "written"] for option in options]
    found = []
    for chosen in itertools.islice(itertools.product(*options), MAX_COMBINATIONS):
        total = _sum([sign for sign, _, _ in terms], list(chosen))
        if total is not None:
            found.append(total)
    return found


def _term(factors: list[Reading], divisors: list[Reading], known: Known) -> list[Value]:
    """The values of a product and its quotients. Numbers alone are "plain" when every
    operand is given, "figured" when a given figure is multiplied or divided by a bare
    count ("2 × 190 km = 380 km"), and a "count" when bare counts make them alone ("3 × 8
    = 24 hours" for 6-hour shifts, "9 + 9 + 6 = 24 km", prove nothing)."""
    if len(factors) == 1 and not divisors and factors[0][0] in _ALONE:
        kind, value, _ = factors[0]
        return [(_ALONE[kind], value)]
    operands = {kind for kind, _, _ in (*factors, *divisors)}
    number = "plain"
    if "bare" in operands:
        number = "figured" if "figure" in operands else "count"
    values = _quotient(_product(factors, known), divisors)
    return [(number if kind == "plain" else kind, value) for kind, value in values]


def _product(factors: list[Reading], known: Known) -> list[Value]:
    """The kind and value of a product, if it is one the rule checks: at most one amount,
    duration or size, no factor of one, and time times money only through a rate given
    per that unit ("$40 per hour" for hours, not "90 minutes × $40"). Numbers alone are
    "plain" (`_term` says which). A figure times counts is also the number it is written
    with times them ("30 Urlaubstage × 4/5 = 24")."""
    measured = [f for f in factors if f[0] in _MEASURED]
    counts = [f[1] for f in factors if f[0] in _COUNTS]
    if len(measured) + len(counts) != len(factors) or (
        len(factors) > 1 and any(v in (0, 1) for v in counts)
    ):
        return []
    scale = math.prod(counts, start=Fraction(1))
    kinds = sorted(f[0] for f in measured)
    if not kinds:
        return [("plain", scale)]
    if kinds == ["duration", "money"]:  # a rate per that unit, times a count of units
        (_, amount, _), (_, span, unit) = sorted(measured)[::-1]
        if unit is None or (amount, unit) not in known.rates:
            return []
        return [("money", amount * span / unit * scale)]
    if len(kinds) == 1:
        kind, value, unit = measured[0]
        written = value / unit if unit else value
        return [(kind, value * scale), ("written", written * scale)]
    return []


def _quotient(values: list[Value], divisors: list[Reading]) -> list[Value]:
    """`values` divided by each divisor: by a count (a bare one makes numbers a count), an
    amount by a number of units of time ("€600 ÷ 12 months"), or a figure by one of its
    kind (given numbers: "€300 ÷ €1,200" is 25%)."""
    for kind, by, unit in divisors:
        divided: list[Value] = []
        for of, value in values:
            if kind in _COUNTS and by:
                divided.append((of, value / by))
            elif kind == "duration" and of == "money" and unit:
                divided.append((of, value / (by / unit)))
            elif kind == of and kind in _MEASURED and by:
                divided.append(("plain", value / by))
        values = divided
    return values


def _sum(signs: list[str], terms: list[Value]) -> Value | None:
    """Signed terms added from the left: figures of one kind (numbers of different kinds
    make the weakest), durations added to or taken from a time of day (on the clock), a
    percentage added to or taken off the total so far ("$41,760 − 10% = $37,584"), or
    percentages alone ("25% + 25% = 50%"). Two times of day make the duration between
    them, "17:00 − 9:00" or a range, "9:00 – 17:00", never across midnight ("9:00 – 17:00"
    is not 16 hours). None for any other mix."""
    kinds = [kind for kind, _ in terms]
    if kinds[0] in _DATED and len(terms) > 1:
        return _dated(signs, terms)
    if len(terms) == 1 or kinds == ["time", "time"] or all(k == "share" for k in kinds):
        return _alone(signs, terms)
    if kinds[0] == "share" or ("time" in kinds and (kinds[0] != "time" or kinds.count("time") > 1)):
        return None
    kind, total = terms[0]
    for sign, (other, value) in zip(signs[1:], terms[1:], strict=True):
        if other == "share":
            total *= 1 + _signed(sign, value)
        elif kind in _NUMBERS and other in _NUMBERS:
            kind = min(kind, other, key=_NUMBERS.index)
            total += _signed(sign, value)
        elif other == kind or (kind, other) == ("time", "duration"):
            total += _signed(sign, value)
        else:
            return None
    if kind == "time":
        return kind, total % 86400
    return (kind, total) if total > 0 else None


def _alone(signs: list[str], terms: list[Value]) -> Value | None:
    """A term alone (a percentage as itself), percentages summed, or the duration between
    two times of day."""
    if len(terms) == 1:
        kind, value = terms[0]
        return ("percent", value * 100) if kind == "share" else terms[0]
    if terms[0][0] == "time":
        (_, start), (_, end) = terms
        between = abs(end - start)
        return ("duration", between) if between else None
    total = sum((_signed(s, v) for s, (_, v) in zip(signs, terms, strict=True)), Fraction(0))
    return ("percent", total * 100) if total > 0 else None


def _dated(signs: list[str], terms: list[Value]) -> Value | None:
    """A date plus or minus whole days ("2 maj 2025 + 3 × 7 dagar", a number alone: "11월
    3일 + 7일") or calendar months ("31 dicembre 2024 + 18 mesi"); a day of a month is
    counted in a common and a leap year's calendar."""
    (kind, start), rest = terms[0], terms[1:]
    day = datetime.date.fromordinal(int(start))
    for sign, (other, value) in zip(signs[1:], rest, strict=True):
        if other == "duration" and value % 86400 == 0:
            day += datetime.timedelta(days=int(_signed(sign, value) / 86400))
        elif other in _NUMBERS and value.denominator == 1:  # "11월 3일 + 7일": days
            day += datetime.timedelta(days=int(_signed(sign, value)))
        elif other == "months" and value.denominator == 1:
            day = add_months(day, int(_signed(sign, value)))
        else:
            return None
    return kind, Fraction(day.toordinal())


def _signed(sign: str, value: Fraction) -> Fraction:
    return -value if sign in _SUBTRACTS else value


def _held(values: set[Value], written: str, units: Units, *, approximate: bool) -> set[Key]:
    """The keys of a result that a value of its calculation comes to. A figure's value
    compares in its kind; a count or a figure's written number only with a bare number;
    counts given alone with the number any result is written with ("32 ÷ 8 = 4 giorni")
    and with a percentage ("€300 ÷ €1,200 = 25%"), and a figure read as a number, by bare
    counts, with one in its unit ("2 × 190 km = 380 km", not "30 ÷ 8 × 4 = 15 days"). The
    result of a sum is in its terms' unit. A worked number is given to later steps ("200 ÷
    25 = 8", then "160 ÷ 8")."""
    unit = _unit(written)
    if units.shared and not unit.startswith(units.shared):
        return set()
    dated = {value for value in values if value[0] in _DATED}
    if dated:
        return _dates_held(dated, written)
    numbers = ANY_NUMBER.findall(written)
    if not numbers:
        return set()
    readings = [(w, _decimals(numbers[0], w)) for w in sorted(written_values(numbers[0]))]
    result = [
        (kind, raw, target)
        for found in claims(written)
        for kind, raw in found
        if (target := key_value(kind, raw)) is not None
    ]
    multiplied = _MULTIPLIED.search(written) is not None
    free = {"plain"} | ({"figured"} if not unit or unit in units.figures else set())
    held: set[Key] = set()
    for kind, value in values:
        for rkind, raw, target in result:
            if not (kind == rkind or (rkind == "number" and (kind in free or not unit))):
                continue
            if value == target or (
                rkind != "time"
                and any(
                    _close(value * scale, w, d, approximate)
                    for w, d in readings
                    if w and (scale := _scale(target, w, rkind, multiplied))
                )
            ):
                held.add((rkind, raw))
        if kind in free:
            for w, d in readings:
                if _close(value, w, d, approximate) or (
                    "%" in written and _close(value * 100, w, d, approximate)
                ):
                    held.add(("number", canonical(w)))
                    held.update((k, raw) for k, raw, t in result if t == w or len(result) == 1)
    return held


def _dates_held(values: set[Value], written: str) -> set[Key]:
    """The keys of a date result that a date calculation comes to: the same date, or the
    same day of the month when either is written without its year."""
    found = {key for figure in claims(written) for key in figure}
    held: set[Key] = set()
    for kind, value in values:
        iso = datetime.date.fromordinal(int(value)).isoformat()
        for key in found:
            if key in (("date", iso), ("day", iso[5:])) or (
                kind == "day" and key[0] == "date" and key[1][5:] == iso[5:]
            ):
                held.add(key)
    return held


def _scale(target: Fraction, written: Fraction, kind: str, multiplied: bool) -> Fraction:
    """What a value is multiplied by to compare with the number written: 1, a unit of
    time or size ("7,1 h" for seconds), a multiplier written ("$37.6k"); 0 for a reading
    of the written number that is not this result's."""
    if target == written:
        return Fraction(1)
    if kind in ("duration", "size") or (kind == "money" and multiplied):
        return written / target
    return Fraction(0)


def _close(value: Fraction, written: Fraction, decimals: int, approximate: bool) -> bool:
    """Whether `value` is written as `written`: exactly, or rounded to the decimals it is
    written with (with "=", only a result written with decimals: "€85.71"; with "≈",
    any: "≈ €86"), at most ROUNDING of it off ("2" is not 2.4)."""
    if value == written:
        return True
    if not (approximate or decimals):
        return False
    unit = Fraction(1, 10**decimals)
    rounded = math.floor(value / unit + Fraction(1, 2)) * unit
    return rounded == written and abs(value - written) <= abs(value) * ROUNDING


def _decimals(number: str, value: Fraction) -> int:
    """The decimals `number` is written with when it is read as `value`: "86.00" has two,
    trailing zeros too; "1.500" read as 1500 has none."""
    m = _DECIMALS.search(number)
    if m is None:
        return 0
    count = len(m.group(1))
    digits = re.sub(r"[^0-9]", "", number)
    return count if Fraction(int(digits), 10**count) == value else 0


def _given(value: Fraction, known: Known, worked: frozenset[Key]) -> bool:
    """Whether a number is written in the texts, worked out before, or one the calendar
    and the units give (7 days a week, 5 working days, 12 months, 60 minutes …)."""
    key = ("number", canonical(value))
    return value in CONSTANTS or key in known.keys or key in worked


def _readings(operand: str, reader: _Reader, worked: frozenset[Key]) -> list[Reading]:
    """What an operand may stand for: a fraction ("4/5"), a count, or a figure given or
    worked out before, in each of its forms (a duration in seconds, with the unit it is
    written in; a size also as a count of its unit: "240 GB × R$ 0,15"). Nothing if it is
    a figure nothing gives."""
    fraction = _FRACTION.match(operand)
    if fraction:  # given when both its numbers are: "4/5" for 4 days of a 5-day week
        low, high = Fraction(int(fraction.group(1))), Fraction(int(fraction.group(2)))
        given = [_given(n, reader.known, worked) for n in (low, high)]
        if not high or any(n >= 10 and not ok for n, ok in zip((low, high), given, strict=True)):
            return []
        return [("number" if all(given) else "bare", low / high, None)]
    figure, given_figure = reader.figure(operand)
    numbers = ANY_NUMBER.findall(operand)
    written = sorted(written_values(numbers[0])) if numbers else []
    if figure is None:  # a count: given (a figure when written with a unit: "7 km"), or bare
        counted = "figure" if _unit(operand) else "number"
        return [
            (counted if _given(value, reader.known, worked) else "bare", value, None)
            for value in written[:2]
        ]
    if not (given_figure or figure & worked):
        return []
    found: list[Reading] = _dates(figure)
    for kind, raw in sorted(figure)[:3]:
        value = key_value(kind, raw)
        if value is None or kind not in ("money", "duration", "size", "percent", "number", "time"):
            continue
        if kind == "duration":
            found += [(kind, value, value / w) for w in written[:2] if w]
        elif kind == "size":
            found += [(kind, value, None), *(("figure", w, None) for w in written[:1])]
        else:
            found.append(
                (
                    "figure" if kind == "number" else kind,
                    value / 100 if kind == "percent" else value,
                    None,
                )
            )
    return found


# The years a day of a month is counted in: a common and a leap year
_YEARS = (2025, 2028)


def _dates(figure: frozenset[Key]) -> list[Reading]:
    """A figure's readings as a date (its ordinal), a day of a month (in a common and in a
    leap year), or a whole number of calendar months ("18 mesi")."""
    found: list[Reading] = []
    for kind, raw in figure:
        if kind == "date":
            day = _ordinal(raw)
            found += [("date", day, None)] if day else []
        elif kind == "day":
            found += [("day", d, None) for y in _YEARS if (d := _ordinal(f"{y}-{raw}"))]
        elif kind == "span":
            months = Fraction(raw.rsplit("/", 1)[1])
            found += [("months", months, None)] if months.denominator == 1 else []
    return found


def _ordinal(iso: str) -> Fraction | None:
    try:
        return Fraction(datetime.date.fromisoformat(iso).toordinal())
    except ValueError:
        return None
