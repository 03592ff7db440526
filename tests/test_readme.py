"""The README and docs/ document every setting, rule code and telemetry name exactly as the
code defines them, their Python examples call the code as it is, and every link between
them resolves."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import typing
from collections import Counter
from pathlib import Path
from typing import Any

from app.agent.model import Usage
from app.agent.outcome import Attempt, Outcome
from app.channels import Budget, ChannelSettings
from app.settings import Settings
from app.telemetry import METADATA_KEYS, scores_of
from app.verify import verify
from app.verify.codes import RULES
from app.verify.formatting import CHECKS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
README_MAX_LINES = 150  # a newcomer reads it in five minutes; the rest is in docs/
SETTINGS = (ROOT / "docs" / "settings.md").read_text()
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


def test_settings_table_has_every_setting() -> None:
    section = SETTINGS.split("# Settings\n", 1)[1].split("\n## ", 1)[0]
    rows = set(re.findall(r"^\| `([A-Z0-9_]+)` \|", section, flags=re.M))
    assert rows == {name.upper() for name in Settings.model_fields}


def test_per_channel_settings_name_every_field() -> None:
    section = SETTINGS.split("\n## Per-channel settings\n", 1)[1].split("\n## ", 1)[0]
    fields = set(ChannelSettings.model_fields) | set(Budget.model_fields)
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    keys = set(re.findall(r"^\s*([a-z_]+):", example, flags=re.M))
    assert sorted(fields - keys) == []  # each a key of the example, not a word of prose


def test_readme_is_at_most_150_lines() -> None:
    assert len(README.splitlines()) <= README_MAX_LINES


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
    """GitHub's heading ids: lower case, punctuation dropped (a heading's inline code keeps
    its text), spaces become hyphens; a repeated heading gets -1, -2, …"""
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.M | re.S)
    seen: Counter[str] = Counter()
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.M):
        anchor = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(f"{anchor}-{seen[anchor]}" if seen[anchor] else anchor)
        seen[anchor] += 1
    return anchors


def links(page: Path) -> list[tuple[Path, str]]:
    """Each relative link of a page, inline (`[x](a.md#b "title")`) or a reference
    (`[x]: a.md#b`): the file it names and its anchor ("" for none)."""
    text = _without_code(page.read_text())
    inline = re.findall(r"\]\(<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\)", text)
    references = re.findall(r"^ {0,3}\[[^\]]+\]:\s+<?([^\s>]+)>?", text, flags=re.M)
    found = []
    for target in inline + references:
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


def test_the_link_check_reads_headings_and_links_as_github_does(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(
        "# The `python -m app metrics` command\n\n## Notes\n\n## Notes\n\n"
        "```sh\n# not a heading\n```\n\n"
        '[t](b.md#x "a title") [r][ref]\n\n[ref]: c.md#y\n'
    )
    assert _anchors(tmp_path / "a.md") == {
        "the-python--m-app-metrics-command",
        "notes",
        "notes-1",
    }
    assert links(tmp_path / "a.md") == [(tmp_path / "b.md", "x"), (tmp_path / "c.md", "y")]


def _python_blocks(page: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", page.read_text(), flags=re.M | re.S)


def _has(cls: type, name: str) -> bool:
    if dataclasses.is_dataclass(cls) and name in {f.name for f in dataclasses.fields(cls)}:
        return True
    return hasattr(cls, name) or name in getattr(cls, "model_fields", {})


def _resolve(expr: ast.expr, names: dict[str, Any]) -> Any:
    """What a name or dotted name of an example is, from its imports (None: a placeholder)."""
    if isinstance(expr, ast.Name):
        return names.get(expr.id)
    if isinstance(expr, ast.Attribute):
        owner = _resolve(expr.value, names)
        return getattr(owner, expr.attr, None) if owner is not None else None
    return None


def _results(tree: ast.Module, names: dict[str, Any]) -> dict[str, type]:
    """Each variable an example assigns a call's result to -> the class of that result."""
    results = {}
    for statement in tree.body:
        if not isinstance(statement, ast.Assign):
            continue
        value = statement.value
        value = value.value if isinstance(value, ast.Await) else value
        if isinstance(value, ast.Call) and callable(made := _resolve(value.func, names)):
            kind = made if inspect.isclass(made) else typing.get_type_hints(made).get("return")
            for target in statement.targets:
                if isinstance(target, ast.Name) and inspect.isclass(kind):
                    results[target.id] = kind
    return results


def _misuses(source: str) -> tuple[list[str], int]:
    """What a Python example gets wrong about the code it imports: calls whose arguments the
    callee does not take, attributes its results do not have. Names the example does not
    import (`settings`, `deliver`) are placeholders and not checked. Also: calls checked."""
    tree = ast.parse(source)
    names: dict[str, Any] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            exec(compile(ast.Module([node], []), "<example>", "exec"), names)
    results = _results(tree, names)
    problems: list[str] = []
    calls = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and callable(callee := _resolve(node.func, names)):
            if any(isinstance(a, ast.Starred) for a in node.args) or any(
                k.arg is None for k in node.keywords
            ):
                continue
            try:
                signature = inspect.signature(callee)
                signature.bind(*node.args, **{k.arg: k.value for k in node.keywords if k.arg})
            except TypeError as exc:
                problems.append(f"{ast.unparse(node.func)}(): {exc}")
            calls += 1
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            kind = results.get(node.value.id)
            if kind is not None and not _has(kind, node.attr):
                problems.append(
                    f"{node.value.id}.{node.attr}: no such attribute of {kind.__name__}"
                )
    return problems, calls


def test_python_examples_in_the_docs_call_the_code_as_it_is() -> None:
    checked: dict[str, int] = {}
    for page in PAGES:
        for block in _python_blocks(page):
            problems, calls = _misuses(block)
            assert problems == [], page.name
            checked[page.name] = checked.get(page.name, 0) + calls
    assert checked.get("agent.md", 0) >= 5 and checked.get("verification.md", 0) >= 3


def test_the_example_check_sees_a_wrong_argument_and_attribute() -> None:
    example = (
        "from app.agent.loop import answer\n"
        "outcome = await answer(conversation, deps, progress=None)\n"
        "outcome.text, outcome.progress\n"
    )
    problems, calls = _misuses(example)
    assert calls == 1
    assert problems == [
        "answer(): got an unexpected keyword argument 'progress'",
        "outcome.progress: no such attribute of Outcome",
    ]
