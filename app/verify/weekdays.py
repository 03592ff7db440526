"""Weekdays written beside dates, and the dates a rule of weekdays gives.

A model names the weekday of the dates it works out ("Freitag, 26.06.2026", "5月8日（金）",
"30/01/2026 (viernes)"), and a team's rules name dates by weekday ("the first Sunday of
the month", "the previous working day", "the Thursday before each release"). The calendar
settles both: a weekday the calendar contradicts is a slip, whatever else the answer
shows; and a date the answer names with its right weekday is sourced when a rule the
texts give leads to it from a date they give or the answer works out:
- the nth (or last) weekday of its month, where the texts name that weekday with that
  ordinal ("erster Sonntag im März", "第2水曜日", "the last Thursday");
- the working day before or after a given date that falls on a Saturday or Sunday, where
  the texts say which way ("am vorhergehenden Arbeitstag", "le jour ouvré suivant");
- that weekday within the six days before or after a given date, where the texts name
  the weekday and say which way ("the Friday before", "donderdag ervoor").
Holidays are not known: a date moved over one is the judge's.
"""

from __future__ import annotations

import datetime
import functools
import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from app.verify.figures import Key, Known, dated

# Monday is 0, as datetime counts. Full names, their inflected forms and the short forms
# written beside a date; a short form of one or two letters only in brackets after a
# date ("(金)", "(Mo)").
_NAMES: dict[int, str] = {
    0: "monday mon montag lundi lunes segunda-feira segunda lunedì lunedi maandag "
    "poniedziałek poniedziałku måndag måndagen mandag mandagen pondělí pondelok "
    "понедельник понедельника понеділок понеділка pazartesi 月曜日 月曜 星期一 周一 週一 "
    "礼拜一 월요일",
    1: "tuesday tue tues dienstag mardi martes terça-feira terça martedì martedi dinsdag "
    "wtorek wtorku tisdag tisdagen tirsdag tirsdagen úterý utorok вторник вторника "
    "вівторок вівторка salı 火曜日 火曜 星期二 周二 週二 礼拜二 화요일",
    2: "wednesday wed mittwoch mercredi miércoles quarta-feira quarta mercoledì mercoledi "
    "woensdag środa środę środy onsdag onsdagen středa středu streda stredu среда среду "
    "среды середа середу середи çarşamba 水曜日 水曜 星期三 周三 週三 礼拜三 수요일",
    3: "thursday thu thur thurs donnerstag jeudi jueves quinta-feira quinta giovedì giovedi "
    "donderdag czwartek czwartku torsdag torsdagen čtvrtek štvrtok четверг четверга "
    "четвер четверга perşembe 木曜日 木曜 星期四 周四 週四 礼拜四 목요일",
    4: "friday fri freitag vendredi viernes sexta-feira sexta venerdì venerdi vrijdag "
    "piątek piątku fredag fredagen pátek piatok пятница пятницу пятницы п'ятниця "
    "п'ятницю п'ятниці п’ятниця п’ятницю п’ятниці cuma 金曜日 金曜 星期五 周五 週五 "
    "礼拜五 금요일",
    5: "saturday sat samstag sonnabend samedi sábado sabato zaterdag sobota sobotę soboty "
    "lördag lördagen lørdag lørdagen sobotu суббота субботу субботы субота суботу суботи "
    "cumartesi 土曜日 土曜 星期六 周六 週六 礼拜六 토요일",
    6: "sunday sun sonntag dimanche domingo domenica zondag niedziela niedzielę niedzieli "
    "söndag söndagen søndag søndagen neděle neděli nedeľa nedeľu воскресенье "
    "воскресенья неділя неділю неділі pazar 日曜日 日曜 星期日 星期天 周日 周天 週日 "
    "礼拜日 礼拜天 일요일",
}
_SHORT: dict[int, str] = {  # only in brackets after a date
    0: "月 월 mo ma po пн lu",
    1: "火 화 di út вт tu",
    2: "水 수 mi me we st ср wo",
    3: "木 목 do je čt чт th",
    4: "金 금 fr ve vr pá пт",
    5: "土 토 sa so сб za",
    6: "日 일 su dom ne нд вс zo",
}
WEEKDAYS = {name: day for day, names in _NAMES.items() for name in names.split()}
_BRACKETED = {name: day for day, names in _SHORT.items() for name in names.split()}
_BRACKETED |= WEEKDAYS
_NAME = "|".join(re.escape(name) for name in sorted(WEEKDAYS, key=len, reverse=True))
_SHORT_NAME = "|".join(re.escape(name) for name in sorted(_BRACKETED, key=len, reverse=True))
_CJK_NAME = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
# A weekday just before a date: "Freitag, 26.06.2026", "fredag den 22. januar", "le mardi
# 17 mars", "w piątek 08.05.2026", "Thursday, March 5"
_BEFORE = re.compile(
    rf"(?<![^\W\d_])({_NAME})\.?,?\s(?:(?:den|der|the|el|il|le)\s)?\Z", re.IGNORECASE
)
# A weekday just after one: "30/01/2026 (viernes)", "5月8日（金）", "15.03.2026 pazar",
# "2026年3月31日(火)", "16 March, a Monday" is not read
_AFTER = re.compile(
    rf"\s?(?:[(（]\s?({_SHORT_NAME})\.?\s?[)）]|,?\s({_NAME})(?![^\W\d_]))", re.IGNORECASE
)
_WINDOW = 24  # characters before a date a weekday is looked for in
_SHORT_IN_BRACKETS = re.compile(r"[(（]\s?[^\W\d_]{1,3}\.?\s?[)）]")


@dataclass(frozen=True)
class Named:
    """A date written with a weekday: its keys, and the weekday written (0 is Monday)."""

    keys: frozenset[Key]
    weekday: int


def named(text: str) -> list[Named]:
    """The dates of `text` written with a weekday just before or after them."""
    found: list[Named] = []
    if not _weekdays_in(text) and not _SHORT_IN_BRACKETS.search(text):
        return found  # most texts name no weekday: their dates are not read
    for start, end, keys in dated(text):
        before = _BEFORE.search(text, max(start - _WINDOW, 0), start)
        after = _AFTER.match(text, end)
        if before is not None:
            found.append(Named(keys, WEEKDAYS[before.group(1).lower()]))
        elif after is not None:
            short = after.group(1)
            name = (short or after.group(2)).lower()
            day = _BRACKETED.get(name) if short else WEEKDAYS.get(name)
            if day is not None:
                found.append(Named(keys, day))
    return found


def days_of(keys: frozenset[Key], years: Iterable[int]) -> list[datetime.date]:
    """The days a date's keys may be: a date with its year, or a day of a month in each of
    `years`."""
    days: list[datetime.date] = []
    for kind, raw in sorted(keys):
        if kind == "date":
            candidates = [raw]
        elif kind == "day":
            candidates = [f"{year:04d}-{raw}" for year in years]
        else:
            continue
        for candidate in candidates:
            try:
                days.append(datetime.date.fromisoformat(candidate))
            except ValueError:
                continue
    return days


# Ordinals before a weekday: (n, words); -1 is the last
_ORDINALS: dict[int, str] = {
    1: "first erste ersten erster erstes premier première primer primero primera primo "
    "prima eerste pierwszy pierwsza pierwszą pierwszego första første förste první prvý "
    "prvou prvá первый первая первую первое перший перша першу першого ilk birinci 첫째 첫",
    2: "second zweite zweiten zweiter deuxième segundo segunda secondo seconda tweede "
    "drugi druga drugą drugiego andra anden annen andre druhý druhá druhou второй вторая "
    "вторую другий друга другу ikinci 둘째",
    3: "third dritte dritten dritter troisième tercer tercero tercera terceiro terceira "
    "terzo terza derde trzeci trzecia trzecią tredje tredie třetí tretí третий третья "
    "третью третій третя третю üçüncü 셋째",
    4: "fourth vierte vierten vierter quatrième cuarto cuarta quarto quarta vierde "
    "czwarty czwarta czwartą fjärde fjerde čtvrtý štvrtý четвёртый четвертый четвертая "
    "четвертую четвертий четверта четверту dördüncü 넷째",
    -1: "last letzte letzten letzter dernier dernière último última ultimo ultima laatste "
    "ostatni ostatnia ostatnią ostatniego sista siste sidste poslední posledný posledná "
    "последний последняя последнюю последнее останній остання останню son 最後の 最後 "
    "最后一个 最后 마지막",
}
_ORDINAL_WORDS = {word: n for n, words in _ORDINALS.items() for word in words.split()}
_ORDINAL = "|".join(re.escape(w) for w in sorted(_ORDINAL_WORDS, key=len, reverse=True))
# An ordinal just before a weekday: "erster Sonntag", "the 2nd Tuesday", "2e mardi",
# "第2水曜日", "第二个星期三", "둘째 주 수요일", "Mart ayının son cumartesi" (the ordinal and its
# weekday at most one word apart)
_ORDINAL_BEFORE = re.compile(
    rf"(?:(?<![^\W\d_])(?P<word>{_ORDINAL})|(?<![0-9])(?P<digit>[1-4])(?:st|nd|rd|th|\.|e|º|ª)"
    r"|第(?P<cjk>[1-4一二三四])[个個]?)"
    r"\s?(?:[^\W\d_]+\s)?(?:주\s)?\Z",
    re.IGNORECASE,
)
_CJK_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4}
# Which way a rule moves a date off a weekend: to the previous working day or the next
_EARLIER = re.compile(
    r"previous|preceding|prior\b|vorhergehend|vorherig|vorig|précédent|anterior|"
    r"precedente|voorgaande|poprzedni|föregående|forrige|foregående|předchozí|"
    r"предыдущ|предшеств|попередн|önceki|前の|直前|前一|직전|이전",
    re.IGNORECASE,
)
_LATER = re.compile(
    r"\bnext\b|following|nächst|folgend|suivant|siguiente|seguinte|successiv|volgende|"
    r"następn|nästa|följande|neste|følgende|næste|následující|следующ|наступн|sonraki|"
    r"翌|次の|下一|다음",
    re.IGNORECASE,
)
# Which way a weekday is counted from a date: "the Friday before", "donderdag ervoor"
_BEFORE_WORDS = re.compile(
    r"\bbefore\b|\bvor\b|davor|\bavant\b|\bantes\b|\bprima\b|\bvoor\b|ervoor|\bprzed\b|"
    r"\bföre\b|\binnan\b|\bfør\b|\bpřed\b|\bперед\b|\bдо\b|\bönce|前|전",
    re.IGNORECASE,
)
_AFTER_WORDS = re.compile(
    r"\bafter\b|\bnach\b|danach|\baprès\b|\bdespués\b|\bdepois\b|\bdopo\b|\bna\b|\berna\b|"
    r"\bpo\b|\befter\b|\better\b|\bпосле\b|\bпісля\b|\bsonra|後|后|후",
    re.IGNORECASE,
)
# A word as weekdays are written: "segunda-feira", "п'ятниця", "п’ятницю"
_TOKEN = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
_CJK_NAMES = tuple(n for n in WEEKDAYS if _CJK_NAME.match(n))
_CLAUSE = re.compile(r"[.;!?\n]\s|[;\n。；]")
_WEEKEND = re.compile(
    r"weekend|wochenende|week-end|fin de semana|fim de semana|fine settimana|weekendzie|"
    r"\bhelg|víkend|выходн|вихідн|hafta sonu|週末|周末|주말|土日|土曜・日曜",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?<![0-9])(20[0-9]{2})(?![0-9])")
MAX_SHIFT = 6  # days "the Friday before" a date may lie from it
MAX_TOKENS = 2000  # words of the texts read for weekdays (a bound on the work)
_CLAUSE_SPAN = 200  # characters a clause is read in, each side of a weekday


@dataclass(frozen=True)
class Calendar:
    """What the texts (docs and messages) say of weekdays."""

    ordinals: frozenset[tuple[int, int]]  # (n, weekday): "the first Sunday"; n -1: the last
    weekdays: frozenset[int]  # the weekdays they name
    moves: frozenset[tuple[int, int]]  # (Saturday or Sunday, -1 or 1): which way it moves
    before: bool  # a weekday is counted before a date
    after: bool  # … after one
    pairs: frozenset[tuple[frozenset[Key], int]]  # the dates they write with a weekday


def calendar(texts: Sequence[str]) -> Calendar:
    """What `texts` say of weekdays: read from where they name one, or the weekend."""
    joined = "\n".join(texts)
    found = _weekdays_in(joined)
    ordinals = set()
    for start, _, weekday in found:
        m = _ORDINAL_BEFORE.search(joined, max(start - _WINDOW, 0), start)
        if m is None:
            continue
        if m["word"]:
            n = _ORDINAL_WORDS.get(m["word"].lower())
        elif m["digit"]:
            n = int(m["digit"])
        else:
            n = _CJK_DIGITS.get(m["cjk"]) or int(m["cjk"])
        if n is not None:
            ordinals.add((n, weekday))
    named_in = {text for text in texts if _weekdays_in(text)}
    return Calendar(
        frozenset(ordinals),
        frozenset(weekday for _, _, weekday in found),
        _moves(joined, found),
        _BEFORE_WORDS.search(joined) is not None,
        _AFTER_WORDS.search(joined) is not None,
        frozenset((n.keys, n.weekday) for text in named_in for n in named(text)),
    )


def _weekdays_in(text: str) -> list[tuple[int, int, int]]:
    """Where `text` names a weekday, and which: (start, end, weekday)."""
    found = [
        (m.start(), m.end(), WEEKDAYS[word])
        for m in itertools.islice(_TOKEN.finditer(text), MAX_TOKENS)
        if (word := m.group().lower()) in WEEKDAYS
    ]
    if _CJK_NAME.search(text):
        for name in _CJK_NAMES:
            at = text.find(name)
            while at >= 0 and len(found) < MAX_TOKENS:
                found.append((at, at + len(name), WEEKDAYS[name]))
                at = text.find(name, at + 1)
    return sorted(found)


def _moves(text: str, found: list[tuple[int, int, int]]) -> frozenset[tuple[int, int]]:
    """Which way the texts move a date that falls on a Saturday or a Sunday: the way the
    clause naming that day (or the weekend) says ("if the 25th is a Saturday, on the
    Friday before; if it is a Sunday, on the Monday after"), else the way any says."""
    named_days = [(start, end, {weekday}) for start, end, weekday in found if weekday >= 5]
    weekends = [(m.start(), m.end(), {5, 6}) for m in _WEEKEND.finditer(text)]
    moves: set[tuple[int, int]] = set()
    for start, end, days in itertools.islice(sorted(named_days + weekends), MAX_TOKENS):
        clause = _clause(text, start, end)
        ways = {-1} if _EARLIER.search(clause) or _BEFORE_WORDS.search(clause) else set()
        ways |= {1} if _LATER.search(clause) or _AFTER_WORDS.search(clause) else set()
        moves |= {(day, way) for day in days for way in ways}
    if not moves:
        ways = {-1} if _EARLIER.search(text) else set()
        ways |= {1} if _LATER.search(text) else set()
        moves = {(day, way) for day in (5, 6) for way in ways}
    return frozenset(moves)


def _clause(text: str, start: int, end: int) -> str:
    """The clause of `text` around the span from `start` to `end`."""
    before = [m.end() for m in _CLAUSE.finditer(text, max(start - _CLAUSE_SPAN, 0), start)]
    after = _CLAUSE.search(text, end, end + _CLAUSE_SPAN)
    return text[
        before[-1] if before else max(start - _CLAUSE_SPAN, 0) : after.start()
        if after
        else end + _CLAUSE_SPAN
    ]


def years(texts: Iterable[str]) -> tuple[int, ...]:
    """The years `texts` write, for the days of a month they write without one."""
    return tuple(sorted({int(y) for text in texts for y in _YEAR.findall(text)}))[:5]


def wrong(date: Named, known: Calendar, in_years: Sequence[int]) -> bool:
    """Whether the calendar contradicts the weekday written with a date (in each year it
    may be in), unless the texts write the same date with the same weekday."""
    days = days_of(date.keys, in_years)
    if not days or (date.keys, date.weekday) in known.pairs:
        return False
    return all(day.weekday() != date.weekday for day in days)


def leads(
    date: Named,
    known: Calendar,
    in_years: Sequence[int],
    *,
    given: Callable[[datetime.date], bool],
    reached: Callable[[datetime.date], bool],
) -> bool:
    """Whether a date written with its right weekday is one a weekday rule of the texts
    leads to: the nth weekday of its month, the working day before or after a date on a
    weekend the texts reach by a shift or give by its day of the month (`reached`), or
    that weekday within six days of a date the texts or the answer give (`given`), not
    one they only reach, as every shift of every date would reach most days."""
    for day in days_of(date.keys, in_years):
        weekday = day.weekday()
        if weekday != date.weekday:
            continue
        if (_nth(day), weekday) in known.ordinals or (
            (-1, weekday) in known.ordinals and (day + _WEEK).month != day.month
        ):
            return True
        if weekday < 5 and _moved(day, known, reached):
            return True
        if weekday in known.weekdays and _counted(day, known, given):
            return True
    return False


_WEEK = datetime.timedelta(7)


def _nth(day: datetime.date) -> int:
    return (day.day - 1) // 7 + 1


def _moved(day: datetime.date, known: Calendar, given: Callable[[datetime.date], bool]) -> bool:
    """Whether `day` is the working day before (after) a given Saturday or Sunday."""
    for shift in (1, 2):
        later = day + datetime.timedelta(shift)
        if day.weekday() == 4 and (later.weekday(), -1) in known.moves and given(later):
            return True
        earlier = day - datetime.timedelta(shift)
        if day.weekday() == 0 and (earlier.weekday(), 1) in known.moves and given(earlier):
            return True
    return False


def _counted(day: datetime.date, known: Calendar, given: Callable[[datetime.date], bool]) -> bool:
    """Whether `day` is its weekday before (after) a given date of another weekday."""
    for shift in range(1, MAX_SHIFT + 1):
        if known.before and given(day + datetime.timedelta(shift)):
            return True
        if known.after and given(day - datetime.timedelta(shift)):
            return True
    return False


class Dates:
    """The dates of one answer's texts and working: the weekday rules of the texts, the
    years the answer's dates are read in, and the dates the texts give or reach (`known`)
    or the answer works out (`worked`). Each is read when a claim first needs it: most
    claims have no date."""

    def __init__(
        self, known: Known, texts: Sequence[str], answer: str, worked: frozenset[Key]
    ) -> None:
        self.known = known
        self._texts = tuple(texts)
        self._answer = answer
        self._worked = worked

    @functools.cached_property
    def rules(self) -> Calendar:
        return _calendar(self._texts)

    @functools.cached_property
    def in_years(self) -> tuple[int, ...]:
        return years((*self._texts, self._answer))

    def slips(self, named_dates: Iterable[Named]) -> bool:
        """Whether a date is written with a weekday the calendar contradicts."""
        return any(wrong(date, self.rules, self.in_years) for date in named_dates)

    def reaches(self, date: Named, worked: frozenset[Key]) -> bool:
        """Whether a weekday rule of the texts leads to a date written with its weekday,
        from a date the texts give or reach or the answer works out (`worked`)."""

        def worked_out(day: datetime.date) -> bool:
            iso = day.isoformat()
            return bool({("date", iso), ("day", iso[5:])} & worked)

        def given(day: datetime.date) -> bool:
            return self.known.gives(day) or worked_out(day)

        def reached(day: datetime.date) -> bool:
            return self.known.reaches(day) or worked_out(day)

        return leads(date, self.rules, self.in_years, given=given, reached=reached)

    def follows(self, figure: frozenset[Key]) -> bool:
        """Whether a date is one a sourced date of the answer reaches by a shift the texts
        give (`_following`)."""
        if not any(kind in ("date", "day") for kind, _ in figure):
            return False
        dates, days = self._following
        return any(raw in (dates if kind == "date" else days) for kind, raw in figure)

    @functools.cached_property
    def _following(self) -> tuple[frozenset[str], frozenset[str]]:
        """What the dates of the answer that are sourced (given, reached, worked out or led
        to by a weekday rule) reach by a shift the texts give, as ISO dates and as months
        and days: the answer shows each step, so a date counted from one it worked out is
        sourced too ("release 17 March, freeze two weeks before: 3 March")."""
        anchors: set[datetime.date] = set()
        named_dates = {date.keys: date for date in named(self._answer)}
        for _, _, keys in itertools.islice(dated(self._answer), MAX_ANCHORS):
            date = named_dates.get(keys)
            if (
                self.known.confirms(keys)
                or keys & self._worked
                or (date is not None and self.reaches(date, self._worked))
            ):
                anchors |= set(days_of(keys, self.in_years))
        reached = {day for start in anchors for day in self.known.shifted(start)}
        return (
            frozenset(day.isoformat() for day in reached),
            frozenset(day.isoformat()[5:] for day in reached),
        )


MAX_ANCHORS = 20  # dates of an answer counted from (a bound on the work)


@functools.lru_cache(maxsize=32)
def _calendar(texts: tuple[str, ...]) -> Calendar:
    return calendar(texts)
