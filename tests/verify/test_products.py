"""Products stated in words: an amount per a thing, times a count of that thing
(app.verify.products), as UNSOURCED_FIGURE reads them and on their own."""

from __future__ import annotations

import pytest

from app.verify.figures import Key
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
        "Ich bin von Montag bis Mittwoch in Hamburg.",
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
        "Hva koster lunsjen i året?",
    ),
    ("Yılda 54.000 TL: her ay 4.500 TL, 12 ay boyunca.", "Yemek kartı her ay 4.500 TL.", "?"),
    (
        "Ida y vuelta: 355 km × 2 = 710 km, y a 0,26 €/km son 184,60 €.",
        "El kilometraje se reembolsa a 0,26 € por km.",
        "Son 355 km por trayecto.",
    ),
    (
        "Resan kostar 450 kr per person. För fyra personer blir det 1 800 kr.",
        "Kickoffresan kostar 450 kr per person.",
        "Vi är fyra i teamet, vad kostar det?",
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


@pytest.mark.parametrize(("claim", "source", "question"), STATED)
def test_a_product_stated_in_words_passes(claim: str, source: str, question: str) -> None:
    assert not restated_flagged(claim, source, question)


@pytest.mark.parametrize(("claim", "source", "question"), SLIPPED)
def test_a_product_in_words_explains_away_no_slip(claim: str, source: str, question: str) -> None:
    assert restated_flagged(claim, source, question)


def given(*keys: Key) -> frozenset[Key]:
    return frozenset(keys)


def test_the_rate_must_be_vouched_and_the_count_read_as_it_is_written() -> None:
    text = "Es sind 180 € pro Nacht, für zwei Nächte also 360 €."
    assert products(text, lambda keys: False, lambda keys: True).keys == set()
    stated = products(text, lambda keys: ("money", "180") in keys, lambda keys: False)
    assert stated.keys == {("money", "360")}
    assert stated.counts == {"zwei Nächte"}  # a bare count: no figure to vouch


def test_a_count_that_is_a_figure_must_be_given() -> None:
    text = "Es sind 0,30 € pro km, für 380 km also 114 €."
    rate = ("money", "0.3")
    assert products(text, lambda keys: rate in keys, lambda keys: False).keys == set()
    stated = products(text, lambda keys: rate in keys, lambda keys: ("number", "380") in keys)
    assert stated.keys == {("money", "114")}


def test_sentences_bound_a_count_and_its_result() -> None:
    """The count and the result are read in one sentence ("kr. pr. km" ends none); the rate
    anywhere in the text."""
    rate = ("money", "3.81")
    one = "Du får 3,81 kr. pr. km. For 200 km giver det 762 kr."
    assert products(one, lambda keys: rate in keys, lambda keys: True).keys == {("money", "762")}
    apart = "Du får 3,81 kr. pr. km. Turen er 200 km. Det giver 762 kr."
    assert products(apart, lambda keys: rate in keys, lambda keys: True).keys == set()


def test_many_amounts_are_read_within_bounds() -> None:
    text = "Es sind 2 € pro Nacht. " + "Für 3 Nächte 6 €, " * 400
    stated = products(text, lambda keys: True, lambda keys: True)
    assert stated.keys <= {("money", "6"), ("money", "2")}
