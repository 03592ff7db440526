"""`python -m app metrics [--since 7d] [--top 10]`: the report of app/metrics/report.py,
printed, with an exit status for cron or CI alerts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TextIO

from app.metrics.report import BUSY_LIMIT, TARGET, Report, decimal, fetch, percent
from app.metrics.window import top_codes
from app.settings import Settings

__all__ = ["render", "run"]


def render(report: Report, top: int = 10) -> str:
    lines = [
        f"Vouch verification, {_stamp(report.start)} to {_stamp(report.end)} UTC "
        f"(environment {report.environment})",
        *([f"From the {report.source}."] if report.source else []),
        "",
    ]
    if report.messages == 0:
        lines += ["No answered messages in this window.", *_help_channels(report)]
        return "\n".join(lines)
    busy = report.busy
    lines += [
        f"  messages                     {report.messages:,}"
        + (f" ({busy:,} busy replies, model unavailable: not in the rates)" if busy else ""),
        f"  verified_message_rate        {percent(report.verified_rate)}   (target > 95%)",
        f"  pass_on_first_attempt_rate   {percent(report.first_rate)}",
        f"  avg_attempts_to_verify       {decimal(report.avg_attempts)}",
        f"  avg_quality_score            {decimal(report.avg_quality)}",
    ]
    if report.judged_rate is not None and report.judged_rate < 1:
        lines.append(
            f"  judged_rate                  {percent(report.judged_rate)}   "
            "(the rest went out on the rules alone: judge unreachable, JUDGE_FALLBACK=deliver)"
        )
    rated = ("verified", "stopped", "unavailable")  # stopped: verified, stopped by the user
    unverified = {k: v for k, v in report.outcomes.items() if k not in rated and v}
    if unverified:
        ranked = sorted(unverified.items(), key=lambda item: -item[1])
        lines.append("  not verified, by reason      " + ", ".join(f"{k} {v}" for k, v in ranked))
    lines += _help_channels(report)
    if report.below_target:
        lines += ["", f"! verified_message_rate is under the {TARGET:.0%} target."]
    if report.too_busy:
        lines += [
            "",
            f"! {busy / report.messages:.1%} of messages got the busy reply (over "
            f"{BUSY_LIMIT:.0%}): the model or the judge was unavailable or answered badly.",
        ]
    lines += ["", "Failure patterns: issue codes found, most frequent first"]
    if not report.patterns:
        lines.append("  none")
        return "\n".join(lines)
    header = f"  {'code':<24}{'found':>7}{'share':>8}{'repaired':>10}{'retried':>9}"
    lines.append(header + f"{'failed':>8}{'accepted':>10}")
    for pattern in report.patterns[:top]:
        fates = pattern.fates
        lines.append(
            f"  {pattern.code:<24}{pattern.count:>7,}{pattern.share:>8.1%}"
            f"{fates['repaired']:>10,}{fates['retried']:>9,}{fates['failed']:>8,}"
            f"{fates['accepted']:>10,}"
        )
    lines += [
        "",
        "  repaired: fixed by the deterministic repair; retried: a later attempt passed;",
        "  failed: the message got no verified answer; accepted: a warning in a verified answer.",
    ]
    return "\n".join(lines)


def run(settings: Settings, window: timedelta, out: TextIO, top: int = 10) -> int:
    """Print the report of the last `window`. Exit status: 0, 1 when the verified rate is
    under target or too many messages got the busy reply (for cron or CI alerts), 2 when
    no report was made."""
    top = top_codes(top)
    made = fetch(settings, window)
    print(render(made, top), file=out)
    return 1 if made.alert else 0


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def _help_channels(report: Report) -> list[str]:
    """What help channels took and left alone (by category), if anything."""
    if report.triage_unread is not None:
        return [f"  help channels                not read: {report.triage_unread}"]
    if not report.triage:
        return []
    taken = report.triage.get("question", 0)
    left = {k: v for k, v in report.triage.items() if k != "question" and v}
    why = ", ".join(f"{k} {v}" for k, v in sorted(left.items(), key=lambda kv: (-kv[1], kv[0])))
    return [
        f"  help channels                taken {taken:,}, left alone {sum(left.values()):,}"
        + (f" ({why})" if why else "")
    ]
