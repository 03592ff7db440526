"""How well the rules alone catch what users notice, on the labelled corpus.

Run: .venv/bin/python -m bench.efficacy [--set NAME] [--show LABEL]
Verifies every draft of each set as the loop would (its dialect, question, thread, sources
and citations) and prints per label how many drafts were caught, repaired or wrongly
flagged. Every set was written blind to the rules (format: tests/fixtures/efficacy/FORMAT.md):
- `corpus` (tests/fixtures/efficacy/*.jsonl): the first batch, which the rules were tuned on;
- `heldout` (heldout/): a later batch, written after the rules were tuned on the first;
- `lookalikes` (lookalikes/): good answers built to resemble each defect (terse answers to
  long pastes, figures restated in other forms, answers that quote another language), with
  defects in the same forms, written after the rules of issue 25;
- `fresh` (fresh/): preambles and answers built like them in 18 languages, and good answers
  built to resemble every defect class (public defaults, questions about Vouch, links to
  the docs given, synonyms, quoted English, restated figures, terse answers) with defects
  in the same forms, written blind on 2026-11-27 after every rule above;
- `fresh2` (fresh2/): a second such batch, written blind after the fixes the first one's
  run led to, to measure them;
- `fresh3` (fresh3/): a third, written blind on 2026-11-27 after fresh2's fixes: terse
  answers, figures restated in every form in 17 languages, quoted English, translations,
  close language pairs, and preambles with their look-alikes in 21 languages;
- `fresh4` (fresh4/): answers in close languages (Swedish, Norwegian, Danish, Czech,
  Slovak, Russian, Ukrainian, Bulgarian, Serbian …) and their neighbours' names, requests
  and translations, with answers that slip into the neighbour, written blind after the
  rule that reads the neighbours' letters;
- `fresh5` (fresh5/): answers in 25 languages written blind after fresh4's fixes, to
  measure them: quoted foreign text, threads that change language, requests for a
  language, close languages, inflected stems, restated figures, pasted credentials;
- `fresh6` (fresh6/): a last blind set written after every change of 2026-11-27 (rates
  times counts, cents, compounds and words that only end like a unit, quotes of every
  kind, names that look like languages, requests, AWS credentials), to measure them;
- `fresh7` (fresh7/): preambles in every form (courtesy, promises, deferrals, restated
  questions, empathy, plans, titles, emoji, closing offers) and good answers built like
  them, in 18 languages, written blind on 2026-11-27 and run after the titles and emoji;
- `fresh10` (fresh10/): preambles made of layout (headings, titles, emoji, greetings) and
  good answers that look like them, in 18 languages, written blind in parallel with
  fresh7's fixes;
- `fresh11` (fresh11/): everyday answers citing docs with several figures each, in 18
  languages, with slips in the same forms, written blind after both reviews' mends;
- `fresh8` (fresh8/): figures restated in every form (durations in other units, rates per
  another unit, hedged approximations, totals, shares, dates counted from a date, times of
  day) in 18 languages, with wrong figures in the same forms, written blind on 2026-11-27;
- `fresh9` (fresh9/): everyday answers that quote or work out figures (a yearly amount, a
  share, what is left, a deadline from a date, another unit, 12- or 24-hour times) in 18
  languages, with slips in the same forms, written blind in parallel with fresh8's fixes;
- `fresh12` (fresh12/): everyday answers citing docs with several figures, most working
  one out, in 18 languages, with slips in the same forms, written blind under the drafting
  prompt that asks for the working ("2 × €180 = €360");
- `fresh13`, `fresh14` (fresh13/, fresh14/): answers working out dates, times, rates,
  discounts, VAT and surcharges, written blind under that prompt; fresh14 after every
  change of stop 35, to measure them;
- `fresh15` (fresh15/): the same brief, with the working written every way a model
  writes it (steps, parentheses, the result first, words, lists), written blind in stop
  36 to measure its changes;
- `fresh16` (fresh16/): preambles of every kind and good answers built like them, in 18
  languages, written blind in stop 37 beside NO_CONTENT's filler model, to measure it;
- `fresh17` (fresh17/): answers that state and work out figures (totals, shares, units,
  money notations, dates counted in working days, weeks and months, weekdays, time zones)
  in 18 languages, with one wrong figure in the same forms, written blind in stop 38 after
  its changes to the figures, to measure them;
- `retries` (retries/): the second attempts at the good answers the rules failed, written
  after the feedback by a helper playing the model, each judged correct by a reviewer.
`--set NAME` prints one set (all by default); `--show LABEL` lists that label's drafts that
went the wrong way, with their codes.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.agent.prompts import example, system_blocks
from app.verify import Citation, Dialect, Source, Verdict, verify

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "efficacy"
# Each set is a folder of the corpus, by its name; the first set is the corpus's own files.
NAMES = ("heldout", "lookalikes", "fresh", *(f"fresh{n}" for n in range(2, 18)), "retries")
SETS = {"corpus": CORPUS, **{name: CORPUS / name for name in NAMES}}
GOOD = ("good",)
REPAIRABLE = ("github_markdown",)
# Defects a deterministic rule is meant to catch, and the code it should catch them with.
RULED = {"no_content": "NO_CONTENT", "wrong_language": "WRONG_LANGUAGE", "secret": "SECRET"}
RULED_WITH_SOURCES = {"wrong_figure": "UNSOURCED_FIGURE"}
# Defects left to the judge (the rules may catch some: OFF_TOPIC on long off-topic answers).
JUDGED = ("off_topic", "neighbouring", "needless_refusal", "invented_link", "self_talk")

# Markdown that mrkdwn would show as raw symbols, looked for outside code after repair: an
# independent check of the repair, not the rules' own patterns.
_FENCE = re.compile(r"```.*?```", re.S)
_INLINE = re.compile(r"`[^`\n]*`")
# The writers spell the bot's mention as a person sees it; Slack sends it as <@U…>, and
# Vouch strips its own mention from the message before anything reads it (strip_mention).
_OWN_MENTION = re.compile(r"@Vouch\b\s*")
_RESIDUE = re.compile(
    r"\*\*\S|(?<!\w)__\S|^ {0,3}#{1,6} |\]\(|^\s*[-*+] \[[ xX]\]|^ {0,3}(?:-{3,}|\*{3,}|_{3,})\s*$"
    r"|~~\S|^\s*\|.*\|\s*$",
    re.M,
)


@dataclass(frozen=True)
class Item:
    id: str
    label: str
    dialect: str
    question: str
    thread: tuple[str, ...]
    said: tuple[str, ...]  # the thread's turns people wrote
    sources: tuple[Source, ...]
    citations: tuple[Citation, ...]
    draft: str
    corpus: str = ""  # the file it is in (its stem)

    def verdict(self) -> Verdict:
        return verify(
            self.draft,
            question=self.question,
            dialect=self.dialect,  # type: ignore[arg-type]
            sources=self.sources,
            citations=self.citations,
            thread=self.thread,
            said=self.said,
            instructions=self.instructions,
        )

    @property
    def instructions(self) -> str:
        """The system prompt the loop would give this draft's model (PROMPT_ECHO's text)."""
        dialect: Dialect = "markdown" if self.dialect == "markdown" else "mrkdwn"
        [block] = system_blocks(dialect, sources=bool(self.sources), speakers=True, tools=True)
        return str(block["text"]).replace(example(dialect), "")


@dataclass
class Row:
    """One label's figures."""

    total: int = 0
    caught: int = 0  # failed by the rules
    repaired: int = 0  # passed after repair, with nothing left to repair
    wrong: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # (id, codes)
    codes: Counter[str] = field(default_factory=Counter)


def load(folder: Path = CORPUS) -> list[Item]:
    items = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                items.append(_item(json.loads(line), path.stem))
    return items


def _item(raw: dict[str, Any], corpus: str = "") -> Item:
    sources = tuple(
        Source(s["id"], s["title"], s.get("url"), s.get("text", "")) for s in raw["sources"]
    )
    citations = tuple(
        Citation(c["source"], "", c.get("cited_text", ""), c.get("claim", ""))
        for c in raw["citations"]
    )
    return Item(
        raw["id"],
        raw["label"],
        raw["dialect"],
        _OWN_MENTION.sub("", raw["question"]).strip(),
        tuple(turn["text"] for turn in raw["thread"]),
        tuple(turn["text"] for turn in raw["thread"] if turn["role"] == "user"),
        sources,
        citations,
        raw["draft"],
        corpus,
    )


def residue(text: str) -> bool:
    """Whether Markdown that mrkdwn cannot show is left outside code."""
    return _RESIDUE.search(_INLINE.sub("", _FENCE.sub("", text))) is not None


def evaluate(items: Iterable[Item]) -> dict[str, Row]:
    rows: dict[str, Row] = defaultdict(Row)
    for item in items:
        verdict = item.verdict()
        row = rows[item.label]
        row.total += 1
        row.codes.update(verdict.codes)
        if not verdict.passed:
            row.caught += 1
            if item.label in GOOD or item.label in REPAIRABLE:
                row.wrong.append((item.id, verdict.codes))
        elif item.label in REPAIRABLE:
            if verdict.repaired and not residue(verdict.text):
                row.repaired += 1
            else:
                row.wrong.append((item.id, ("LEFT_AS_IS",)))
        elif item.label not in GOOD:
            row.wrong.append((item.id, ()))
        elif verdict.repaired:
            row.repaired += 1
    return dict(rows)


def lines(rows: dict[str, Row]) -> Iterator[str]:
    order = [*GOOD, *REPAIRABLE, *RULED, *RULED_WITH_SOURCES, *JUDGED]
    yield "| Label | Drafts | Caught | Repaired | Wrongly flagged | Missed | Codes |"
    yield "|---|---:|---:|---:|---:|---:|---|"
    for label in order + sorted(set(rows) - set(order)):
        row = rows.get(label)
        if row is None:
            continue
        good = label in GOOD or label in REPAIRABLE
        flagged = len(row.wrong) if good else 0
        missed = 0 if good else row.total - row.caught
        caught = "–" if good else str(row.caught)
        codes = ", ".join(f"{code} {n}" for code, n in row.codes.most_common(4))
        yield (
            f"| {label} | {row.total} | {caught} | {row.repaired} | {flagged} | {missed} "
            f"| {codes} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", help="list the drafts of this label that went wrong")
    parser.add_argument("--set", choices=SETS, help="print only this set")
    args = parser.parse_args()
    for name, folder in SETS.items():
        if args.set not in (None, name):
            continue
        items = load(folder)
        rows = evaluate(items)
        print(f"{name}: {len(items)} drafts in {folder.relative_to(CORPUS.parent.parent.parent)}\n")
        for line in lines(rows):
            print(line)
        if args.show and args.show in rows:
            for item_id, codes in rows[args.show].wrong:
                print(f"  {item_id}: {', '.join(codes) or 'passed'}")
        print()


if __name__ == "__main__":
    main()
