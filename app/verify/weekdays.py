"""Weekdays written beside dates, and the dates a rule of weekdays or a shift gives.

A model names the weekday of the dates it works out ("Freitag, 26.06.2026", "5月8日（金）",
"30/01/2026 (viernes)"), and a team's rules name dates by weekday ("the first Sunday of
the month", "the previous working day", "the Thursday before each release"). The calendar
settles both: a weekday the calendar contradicts beside a date with its year is a slip,
whatever else the answer shows (not a name or a noun: "Frau Freitag", "Рабочая среда");
and a date the answer names with its right weekday is sourced when a rule the texts give
leads to it:
- the nth (or last) weekday of its month, where the texts name that ordinal beside a month
  ("jeden ersten Sonntag im Monat", "第2水曜日", "the last Thursday of the month"; not a
  cycle, "every second Friday", nor "the first Monday after each release");
- the working day before or after a day of the month the texts give (or a date they
  reach) that falls on a Saturday or Sunday, the one way the clause naming that day says
  ("am vorhergehenden Arbeitstag", "on the Monday after"; a clause naming both ways, none);
- that weekday within the six days before or after a date the texts or the answer give,
  as the words beside the weekday say ("the Friday before", "donderdag ervoor").
And a date a shift the texts give away from a date the answer sources (`Dates.follows`),
the way they write the shift ("7 days before the due date", "1週間前"). Every rule was
narrowed by a blind review's attacks (docs/verification.md, "Stop 38"). Holidays and summer
time are not known: a date moved over a holiday is the judge's.
"""

from __future__ import annotations

import datetime
import functools
import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from app.verify.figures import MONTH_NAMES, Key, Known, claims, dated, months_of
from app.verify.scan import CJK

# Monday is 0, as datetime counts. Full names, their inflected forms and the short forms
# written beside a date; a short form of one or two letters only in brackets after a
# date ("(金)", "(Mo)").
_NAMES: dict[int, str] = {
    0: "monday montag lundi lunes segunda-feira segunda lunedì lunedi maandag "
    "poniedziałek poniedziałku måndag måndagen mandag mandagen pondělí pondelok "
    "понедельник понедельника понеділок понеділка pazartesi 月曜日 月曜 星期一 周一 週一 "
    "礼拜一 월요일",
    1: "tuesday tue tues dienstag mardi martes terça-feira terça martedì martedi dinsdag "
    "wtorek wtorku tisdag tisdagen tirsdag tirsdagen úterý utorok вторник вторника "
    "вівторок вівторка salı 火曜日 火曜 星期二 周二 週二 礼拜二 화요일",
    2: "wednesday mittwoch mercredi miércoles quarta-feira quarta mercoledì mercoledi "
    "woensdag środa środę środy onsdag onsdagen středa středu streda stredu среда среду "
    "среды середа середу середи çarşamba 水曜日 水曜 星期三 周三 週三 礼拜三 수요일",
    3: "thursday thu thur thurs donnerstag jeudi jueves quinta-feira quinta giovedì giovedi "
    "donderdag czwartek czwartku torsdag torsdagen čtvrtek štvrtok четверг четверга "
    "четвер четверга perşembe 木曜日 木曜 星期四 周四 週四 礼拜四 목요일",
    4: "friday fri freitag vendredi viernes sexta-feira sexta venerdì venerdi vrijdag "
    "piątek piątku fredag fredagen pátek piatok пятница пятницу пятницы п'ятниця "
    "п'ятницю п'ятниці п’ятниця п’ятницю п’ятниці cuma 金曜日 金曜 星期五 周五 週五 "
    "礼拜五 금요일",
    5: "saturday samstag sonnabend samedi sábado sabato zaterdag sobota sobotę soboty "
    "lördag lördagen lørdag lørdagen sobotu суббота субботу субботы субота суботу суботи "
    "cumartesi 土曜日 土曜 星期六 周六 週六 礼拜六 토요일",
    6: "sunday sonntag dimanche domingo domenica zondag niedziela niedzielę niedzieli "
    "söndag söndagen søndag søndagen neděle neděli nedeľa nedeľu воскресенье "
    "воскресенья неділя неділю неділі pazar 日曜日 日曜 星期日 星期天 周日 周天 週日 "
    "礼拜日 礼拜天 일요일",
}
_SHORT: dict[int, str] = {  # only in brackets after a date
    0: "月 월 mo po пн lu",
    1: "火 화 di út вт tu",
    2: "水 수 mi me we st ср wo",
    3: "木 목 je čt чт th",
    4: "金 금 fr ve vr pá пт",
    5: "土 토 sa сб za",
    6: "日 일 su dom ne нд вс zo",
}
WEEKDAYS = {name: day for day, names in _NAMES.items() for name in names.split()}
_BRACKETED = {name: day for day, names in _SHORT.items() for name in names.split()}
_BRACKETED |= WEEKDAYS
_NAME = "|".join(re.escape(name) for name in sorted(WEEKDAYS, key=len, reverse=True))
_SHORT_NAME = "|".join(re.escape(name) for name in sorted(_BRACKETED, key=len, reverse=True))
_CJK_NAME = re.compile(f"[{CJK}]")
# A weekday just before a date: "Freitag, 26.06.2026", "fredag den 22. januar", "le mardi
# 17 mars", "w piątek 08.05.2026", "Thursday, March 5"
_BEFORE = re.compile(
    rf"(?<![^\W\d_])({_NAME})\.?,?\s(?:(?:den|der|the|el|il|le)\s)?\Z", re.IGNORECASE
)
# A weekday just after one: "30/01/2026 (viernes)", "5月8日（金）", "15.03.2026 pazar",
# "2026年3月31日(火)", "16 March, a Monday" is not read
_AFTER = re.compile(
    rf"\s?(?:[(（]\s?({_SHORT_NAME})\.?\s?[)）]|\s({_NAME})(?![^\W\d_]))", re.IGNORECASE
)
_WINDOW = 24  # characters before a date a weekday is looked for in
_FULL = 4  # letters of a weekday's name written out: "fri", "mon" after a date are words
_RANGE_END = re.compile(
    r"(?:\bto|\bbis|\bdo|\btill?|\bà|\bau|\baux|\ba|\bal|\btot|\btil|[–-]|\bдо|\bпо)\s*\Z",
    re.IGNORECASE,
)
# A weekday's name that is a name or a noun: after a capitalised word that is no word of
# a date ("Ann Friday", "Frau Freitag", "Juan Sábado", "Krzysztof Piątek"), or a Russian or
# Ukrainian adjective ("Тестовая среда": an environment)
_NAMED_BEFORE = re.compile(r"(?<![^\W\d_])(?P<word>[^\W\d_]+)\s\Z")
_DATE_WORDS = frozenset(
    "am an on the den der die dem el le la il lo los las au du op om på i w we v ve в во у "
    "ab bis vom zum seit from by until next this last every each".split()
)
_TITLES = frozenset("herr frau mr mrs ms dr pan pani sr sra don doña signor signora".split())
_ADJECTIVE = re.compile(r"(?:ая|яя|ова|ева)\s\Z", re.IGNORECASE)
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
        if before is not None and _reads_as_its_day(before):
            found.append(Named(keys, WEEKDAYS[before.group(1).lower()]))
        elif after is not None:
            short = after.group(1)
            name = (short or after.group(2)).lower()
            day = _BRACKETED.get(name) if short else WEEKDAYS.get(name)
            if day is not None and (short or len(name) >= _FULL):
                found.append(Named(keys, day))
    return found


def _reads_as_its_day(m: re.Match[str]) -> bool:
    """Whether a weekday just before a date is that date's: not the end of a range
    ("Monday to Friday, 24.12.2026"), a dot only after a short form ("Fri. 13.03.", not
    "… on Friday. 24.12.2026 is a half day"), and a short form only with a capital or a
    dot ("Fri 13 March"; Norwegian "fri 17. mai" is a day off)."""
    name = m.group(1)
    before = m.string[max(m.start() - _WINDOW, 0) : m.start()]
    word = _NAMED_BEFORE.search(before)
    if word is not None and name[0].isupper() and _a_name(word["word"], before[: word.start()]):
        return False  # "Frau Freitag, 15.07.2026": a name
    if _ADJECTIVE.search(before):
        return False
    dotted = "." in m.group()[len(name) :]
    if dotted and len(name) >= _FULL:
        return False
    if len(name) < _FULL and not (dotted or name[0].isupper() or _CJK_NAME.match(name)):
        return False  # "fri 17. mai" is free, "mon 17 mars" mine; "Fri 13 March", "fri. 13."
    return _RANGE_END.search(m.string, max(m.start() - _WINDOW, 0), m.start()) is None


def _a_name(word: str, before: str) -> bool:
    """Whether a capitalised `word` before a weekday's name makes it a name: a title, or a
    word that opens no date and no sentence ("Ann Friday", "Juan Sábado"; not "Due
    Friday" at a sentence's start, nor "Am Freitag")."""
    if word.lower() in _TITLES:
        return True
    opens = not before.strip() or before.rstrip()[-1] in ".!?*_\n"  # "Autor: Juan Sábado"
    return word[0].isupper() and word.lower() not in _DATE_WORDS and not opens


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
    r"previous|preceding|prior\b|vorhergehend|vorherig|vorig|vorangehend|vorausgehend|"
    r"précédent|anterior|precedente|voorgaande|poprzedni|poprzedzając|föregående|forrige|"
    r"foregående|předchozí|předcházející|предыдущ|предшеств|накануне|попередн|напередодні|"
    r"önceki|前営業日|前の営業日|直前|前一|此前|之前的|직전|이전",
    re.IGNORECASE,
)
_LATER = re.compile(
    r"\bnext\b|following|nächst|folgend|suivant|siguiente|seguinte|successiv|volgende|"
    r"następn|następując|nästa|följande|neste|følgende|næste|následující|следующ|наступн|"
    r"sonraki|翌|次の営業日|下一|之后的|다음",
    re.IGNORECASE,
)
# Which way a weekday is counted from a date, in the words right after it ("the Friday
# before", "donderdag ervoor", "jeudi qui précède") or right before it ("リリース前の金曜日",
# "发布之前的星期五", "릴리스 전 금요일", "sürümden önce perşembe")
_BEFORE_AFTER = re.compile(
    r"[,\s]*(?:(?:that|which|qui|que|che|die|der|den)\s)?(?:"
    r"(?P<before>before|vor|davor|avant|précède|antes|anterior|prima|precedente|voor|ervoor|"
    r"przed|före|innan|før|forud|před|перед|до|önce)"
    r"|(?P<after>after|nach|danach|après|suivant|después|depois|dopo|na|erna|po|efter|etter|"
    r"после|після|sonra))(?![^\W\d_])",
    re.IGNORECASE,
)
_BEFORE_AFTER_CJK = re.compile(
    r"(?:(?P<before>前の|前|之前的|以前的|전|önce)|(?P<after>後の|後|之后的|以后的|후|sonra))\s?\Z"
)
# Words of a month, and of a cycle, around an ordinal weekday
_MONTH_WORD = re.compile(
    r"month|monat|mois|\bmes\b|mese|mês|maand|miesiąc|månad|måned|měsíc|месяц|місяц|\bay(?:ın|ının)\b"
    r"|月|월",
    re.IGNORECASE,
)
_CYCLE = re.compile(
    r"(?:every|each|jede[nrs]?|alle|\bco|каждую|каждый|каждое|кожну|кожен|кожного|tous les|"
    r"toutes les|cada|ogni|elke|om de|\bvar|hver|\bher|每隔|隔)\s*\Z",
    re.IGNORECASE,
)
_MONTH_SPAN = 40  # characters around an ordinal weekday a month is looked for in
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
    moves: frozenset[tuple[int, int]]  # (Saturday or Sunday, -1 or 1): which way it moves
    counted: frozenset[tuple[int, int]]  # (weekday, -1 or 1): "the Thursday before" a date
    pairs: frozenset[tuple[frozenset[Key], int]]  # the dates they write with a weekday


def calendar(texts: Sequence[str]) -> Calendar:
    """What `texts` say of weekdays: read from where they name one, or the weekend."""
    joined = "\n".join(texts)
    found = _weekdays_in(joined)
    ordinals = set()
    for start, end, weekday in found:
        m = _ORDINAL_BEFORE.search(joined, max(start - _WINDOW, 0), start)
        if m is None or not _of_a_month(joined, m.start(), end):
            continue
        if m["word"]:
            n = _ORDINAL_WORDS.get(m["word"].lower())
        elif m["digit"]:
            n = int(m["digit"])
        else:
            n = _CJK_DIGITS.get(m["cjk"]) or int(m["cjk"])
        if n is not None:
            ordinals.add((n, weekday))
    return Calendar(
        frozenset(ordinals),
        _moves(joined, found),
        frozenset(_counted_ways(joined, found)),
        frozenset((n.keys, n.weekday) for text in set(texts) for n in named(text)),
    )


def _of_a_month(text: str, start: int, end: int) -> bool:
    """Whether an ordinal weekday from `start` to `end` names one of a month ("the first
    Sunday of the month", "erster Sonntag im März", "Mart ayının son cumartesi", "毎月第2水曜
    日"): not a cycle ("every second Friday", "jeden zweiten Freitag", "co drugi piątek"),
    nor one counted from an event ("the first Monday after each release"), nor a past one
    ("wie am letzten Freitag besprochen")."""
    after = text[end : end + _MONTH_SPAN]
    if _BEFORE_AFTER.match(after):
        return False
    before = text[max(start - _MONTH_SPAN, 0) : start]
    if any(_MONTH_WORD.search(part) for part in (after, before)):
        return True  # "jeden ersten Sonntag im Monat": each month's
    if _CYCLE.search(text, max(start - _WINDOW, 0), start):
        return False  # "every second Friday, starting 6 March": a fortnight's
    return any(t.lower() in MONTH_NAMES for part in (after, before) for t in _TOKEN.findall(part))


def _counted_ways(text: str, found: list[tuple[int, int, int]]) -> set[tuple[int, int]]:
    """The weekdays the texts count before or after a date, by the words right beside
    them: "the Thursday before each release" (Thursday, -1)."""
    ways: set[tuple[int, int]] = set()
    for start, end, weekday in found:
        m = _BEFORE_AFTER.match(text, end, end + _MONTH_SPAN) or _BEFORE_AFTER_CJK.search(
            text, max(start - _WINDOW, 0), start
        )
        if m is not None:
            ways.add((weekday, -1 if m["before"] else 1))
    return ways


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
    clause naming that day (or the weekend) says with a word of the previous or the next
    working day ("if the 25th is a Saturday, the preceding Friday; if a Sunday, the
    following Monday"), else the way the texts say, when they name no weekend day. A
    clause that names both ways moves nothing."""
    named_days = [(start, end, {weekday}) for start, end, weekday in found if weekday >= 5]
    weekends = [(m.start(), m.end(), {5, 6}) for m in _WEEKEND.finditer(text)]
    moves: set[tuple[int, int]] = set()
    for start, end, days in itertools.islice(sorted(named_days + weekends), MAX_TOKENS):
        clause_start, clause = _clause(text, start, end)
        ways = _ways(
            clause,
            [
                (s - clause_start, e - clause_start, w)
                for s, e, w in found
                if w < 5 and clause_start <= s < clause_start + len(clause)
            ],
        )
        moves |= {(day, way) for day in days for way in ways}
    if not named_days and not weekends:
        moves = {(day, way) for day in (5, 6) for way in _ways(text, [])}
    return frozenset(moves)


def _ways(text: str, working: list[tuple[int, int, int]]) -> set[int]:
    """The one way `text` moves a date: to the previous working day (-1) or the next (1),
    by a word of it or a working weekday counted before or after ("on the Friday
    before"); none where it names both or neither."""
    ways = {way for _, way in _counted_ways(text, working)}
    ways |= {-1} if _EARLIER.search(text) else set()
    ways |= {1} if _LATER.search(text) else set()
    return ways if len(ways) == 1 else set()


def _clause(text: str, start: int, end: int) -> tuple[int, str]:
    """The clause of `text` around the span from `start` to `end`, and where it starts."""
    before = [m.end() for m in _CLAUSE.finditer(text, max(start - _CLAUSE_SPAN, 0), start)]
    after = _CLAUSE.search(text, end, end + _CLAUSE_SPAN)
    first = before[-1] if before else max(start - _CLAUSE_SPAN, 0)
    return first, text[first : after.start() if after else end + _CLAUSE_SPAN]


def years(texts: Iterable[str]) -> tuple[int, ...]:
    """The years `texts` write, for the days of a month they write without one."""
    return tuple(sorted({int(y) for text in texts for y in _YEAR.findall(text)})[-3:])


def wrong(date: Named, known: Calendar, in_years: Sequence[int]) -> bool:
    """Whether the calendar contradicts the weekday written with a date that writes its
    year, unless the texts write the same date with the same weekday."""
    dated_keys = frozenset(key for key in date.keys if key[0] == "date")
    days = days_of(dated_keys, in_years)  # a date with its own year only: "26 June" in a
    if not days or (date.keys, date.weekday) in known.pairs:  # text of 2019 may be 2026's
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
        if _counted(day, known, given):
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
    """Whether `day` is its weekday the texts count before (after) a date, before (after)
    a given date of another weekday within six days."""
    weekday = day.weekday()
    for shift in range(1, MAX_SHIFT + 1):
        if (weekday, -1) in known.counted and given(day + datetime.timedelta(shift)):
            return True
        if (weekday, 1) in known.counted and given(day - datetime.timedelta(shift)):
            return True
    return False


class Dates:
    """The dates of one answer's texts and working: the weekday rules of the texts, the
    years the answer's dates are read in, and the dates the texts give or reach (`known`)
    or the answer works out (each claim's `worked`). Each is read when a claim first needs
    it: most claims have no date."""

    def __init__(self, known: Known, texts: Sequence[str], answer: str) -> None:
        self.known = known
        self._texts = tuple(texts)
        self._answer = answer
        self._reach: dict[frozenset[Key], tuple[frozenset[str], frozenset[str]]] = {}

    @functools.cached_property
    def rules(self) -> Calendar:
        return _calendar(self._texts)

    @functools.cached_property
    def in_years(self) -> tuple[int, ...]:
        return years((self._answer,)) or years(self._texts)

    @staticmethod
    def written(text: str) -> list[Named]:
        """The dates `text` writes with a weekday (`named`)."""
        return named(text)

    def slips(self, named_dates: Iterable[Named]) -> bool:
        """Whether a date is written with a weekday the calendar contradicts."""
        return any(wrong(date, self.rules, self.in_years) for date in named_dates)

    def follows(self, figure: frozenset[Key], worked: frozenset[Key]) -> bool:
        """Whether a date is one a sourced date of the answer reaches by a shift the texts
        give, the way they give it (`_following`)."""
        if not any(kind in ("date", "day") for kind, _ in figure):
            return False
        dates, days = self._following(worked)
        return any(raw in (dates if kind == "date" else days) for kind, raw in figure)

    def _following(self, worked: frozenset[Key]) -> tuple[frozenset[str], frozenset[str]]:
        """What the dates of the answer that are sourced (given, reached, worked out, or led
        to by a weekday rule) reach by a shift the texts give, as ISO dates and as months and
        days: the answer shows each step, so a date counted from one it sourced is sourced
        too ("release 17 March, freeze two weeks before: 3 March"). A shift the texts write
        before or after a date ("7 days before the due date", "14 Tage vor dem Go-Live",
        "1週間前") is taken only that way."""
        if worked in self._reach:
            return self._reach[worked]
        anchors: set[datetime.date] = set()
        named_dates = {date.keys: date for date in named(self._answer)}
        for _, _, keys in itertools.islice(dated(self._answer), MAX_ANCHORS):
            date = named_dates.get(keys)
            if (
                self.known.confirms(keys)
                or keys & worked
                or (date is not None and self.reaches(date, worked))
            ):
                anchors |= set(days_of(keys, self.in_years))
        ways = _signed_shifts(self._texts)
        reached = {
            day
            for start in sorted(anchors)[:MAX_ANCHORS]
            for day in self.known.shifted(start, ways=ways)
        }
        self._reach[worked] = (
            frozenset(day.isoformat() for day in reached),
            frozenset(day.isoformat()[5:] for day in reached),
        )
        return self._reach[worked]

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


MAX_ANCHORS = 20  # dates of an answer counted from (a bound on the work)
# A shift written before or after what it counts from: "7 days before the due date", "14
# Tage vor dem Go-Live", "deux semaines avant", "una semana antes", "1 hafta önce", "1週間前",
# "发布前1周", "1주 전", "3 dni po": the word of the way, and the shift just before it (or,
# in CJK, just after it)
_WAY = re.compile(
    r"(?<![^\W\d_])(?:(?P<before>before|prior|earlier|vor|vorher|avant|antes|prima|voor|"
    r"ervoor|przed|wcześniej|före|innan|før|forud|předem|před|до|раньше|перед|раніше|önce)"
    r"|(?P<after>after|later|nach|später|danach|après|después|depois|dopo|na|erna|po|później|"
    r"efter|etter|senere|později|после|спустя|після|sonra))(?![^\W\d_])"
    r"|(?P<cjk_before>前|전)|(?P<cjk_after>後|后|후)",
    re.IGNORECASE,
)
_SHIFT_SPAN = 30  # characters before a word of the way its shift is read in
_CJK_SPAN = 6  # … in CJK, right before it or right after it


@functools.lru_cache(maxsize=32)
def _signed_shifts(texts: tuple[str, ...]) -> dict[tuple[str, int], frozenset[int]]:
    """The ways the texts give each shift of days or months (`_WAY`): one where every
    mention says the same, both where they differ."""
    ways: dict[tuple[str, int], set[int]] = {}
    for text in texts:
        for m in itertools.islice(_WAY.finditer(text), MAX_TOKENS):
            way = -1 if (m["before"] or m["cjk_before"]) else 1
            cjk = bool(m["cjk_before"] or m["cjk_after"])  # "1週間前", or "前1周"
            window = text[max(m.start() - (_CJK_SPAN if cjk else _SHIFT_SPAN), 0) : m.start()]
            found = [f for f in claims(window) if _shift_of(f)]
            if not found and cjk:
                found = [f for f in claims(text[m.end() : m.end() + _CJK_SPAN]) if _shift_of(f)][:1]
            for unit_count in _shift_of(found[-1]) if found else ():
                ways.setdefault(unit_count, set()).add(way)
    return {key: frozenset(value) for key, value in ways.items()}


def _shift_of(figure: frozenset[Key]) -> set[tuple[str, int]]:
    """A figure's shifts as unit and count: ("days", 14) for two weeks, ("months", 3)."""
    return {unit_count for kind, raw in figure if (unit_count := _unit_count(kind, raw))}


def _unit_count(kind: str, raw: str) -> tuple[str, int] | None:
    """A shift's unit and count: ("days", 14) for two weeks, ("months", 3)."""
    if kind == "span":
        months = months_of(raw)
        return None if months is None else ("months", months)
    if kind == "duration" and (days := Fraction(raw) / 86400).denominator == 1 and days > 0:
        return ("days", int(days))
    return None


@functools.lru_cache(maxsize=32)
def _calendar(texts: tuple[str, ...]) -> Calendar:
    return calendar(texts)
