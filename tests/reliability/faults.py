"""The fault-injection table: where a fault is injected, which fault, how often, and what
the user must see. tests/reliability/test_faults.py runs every row; docs/reliability.md
is this table in words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.verify import Dialect
from tests.fakes.anthropic import Cut, Drop, Fail, Hang, Item, StreamError
from tests.fakes.langfuse import FakeLangfuse
from tests.fakes.slack import STOPPED_BY_USER, Fault

TIMEOUT = 1  # SLACK_TIMEOUT, ANTHROPIC_TIMEOUT and LANGFUSE_TIMEOUT in these tests
Kind = Literal["429", "500", "timeout", "reset", "stream error", "stream cut", "stopped by user"]
Times = Literal["once", "always"]
# answer: the verified answer, whole. failure: the failure message ("couldn't verify").
# busy: the model-unavailable message ("swamped… ask again in a minute"). nothing: no
# reply (Slack refused every post; the reason is logged). part: only a verified beginning
# of the answer (Slack took the first piece, then failed; logged). stopped: the user pressed
# stop on the streaming answer: what had streamed stays, nothing more is posted (no
# completion, no failure message), and it is logged and scored as `stopped`, not an error.
Outcome = Literal["answer", "failure", "busy", "nothing", "part", "stopped"]
ALWAYS = 10  # more faults than any client retries
RETRY_AFTER = 1  # seconds, in a single 429's Retry-After


@dataclass(frozen=True)
class Case:
    where: str  # "slack <method>", "anthropic attempt <n>", "langfuse export"
    kind: Kind
    times: Times
    expect: Outcome
    steps: bool = False  # SHOW_STEPS: the stream opens with the loop's steps (markdown)

    @property
    def dialect(self) -> Dialect:
        return "markdown" if self.where.removeprefix("slack ") in STREAMING else "mrkdwn"

    @property
    def id(self) -> str:
        steps = " with steps" if self.steps else ""
        return f"{self.where} {self.kind} {self.times}{steps}".replace(" ", "-")

    @property
    def method(self) -> str:
        return self.where.removeprefix("slack ")

    @property
    def attempt(self) -> int:
        return int(self.where.rsplit(" ", 1)[1])


def slack_fault(kind: Kind, times: Times) -> Fault:
    """Slack's answer to a failed call. A single 429 says Retry-After: 1 (the client waits
    1–2 s, and the test checks it did); repeated ones say 0 (the client waits 0–1 s)."""
    return {
        "429": Fault(429, "ratelimited", retry_after=RETRY_AFTER if times == "once" else 0),
        "500": Fault(500, "internal_error"),
        "timeout": Fault(delay=TIMEOUT + 0.5),
        "reset": Fault(drop=True),
        "stopped by user": Fault(error=STOPPED_BY_USER),  # and every later append or stop
    }[kind]


def model_fault(kind: Kind) -> Item:
    faults: dict[Kind, Item] = {
        "429": Fail(429, "rate_limit_error"),
        "500": Fail(500),
        "timeout": Hang(TIMEOUT + 1),
        "reset": Drop(),
        "stream error": StreamError(),
        "stream cut": Cut(),
    }
    return faults[kind]


def break_langfuse(langfuse: FakeLangfuse, kind: Kind) -> None:
    if kind == "timeout":
        langfuse.delay = TIMEOUT + 2
    elif kind == "reset":
        langfuse.drop = True
    else:
        langfuse.status = int(kind)


SLACK_METHODS = (
    "auth.test",
    "conversations.replies",
    "assistant.threads.setStatus",
    "chat.postMessage",
    "chat.update",
    "chat.startStream",
    "chat.appendStream",
    "chat.stopStream",
)
SLACK_KINDS: tuple[Kind, ...] = ("429", "500", "timeout", "reset")
STREAM_ENDS = ("chat.appendStream", "chat.stopStream")  # the calls a stop can answer
STREAMING = ("chat.startStream", *STREAM_ENDS)
MODEL_KINDS: tuple[Kind, ...] = ("429", "500", "timeout", "reset", "stream error", "stream cut")


def slack_outcome(method: str, kind: Kind, times: Times) -> Outcome:
    """What the user sees when `method` fails: the client retries 429 (after Retry-After),
    5xx and resets; a timed-out call is not retried (Slack may have done it)."""
    if times == "once" and kind != "timeout":
        return "answer"  # the client's retry succeeds
    if method == "assistant.threads.setStatus":
        return "answer"  # the status is a courtesy: never stops an answer
    if method == "conversations.replies":
        return "answer"  # the history is what the events gave (none here), not a failure
    if method in STREAM_ENDS:
        return "answer"  # the streamed message is completed with chat.update
    outcomes: dict[str, Outcome] = {
        "auth.test": "nothing",
        "chat.postMessage": "nothing",
        "chat.update": "part",
        "chat.startStream": "nothing",
    }
    return outcomes[method]


def steps_outcome(method: str, times: Times) -> Outcome:
    """With the steps shown, the stream opens before the draft: a start that fails once
    leaves the status line, and the answer starts its own stream; the steps' appends are
    a courtesy, and the answer completes a broken stream with chat.update."""
    if method == "chat.startStream" and times == "always":
        return "nothing"
    return "answer"


def model_outcome(times: Times) -> Outcome:
    """Whatever the fault: a failed call is retried by the SDK (429, 5xx, timeouts, resets)
    or, inside a stream, once by Vouch; a model that keeps failing is reported as busy."""
    return "answer" if times == "once" else "busy"


CASES = [
    *(
        Case(f"slack {method}", kind, times, slack_outcome(method, kind, times))
        for method in SLACK_METHODS
        for kind in SLACK_KINDS
        for times in ("once", "always")
    ),
    *(
        Case(f"anthropic attempt {attempt}", kind, times, model_outcome(times))
        for attempt in (1, 2)
        for kind in MODEL_KINDS
        for times in ("once", "always")
    ),
    *(Case("langfuse export", kind, "always", "answer") for kind in SLACK_KINDS),
    # the user presses stop while the answer streams (Slack has no "again": once is all)
    *(Case(f"slack {m}", "stopped by user", "once", "stopped") for m in STREAM_ENDS),
    *(
        Case(f"slack {method}", kind, times, steps_outcome(method, times), steps=True)
        for method in STREAMING
        for kind in SLACK_KINDS
        for times in ("once", "always")
    ),
    # pressed while the steps show (appendStream) or as the answer ends (stopStream)
    *(Case(f"slack {m}", "stopped by user", "once", "stopped", steps=True) for m in STREAM_ENDS),
]
