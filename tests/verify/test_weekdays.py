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


@pytest.mark.parametrize(
    "text",
    ["Alle har fri 17. mai 2026.", "Le 2 avril, mon 17 mars 2026 reste libre.", "sat 3 March"],
)
def test_a_short_form_in_lower_case_before_a_date_is_a_word(text: str) -> None:
    """ "fri" (Norwegian: off), "mon" (French: my): read as Friday and Monday, a correct
    answer failed on a weekday nobody wrote."""
    assert named(text) == []


def test_a_short_form_with_a_capital_or_a_dot_is_a_weekday() -> None:
    assert named("Fri 13 March 2026") == [Named(frozenset({("date", "2026-03-13")}), 4)]
    assert named("fri. 13.03.2026") == [Named(frozenset({("date", "2026-03-13")}), 4)]


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
    (
        "リリースは2026年3月17日(火)です。",
        "リリースは2026年3月17日(月)です。",
        "リリース日：2026年3月17日。",
    ),
    (
        "Le gel est le jeudi 12 mars 2026.",
        "Le gel est le mercredi 12 mars 2026.",
        "Gel : 12 mars 2026.",
    ),
    (
        "Due Friday 30 January 2026.",
        "Due Thursday 30 January 2026.",
        "Invoices are due on 30 January 2026.",
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
    # in a short form in brackets too (a blind review's find: only full names were read)
    assert not flagged("期限は2026年8月10日（火）です。", "提出期限は2026年8月10日（火）です。")
    assert flagged("期限は2026年8月10日（火）です。", "提出期限は2026年8月10日です。")


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


# A blind review's attacks on this stop's readings, kept as cases: (draft, claims, source,
# question). Wrong figures the first readings let through: an ordinal of a cycle, of an
# event or a past weekday read as the nth of a month; a weekend moved the way incidental
# words say; a day of the month that is only another figure's number; a weekday on the
# wrong side of a date; a shift taken the wrong way from a date the answer worked out; a
# time converted with no working; a leap year or a 31-day April nobody named; shares of
# another whole.
REVIEW_SLIPS = [
    (
        "The next sprint review is on Friday 13 March 2026.",
        ("The next sprint review is on Friday 13 March 2026.",),
        ("Sprint reviews happen every second Friday, starting Friday 6 March 2026."),
        "When is the next sprint review?",
    ),
    (
        "Die nächste Sprint-Review ist am Freitag, 13.03.2026.",
        ("Die nächste Sprint-Review ist am Freitag, 13.03.2026.",),
        "Sprint-Review jeden zweiten Freitag, erstmals am Freitag, 06.03.2026.",
        "Wann ist die nächste Sprint-Review?",
    ),
    (
        "The retro is on Monday 2 March 2026.",
        ("The retro is on Monday 2 March 2026.",),
        "The retro is held on the first Monday after each release.",
        "The release is on 17 March 2026. When is the retro?",
    ),
    (
        "Deployment is on Wednesday 4 March 2026.",
        ("Deployment is on Wednesday 4 March 2026.",),
        (
            "Patch Tuesday is the second Tuesday of the month. We deploy on the "
            "first Wednesday after Patch Tuesday."
        ),
        "When do we deploy in March 2026?",
    ),
    (
        "Das Review ist am Freitag, 27.03.2026.",
        ("Das Review ist am Freitag, 27.03.2026.",),
        ("Wie am letzten Freitag besprochen, findet das Review am Dienstag, 17.03.2026 statt."),
        "Wann ist das Review?",
    ),
    (
        "March rent is due on Friday 27 February 2026.",
        ("March rent is due on Friday 27 February 2026.",),
        (
            "Rent is due on the 1st. If the 1st falls on a weekend, pay on the "
            "next business day before noon."
        ),
        "When is March 2026 rent due?",
    ),
    (
        "Termin płatności w maju to poniedziałek 11.05.2026.",
        ("Termin płatności w maju to poniedziałek 11.05.2026.",),
        (
            "Faktury płacimy 10. dnia miesiąca. Jeśli 10. przypada na sobotę lub "
            "niedzielę, płacimy w poprzedzającym dniu roboczym."
        ),
        "Kiedy termin płatności w maju 2026?",
    ),
    (
        "Зарплата за январь придёт в понедельник, 26 января 2026.",
        ("Зарплата за январь придёт в понедельник, 26 января 2026.",),
        (
            "Зарплата выплачивается 25-го числа. Если 25-е число выпадает на "
            "выходной, выплата производится в предыдущий рабочий день после "
            "согласования с бухгалтерией."
        ),
        "Когда придёт зарплата в январе 2026?",
    ),
    (
        "4月の給与日は4月27日(月)です。",
        ("4月の給与日は4月27日(月)です。",),
        "給与は毎月25日払いです。25日が土日の場合は前営業日の午後に振り込みます。",
        "2026年4月の給与日は？",
    ),
    (
        "4월 급여일은 2026년 4월 27일(월)입니다.",
        ("4월 급여일은 2026년 4월 27일(월)입니다.",),
        "급여는 매월 25일에 지급되며, 25일이 주말이면 직전 영업일 오후에 지급됩니다.",
        "2026년 4월 급여일은?",
    ),
    (
        "4月工资在2026年4月27日（星期一）发放。",
        ("4月工资在2026年4月27日（星期一）发放。",),
        "工资每月25日发放；如25日为周末，则在此前的最后一个工作日发放。",
        "2026年4月工资哪天发？",
    ),
    (
        "May pay lands on Friday 29 May 2026.",
        ("May pay lands on Friday 29 May 2026.",),
        (
            "Salaries are paid on the 25th. If the 25th is a weekend day, pay goes "
            "out on the previous working day. Overtime is capped at 30 hours a "
            "month."
        ),
        "When is May 2026 pay?",
    ),
    (
        "The code freeze is on Thursday 19 March 2026.",
        ("The code freeze is on Thursday 19 March 2026.",),
        (
            "Code freeze is on the Thursday before each release. After the freeze, "
            "only hotfixes are merged."
        ),
        "The release is on Tuesday 17 March 2026. When is the freeze?",
    ),
    (
        "コードフリーズは3月20日(金)です。",
        ("コードフリーズは3月20日(金)です。",),
        "コードフリーズはリリース前の金曜日の午後6時です。",
        "2026年3月17日のリリースのコードフリーズはいつ？",
    ),
    (
        "代码冻结在2026年3月20日（星期五）。",
        ("代码冻结在2026年3月20日（星期五）。",),
        "代码冻结在每次发布之前的星期五，冻结之后只合并热修复。",
        "2026年3月17日发布，代码冻结是哪天？",
    ),
    (
        "The release notes go out on Friday 13 March 2026.",
        ("The release notes go out on Friday 13 March 2026.",),
        (
            "Release notes are sent the Friday after each release. Hotfixes before "
            "a release need CAB approval."
        ),
        "The release is on Tuesday 17 March 2026. When do release notes go out?",
    ),
    (
        (
            "Invoice due: 2 March 2026 + 30 days = 1 April 2026. The reminder goes "
            "out on 8 April 2026."
        ),
        (
            "Invoice due: 2 March 2026 + 30 days = 1 April 2026.",
            "The reminder goes out on 8 April 2026.",
        ),
        ("Invoices are due 30 days after issue. A reminder is sent 7 days before the due date."),
        "Invoice issued 2026-03-02 — when is the reminder?",
    ),
    (
        (
            "Go-Live: 02.03.2026 + 6 Wochen = 13.04.2026. Die Freigabe muss bis "
            "27.04.2026 vorliegen."
        ),
        (
            "Go-Live: 02.03.2026 + 6 Wochen = 13.04.2026.",
            "Die Freigabe muss bis 27.04.2026 vorliegen.",
        ),
        (
            "Der Go-Live ist 6 Wochen nach Projektstart. Die Freigabe muss 14 Tage "
            "vor dem Go-Live vorliegen."
        ),
        "Projektstart ist der 02.03.2026. Bis wann muss die Freigabe vorliegen?",
    ),
    (
        "リリース日：2026年3月2日＋6週間＝2026年4月13日。 コードフリーズは2026年4月20日です。",
        ("リリース日：2026年3月2日＋6週間＝2026年4月13日。", "コードフリーズは2026年4月20日です。"),
        "リリースはキックオフの6週間後。コードフリーズはリリースの1週間前です。",
        "キックオフが2026年3月2日の場合、コードフリーズは？",
    ),
    (
        "Der Call ist um 07:00 JST.",
        ("Der Call ist um 07:00 JST.",),
        "Der Weekly-Call ist dienstags.",
        "Der Call ist um 15:00 CET – wie spät ist das in Tokio (JST)?",
    ),
    (
        "ロンドン（GMT）では00:00です。",
        ("ロンドン（GMT）では00:00です。",),
        "定例会議は毎週火曜日です。",
        "会議は15:00 JSTです。ロンドン（GMT）では何時？",
    ),
    (
        "16:00 UTC + 3 h = 19:00 CEST.",
        ("16:00 UTC + 3 h = 19:00 CEST.",),
        "The maintenance window starts at 16:00 UTC.",
        "When is that in Berlin (CEST)?",
    ),
    (
        "2026 has 366 × 24 = 8 784 hours.",
        ("2026 has 366 × 24 = 8 784 hours.",),
        "SLA: 99.9% availability per calendar year.",
        "How much downtime does 99.9% allow in 2026?",
    ),
    (
        "Avril compte 31 × 24 = 744 heures.",
        ("Avril compte 31 × 24 = 744 heures.",),
        "Disponibilité : 99,9 % par mois calendaire.",
        "Combien d'heures en avril ?",
    ),
    (
        "You accrue 25 days × 200/365 = 13.7 days.",
        ("You accrue 25 days × 200/365 = 13.7 days.",),
        "Annual leave: 25 days, accrued per calendar day employed.",
        "I work from 1 January to 29 June 2026 — how much leave do I accrue?",
    ),
    (
        "KDV: 10 000 TL × 18/100 = 1 800 TL.",
        ("KDV: 10 000 TL × 18/100 = 1 800 TL.",),
        "Fatura tutarı 10 000 TL, KDV %20.",
        "KDV ne kadar?",
    ),
]
# ... and right answers the first readings failed: a short form one language uses for
# another day ("So", "ma", "do"), a weekday ending a range or opening the next clause,
# "mon" and "fri" as words, a time of day written like a date ("bis 11.05.")
REVIEW_RIGHT = [
    (
        "Die Wartung ist am 01.03.2026 (So).",
        ("Die Wartung ist am 01.03.2026 (So).",),
        "Wartung: Sonntag, 1. März 2026.",
        "Wann ist die Wartung?",
    ),
    (
        "Office hours are Monday to Friday, 24.12.2026 is a half day.",
        ("Office hours are Monday to Friday, 24.12.2026 is a half day.",),
        "Office hours: Monday to Friday, 9:00–17:00. Half day on 24.12.2026.",
        "When is the office open?",
    ),
    (
        "Release: 17.03.2026, Freitag dann die Retro.",
        ("Release: 17.03.2026, Freitag dann die Retro.",),
        "Release am 17.03.2026, Retro am Freitag danach.",
        "Wann ist das Release?",
    ),
    (
        "Le 17 mars 2026, mon équipe livre la v2.",
        ("Le 17 mars 2026, mon équipe livre la v2.",),
        "Livraison de la v2 : 17 mars 2026.",
        "Quand livrez-vous ?",
    ),
    (
        "Kontoret er stengt 17. mai 2026, fri for alle ansatte.",
        ("Kontoret er stengt 17. mai 2026, fri for alle ansatte.",),
        "Kontoret er stengt 17. mai 2026.",
        "Er kontoret åpent 17. mai?",
    ),
    (
        "El cierre es el 10/03/2026 (ma).",
        ("El cierre es el 10/03/2026 (ma).",),
        "Cierre: martes 10 de marzo de 2026.",
        "¿Cuándo es el cierre?",
    ),
    (
        "La chiusura è il 15/03/2026 (do).",
        ("La chiusura è il 15/03/2026 (do).",),
        "Chiusura: domenica 15 marzo 2026.",
        "Quando è la chiusura?",
    ),
    (
        "Das Meeting geht bis 11.05.",
        ("Das Meeting geht bis 11.05.",),
        "Meeting: 10.30–11.05 Uhr.",
        "Bis wann geht das Meeting?",
    ),
    (
        "Standupen er flyttet til 09.10.",
        ("Standupen er flyttet til 09.10.",),
        "Standup kl. 09.10 fra mandag.",
        "Når er standup nå?",
    ),
]


@pytest.mark.parametrize(("draft", "claims", "source", "question"), REVIEW_SLIPS)
def test_the_reviews_slips_are_flagged(
    draft: str, claims: tuple[str, ...], source: str, question: str
) -> None:
    assert flagged(draft, source, question, claims)


@pytest.mark.parametrize(("draft", "claims", "source", "question"), REVIEW_RIGHT)
def test_the_reviews_right_answers_pass(
    draft: str, claims: tuple[str, ...], source: str, question: str
) -> None:
    assert not flagged(draft, source, question, claims)


def test_a_date_counted_from_one_the_answer_works_out_is_sourced_the_way_the_texts_say() -> None:
    """Each step is shown: a release worked out from a given date, and a freeze a given
    shift before it; a freeze a week off, or the shift the other way, fails."""
    source = (
        "Version 7.0 shipped on 16 September 2025. Majors ship every 26 weeks; the feature "
        "freeze is two weeks before each release."
    )
    release = "8.0: 16 September 2025 + 26 weeks = 17 March 2026."
    for freeze, slipped in (
        ("3 March 2026", False),
        ("10 March 2026", True),
        ("31 March 2026", True),
    ):
        draft = f"{release} Freeze: {freeze}."
        claims = (release, f"Freeze: {freeze}")
        assert flagged(draft, source, "When is 8.0?", claims) is slipped


def test_a_clause_naming_both_ways_moves_a_weekend_date_nowhere() -> None:
    """ "Previous" and "next" in one clause leave the way unread: neither Friday nor Monday
    is sourced by it (the judge weighs them)."""
    source = (
        "Das Gehalt kommt am 25. Fällt der 25. auf ein Wochenende, wird am vorhergehenden "
        "Arbeitstag gezahlt und die Abrechnung folgt am nächsten Arbeitstag."
    )
    question = "Wann kommt das Gehalt im April 2026?"
    assert flagged("Am Freitag, 24.04.2026.", source, question)
    assert flagged("Am Montag, 27.04.2026.", source, question)
    one_way = source.replace(" und die Abrechnung folgt am nächsten Arbeitstag", "")
    assert not flagged("Am Freitag, 24.04.2026.", one_way, question)


def test_a_day_without_its_year_is_not_failed_by_its_weekday() -> None:
    """Its year is not written: "26 June" in an answer that names 2019 may well be this
    year's (a blind review's find), so only a date with its year is failed for its weekday."""
    source = "The summer party is on 26 June 2026. The tool dates from 2019."
    assert not flagged("The tool dates from 2019; the party is on Friday, 26 June.", source)
    assert flagged("The party is on Thursday, 26 June 2026.", source)


# Correct answers written blind beside words that are, or look like, weekdays' names (a
# second blind review's, after the first mends): a person's or a paper's name, another
# language's word, the end of a range, a noun. (claim, the date its source gives)
NOT_A_WEEKDAY = [
    ("Reviewer: Ann Friday, 15.07.2026.", "2026-07-15"),
    ("Ansprechpartnerin: Frau Freitag, 15.07.2026 letzter Arbeitstag.", "2026-07-15"),
    ("Habla con Ana Domingo, 15/07/2026 es su último día.", "2026-07-15"),
    ("Kontakt: Anna Piątek, 15.07.2026.", "2026-07-15"),
    ("The Sun, 4 May 2026 edition, covered the launch.", "2026-05-04"),
    ("SAT, 19 March 2026: scores are released online.", "2026-03-19"),
    ("Mon 14 juillet 2026 se passera à Paris.", "2026-07-14"),
    ("Du lundi au vendredi, 24/12/2026 : demi-journée.", "2026-12-24"),
    ("Рабочая среда, 16.07.2026, будет обновлена.", "2026-07-16"),
]


@pytest.mark.parametrize(("claim", "date"), NOT_A_WEEKDAY)
def test_a_word_like_a_weekday_beside_a_date_fails_nothing(claim: str, date: str) -> None:
    assert not flagged(claim, f"Reference: {date}. Demi-journée, Arbeitstag, edition.")
