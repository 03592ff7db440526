"""Weekdays written beside dates: the calendar checks them, and the texts' weekday rules
(the nth weekday of a month, a weekend moved to a working day, the weekday before a date)
and the dates an answer works out source the dates they lead to (app/verify/weekdays.py)."""

from __future__ import annotations

import pytest

from app.verify import verify
from app.verify.verdict import Citation, Source
from app.verify.weekdays import Named, calendar, named


def flagged(draft: str, source: str, question: str = "?", claims: tuple[str, ...] = ()) -> bool:
    """Whether UNSOURCED_FIGURE fails `draft`, each of `claims` (the whole draft by default)
    citing `source`."""
    verdict = verify(
        draft,
        question=question,
        sources=(Source("s1", "Page", "https://wiki.example.com/p", source),),
        citations=tuple(Citation("s1", "", source, claim) for claim in claims or (draft,)),
    )
    return "UNSOURCED_FIGURE" in verdict.codes


@pytest.mark.parametrize(
    ("text", "date", "weekday"),
    [
        ("am **Freitag, 26.06.2026** überwiesen", ("date", "2026-06-26"), 4),
        ("期限は5月8日（金）です", ("day", "05-08"), 4),
        ("hasta el 30/01/2026 (viernes)", ("date", "2026-01-30"), 4),
        ("el lunes 16 de marzo", ("day", "03-16"), 0),
        ("fredag den 22. januar 2027", ("date", "2027-01-22"), 4),
        ("15.03.2026 pazar", ("date", "2026-03-15"), 6),
        ("2026년 3월 31일(화)까지", ("date", "2026-03-31"), 1),
        ("w piątek 08.05.2026", ("date", "2026-05-08"), 4),
        ("Thursday, March 5, 2026", ("date", "2026-03-05"), 3),
        ("в п’ятницю, 20 березня 2026", ("date", "2026-03-20"), 4),
        ("2026年2月12日(木)", ("date", "2026-02-12"), 3),
        ("星期五 2026年3月13日", ("date", "2026-03-13"), 4),
    ],
)
def test_a_weekday_beside_a_date_is_read(text: str, date: tuple[str, str], weekday: int) -> None:
    assert named(text) == [Named(frozenset({date}), weekday)]


@pytest.mark.parametrize(
    "text",
    [
        "Release 2026-03-17, and on Monday we plan.",  # a weekday in another clause
        "the Friday standup; 26.06.2026 is the deadline",
        "bis 30/01/2026 (vorläufig)",
    ],
)
def test_a_weekday_apart_from_a_date_is_not_its_weekday(text: str) -> None:
    assert named(text) == []


def test_the_texts_rules_of_weekdays_are_read() -> None:
    rules = calendar(
        [
            "Wartung jeden ersten Sonntag im Monat; Patches am 第2水曜日.",
            "Freeze on the last Thursday of the month.",
            "If the 25th is a Saturday, pay goes out on the Friday before; "
            "if it is a Sunday, on the Monday after.",
        ]
    )
    assert rules.ordinals == {(1, 6), (2, 2), (-1, 3)}
    assert rules.moves == {(5, -1), (6, 1)}


# (right, wrong, source): a date the source gives, with its weekday and with another
RIGHT_AND_WRONG = [
    (
        "Release ist am Dienstag, 17.03.2026.",
        "Release ist am Montag, 17.03.2026.",
        "Release: 2026-03-17.",
    ),
    ("リリースは3月17日(火)です。", "リリースは3月17日(月)です。", "リリース日：2026年3月17日。"),
    (
        "Le gel est le jeudi 12 mars 2026.",
        "Le gel est le mercredi 12 mars 2026.",
        "Gel : 12 mars 2026.",
    ),
    (
        "Due Friday 30 January.",
        "Due Thursday 30 January.",
        "Invoices for 2026 are due on 30 January.",
    ),
]


@pytest.mark.parametrize(("right", "wrong", "source"), RIGHT_AND_WRONG)
def test_a_date_passes_with_its_weekday_and_fails_with_another(
    right: str, wrong: str, source: str
) -> None:
    assert not flagged(right, source)
    assert flagged(wrong, source)


def test_a_weekday_the_texts_write_with_the_date_is_theirs() -> None:
    """The source's own slip is quoted, not made: the judge weighs it."""
    assert not flagged("Launch: Monday, 17.03.2026.", "Launch on Monday, 17.03.2026.")


# (right, wrong, source, question): a date a weekday rule of the texts gives, with its
# weekday; and the slip beside it, with its own right weekday
LED = [
    (  # the nth weekday of a month
        "Die nächste Wartung ist am Sonntag, 01.03.2026.",
        "Die nächste Wartung ist am Sonntag, 08.03.2026.",
        "Wartung jeden ersten Sonntag im Monat.",
        "Wann ist die Wartung im März 2026?",
    ),
    (
        "次回は3月11日(水)です。",
        "次回は3月4日(水)です。",
        "定期メンテナンスは毎月第2水曜日です。",
        "2026年3月のメンテナンスは？",
    ),
    (
        "The freeze is on Thursday 26 March 2026.",
        "The freeze is on Thursday 19 March 2026.",
        "Code freeze: the last Thursday of each month.",
        "When is the March 2026 freeze?",
    ),
    (  # a Saturday moved to the Friday before, a Sunday to the Monday after
        "April's pay comes on Friday 24 April 2026.",
        "April's pay comes on Monday 27 April 2026.",
        "Salaries are paid on the 25th. If the 25th is a Saturday, pay goes out on the "
        "Friday before; if it is a Sunday, on the Monday after.",
        "When is April 2026's pay?",
    ),
    (
        "January's pay comes on Monday 26 January 2026.",
        "January's pay comes on Friday 23 January 2026.",
        "Salaries are paid on the 25th. If the 25th is a Saturday, pay goes out on the "
        "Friday before; if it is a Sunday, on the Monday after.",
        "When is January 2026's pay?",
    ),
    (
        "Im Juni 2026 kommt das Gehalt am Freitag, 26.06.2026.",
        "Im Juni 2026 kommt das Gehalt am Montag, 29.06.2026.",
        "Das Gehalt wird am 27. eines Monats überwiesen. Fällt der 27. auf ein Wochenende, "
        "erfolgt die Zahlung am vorhergehenden Arbeitstag.",
        "Wann kommt das Gehalt im Juni 2026?",
    ),
    (  # the weekday before a given date
        "The freeze is on Thursday 12 March 2026.",
        "The freeze is on Thursday 5 March 2026.",
        "Code freeze is on the Thursday before each release.",
        "When is the freeze for the release on Tuesday 17 March 2026?",
    ),
]


@pytest.mark.parametrize(("right", "wrong", "source", "question"), LED)
def test_a_weekday_rule_of_the_texts_sources_the_date_it_gives(
    right: str, wrong: str, source: str, question: str
) -> None:
    assert not flagged(right, source, question)
    assert flagged(wrong, source, question)


def test_a_weekend_moves_a_date_only_the_way_the_texts_say() -> None:
    """Without a word of which way, or a weekday written, a date moved is unsourced."""
    question = "When is April 2026's pay?"
    assert flagged("It comes on Friday 24 April 2026.", "Salaries are paid on the 25th.", question)
    assert flagged(
        "It comes on 24 April 2026.",
        "Salaries are paid on the 25th; on a weekend, the previous working day.",
        question,
    )


def test_a_date_counted_from_one_the_answer_works_out_is_sourced() -> None:
    """Each step is shown: a release worked out from a given date, and a freeze a given
    shift before it; a freeze a week off fails."""
    source = (
        "Version 7.0 shipped on 16 September 2025. Majors ship every 26 weeks; the feature "
        "freeze is two weeks before each release."
    )
    release = "8.0: 16 September 2025 + 26 weeks = 17 March 2026."
    for freeze, slipped in (("3 March 2026", False), ("10 March 2026", True)):
        draft = f"{release} Freeze: {freeze}."
        claims = (release, f"Freeze: {freeze}")
        assert flagged(draft, source, "When is 8.0?", claims) is slipped
