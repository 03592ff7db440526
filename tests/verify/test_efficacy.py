"""The rules on the labelled corpus (tests/fixtures/efficacy): the figures docs/verification.md
records may not regress. See bench/efficacy.py for the table."""

from __future__ import annotations

from pathlib import Path

from bench.efficacy import SETS, evaluate, load, residue

ITEMS = load()
ROWS = evaluate(ITEMS)
SECRETS = evaluate(i for i in ITEMS if i.corpus == "secrets")  # credentials and look-alikes


def test_the_corpus_is_large_and_covers_every_label() -> None:
    assert sum(row.total for row in ROWS.values()) >= 250
    assert ROWS["good"].total >= 150
    assert set(ROWS) >= {"good", "github_markdown", "no_content", "wrong_language", "wrong_figure"}


def test_no_good_answer_is_failed_by_the_rules() -> None:
    assert ROWS["good"].wrong == []


def test_credentials_are_caught_and_look_alikes_pass_as_recorded() -> None:
    """SECRET (detect-secrets' plugins): what docs/security.md records, and no worse; the
    look-alikes pass, public documentation examples and defaults included."""
    assert SECRETS["secret"].caught >= 60  # of 72
    assert SECRETS["good"].total >= 110
    assert SECRETS["good"].wrong == []


def test_every_github_markdown_answer_is_repaired_with_nothing_left() -> None:
    row = ROWS["github_markdown"]
    assert row.wrong == [] and row.repaired == row.total


def test_the_deterministic_classes_are_caught_at_least_as_often_as_recorded() -> None:
    caught = {
        label: ROWS[label].caught for label in ("no_content", "wrong_language", "wrong_figure")
    }
    assert caught["no_content"] == ROWS["no_content"].total  # 25 of 25
    assert caught["wrong_language"] >= 23  # of 25: the rest is left to the judge
    assert caught["wrong_figure"] >= 26  # of 30
    assert ROWS["off_topic"].caught >= 7  # of 22: long answers; short ones are the judge's


def test_the_residue_check_sees_markdown_left_in_mrkdwn() -> None:
    """The independent check the repaired figure relies on is not blind."""
    for left in ("**bold**", "# Title", "[a](https://x.io)", "- [ ] task", "---", "| a | b |"):
        assert residue(f"ok\n{left}\nok"), left
    assert not residue("*bold* and `**kwargs` and\n```\n# comment\n---\n```")


def test_credentials_held_out_are_caught_as_recorded() -> None:
    """A second batch written blind after the detector was chosen (heldout/secrets.jsonl):
    more vendors, each at most four times."""
    rows = evaluate(i for i in load(SETS["heldout"]) if i.corpus == "secrets")
    assert rows["secret"].caught >= 35  # of 55
    assert rows["good"].wrong == []  # of 82


def test_links_built_from_the_conversation_pass_as_recorded() -> None:
    """Good answers whose links reuse the thread's and the docs' words (searches, JQL,
    dashboards, prefilled issues) and answers about how Vouch works, written blind
    (heldout/links.jsonl): only the rules that were there before fail any, none of them
    for carrying what was read or for repeating instructions."""
    rows = evaluate(i for i in load(SETS["heldout"]) if i.corpus == "links")
    assert rows["good"].total >= 76
    assert sorted(rows["good"].codes.elements()) == ["OFF_TOPIC", *["UNKNOWN_SOURCE"] * 4]


def test_look_alikes_of_each_defect_pass_and_the_defects_beside_them_are_caught() -> None:
    """Good answers built to resemble a defect, written blind after the rules of issue 25
    (lookalikes/): terse answers to long pastes, figures restated in other forms, answers
    in the asker's language quoting English, requested translations, other scripts and
    close pairs. None may fail; the defects written in the same forms are caught as
    recorded in docs/verification.md."""
    rows = evaluate(load(SETS["lookalikes"]))
    assert rows["good"].total >= 150
    assert rows["good"].wrong == []
    assert sum(rows[label].total for label in rows if label != "good") >= 50
    assert rows["wrong_language"].caught >= 21  # of 29: the close pairs left go to the judge
    assert rows["wrong_figure"].caught >= 17  # of 20
    held = evaluate(i for i in load(SETS["heldout"]) if i.corpus == "heldout")
    assert held["wrong_language"].caught == held["wrong_language"].total  # 15 of 15
    assert held["wrong_figure"].caught >= 13  # of 15
    assert held["good"].wrong == []


def test_look_alikes_written_after_the_rules_pass_and_their_defects_are_caught() -> None:
    """A second batch of look-alikes (heldout/lookalikes.jsonl), written blind after the
    rules above: its first run failed 3 of 80 good answers (a difference with a small
    operand, "vingt-cinq", a date less a notice period), fixed since; docs/verification.md
    has both figures."""
    rows = evaluate(i for i in load(SETS["heldout"]) if i.corpus == "lookalikes")
    assert rows["good"].total >= 80 and rows["good"].wrong == []
    assert rows["wrong_language"].caught == rows["wrong_language"].total  # 9 of 9
    assert rows["wrong_figure"].caught == rows["wrong_figure"].total  # 8 of 8


def test_preambles_written_after_the_structural_rule_as_recorded() -> None:
    """Preambles and their look-alikes in 15 languages, written blind after NO_CONTENT's
    structural test (heldout/preambles.jsonl): no good answer fails; the rules catch 6 of
    40 preambles (the judge's NON_ANSWER is the net under the rest: docs/verification.md);
    12 since the filler model of stop 37."""
    rows = evaluate(i for i in load(SETS["heldout"]) if i.corpus == "preambles")
    assert rows["good"].total >= 50 and rows["good"].wrong == []
    assert rows["no_content"].caught >= 12  # of 40


def test_credentials_written_after_the_filters_as_recorded() -> None:
    """A third batch (heldout/secrets2.jsonl), written blind after the filters of public
    examples and defaults: it failed two look-alikes, public defaults no filter knew
    (Azurite's emulator key, the mongo image's root:example). Both are known now, so this
    batch no longer measures them: fresh/answers.jsonl, written after, does."""
    rows = evaluate(i for i in load(SETS["heldout"]) if i.corpus == "secrets2")
    assert rows["secret"].caught >= 28  # of 30
    assert rows["good"].wrong == []


def test_the_fresh_set_written_after_every_rule_as_recorded() -> None:
    """Preambles and answers built like them in 18 languages, and look-alikes of every
    defect class with defects in the same forms (fresh/), written blind after every rule
    above. Its first run failed 6 of 200 good answers (three restated figures, three
    OFF_TOPIC) and caught 6 of 70 preambles; what was fixed since, and the answer left
    (a passage quoted with no word of the question), are in docs/verification.md. (A
    question to Vouch about itself failed while the bench left "@Vouch" in the message,
    which Vouch strips as Slack's mention before any rule reads it.)"""
    rows = evaluate(load(SETS["fresh"]))
    assert rows["good"].total >= 200
    assert [item for item, _ in rows["good"].wrong] == ["answers-27"]
    assert rows["no_content"].caught >= 15  # of 70 (7 before the filler model; 16 before
    # its features were hashed, "Muita gente tem dúvida sobre isso." scoring 0.994 against
    # 1.005); the rest is the judge's NON_ANSWER
    assert rows["wrong_figure"].caught == rows["wrong_figure"].total  # 10 of 10
    assert rows["wrong_language"].caught == rows["wrong_language"].total  # 10 of 10
    assert rows["secret"].caught >= 8  # of 10


def test_the_second_fresh_set_written_after_the_first_ones_fixes_as_recorded() -> None:
    """A second blind batch (fresh2/), written to measure the fixes the first one led to:
    its first run failed 13 of 190 good answers, 10 of them short answers trailing off on
    an ellipsis (which NO_CONTENT no longer reads as a promise); the last read "ein paar
    Minuten" (a few minutes) as one minute (docs/verification.md)."""
    rows = evaluate(load(SETS["fresh2"]))
    assert rows["good"].total >= 190
    assert rows["good"].wrong == []
    assert rows["no_content"].caught >= 25  # of 68 (16 before the filler model)
    assert rows["wrong_figure"].caught >= 8  # of 9
    assert rows["wrong_language"].caught >= 7  # of 8
    assert rows["secret"].caught >= 7  # of 9


def test_the_third_fresh_set_written_after_the_second_ones_fixes_as_recorded() -> None:
    """A third blind batch (fresh3/), written after fresh2's fixes: its first run failed 2
    of 190 good answers (cents for a price in euros, a total of days written in a Dutch
    compound) and missed an AWS secret key in the credentials file's unquoted form; all
    three are fixed since (docs/verification.md). What it still misses is the judge's: a
    version the question itself gives, "once a day" for every 48 hours, close language
    pairs (Czech answered in Slovak with one letter of its own; Swedish in Norwegian was
    missed until the neighbours' letters were read)."""
    rows = evaluate(load(SETS["fresh3"]))
    assert rows["good"].total >= 190
    assert rows["good"].wrong == []
    assert rows["no_content"].caught >= 15  # of 73 (8 before the filler model)
    assert rows["wrong_figure"].caught >= 6  # of 8
    assert rows["wrong_language"].caught >= 7  # of 8 (Swedish in Norwegian by its letters)
    assert rows["secret"].caught >= 6  # of 7


def test_the_close_languages_set_written_after_the_neighbours_letters_as_recorded() -> None:
    """Close languages (fresh4/), written blind after the rule that reads the neighbours'
    letters: its first run failed 9 of 140 good answers (a language asked for in
    Ukrainian, Bulgarian or Polish words, a Czech translation verb, messages quoting the
    neighbour's words, a Ukrainian answer sharing only stems with its question) and caught
    35 of 60 wrong-language answers. Since (docs/verification.md): more languages' names,
    quoted words left out of the message's language, the latest message asking for its
    own language outweighing the thread, Cyrillic stems of four letters."""
    rows = evaluate(load(SETS["fresh4"]))
    assert rows["good"].total >= 140
    assert rows["good"].wrong == []
    assert rows["wrong_language"].caught >= 38  # of 60


def test_the_fifth_fresh_set_written_after_the_fourths_fixes_as_recorded() -> None:
    """Answers in 25 languages (fresh5/), written blind to measure fresh4's fixes: its first
    run failed 8 of 170 good answers (UNSOURCED_FIGURE 5, WRONG_LANGUAGE 2, NO_CONTENT 1)
    and caught 19 of 35 wrong-language answers. Fixed since (docs/verification.md): a
    rate times a given number of its units, Danish and Swedish quotation marks, a draft
    that is all a quotation; then (a later session) a month as days ("just over 13
    months") and a rate per another unit of time. Left: a Czech product, a Slovak message
    the model reads as Czech."""
    as_recorded(
        SETS["fresh5"],
        good=170,
        failed=["answers5-5", "answers5-163"],
        caught={"wrong_language": 18, "secret": 8, "wrong_figure": 7},  # of 35, 9, 11
    )


def test_the_sixth_fresh_set_written_after_every_change_of_the_day_as_recorded() -> None:
    """A last blind set (fresh6/), written after every change of 2026-11-27 to measure them:
    its first run failed 12 of 160 good answers (UNSOURCED_FIGURE 9: products written out
    with their operands, "0.75 US cents"; SECRET 2: a template's password in Spanish, a
    name in Polish capitals; OFF_TOPIC 1) and caught 13 of 23 wrong-language answers, 11
    of 12 secrets and 14 of 16 wrong figures. Fixed since (docs/verification.md), then
    (a later session) a half year (半年) as six months and ten working days as two weeks. Left:
    a date counted from the message's month, a sales answer sharing no word with its
    question."""
    as_recorded(
        SETS["fresh6"],
        good=160,
        failed=["answers6-8", "answers6-29"],
        caught={"wrong_language": 13, "secret": 11, "wrong_figure": 14},  # of 23, 12, 16
    )


def as_recorded(folder: Path, *, good: int, failed: list[str], caught: dict[str, int]) -> None:
    """A set's good answers (at least `good`), exactly `failed` of them failed, and at least
    `caught` of each defect label caught."""
    rows = evaluate(load(folder))
    assert rows["good"].total >= good
    assert [item for item, _ in rows["good"].wrong] == failed
    for label, floor in caught.items():
        assert rows[label].caught >= floor, label


def test_the_figures_set_written_after_the_spans_of_months_as_recorded() -> None:
    """Figures restated in every form in 18 languages (fresh8/), written blind on 2026-11-27
    while the spans of months, working days and rates per unit of time were built: its
    first run (after those) failed 59 of 160 good answers (the day's start: 65) and caught
    50 of 60 wrong figures (49). Fixed since (docs/verification.md): units, numbers and
    months of eight more languages, a given figure times or divided by the asker's count
    or the claim's working, months, quarters and years named without a number, dates
    counted from a date without its year or by months, CJK hours; since stop 35, a result
    the answer works out elsewhere ("3000 ÷ 60 = 50"). Left: the rest below, chains of two
    steps, sums of a figure with itself, fractions in words, hedged approximations, a
    count of parts. Stop 36 (docs/verification.md): 33 → 32."""
    as_recorded(
        SETS["fresh8"],
        good=160,
        failed=[
            "figures8-8",
            "figures8-21",
            "figures8-28",
            "figures8-29",
            "figures8-40",
            "figures8-55",
            "figures8-70",
            "figures8-72",
            "figures8-81",
            "figures8-94",
            "figures8-101",
            "figures8-106",
            "figures8-127",
            "figures8-129",
            "figures8-137",
            "figures8-145",
            "figures8-154",
            "figures8-156",
            "figures8-157",
            "figures8-174",
            "figures8-175",
            "figures8-179",
            "figures8-181",
            "figures8-182",
            "figures8-191",
            "figures8-194",
            "figures8-199",
            "figures8-204",
            "figures8-210",
            "figures8-216",
        ],
        caught={"wrong_figure": 54},  # of 60
    )


def test_the_second_figures_set_written_blind_as_recorded() -> None:
    """Everyday answers with figures in 18 languages (fresh9/), written blind on 2026-11-27
    in parallel with fresh8's fixes and first run on them (43e222c): 30 of 140 good answers
    failed (the day's start: 50) and 38 of 60 wrong figures caught (36). Fixed since: what
    a given share leaves, "6点半", "kl. 11.00". A year counted by years, the complement of
    a percentage and an amount scaled by named periods were tried and dropped after blind
    reviews found slips they let pass. "7 h 30" is read since stop 35 (22). Left: chains of
    two steps, dates from a derived date, sums within the claim. Stop 36: 22 → 16, caught 39."""
    as_recorded(
        SETS["fresh9"],
        good=140,
        failed=[
            "figures9-36",
            "figures9-62",
            "figures9-71",
            "figures9-95",
            "figures9-104",
            "figures9-119",
            "figures9-136",
            "figures9-140",
            "figures9-174",
            "figures9-179",
            "figures9-184",
            "figures9-187",
            "figures9-192",
            "figures9-200",
        ],
        caught={"wrong_figure": 39},  # of 60
    )


def test_the_preambles_written_blind_after_the_titles_as_recorded() -> None:
    """Preambles and their look-alikes in 18 languages (fresh7/), written blind on 2026-11-27
    and first run after the titles and emoji of 7d539d0: 0 of 160 good answers failed, 21 of
    100 preambles caught (the day's start: 17). Fixed since, reading its misses: headings
    alone whatever their words, a title with an emoji beside it (a greeting with a waving
    hand, and titles of two words, were dropped after a blind review). The rest (promises,
    deferrals, restated questions, empathy, plans) need words of each language; the
    judge's NON_ANSWER catches them. Since the filler model of stop 37: 34."""
    as_recorded(SETS["fresh7"], good=160, failed=[], caught={"no_content": 34})


def test_the_preambles_of_layout_written_blind_as_recorded() -> None:
    """Headings, titles, emoji and greetings, and good answers built like them (fresh10/),
    written blind on 2026-11-27 in parallel with fresh7's fixes and first run on them
    (e8cb409): 22 of 70 preambles caught (the day's start: 9), and 13 of 130 good answers
    failed (the start: 13), none by NO_CONTENT: TOO_SHORT 12 (an emoji in reply to
    "thanks, that worked!"), UNSOURCED_FIGURE 1 ("alle zwei Wochen"). Fixed since: an
    emoji answers a short message that exclaims and asks nothing. A blind review then
    showed the greeting rule and titles of two words failing terse answers ("Marta 👋",
    "*Enterprise plan*"): both dropped, so fewer are caught than on the first run."""
    as_recorded(SETS["fresh10"], good=130, failed=["preambles10-24"], caught={"no_content": 21})


def test_the_last_figures_set_written_blind_as_recorded() -> None:
    """Everyday answers citing docs with several figures (fresh11/), written blind at the
    end of stop 34 after both reviews' mends, and first run on 83dc43d: 40 of 150 good
    answers failed (the day's start: 63), 33 of 50 wrong figures caught (32). An amount
    times a count the claim writes was tried and dropped after a blind review ("$10 …
    arrives in 2 days" passed for $5); "євро" is read. A count of days the asker writes
    then multiplied any amount; it now multiplies only a rate given per its unit ($3,600
    passed for "$40 per hour" and "90 minutes"), which fails "€ 2,40 per thuiswerkdag"
    for 9 days (41). Calculations shown with their operands are read since stop 35: "35.000
    € / 14 = 2.500 €", "30 × 4/5 = 24 Urlaubstage", "25 × 32/40 = 20 vakantiedagen"
    pass (38); dates counted in working days (37). The rest work figures out without
    showing it: chains, sums, dates from a computed date, and conversions the texts do not
    name. Stop 36: 37 → 34."""
    as_recorded(
        SETS["fresh11"],
        good=150,
        failed=[
            "figures11-5",
            "figures11-13",
            "figures11-14",
            "figures11-25",
            "figures11-39",
            "figures11-61",
            "figures11-62",
            "figures11-72",
            "figures11-85",
            "figures11-91",
            "figures11-92",
            "figures11-94",
            "figures11-103",
            "figures11-106",
            "figures11-115",
            "figures11-116",
            "figures11-151",
            "figures11-161",
            "figures11-168",
            "figures11-173",
            "figures11-179",
            "figures11-190",
            "figures11-194",
            "figures11-195",
            "figures11-196",
        ],
        caught={"wrong_figure": 34},  # of 50
    )


def test_the_set_written_with_the_working_shown_as_recorded() -> None:
    """Everyday answers citing docs with several figures (fresh12/), 114 of 150 good ones
    working a figure out, written blind in stop 35 under the drafting prompt that asks for
    the working ("2 × €180 = €360"). Its first run, on f915202: 8 of 150 good answers
    failed, 34 of 50 wrong figures caught; the rules of 370fad2, before calculations were
    read, on the same set: 9 and 35 (fresh11, written under the prompt before: 40 of 150
    failed). Mended since: thousands set apart by spaces inside the working ("2 × 1 200
    kr"), a size as a count of the unit an amount is given per ("240 GB × R$ 0,15" for "R$
    0,15 por GB"), percentages summed, "₽". Since the second review, a calculation shown
    wrong refutes its result even where a count of the working would scale to it: 37
    caught. Left: "le 3 du mois suivant" read as 3 April, which is meaning. Stop 36 reads
    a given percentage written as a decimal ("× 0,15" for 15 %): 36 caught, the one lost
    the discount worked out right and given as the price, which "× 15 %" passed before."""
    as_recorded(
        SETS["fresh12"],
        good=150,
        failed=["figures12-18"],
        caught={"wrong_figure": 36},  # of 50
    )


def test_the_second_attempts_after_the_feedback_as_recorded() -> None:
    """What the model writes after UNSOURCED_FIGURE's feedback (retries/): for each of the
    108 good answers the rules failed on every set at 67c8ee3, a helper playing the model
    was given the drafting prompt, the conversation, its first attempt and the feedback as
    the loop gives it, and wrote the second attempt; a blind reviewer judged all 108
    correct. Most show their working, as the fix asks. On 67c8ee3: 52 of 108 passed (half
    A 23 of 54, half B 29). The calculations read since were found on half B (40 of 54),
    and measured on half A, unseen: 30 of 54; A was read after that, for the fraction rule's
    four and for dates: 81 of 108. A second blind review then showed the calendar's
    figures explaining slips away ("12 × 5 = 60 Tage", "14:40 + 1 Stunde", "100 % −"), so
    only bare numbers are the calendar's now: 74. Left: the calendar's figures ("1 uur",
    "7 dagar", "365日", "100 %"), dates counted in working days or from a date worked out
    in words ("le 3 du mois suivant", "tre måneder"), "9 h 30", a discount as a factor ("×
    0.9"), "230 km ÷ 10 = 23 mil" ("mil" read as a thousand), and the held-out set's two
    deliberate failures (a request for the instructions, a Slovak message in Czech). Stop
    36 (100 %, cycles in words, compound durations, whole days times an amount, "14.03",
    months of a year, days in a worked year, "4天3晚", "in maart 12 dagen"): 33 → 18."""
    as_recorded(
        SETS["retries"],
        good=108,
        failed=[
            "retries-links-066",
            "retries-answers5-163",
            "retries-figures8-40",
            "retries-figures8-129",
            "retries-figures8-137",
            "retries-figures8-156",
            "retries-figures8-191",
            "retries-figures8-210",
            "retries-figures8-216",
            "retries-figures9-104",
            "retries-figures9-179",
            "retries-figures11-61",
            "retries-figures11-91",
            "retries-figures11-142",
            "retries-figures11-173",
        ],
        caught={},
    )


def test_the_set_of_dates_times_and_rates_as_recorded() -> None:
    """Everyday answers working out dates, times, rates, discounts and VAT (fresh13/),
    written blind in stop 35 under the prompt that asks for the working. Its first run, on
    15231ff: 78 of 150 good answers failed, 41 of 50 wrong figures caught; the rules of
    370fad2 on the same set: 90 and 40. Read since: a factor that is one plus or minus a
    given percentage ("× 0,9" for 10% off, "× 1,21" for VAT), and lists of times or dates
    that step by a given duration from a sourced one ("14:50, 15:20, 15:50"). Left, most
    of them: calendar reasoning (a payday moved off a weekend, "the last working day", "the
    first Sunday of the month", the end of a month), deadlines counted in working days,
    times written "22 h 00", and rates the texts give in words. Stop 36 refutes only a
    result whose number is wrong, not one in a unit the rule does not carry over: the
    catch lost (40) is "8 × 2,5 = 20 jours" for 9 months, a wrong count, the judge's.
    Stop 36 in all: 69 → 59 failed."""
    as_recorded(
        SETS["fresh13"],
        good=150,
        failed=[
            "figures13-2",
            "figures13-6",
            "figures13-7",
            "figures13-12",
            "figures13-18",
            "figures13-20",
            "figures13-22",
            "figures13-26",
            "figures13-27",
            "figures13-28",
            "figures13-29",
            "figures13-30",
            "figures13-38",
            "figures13-39",
            "figures13-43",
            "figures13-51",
            "figures13-56",
            "figures13-64",
            "figures13-68",
            "figures13-70",
            "figures13-74",
            "figures13-75",
            "figures13-94",
            "figures13-96",
            "figures13-98",
            "figures13-101",
            "figures13-103",
            "figures13-104",
            "figures13-105",
            "figures13-109",
            "figures13-120",
            "figures13-122",
            "figures13-128",
            "figures13-129",
            "figures13-143",
            "figures13-146",
            "figures13-149",
            "figures13-156",
            "figures13-158",
            "figures13-165",
            "figures13-172",
            "figures13-188",
            "figures13-189",
            "figures13-190",
            "figures13-199",
            "figures13-200",
        ],
        caught={"wrong_figure": 40},  # of 50: 41 until stop 36 (below)
    )


def test_the_last_blind_set_of_stop_35_as_recorded() -> None:
    """Written blind after every change of stop 35, with fresh13's brief (dates, times,
    rates, discounts, VAT, surcharges), to measure them (fresh14/); not read before its
    first run, on 04d1868, which is recorded here: 22 of 150 good answers failed, 34 of 50
    wrong figures caught. The rules of 370fad2 on the same set: 29 failed, 41 caught. The
    seven catches lost are all the right arithmetic on the wrong given figure (a 25%
    surcharge where 50% applied, 1/10 of the wage where 1/5 did, the wrong night-time
    band): 370fad2 caught them only because it failed every figure worked out, the correct
    ones with them. Which given figure applies is the judge's. Since (working days, French
    times, read after a third review): 21 failed, 34 caught. Stop 36 (one-letter words
    after a unit, hours in compounds, CJK ordinals, percentages as decimals, and more): 12 failed,
    32 caught; the two lost are the right arithmetic on the wrong given percentage ("×
    0,08" of a month's pay, not a year's; "× 1.5" where 200 % applied), which the same
    answer with "× 8 %" or "× 150%" passed before."""
    as_recorded(
        SETS["fresh14"],
        good=150,
        failed=[
            "figures14-3",
            "figures14-14",
            "figures14-17",
            "figures14-26",
            "figures14-37",
            "figures14-86",
            "figures14-114",
            "figures14-116",
            "figures14-141",
            "figures14-167",
        ],
        caught={"wrong_figure": 32},  # of 50
    )


def test_the_blind_set_of_stop_36_as_recorded() -> None:
    """Written blind in stop 36 with fresh13's brief (dates, times, rates, discounts, VAT,
    SLA downtime, units, currency notation), asking for every way a model writes its
    working (on separate lines, in parentheses, the result first, in words, in lists), 18
    languages (fresh15/). Its first run, on edc4bc4, after the stop's changes to the rules
    up to then and before anyone read it: 80 of 150 good answers failed, 40 of 50 wrong
    figures caught; the rules of c002015 (stop 35) on the same set: 90 and 41. Half A (odd
    numbers) was then read to find gaps, half B (even) kept unread to measure what came
    of it: first run A 42 failed and 20 caught, B 38 and 20 (c002015: A 43 and 20, B 47
    and 21). Mended from half A: whole days times an amount ("4 días × 53,34 €"), Korean
    hours of the night and half past ("밤 9시 반"), Russian "ч", "мин", and more: A 29, B 25;
    after two blind reviews' mends (docs/verification.md, "Stop 36"): A 30, B 25."""
    as_recorded(
        SETS["fresh15"],
        good=150,
        failed=[
            "figures15-1",
            "figures15-15",
            "figures15-21",
            "figures15-22",
            "figures15-24",
            "figures15-29",
            "figures15-30",
            "figures15-38",
            "figures15-39",
            "figures15-45",
            "figures15-48",
            "figures15-55",
            "figures15-70",
            "figures15-71",
            "figures15-74",
            "figures15-87",
            "figures15-95",
            "figures15-103",
            "figures15-109",
            "figures15-110",
            "figures15-112",
            "figures15-122",
            "figures15-125",
            "figures15-129",
            "figures15-136",
            "figures15-142",
            "figures15-157",
            "figures15-158",
            "figures15-160",
            "figures15-161",
            "figures15-163",
            "figures15-166",
            "figures15-167",
            "figures15-170",
            "figures15-181",
            "figures15-182",
            "figures15-184",
            "figures15-185",
            "figures15-187",
            "figures15-188",
            "figures15-193",
            "figures15-194",
            "figures15-199",
            "figures15-200",
        ],
        caught={"wrong_figure": 40},  # of 50
    )


def test_the_preambles_written_blind_beside_the_filler_model_as_recorded() -> None:
    """Preambles of every kind and good answers built like them in 18 languages (fresh16/),
    written blind in stop 37 while the filler model was built, and not read before its
    first run: 0 of 150 good answers failed, 23 of 100 preambles caught (the phrase lists
    alone: 12). Half A (1-125) was then read; half B (126-250) never was. Since, more
    sentences learnt, and the gates two blind reviews asked for (a draft of 30 letters at
    least, every clause filler, no message asking for words to say, no reply taking up
    the message's words): A 10 of 50, B 7 of 50 (docs/verification.md)."""
    as_recorded(SETS["fresh16"], good=150, failed=[], caught={"no_content": 17})


def test_the_blind_figures_set_of_stop_38_as_recorded() -> None:
    """Written blind in stop 38, after its first changes to UNSOURCED_FIGURE, by two helpers
    given only FORMAT.md and the drafting prompt (fresh17/): answers that state and work
    out figures (totals, shares, other units, money notations, dates counted in working
    days, weeks and months, weekdays, time zones) in 18 languages, with one wrong figure
    in the same forms. Its first run, on 1b684fe, before anyone read it: 59 of 150 good
    answers failed, 44 of 50 wrong figures caught; the rules of d854bb6 (the stop's start)
    on the same set: 62 and 45 (a wrong figure caught by accident of another figure).
    Half A (odd numbers) was then read for gaps, half B (even) kept unread: first run A 32
    and B 27 failed (d854bb6: A 34, B 28). After a blind review's mends (readings narrowed
    or removed): 58 failed (A 31, B 27), 44 caught; docs/verification.md, "Stop 38"."""
    as_recorded(
        SETS["fresh17"],
        good=150,
        failed=[
            "figures17a-3",
            "figures17a-5",
            "figures17a-11",
            "figures17a-15",
            "figures17a-17",
            "figures17a-22",
            "figures17a-24",
            "figures17a-27",
            "figures17a-30",
            "figures17a-31",
            "figures17a-33",
            "figures17a-39",
            "figures17a-41",
            "figures17a-44",
            "figures17a-52",
            "figures17a-53",
            "figures17a-59",
            "figures17a-62",
            "figures17a-64",
            "figures17a-66",
            "figures17a-69",
            "figures17a-73",
            "figures17a-81",
            "figures17a-84",
            "figures17a-87",
            "figures17a-92",
            "figures17a-94",
            "figures17a-97",
            "figures17a-98",
            "figures17a-100",
            "figures17b-3",
            "figures17b-10",
            "figures17b-12",
            "figures17b-13",
            "figures17b-17",
            "figures17b-19",
            "figures17b-24",
            "figures17b-26",
            "figures17b-29",
            "figures17b-31",
            "figures17b-35",
            "figures17b-37",
            "figures17b-39",
            "figures17b-43",
            "figures17b-49",
            "figures17b-54",
            "figures17b-60",
            "figures17b-66",
            "figures17b-71",
            "figures17b-74",
            "figures17b-76",
            "figures17b-90",
        ],
        caught={"wrong_figure": 44},
    )
