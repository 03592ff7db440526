"""The README and docs/ document every setting, rule code and telemetry name exactly as the
code defines them, and every link between them resolves."""

from __future__ import annotations

import re
from pathlib import Path

from app.agent.model import Usage
from app.agent.outcome import Attempt, Outcome
from app.settings import Settings
from app.telemetry import METADATA_KEYS, scores_of
from app.verify import verify
from app.verify.codes import RULES
from app.verify.formatting import CHECKS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
VERIFICATION = (ROOT / "docs" / "verification.md").read_text()
TELEMETRY = (ROOT / "docs" / "telemetry.md").read_text()
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ROW = re.compile(
    r"^\| `([A-Z_]+)` \| (both|mrkdwn|markdown) \| .+ \| (error|warning) \| (yes|no) \|$"
)


def _rows() -> dict[str, tuple[str, str, bool]]:
    return {
        m.group(1): (m.group(2), m.group(3), m.group(4) == "yes")
        for m in map(ROW.match, VERIFICATION.splitlines())
        if m is not None
    }


def test_rule_table_matches_the_code() -> None:
    rows = _rows()
    assert set(rows) == set(RULES)
    for code, (_, severity, fixable) in rows.items():
        assert (severity, fixable) == (RULES[code].severity, RULES[code].fixable), code


def test_rule_table_says_which_dialects_each_formatting_rule_checks() -> None:
    """Formatting checks run per dialect; the table's Dialect column must agree."""
    samples = {
        "MARKDOWN_BOLD": "**x y**",
        "MRKDWN_LINK": "<https://e.io|e>",
        "UNESCAPED_CHARACTER": "a & b",
        "TASK_LIST": "- [ ] x",
        "TABLE": "| a | b |\n|---|---|\n| 1 | 2 |",
        "BROADCAST_MENTION": "@here",
    }
    rows = _rows()
    for code, text in samples.items():
        flagged_in = {
            dialect
            for dialect in CHECKS
            if code in verify(text, question="hi", dialect=dialect).repaired
        }
        expected = {"both": {"mrkdwn", "markdown"}}.get(rows[code][0], {rows[code][0]})
        assert flagged_in == expected, code


def test_readme_settings_table_has_every_setting() -> None:
    section = README.split("## Settings", 1)[1].split("\n## ", 1)[0]
    rows = set(re.findall(r"^\| `([A-Z0-9_]+)` \|", section, flags=re.M))
    assert rows == {name.upper() for name in Settings.model_fields}


def test_readme_shows_the_test_command() -> None:
    assert "make test" in README


def test_quickstart_has_exactly_two_commands() -> None:
    quickstart = README.split("## Quickstart", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in quickstart.splitlines() if line.strip()]
    assert commands == ["make run", "make test"]


def test_readme_explains_the_headline_metrics() -> None:
    section = README.split("## Reading the metrics", 1)[1].split("\n## ", 1)[0]
    assert "python -m app metrics" in section
    for rate in (
        "verified_message_rate",
        "pass_on_first_attempt_rate",
        "avg_attempts_to_verify",
        "judged_rate",
    ):
        assert f"**{rate}**" in section, rate


def test_docs_document_every_telemetry_name() -> None:
    """Each metadata key, observation, event and score Vouch records is in docs/telemetry.md."""
    names = set(METADATA_KEYS) | {
        "vouch.answer",
        "knowledge.search",
        "claude.draft",
        "claude.judge",
        "agent.verify",
        "slack.deliver",
        "verification_result",
        "verification_exhausted",
        "user_feedback",
    }
    outcome = Outcome(
        "x", False, "exhausted", (Attempt(1, False, ("UNCITED",), (), 1, 1, 1.0, Usage(), None),)
    )
    names |= {name for name, *_ in scores_of(outcome)}
    names |= {name for name, *_ in scores_of(Outcome("x", True, "verified", (), 0.9, "A"))}
    missing = sorted(name for name in names if f"`{name}`" not in TELEMETRY)
    assert missing == []


def _without_code(text: str) -> str:
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.sub(r"(`+).+?\1", "", text, flags=re.S)


def _anchors(page: Path) -> set[str]:
    """GitHub's heading ids: lower case, punctuation dropped, spaces become hyphens."""
    headings = re.findall(r"^#+ (.+)$", _without_code(page.read_text()), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def links(page: Path) -> list[tuple[Path, str]]:
    """Each relative link of a page: the file it names and its anchor ("" for none)."""
    found = []
    for target in re.findall(r"\]\(([^)\s]+)\)", _without_code(page.read_text())):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        found.append(((page.parent / path).resolve() if path else page, anchor))
    return found


def test_every_link_in_the_readme_and_docs_resolves() -> None:
    broken = [
        f"{page.relative_to(ROOT)} -> {target.name}#{anchor}"
        for page in PAGES
        for target, anchor in links(page)
        if not target.is_file() or (anchor and anchor not in _anchors(target))
    ]
    assert broken == []


def test_the_readme_links_every_page_of_docs() -> None:
    linked = {target for target, _ in links(ROOT / "README.md")}
    assert set(PAGES[1:]) <= linked and len(PAGES) > 5


def test_the_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A: the first\n\n`[x](#no)` [b](b.md#gone) [c](c.md)\n")
    (tmp_path / "b.md").write_text("# B\n\n[a](a.md#a-the-first) [x](https://e.io/#z)\n")
    assert _anchors(tmp_path / "a.md") == {"a-the-first"}
    assert links(tmp_path / "a.md") == [(tmp_path / "b.md", "gone"), (tmp_path / "c.md", "")]
    assert links(tmp_path / "b.md") == [(tmp_path / "a.md", "a-the-first")]
