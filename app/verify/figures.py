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

import bisect
import calendar
import datetime
import functools
import itertools
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from app.verify import language
from app.verify.scan import CJK

Key = tuple[str, str]  # (kind, normalised value)

_UNITS: dict[str, tuple[str, Fraction]] = {}
for _kind, _scale, _names in (
    (
        "duration",
        Fraction(1, 1000),
        "ms millisecond milliseconds millisekunden millisecondes milisegundos millisecondi",
    ),
    (
        "duration",
        Fraction(1),
        "s sec secs second seconds sekunde sekunden seconde secondes segundo segundos "
        "secondo secondi seconden sekund sekundy 秒 sekunder saniye sekunda секунда секунды "
        "секунд секунди 초",
    ),
    (
        "duration",
        Fraction(60),
        "m min mins minute minutes minuten minuto minutos minuti minuut minut minuty мин хв "
        "分 分間 分钟 "
        "minuter minuterna minutt minutter minuttene minutterne dakika minuta минута минуты "
        "минут хвилина хвилини хвилин 분",
    ),
    (
        "duration",
        Fraction(3600),
        "h hr hrs hour hours std stunde stunden heure heures hora horas ora ore uur uren "
        "godzina godziny godzin 時間 小时 小時 timme timmar timmarna timer timene timerne saat "
        "hodina hodiny hodin "
        "час часа часов ч година години годин годині 시간 timmen timen "
        "hodinu godzinę годину",  # the accusative after a word of rate: "35 Kč za hodinu"
    ),
    (
        "duration",
        Fraction(86400),
        "d day days tage tagen jour jours día días dia dias giorno giorni dag dagen "
        "dzień dni 日 日間 天 dagar dagarna dager dagene dage døgn gün dny dní dnů день дня дней "
        "суток сутки дні "
        "днів доба доби діб",
    ),
    (
        "duration",
        Fraction(604800),
        "w wk wks week weeks woche wochen semaine semaines semana semanas settimana "
        "settimane weken tydzień tygodnie tygodni 週 週間 周 星期 vecka veckor veckorna uke uker "
        "ukene uge uger ugerne "
        "veckan uken ugen hafta týden týdny týdnů неделя недели недель неделю тиждень тижні "
        "тижнів 주",
    ),
    (
        "duration",
        Fraction(2592000),
        "month months monat monate monaten mois mes meses mese mesi mês maand maanden "
        "miesiąc miesiące miesięcy か月 ヶ月 カ月 ケ月 个月 månad månader månaderna måned måneder "
        "månedene månederne månaden "
        "måneden ay měsíc měsíce měsíců месяц месяца месяцев місяць місяці місяців 개월",
    ),
    (
        "duration",
        Fraction(31536000),
        "yr yrs year years jahr jahre jahren an ans année années año años anno anni "
        "ano anos jaar jaren rok lata lat 年 år året yıl roky let год года лет рік роки років 년",
    ),
    ("size", Fraction(1), "b byte bytes"),
    ("size", Fraction(1024), "kb kib kilobyte kilobytes"),
    ("size", Fraction(1024**2), "mb mib megabyte megabytes"),
    ("size", Fraction(1024**3), "gb gib gigabyte gigabytes"),
    ("size", Fraction(1024**4), "tb tib terabyte terabytes"),
    (
        "percent",
        Fraction(1),
        "% ％ percent per cent pct prozent pourcent pour cent por ciento per cento "
        "por cento procent",
    ),
    # tenths: "9折" is 90 % of the price (Chinese), "2割" 20 % (Japanese); "85折" is 85 %
    ("percent", Fraction(10), "折 割"),
    (
        "money",
        Fraction(1),
        "usd eur gbp chf jpy cad aud sek nok dkk pln inr dollar dollars euro euros "
        "pound pounds yen zł zloty złotych kr € $ £ ¥ ₹ 円 元 美元 欧元 kč czk грн uah ₴ ₽ руб "
        "рублей рубля rub tl try ₺ ₩ 원 krw евро євро",
    ),
    (
        "money",
        Fraction(1, 100),
        "cent cents centime centimes céntimo céntimos centavo centavos centesimo "
        "centesimi eurocent eurocents grosz grosze groszy öre øre копейка копейки копеек",
    ),
):
    for _name in _names.split():
        _UNITS[_name] = (_kind, _scale)
_UNITS.update({"pour cent": _UNITS["%"], "por ciento": _UNITS["%"], "per cento": _UNITS["%"]})
_UNITS.update({"por cento": _UNITS["%"], "per cent": _UNITS["%"]})
for _word in "pour por per ciento cento an".split():
    _UNITS.pop(_word, None)  # halves of units of two words, and French "an" (English "an")
CURRENCY_SYMBOLS = "$€£¥₹₽₺₩₴₪₫₱฿₦"  # before or after an amount
_CURRENCY_FIRST = "usd eur gbp chf jpy cad aud sek nok dkk pln inr".split()

# Units with a second reading: a month is 30 days, or a twelfth of a year; "18h" is 18
# hours, or 6 pm in French.
_ALSO = {Fraction(2592000): (Fraction(31536000, 12),)}
# The days months or years of the calendar may hold: "400 days" is "just over 13 months"
# (13 months hold 393 to 397 days, give or take a day for every two months), "13 weeks"
# three months. A figure in one of these units is also a span of days, which a duration
# given in days or weeks may fall in, and the other way round; a count of days or weeks
# is exact.
_CALENDAR = {Fraction(2592000): 1, Fraction(31536000): 12}  # months in each unit
# Give or take a day for every two months: "just over 13 months" for 400 days (13 months
# hold 393 to 397), "four weeks" for a month; not 26 days, nor "50 weeks" for a year.
SLACK_MONTHS_PER_DAY = 2
# Working days: five to a week of the calendar ("10 werkdagen" is "two weeks"), written as
# a word before the unit ("10 working days"), the start of a compound ("10 Arbeitstage")
# or a word after it ("10 jours ouvrés", "10 días hábiles").
_WORKING = frozenset({"working", "business", "work", "arbeits", "werk", "arbets", "arbejds"})
_WORKING |= {"arbeids", "pracovních", "pracovní", "рабочих", "рабочие", "робочих", "робочі"}
_WORKING_AFTER = "ouvrés|ouvrables|hábiles|laborables|úteis|uteis|lavorativi|roboczych|robocze"
# Working days written glued, or in words the quantity pattern does not read ("10営業日",
# "3영업일", "10个工作日", "10 virkedager", "10 hverdage", "5 iş günü"); it reads the others
# ("10 Arbeitstage", "10 pracovních dnů", "10 werkdagen": `_working`)
_WORKDAYS = re.compile(
    r"(?<![0-9])([0-9]{1,2})\s?(?:営業日|영업일|[个個]?工作日|virkedag|hverdag|iş\s+gün)",
    re.IGNORECASE,
)
MAX_WORKDAYS = 60  # working days a date is shifted by, at most
MAX_WORKDAY_COUNTS = 10  # counts of working days read (a bound on the work)
# Korean units that begin other words: 분기 (a quarter), 주년 (an anniversary), 주차 (a
# week's number), 주식 (shares)
_NOT_AFTER = {"분": ("기",), "주": ("년", "차", "식")}
_LAW_PART = re.compile(r"\.\s?[0-9]")
# Before 一, a word that makes it "the" day, not one: "最后一天", "前一天", "同一天"; not
# "提前一天", a day in advance
_DETERMINERS = re.compile(r"(?:最[后後]|(?<!提)前|[同这這那每某该該])\Z")
_CLOCK_UNITS = {"h", "uhr", "時", "час", "часа", "часов", "годині"}  # "в 15 часов": 3 pm
# Multipliers written after a number: "1.2k", "2.5M", "1,3 Mrd.", "40 mil", "3万".
_MULTIPLIERS = {
    "k": 1000,
    "K": 1000,
    "thousand": 1000,
    "tsd": 1000,
    "tausend": 1000,
    "mil": 1000,
    "duizend": 1000,
    "tys": 1000,
    "M": 10**6,
    "mio": 10**6,
    "mill": 10**6,  # Norwegian and Danish: "1,8 mill. kr"
    "mi": 10**6,  # Brazilian, after R$ only: "R$ 2,5 mi" (elsewhere miles, or a word)
    "bi": 10**9,
    "million": 10**6,
    "millions": 10**6,
    "millionen": 10**6,
    "millón": 10**6,
    "millones": 10**6,
    "milione": 10**6,
    "milioni": 10**6,
    "milhão": 10**6,
    "milhões": 10**6,
    "miljoen": 10**6,
    "mln": 10**6,
    "bn": 10**9,
    "Bn": 10**9,
    "billion": 10**9,
    "billions": 10**9,
    "mrd": 10**9,
    "milliard": 10**9,
    "milliards": 10**9,
    "milliarden": 10**9,
    "miliardi": 10**9,
    "bilhão": 10**9,
    "bilhões": 10**9,
    "miljard": 10**9,
    "mld": 10**9,
    "tis": 1000,
    "тыс": 1000,
    "тис": 1000,
    "млн": 10**6,
    "milyon": 10**6,
    "miljon": 10**6,
    "miljoner": 10**6,
    "millioner": 10**6,
    "milion": 10**6,
    "miliony": 10**6,
    "milionów": 10**6,
    "milionů": 10**6,
    "миллиона": 10**6,
    "миллионов": 10**6,
    "мільйона": 10**6,
    "мільйонів": 10**6,
    "miljarder": 10**9,
    "milliarder": 10**9,
    "млрд": 10**9,
    "milyar": 10**9,
    "万": 10**4,
    "億": 10**8,
    "亿": 10**8,
}
_AFTER_REAIS = ("mi", "bi")  # multipliers read only after "R$"
_FOLDED_MULTIPLIERS = {name.casefold(): times for name, times in _MULTIPLIERS.items()}
_WORDS = {
    word: value
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100}
# Spelled numbers in the other languages the rules read; a spelled number is a figure
# only with a unit or a multiplier ("zwei Wochen", "seize jours"), since many are words
# of other languages too ("seize", "doze", "venti").
for _spelled in (
    "null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn vierzehn "
    "fünfzehn sechzehn siebzehn achtzehn neunzehn zwanzig",
    "zéro un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze "
    "quinze seize dix-sept dix-huit dix-neuf vingt",
    "cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce "
    "quince dieciséis diecisiete dieciocho diecinueve veinte",
    "zero uno due tre quattro cinque sei sette otto nove dieci undici dodici tredici "
    "quattordici quindici sedici diciassette diciotto diciannove venti",
    "zero um dois três quatro cinco seis sete oito nove dez onze doze treze catorze "
    "quinze dezesseis dezessete dezoito dezenove vinte",
    "nul een twee drie vier vijf zes zeven acht negen tien elf twaalf dertien veertien "
    "vijftien zestien zeventien achttien negentien twintig",
    # Swedish, Norwegian and Danish without "en", "ett", "et" (articles), "to" and "ni"
    # (English "to", French "ni"); Turkish without "on" (ten; English "on")
    "noll - två tre fyra fem sex sju åtta nio tio elva tolv tretton fjorton femton sexton "
    "sjutton arton nitton tjugo",
    "null - - tre fire fem seks sju åtte - ti elleve tolv tretten fjorten femten seksten "
    "sytten atten nitten tjue",
    "nul - - tre fire fem seks syv otte - ti elleve tolv tretten fjorten femten seksten "
    "sytten atten nitten tyve",
    "sıfır bir iki üç dört beş altı yedi sekiz dokuz",
    "nula jedna dva tři čtyři pět šest sedm osm devět deset jedenáct dvanáct třináct "
    "čtrnáct patnáct šestnáct sedmnáct osmnáct devatenáct dvacet",
    "ноль один два три четыре пять шесть семь восемь девять десять одиннадцать двенадцать "
    "тринадцать четырнадцать пятнадцать шестнадцать семнадцать восемнадцать девятнадцать "
    "двадцать",
    "нуль один два три чотири п'ять шість сім вісім дев'ять десять одинадцять дванадцять "
    "тринадцять чотирнадцять п'ятнадцять шістнадцять сімнадцять вісімнадцять "
    "дев'ятнадцять двадцять",
    # Polish, without "jeden" ("-": German's "jeden Tag" is every day)
    "zero - dwa trzy cztery pięć sześć siedem osiem dziewięć dziesięć jedenaście dwanaście "
    "trzynaście czternaście piętnaście szesnaście siedemnaście osiemnaście dziewiętnaście "
    "dwadzieścia",
):
    for _value, _word in enumerate(_spelled.split()):
        if _word != "-":  # a value whose word is left out
            _WORDS.setdefault(_word, _value)
_WORDS |= {
    "ein": 1,
    "eine": 1,
    "einen": 1,
    "une": 1,
    "una": 1,
    "dreißig": 30,
    "vierzig": 40,
    "fünfzig": 50,
    "sechzig": 60,
    "neunzig": 90,
    "trente": 30,
    "quarante": 40,
    "cinquante": 50,
    "soixante": 60,
    "treinta": 30,
    "cuarenta": 40,
    "cincuenta": 50,
    "sesenta": 60,
    "noventa": 90,
    "trenta": 30,
    "quaranta": 40,
    "cinquanta": 50,
    "sessanta": 60,
    "novanta": 90,
    "trinta": 30,
    "quarenta": 40,
    "cinquenta": 50,
    "sessenta": 60,
    "dertig": 30,
    "veertig": 40,
    "vijftig": 50,
    "zestig": 60,
    "negentig": 90,
    "hundert": 100,
    "cent": 100,
    "cien": 100,
    "cento": 100,
    "cem": 100,
    "honderd": 100,
    "a dozen": 12,
    "dozen": 12,
}
_WORDS |= {"seventy": 70, "eighty": 80, "siebzig": 70, "achtzig": 80, "setenta": 70}
_WORDS |= {"ochenta": 80, "settanta": 70, "ottanta": 80, "oitenta": 80}
_WORDS |= {"zeventig": 70, "tachtig": 80}
_WORDS |= {"trettio": 30, "tretti": 30, "tredive": 30, "otuz": 30, "třicet": 30}
_WORDS |= {"dvě": 2, "tří": 3, "одна": 1, "две": 2, "дві": 2, "тридцать": 30, "тридцять": 30}
_WORDS |= {  # Polish forms by case and gender ("dwie godziny", "przez trzech tygodni")
    "jedna": 1, "jedno": 1, "dwie": 2, "dwóch": 2, "trzech": 3, "czterech": 4, "pięciu": 5,
    "sześciu": 6, "siedmiu": 7, "ośmiu": 8, "dziewięciu": 9, "dziesięciu": 10,
    "trzydzieści": 30, "czterdzieści": 40, "pięćdziesiąt": 50,
}  # fmt: skip


def _compounds() -> dict[str, int]:
    """Spelled numbers from 21 to 99 as each language builds them from its tens and units:
    "twenty-five", "vingt-cinq", "veinticinco", "treinta y dos", "venticinque", "vinte e
    cinco", "fünfundzwanzig", "vijfentwintig"."""
    units = {
        "en": "one two three four five six seven eight nine",
        "fr": "un deux trois quatre cinq six sept huit neuf",
        "es": "uno dos tres cuatro cinco seis siete ocho nueve",
        "it": "uno due tre quattro cinque sei sette otto nove",
        "pt": "um dois três quatro cinco seis sete oito nove",
        "de": "ein zwei drei vier fünf sechs sieben acht neun",
        "nl": "een twee drie vier vijf zes zeven acht negen",
    }
    tens = {
        "en": "twenty thirty forty fifty sixty seventy eighty ninety",
        "fr": "vingt trente quarante cinquante soixante",
        "es": "veinte treinta cuarenta cincuenta sesenta setenta ochenta noventa",
        "it": "venti trenta quaranta cinquanta sessanta settanta ottanta novanta",
        "pt": "vinte trinta quarenta cinquenta sessenta setenta oitenta noventa",
        "de": "zwanzig dreißig vierzig fünfzig sechzig siebzig achtzig neunzig",
        "nl": "twintig dertig veertig vijftig zestig zeventig tachtig negentig",
    }
    words: dict[str, int] = {}
    for tongue, named in tens.items():
        for ten, tens_word in enumerate(named.split(), 2):
            for unit, unit_word in enumerate(units[tongue].split(), 1):
                value = ten * 10 + unit
                for word in _COMPOUND[tongue](tens_word, unit_word):
                    words.setdefault(word, value)
    return words


def _spanish(tens: str, unit: str) -> tuple[str, ...]:
    if tens == "veinte":  # veinticinco, veintidós
        return ("veinti" + {"dos": "dós", "tres": "trés", "seis": "séis"}.get(unit, unit),)
    return (f"{tens} y {unit}",)


def _italian(tens: str, unit: str) -> tuple[str, ...]:
    joined = tens[:-1] + unit if unit in ("uno", "otto") else tens + unit  # ventuno
    return (joined.removesuffix("tre") + "tré",) if unit == "tre" else (joined,)  # ventitré


_COMPOUND: dict[str, Callable[[str, str], tuple[str, ...]]] = {
    "en": lambda tens, unit: (f"{tens}-{unit}", f"{tens} {unit}"),
    "fr": lambda tens, unit: (f"{tens} et un",) if unit == "un" else (f"{tens}-{unit}",),
    "es": _spanish,
    "it": _italian,
    "pt": lambda tens, unit: (f"{tens} e {unit}",),
    "de": lambda tens, unit: (f"{unit}und{tens}",),
    # Dutch: vijfentwintig, tweeëntwintig
    "nl": lambda tens, unit: (f"{unit}{'ën' if unit.endswith('e') else 'en'}{tens}",),
}


_WORDS |= _compounds()
for _word in "un uno um een cent once due elf null nul".split():
    _WORDS.pop(_word, None)  # articles, a money unit, English words
# Halves: "anderthalb Stunden", "an hour and a half" are read as 1.5 of the unit, and a
# count of halves as halves of it ("ein halbes Jahr", "eine halbe Stunde", "two half
# days"). Whole words only ("halbem" is no "halbe" and a minute); not the Romance halves
# ("medio", "media", "mezzo", "meio"), which are also "average", "means" and "noon".
_HALVES = {"anderthalb": Fraction(3, 2), "eineinhalb": Fraction(3, 2), "half": Fraction(1, 2)}
_HALVES |= {"halbe": Fraction(1, 2), "halben": Fraction(1, 2), "demi": Fraction(1, 2)}
_HALVES |= {"halbes": Fraction(1, 2), "halber": Fraction(1, 2)}
# Fifteen days is how French, Spanish, Italian and Portuguese say two weeks ("quinze
# jours", "quindici giorni"): spelled so, it is read as fourteen days as well.
_FORTNIGHT = frozenset({"quinze", "quince", "quindici"})
# Chinese and Japanese numerals up to 99, a figure only before a unit of duration that
# no ordinary word starts with ("两周", "三天", "二週間", "十四日間"): not 分 ("十分",
# enough), 日 ("一日も早く"; "三月五日" is a date), 元 ("一元管理"), 四周 (all around);
# and not inside a longer numeral or an ordinal ("一百二十天", "二〇二六年", "第二天"). 半 is a
# half before a year or an hour ("半年", "半小时"), not in "一年半" or "大半年" (most of a year).
_CJK_DIGITS = {"一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5}
_CJK_DIGITS |= {"六": 6, "七": 7, "八": 8, "九": 9}
_CJK_NUMERAL = (
    "(?:(?<![第百千万萬〇零一二两兩三四五六七八九十])"
    "(?:[二三四五六七八九]?十[一二三四五六七八九]?|[一二两兩三四五六七八九])"
    "(?:[个個]半(?=小时|小時))?"  # "一个半小时", one and a half hours
    "(?![百千万萬〇零])"
    "|(?<![一二两兩三四五六七八九十大个個上下])半(?=年|小时|小時))"  # half a year, half an hour
    "(?=天|週間|日間|个月|個月|か月|ヶ月|カ月|ケ月|小时|小時|時間|分钟|分鐘|分間|年|星期|(?<!四)周)"
)
_PERIODS = {"hourly": 3600, "daily": 86400, "nightly": 86400, "weekly": 604800}
_PERIODS |= {"täglich": 86400, "wöchentlich": 604800, "stündlich": 3600}
_PERIODS |= {"quotidien": 86400, "hebdomadaire": 604800, "diario": 86400, "semanal": 604800}
# A month, a quarter and a year named without a number ("monthly", "quarterly", "年間"):
# "× 12か月" of a monthly amount is its year, "× 3か月" its quarter. They confirm only such
# a count of the working, next to a sign or word of product: not a figure the claim states
# ("one month" is no "3 months" because invoices go out monthly), nor an addend.
_MONTH_SECONDS, _YEAR_SECONDS = 2592000, 31536000
_CALENDAR_PERIODS = dict.fromkeys(
    "monthly monatlich mensuel mensual mensal mensile maandelijks miesięcznie månatligen "
    "månedlig månedligt aylık měsíčně ежемесячно щомісяця 月額 毎月 每月 月额 매월".split(),
    _MONTH_SECONDS,
)
_CALENDAR_PERIODS |= dict.fromkeys(
    "quarterly quartal quartalsweise trimestre trimestriel trimestral trimestrale kwartaal "
    "kwartalnie kvartal kvartalsvis çeyrek čtvrtletí čtvrtletně квартал ежеквартально "
    "щокварталу 四半期 季度 분기".split(),
    _YEAR_SECONDS // 4,
)
_CALENDAR_PERIODS |= dict.fromkeys(
    "yearly annually annual jährlich annuel annuelle anual anuale annuale jaarlijks "
    "rocznie årligen årlig årligt yıllık yılda ročně ежегодно щорічно 年間 年间 每年 年額 "
    "年额 연간 매년".split(),
    _YEAR_SECONDS,
)
CJK_PERIODS = {
    word: seconds for word, seconds in _CALENDAR_PERIODS.items() if re.match(f"[{CJK}]", word)
}
_CJK_TEXT = re.compile(f"[{CJK}]")
_CJK_PERIOD = re.compile(
    f"(?<![0-9一二两兩三四五六七八九十])(?:{'|'.join(sorted(CJK_PERIODS, key=len, reverse=True))})"
)
# Month names in English, German, French, Spanish, Italian, Portuguese, Dutch and Polish.
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            "jan january januar janvier enero gennaio janeiro januari stycznia styczeń "
            "ocak ledna января січня",
            "feb february februar février fevrier febrero febbraio fevereiro februari lutego luty "
            "şubat únor února февраля лютого",
            "mar march märz maerz mars marts marzo março maart marca marzec "
            "mart březen března марта березня",
            "apr april avril abril aprile kwietnia kwiecień nisan duben dubna апреля квітня",
            "may mai mayo maggio maio mei maja maj mayıs květen května мая травня",
            "jun june juni juin junio giugno junho czerwca czerwiec "
            "haziran červen června июня червня",
            "jul july juli juillet julio luglio julho lipca lipiec "
            "temmuz červenec července июля липня",
            "aug august août aout agosto augustus sierpnia sierpień "
            "augusti ağustos srpen srpna августа серпня",
            "sep sept september septembre septiembre settembre setembro września wrzesień "
            "eylül září сентября вересня",
            "oct october oktober octobre octubre ottobre outubro października październik "
            "ekim říjen října октября жовтня",
            "nov november novembre noviembre novembro listopada listopad "
            "kasım listopadu ноября листопада",
            "dec december dezember décembre decembre diciembre dicembre dezembro grudnia grudzień "
            "desember aralık prosinec prosince декабря грудня",
        ),
        1,
    )
    for name in names.split()
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
# A month named alone, with or without its year ("May", "octobre 2025", "marzo de 2022",
# "5月的账单", "2026년 3월"); of the names of three letters only those that are whole names
# ("mai", "maj", "mei", and "May" with its capital), not "mar" or "jan".
_WHOLE_MONTHS = "|".join(sorted((m for m in _MONTHS if len(m) > 3), key=len, reverse=True))
_NAMED = (
    rf"(?<![^\W\d_])(?P<name>{_WHOLE_MONTHS}|mai|maj|mei"
    r"|(?-i:May)(?!\s(?:I|we|you|he|she|they|it|be|also|not|have|[a-z]+\s(?:be|have)))\b)"
    r"(?![^\W\d_])"
)
_YEAR_AFTER = r"\s(?:de\s)?(?P<year>[0-9]{4})(?![0-9])"
_CJK_MONTH = r"(?<![0-9])(?P<number>[0-9]{1,2})\s?[月월](?!\s?[0-9])"
_NAMED_MONTH = re.compile(
    rf"{_NAMED}(?:{_YEAR_AFTER})?|(?:(?P<cjk_year>[0-9]{{4}})\s?[年년]\s?)?{_CJK_MONTH}",
    re.IGNORECASE,
)
# A month of a year, with no day: "marzo de 2025", "September 2026", "2026년 9월" (a figure)
_MONTH_OF_YEAR = re.compile(
    rf"{_NAMED}{_YEAR_AFTER}|(?P<cjk_year>[0-9]{{4}})\s?[年년]\s?{_CJK_MONTH}", re.IGNORECASE
)
# What a month's end is written with, looked for first (the pattern is slow to try)
_MONTH_STEMS = (
    *("month", "monat", "mois", "mes", "maand", "miesi", "měsí", "månad", "måned"),
    *("ay", "месяц", "місяц", "月", "월", "말일"),
)
# The end of a month, which a period may run from or to ("within 30 days of the end of the
# month", "fin du mois", "Monatsende", "月末")
_MONTH_END = re.compile(
    r"\bend of (?:\w+ ){0,2}month|\bmonth[- ]end|monatsende|\bende (?:des|eines) \w*monats"
    r"|\bfin d[eu] mois|\b(?:final|fin) del? mes\b|\bfine (?:del )?mese|\b(?:fim|final) do mês"
    r"|\beind[e]? van de \w*maand|maandeinde|\bko(?:niec|ńca|ńcem|ńcu) (?:\w+ )?miesiąca"
    r"|\bkon(?:ec|ce|ci) (?:\w+ )?měsíce|\bslutet av \w*månaden|månadens slut"
    r"|\b(?:slutten|utgangen|slutningen|udgangen) a[vf] \w*måneden|månedens (?:slutt|udgang)"
    r"|\bay(?:ın)? sonu|\bкон(?:ец|ца|цу|це) (?:\w+ )?месяца|\bкін(?:ець|ця|цю|ці) (?:\w+ )?місяця"
    r"|月末|月底|월말|말일",
    re.IGNORECASE,
)
# Digit runs are bounded (a longer run is read in pieces, none of them a plausible figure);
# thousands are grouped by commas, dots (German "1.000"), apostrophes (Swiss "1'000") or
# spaces (French "1 000", thin or not).
_NUMBER = (
    r"[0-9]{1,3}(?:(?:[,.\u202f\u00a0']|\x20(?=[0-9]{3}(?![0-9])))[0-9]{3}){1,5}"
    r"(?:[.,][0-9]{1,6})?(?![0-9])|[0-9]{1,15}(?:[.,][0-9]{1,6})?"
)
# Unicode-aware except for digits: "días" is a word, and only ASCII digits are numbers.
_FLAGS = re.IGNORECASE
# Not glued to a word before: a figure may follow a CJK character ("約48時間"), as CJK
# has no spaces between words, but not a letter of a Latin-script word ("p99").
_FREE_BEFORE = rf"(?<![.,/-])(?<![^\W{CJK}])"
_ISO_DATE = re.compile(r"(?<![0-9])([0-9]{4})-([0-9]{2})-([0-9]{2})(?![0-9])")
# "30.06.2026", and as Czech and Slovak write it, "30. 6. 2026"
_DOTTED_DATE = re.compile(r"(?<![0-9.])([0-9]{1,2})\.\x20?([0-9]{1,2})\.\x20?([0-9]{4})(?![0-9])")
# A day and month as German, the Nordic languages and Czech write them, "14.10." (one
# of the two in two digits); only after a weekday or a word that opens a date
_SHORT_DOTTED = re.compile(
    r"(?<![0-9.])(?=[0-9]{2}\.|[0-9]{1,2}\.[0-9]{2}\.)([0-9]{1,2})\.\x20?([0-9]{1,2})\.()(?![0-9])"
)
_SHORT_BEFORE = re.compile(
    r"(?:\b(?:am|vom|zum|seit|den|dem|dne)"
    r"|(?:tag|woch|dag|dagen|ní|ek|ta|ou|středu|sobotu|ěle|eli|ý),?)\s[*_]*\Z",
    re.IGNORECASE,
)
# words that open a date or a time of day ("bis 11.05." is five past eleven): a date
# after them only where it can be no time (from the 24th on)
_SHORT_OR_TIME = re.compile(r"\b(?:bis|ab|til|fra|innen|od|do|po|от|до|по)\s[*_]*\Z", re.IGNORECASE)
_SLASHED_DATE = re.compile(r"(?<![0-9/])([0-9]{1,2})/([0-9]{1,2})/([0-9]{4})(?![0-9/])")
_CJK_DATE = re.compile(r"(?:([0-9]{4})\s?[年년]\s?)?([0-9]{1,2})\s?[月월]\s?([0-9]{1,2})\s?[日일]")
# not a count of days after a month's name: "in maart 12 dagen" is no 12 March
_SPAN_AFTER = "|".join(
    re.escape(u) for u in sorted(_UNITS, key=len, reverse=True) if _UNITS[u][0] == "duration"
)
_MONTH_DAY = re.compile(
    rf"\b({_MONTH})\.?\s+([0-9]{{1,2}})(?:st|nd|rd|th)?(?!\s?(?:{_SPAN_AFTER})(?![^\W\d_]))"
    rf"(?:,?\s+([0-9]{{4}}))?(?![0-9])",
    _FLAGS,
)
_DAY_MONTH = re.compile(  # 3 March 2026, 20. Dezember 2024, 20 de diciembre de 2024
    rf"(?<![0-9])([0-9]{{1,2}})(?:st|nd|rd|th|er|\.)?\s+(?:de\s+)?({_MONTH})\b\.?"
    rf"(?:,?\s+(?:de\s+)?([0-9]{{4}}))?(?![0-9])",
    _FLAGS,
)
# The years a day of a month without its year is read in: a common and a leap year
_YEARS = (2025, 2028)
# The forms a date is written in (a calculation reads them as operands)
DATES = (_ISO_DATE, _DOTTED_DATE, _SLASHED_DATE, _CJK_DATE, _MONTH_DAY, _DAY_MONTH)
# 15:30, 3:30 pm, 3 pm, 15.30 Uhr, 9 Uhr, 18h30, 午後3時30分
_VERSION = re.compile(
    r"(?:\b(?:v|version\s|release\s)\s?([0-9]+(?:\.[0-9]+)*)(?!:[0-9])"  # "v 9:00": at 9
    # not thousands set apart by dots ("2.500.000 TL"), which no version is written as
    r"|(?<![\w.])(?![0-9]{1,3}(?:\.[0-9]{3}){2,}(?![0-9]|\.[0-9]))([0-9]+\.[0-9]+\.[0-9]+(?:\.[0-9]+)*))"
    r"(?![\w.]*?[0-9])",
    _FLAGS,
)


def spelled(word: str) -> int | None:
    """The number a word spells in a language the rules read ("zwei", "pět"), if any."""
    return _WORDS.get(word.casefold())


def unit_seconds(word: str) -> Fraction | None:
    """The seconds of the unit of time a word names ("dagen", "Stunden"), if it names one."""
    unit = _UNITS.get(word.casefold())
    return unit[1] if unit is not None and unit[0] == "duration" else None


def period_seconds(word: str) -> int | None:
    """The seconds of the period a word of period names ("monthly", "yıllık", "年間")."""
    return _CALENDAR_PERIODS.get(word.casefold())


def _alternatives(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_LATIN_UNITS = [u for u in _UNITS if not re.search(f"[{CJK}%％€$£¥₹]", u)]
_GLUED_UNITS = [u for u in _UNITS if u not in _LATIN_UNITS]
_CLOCK = re.compile(
    r"(?<![0-9:.,$€£¥₹])(?P<h>[0-9]{1,2})(?::|(?P<dot>\.)(?=[0-9]{2}\s?uhr)|h(?=[0-9]{2})"
    # "à 9 h 30", "22 h 00": a time after a word of time, else a duration ("ça fait 3 h
    # 30", "38 h 30 par semaine"); not "1 h 30 min", nor "Forfait 3 h 20 €"
    rf"|(?P<spaced>\s?h\s)(?=[0-5][0-9](?![0-9]|\s?(?:min|[%{CURRENCY_SYMBOLS}])))"
    # "kl. 11.00–13.00", "18.15'te": a time, or a decimal, unless a unit or sign follows
    rf"|(?P<dotted>\.)(?=[0-5][0-9](?![0-9]|[.,][0-9]|\s?[%％€$£¥₹]"
    rf"|\s?(?:{_alternatives(_LATIN_UNITS)}|{_alternatives(_MULTIPLIERS)})(?![^\W\d_]))))"
    r"(?P<m>[0-9]{2})(?![0-9:])(?:\s?(?P<ap>[ap])\.?m\b\.?|\s?uhr\b)?"
    r"|(?<![0-9:.])(?P<h2>[0-9]{1,2})\s?(?:(?P<ap2>[ap])\.?m\b\.?|uhr\b)"
    r"|(?P<half>午前|午後|上午|下午|早上|晚上|오전|오후|밤|저녁|새벽|아침|夜|朝)?\s?(?<![0-9.,])"
    r"(?P<h3>[0-9]{1,2})\s?"
    # 点 is also a point or an item ("3点建议", "85点"): an hour only with a half of the
    # day before it or minutes after it
    r"(?:時(?!間)|시(?!간)|[点點](?(half)|(?=\s?[0-9]{1,2}\s?分|半)))"
    r"(?:\s?(?P<m3>[0-9]{1,2})\s?[分분]|\s?(?P<m30>半|반(?=[\s,.!?)]|$|에|까지|부터|쯤|경|이|은|는|을|으로)))?",
    _FLAGS,
)
_TIME_UNITS = _alternatives(u for u in _UNITS if _UNITS[u][0] == "duration")
# A duration in two units, the second smaller: "8 Stunden 15 Minuten", "25 veckor och 5
# dagar", "4 semanas e 2 dias", "1 h 15 min", "52 min 34 s" (one figure: their sum)
_AND = r"(?:\s(?:and|und|et|e|y|en|och|og|a|i|и|і|ve|й)\s|\s)"  # not a list's comma
_COMPOUND_DURATION = re.compile(
    rf"(?<![\w.,])([0-9]{{1,4}}(?:[.,][0-9]+)?)\s?({_TIME_UNITS})(?![^\W\d_])"
    rf"{_AND}?([0-9]{{1,4}}(?:[.,][0-9]+)?)\s?({_TIME_UNITS})(?![^\W\d_])",
    _FLAGS,
)
_CJK_MULTIPLIERS = [m for m in _MULTIPLIERS if re.search(f"[{CJK}]", m)]
_LATIN_MULTIPLIERS = [m for m in _MULTIPLIERS if m not in _CJK_MULTIPLIERS]
# Words that make the unit after them a rate ("100 per day" is no duration).
_RATE = "(?:per|pro|par|por|each|every|jede[nrs]?|chaque|cada|ogni|elke|mal|times)"
# Words that make "one" a vague amount ("ein paar Minuten": a few minutes, not one), or
# half of it ("una media hora" is no hour).
_VAGUE = "(?:paar|handvoll|bisschen|media|mezza|meia)"
# Before a word between a number and its unit: not a rate's, a vague one, nor a unit itself
# ("zwei Jahren vier Wochen" is two years and four weeks, not "zwei … vier Wochen")
_NOT_BETWEEN = f"(?!(?:{_RATE}|{_VAGUE})\\b)(?!(?:{_alternatives(_LATIN_UNITS)})(?![^\\W\\d_]))"
# German, Dutch and the Scandinavian languages write a unit of time at the end of a
# compound ("25 Urlaubstage", "3 werkdagen", "10 arbetsdagar"). Only compounds of days,
# hours, weeks or months off or at work count: the same endings close "percentage",
# "Montage", "Mittwochen" or "Viertelstunden".
_COMPOUND_FIRST = (
    "urlaubs arbeits werk feier kalender krankheits kranken brücken sonder bildungs "
    "resturlaubs über mehr minus plus bereitschafts probe vakantie verlof feest ziekte "
    "snipper proef arbets arbejds arbeids semester ferie over"
).split()
_COMPOUND_UNITS = "tage tagen dagen stunden wochen weken monate monaten maanden".split()
# Swedish, Danish, Norwegian: "semesterdagar", "kalenderdagarna"
_COMPOUND_UNITS += "dagar dagarna dage dagene dager".split()
_COMPOUND_UNITS += "uren timmar timer".split()  # hours: "verlofuren", "overtimer"
_UNIT_IN_COMPOUND = (
    f"(?:(?P<compound>{'|'.join(_COMPOUND_FIRST)})"
    f"(?=(?:{'|'.join(_COMPOUND_UNITS)})(?![^\\W\\d_])))?"
)
_QUANTITY = re.compile(
    rf"{_FREE_BEFORE}(?:(?P<sym>[$€£¥₹]|R\$|\b(?:{'|'.join(_CURRENCY_FIRST)})\b)\s?)?"
    rf"(?P<num>{_NUMBER}|\b(?:{_alternatives(_WORDS)}|{_alternatives(_HALVES)})\b"
    rf"|{_CJK_NUMERAL})"
    rf"(?![0-9]|(?:[^\W{CJK}]|-)*?[0-9])"  # not glued to a later digit ("S3"); CJK runs end it
    rf"(?:\s?(?P<mult>(?-i:k|K|M|Bn)\b|{_alternatives(_CJK_MULTIPLIERS)}"
    rf"|(?:{_alternatives(m for m in _LATIN_MULTIPLIERS if len(m) > 1)})\b\.?))?"
    rf"(?:[\s-]?(?:(?P<glued>{_alternatives(_GLUED_UNITS)})"
    rf"|(?:(?P<adjective>{_NOT_BETWEEN}[^\W\d_]{{3,}})\s(?:{_NOT_BETWEEN}[^\W\d_]{{3,}}\s)?)?"
    # after a word, a unit of one letter is a word too ("210 dni w roku": in a year)
    rf"(?:(?-i:US|CA|AU|NZ|HK|SG)\s)?{_UNIT_IN_COMPOUND}(?(adjective)(?=[^\W\d_]{{2}}))"
    rf"(?P<unit>{_alternatives(_LATIN_UNITS)})"
    rf"(?![^\W\d_{CJK}])(?P<working>\s(?:{_WORKING_AFTER})(?![^\W\d_]))?))?"
    rf"(?P<and_half>\s(?:and a half|et demie?|y media|e mezz[ao]|e meia|en een half))?"
    rf"(?(glued)(?![^\W\d{CJK}])|(?![^\W{CJK}]))",  # "4天3晚": four days, three nights
    _FLAGS,
)
ANY_NUMBER = re.compile(_NUMBER)
_COMMA_THOUSANDS = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+")
_DOT_THOUSANDS = re.compile(r"[0-9]{1,3}(?:\.[0-9]{3})+")
_SPACE_THOUSANDS = re.compile(r"[0-9]{1,3}(?:['\x20][0-9]{3})+")
_GROUPED_DECIMAL = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+\.[0-9]+|[0-9]{1,3}(?:\.[0-9]{3})+,[0-9]+")
# "Every hour", "elke dag", "jede zweite Woche", "var tredje vecka", "her gün", "隔週": a
# cycle's step, without a digit. Each language's word for "every" with its own units only
# ("every time" is no Norwegian hour, "each tag" no German day), and every second, third
# or fourth one.
_EVERY_BY_LANGUAGE = (
    ("every each", "hour day week"),
    ("jede jeden jedes jeder", "stunde tag woche"),
    ("chaque", "heure jour semaine"),
    ("cada", "hora día dia semana"),
    ("ogni", "ora giorno settimana"),
    ("elk elke iedere ieder", "uur dag week"),
    ("varje var", "timme dag vecka"),
    ("hver hvert", "time dag uke uge"),
    ("każdą każdy każde co", "godzinę dzień tydzień"),
    ("každou každý každé", "hodinu den týden"),
    ("каждый каждую каждое", "час день неделю"),
    ("кожну кожен кожного", "годину день тиждень"),
    ("her", "saat gün hafta"),
)
_EVERY_SECONDS = {
    "hour stunde heure hora ora uur timme time godzinę hodinu час годину saat": 3600,
    "day tag jour día dia giorno dag dzień den день gün": 86400,
    "week woche semaine semana settimana vecka uke uge tydzień týden неделю тиждень hafta": 604800,
}
_EVERY_UNIT = {w: seconds for words, seconds in _EVERY_SECONDS.items() for w in words.split()}
_NTH = {
    2: "second other zweite zweiten deuxième segundo segunda secondo seconda tweede andra annan "
    "anden andet andre drugi drugą drugie druhý druhou druhé второй вторую другий другу "
    "ikinci",
    3: "third dritte dritten troisième tercer tercera terzo terza derde tredje trzeci trzecią "
    "trzecie třetí третий третью третій третю üçüncü",
    4: "fourth vierte vierten quatrième cuarto cuarta quarto quarta vierde fjärde fjerde czwarty "
    "czwartą čtvrtý четвертый четвертую четвертий dördüncü",
}
_NTH_WORD = {word: n for n, words in _NTH.items() for word in words.split()}
_EVERY_WORDS = frozenset(w for every, _ in _EVERY_BY_LANGUAGE for w in every.split())
_EVERY = re.compile(
    r"\b(?:"
    + "|".join(
        rf"(?:{_alternatives(every.split())})\s+(?:(?P<nth{i}>{_alternatives(_NTH_WORD)})\s+)?"
        rf"(?P<unit{i}>{_alternatives(units.split())})"
        for i, (every, units) in enumerate(_EVERY_BY_LANGUAGE)
    )
    + r")(?![^\W\d_])",
    _FLAGS,
)
_CJK_EVERY = {"毎時": 3600, "每小时": 3600, "每小時": 3600, "매시간": 3600, "毎日": 86400}
_CJK_EVERY |= {"每天": 86400, "每日": 86400, "매일": 86400, "隔日": 172800, "격일": 172800}
_CJK_EVERY |= {"毎週": 604800, "每周": 604800, "每週": 604800, "매주": 604800}
_CJK_EVERY |= {"隔週": 1209600, "隔周": 1209600, "격주": 1209600}
_CJK_EVERY_WORD = re.compile(_alternatives(_CJK_EVERY))
# A quarter and a half of an hour in words ("un quart d'heure", "eine Viertelstunde")
_SPOKEN = dict.fromkeys(
    "quarter of an hour|quarter-hour|quarter hour|quart d'heure|quart d’heure|viertelstunde|"
    "cuarto de hora|quarto d'ora|quarto d’ora|quarto de hora|kwartier|kwadrans|kvarter|"
    "čtvrt hodiny|çeyrek saat|четверть часа|чверть години|一刻钟|一刻鐘".split("|"),
    900,
)
_SPOKEN |= dict.fromkeys(
    "half an hour|half-hour|half hour|media hora|mezz'ora|mezz’ora|meia hora|pół godziny|"
    "půl hodiny|полчаса|пів години|півгодини|yarım saat|halvtimme|halvtime|halv time|"
    "半小时|半小時".split("|"),
    1800,
)
# Before a half or a quarter that is part of a longer duration: "dwie i pół godziny", "to og
# en halv time", "tre kvarter", "drie kwartier"
_COUNTED_BEFORE = re.compile(
    r"(?:[0-9]|\b(?:two|three|four|zwei|drei|vier|deux|trois|dos|tres|due|tre|twee|drie|vier|"
    r"två|tre|fyra|to|fire|dwie|trzy|cztery|dvě|tři|čtyři|два|три|iki|üç|dört)|"
    r"\b(?:and|und|et|e|y|en|och|og|i|a|и|ve)(?:\s(?:en|ett|et|a|an|une?|eine?))?)\s*$",
    _FLAGS,
)
_SPOKEN_WORDS = re.compile(rf"(?<![^\W\d_])(?:{_alternatives(_SPOKEN)})(?![^\W\d_])", _FLAGS)
_PAID_BY = [
    u for u in _LATIN_UNITS if _UNITS[u][0] == "duration" and _UNITS[u][1] >= 3600 and len(u) > 1
]
# After an amount of money, the unit of time it is paid or charged by, right after a word
# of rate: "$250 per week", "R$ 45 por dia útil", "€40 a day", "$40/hour" (not "$50 and",
# nor "$500 per user per month": the unit must come next).
# The words of rate before a unit of time, in the languages read: "per week", "a day",
# "im Monat", "om måneden", "za dzień", "в месяц", "на день", "per ogni giorno".
_EACH = r"(?:each|every|jede[nrs]?|chaque|cada|ogni|elke)"
_PER_WORDS = (
    r"(?:/\s?|(?:per|pro|par|por|a|an|je|im|om|i|à|al|za|в|на|за)\s(?:" + _EACH + r"\s)?"
    r"|" + _EACH + r"\s)"
)
_PER_UNIT = re.compile(
    rf"\s?{_PER_WORDS}(?P<unit>{_alternatives(_PAID_BY)})(?![^\W\d_])"
    r"|\s?/\s?(?P<short>h|d|w)(?![^\W\d_])",  # "40 €/h"
    _FLAGS,
)
# Before an amount of money, in its clause: "За каждую неделю дежурства выплачивается 8 000
# ₽", "Per week of on-call: €500", "Pro Tag gibt es 28 €" (not "a day before …, €50", nor
# one with a number between)
# Each, every: before a unit a rate is given per ("За каждую неделю … 8 000 ₽", "her ay
# 4.500 TL", "za každý den"), in the languages read
EACH = (
    r"(?:each|every|jede[nrs]?|chaque|cada|ogni|elke|iedere?|varje|hver|hvert|każd\w{0,2}"
    r"|každ\w{0,2}|кажд\w{0,3}|кожн\w{0,3}|кожен|her)"
)
_PER_UNIT_BEFORE = re.compile(
    rf"(?<![^\W\d_])(?:(?:per|pro|par|por|za|за|je)\s(?:{EACH}\s)?|{EACH}\s)"
    rf"(?P<unit>{_alternatives(_PAID_BY)})(?![^\W\d_])"
    # and no other word of rate between: "Je Woche Rufdienst gilt: pro Einsatz 80 €"
    rf"(?:(?!(?<![^\W\d_])(?:per|pro|par|por|za|за|je|{EACH})\s)[^0-9.;!?\n]){{0,40}}\Z",
    _FLAGS,
)
PER_BEFORE = 64  # characters before an amount its unit of time may be given in
# Any amount or count per unit of time, a noun between them allowed ("600 requests a
# minute", "€4,000 a month"): read as its value per second too, so the same rate written
# per another unit ("10 requests per second", "€48,000 a year") compares equal.
_PER_TIME = re.compile(
    rf"(?:\s[^\W\d_]{{3,20}})?\s?{_PER_WORDS}"
    rf"(?P<unit>{_alternatives(u for u in _LATIN_UNITS if _UNITS[u][0] == 'duration')})"
    r"(?![^\W\d_])",
    _FLAGS,
)
_WORD = re.compile(r"\w+")


@functools.lru_cache(maxsize=256)
def figures(text: str) -> frozenset[Key]:
    """The keys of every figure in `text` (what a source or a thread may confirm), and every
    number in it as a plain number, whatever its unit: a claim's "30-day" or "2026" is
    confirmed by a source's "30 days" or "2026-03-03". Cached: every attempt at a message,
    and every later message of its thread, gives the same sources and turns again."""
    rates: list[Key] = []
    parts: list[re.Match[str]] = []
    text = percent_last(text)
    keys = {key for found in read(text, starts(text), rates, parts) for key in found}
    keys.update(rates)
    keys |= {("day", value[5:]) for kind, value in keys if kind == "date"}  # "15. Mai"
    lowered = text.lower()
    words = set(_WORD.findall(lowered))  # one pass, not one search per word
    keys |= _periods(text, words)
    if "月" in text or "월" in text or not MONTH_NAMES.isdisjoint(words):
        keys |= _named_months(text)
    keys |= _ranges(text)
    keys |= _hourly(text)
    keys |= {
        ("monthday", str(int(n)))
        for m in _ORDINAL_DAY.finditer(text)
        if 1 <= int(n := m.group(1) or m.group(2)) <= 31
    }
    for m in parts[:MAX_DATES]:
        # each part too: "from 5 years 2 months" gives 5 years and 2 months
        keys |= {
            k for part in (m.group(1, 2), m.group(3, 4)) for f in claims(" ".join(part)) for k in f
        }
    if any(stem in lowered for stem in _MONTH_STEMS) and _MONTH_END.search(text):
        keys.add(("month", "end"))
    keys |= {("workdays", str(int(n))) for n in _WORKDAYS.findall(text)}
    for number in ANY_NUMBER.findall(text):
        keys.update(("number", canonical(v)) for v in written_values(number))
    return frozenset(keys)


def _month_of_year(m: re.Match[str]) -> frozenset[Key]:
    """A month of a year as its key ("month", "2025-03"), and its year as a number."""
    keys = _named_months(m.group())
    return frozenset(keys | {("number", key[1][:4]) for key in keys})


# A range of times of day: "22:00–08:00", "from 15:00 to 23:30", "de 9 h à 17 h", "〜"
_RANGE = re.compile(
    r"(?<![0-9])([0-9]{1,2})[:.]([0-5][0-9])\s?(?:[–—~〜-]|to|till|until|bis|à|a|al|tot|til|"
    r"do|до|ile|から)\s?([0-9]{1,2})[:.]([0-5][0-9])(?![0-9])",
    _FLAGS,
)


# An English day of the month: "on the 1st of each month", "paid on the 25th"
# A day of the month as such: "the 25th", "am 27.", "le 25", "el día 25", "den 25.", "25日",
# "25일", "25-го", "25 числа"
_ORDINAL_DAY = re.compile(
    r"(?<![0-9.,])([0-9]{1,2})(?:st|nd|rd|th|\.(?!\s?[0-9])|日|일|-?го|\s?числа)(?![0-9])"
    r"|\b(?:the|le|el|día|il|dia|den|am|dem|zum|op de|de)\s([0-9]{1,2})(?![0-9.,:])",
    re.IGNORECASE,
)


# A word of hours: an amount in the same clause is paid by the hour ("Stundenlohn 36 €",
# "時給は1,200円", "hourly rate: $40"), so whole days do not count it
_HOUR_WORDS = [u for u in _UNITS if _UNITS[u] == _UNITS["hour"] and len(u) > 1]
_HOURS = re.compile(
    rf"(?<![^\W\d_])(?:{_alternatives(w for w in _HOUR_WORDS if not re.search(f'[{CJK}]', w))}"
    r"|hourly|stundenlohn|stundensatz|horaire|saatlik|godzinow\w*|hodinov\w*)"
    r"|時給|时薪|時間|小时|小時|시급|시간",  # CJK words need no space before them
    _FLAGS,
)
_CLAUSE = re.compile(r"[^.;\n。；]+")
# A sign or code of money, which a clause needs for an amount: "€", "kr", "円", "EUR"
_MONEY_SIGN = re.compile(
    rf"[{CURRENCY_SYMBOLS}円元원]|\b(?:kr|zł|kč|tl|chf|usd|eur|gbp|sek|nok|dkk|pln|czk|try|rub|uah)\b",
    _FLAGS,
)


def _hourly(text: str) -> set[Key]:
    """The amounts of the clauses of `text` that speak of hours: ("hourly", amount)."""
    if not _HOURS.search(text):
        return set()
    return {
        ("hourly", raw)
        for clause in itertools.islice(_CLAUSE.finditer(text), MAX_DATES)
        if _HOURS.search(clause.group()) and _MONEY_SIGN.search(clause.group())
        for figure in claims(clause.group())
        for kind, raw in figure
        if kind == "money"
    }


def _ranges(text: str) -> set[Key]:
    """The durations of the ranges of times of day `text` writes, overnight too (22:00–08:00:
    10 hours); not their parts before and after midnight, which pass a slip of 8 hours."""
    found: set[Key] = set()
    for m in itertools.islice(_RANGE.finditer(text), MAX_DATES):
        start = int(m[1]) * 3600 + int(m[2]) * 60
        end = int(m[3]) * 3600 + int(m[4]) * 60
        if start >= 86400 or end > 86400:
            continue
        if span := (end - start) % 86400:
            found.add(("between", str(span)))
    return found


def _compound(m: re.Match[str]) -> frozenset[Key]:
    """A duration in two units, the second smaller than the first, as their sum; nothing
    for two that are not one duration ("3 days 4 weeks")."""
    first = _UNITS.get(_hours_or_year(m[2].lower(), frozenset({_plain(m[1])}), m.string, m.start()))
    second = _UNITS.get(m[4].lower())
    if first is None or second is None or second[1] >= first[1]:
        return frozenset()
    total = sum(
        (v * unit[1] for v, unit in ((_plain(m[1]), first), (_plain(m[3]), second))),
        Fraction(0),
    )
    return frozenset({("duration", canonical(total))})


def _hours_or_year(unit: str, values: frozenset[Fraction], text: str, at: int) -> str:
    """ "год" is a year in Russian ("1 год", "за 2025 год") and hours in Ukrainian, short for
    "годин" ("8 год 46 хв", "Зустріч триває 1 год."): hours in a text with Ukrainian
    letters; else a year after a year's number, hours after a number Russian says "лет"
    or "года" after (one not ending in 1, or ending in 11), and after one ending in 1 a
    year unless the language model reads the words around it as Ukrainian ("Навчання
    займе 21 год.", in letters both languages write)."""
    if unit != "год" or not values:
        return unit
    if _UKRAINIAN.search(text):
        return "годин"
    value = min(values)
    if value.denominator != 1:
        return "годин"
    if 1900 <= value <= 2100:
        return unit
    if value % 10 != 1 or value % 100 == 11:
        return "годин"
    return "годин" if _in_ukrainian(text[max(0, at - _AROUND) : at + _AROUND]) else unit


_UKRAINIAN = re.compile("[іїєґІЇЄҐ]")
_AROUND = 80  # characters each side of "год" the language model reads


@functools.lru_cache(maxsize=256)
def _in_ukrainian(words: str) -> bool:
    return language.detector().likeliest(words)[0] == "uk"


def _plain(number: str) -> Fraction:
    """A short number written with a decimal comma or point."""
    return Fraction(number.replace(",", "."))


def _named_months(text: str) -> set[Key]:
    """The months `text` names: ("month", "2026-05"), or ("month", "05") without a year.
    Where the texts speak of a month's end, the last days of the months they name are the
    calendar's (`Known._reachable`)."""
    found: set[Key] = set()
    for m in _NAMED_MONTH.finditer(text):
        number = _MONTHS.get(m["name"].lower(), 0) if m["name"] else int(m["number"])
        year = m["year"] or m["cjk_year"]
        if 1 <= number <= 12:
            found.add(("month", f"{year}-{number:02d}" if year else f"{number:02d}"))
    return found


def claims(text: str) -> Iterator[frozenset[Key]]:
    """Each figure of `text` as the keys any one of which confirms it."""
    return iter(_claimed(text))


@functools.lru_cache(maxsize=4096)
def _claimed(text: str) -> tuple[frozenset[Key], ...]:
    """The figures of `text` (cached: a claim, its working and each operand are read again
    for every reading of a calculation and every attempt at a message)."""
    text = percent_last(text)
    return tuple(read(text, starts(text)))


# A percentage written sign first, as Turkish does ("%18", "%2,5"); not a URL's escape
# ("%2F", "a%20b") nor a format ("%5d")
_PERCENT_FIRST = re.compile(r"(?<![\w%])%([0-9]+(?:[.,][0-9]+)?)(?![0-9]|[^\W\d_])")


def percent_last(text: str) -> str:
    """`text` with a percentage written sign first written sign last ("%18" as "18%"): the
    same length, so every figure keeps its place."""
    if "%" not in text:
        return text
    return _PERCENT_FIRST.sub(lambda m: f"{m.group(1)}%", text)


def read(
    text: str,
    begins: Begins | None,
    rates: list[Key] | None = None,
    compounds: list[re.Match[str]] | None = None,
) -> Iterator[frozenset[Key]]:
    """The figures of `text`, each pattern tried at its `begins` (None: everywhere); and,
    into `rates`, each amount of money given per unit of time ("$250 per week")."""
    blanked: list[int] = []
    text, _ = _take(text, _OFFSET, _no_figure, begins, blanked)  # "UTC+5:30" is no 05:30
    text, dates = _take_dates(text, begins, blanked)
    yield from dates
    text, months = _take(text, _MONTH_OF_YEAR, _month_of_year, begins, blanked)
    yield from months
    text, versions = _take(text, _VERSION, _version, begins, blanked)
    yield from versions
    text, clocks = _take(text, _CLOCK, _clock, begins, blanked)
    yield from clocks
    text, durations = _take(
        text, _COMPOUND_DURATION, _compound, begins, blanked, blank_unread=False, read=compounds
    )
    yield from durations
    for m in matches(_QUANTITY, text, begins, blanked):
        keys = _quantity(m)
        if keys:
            yield keys | _per_second(keys, text, m.end())
        if rates is not None and keys and next(iter(keys))[0] == "money":
            per = _PER_UNIT.match(text, m.end()) or _PER_UNIT_BEFORE.search(
                text, max(m.start() - PER_BEFORE, 0), m.start()
            )
            if per is not None:
                seconds = _UNITS[(per.group("unit") or per.group("short")).lower()][1]
                rates.extend(("rate", f"{value}/{canonical(seconds)}") for _, value in keys)


# Each form of a date, and the orders of day, month and year it is read in
_DATE_ORDERS = (
    (_ISO_DATE, "ymd"),
    (_CJK_DATE, "ymd"),
    (_DOTTED_DATE, "dmy"),
    (_SHORT_DOTTED, "dmy"),
    (_SLASHED_DATE, "dmy mdy"),  # 03/04/2026: either, as nothing tells which
    (_MONTH_DAY, "mdy"),
    (_DAY_MONTH, "dmy"),
)


def _no_figure(m: re.Match[str]) -> frozenset[Key]:
    return frozenset()


def _take_dates(
    text: str, begins: Begins | None, blanked: list[int]
) -> tuple[str, list[frozenset[Key]]]:
    found: list[frozenset[Key]] = []
    for pattern, orders in _DATE_ORDERS:
        text, dates = _take(
            text,
            pattern,
            functools.partial(_date, orders=orders.split()),
            begins,
            blanked,
            blank_unread=pattern is not _SHORT_DOTTED,  # "kl. 16.00." is a time
        )
        found += dates
    return text, found


def dated(text: str) -> list[tuple[int, int, frozenset[Key]]]:
    """Where each date of `text` is written, and its keys, read as `figures` reads them
    (each form in turn, a later form not where an earlier one was read)."""
    found: list[tuple[int, int, frozenset[Key]]] = []
    for pattern, orders in _DATE_ORDERS:
        for m in pattern.finditer(text):
            if any(start < m.end() and m.start() < end for start, end, _ in found):
                continue
            if keys := _date(m, orders.split()):
                found.append((m.start(), m.end(), keys))
    return sorted(found, key=lambda span: span[0])


def _take(
    text: str,
    pattern: re.Pattern[str],
    key: Callable[[re.Match[str]], frozenset[Key]],
    begins: Begins | None,
    blanked: list[int],
    *,
    blank_unread: bool = True,
    read: list[re.Match[str]] | None = None,
) -> tuple[str, list[frozenset[Key]]]:
    """The figures `pattern` finds, and the text with them blanked out (where each ended
    is added to `blanked`); a match that is no figure is blanked too, unless not
    `blank_unread`."""
    found: list[frozenset[Key]] = []
    parts: list[str] = []
    last = 0
    for m in matches(pattern, text, begins, blanked):
        keys = key(m)
        if keys:
            found.append(keys)
            if read is not None:
                read.append(m)
        elif not blank_unread:
            continue  # left to be read otherwise: "3 days 4 weeks" is two figures
        parts += (text[last : m.start()], " " * (m.end() - m.start()))
        blanked.append(m.end())
        last = m.end()
    parts.append(text[last:])
    return "".join(parts), found


# Where a match of the patterns that open on a word or a lookbehind can begin: `re` tries
# those at every character, an alternation of hundreds of words each time (the figures of
# a 4 KB passage took ~11 ms). Each is tried only where one of its matches can begin, as
# `finditer` would find them: a quantity at a currency sign (or the R of R$), a numeral of
# Chinese or Japanese, the first digit of a run not glued to a letter before it (a
# figure may follow a CJK character, not a Latin one), or a word that begins a number, a
# half or a currency code; a written date at a month's name; a version at its name or a
# run of digits; a date or a time at a run of digits. Case is folded as `re` folds it,
# but for the Turkish ı and İ and the long ſ, which `re` alone reads as i and s: a text
# with one is read by `re`.
# A currency sign, the R of R$, or a run of CJK numerals (a figure begins at its first)
_SIGN = re.compile(
    "[$€£¥₹]|[rR](?=\\$)|[一二两兩三四五六七八九十]+|(?<![上下大])半(?=年|小时|小時)"
)
_DIGITS = re.compile("[0-9]+")
_GLUED = re.compile(rf"[^\W{CJK}]")  # a letter or digit of a script written with spaces
_LETTERS = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")  # "п'ять", "дев'ять": one word
_QUANTITY_WORDS = frozenset(
    word.split("-")[0].split(" ")[0] for word in (*_WORDS, *_HALVES, *_CURRENCY_FIRST)
)
MONTH_NAMES = frozenset(_MONTHS)  # the months' names and short forms, lowercased
_VERSION_WORDS = frozenset({"v", "version", "release"})
_NAMES = _QUANTITY_WORDS | MONTH_NAMES | _VERSION_WORDS
_FOLDED_APART = ("\u0131", "\u0130", "\u017f")
_CJK_HOURS = ("時", "点", "點", "시")
Begins = dict[re.Pattern[str], list[int]]


def starts(text: str) -> Begins | None:
    """Where each pattern's figures can begin in `text`, in order; None when `re` must
    fold the text itself. A pattern left out is read by `finditer`."""
    if any(c in text for c in _FOLDED_APART):
        return None
    runs = [m.start() for m in _DIGITS.finditer(text)]
    free = [at for at in runs if at == 0 or _GLUED.match(text, at - 1) is None]
    words: dict[str, list[int]] = {}
    for m in _LETTERS.finditer(text):
        if (word := m.group().lower()) in _NAMES:
            words.setdefault(word, []).append(m.start())

    def at(names: frozenset[str]) -> list[int]:
        return [where for name in names & words.keys() for where in words[name]]

    signs = [m.start() for m in _SIGN.finditer(text)]
    begins = {
        _QUANTITY: sorted({*free, *signs, *at(_QUANTITY_WORDS)}),
        _MONTH_DAY: sorted(at(MONTH_NAMES)),
        _VERSION: sorted({*free, *at(_VERSION_WORDS)}),
    }
    # Dates that open on a run of digits; a CJK date needs 月 or 월 (it may begin inside a
    # run); a clock time, unless it is written with 時, 点 or 시 (after 午後 or 오후), at a
    # run too
    # (none where the text lacks what the pattern needs: a dash, a dot, a slash, a month's
    # name, two numbers)
    months = at(MONTH_NAMES)
    begins[_ISO_DATE] = runs if "-" in text else []
    begins[_DOTTED_DATE] = runs if "." in text else []
    begins[_SLASHED_DATE] = runs if "/" in text else []
    begins[_DAY_MONTH] = runs if months else []
    begins[_COMPOUND_DURATION] = runs if len(runs) > 1 else []
    # a month of a year opens on its name, or on the year before 年 or 년
    years = runs if "年" in text or "년" in text else []
    begins[_MONTH_OF_YEAR] = sorted({*months, *years})
    if "月" not in text and "월" not in text:
        begins[_CJK_DATE] = []
    if not any(hour in text for hour in _CJK_HOURS):
        begins[_CLOCK] = runs
    return begins


def matches(
    pattern: re.Pattern[str], text: str, begins: Begins | None, blanked: list[int]
) -> list[re.Match[str]]:
    """`pattern.finditer(text)`, tried only at its `begins` (from `starts`) and where a
    figure blanked out of the text ended (`blanked`: a word may begin there now); the
    patterns without begins, and texts with none, by `finditer`."""
    if begins is None or pattern not in begins:
        return list(pattern.finditer(text))
    found: list[re.Match[str]] = []
    end = 0
    tried = begins[pattern]
    if not tried and not blanked:
        return found
    for at in sorted({*tried, *blanked}) if blanked else tried:
        if at >= end and (m := pattern.match(text, at)) is not None:
            found.append(m)
            end = max(m.end(), at + 1)
    return found


def _date(m: re.Match[str], orders: list[str]) -> frozenset[Key]:
    keys: set[Key] = set()
    if m.re is _SHORT_DOTTED and not (
        _SHORT_BEFORE.search(m.string, max(m.start() - 20, 0), m.start())
        or (
            int(m.group(1)) >= 24
            and _SHORT_OR_TIME.search(m.string, max(m.start() - 20, 0), m.start())
        )
    ):
        return frozenset()  # "1.05." is a ratio at a sentence's end
    for order in orders:
        parts = dict(zip(order, m.groups(), strict=True))
        month = parts["m"]
        month_number = int(month) if month.isdigit() else _MONTHS.get(month.lower().rstrip("."), 0)
        if not 1 <= month_number <= 12 or not 1 <= int(parts["d"]) <= 31:
            continue
        day = f"{month_number:02d}-{int(parts['d']):02d}"
        keys.add(("date", f"{parts['y']}-{day}") if parts["y"] else ("day", day))
    return frozenset(keys)


def _version(m: re.Match[str]) -> frozenset[Key]:
    """A version; a source may write it as a bare number ("2.3"), and "1.500.000" may be
    a million and a half."""
    version = m.group(1) or m.group(2)
    if version.count(".") > 1:
        if _DOT_THOUSANDS.fullmatch(version):  # 1.500.000: a number with German thousands
            return frozenset({("version", version), ("number", version.replace(".", ""))})
        return frozenset({("version", version)})
    return frozenset({("version", version), ("number", version)})


def _clock(m: re.Match[str]) -> frozenset[Key]:
    """A time of day, 24-hour ("15:30"), 12-hour ("3:30 pm"), German ("15.30 Uhr"), with a
    dot ("kl. 11.00", "18.15'te": also a decimal), French ("18h30"; "à 9 h 30", and "3 h
    30" as a duration: `_spaced`) or Japanese, Chinese and Korean ("午後3時", "晚上9点",
    "오후 2시"), as one 24-hour key; two when a 12-hour CJK hour says neither morning nor
    afternoon ("3時")."""
    hour_text = m.group("h") or m.group("h2") or m.group("h3")
    minute = 30 if m.group("m30") else int(m.group("m") or m.group("m3") or 0)
    half = (m.group("ap") or m.group("ap2") or "").lower()
    night = m.group("half") in ("밤", "夜")  # "밤 9시" 21:00; "밤 1시", "深夜1時", "밤 12시" a.m.
    if m.group("half") in ("午後", "下午", "晚上", "오후", "저녁") or (
        night and 6 <= int(hour_text) <= 11
    ):
        half = "p"
    elif night or m.group("half") in ("午前", "上午", "早上", "오전", "새벽", "아침", "朝"):
        half = "a"
    hour = int(hour_text)
    if m.group("spaced"):
        return _spaced(m, hour, minute)
    if m.group("h3") and not half and 1 <= hour <= 11:  # "3時45分": 3:45 or 15:45
        return frozenset(
            {("time", f"{hour:02d}:{minute:02d}"), ("time", f"{hour + 12}:{minute:02d}")}
        )
    decimal: frozenset[Key] = frozenset()
    if m.group("dotted"):  # "18.15": a quarter past six in the evening, or a number
        written = m.group()[: m.end("m") - m.start()]
        decimal = frozenset(("number", canonical(v)) for v in written_values(written))
        # or a date, written with a leading zero or a closing dot ("14.03", "13.10."; not
        # "3.12", a version, or "12.10", a price)
        zero = written.startswith("0") or written.split(".")[-1].startswith("0")
        dated = zero or _CLOSING_DOT.match(m.string, m.end()) is not None
        at = _AT_CLOCK.search(m.string, max(m.start() - 8, 0), m.start())
        clock = "uhr" in m.group().lower() or at is not None
        day = f"{minute:02d}-{hour:02d}"
        named = _NAMED_BEFORE.search(m.string, max(m.start() - 16, 0), m.start())  # "Ubuntu 22.04"
        clock = clock or named is not None
        if dated and len(written.split(".")[0]) == 2 and not clock and _iso_date(f"2028-{day}"):
            decimal |= {("day", day)}
    if half:
        if not 1 <= hour <= 12:
            return decimal
        hour = hour % 12 + (12 if half == "p" else 0)
    if hour > 24 or minute > 59:
        return decimal
    return decimal | {("time", f"{hour % 24:02d}:{minute:02d}")}


# Signs of a calculation around "9 h 30", which may then be a time or a duration
_SIGN_AFTER = re.compile(r"\s?[+−=≈]")
_SIGN_BEFORE = re.compile(r"[+−=≈]\s?$")
# A name before a number with a dot, a version: "Ubuntu 22.04", "Python 3.12"
_NAMED_BEFORE = re.compile(r"\b[A-Z][a-z]+\s\Z")
# A word before a time of day written with a dot: "kl. 10.05", "um 08.05", "at 10.05"
_AT_CLOCK = re.compile(r"\b(?:kl|klo|kello|um|at|à|alle|om|o|в|о|saat|godz|ab|bis)\.?\s?\Z", _FLAGS)
# The dot that closes a German day and month, not a sentence: "13.10., 14:00", "14.10. um"
_CLOSING_DOT = re.compile(r"\.(?:\s?[,;)]|\s+[^\W\d_](?<![A-ZÀ-ÞА-ЯĀ-Ž])|\s?[0-9])")
# Words after which "9 h 30" is a time of day, not a duration
_AT = re.compile(
    r"(?:\b(?:à|a|de|dès|des|vers|jusqu'à|jusqu’à|entre|et|kl|um|at|from|to)\.?|[–-])\s*$",
    _FLAGS,
)


def _spaced(m: re.Match[str], hour: int, minute: int) -> frozenset[Key]:
    """ "9 h 30": a time of day after a word of time ("à 9 h 30", "de 22 h 00 à 01 h 30"),
    else a duration ("ça fait 3 h 30", "38 h 30 par semaine"); in a calculation, either
    ("donc 9 h 30 + 15 min = 9 h 45")."""
    time = ("time", f"{hour % 24:02d}:{minute:02d}")
    if hour <= 24 and _AT.search(m.string, max(m.start() - 12, 0), m.start()):
        return frozenset({time})
    duration = ("duration", canonical(Fraction(hour * 3600 + minute * 60)))
    working = _SIGN_AFTER.match(m.string, m.end()) or _SIGN_BEFORE.search(
        m.string, max(m.start() - 3, 0), m.start()
    )
    return frozenset({duration, time} if hour <= 24 and working else {duration})


def _quantity(m: re.Match[str]) -> frozenset[Key]:
    number, multiplier = m.group("num"), m.group("mult")
    unit = (m.group("unit") or m.group("glued") or "").lower()
    values = _scaled(written_values(number), multiplier, m.group("sym"))
    if not values:
        return frozenset()
    if m.group("and_half") and unit:
        values = frozenset(v + Fraction(1, 2) for v in values)
    halves = _HALVES.get((m.group("adjective") or "").lower())
    if halves is not None:  # "ein halbes Jahr": one half year
        values = frozenset(v * halves for v in values)
    named = _named_day(m, number, unit, values)
    if named is not None:
        return named
    if number.lower() in _FORTNIGHT and _UNITS.get(unit) == _UNITS["day"]:
        values |= {Fraction(14)}
    money = _UNITS.get(unit, ("",))[0] == "money"
    if m.group("sym") or money:
        cents = _UNITS[unit][1] if money else Fraction(1)
        return frozenset({("money", canonical(v * cents)) for v in values})
    if unit == "折":  # "85折", "8.5折": 85 % of the price
        values = frozenset(v / 10 if v >= 10 else v for v in values)
    if unit in _UNITS:
        keys = _with_unit(values, _hours_or_year(unit, values, m.string, m.start()))
        if _UNITS[unit] == _UNITS["day"] and _working(m):  # five to a week: seven days
            keys |= _with_unit(frozenset(v * Fraction(7, 5) for v in values if v % 5 == 0), unit)
            keys |= {("workdays", canonical(v)) for v in values if v.denominator == 1}
        return keys
    plain = frozenset(("number", canonical(v)) for v in values)
    if multiplier:
        return plain
    # A spelled number with no unit ("seize", "doze", "venti" are words too), or a lone
    # digit (a count, a step), is no claim.
    spelled = not number[0].isdigit()
    small = max(values) < 10 and not re.search(r"[.,]", number)
    return frozenset() if spelled or small else plain


_CONVERTS = ("算", "合", "旧", "返")  # 折算, 折合: converted; 折旧: depreciation


def _named_day(
    m: re.Match[str], number: str, unit: str, values: frozenset[Fraction]
) -> frozenset[Key] | None:
    """What a number before a CJK unit names when it counts nothing: "3분기" the third
    quarter and "10주년" a tenth anniversary (no figure), "最后一天", "前一天", "同一天" the
    last, the previous, the same day (no figure), "第1日曜日" the first Sunday (no figure),
    "每月25日" the 25th of each month, "按 1:1 折算" converted (no tenth off); None for a
    count."""
    if unit == "折" and m.string.startswith(_CONVERTS, m.end()):
        return frozenset()
    ordinal = unit in _NOT_AFTER and m.string.startswith(_NOT_AFTER[unit], m.end())
    # "п. 3 ч. 1 ст. 81": a part of a law, not 3 hours
    ordinal = ordinal or (unit == "ч" and _LAW_PART.match(m.string, m.end()) is not None)
    before = max(m.start() - 2, 0)
    determined = number == "一" and _DETERMINERS.search(m.string, before, m.start()) is not None
    if ordinal or determined or (unit == "日" and m.string.startswith("曜", m.end())):
        return frozenset()
    if unit == "日" and m.string.endswith(("毎月", "每月"), 0, m.start()):
        return frozenset({("monthday", canonical(min(values)))})
    return None


def _per_second(keys: frozenset[Key], text: str, end: int) -> frozenset[Key]:
    """A rate's value per second, of an amount or a count followed by a unit of time."""
    kinds = {kind for kind, _ in keys}
    if not kinds <= {"money", "number"}:
        return frozenset()
    per = _PER_TIME.match(text, end)
    if per is None:
        return frozenset()
    _, scale = _UNITS[per.group("unit").lower()]
    spans = {scale, *_ALSO.get(scale, ())}
    return frozenset(
        ("per", f"{kind}:{canonical(Fraction(raw) / span)}") for kind, raw in keys for span in spans
    )


def _working(m: re.Match[str]) -> bool:
    """Whether a count of days counts working days ("10 working days", "10 Arbeitstage")."""
    before = (m.group("adjective") or m.group("compound") or "").lower()
    return before in _WORKING or m.group("working") is not None


def _scaled(
    values: frozenset[Fraction], multiplier: str | None, sign: str | None = None
) -> frozenset[Fraction]:
    """The values times their multiplier ("1.2k"); none for a multiplier matched only by
    ignoring case and not one we know ("MİO"); "mi" and "bi" only after "R$"."""
    if not multiplier:
        return values
    if multiplier.lower() in _AFTER_REAIS and sign != "R$":
        return values  # "30 mi" is thirty, of miles or of something else
    times = _MULTIPLIERS.get(multiplier) or _FOLDED_MULTIPLIERS.get(
        multiplier.casefold().rstrip(".")
    )
    return frozenset() if times is None else frozenset(v * times for v in values)


def _with_unit(values: frozenset[Fraction], unit: str) -> frozenset[Key]:
    kind, unit_scale = _UNITS[unit]
    scales = {unit_scale, *_ALSO.get(unit_scale, ())}
    if kind == "size":
        scales.add(_decimal(unit_scale))
    keys = {(kind, canonical(v * s)) for v in values for s in scales}
    if unit_scale == _UNITS["year"][1]:  # "2025年", "2025년": a year of the calendar
        keys |= {("number", canonical(v)) for v in values if v.denominator == 1 and v >= 1000}
    if unit_scale in _CALENDAR:  # a span of days: "13 months" are 393 to 397 days, give or take
        keys |= {_span_key(v * _CALENDAR[unit_scale]) for v in values}
    if unit in _CLOCK_UNITS:  # "18h": 18 hours, or 6 pm
        keys |= {("time", f"{int(v):02d}:00") for v in values if v.denominator == 1 < v <= 24}
    return frozenset(keys)


@functools.lru_cache(maxsize=4096)
def written_values(number: str) -> frozenset[Fraction]:
    """The values a written number can mean: "1,000" is a thousand, "1,5" one and a half,
    "1.000" a thousand in German or one in English, "1 000" and "1'000" a thousand."""
    word = _WORDS.get(number.lower())
    if word is not None:
        return frozenset({Fraction(word)})
    if number == "半":
        return frozenset({Fraction(1, 2)})
    if number.endswith(("个半", "個半")):
        return frozenset({Fraction(_cjk_value(number[:-2])) + Fraction(1, 2)})
    if number[0] in _CJK_DIGITS or number[0] == "十":
        return frozenset({Fraction(_cjk_value(number))})
    half = _HALVES.get(number.lower())
    if half is not None:
        return frozenset({half})
    compact = number.replace("\u202f", "").replace("\u00a0", "")
    if _SPACE_THOUSANDS.fullmatch(compact):  # 1 000, 1'000
        read = {compact.replace(" ", "").replace("'", "")}
    elif _COMMA_THOUSANDS.fullmatch(compact):  # 12,000
        read = {compact.replace(",", "")}
    elif _DOT_THOUSANDS.fullmatch(compact):  # 1.000: German thousands, or 1.0
        read = {compact.replace(".", ""), compact}
    elif _GROUPED_DECIMAL.fullmatch(compact):  # 1,000.5 or 1.000,5
        cut = max(compact.rfind("."), compact.rfind(","))  # the decimal mark is the last
        whole = compact[:cut].replace(",", "").replace(".", "").replace(" ", "")
        read = {f"{whole}.{compact[cut + 1 :]}"}
    else:
        read = {compact.replace(",", ".").replace(" ", "").replace("'", "")}
    values = set()
    for candidate in read:
        try:
            values.add(Fraction(candidate))
        except ValueError:  # not a number after all
            continue
    return frozenset(values)


def _cjk_value(numeral: str) -> int:
    """十 is ten, 二十 twenty, 十四 fourteen, 二十四 twenty-four, 两 two."""
    tens, ten, units = numeral.partition("十")
    if not ten:
        return _CJK_DIGITS[numeral]
    return _CJK_DIGITS.get(tens, 1) * 10 + _CJK_DIGITS.get(units, 0)


def _decimal(scale: Fraction) -> Fraction:
    """A binary size unit read as decimal (vendors write GB for both)."""
    power = 0
    while scale >= 1024:
        scale, power = scale / 1024, power + 1
    return Fraction(1000**power)


def canonical(value: Fraction) -> str:
    """A value as a key: whole, or to 12 significant digits ("14814.72", not "14814.7")."""
    return str(value.numerator) if value.denominator == 1 else f"{float(value):.12g}"


def _periods(text: str, words: AbstractSet[str]) -> set[Key]:
    """Words that state a duration without a digit: "daily" is every 24 hours; and a
    cycle's step ("every hour", "jede zweite Woche", "隔週"), which is given as itself but
    takes part in no sum ("cada semana" and "3 días" give no "4 días"). `words`: the
    text's words, lowercased."""
    keys = {("duration", str(s)) for w, s in _PERIODS.items() if w in words}
    periods = {s for w, s in _CALENDAR_PERIODS.items() if w in words}
    if _CJK_TEXT.search(text):  # words not set apart by spaces, nor after a count ("3年間")
        periods |= {CJK_PERIODS[m.group()] for m in _CJK_PERIOD.finditer(text)}
    if _MONTH_SECONDS in periods:  # a month: 30 days or a twelfth of a year
        periods.add(_YEAR_SECONDS // 12)
    if _YEAR_SECONDS // 4 in periods:  # a quarter: three months of 30 days
        periods.add(3 * _MONTH_SECONDS)
    keys |= {("period", str(s)) for s in periods}
    for m in _EVERY.finditer(text) if not _EVERY_WORDS.isdisjoint(words) else ():
        unit, nth = next(
            (u, m[f"nth{i}"]) for i, _ in enumerate(_EVERY_BY_LANGUAGE) if (u := m[f"unit{i}"])
        )
        seconds = _EVERY_UNIT.get(unit.lower())  # None: "ſ" folded
        times = _NTH_WORD.get((nth or "").lower(), 1)
        if seconds is not None:
            keys.add(("every", canonical(Fraction(seconds * times))))
            if times > 1:  # every second, third … one: a cycle a date may step by
                keys.add(("cycle", canonical(Fraction(seconds * times))))
    if _CJK_TEXT.search(text):
        for m in _CJK_EVERY_WORD.finditer(text):
            seconds = _CJK_EVERY[m.group()]
            keys.add(("every", str(seconds)))
            if m.group()[0] in "隔격":  # every other one
                keys.add(("cycle", str(seconds)))
    for m in _SPOKEN_WORDS.finditer(text):
        seconds = _SPOKEN.get(m.group().lower())
        if seconds is not None and not _COUNTED_BEFORE.search(
            text, max(m.start() - 16, 0), m.start()
        ):
            keys.add(("duration", str(seconds)))
    return keys


ARITHMETIC_POOL = 1000  # most known figures of one kind combined (a bound on the work)
PAID_POOL = 50  # rates, and counts of their units, multiplied together (a bound on the work)
SHARE_PERCENTS = 20  # most percentages applied to them
_GROUPS = {"time": "duration"}  # a difference of times of day is a duration
# The durations a date may be shifted by (seconds): a day earlier or later is a slip
# (03-04 for the source's 03-03, with "daily" in it), not arithmetic.
MIN_DATE_SHIFT, MAX_DATE_SHIFT = 2 * 86400, 5 * 365 * 86400
BOTH_WAYS = frozenset({-1, 1})  # a shift forward and back
MAX_DATES = 50  # given dates, and shifts of each kind, read (a bound on the work)
MAX_MONTHS = 1200  # a century
OPERAND_SHARE = Fraction(1, 50)  # each operand is at least this share of the result
_CONTINUED = frozenset({"money", "duration", "size"})  # the kinds a worked result goes on in
# Words that take a share off: the share is then not added ("minus 20% … $8,640")
TAKEN_OFF = re.compile(
    r"(?<![^\W\d_])(?:minus|less|off|discount|abzüglich|abzgl|rabatt|nachlass|moins|remise|"
    r"réduction|menos|descuento|meno|sconto|korting|min|rabat|zniżk\w*|sleva|slevy|skidk\w*|"
    r"скидк\w*|знижк\w*|indirim\w*|desconto)(?![^\W\d_])|割引|折扣|优惠|할인",
    re.IGNORECASE,
)
STEPS = frozenset({"duration", "every"})  # keys of the durations a time or a list steps by
FACTORS = 200  # counts a figure may be multiplied or divided by (a bound on the work)
MAX_FACTOR = 1000
# A count the asker writes, of things: not glued to a word or another number ("14
# people", not "Q2", "P1", "#2", "v2" or a date's "03"), nor a figure ("2 weeks", "€50",
# "CHF 30", "20%")
_FREE_COUNT = re.compile(
    r"(?<![\w.,/:#$€£¥₹-])(?<![0-9][\x20\u00a0\u202f'])(?<!(?-i:[A-Z]{3})\s)"
    r"[0-9]{1,4}(?![\w/:%％-]|[.,][0-9])"
    r"(?![\x20\u00a0\u202f'][0-9]{3}(?![0-9]))"  # not a part of "10 000"
    rf"(?!\s?(?:{_alternatives(_LATIN_UNITS)})(?![^\W\d_]))"
    rf"(?!\s?(?:{_alternatives(_GLUED_UNITS)}))",
    _FLAGS,
)


# A unit an amount is given per: "per GB", "pro km", "/GB", "par Go"
_PER_NAMED = re.compile(r"(?:\b(?:per|pro|par|por|je|za)\s|/)([^\W\d_]{1,5})\b", _FLAGS)


# An offset from UTC: "UTC+7", "GMT−4", "UTC+5:30"; and the zones written by name whose
# offset is fixed (not CST, which is China's, Cuba's and the US's)
_OFFSET = re.compile(  # not working: "16:00 UTC + 3 h"
    r"(?<![A-Za-z])(?:UTC|GMT)([+−–-])\s?([0-9]{1,2})(?:[:.]?([0-9]{2}))?(?![0-9])"
    r"(?!\s?(?:h|hrs?|hours?|std|stunden?|heures?|horas?|ore|uur|ч|час|часа|часов|годин[иа]?|"
    r"timer?|timmar|godz|hod|saat|時間|小时|小時|시간)(?![^\W\d_]))"
)
_ZONES = {
    "UTC": 0, "GMT": 0, "CET": 1, "CEST": 2, "EET": 2, "EEST": 3, "MSK": 3, "МСК": 3,
    "IST": 5.5, "JST": 9, "KST": 9, "PST": -8, "PDT": -7, "EST": -5, "EDT": -4,
    "北京时间": 8, "北京時間": 8, "日本時間": 9, "한국 시간": 9, "MEZ": 1, "MESZ": 2,
    "SEČ": 1, "SELČ": 2, "TSİ": 3, "TRT": 3, "SGT": 8, "BRT": -3, "AEST": 10, "AEDT": 11,
}  # fmt: skip
_ZONE = re.compile(
    "|".join(
        re.escape(z) if z[0] > "\u3000" else rf"(?<![A-Za-zА-Яа-я]){z}(?![A-Za-zА-Яа-я])"
        for z in sorted(_ZONES, key=len, reverse=True)
    )
)


def zones(text: str) -> frozenset[Fraction]:
    """The offsets from UTC `text` gives, in seconds: a time zone's difference from another
    is a fact of the world, which a conversion of a time may use ("20:00 + 4 h")."""
    return frozenset(offset for _, _, offset in _zone_marks(text))


def zoned_times(text: str) -> list[tuple[Fraction, Fraction]]:
    """Each time of day `text` gives with the offset written beside it: the nearest after
    it in its clause ("15:00 CET – and in Tokyo (JST)?": CET; "от 20:00 до 08:00 по
    московскому времени (UTC+3)"), else the nearest before ("UTC 02:00–04:00")."""
    marks = _zone_marks(text)
    found: list[tuple[Fraction, Fraction]] = []
    if not marks:
        return found
    for m in itertools.islice(_CLOCK.finditer(text), MAX_DATES):
        after = [z for z in marks if z[0] >= m.end() and not _BREAK.search(text, m.end(), z[0])]
        before = [
            z for z in marks if z[1] <= m.start() and not _BREAK.search(text, z[1], m.start())
        ]
        zone = after[0] if after else before[-1] if before else None
        if zone is not None:
            found += [
                (value, zone[2])
                for kind, raw in _clock(m)
                if kind == "time" and (value := key_value(kind, raw)) is not None
            ]
    return found


def _zone_marks(text: str) -> list[tuple[int, int, Fraction]]:
    """Where `text` writes an offset from UTC or a zone's name, and its offset in seconds."""
    marks = [
        (m.start(), m.end(), Fraction(int(_ZONES[m.group()] * 3600)))
        for m in _ZONE.finditer(text)
        if not _OFFSET.match(text, m.start())  # "UTC+7" is +7, not UTC too
    ]
    for m in _OFFSET.finditer(text):
        sign = -1 if m.group(1) != "+" else 1
        offset = Fraction(int(m.group(2)) * 3600 + int(m.group(3) or 0) * 60)
        marks.append((m.start(), m.end(), sign * offset))
    return sorted(marks)


_BREAK = re.compile(r"[.;!?。；](?:\s|$)|\n")  # the end of a clause


def _count(value: Fraction) -> bool:
    """Whether a number can count things a figure is multiplied or divided by."""
    return value.denominator == 1 and 2 <= value <= MAX_FACTOR


@dataclass(frozen=True)
class Known:
    """The figures a claim may use: every key the sources, the message and the thread give,
    and the values of each kind, for sums, differences and ratios."""

    keys: frozenset[Key]
    pools: dict[str, frozenset[Fraction]]
    shares: dict[str, frozenset[Fraction]]  # a given percentage of a given figure, by kind
    ratios: tuple[Fraction, ...]  # the numbers as written, which a percentage may compare
    rates: frozenset[tuple[Fraction, Fraction]] = frozenset()  # (money, per seconds)
    paid: frozenset[Fraction] = frozenset()  # a rate times a count of its units the asker gave
    spans: tuple[tuple[Fraction, Fraction], ...] = ()  # seconds a month or year may hold
    factors: frozenset[Fraction] = frozenset()  # counts of things the asker writes: "we are 14"
    per: frozenset[str] = frozenset()  # units an amount is given per: "$0.023 per GB" (gb)
    asked: frozenset[Fraction] = frozenset()  # times of day the messages give: "P1 at 23:20"
    zones: frozenset[Fraction] = frozenset()  # offsets from UTC they give, in seconds
    # the times of day they give with the offset written beside each (`zoned_times`)
    zoned: tuple[tuple[Fraction, Fraction], ...] = ()
    texts: tuple[str, ...] = ()  # the sources' texts, as given
    said: tuple[str, ...] = ()  # the message and the thread's, as given

    @classmethod
    def of(cls, texts: Iterable[str], counted: Iterable[str] = ()) -> Known:
        """What `texts` give; durations in `counted` (the messages) may also count a rate's
        units ("we have 4 weeks" with "$250 per week")."""
        texts, counted = tuple(texts), tuple(counted)
        keys = frozenset(key for text in (*texts, *counted) for key in figures(text))
        pools: dict[str, set[Fraction]] = {}
        for kind, raw in keys:
            value = key_value(kind, raw)
            if value is not None and value > 0:
                pools.setdefault(_GROUPS.get(kind, kind), set()).add(value)
        bounded = {g: frozenset(sorted(v)[-ARITHMETIC_POOL:]) for g, v in pools.items()}
        percents = sorted(bounded.get("percent", ()))[:SHARE_PERCENTS]
        shares = {
            g: frozenset(p * a / 100 for p in percents for a in v) for g, v in bounded.items()
        }
        rates = frozenset(
            (Fraction(money), Fraction(seconds))
            for kind, raw in keys
            if kind == "rate"
            for money, seconds in [raw.split("/")]
        )
        asked = {
            Fraction(raw) for text in counted for kind, raw in figures(text) if kind == "duration"
        }
        durations = sorted(asked)[:PAID_POOL]
        paid = frozenset(
            money * (span / seconds)
            for money, seconds in sorted(rates)[:PAID_POOL]
            for span in durations
            if (span / seconds).denominator == 1 and span / seconds >= 2
        )
        numbers = tuple(sorted(bounded.get("number", ())))
        calendar = tuple(sorted(_span(raw)[:2] for kind, raw in keys if kind == "span"))
        things = frozenset(
            sorted(
                value
                for text in counted
                for number in _FREE_COUNT.findall(text)
                if _count(value := Fraction(number))
            )[:FACTORS]
        )
        per = frozenset(m.group(1).casefold() for text in texts for m in _PER_NAMED.finditer(text))
        return cls(
            keys,
            bounded,
            shares,
            numbers,
            rates,
            paid,
            calendar[:ARITHMETIC_POOL],
            things,
            per,
            frozenset(
                value
                for text in counted
                for kind, raw in figures(text)
                if kind == "time" and (value := key_value(kind, raw)) is not None
            ),
            frozenset(zone for text in (*texts, *counted) for zone in zones(text)),
            tuple(pair for text in (*texts, *counted) for pair in zoned_times(text))[:MAX_DATES],
            texts,
            counted,
        )

    def scaled(
        self,
        claim: frozenset[Key],
        counts: frozenset[Fraction] = frozenset(),
    ) -> bool:
        """Whether a figure is a given one of its kind times a count the asker writes ("we
        are 14": 700 GB for 50 GB each; "7 services": 21 pods for 3 replicas of each), or
        times or divided by a count of the claim's working ("× 12", "divisé par quatre":
        €45k a quarter for €180,000 a year). The count is a whole number (2 to 1000), not
        glued to a word ("Q2", "P1"), and the figure its kind's: an amount from an amount,
        a duration from a duration. A count of time the asker writes ("a trip of 4 days")
        multiplies only a rate given per its unit (`paid`: 180 zł for "45 zł za dzień"; not
        $3,600 for "$40 per hour" and "90 minutes", nor 60 days' notice for 30 and "within
        2 weeks"). Which count applies is the answer's reasoning: "$6,000" for
        $500 per user per month, 10 users and 12 months passes, and "$60,000" fails (two
        counts are no product the rule tries): both are the judge's. Counts the claim writes
        elsewhere, or the ratio of two periods the texts name ("monthly", "annual"), scale
        nothing: which amount they belong to is not read, and "$10 … arrives in 2 days"
        or "Monthly plan $150. Annual plan $1,500." would pass a wrong $20 or $1,800."""
        for kind, raw in claim:
            target = key_value(kind, raw)
            if target is None or target <= 0 or kind in ("percent", "time"):
                continue
            pool = self.pools.get(kind, frozenset())
            if any(target / n in pool for n in self.factors | counts):
                return True
            if any(target * n in pool for n in counts):
                return True
        return False

    @functools.cached_property
    def dated_days(self) -> frozenset[str]:
        """The days of a month ("03-15") the texts give with a year."""
        return frozenset(raw[5:] for kind, raw in self.keys if kind == "date")

    @functools.cached_property
    def _ends(self) -> frozenset[datetime.date]:
        """The last days of the months the texts name, where they speak of a month's end."""
        if ("month", "end") not in self.keys:
            return frozenset()
        return frozenset(day for kind, raw in self.keys if kind == "month" for day in _ends(raw))

    def ends(self, claim: frozenset[Key]) -> bool:
        """Whether a date is the end of a month the texts name where they speak of one ("31
        May" for "30 days from the end of the month" in May): an operand of working, never a
        claim, since "by 31 March" is a slip for "30 days after the end of March"."""
        return any(day in self._ends for kind, raw in claim for day in dates_of(kind, raw))

    def stepped(self, claim: frozenset[Key]) -> bool:
        """Whether a duration is a cycle's step the texts give in words ("elk uur"): an
        operand of working, never a claim ("each week we remind you" is no week's expiry)."""
        return any(kind == "duration" and ("every", raw) in self.keys for kind, raw in claim)

    def periodic(self, claim: frozenset[Key]) -> bool:
        """Whether a duration is a month, a quarter or a year the texts name without a
        number ("monthly", "年間"): only for a count of the working ("× 12か月")."""
        return any(kind == "duration" and ("period", raw) in self.keys for kind, raw in claim)

    def confirms(self, claim: frozenset[Key]) -> bool:
        """Whether a claimed figure is given, in any of its forms, or derived from given
        figures: a time of day a given duration from a given one (`_timed`), the sum or
        difference of two different ones of its kind, a given
        percentage of one, plus or minus another ("1 hour" and "20 min ago" give "40
        minutes remain"; 1.4% + €0.25 of €3,200 is €45.05), the percentage one given
        number is of another (60,000 of 80,000 is 75%), or a given date plus or minus a
        given number of days (2026-01-15 less 60 days' notice is 2025-11-16). Each operand
        must be at least a fiftieth of the result, so an off-by-one (2027 from 2026 and a
        stray 1) is no sum. Of products, a given rate times a whole number of its units of
        time the asker gives ("$250 per week", "a four-week rotation": $1,000); others are
        `scaled` and `shown`, and longer chains are not tried: they would explain away real
        slips.
        Months and years hold 28 to 31 and 365 or 366 days ("just over 13 months" for 400
        days), and a rate per one unit of time is the same rate per another."""
        return (
            bool(claim & self.keys)
            or any(self._derives(kind, raw) for kind, raw in claim)
            or any(kind == "time" and key_value(kind, raw) in self._timed for kind, raw in claim)
            or any(kind == "duration" and ("between", raw) in self.keys for kind, raw in claim)
            or any(kind == "month" and raw in self._months for kind, raw in claim)
            or self._spanned(claim)
        )

    def _derives(self, kind: str, raw: str) -> bool:
        if kind in ("date", "day"):
            return self._dated(kind, raw)
        target = key_value(kind, raw)
        whole = kind != "number" or target is None or target.denominator == 1
        if target is None or target <= 0 or not whole:
            return False  # a decimal without a unit is a version or a ratio, not a sum
        if kind == "percent" and self._compares(target, raw):
            return True
        pool = self.pools.get(_GROUPS.get(kind, kind), frozenset())
        least = target * OPERAND_SHARE
        for a in pool:
            other = target - a
            if other != a and other >= least and a >= least and other in pool:
                return True
            if a - target >= least and a - target in pool:
                return True
        shares = self.shares.get(_GROUPS.get(kind, kind), frozenset())
        return (
            target in shares
            or any(
                target - share in pool or share - target in pool or target + share in pool
                for share in shares
            )
            or (kind == "money" and target in self.paid)
        )

    def continues(
        self,
        claim: frozenset[Key],
        worked: frozenset[Key],
        written: frozenset[Fraction],
        *,
        taken_off: bool = False,
    ) -> bool:
        """Whether a figure goes one step on from results the answer works out (`worked`):
        the sum of two different ones ("762 kr. … 669 kr. I alt 1.431 kr."; not 450 € twice
        for 900 €), a given percentage of one, or one less or plus that share ("$41,760 a
        year; minus 10% that's $37,584"), the result and the percentage ones the claim
        writes (`written`: its figures' values), so the reader sees what it takes (not 20%
        of a hotel's $540 beside a total of $780). Each operand is at least a
        fiftieth of the result. Not a result plus or less a given figure: a blind review
        found that step passed what a model gets wrong most, a budget or an item left out or
        taken twice ("20 500 kr … with the 8 500 kr hotel, 29 000 kr", "zostanie" for
        "zabraknie"), and chains of given figures alone are no more tried than before."""
        results: dict[str, set[Fraction]] = {}
        for kind, raw in worked:
            value = key_value(kind, raw)
            if kind in _CONTINUED and value is not None and value > 0:
                results.setdefault(kind, set()).add(value)
        if not results:
            return False
        percents = [p for p in self.pools.get("percent", ()) if p in written]
        for kind, raw in claim:
            target = key_value(kind, raw)
            if kind not in results or target is None or target <= 0:
                continue
            least = target * OPERAND_SHARE
            for a in sorted(results[kind])[:PAID_POOL]:
                if a < least:
                    continue
                other = target - a
                if other >= least and other != a and other in results[kind]:
                    return True
                if a not in written:
                    continue  # a share is of a result the claim writes: not 20% of the hotel
                for p in percents:
                    share = a * p / 100
                    if target in (share, a - share) or (target == a + share and not taken_off):
                        return True
        return False

    def _spanned(self, claim: frozenset[Key]) -> bool:
        """Whether a figure in months or years spans a duration given in days or weeks
        ("just over 13 months" for 400 days), or a figure in days or weeks lies in the span
        of months or years given ("13 weeks" for 3 months). Months and years are compared
        with each other only exactly ("12 months" is a year; "13 months" is not)."""
        spans = [_span(raw)[:2] for kind, raw in claim if kind == "span"]
        if spans:
            return any(
                least <= given <= most for least, most in spans for given in self._counted_days
            )
        return any(
            least <= Fraction(raw) <= most
            for kind, raw in claim
            if kind == "duration"
            for least, most in self.spans
        )

    @functools.cached_property
    def _counted_days(self) -> frozenset[Fraction]:
        """The durations given in units other than months and years."""
        calendar = {
            months * scale
            for kind, raw in self.keys
            if kind == "span"
            for months in [_span(raw).months]
            for scale in (_MONTH_SECONDS, Fraction(_YEAR_SECONDS, 12))
        }
        return frozenset(self.pools.get("duration", frozenset()) - calendar)

    @functools.cached_property
    def _months(self) -> frozenset[str]:
        """The months of a year a given month or date reaches by a given number of months
        or years: "marzo de 2022" and "36 meses" reach "marzo de 2025"."""
        starts = {raw for kind, raw in self.keys if kind == "month" and len(raw) == 7}
        starts |= {raw[:7] for kind, raw in self.keys if kind == "date"}
        counts = {n for kind, raw in self.keys if kind == "span" and (n := months_of(raw))}
        reached = set()
        for start in sorted(starts)[:MAX_DATES]:
            index = int(start[:4]) * 12 + int(start[5:]) - 1
            for count in sorted(counts)[:MAX_DATES]:
                for moved in (index + count, index - count):
                    reached.add(f"{moved // 12:04d}-{moved % 12 + 1:02d}")
        return frozenset(reached)

    @functools.cached_property
    def _timed(self) -> frozenset[Fraction]:
        """The times of day a time the messages give reaches, plus or minus a duration
        given shorter than a day, round midnight too (a report at 23:20 and a response
        within 15 minutes: 23:35), whatever its share of the result: a time of day is no
        amount. Not a time the docs give with another of their durations: "check-in closes
        at 17:45" and "boarding takes 10 minutes" make no 17:55."""
        times = sorted(self.asked)[:MAX_DATES]
        durations = sorted(
            Fraction(raw) for kind, raw in self.keys if kind in STEPS and 0 < Fraction(raw) < 86400
        )[:MAX_DATES]
        return frozenset(
            (t + sign * d) % 86400 for t in times for d in durations for sign in (1, -1)
        )

    def _dated(self, kind: str, raw: str) -> bool:
        """Whether a date is a given date plus or minus a given number of days (two or
        more), weeks or months (a period of months may end the day before: 1 February and
        three months' probation end on 30 April): a renewal date less its notice period.
        A date written without its year ("24. november") is matched by day and month."""
        dates, days = self._reachable
        return raw in (dates if kind == "date" else days)

    @functools.cached_property
    def _reachable(self) -> tuple[frozenset[str], frozenset[str]]:
        """The dates the given dates and shifts reach, as ISO dates and as months and days:
        read once, not for every date claimed. A given date without a year is read in a
        common and in a leap year. Working days skip Saturdays and Sundays (holidays are
        the judge's): 10 working days after Friday 3 October is Friday 17 October."""
        ends = set(self._ends)
        starts = {day for kind, value in self.keys for day in dates_of(kind, value)}
        reached: set[datetime.date] = set()  # a month's end is a start, not a date given
        for start in sorted(starts | ends)[:MAX_DATES]:
            reached |= self.shifted(start, end=start in ends)
        return (
            frozenset(day.isoformat() for day in reached),
            frozenset(day.isoformat()[5:] for day in reached),
        )

    def shifted(
        self,
        start: datetime.date,
        *,
        end: bool = False,
        ways: Mapping[tuple[str, int], frozenset[int]] | None = None,
    ) -> set[datetime.date]:
        """The dates a date reaches by a shift the texts give (working days, days, weeks,
        months); from a month's `end`, by days the texts give as such, not by months. Each
        shift both ways, or only the ways `ways` gives for it (("days", 7): {-1} for "7
        days before")."""
        days, counted, months, workdays = self._shifts

        def signs(unit: str, n: int) -> frozenset[int]:
            return BOTH_WAYS if ways is None else ways.get((unit, n), BOTH_WAYS)

        reached = {_workdays(start, s * n) for n in workdays for s in signs("workdays", n)}
        for shift in counted if end else days:
            reached |= {start + datetime.timedelta(s * shift) for s in signs("days", shift)}
        for count in months:
            for moved in (add_months(start, s * count) for s in signs("months", count)):
                # a period of months ends the day before; from a month's end, on its end
                reached |= {moved} if end else {moved, moved - datetime.timedelta(1)}
        return reached

    @functools.cached_property
    def _shifts(self) -> tuple[list[int], list[int], list[int], list[int]]:
        """The shifts the texts give: days, days not given as months or years, months,
        working days."""
        # a cycle of every second, third … week or day: its next date too ("each week" is no
        # shift: "each week we send a reminder" is no due date a week on)
        cycles = {Fraction(raw) for kind, raw in self.keys if kind == "cycle"}
        durations = set(self.pools.get("duration", ())) | cycles
        days = sorted(
            int(seconds / 86400)
            for seconds in durations
            if seconds % 86400 == 0 and MIN_DATE_SHIFT <= seconds <= MAX_DATE_SHIFT
        )[:MAX_DATES]
        months = sorted({n for kind, raw in self.keys if kind == "span" and (n := months_of(raw))})[
            :MAX_DATES
        ]
        workdays = sorted(
            {
                int(raw)
                for kind, raw in self.keys
                if kind == "workdays" and 2 <= int(raw) <= MAX_WORKDAYS  # not the next day
            }
        )[:MAX_WORKDAY_COUNTS]
        counted = [d for d in days if d * 86400 in self._counted_days]
        return days, counted, months, workdays

    def gives(self, day: datetime.date) -> bool:
        """Whether the texts give a date (with its year or without)."""
        iso = day.isoformat()
        return bool({("date", iso), ("day", iso[5:])} & self.keys)

    def reaches(self, day: datetime.date) -> bool:
        """Whether the texts give a date, or reach it by a shift they give, or give its day
        of the month ("am 27. eines Monats", "the 25th", "25日"), or its month's end where
        they speak of one."""
        iso = day.isoformat()
        dates, days = self._reachable
        return (
            self.gives(day)
            or iso in dates
            or iso[5:] in days
            or ("monthday", str(day.day)) in self.keys
            or day in self._ends
        )

    def _compares(self, percent: Fraction, raw: str) -> bool:
        """Whether one given number is `percent` of another, to the precision the
        percentage is written with ("33%" for 1 of 3)."""
        decimals = len(raw.partition(".")[2])
        tolerance = Fraction(1, 2 * 10**decimals)
        low, high = (percent - tolerance) / 100, (percent + tolerance) / 100
        values = self.ratios
        for base in values:
            start = bisect.bisect_left(values, base * low)
            end = bisect.bisect_right(values, base * high)
            if any(values[i] != base for i in range(start, end)):
                return True
        return False


# A bare count next to a sign of multiplication or division: the answer's working ("12 ×
# € 29", "× 12", "÷ 60"), not a figure it claims. A count followed by a unit stays one.
_SIGN_OF_PRODUCT = "[×✕⨉÷]"  # not *, which is bold or italic in Slack
# A count after a sign is the working unless a digit stands right before the sign: the
# numbers of "1920×1080" and "60×40 cm" are dimensions, and claims. A count before a sign
# is the working when the sign is set apart by spaces or an amount follows it ("12 × € 29",
# "12×€29"), not in "10× faster". CJK writes no spaces: "10万円×12か月".
_AFTER_SIGN = r"(?:(?<![0-9])[×✕⨉]|÷)\s?"  # "÷" is never a dimension: "(€1,000÷4)"
_BEFORE_SIGN = rf"(?=\s{_SIGN_OF_PRODUCT}\s|\s?{_SIGN_OF_PRODUCT}\s?[{CURRENCY_SYMBOLS}])"
_THOUSANDS_AFTER = r"[\x20\u00a0\u202f'][0-9]{3}(?![0-9])"  # "1 200": 1 is no count
_WORKING_COUNT = re.compile(  # not a part of "1 200 kr" either side of the sign
    rf"(?<![\w.,/$€£¥₹])(?<![0-9][\x20\u00a0\u202f'])[0-9]{{1,4}}{_BEFORE_SIGN}"
    r"|(?:(?<=(?<![0-9])[×✕⨉])|(?<=(?<![0-9])[×✕⨉]\s)|(?<=÷)|(?<=÷\s))"
    rf"[0-9]{{1,4}}(?![\w/]|[.,][0-9]|\s[^\W\d_]|{_THOUSANDS_AFTER})"
)
# Words of multiplication and division, before the count: "gange 12", "divisé par quatre",
# "делим на 24"; in CJK, glued to the words around ("乘以12个月").
_TIMES_WORDS = (
    "times|multiplied by|mal|fois|veces|vezes|volte|keer|razy|gånger|ganger|gange|krát|"
    "divided by|geteilt durch|durch|divisé par|dividido por|dividido entre|diviso per|diviso|"
    "gedeeld door|podzielone przez|podzielić przez|delat med|delt på|delt med|divideret med|"
    "děleno|делим на|разделить на|поделить на|ділимо на|поділити на"
)
_BY = rf"(?:{_AFTER_SIGN}|(?<![^\W\d_])(?:{_TIMES_WORDS})\s?|(?:乘以|除以)\s?)"
_COUNTED = re.compile(
    rf"{_BY}(?:([0-9]{{1,4}})(?![0-9]|[.,][0-9]|{_THOUSANDS_AFTER})|([^\W\d_]+))",
    re.IGNORECASE,
)
# A count of months, weeks or days the working multiplies by ("× 12か月", "乘以12个月",
# "3 semanas ×"): checked against the texts, and against a month, a quarter or a year
# they name without a number ("monthly", "年間").
_TIMED_OPERAND = re.compile(
    rf"{_BY}(?P<after>[0-9]{{1,4}}\s?(?:{_TIME_UNITS})(?![^\W\d_{CJK}]))"
    rf"|(?<![\w.,])(?P<before>[0-9]{{1,4}}\s?(?:{_TIME_UNITS}))(?=\s{_SIGN_OF_PRODUCT}\s)",
    re.IGNORECASE,
)
MAX_OPERANDS = 10  # counts of time of the working checked per claim (a bound on the work)
_UNIT_NEXT = re.compile(r"\s?[^\W\d_]")


class Working(NamedTuple):
    """A claim's working: its prose without it, the counts it multiplies or divides by, and
    the counts of time it multiplies by."""

    prose: str
    counts: frozenset[Fraction]
    operands: tuple[str, ...]


def working(claim: str) -> Working:
    """The claim's working: the bare counts and the counts of time next to a sign of product
    ("12 × € 29", "× 12か月") or after a word of one ("gange 12", "divisé par quatre"), set
    apart from the figures it claims. Not every number of the claim is a count: a figure
    divided by its own number is one of its unit ("90 days" is 90 × "1 day"), which would
    explain away any slip."""
    counted = _COUNTED.findall(claim)
    numbers = _WORKING_COUNT.findall(claim) + [digits for digits, _ in counted if digits]
    counts = {value for number in numbers for value in written_values(number) if _count(value)}
    counts |= {
        Fraction(_WORDS[word.lower()])
        for _, word in counted
        if word and word.lower() in _WORDS and _count(Fraction(_WORDS[word.lower()]))
    }
    operands: list[str] = []

    def timed(m: re.Match[str]) -> str:
        group = "after" if m.group("after") else "before"
        operands.append(m.group(group))
        start, end = m.start(group) - m.start(), m.end(group) - m.start()
        return m.group()[:start] + " " * (end - start) + m.group()[end:]

    prose = _TIMED_OPERAND.sub(timed, claim)
    prose = _WORKING_COUNT.sub(lambda m: " " * len(m.group()), prose)
    kept = tuple(dict.fromkeys(operands))[:MAX_OPERANDS]
    return Working(_COUNTED.sub(_blank_bare, prose), frozenset(counts), kept)


def _blank_bare(m: re.Match[str]) -> str:
    """A word of product and a bare count after it, blanked ("делим на 24"); a count with
    a unit is left to be read ("乘以12个月")."""
    if m.group(1) is None or _UNIT_NEXT.match(m.string, m.end()):
        return m.group()
    return m.group()[: m.start(1) - m.start()] + " " * len(m.group(1))


def _span_key(months: Fraction) -> Key:
    """The span of days a number of months may hold, give or take a day for every two, in
    seconds, and the months ("33350400/34905600/13")."""
    if months.denominator == 1 and 1 <= months <= MAX_MONTHS:
        least, most = _month_days(int(months))
    else:
        least, most = math.floor(months * 28), math.ceil(months * 31)
    slack = math.ceil(months / SLACK_MONTHS_PER_DAY)
    low, high = max(least - slack, 1) * 86400, (most + slack) * 86400
    return ("span", f"{low}/{high}/{canonical(months)}")


# Days from 1 January 2024 to the start of each month, over four years (a leap cycle) and
# the longest span read after them
_MONTH_TOTALS = tuple(
    itertools.accumulate(
        (calendar.monthrange(2024 + i // 12, i % 12 + 1)[1] for i in range(48 + MAX_MONTHS)),
        initial=0,
    )
)


@functools.cache
def _month_days(months: int) -> tuple[int, int]:
    """The fewest and most days `months` months in a row hold, whichever month they start
    in (leap years included): 28 to 31 for one, 393 to 397 for thirteen."""
    totals = _MONTH_TOTALS
    sums = [totals[start + months] - totals[start] for start in range(48)]
    return min(sums), max(sums)


class Span(NamedTuple):
    """A span key read: the least and most seconds the months hold, and the months."""

    least: Fraction
    most: Fraction
    months: Fraction


def _span(raw: str) -> Span:
    """A span key ("33350400/34905600/13") read."""
    least, most, months = raw.split("/")
    return Span(Fraction(least), Fraction(most), Fraction(months))


def _workdays(start: datetime.date, count: int) -> datetime.date:
    """The day `count` working days after `start` (before, if negative), weekends skipped:
    from the working day at or before the start (after, counting back), whole weeks of
    five at once, then the days left one by one."""
    step = 1 if count > 0 else -1
    day = start
    while day.weekday() >= 5:
        day -= datetime.timedelta(step)
    weeks, left = divmod(abs(count), 5)
    day += datetime.timedelta(7 * weeks * step)
    for _ in range(left):
        day += datetime.timedelta(step)
        while day.weekday() >= 5:
            day += datetime.timedelta(step)
    return day


def dates_of(kind: str, raw: str) -> list[datetime.date]:
    """The dates a key stands for: a date's own, or, for a day of a month written without
    its year, that day in each of _YEARS (a common and a leap year)."""
    isos = (
        [raw] if kind == "date" else [f"{year}-{raw}" for year in _YEARS] if kind == "day" else []
    )
    return [day for iso in isos if (day := _iso_date(iso)) is not None]


def _ends(month: str) -> list[datetime.date]:
    """The last days of a month key ("2026-05"; "05", in each of _YEARS; none for "end")."""
    if not month[:2].isdigit():
        return []
    if len(month) > 2:
        years = [(int(month[:4]), int(month[5:]))]
    else:
        years = [(year, int(month)) for year in _YEARS]
    return [datetime.date(y, n, calendar.monthrange(y, n)[1]) for y, n in years]


def _iso_date(iso: str) -> datetime.date | None:
    """The date of an ISO date, None if it is no date (2026-02-30)."""
    try:
        return datetime.date.fromisoformat(iso)
    except ValueError:
        return None


def months_of(raw: str) -> int | None:
    """The whole months of a span key."""
    count = _span(raw).months
    return int(count) if count.denominator == 1 and 0 < count <= MAX_MONTHS else None


def add_months(start: datetime.date, count: int) -> datetime.date:
    """The same day `count` months later (or earlier), or the month's last day."""
    index = start.year * 12 + start.month - 1 + count
    year, month = divmod(index, 12)
    if not datetime.MINYEAR <= year <= datetime.MAXYEAR:
        return start
    last = calendar.monthrange(year, month + 1)[1]
    return datetime.date(year, month + 1, min(start.day, last))


def key_value(kind: str, raw: str) -> Fraction | None:
    if kind == "time":
        hours, minutes = raw.split(":")
        return Fraction(int(hours) * 3600 + int(minutes) * 60)
    if kind in ("number", "duration", "size", "percent", "money"):
        try:
            return Fraction(raw)
        except ValueError:
            return None
    return None
