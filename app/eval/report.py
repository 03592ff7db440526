"""The report of an evaluation run (app/eval/summary.py), and of two side by side: the
figures, the issue codes and their fates, and per item what happened; in lines of at most
WIDTH columns. Ids, codes, counts and timings only: never a question or an answer."""

from __future__ import annotations

from collections import Counter

from app.agent.model import Usage
from app.eval.layout import MARK, WIDTH, Part, parts, wrapped
from app.eval.plan import Setup
from app.eval.run import Result
from app.eval.summary import Summary

FATES = ("repaired", "retried", "failed", "accepted")


def render(summary: Summary, title: str) -> str:
    """One run's report, in lines of at most WIDTH columns."""
    lines = [
        *_title(title, summary.items, ""),
        *wrapped("  ", _described(summary.setup), "    "),
        "",
    ]
    for name, value in _figures(summary):
        lines += wrapped(f"  {name:<{NAME}} ", parts(value, " · "), " " * (NAME + 3))
    lines += ["", *_issue_table(summary), "", "Items", *_item_rows(summary)]
    return "\n".join(lines)


def compare(before: Summary, after: Summary, title: str) -> str:
    """Two runs side by side, the change for each figure, and the items that changed; in
    lines of at most WIDTH columns."""
    lines = [
        *_title(title, before.items, ", two runs"),
        *wrapped("  A: ", _described(before.setup), "     "),
        *wrapped("  B: ", _described(after.setup), "     "),
        "",
        *_side_by_side(before, after),
        "",
        *_issue_table(before, after),
        "",
        "Items that changed (A → B)",
    ]
    lines += _moved(before, after) or ["  none: every item ended the same way"]
    lines += ["", "Items (B)", *_item_rows(after)]
    return "\n".join(lines)


NAME = 20  # the figures' names


def _side_by_side(before: Summary, after: Summary) -> list[str]:
    """Each figure of A and of B in a column of its own, a value too wide for its column
    on more lines (broken at its " · "), and the change."""
    a, b = dict(_figures(before)), dict(_figures(after))
    unpriced = sorted({*before.unpriced, *after.unpriced})
    for figures, s in ((a, before), (b, after)):
        if s.unpriced:  # the models' names, too long for a column, follow the table
            figures["cost"] = "— (no list price)"
    changes = _changes(before, after)
    pieces = [text for change in changes.values() for _, text in parts(change, " · ")]
    shortest = max(map(len, pieces)) + MARK  # the change column: its widest piece, unbroken
    natural = max(len(value) for value in (*a.values(), *b.values())) + 2
    cell = min(natural, (WIDTH - NAME - 5 - shortest) // 2)
    room = WIDTH - NAME - 5 - 2 * cell
    lines = [f"  {'':<{NAME}} {'A':<{cell}} {'B':<{cell}} change"]
    for name in [*a, *(name for name in b if name not in a)]:
        columns = [
            wrapped("", parts(a.get(name, "—"), " · "), "", cell - 2),
            wrapped("", parts(b.get(name, "—"), " · "), "", cell - 2),
            wrapped("", parts(changes.get(name, ""), " · "), "", room),
        ]
        for n in range(max(map(len, columns))):
            left, right, change = (column[n] if n < len(column) else "" for column in columns)
            shown = name if n == 0 else ""
            lines.append(f"  {shown:<{NAME}} {left:<{cell}} {right:<{cell}} {change}".rstrip())
    if unpriced:
        lines += wrapped("  no list price for ", parts(", ".join(unpriced), ", "), "    ")
    return lines


def _title(title: str, items: int, runs: str) -> list[str]:
    return wrapped("Vouch eval: ", [("", title), (" · ", f"{items} items{runs}")], "  ")


def _described(setup: Setup) -> list[Part]:
    """What a run runs with ("configured: drafts …, judge …, at most 3 attempts"), in
    parts a line may break between."""
    judge = f"judge {setup.judge}" if setup.judge else "no judge"
    label = parts(f"{setup.label}:", " ")  # each change of a label on its own if need be
    return [
        *label,
        (" ", f"drafts {setup.model},"),
        (" ", f"{judge},"),
        (" ", f"at most {setup.attempts} attempts"),
    ]


def _figures(s: Summary) -> list[tuple[str, str]]:
    met, judged = s.met
    attempts = "—" if s.attempts_to_verify is None else f"{s.attempts_to_verify:.2f}"
    usage = s.draft_usage + s.judge_usage
    figures = [
        ("verified", f"{s.verified}/{s.items}  {_pct(s.verified_rate)}"),
        ("first pass", f"{s.first_pass}/{s.items}  {_pct(s.first_pass_rate)}"),
        ("attempts to verify", attempts),
        ("as expected", f"{met}/{judged}  {_pct(met / judged) if judged else '—'}"),
    ]
    figures += [(f"  {kind}", f"{m}/{j}") for kind, (m, j) in s.expected.items()]
    return [
        *figures,
        ("outcomes", " · ".join(f"{k} {v}" for k, v in s.outcomes.most_common())),
        ("latency", f"p50 {_secs(s.p50)} · p95 {_secs(s.p95)}"),
        (
            "tokens",
            f"in {usage.input:,} · out {usage.output:,} · cache read {usage.cache_read:,}"
            f" · cache write {usage.cache_write:,}",
        ),
        ("cost", _cost(s)),
    ]


def _cost(s: Summary) -> str:
    if s.cost is None:
        return f"— (no list price for {', '.join(s.unpriced)})"
    extra = ""
    if s.grade_usage != Usage():
        graded = "—" if s.grade_cost is None else f"${s.grade_cost:.4f}"
        extra = f" (+ {graded} grading)"
    return f"${s.cost:.4f}{extra}"


def _changes(a: Summary, b: Summary) -> dict[str, str]:
    changes = {
        "verified": _points(b.verified_rate - a.verified_rate),
        "first pass": _points(b.first_pass_rate - a.first_pass_rate),
    }
    if a.attempts_to_verify is not None and b.attempts_to_verify is not None:
        changes["attempts to verify"] = f"{b.attempts_to_verify - a.attempts_to_verify:+.2f}"
    (am, aj), (bm, bj) = a.met, b.met
    if aj and bj:
        changes["as expected"] = _points(bm / bj - am / aj)
    if a.p50 is not None and b.p50 is not None and a.p95 is not None and b.p95 is not None:
        changes["latency"] = f"p50 {b.p50 - a.p50:+.1f} s · p95 {b.p95 - a.p95:+.1f} s"
    if a.cost and b.cost is not None:
        changes["cost"] = f"{(b.cost - a.cost) / a.cost:+.0%}"
    return changes


def _issue_table(*summaries: Summary) -> list[str]:
    """Per code, how often it was found and its fates; compared, a row for A and one for
    B under each code."""
    codes = sorted(
        {code for s in summaries for code in s.issues},
        key=lambda code: -sum(sum(s.issues.get(code, Counter()).values()) for s in summaries),
    )
    if not codes:
        return ["Issue codes: none found"]
    runs = ("A ", "B ") if len(summaries) > 1 else ("",)
    head = f"{'found':>5} " + " ".join(f"{fate:>8}" for fate in FATES)
    lines = [f"{'Issue codes':<32} {' ' * len(runs[0])}{head}"]
    for code in codes:
        for n, (run, s) in enumerate(zip(runs, summaries, strict=True)):
            fates = s.issues.get(code, Counter())
            counts = f"{sum(fates.values()):>5} " + " ".join(f"{fates[f]:>8}" for f in FATES)
            lines.append(f"  {code if n == 0 else '':<30} {run}{counts}")
    return lines


ID = 34  # columns for an item's id: a longer one has a line of its own


def _item_rows(s: Summary) -> list[str]:
    """Per item: whether it behaved as expected, its outcome, attempts and time, then each
    attempt's codes; what does not fit goes on under the item's mark."""
    width = min(max((len(r.item) for r in s.results), default=4), ID)
    rows = []
    for r in s.results:
        item = r.item
        if len(item) > width:
            rows.append(f"  {item}")
            item = ""
        rows += wrapped(f"  {item:<{width}}  {_item(r)}", _trail(r), " " * (width + 4))
    return rows


def _item(r: Result) -> str:
    mark = {True: "✓", False: "✗", None: "·"}[r.met]
    expect = r.expect or "—"
    if r.outcome is None:
        return f"{mark} expect {expect:<6}  error ({r.error})"
    return (
        f"{mark} expect {expect:<6}  {r.reason:<11} {len(r.outcome.attempts)} att."
        f"  {r.seconds:5.1f} s  "
    )


def _trail(r: Result) -> list[Part]:
    """Each attempt's codes (`pass` for the one that passed) and the sources cited."""
    if r.outcome is None:
        return []
    trail: list[Part] = []
    for attempt in r.outcome.attempts:
        said = "pass" if attempt.passed else (attempt.error or ",".join(attempt.codes) or "fail")
        (_, first), *rest = parts(said, ",")  # a line may break between codes
        trail += [(" → " if trail else "", first), *rest]
    if r.outcome.cited:
        trail.append((" · ", f"cites {len(r.outcome.cited)}"))
    return trail


def _moved(a: Summary, b: Summary) -> list[str]:
    before = {r.item: r for r in a.results}
    width = max((len(r.item) for r in b.results), default=4)
    moved = []
    for after in b.results:
        was = before.get(after.item)
        if was is None or (was.reason, was.met) == (after.reason, after.met):
            continue
        moved.append(f"  {after.item:<{width}}  {_brief(was)}  →  {_brief(after)}")
    return moved


def _brief(r: Result) -> str:
    mark = {True: "✓", False: "✗", None: "·"}[r.met]
    return f"{r.reason} {mark}"


def _pct(rate: float) -> str:
    return f"{rate:.1%}"


def _points(delta: float) -> str:
    return f"{delta * 100:+.1f} pts"


def _secs(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f} s"
