"""Calculations an answer writes out with their operands, and which of their results hold.

"2 × €180 = €360", "€600 ÷ 12 = €50", "14 € + 14 € + 28 € = 56 €", "$41,760 − 10% =
$37,584", "14:10 + 15 min = 14:25", "€300 ÷ €1,200 = 25%", "2 maj 2025 + 3 × 7 dagar = 23
maj 2025", and running ones, "2 × 190 km = 380 km × 0,30 € = 114 €", read a step at a time.
The drafting prompt asks the model to show what it works out in this form
(app.agent.prompts), and UNSOURCED_FIGURE's fix says so: a result that holds is sourced
like a given figure.

A result holds when the arithmetic does, to the digits it is written with: with "=", a
result written with decimals may be rounded to them, one without is exact; with "≈", any
rounding to the digits written; at most ROUNDING (or APPROXIMATE) of the value off. Every
operand that is a figure (an amount, a duration, a size, a percentage, a date, a time of
day, a number of 10 or more) is given or the result of an earlier step; a bare number may
also be one the calendar gives (12 months, 7 days …). A bare count (of nights, of people)
is the answer's reasoning and may multiply or divide a figure; which count, and which
given figure, a calculation should use is the judge's to weigh. Figures added together
share their unit, and an amount keeps its currency.
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
    STEPS,
    Key,
    Known,
    add_months,
    canonical,
    claims,
    dates_of,
    key_value,
    months_of,
    percent_last,
    written_values,
    zones,
)
from app.verify.products import periods_ratio, products
from app.verify.scan import CJK

# A number: a time of day, thousands set apart by spaces ("210 000 zł"), or digits with
# their separators, ending on a digit ("= 24. See"), possibly a fraction ("4/5").
_NUMBER = (
    r"[0-9]{1,2}:[0-9]{2}(?![0-9])"
    r"|[0-9]{1,3}(?:\x20[0-9]{3})++(?![0-9])(?:,[0-9]+)?"
    r"|[0-9](?:[0-9.,\u202f\u00a0']*[0-9])?(?:/[0-9]{1,3})?"
)
_CODE = r"[A-Z]{3}\x20"  # "CHF 14"
# A unit after a number ("kr.", "円"); not an "x" of product ("2 x €180")
_UNIT = (
    rf"(?:[{CURRENCY_SYMBOLS}%％]"
    rf"|(?![xX]\s?(?:[0-9{CURRENCY_SYMBOLS}]|{_CODE}))[^\W\d_]{{1,15}}\.?)"
)
_PER = r"\s(?:per|pro|por|par|a|je|à|al)\s[^\W\d_]{1,15}(?:\s[^\W\d_]{1,15})?"  # "pro km"
_DATE = "|".join(f"(?i:{pattern.pattern})" for pattern in DATES)  # "2 maj 2025", "6月5日"
_ASIDE = r"(?:\s?[(（][^()（）\n]{1,20}[)）])?"  # "14日（2週間）"
# An operand is atomic: once read, it is never read shorter.
# A unit of one or two words ("3 hela dagar", "2 weekend days"), or a duration in two units
# ("1 h 15 min", "8 Stunden 15 Minuten")
_UNITS_AFTER = (
    rf"(?:\s?{_UNIT}(?:\s(?:(?:and|und|et|e|y|en|och|og|a|i)\s)?[0-9]{{1,2}}\s?{_UNIT}"
    rf"|\s(?![xX]\s)[^\W\d_]{{1,15}}(?=\s?[×✕⨉·÷+−=]))?)?"
)
_AMOUNT = (
    rf"(?>{_DATE}|(?:[{CURRENCY_SYMBOLS}]|R\$|{_CODE})?\s?(?:{_NUMBER})"
    rf"{_UNITS_AFTER}(?:{_PER})?)"
)
_OPERAND = rf"(?>{_AMOUNT}{_ASIDE})"
# Signs that are also dashes, slashes and colons in prose count only set apart by spaces.
# "15 % of €540": a percentage of an amount, in words
_OF = "of|von|vom|de|du|des|del|di|della|da|do|dos|van|av|af|z|ze|от|від"
# A sign does not reach across a line: "= 37 500 zł" then "- 15% z 37 500 zł" is a list
_OPERATOR = (
    rf"(?:[^\S\n]?(?:[×✕⨉·÷+−]|(?<=[^\S\n])[xX/:\-–](?=\s))[^\S\n]?"
    rf"|(?<=[%％])\s(?:{_OF})\s)"
)
_EXPRESSION = rf"{_OPERAND}(?:{_OPERATOR}{_OPERAND}){{0,5}}"
_EQUALS = r"\s?([=＝≈≒])\s?"
_EQUATION = re.compile(
    rf"(?<![.,/\u00a0\u202f'-])(?<![^\W{CJK}])(?<![0-9]\x20)"
    rf"{_EXPRESSION}(?:{_EQUALS}{_EXPRESSION}){{1,4}}(?![0-9])"
)
_SIGNS = re.compile("[=＝≈≒]")
# A result and then its working in parentheses: "460 zł (2 000 × 0,23)"; read from each
# opening parenthesis an operator follows closely, the result just before it
_PARENTHESES = re.compile(r"[(（](?=[^()（）\n]{0,80}[×✕⨉·÷+−])")
_WORKING = re.compile(rf"[(（]\s?(?P<working>{_OPERAND}(?:{_OPERATOR}{_OPERAND}){{1,5}})\s?[)）]")
# and a word or two between ("税込30,000円です（6人 × 5,000円）", "360 € au maximum (2 × 180 €)")
# but no word of what is left: "€1,879 left over (€899 + €240 + €740)" is no remainder
_LEFT = (
    "left|remaining|remains|übrig|verbleiben|restant|reste|restan|quedan|sobran|restano|"
    "avanzano|sobra|kvar|tilbage|igjen|igen|zostaje|zostało|zbývá|zůstává|осталось|"
    "останется|залишилось|kaldı|残り|剩|남은|남아"
)
_RESULT_BEFORE = re.compile(
    rf"(?<![^\W{CJK}])(?P<result>{_AMOUNT})(?:\s?[^\W\d_]{{1,12}}){{0,2}}\s?\Z"
)
_LEFT_WORD = re.compile(rf"(?<![^\W\d_])(?:{_LEFT})", re.IGNORECASE)
BEFORE = 40  # characters before a parenthesis its result may take
# A list of times or dates, as a cycle or a schedule runs: "08:22, 08:42, 09:02", "20 Jan,
# 3 Feb, 17 Feb, then 3 March"
_WHEN = rf"(?:{_DATE}|[0-9]{{1,2}}:[0-9]{{2}}(?![0-9]))"  # not "4.30", a price too
_THEN = (
    r"(?:\s?[,;、→]\s?(?:(?:then|dann|puis|luego|poi|depois|daarna|potem|sedan|deretter|"
    r"pak|потом|потім|sonra|然后|その後)\s)?"
    r"|\s(?:and|und|et|y|e|en|i|og|och|a|и|і|ve|then|dann|puis|luego|poi|depois|daarna|"
    r"potem|sedan|deretter|pak|потом|потім|sonra)\s)"
)
_SEQUENCE = re.compile(rf"(?<![0-9.:]){_WHEN}(?:{_THEN}{_WHEN}){{1,11}}")
# Where a list may go on: a separator and a number soon after it (lists are read near one)
_LISTS = re.compile(r"[,;、→]\s?(?:[^\W\d_]{1,10}\s)?[0-9]")
LIST_WINDOW = 60  # characters read on each side of a separator a number follows
_ONE_WHEN = re.compile(_WHEN)
_SPLIT_EQUALS = re.compile(_EQUALS)
_SPLIT_OPERATOR = re.compile(f"({_OPERATOR})")
_ADDS, _SUBTRACTS, _DIVIDES = frozenset("+"), frozenset("−-–"), frozenset("÷/:")
_RANGES = frozenset("-–")  # between two times of day: from the first to the second
_LISTED = frozenset("-–:")  # after a list's number: "Teil 2 – 30 × 4/5"
_APPROXIMATE = frozenset("≈≒")
# A running calculation that goes on after a comma, from its last result: "35 × $24 = $840
# per month, × 12 = $10,080" is "$840 per month × 12"
_GOES_ON = re.compile(r"(?<=[0-9\w%])\s?[,;]\s?(?=[×✕⨉·÷]\s?[0-9])")
_FACTOR_AFTER = re.compile(r"[×✕⨉·]\s?([0-9]{1,3})(?![0-9.,])")
_EMPHASIS = re.compile(r"[*_~]+")  # bold and italics around a figure: "= *$16,650*"
_FRACTION = re.compile(r"^([0-9]{1,3})/([0-9]{1,3})$")
_NOT_UNIT = re.compile(r"[0-9\s.,:'/\u00a0\u202f]+")
_PER_UNIT = re.compile(rf"{_PER}$")
_DECIMALS = re.compile(r"[.,]([0-9]+)$")
_MULTIPLIED = re.compile(r"[0-9]\s?(?:k|K|M|bn|Mio|Mrd|千|万|萬|億|억|만)")  # "$37.6k"
WINDOW = 300  # characters read on each side of an equals sign
MAX_RUNS = 30  # runs of calculations, and lists of times, read per answer and its claims
MAX_WHENS = 50  # times and dates a list's first may follow
MAX_COMBINATIONS = 81  # readings of the operands tried together
MAX_TRIES = 500  # readings of calculations tried per answer and its claims
ROUNDING = Fraction(1, 100)  # "=": a rounded result is at most this share of the value off
APPROXIMATE = Fraction(5, 100)  # "≈": the same, for a result written as approximate
# Bare numbers the calendar and the units give: one, working days and days of a week,
# months, hours of a day, days of a month, weeks of a year, minutes, percent, days of a
# year, thousands. A bare number only: "12 km" is a figure, given or not.
CALENDAR = frozenset(map(Fraction, (1, 5, 7, 12, 24, 30, 31, 52, 60, 100, 365, 366, 1000)))
DAY = Fraction(86400)
_DAY_UNITS = frozenset({DAY, Fraction(604800)})  # durations counted in days
# Hundredths of a currency, which a result may give in the currency itself
_SUBUNITS = frozenset(
    "c ct cent cents centavos céntimos centimes centesimi öre øre grosz groszy haléřů "
    "копеек коп копійок".split()
)

# kind, value, seconds per unit written (durations). Kinds of operands: the figures'
# ("money", "duration", "size", "percent", "time", "date", "day"), "months" (a number of
# calendar months), "figure" (a given figure read as a number: "72 km", "240"), "given"
# (a count the texts give or a step worked out), "calendar" (a bare number of CALENDAR)
# and "bare" (a count nothing gives).
Reading = tuple[str, Fraction, Fraction | None]
# kind and value of a term or result: the figures' kinds; "days" (a duration counted in
# days, which a date may be shifted by); "share" (a percentage added or taken off); and
# numbers: "plain" (every operand given, at least one not the calendar's), "figured" (a
# given figure times or divided by bare counts), "calendar" (the calendar's alone),
# "count" (with bare counts), "written" (a figure's number as written: "30 Urlaubstage ×
# 4/5 = 24") and "ratio" (a figure divided by one of its kind: "€300 ÷ €1,200").
Value = tuple[str, Fraction]
_NUMBERS = ("count", "calendar", "ratio", "written", "figured", "plain")  # weakest first
_BARE_RESULTS = frozenset({"count", "calendar", "ratio", "written"})  # equal a bare number
_MEASURED = ("money", "duration", "size")
# The units of time a count of them is stated in, in seconds
_TIME_SCALES = tuple(map(Fraction, (60, 3600, 86400, 604800, 2592000, 31536000)))
# A day, a week, a month and a year, in seconds: what the calendar's numbers work out to
_CALENDAR_SPANS = frozenset(Fraction(86400 * days) for days in (1, 7, 365))
_STATED_SPANS = frozenset(map(Fraction, (28, 29, 30, 31, 366)))  # when the text says so
_COUNTS = ("given", "figure", "calendar", "percent", "bare")
# Operands that stand alone as a term: a time of day, a date, a number of calendar
# months, and a percentage, added or taken off as a share
_ALONE = {
    "time": "time",
    "date": "date",
    "day": "day",
    "months": "months",
    "percent": "share",
    "whole": "whole",
}
_DATED = frozenset({"date", "day"})
_READ = frozenset({"money", "duration", "size", "percent", "number", "time"})  # figures' kinds
_OWN_ARITHMETIC = frozenset({"duration", "time", "percent", "date", "day", "months", "whole"})
WHOLE = frozenset({("percent", "100")})  # "100 %": the whole, which given shares add to


class Units(NamedTuple):
    """What an expression's result may be written in: the unit its terms share when it
    adds them ("" when it does not, or they have none), the units of its operands that are
    figures read as numbers ("190 km"), and the currency of its amounts ("€")."""

    shared: str
    figures: frozenset[str]
    currency: str


@dataclass
class Calculator:
    """Reads the calculations of one answer and its claims against the figures given,
    within one budget of readings, each operand's figure read once."""

    known: Known
    left: int = MAX_TRIES
    runs: int = MAX_RUNS
    # results of calculations that were read and do not hold: a slip shown to the reader,
    # whatever else might explain the figure ("3 × €180 × 2 = €360" is no "2 × €180")
    refuted: set[Key] = field(default_factory=set)
    # the working of calculations that hold ("100 % − 99,9 %", "2 000 zł × 0,23"): what a
    # claim writes there is vouched for by the calculation, and read as a claim nowhere else
    held: set[str] = field(default_factory=set)
    _figures: dict[str, tuple[frozenset[Key] | None, bool]] = field(default_factory=dict)
    zones: set[Fraction] = field(default_factory=set)  # offsets from UTC given or written
    _counts: dict[str, frozenset[Fraction]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.zones |= self.known.zones

    def shown(
        self, text: str, worked: frozenset[Key] = frozenset(), *, lists: bool = True
    ) -> frozenset[Key]:
        """The keys of the results that hold of the calculations `text` writes out, and of
        its lists of times and dates (`lists`: read once, with the answer); `worked` are
        results shown before it (elsewhere in the answer), which its steps may use."""
        results: set[Key] = set()
        bare: list[tuple[str, str, str, frozenset[str] | None]] = []  # results written bare
        self.zones |= zones(text)  # the answer's own: "Novosibirsk is UTC+7"
        plain = _GOES_ON.sub(_goes_on, _EMPHASIS.sub("", percent_last(text)))
        for run in _runs(plain):
            if self.runs <= 0 or self.left <= 0:
                break
            self.runs -= 1
            parts = _SPLIT_EQUALS.split(run)  # expression, sign, expression, sign, …
            for i in range(0, len(parts) - 2, 2):
                before, sign, after = parts[i], parts[i + 1], parts[i + 2]
                result = _SPLIT_OPERATOR.split(after, maxsplit=1)[0].strip()
                evaluated = written = False
                for expression in self._expressions(before, first=i == 0):
                    approximate = sign in _APPROXIMATE
                    values, units, read = self._evaluate(expression, worked | results)
                    held = self._held(values, result, units, approximate=approximate)
                    evaluated = evaluated or read
                    as_written = _as_written(values, result, units, approximate)
                    written = written or as_written
                    if not held and as_written:  # "26 ÷ 12 × 6 = 13 giorni", 26 giorni given
                        at = plain.find(run)  # the counts stated near the working
                        near = plain[max(at - WINDOW, 0) : at + len(run)].replace(result, " ")
                        held = self._carried(result, expression, worked | results, near)
                    if held and self._wrong_way(expression):
                        held, written = set(), False
                    if held:
                        results |= held
                        self._vouch(expression)
                        found = _bare(values, result, units, approximate=approximate)
                        bare += [(run, expression, n, allowed) for n, allowed in found]
                        break
                else:
                    # worked out, and wrong: not a number written right in a unit the rule
                    # does not carry over ("26 ÷ 12 × 6 = 13 giorni")
                    if evaluated and not written and _SPLIT_OPERATOR.search(before):
                        self.refuted |= {key for figure in claims(result) for key in figure}
        results |= self._worked_after(plain, worked | results)
        in_words = products(plain, self.known, worked | results)
        results |= in_words.keys
        self.held |= in_words.counts
        if lists:
            results |= self._sequences(text, worked | results)
        for run, expression, number, allowed in bare[:MAX_RUNS]:
            at = plain.find(run)
            stated = _stated(plain[max(at - WINDOW, 0) : at], number, allowed)
            results |= {key for key in stated if self._scaled_like(key, number, expression)}
        return frozenset(results)

    def _carried(self, result: str, expression: str, worked: frozenset[Key], text: str) -> set[Key]:
        """The keys of a result of a product or quotient of bare numbers, written in a unit
        that an operand's number is given or worked out in: "13 giorni" for "26 ÷ 12 × 6 =
        13 giorni" where "26 giorni" is given, "144 timer" for "4 × 36 = 144" after "36
        timer"; not "13 ore". Every other number is given, the calendar's, or a count of
        time `text` states ("6 mesi", "fire uker"), but for one count that multiplies (the
        answer's reasoning, the judge's to weigh): not "30 ÷ 8 × 4 = 15 Urlaubstage" with 8
        from nowhere, nor a sum ("30 + 12 = 42 Tage"). Or a day, a week, a month or a
        year in another unit, worked out from the calendar's numbers alone ("365 × 24 =
        8 760 hours", "30 × 24 × 60 = 43 200 min")."""
        numbers = ANY_NUMBER.findall(result)
        parts = [p.strip() for p in _SPLIT_OPERATOR.split(expression)]
        if (
            len(numbers) != 1
            or any(_unit(operand) for operand in parts[0::2])
            or any(sign in _ADDS or sign in _SUBTRACTS for sign in parts[1::2])
        ):
            return set()
        operands = [v for n in ANY_NUMBER.findall(expression) if (v := written_values(n))]
        if len(operands) != len(parts[0::2]):
            return set()
        known = self.known.keys | worked
        bare = [
            (sign, v)
            for sign, v in zip(("×", *parts[1::2]), operands, strict=True)
            if not (v & CALENDAR or any(("number", canonical(n)) in known for n in v))
        ]
        if bare:  # read the text's counts of time only when an operand needs them
            counted = self._counts_of_time(text)
            bare = [(sign, v) for sign, v in bare if not v & counted]
        if any(sign in _DIVIDES for sign, _ in bare) or len(bare) > 1:
            # one count of the answer's, which multiplies
            return set()
        calendar = all(v & CALENDAR for v in operands)
        carried = {
            key
            for figure in claims(result)
            for key in figure
            if key[0] in _MEASURED
            and (
                self._scaled_like(key, numbers[0], expression, worked)
                or (calendar and key[0] == "duration" and self._a_span(key, text))
            )
        }
        # the result's number too, as a later step's operand ("43 200 × 0,1 %")
        return (
            carried | {("number", canonical(w)) for w in written_values(numbers[0])}
            if carried
            else set()
        )

    def _a_span(self, key: Key, text: str) -> bool:
        """Whether a duration is a day, a week or a common year, or a month of the length
        `text` states ("Mois de 31 jours : 31 × 24 × 60"; not "Avril compte 31 × 24", nor a
        year of 366 days nobody named)."""
        seconds = Fraction(key[1])
        if seconds in _CALENDAR_SPANS:
            return True
        days = seconds / 86400
        return days in _STATED_SPANS and days in self._counts_of_time(text)

    def _counts_of_time(self, text: str) -> frozenset[Fraction]:
        """The counts of units of time `text` states ("6 mesi", "fire uker", "3 days"), read
        once per text."""
        if text not in self._counts:
            self._counts[text] = self._read_counts(text)
        return self._counts[text]

    @staticmethod
    def _read_counts(text: str) -> frozenset[Fraction]:
        return frozenset(
            Fraction(raw) / scale
            for figure in itertools.islice(claims(text), MAX_WHENS)
            for kind, raw in figure
            if kind == "duration"
            for scale in _TIME_SCALES
            if (Fraction(raw) / scale).denominator == 1
        )

    def _scaled_like(
        self, key: Key, number: str, expression: str, worked: frozenset[Key] = frozenset()
    ) -> bool:
        """Whether a figure stated with a bare result's number is in the unit an operand's
        number is given in: "150 hodin" for "200 × 30/40 = 150" where "200 hodin" is given,
        not "150 dní"."""
        kind, raw = key
        value = key_value(kind, raw)
        if kind not in _MEASURED or value is None:
            return kind != "number"
        written = sorted(written_values(number))
        if not written or not written[0]:
            return False
        scale = value / written[0]
        operands = [min(v) for n in ANY_NUMBER.findall(expression) if (v := written_values(n))]
        return any((kind, canonical(n * scale)) in self.known.keys | worked for n in operands)

    def _worked_after(self, text: str, worked: frozenset[Key]) -> set[Key]:
        """The results that hold of working written after them in parentheses ("VAT is
        460 zł (2 000 × 0,23)"); one that does not hold refutes nothing: the parentheses may
        hold something else."""
        found: set[Key] = set()
        for opening in _PARENTHESES.finditer(text):
            if self.runs <= 0 or self.left <= 0:
                break
            self.runs -= 1  # each parenthesis tried is a run, held or not
            working = _WORKING.match(text, opening.start())
            result = _RESULT_BEFORE.search(text, max(opening.start() - BEFORE, 0), opening.start())
            if working is None or result is None or _LEFT_WORD.search(result.group()):
                continue
            values, units, _ = self._evaluate(working["working"], worked | found)
            held = self._held(values, result["result"].strip(), units, approximate=False)
            if held:
                found |= held
                self._vouch(working["working"])
        return found

    def _sequences(self, text: str, worked: frozenset[Key]) -> set[Key]:
        """The times and dates of a list that follow a sourced one by one step the texts
        give as a duration ("every 20 minutes": "08:22, 08:42, 09:02" after a first update
        at 08:22; "every two weeks": "20 Jan, 3 Feb, 17 Feb"), the same step all along the
        list. A list's first may follow a time or date given shortly before it ("first
        response by 14:25, then every 30 minutes: 14:55, 15:25"). A date steps by two days
        or more: a day later is a slip, not a cycle."""
        steps = {Fraction(raw) for kind, raw in self.known.keys if kind in STEPS}
        sourced: set[Key] = set()
        for m in _near(text, _LISTS, _SEQUENCE, LIST_WINDOW):
            if self.runs <= 0:
                break
            self.runs -= 1
            before = self._anchors(text[max(m.start() - WINDOW, 0) : m.start()], worked)
            step: Fraction | None = None  # the list's one step, once taken
            for item in _ONE_WHEN.finditer(m.group()):
                keys, values = _when(item.group())
                given = bool(keys) and (self.known.confirms(keys) or bool(keys & worked))
                taken = {d for a in before for b in values if (d := _step(a, b)) in steps}
                if step is not None:
                    taken &= {step}
                if given or len(taken) == 1:
                    sourced |= keys
                    step = next(iter(taken)) if taken and not given else step
                    before = values
                else:
                    before, step = set(), None
        return sourced

    def _anchors(self, text: str, worked: frozenset[Key]) -> set[Value]:
        """The values of the times and dates `text` gives or works out."""
        anchors: set[Value] = set()
        for item in itertools.islice(_ONE_WHEN.finditer(text), MAX_WHENS):
            keys, values = _when(item.group())
            if keys and (self.known.confirms(keys) or keys & worked):
                anchors |= values
        return anchors

    def _expressions(self, expression: str, *, first: bool) -> Iterator[str]:
        """The expression; and, at a run's start, without a list's number before a dash
        or colon ("Teil 2 – 30 Urlaubstage × 4/5 = 24"), or without what comes before a
        colon set apart ("20 jours : 20 × 9,50 €")."""
        yield expression
        if not first:
            return
        parts = _SPLIT_OPERATOR.split(expression)
        listed = len(parts) > 2 and parts[1].strip() in _LISTED
        if listed and self.figure(parts[0].strip())[0] is None and not _unit(parts[0]):
            yield "".join(parts[2:])
        colons = [i for i in range(1, len(parts), 2) if parts[i].strip() == ":"]
        if colons:  # French sets a colon apart: "Sur 20 jours : 20 × 9,50 € = 190 €"
            yield "".join(parts[colons[-1] + 1 :])

    def figure(self, operand: str) -> tuple[frozenset[Key] | None, bool]:
        """The operand's figure (None for a count) and whether the texts give it."""
        if operand not in self._figures:
            figure = next(claims(operand), None)
            given = figure is not None and (
                bool(figure & self.known.keys)  # a number as written: not 13 for 14 − 1
                if all(kind == "number" for kind, _ in figure)
                else self.known.confirms(figure)
                or self.known.stepped(figure)
                or self.known.ends(figure)
            )
            self._figures[operand] = (figure, given)
        return self._figures[operand]

    def _evaluate(self, expression: str, worked: frozenset[Key]) -> tuple[set[Value], Units, bool]:
        """What an expression may come to, over the readings of its operands; its units;
        and whether it was worked out from given figures, so that a result it does not
        come to is a slip: it comes to something, or it mixes units or currencies ("2 ×
        €14 + $28 = $56"). A product the rule does not compute (money times a duration
        with no rate given per its unit) refutes nothing."""
        parts = _SPLIT_OPERATOR.split(expression)
        operands, signs = [p.strip() for p in parts[0::2]], [p.strip() for p in parts[1::2]]
        readings = [self._readings(operand, worked) for operand in operands]
        units = _units(operands, signs, readings) if all(readings) else None
        if units is None:  # read, but in two units or currencies: no calculation
            return set(), Units("", frozenset(), ""), all(readings)
        values: set[Value] = set()
        for combination in itertools.islice(itertools.product(*readings), MAX_COMBINATIONS):
            self.left -= 1
            if self.left < 0:
                break
            values.update(_calculate(combination, signs, self.known))
        return values, units, bool(values)

    def _readings(self, operand: str, worked: frozenset[Key]) -> list[Reading]:
        """What an operand may stand for: a fraction ("4/5"), a count, or a figure given or
        worked out before, in each of its forms (a duration in seconds, with the unit it is
        written in; a date; a number of months). Nothing if it is a figure nothing gives."""
        fraction = _FRACTION.match(operand)
        if fraction:  # given when both its numbers are: "4/5" for 4 days of a 5-day week
            parts = (Fraction(int(fraction.group(1))), Fraction(int(fraction.group(2))))
            kinds = [self._count(part, operand, worked) for part in parts]
            if not parts[1] or any(
                n >= 10 and k == "bare" for n, k in zip(parts, kinds, strict=True)
            ):
                return []
            kind = "bare" if "bare" in kinds else "given"
            return [(kind, parts[0] / parts[1], None)]
        figure, given = self.figure(operand)
        numbers = ANY_NUMBER.findall(operand)
        written = sorted(written_values(numbers[0])) if numbers else []
        if figure is None:  # a count
            return [(self._count(value, operand, worked), value, None) for value in written[:2]]
        if not (given or figure & worked):
            if figure == WHOLE:  # "100 % − 99,9 %": only as the whole, less given shares
                return [("whole", Fraction(1), None)]
            return (
                _calendar(operand, figure)
                or self._factor(operand, figure)
                or self._shift_of_zones(operand, figure, written)
            )
        found: list[Reading] = _dated(figure)
        for kind, raw in sorted(figure)[:3]:
            value = key_value(kind, raw)
            if value is None or kind not in _READ:
                continue
            if kind == "duration":
                found += [(kind, value, value / w) for w in written[:2] if w]
            elif kind == "size" and _unit(operand) in self.known.per:  # "4.000 GB × 0,023 $"
                found += [(kind, value, None), *(("figure", w, None) for w in written[:1])]
            elif kind == "percent":
                found.append((kind, value / 100, None))
            else:
                found.append(("figure" if kind == "number" else kind, value, None))
        return found

    def _wrong_way(self, expression: str) -> bool:
        """Whether a time converted to another zone by a difference of offsets is moved the
        wrong way: a time the texts give with the offset written beside it (17:00 at
        UTC+2), shifted to no offset given ("+ 1 h" to UTC+3, where Berlin's UTC+1 was
        meant)."""
        parts = [p.strip() for p in _SPLIT_OPERATOR.split(expression)]
        if len(parts) != 3 or parts[1] not in (*_ADDS, *_SUBTRACTS):
            return False
        time, shift = self.figure(parts[0])[0], self.figure(parts[2])
        if time is None or shift[0] is None or shift[1]:
            return False  # a shift the texts give is no conversion
        times = {key_value(kind, raw) for kind, raw in time if kind == "time"}
        offsets = {
            Fraction(raw) for kind, raw in shift[0] if kind == "duration" and Fraction(raw) < 86400
        }
        sign = -1 if parts[1] in _SUBTRACTS else 1
        given = {zone for value, zone in self.known.zoned if value in times}
        return bool(given and offsets) and not any(
            zone + sign * offset in self.zones for zone in given for offset in offsets
        )

    def _shift_of_zones(
        self, operand: str, figure: frozenset[Key], written: list[Fraction]
    ) -> list[Reading]:
        """A duration that is the difference of two offsets from UTC the texts or the answer
        give ("UTC+7" and "UTC+3": "+ 4 h"), as a given one."""
        differences = {abs(a - b) for a in self.zones for b in self.zones if a != b}
        return [
            ("duration", value, value / w)
            for kind, raw in sorted(figure)
            if kind == "duration" and (value := Fraction(raw)) in differences
            for w in written[:2]
            if w
        ]

    def _factor(self, operand: str, figure: frozenset[Key]) -> list[Reading]:
        """A bare number that is a given percentage, or one plus or minus it, as a given
        count ("× 0,20" for 20% VAT, "× 0,9" for 10% off, "× 1,21" for VAT added, "1.5 ×"
        for 50% more)."""
        percents = self.known.pools.get("percent", frozenset())
        if _unit(operand) or any(kind not in ("number", "time") for kind, _ in figure):
            return []  # "0.20" is also a time, 00:20
        return [
            ("given", value, None)
            for kind, raw in figure
            if kind == "number"
            and 0 < (value := Fraction(raw)) != 1
            and (abs(value - 1) * 100 in percents or value * 100 in percents)
        ]

    def _vouch(self, expression: str) -> None:
        """Keeps the working of a calculation that holds, when it has a sign of its own."""
        if _SPLIT_OPERATOR.search(expression):
            self.held.add(expression.strip())

    def unvouched(self, claim: str) -> str:
        """`claim` with the working of calculations that hold blanked out: its operands were
        each given, worked out or read as what the working allows (100 % less given shares,
        a given percentage as a factor, a cycle's step, a month's end), so they are no
        claims of their own; anywhere else in the claim, or in another claim, they are."""
        text = percent_last(claim)  # emphasis kept: "2026 *€40k*" is no €2026
        for expression in sorted(self.held, key=len, reverse=True):
            text = text.replace(expression, " " * len(expression))
        return text

    def _count(self, value: Fraction, operand: str, worked: frozenset[Key]) -> str:
        """A count's kind: given (a figure when written with a unit: "7 km"; and one, which
        counts a day in, or one used: "4 − 1 = 3 dni"), the calendar's (a bare number
        only), or bare."""
        key = ("number", canonical(value))
        if key in self.known.keys or key in worked or (value == 1 and not _unit(operand)):
            return "figure" if _unit(operand) else "given"
        return "calendar" if value in CALENDAR and not _unit(operand) else "bare"

    def _held(
        self, values: set[Value], result: str, units: Units, *, approximate: bool
    ) -> set[Key]:
        """The keys of a result that a value of its calculation comes to (`_comparable`
        says which kinds compare)."""
        unit = _unit(result)
        if units.shared and not unit.startswith(units.shared):
            return set()
        dated = {value for value in values if value[0] in _DATED}
        if dated:
            return self._dates_held(dated, result)
        numbers = ANY_NUMBER.findall(result)
        if not numbers:
            return set()
        readings = [(w, _decimals(numbers[0], w)) for w in sorted(written_values(numbers[0]))]
        keys = [
            (kind, raw, target)
            for found in claims(result)
            for kind, raw in found
            if (target := key_value(kind, raw)) is not None
        ]
        if any(kind == "money" for kind, _, _ in keys) and not _same_currency(units, result):
            return set()
        multiplied = _MULTIPLIED.search(result) is not None
        percent = "%" in result or "％" in result
        held: set[Key] = set()
        for kind, value in values:
            for rkind, raw, target in keys:
                if not _comparable(kind, rkind, unit, units):
                    continue
                shown = value * 100 if percent and kind in _NUMBERS else value
                if shown == target or (
                    rkind != "time"
                    and any(
                        _close(shown * scale, w, d, approximate)
                        for w, d in readings
                        if w and (scale := _scale(target, w, rkind, multiplied))
                    )
                ):
                    held.add((rkind, raw))
            if _any_unit(kind, unit, units, read=any(k != "number" for k, _, _ in keys)):
                for w, d in readings:
                    if _close(value, w, d, approximate):
                        held.add(("number", canonical(w)))
                        held.update((k, raw) for k, raw, t in keys if t == w or len(keys) == 1)
        return held

    def _dates_held(self, values: set[Value], result: str) -> set[Key]:
        """The keys of a date result that a date calculation comes to: the same date, or
        the same day of the month when either is written without its year (a day of a
        month shifted to a date with a year: a year the texts give)."""
        found = {key for figure in claims(result) for key in figure}
        held: set[Key] = set()
        for kind, value in values:
            iso = datetime.date.fromordinal(int(value)).isoformat()
            for key in found:
                dated = key[0] == "date" and kind == "day" and key[1][5:] == iso[5:]
                if key in (("date", iso), ("day", iso[5:])) or (
                    dated and ("number", key[1][:4]) in self.known.keys
                ):
                    held.add(key)
        return held


def _as_written(values: set[Value], result: str, units: Units, approximate: bool) -> bool:
    """Whether a value that is a number is the result's number as written, and an amount
    keeps its currency ("600 € ÷ 12 = 50 $" is wrong)."""
    numbers = ANY_NUMBER.findall(result)
    kinds = {kind for figure in claims(result) for kind, _ in figure}
    if not numbers or ("money" in kinds and not _same_currency(units, result)):
        return False
    if kinds & {kind for kind, _ in values} & set(_MEASURED):
        return False  # compared in its own kind, and wrong: "30 Urlaubstage × 4/5 = 24 h"
    named, unit = units.figures - {""}, _unit(result)  # "30 Urlaubstage × 4/5 = 24 Stunden"
    if named and unit and not any(unit.startswith(u) or u.startswith(unit) for u in named):
        return False
    return any(
        _close(value, w, _decimals(numbers[0], w), approximate)
        for kind, value in values
        if kind in _NUMBERS
        for w in written_values(numbers[0])
    )


def _bare(
    values: set[Value], result: str, units: Units, *, approximate: bool
) -> list[tuple[str, frozenset[str] | None]]:
    """A result written as a bare number that holds ("takže 200 × 30/40 = 150"), with the
    units it may be stated in elsewhere (`_any_unit`: any, None, for given figures alone;
    their own for a given figure by counts): [] for any other result."""
    numbers = ANY_NUMBER.findall(result)
    if _unit(result) or len(numbers) != 1 or result.strip() != numbers[0]:
        return []
    written = [(w, _decimals(numbers[0], w)) for w in written_values(numbers[0])]
    matched = {
        kind for kind, value in values for w, d in written if _close(value, w, d, approximate)
    }
    if "plain" in matched:
        return [(numbers[0], None)]
    if "figured" in matched and "" not in units.figures:
        return [(numbers[0], units.figures)]
    return []


def _stated(text: str, number: str, units: frozenset[str] | None) -> set[Key]:
    """The keys of the figures `text` (what comes just before the working) states with the
    bare result `number` and a unit it may carry: "**150 hodin** ročně … 200 × 30/40 = 150"
    (the result first, the working after); not one stated after it ("8 × 5 = 40. Give 40
    days' notice")."""
    keys: set[Key] = set()
    pattern = rf"(?<![0-9.,]){re.escape(number)}(?![0-9]|[.,][0-9])\s?[^\W\d_]{{1,15}}"
    for m in itertools.islice(re.finditer(pattern, text), MAX_WHENS):
        if units is None or _unit(m.group()) in units:
            keys |= {key for figure in claims(m.group()) for key in figure}
    return keys


def _goes_on(m: re.Match[str]) -> str:
    """A comma a running calculation goes on after, read as a space; kept where the
    result before it is per one period and the factor after it makes another in a ratio
    the calendar does not give ("1.500 € pro Quartal, × 12 = 18.000 € im Jahr": a year is
    four quarters; "$90 per week, × 4 = $360 per month": a month is no whole number of
    weeks)."""
    text = m.string
    factor = _FACTOR_AFTER.match(text, m.end())
    ratio = periods_ratio(text[: m.start()], text[m.end() :])
    if factor and ratio != 1 and Fraction(factor.group(1)) != ratio:
        return m.group()  # "$90 per week, × 4 = … per month": no ratio of the calendar's
    return " "


def _runs(text: str) -> Iterator[str]:
    """Each run of expressions joined by equals signs, read only near the signs."""
    return (m.group() for m in _near(text, _SIGNS, _EQUATION, WINDOW))


def _near(
    text: str, marks: re.Pattern[str], pattern: re.Pattern[str], window: int
) -> Iterator[re.Match[str]]:
    """The matches of `pattern` within `window` characters of a match of `marks`: a
    pattern that is costly to try everywhere is tried only where it can match."""
    windows: list[list[int]] = []
    for m in marks.finditer(text):
        start, end = max(m.start() - window, 0), m.end() + window
        if windows and start <= windows[-1][1]:
            windows[-1][1] = end
        else:
            windows.append([start, end])
    for start, end in windows:
        yield from pattern.finditer(text, start, min(end, len(text)))


def _units(
    operands: Sequence[str], signs: Sequence[str], readings: Sequence[list[Reading]]
) -> Units | None:
    """The expression's units, or None when its terms are written in two units ("45 mi +
    12 km") or its amounts in two currencies ("2 × €14 + $28"). Times, durations,
    percentages and dates have their own arithmetic ("1 h + 30 min", "11월 3일 + 7일"), and a
    term that is a product carries no unit of its own."""
    currencies = {
        _currency(operand)
        for operand, found in zip(operands, readings, strict=True)
        if any(kind == "money" for kind, _, _ in found)
    }
    if len(currencies) > 1:
        return None
    figures = frozenset(
        _unit(operand)
        for operand, found in zip(operands, readings, strict=True)
        if any(kind == "figure" for kind, _, _ in found)
    )
    currency = next(iter(currencies), "")
    adds = any(sign in _ADDS or sign in _SUBTRACTS for sign in signs)
    if not adds or any(kind in _DATED for found in readings for kind, _, _ in found):
        return Units("", figures, currency)
    alone = [True] * len(operands)  # operands that are a term by themselves
    for i, sign in enumerate(signs):
        if not (sign in _ADDS or sign in _SUBTRACTS):
            alone[i] = alone[i + 1] = False
    shared = {
        _unit(operand)
        for operand, single, found in zip(operands, alone, readings, strict=True)
        if single and not any(kind in _OWN_ARITHMETIC for kind, _, _ in found)
    } - {""}
    return None if len(shared) > 1 else Units(next(iter(shared), ""), figures, currency)


def _unit(operand: str) -> str:
    """What an operand is written with besides its number: "€", "km", "chf", "kr"."""
    return _NOT_UNIT.sub("", operand).casefold().rstrip(".")


def _currency(operand: str) -> str:
    """An amount's currency as written: its unit without a rate's "per km"."""
    return _unit(_PER_UNIT.sub("", operand))


def _same_currency(units: Units, result: str) -> bool:
    """Whether an amount's result is in the currency of the amounts it comes from (cents
    may make euros: "240 km × 30 Cent = 72 €")."""
    if not units.currency or units.currency in _SUBUNITS:
        return True
    currency = _currency(result)
    return currency.startswith(units.currency) or units.currency.startswith(currency)


def _comparable(kind: str, result: str, unit: str, units: Units) -> bool:
    """Whether a value of `kind` may equal a result key of kind `result` written with
    `unit`: one of its kind; a number as `_any_unit` says, and the others only a bare
    number ("9 + 9 + 6" is not "24 km", "€1,200 ÷ €300" not "€4"); a number equals a
    percentage written with its sign ("€300 ÷ €1,200 = 25%")."""
    if kind == result:
        return True
    if result == "percent":
        return kind in _NUMBERS
    if result != "number":
        return False
    return _any_unit(kind, unit, units, read=False) or (kind in _BARE_RESULTS and not unit)


def _any_unit(kind: str, unit: str, units: Units, *, read: bool) -> bool:
    """Whether a number of `kind` may be written with `unit`: given counts alone, with any
    unit ("32 ÷ 8 = 4 giorni"); a given figure by bare counts, with its own unit ("2 × 190
    km = 380 km"), or, for a figure written bare, with a unit the rule does not `read`
    ("64 ÷ 4 = 16 台"; not "30 ÷ 8 × 4 = 15 Urlaubstage", which it reads as days)."""
    if kind != "figured":
        return kind == "plain"
    return not unit or unit in units.figures or ("" in units.figures and not read)


def _calculate(readings: Sequence[Reading], signs: Sequence[str], known: Known) -> list[Value]:
    """The values of one reading of an expression: products and quotients first, then sums
    from the left."""
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
    """The values of a product and its quotients; a time, a date, a number of months or a
    percentage standing alone as itself."""
    if len(factors) == 1 and not divisors and factors[0][0] in _ALONE:
        kind, value, _ = factors[0]
        return [(_ALONE[kind], value)]
    operands = {kind for kind, _, _ in (*factors, *divisors)}
    number = "count"
    if "bare" in operands and "figure" in operands:
        number = "figured"
    elif "bare" not in operands and operands & {"given", "figure"}:
        number = "plain"
    elif operands == {"calendar"}:
        number = "calendar"
    values = _quotient(_product(factors, known), divisors)
    days = [
        ("days", value / 86400)
        for kind, value in values
        if kind == "duration" and value % 86400 == 0 and _in_days(factors)
    ]
    return [(number if kind == "plain" else kind, value) for kind, value in values] + days


def _in_days(factors: list[Reading]) -> bool:
    """Whether a product's duration is counted in days or weeks ("3 × 7 dagar"), which a
    date may be shifted by; not months or years read as days."""
    return all(unit in _DAY_UNITS for kind, _, unit in factors if kind == "duration")


def _product(factors: list[Reading], known: Known) -> list[Value]:
    """The kind and value of a product, if it is one the rule checks: at most one amount,
    duration or size, no factor of one, and time times money only through a rate given per
    that unit ("$40 per hour" for hours, not "90 minutes × $40"), or as the days of whole
    days or weeks times an amount given per day or per nothing read ("4 días × 53,34 €",
    "2 weeks × €45 per day = €630"; not "3 days × €120 per hour"; which amount a day applies
    is the judge's). Numbers alone are
    "plain" here (`_term` says which they are). A figure times counts is also the number
    it is written with times them ("30 Urlaubstage × 4/5 = 24")."""
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
        return _paid(amount, span, unit, known, scale)
    if len(kinds) == 1:
        kind, value, unit = measured[0]
        written = value / unit if unit else value
        return [(kind, value * scale), ("written", written * scale)]
    return []


def _paid(
    amount: Fraction, span: Fraction, unit: Fraction | None, known: Known, scale: Fraction
) -> list[Value]:
    """An amount times a duration: through a rate given per the unit it is written in, or as
    whole days of an amount given per day or per nothing the rule reads."""
    if unit is not None and (amount, unit) in known.rates:
        return [("money", amount * span / unit * scale)]
    hourly = ("hourly", canonical(amount)) in known.keys  # "Stundenlohn 36 €"
    if unit in _DAY_UNITS and not hourly and {u for a, u in known.rates if a == amount} <= {DAY}:
        return [("money", amount * span / DAY * scale)]
    return []


def _quotient(values: list[Value], divisors: list[Reading]) -> list[Value]:
    """`values` divided by each divisor: by a count, an amount by a number of units of time
    ("€600 ÷ 12 months"), or a figure by one of its kind (a ratio: "€300 ÷ €1,200")."""
    for kind, by, unit in divisors:
        divided: list[Value] = []
        for of, value in values:
            if kind in _COUNTS and by:
                divided.append((of, value / by))
            elif kind == "duration" and of == "money" and unit:
                divided.append((of, value / (by / unit)))
            elif kind == of and kind in _MEASURED and by:
                divided.append(("ratio", value / by))
        values = divided
    return values


def _sum(signs: list[str], terms: list[Value]) -> Value | None:
    """Signed terms added from the left: figures of one kind (numbers of different kinds
    make the weakest), durations added to or taken from a time of day (on the clock), a
    percentage added to or taken off the total so far ("$41,760 − 10% = $37,584"), or
    percentages alone ("25% + 25% = 50%"); a date shifted (`_shift`); the duration between
    two times of day (`_between`). None for any other mix."""
    kinds = [kind for kind, _ in terms]
    if kinds[0] in _DATED and len(terms) > 1:
        return _shift(signs, terms)
    shares = all(kind == "share" for kind in kinds[1:])
    if len(terms) == 1 or kinds == ["time", "time"] or (kinds[0] in ("share", "whole") and shares):
        return _alone(signs, terms)
    if kinds[0] in ("share", "whole") or (
        "time" in kinds and (kinds[0] != "time" or kinds.count("time") > 1)
    ):
        return None
    kind, total = terms[0]
    for sign, (other, value) in zip(signs[1:], terms[1:], strict=True):
        if other == "share":
            total *= 1 + _signed(sign, value)
        elif kind in _NUMBERS and other in _NUMBERS:
            kind = _combined(kind, other)
            total += _signed(sign, value)
        elif other == kind or (kind, other) == ("time", "duration"):
            total += _signed(sign, value)
        else:
            return None
    if kind == "time":
        return kind, total % 86400
    kind = "count" if kind == "calendar" else kind
    return (kind, total) if total > 0 else None


def _combined(kind: str, other: str) -> str:
    """The kind of a sum of two numbers: the weaker. The calendar's numbers are weaker than
    given ones: they convert units in products and prove nothing in sums ("30 + 12 = 42
    Tage"); one is given ("4 − 1 = 3 dni"), and an off-by-one is the judge's."""
    return min(kind, other, key=_NUMBERS.index)


def _alone(signs: list[str], terms: list[Value]) -> Value | None:
    """A term alone (a percentage as itself), two times of day, or percentages summed,
    the first may be the whole, less given shares ("100 % − 99,9 % = 0,1 %"; not "100 % +
    25 % = 125 %", which a share derived from another explained away)."""
    if terms[0][0] == "whole":
        if len(terms) == 1 or any(kind != "share" for kind, _ in terms[1:]):
            return None
        if any(sign not in _SUBTRACTS for sign in signs[1:]):
            return None
        terms = [("share", Fraction(1)), *terms[1:]]
    if terms[0][0] == "time" and len(terms) == 2:
        return _between(signs[1], terms[0][1], terms[1][1])
    if len(terms) == 1:
        kind, value = terms[0]
        return ("percent", value * 100) if kind == "share" else terms[0]
    total = sum((_signed(s, v) for s, (_, v) in zip(signs, terms, strict=True)), Fraction(0))
    return ("percent", total * 100) if total > 0 else None


def _between(sign: str, start: Fraction, end: Fraction) -> Value | None:
    """The duration between two times of day: a range runs forwards, overnight too
    ("22:00 – 06:00" is 8 hours, "9:00 – 17:00" is 8, never 16); a difference is the later
    less the earlier ("17:00 − 9:00")."""
    between = (end - start) % 86400 if sign in _RANGES else start - end
    return ("duration", between) if between > 0 else None


def _shift(signs: list[str], terms: list[Value]) -> Value | None:
    """A date plus or minus whole days (a duration in days or weeks, "2 maj 2025 + 3 × 7
    dagar"; a number the texts give, "11월 3일 + 7일") or calendar months ("31 dicembre
    2024 + 18 mesi"); a day of a month is counted in a common and a leap year's calendar.
    A bare count is no shift: any date is some count of days from another."""
    (kind, start), rest = terms[0], terms[1:]
    day = datetime.date.fromordinal(int(start))
    for sign, (other, value) in zip(signs[1:], rest, strict=True):
        if value.denominator != 1:
            return None
        try:
            if other == "days" or (other in ("plain", "figured") and 0 < value < 10_000):
                day += datetime.timedelta(days=int(_signed(sign, value)))
            elif other == "months":
                day = add_months(day, int(_signed(sign, value)))
            else:
                return None
        except OverflowError:
            return None
    return kind, Fraction(day.toordinal())


def _signed(sign: str, value: Fraction) -> Fraction:
    return -value if sign in _SUBTRACTS else value


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
    written with (with "=", only a result written with decimals, "€85.71"; with "≈", any,
    "≈ €86"), at most ROUNDING of the value off (APPROXIMATE with "≈"; "2" is not 2.4)."""
    if value == written:
        return True
    if not (approximate or decimals):
        return False
    unit = Fraction(1, 10**decimals)
    rounded = math.floor(value / unit + Fraction(1, 2)) * unit
    bound = APPROXIMATE if approximate else ROUNDING
    return rounded == written and abs(value - written) <= abs(value) * bound


def _decimals(number: str, value: Fraction) -> int:
    """The decimals `number` is written with when it is read as `value`: "86.00" has two,
    trailing zeros too; "1.500" read as 1500 has none."""
    m = _DECIMALS.search(number)
    if m is None:
        return 0
    count = len(m.group(1))
    digits = re.sub(r"[^0-9]", "", number)
    return count if Fraction(int(digits), 10**count) == value else 0


def _calendar(operand: str, figure: frozenset[Key]) -> list[Reading]:
    """A bare number the calendar gives ("× 12", "÷ 365") as the calendar's; nothing for
    any other figure nothing gives ("12 km", "12 days")."""
    if _unit(operand) or any(k != "number" or Fraction(r) not in CALENDAR for k, r in figure):
        return []
    return [("calendar", Fraction(raw), None) for _, raw in figure]


def _dated(figure: frozenset[Key]) -> list[Reading]:
    """A figure's readings as a date (its ordinal), a day of a month (in a common and in a
    leap year), or a whole number of calendar months ("18 mesi")."""
    found: list[Reading] = []
    for kind, raw in figure:
        found += [(kind, Fraction(day.toordinal()), None) for day in dates_of(kind, raw)]
        if kind == "span" and (months := months_of(raw)):
            found.append(("months", Fraction(months), None))
    return found


_WHENS = frozenset({"time", "date", "day"})


def _when(item: str) -> tuple[frozenset[Key], set[Value]]:
    """A time or date of a list: its keys, and its values (seconds, or a date's ordinal)."""
    keys = frozenset(key for figure in claims(item) for key in figure if key[0] in _WHENS)
    values: set[Value] = {
        ("time", value)
        for kind, raw in keys
        if kind == "time" and (value := key_value(kind, raw)) is not None  # 00:00 too
    }
    values |= {(kind, value) for kind, value, _ in _dated(keys)}
    return keys, values


def _step(before: Value, after: Value) -> Fraction | None:
    """The duration from one time or date of a list to the next, in seconds (a time of day
    the next day counts on from midnight)."""
    if before[0] != after[0]:
        return None
    if before[0] == "time":
        return (after[1] - before[1]) % 86400 or None
    days = after[1] - before[1]
    return days * 86400 if days >= 2 else None
