"""Properties of repair and verify over generated LLM-like text."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.verify import Dialect, verify
from app.verify.formatting import CHECKS, Finding, find_formatting
from app.verify.repair import repair
from app.verify.scan import scan
from tests.examples import examples

DIALECTS = st.sampled_from(["mrkdwn", "markdown"])
MARKUP = [
    "**",
    "__",
    "***",
    "*",
    "_",
    "~~",
    "~",
    "[",
    "]",
    "(",
    ")",
    "![",
    "](",
    "# ",
    "## ",
    "#",
    "\n",
    "\n\n",
    " ",
    "|",
    "| a | b |\n|---|---|\n| 1 | 2 |\n",
    "---",
    "\n---\n",
    "> ",
    "> > ",
    "<",
    ">",
    "&",
    "&amp;",
    "@here",
    "@channel",
    "<b>",
    "</b>",
    "<br>",
    "<i>x</i>",
    "- [ ] ",
    "- [x] ",
    "*Note:*",
    "https://e.io/a_(b)",
    "[t](https://e.io/x)",
    "<https://e.io|e>",
    "2 * 3",
    "__init__",
    ":smile:",
    "-> ",
    "Überblick",
    "日本語",
    "שלום",
    "🚀",
    "1. ",
    "- ",
]
PROTECTED = [
    "`code`",
    "`a**b**c`",
    "`<b>&x</b>`",
    "``x ` y``",
    "\n```\nblock **x** <y> & # z\n```\n",
    "\n```python\n| a | b |\n|---|---|\n```\n",
    "<@U123>",
    "<@U123|alice>",
    "<#C0456|general>",
    "<!subteam^S789|@eng>",
    "<https://e.io/p?q=1&amp;r=2|label>",
    "<https://e.io>",
]
WORDS = st.text(alphabet=st.characters(blacklist_characters="`"), max_size=8)
PROSE = st.lists(st.one_of(st.sampled_from(MARKUP), WORDS), max_size=25).map("".join)
TEXT = st.lists(st.one_of(PROSE, st.sampled_from(PROTECTED)), max_size=12).map("".join)
COMMON = settings(
    max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@COMMON
@given(TEXT, DIALECTS)
def test_repair_is_idempotent(text: str, dialect: Dialect) -> None:
    once = repair(text, dialect).text
    assert repair(once, dialect).text == once


@COMMON
@given(st.lists(st.tuples(PROSE.map(lambda p: p.replace("`", "")), st.sampled_from(PROTECTED))))
def test_code_and_entities_survive_byte_for_byte(pieces: list[tuple[str, str]]) -> None:
    text = "".join(f"{prose} {protected} " for prose, protected in pieces)
    for dialect in ("mrkdwn", "markdown"):
        repaired = repair(text, dialect).text
        for _, protected in pieces:
            if dialect == "markdown" and _is_mrkdwn_link(protected):
                continue  # <url|label> is the mrkdwn link that Markdown delivery must convert
            piece = protected.strip("\n")
            assert repaired.count(piece) >= text.count(piece)


def _is_mrkdwn_link(piece: str) -> bool:
    return piece.startswith("<http") and "|" in piece


@COMMON
@given(TEXT, DIALECTS, st.sampled_from(["hi", "How do I deploy the service?", "?"]))
def test_a_passing_verdict_passes_again_unchanged(text: str, dialect: Dialect, q: str) -> None:
    first = verify(text, question=q, dialect=dialect)
    if first.passed:
        second = verify(first.text, question=q, dialect=dialect)
        assert second.passed
        assert second.text == first.text
        assert second.repaired == ()


@COMMON
@given(TEXT, DIALECTS)
def test_verdict_is_consistent(text: str, dialect: Dialect) -> None:
    verdict = verify(text, question="hi", dialect=dialect)
    assert verdict.passed == (not verdict.errors)
    assert 0.0 <= verdict.score <= 1.0
    assert (verdict.grade == "failed") or verdict.passed
    for issue in verdict.issues:
        assert 0 <= issue.start <= issue.end <= len(verdict.text)


HINTED = [
    *MARKUP,
    "\t",
    "   ",
    "1) ",
    "٣. ",
    "• ",
    "*x*",
    "*Label:* ",
    "&lt;",
    "&gt;",
    "&am",
    "&l",
    "&g",
    "a>b",
    " > ",
    "  - [ ] ",
    "* * *",
    "_ _ _",
    "- - -",
    "~~x~~",
    "__x__",
    "**x**",
    "\u3000",
]
HINTED_TEXT = st.lists(
    st.one_of(st.sampled_from(HINTED), st.text(alphabet="ab*_~-#>&<|[] \n\t", max_size=6), WORDS),
    max_size=30,
).map("".join)


# One text per hint, each found by its check alone
FOUND_BY_ONE_CHECK = [
    "a < b",
    "x\n  a > b",
    "AT&T",
    "R&D &a &am &amp &l &lt &g &gt",
    "**bold** and __bold__ and ~~gone~~",
    "__not bold__",
    "> > nested",
    "\n   - - -\n",
    "* * *",
    "___",
    "- [ ] a task",
    "٣) [x] done",
    "*Label:* value",
    "• *A title*",
    "\t12. *Step:* one",
]


def _checked_alone(text: str, dialect: Dialect) -> list[Finding]:
    layout = scan(text)
    every = [finding for check in CHECKS[dialect] for finding in check(layout, dialect)]
    every.sort(key=lambda f: (f.start, f.start - f.end))
    return every


@pytest.mark.parametrize("dialect", ["mrkdwn", "markdown"])
@pytest.mark.parametrize("text", FOUND_BY_ONE_CHECK)
def test_each_hint_lets_its_check_run(text: str, dialect: Dialect) -> None:
    assert find_formatting(scan(text), dialect) == _checked_alone(text, dialect)


@COMMON
@given(st.one_of(HINTED_TEXT, TEXT), DIALECTS)
def test_the_hints_skip_only_checks_that_would_find_nothing(text: str, dialect: Dialect) -> None:
    """find_formatting runs a check only when RE2's set of hints finds something for it:
    every check run on its own finds what find_formatting finds."""
    assert find_formatting(scan(text), dialect) == _checked_alone(text, dialect)


@pytest.mark.parametrize("text", FOUND_BY_ONE_CHECK)
def test_each_hints_text_is_found_by_a_check(text: str) -> None:
    assert _checked_alone(text, "mrkdwn") or _checked_alone(text, "markdown")
