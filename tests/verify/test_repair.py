"""Repair on output typical of LLMs: exact expected text, per dialect."""

from __future__ import annotations

import pytest

from app.verify import Dialect, verify
from app.verify.repair import repair

TABLE = "| Name | Value |\n|------|-------|\n| a | 1 |\n| bb | 22 |"
TABLE_BLOCK = "```\nName | Value\n-----+------\na    | 1\nbb   | 22\n```"

MRKDWN: list[tuple[str, str]] = [
    ("**Bold** text", "*Bold* text"),
    ("Use __strong words__ here", "Use *strong words* here"),
    ("***Very important***", "*_Very important_*"),
    ("**bold with *italic* inside**", "*bold with _italic_ inside*"),
    ("**Run `make test`** first", "*Run `make test`* first"),
    ("[Docs](https://example.com/docs)", "<https://example.com/docs|Docs>"),
    (
        "[Foo](https://en.wikipedia.org/wiki/Foo_(bar)) page",
        "<https://en.wikipedia.org/wiki/Foo_(bar)|Foo> page",
    ),
    ("[A & B](https://x.io/?a=1&b=2)", "<https://x.io/?a=1&amp;b=2|A &amp; B>"),
    ('[Docs](https://x.io/d "The docs")', "<https://x.io/d|Docs>"),
    ("[**Bold label**](https://x.io)", "<https://x.io|Bold label>"),
    ("[`func`](https://x.io/f)", "`func` (<https://x.io/f>)"),
    ("[the `run` command](https://x.io/r)", "the `run` command (<https://x.io/r>)"),
    ("![Diagram](https://x.io/d.png)", "<https://x.io/d.png|Diagram>"),
    ("# Title", "*Title*"),
    ("## **Setup** guide ##", "*Setup guide*"),
    ("### `make test` usage", "*`make test` usage*"),
    ("# *Already bold*", "*Already bold*"),
    ("- **Name**: value\n- **Other**: thing", "- *Name*: value\n- *Other*: thing"),
    ("1. **First** step\n2. **Second** step", "1. *First* step\n2. *Second* step"),
    ("**Step 1:** Install\n**Step 2:** Run", "*Step 1:* Install\n*Step 2:* Run"),
    ("~~old~~ new", "~old~ new"),
    ("> > nested quote", "> nested quote"),
    ("Use `**kwargs` and **bold**", "Use `**kwargs` and *bold*"),
    (
        "```python\nx = a ** 2  # **not bold** & <b>\n```\n**Bold** after",
        "```python\nx = a ** 2  # **not bold** & <b>\n```\n*Bold* after",
    ),
    ("a & b < c > d", "a &amp; b &lt; c &gt; d"),
    ("Arrow -> next", "Arrow -&gt; next"),
    ("2 * 3 * 4 = 24 & done", "2 * 3 * 4 = 24 &amp; done"),
    ("Call `a < b` then a < b", "Call `a < b` then a &lt; b"),
    ("Ping <!here> now", "Ping @\u2060here now"),
    ("Hey @channel, update", "Hey @\u2060channel, update"),
    ("**Warning** @everyone: deploy at 5", "*Warning* @\u2060everyone: deploy at 5"),
    ("a ` b ``@here", "a ` b ``@\u2060here"),
    (TABLE, TABLE_BLOCK),
    ("<b>bold</b> and <i>it</i> and <s>gone</s>", "*bold* and _it_ and ~gone~"),
    ("line one<br>line two", "line one\nline two"),
    ('<a href="https://x.io">site</a>', "<https://x.io|site>"),
    ("<div>Use <code>pip</code></div>", "Use `pip`"),
    ("Mixed *mrkdwn bold* and **markdown bold**", "Mixed *mrkdwn bold* and *markdown bold*"),
    ("**Link: [here](https://x.io)**", "*Link: <https://x.io|here>*"),
    (
        "# Heading\n\nText with **bold** and [link](https://a.io).",
        "*Heading*\n\nText with *bold* and <https://a.io|link>.",
    ),
    ("Résumé **très** bien", "Résumé *très* bien"),
    ("日本語の**太字**です", "日本語の*太字*です"),
    ("Emoji :white_check_mark: **done**", "Emoji :white_check_mark: *done*"),
    (
        "See <https://x.io|site> and [other](https://y.io)",
        "See <https://x.io|site> and <https://y.io|other>",
    ),
    ("Use ```inline``` and **bold**", "Use ```inline``` and *bold*"),
    ("**Bold** text\n```\nunclosed **x**", "*Bold* text\n```\nunclosed **x**"),
]

MARKDOWN: list[tuple[str, str]] = [
    ("<https://x.io|Docs>", "[Docs](https://x.io)"),
    ("<https://x.io/?a=1&amp;b=2|A &amp; B>", "[A & B](https://x.io/?a=1&b=2)"),
    ("<https://x.io/a_(b)|Wiki>", "[Wiki](https://x.io/a_(b))"),
    ("<https://x.io/a)|Odd>", "[Odd](https://x.io/a%29)"),
    ("*Note:* restart", "**Note:** restart"),
    ("*Summary*\nAll good.", "**Summary**\nAll good."),
    ("- *Step 1:* install\n- *Step 2:* run", "- **Step 1:** install\n- **Step 2:** run"),
    ("Intro\n\n---\n\nMore", "Intro\n\n\n\nMore"),
    ("- [ ] write tests\n- [x] ship", "- ☐ write tests\n- ☑ ship"),
    ("| a | b |\n|---|---|\n| 1 | 2 |", "```\na | b\n--+--\n1 | 2\n```"),
    ("<b>bold</b> <s>gone</s>", "**bold** ~~gone~~"),
    ("Ping <!channel>", "Ping @\u2060channel"),
    ("Use *italic* here and **bold**", "Use *italic* here and **bold**"),
    ("# Heading\n**bold** & [link](https://x.io)", "# Heading\n**bold** & [link](https://x.io)"),
]


@pytest.mark.parametrize(("before", "after"), MRKDWN)
def test_repairs_mrkdwn(before: str, after: str) -> None:
    assert repair(before, "mrkdwn").text == after


@pytest.mark.parametrize(("before", "after"), MARKDOWN)
def test_repairs_markdown(before: str, after: str) -> None:
    assert repair(before, "markdown").text == after


def test_there_are_at_least_forty_repair_cases() -> None:
    assert len(MRKDWN) + len(MARKDOWN) >= 40


@pytest.mark.parametrize(("dialect", "before", "after"), [("mrkdwn", *c) for c in MRKDWN])
def test_repair_is_idempotent_on_the_cases(dialect: Dialect, before: str, after: str) -> None:
    assert repair(after, dialect).text == after


def test_verdict_reports_what_repair_fixed() -> None:
    verdict = verify("## Plan\nUse **bold** & <!here>", question="hi")
    assert verdict.passed
    assert verdict.text == "*Plan*\nUse *bold* &amp; @\u2060here"
    assert verdict.repaired == (
        "BROADCAST_MENTION",
        "MARKDOWN_BOLD",
        "MARKDOWN_HEADING",
        "UNESCAPED_CHARACTER",
    )
    assert verdict.issues == ()


def test_unfixable_issue_fails_after_repair() -> None:
    verdict = verify("**Bold** text\n```\nunclosed", question="hi")
    assert not verdict.passed
    assert verdict.repaired == ("MARKDOWN_BOLD",)
    assert verdict.codes == ("UNCLOSED_CODE_FENCE",)
    assert verdict.grade == "failed"
