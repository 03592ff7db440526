"""The README and docs/ document every rule code and telemetry name exactly as the code
defines them."""

from __future__ import annotations

import re
from pathlib import Path

from app.agent.model import Usage
from app.agent.outcome import Attempt, Outcome
from app.telemetry import METADATA_KEYS, scores_of
from app.verify import verify
from app.verify.codes import RULES
from app.verify.formatting import CHECKS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
VERIFICATION = (ROOT / "docs" / "verification.md").read_text()
TELEMETRY = (ROOT / "docs" / "telemetry.md").read_text()
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


def test_readme_shows_the_test_command() -> None:
    assert "make test" in README


def test_quickstart_has_exactly_two_commands() -> None:
    quickstart = README.split("## Quickstart", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in quickstart.splitlines() if line.strip()]
    assert commands == ["make run", "make test"]


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
