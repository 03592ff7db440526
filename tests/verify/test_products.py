"""Products stated in words: an amount per a thing, times a count of that thing
(app.verify.products), as UNSOURCED_FIGURE reads them and on their own."""

from __future__ import annotations

import pytest

from app.verify.figures import Known
from app.verify.products import products
from tests.verify.test_substance import restated_flagged

# (claim, source, question): a given rate, a count of the thing it is given per, and the
# product, in one sentence of prose
STATED = [
    (
        "De thuiswerkvergoeding is € 2,40 per thuiswerkdag, dus voor 9 dagen krijg je € 21,60.",
        "De thuiswerkvergoeding bedraagt € 2,40 per thuiswerkdag.",
        "In oktober heb ik 9 dagen thuisgewerkt.",
    ),
    (
        "Die Grenze liegt bei 180 € pro Nacht, für zwei Nächte also bis 360 €.",
        "Übernachtung in Hamburg bis 180 € pro Nacht.",
        "Ich bleibe zwei Nächte in Hamburg.",
    ),
    (
        "宿泊費は1泊15,000円が上限なので、2泊で最大30,000円になります。",
        "宿泊費の上限は大阪で1泊15,000円です。",
        "大阪に2泊します。",
    ),
    (
        "자가 차량은 km당 300원이 지급되니, 240km면 72,000원입니다.",
        "자가 차량 이용 시 km당 300원을 지급합니다.",
        "왕복 240km 운전했어요.",
    ),
    (
        "住宿每晚不超过600元，3晚最多1,800元。",
        "一线城市住宿标准：每晚不超过600元。",
        "去上海出差3晚",
    ),
    (
        "Lunsjtrekket er 1 150 kr per måned, så over 12 måneder blir det 13 800 kr.",
        "Lunsjordningen koster 1 150 kr per måned.",
        "Hva koster lunsjen årlig?",
    ),
    ("Yılda 54.000 TL: her ay 4.500 TL, 12 ay boyunca.", "Yemek kartı her ay 4.500 TL.", "Yıllık?"),
    (
        "Ida y vuelta: 355 km × 2 = 710 km, y a 0,26 €/km son 184,60 €.",
        "El kilometraje se reembolsa a 0,26 € por km.",
        "Son 355 km por trayecto.",
    ),
    (
        "Resan kostar 450 kr per person. För fyra personer blir det 1 800 kr.",
        "Kickoffresan kostar 450 kr per person.",
        "Vi är fyra personer, vad kostar det?",
    ),
]

# The same forms with a slip: a count of another thing, a unit of time of another length, a
# rate the texts do not give as such, a count that is a figure nothing gives, a wrong product
SLIPPED = [
    ("Shipping is $10 and arrives in 2 days, so $20 in all.", "Shipping: $10, 2 days.", "?"),
    ("$40 per hour for the 90 minutes: $3,600.", "On-site support costs $40 per hour.", "?"),
    (
        "Hotel 180 € pro Nacht; für drei Tage Verpflegung also 540 €.",
        "Übernachtung bis 180 € pro Nacht, Verpflegung 28 € pro Tag.",
        "Drei Tage in Hamburg.",
    ),
    (
        "Log ingestion is €0.03 per GB, so 200 GB comes to €6.",
        "Log ingestion is charged at €0.30 per GB. Traces are sampled at 10%.",
        "We log 200 GB more per month.",
    ),
    (
        "Ida y vuelta son 144 km a 0,26 € por km, así que 37,44 €.",
        "El kilometraje se reembolsa a 0,26 € por km.",
        "Son 70 km de ida.",
    ),
    (
        "Je krijgt € 2,40 per thuiswerkdag, dus voor 9 dagen € 21,50.",
        "De thuiswerkvergoeding bedraagt € 2,40 per thuiswerkdag.",
        "9 dagen thuisgewerkt.",
    ),
]


# Found by a blind review of the first version, which took any count as the answer's
# reasoning: a count the asker did not state, a rate per two things, a year not named, a
# Japanese count read past its thing, a rate per another thing than the texts give
SLIPPED += [
    (
        "Die Grenze liegt bei 180 € pro Nacht, für zwei Nächte also bis 360 €.",
        "Übernachtung in Hamburg bis 180 € pro Nacht.",
        "Ich bleibe drei Nächte in Hamburg.",
    ),
    ("1泊15,000円なので、2泊で30,000円です。", "宿泊費の上限は1泊15,000円です。", "3泊します。"),
    (
        "120 € pro Person und Nacht, für zwei Personen also 240 €.",
        "Hotel: 120 € pro Person und Nacht.",
        "Wir sind zwei Personen, drei Nächte.",
    ),
    ("1人1泊8,000円なので、2泊で16,000円です。", "宿泊は1人1泊8,000円まで。", "3人で2泊します。"),
    (
        "Der Zuschuss ist 50 € pro Monat, für 12 Monate also 600 €.",
        "Internetzuschuss: 50 € pro Monat.",
        "Ich habe am 1. April angefangen. Wie viel bekomme ich dieses Jahr?",
    ),
    ("1日3,000円なので、5日間で15,000円です。", "日当は1日3,000円です。", "4日間の出張です。"),
    (
        "You get $15 per day, so for 3 days $45.",
        "The stipend is $15 per week.",
        "I'm away for 3 days.",
    ),
    (
        "Die Grenze liegt bei 180 € pro Nacht, für zwei Nächte also bis 360 €.",
        "Hotelobergrenzen: Hamburg 180 € pro Nacht, Berlin 150 € pro Nacht.",
        "Ich bin zwei Nächte in Berlin.",
    ),
    (
        "The per diem is €45 per day, so for 10 days you'd receive €450.",
        "Per diem: €45 per day, for at most 10 days.",
        "I'm away 8 days.",
    ),
    (
        "It's $200 per night, so twelve nights come to $2,400.",
        "Hotels: up to $200 per night.",
        "I'm staying ten nights.",
    ),
]


@pytest.mark.parametrize(("claim", "source", "question"), STATED)
def test_a_product_stated_in_words_passes(claim: str, source: str, question: str) -> None:
    assert not restated_flagged(claim, source, question)


def known(source: str, question: str) -> Known:
    return Known.of((source,), (question,))


def test_a_count_must_be_stated_with_its_thing() -> None:
    text = "Es sind 180 € pro Nacht, für zwei Nächte also 360 €."
    source = "Bis 180 € pro Nacht."
    assert products(text, known(source, "Zwei Nächte."), frozenset()).keys == {("money", "360")}
    assert products(text, known(source, "Zwei Tage."), frozenset()).keys == set()
    assert products(text, known(source, "Drei Nächte."), frozenset()).keys == set()
    assert products(text, known("Bis 150 € pro Nacht.", "Zwei Nächte."), frozenset()).keys == set()
    stated = products(text, known(source, "Zwei Nächte."), frozenset())
    assert stated.counts == {"zwei Nächte"}  # a count of things: no claim of its own


def test_a_count_that_is_a_figure_must_be_given_or_worked_out() -> None:
    text = "Es sind 0,30 € pro km, für 380 km also 114 €."
    source = "Kilometerpauschale: 0,30 € pro km."
    assert products(text, known(source, "190 km einfach."), frozenset()).keys == set()
    worked = frozenset({("number", "380")})
    assert products(text, known(source, "190 km einfach."), worked).keys == {("money", "114")}


def test_sentences_bound_a_count_and_its_result() -> None:
    """The count and the result are read in one sentence ("kr. pr. km" ends none); the rate
    anywhere in the text."""
    given = known("3,81 kr. pr. km.", "Jeg kører 200 km.")
    one = "Du får 3,81 kr. pr. km. For 200 km giver det 762 kr."
    assert products(one, given, frozenset()).keys == {("money", "762")}
    apart = "Du får 3,81 kr. pr. km. Turen er 200 km. Det giver 762 kr."
    assert products(apart, given, frozenset()).keys == set()


def test_many_amounts_are_read_within_bounds() -> None:
    """Amounts past the bound are not read, and those within it still are."""
    text = (
        "Es sind 2 € pro Nacht. "
        + "Für 3 Nächte 6 €, " * 400
        + "6 €. Tagegeld: 5 € pro Tag, 5 Tage 25 €."
    )
    given = known("2 € pro Nacht, 5 € pro Tag.", "3 Nächte und 5 Tage.")
    assert products(text, given, frozenset()).keys == {("money", "6")}  # 25 € is past them
    assert products(text[-40:], given, frozenset()).keys == {("money", "25")}


# (claim, source, question): an amount per one period stated per another, in words
CONVERTED = [
    (
        "Der Internetzuschuss beträgt 20 € pro Monat, aufs Jahr also 240 €.",
        "Für den Internetanschluss gibt es einen Zuschuss von 20 € pro Monat.",
        "Was gibt's an Internetzuschuss aufs Jahr gerechnet?",
    ),
    ("Le forfait va jusqu'à 600 € par an, soit 50 € par mois.", "Forfait : 600 € par an.", "?"),
    ("Yol yardımı aylık 2.000 TL, yıllık toplamda 24.000 TL ediyor.", "Yol: aylık 2.000 TL.", "?"),
    ("До 3 000 ₽ в месяц, то есть максимум 36 000 ₽ в год.", "Спорт — до 3 000 ₽ в месяц.", "?"),
    ("在宅勤務手当は月額3,000円なので、年間では36,000円です。", "在宅勤務手当：月額3,000円。", "?"),
    ("식대는 월 200,000원이니 1년이면 2,400,000원입니다.", "식대는 월 200,000원입니다.", "?"),
    ("Bidraget är 5 000 kr per kalenderår, ungefär 417 kr per månad.", "5 000 kr per år.", "?"),
]

# The same forms, slipped: a period the texts price themselves, a wrong product, a week
# taken for a month
CONVERTED_SLIPS = [
    (
        "The monthly plan is $150, so $1,800 a year.",
        "Monthly plan: $150. Annual plan: $1,500.",
        "?",
    ),
    (
        "Der Zuschuss beträgt 20 € pro Monat, aufs Jahr also 204 €.",
        "Zuschuss: 20 € pro Monat.",
        "?",
    ),
    (
        "Der Zuschuss beträgt 20 € pro Woche, aufs Jahr also 240 €.",
        "Zuschuss: 20 € pro Woche.",
        "?",
    ),
    (
        "Der Zuschuss beträgt 20 € pro Monat, aufs Jahr also 240 €.",
        "Zuschuss: 20 € pro Monat, höchstens 200 € im Jahr.",
        "?",
    ),
]


@pytest.mark.parametrize(("claim", "source", "question"), CONVERTED)
def test_an_amount_per_one_period_stated_per_another_passes(
    claim: str, source: str, question: str
) -> None:
    assert not restated_flagged(claim, source, question)


# Several amounts per the same thing (by city, by tier): which applies is the judge's, so
# a product of one of them is read nowhere, right or not (a blind review found the asker
# naming a city on the way, and the answer a tier, as often as the right row)
SEVERAL = [
    (
        "宿泊費は大阪だと1泊15,000円が上限なので、2泊で最大30,000円になります。",
        "宿泊費の上限は1泊12,000円、東京・大阪は1泊15,000円です。",
        "来週、大阪に2泊します。",
    ),
    (
        "Die Grenze liegt bei 180 € pro Nacht, für drei Nächte also 540 €.",
        "Hotel: München 180 € pro Nacht, andere Städte 120 € pro Nacht.",
        "Ich fahre über München nach Augsburg, drei Nächte.",
    ),
]


# Found by a third blind review: a count the asker gives a part of, an amount the texts
# give per another period or beside another count, a ratio of periods the calendar lacks
SLIPPED_THIRD = [
    (
        "Je krijgt € 2,40 per thuiswerkdag, dus voor 22 dagen € 52,80.",
        "De thuiswerkvergoeding bedraagt € 2,40 per thuiswerkdag.",
        "In oktober 22 dagen gewerkt, waarvan 9 thuis.",
    ),
    ("Du bekommst 50 € pro Monat, also 600 € im Jahr.", "Zuschuss: 50 € pro Quartal.", "?"),
    (
        "Dein Gehalt ist 52.000 € im Jahr, also 4.333 € im Monat.",
        "Das Jahresgehalt von 52.000 € wird in 13 Gehältern ausgezahlt.",
        "?",
    ),
    ("6 × $15 = $90 per week, × 4 = $360 per month.", "Parking: $15 a day.", "6 days a week"),
]


# Found by a fourth blind review, which measured the last commit unread: a cap the docs
# give in days, a rate per two things written with a space or in Polish, months the asker
# did not all work, a limit in the docs' own sentence, a share added where the claim takes
# it off, a plan the docs price per year in French
SLIPPED_FOURTH = [
    ("28 € pro Tag, für 14 Tage also 392 €.", "28 € pro Tag, höchstens für 10 Tage.", "14 Tage"),
    (
        "1박 80,000원이니 2박이면 160,000원입니다.",
        "숙박비는 1인 1박 80,000원입니다.",
        "2명이 2박해요.",
    ),
    (
        "90 zł za dobę, więc za trzy doby 270 zł.",
        "Hotel: 90 zł za dobę na osobę.",
        "trzy doby, we dwoje",
    ),
    ("$40 per month, so $480 this year.", "Phone stipend: $40 per month.", "I joined on 1 July."),
    (
        "Der Mietzuschuss beträgt 300 € pro Monat, aufs Jahr also 3.600 €.",
        "Mietzuschuss: 300 € pro Monat. Der Zuschuss wird für die ersten sechs Monate gezahlt.",
        "Wie viel bekomme ich im ersten Jahr?",
    ),
    (
        "12 × 35 € = 420 €; abzüglich 10 % Rabatt sind 462 €.",
        "Der Caterer gewährt uns 10 % Rabatt. Budget: 35 € pro Person.",
        "Wir sind 12 Personen.",
    ),
    (
        "10 € par mois, soit 120 € par an.",
        "10 € par mois en formule mensuelle, 96 € par an en formule annuelle.",
        "Formule annuelle ?",
    ),
]


@pytest.mark.parametrize(
    ("claim", "source", "question"),
    [*SLIPPED, *CONVERTED_SLIPS, *SEVERAL, *SLIPPED_THIRD, *SLIPPED_FOURTH],
)
def test_no_slip_is_explained_away(claim: str, source: str, question: str) -> None:
    """Every slip above fails: the forms' own, and those the blind reviews found."""
    assert restated_flagged(claim, source, question)
