"""Score policy: which trace scores a message gets, from its Outcome, and the 👍/👎 score.
A row is (name, value, data type, id suffix); a score's id is the trace id, the name and the
suffix, so a repeat replaces it."""

from __future__ import annotations

from typing import Literal

from app.agent.outcome import Outcome

DataType = Literal["BOOLEAN", "NUMERIC", "CATEGORICAL"]
ScoreRow = tuple[str, float | str, DataType, str]
Fate = Literal["repaired", "retried", "failed", "accepted"]

# A message that failed without an Outcome (e.g. its thread could not be read).
FAILED: tuple[ScoreRow, ...] = (
    ("outcome", "error", "CATEGORICAL", ""),
    ("verified", 0.0, "BOOLEAN", ""),
    ("pass_on_first_attempt", 0.0, "BOOLEAN", ""),
)


def budget_rows(which: str) -> list[ScoreRow]:
    """A message past a budget (which one: user_messages, user_tokens, channel_messages,
    channel_tokens): told so, with no model call; not a verification result."""
    return [
        ("outcome", "over_budget", "CATEGORICAL", ""),
        ("budget", which, "CATEGORICAL", ""),
    ]


def score_id(trace_id: str, row: ScoreRow) -> str:
    name, _, _, suffix = row
    return f"{trace_id}-{name}{suffix}"


def feedback_row(hashed_user: str, positive: bool) -> ScoreRow:
    """A 👍/👎 click: `user_feedback`, one per user (by the hash of their id)."""
    return ("user_feedback", 1.0 if positive else 0.0, "BOOLEAN", f"-{hashed_user[:16]}")


REASONS = ("wrong", "outdated", "not_asked", "formatting", "other")  # 👎's fixed choices


def reason_row(hashed_user: str, reason: str) -> ScoreRow:
    """Why a 👎: `user_feedback_reason`, one of REASONS, one per user."""
    return ("user_feedback_reason", reason, "CATEGORICAL", f"-{hashed_user[:16]}")


def scores_of(outcome: Outcome, delivered: bool = True, stopped: bool = False) -> list[ScoreRow]:
    """The trace scores of a message: (name, value, data type, id suffix). A message the
    model could not be asked about ("unavailable": the user was told to try again) is an
    outage, not a verification result: it gets an `outcome` but no rates. A verified answer
    Slack refused to take is `undelivered`: the user did not get it. One the user stopped
    while it streamed is `stopped`, and verified: all it showed was verified, and the stop
    was the user's choice, not a failure."""
    verified = outcome.verified and delivered
    reason: str = outcome.reason
    if outcome.verified and not delivered:
        reason = "undelivered"
    elif outcome.verified and stopped:
        reason = "stopped"
    rows: list[ScoreRow] = [("outcome", reason, "CATEGORICAL", "")]
    if outcome.reason != "unavailable":
        first = verified and len(outcome.attempts) == 1
        rows.append(("verified", 1.0 if verified else 0.0, "BOOLEAN", ""))
        rows.append(("pass_on_first_attempt", 1.0 if first else 0.0, "BOOLEAN", ""))
    if verified:
        rows.append(("attempts_to_verify", float(len(outcome.attempts)), "NUMERIC", ""))
    if verified and outcome.score is not None:
        rows.append(("quality_score", round(outcome.score, 4), "NUMERIC", ""))
    judge = outcome.attempts[-1].judge if verified and outcome.attempts else None
    if judge is not None:  # 0: the judge was unreachable and the rules alone verified it
        rows.append(("judged", 1.0 if judge == "passed" else 0.0, "BOOLEAN", ""))
    for index, (attempt, code, fate) in enumerate(issues_found(outcome)):
        suffix = f"-{attempt}-{index}"
        rows.append(("issue_code", code, "CATEGORICAL", suffix))
        rows.append(("issue_outcome", f"{code}/{fate}", "CATEGORICAL", suffix))
    return rows


def issues_found(outcome: Outcome) -> list[tuple[int, str, Fate]]:
    """(attempt, code, fate) for every issue any attempt had. Fates: repaired (fixed by the
    deterministic repair), retried (a later attempt passed), failed (no verified answer),
    accepted (a warning left in the answer that passed)."""
    found: list[tuple[int, str, Fate]] = []
    for attempt in outcome.attempts:
        found.extend((attempt.number, code, "repaired") for code in attempt.repaired)
        fate: Fate = "accepted" if attempt.passed else "retried" if outcome.verified else "failed"
        found.extend((attempt.number, code, fate) for code in attempt.codes)
    return found
