"""Telemetry end to end: the real Bolt app, AsyncAnthropic and Langfuse client against the
loopback fakes; what reaches Langfuse is decoded from the OTLP protobuf and score JSON it got."""

from __future__ import annotations

import asyncio
import hashlib
import json
import signal
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from langfuse.types import MaskOtelSpansParams, OtelSpanData, OtelSpanIdentifier, OtelSpanPatch
from slack_bolt.request.async_request import AsyncBoltRequest

from app.agent.model import CallFailed, ModelUnavailable, Usage
from app.agent.outcome import Attempt, Outcome
from app.server import serve
from app.slack.deliver import FEEDBACK_ACTION
from app.telemetry import Telemetry, allow_listed, allowed, label, scores_of
from tests.conftest import Bot
from tests.fakes.anthropic import FakeAnthropic, Reply, judgement
from tests.fakes.langfuse import ExportedSpan, FakeLangfuse
from tests.fakes.server import free_port, wait_healthy
from tests.fakes.slack import STOPPED_BY_USER, TEAM, FakeSlack, Fault
from tests.isolation import process_env
from tests.slack.bolt import answered, dispatch, make_app, mention, post_event, replied, until

GOOD = "Merge to `main`: the pipeline deploys billing to staging in about 8 minutes."
UNCLOSED = "Deploy billing:\n```\nmake deploy"
ATTEMPT_KEYS = {
    "attempt",
    "passed",
    "issue_codes",
    "repaired_codes",
    "response_length",
    "user_message_length",
    "duration_ms",
    "trace_id",
}


def only(spans: list[ExportedSpan]) -> ExportedSpan:
    assert len(spans) == 1, [span.name for span in spans]
    return spans[0]


def score_values(fake: FakeLangfuse) -> dict[str, Any]:
    """name -> value of each trace-level score that appears once."""
    names = [score["name"] for score in fake.scores]
    return {s["name"]: s["value"] for s in fake.scores if names.count(s["name"]) == 1}


async def test_pass_first_time(
    telemetry_bot: Bot,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
) -> None:
    fake_anthropic.push(Reply(GOOD))
    app, telemetry = telemetry_bot()
    trace_id = telemetry.trace_id(await answered(app, fake_slack, "300.000001"))
    assert await telemetry.flush()

    root = only(fake_langfuse.named("vouch.answer"))
    assert {span.trace_id for span in fake_langfuse.spans} == {trace_id}
    assert root.attributes["langfuse.trace.name"] == "vouch.answer"
    assert root.attributes["langfuse.trace.tags"] == [
        "format:mrkdwn",
        "mode:http",
        "env:production",
    ]
    assert root.attributes["user.id"] == telemetry.hashed(f"{TEAM}:U0001")
    assert root.attributes["session.id"] == telemetry.hashed(f"{TEAM}:C0001:300.000001")
    assert "U0001" not in root.attributes["user.id"]
    assert root.metadata == {
        "kind": "mention",
        "history_messages": 0,
        "files": 0,
        "files_unread": 0,
        "reason": "verified",
        "attempts": 1,
        "verified": True,
    }

    draft = only(fake_langfuse.named("claude.draft"))
    assert draft.type == "generation" and draft.parent_span_id == root.span_id
    assert draft.attributes["langfuse.observation.model.name"] == "claude-sonnet-5-5"
    assert set(draft.usage) == {
        "input",
        "output",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    }
    assert draft.usage["output"] > 0
    assert draft.metadata == {"attempt": 1, "stop_reason": "end_turn"}

    check = only(fake_langfuse.named("agent.verify"))
    assert check.type == "guardrail" and check.parent_span_id == root.span_id
    assert set(check.metadata) == ATTEMPT_KEYS | {"judge_score", "judge"}  # judged by default
    assert check.metadata["passed"] is True and check.metadata["trace_id"] == trace_id
    assert check.metadata["response_length"] == len(GOOD)
    assert check.metadata["user_message_length"] == len("how do I deploy?")
    assert check.start_ns >= draft.end_ns  # timed live, one after the other
    result = only(fake_langfuse.named("verification_result"))
    assert result.type == "event" and result.metadata == check.metadata
    assert not fake_langfuse.named("verification_exhausted")
    assert only(fake_langfuse.named("slack.deliver")).metadata == {"format": "mrkdwn"}

    scores = score_values(fake_langfuse)
    assert {s["traceId"] for s in fake_langfuse.scores} == {trace_id}
    assert scores["verified"] == 1 and scores["pass_on_first_attempt"] == 1
    assert scores["attempts_to_verify"] == 1 and 0.9 <= scores["quality_score"] <= 1
    assert scores["outcome"] == "verified"
    assert {s["dataType"] for s in fake_langfuse.scores if s["name"] == "verified"} == {"BOOLEAN"}


async def test_pass_after_retry(
    telemetry_bot: Bot,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
) -> None:
    fake_anthropic.push(Reply(UNCLOSED), Reply(GOOD))
    app, telemetry = telemetry_bot()
    await answered(app, fake_slack, "301.000001")
    assert await telemetry.flush()

    first, second = sorted(fake_langfuse.named("agent.verify"), key=lambda s: s.start_ns)
    assert first.metadata["passed"] is False
    assert first.metadata["issue_codes"] == ["UNCLOSED_CODE_FENCE"]
    assert first.attributes["langfuse.observation.level"] == "WARNING"
    assert second.metadata["passed"] is True and second.metadata["attempt"] == 2
    assert len(fake_langfuse.named("claude.draft")) == 2
    assert len(fake_langfuse.named("verification_result")) == 2
    scores = score_values(fake_langfuse)
    assert scores["verified"] == 1 and scores["pass_on_first_attempt"] == 0
    assert scores["attempts_to_verify"] == 2
    assert scores["issue_code"] == "UNCLOSED_CODE_FENCE"
    assert scores["issue_outcome"] == "UNCLOSED_CODE_FENCE/retried"


async def test_exhausted(
    telemetry_bot: Bot,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
) -> None:
    fake_anthropic.default = Reply(UNCLOSED)
    app, telemetry = telemetry_bot()
    await answered(app, fake_slack, "302.000001")
    assert await telemetry.flush()

    exhausted = only(fake_langfuse.named("verification_exhausted"))
    assert exhausted.metadata == {"max_attempts": 3, "final_issue_codes": ["UNCLOSED_CODE_FENCE"]}
    assert len(fake_langfuse.named("agent.verify")) == 3
    scores = score_values(fake_langfuse)
    assert scores["verified"] == 0 and scores["pass_on_first_attempt"] == 0
    assert scores["outcome"] == "exhausted"
    assert "attempts_to_verify" not in scores and "quality_score" not in scores
    outcomes = [s["value"] for s in fake_langfuse.scores_named("issue_outcome")]
    assert outcomes == ["UNCLOSED_CODE_FENCE/failed"] * 3
    assert len({s["id"] for s in fake_langfuse.scores}) == len(fake_langfuse.scores)


async def test_judge_on(
    telemetry_bot: Bot,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
) -> None:
    fake_anthropic.push(Reply(GOOD))
    fake_anthropic.judge(judgement(True, 90))
    app, telemetry = telemetry_bot()
    await answered(app, fake_slack, "303.000001")
    assert await telemetry.flush()

    check = only(fake_langfuse.named("agent.verify"))
    judge = only(fake_langfuse.named("claude.judge"))
    assert judge.type == "generation" and judge.parent_span_id == check.span_id
    assert judge.attributes["langfuse.observation.model.name"] == "claude-haiku-5-5"
    assert judge.usage["output"] > 0
    assert set(check.metadata) == ATTEMPT_KEYS | {"judge_score", "judge"}
    assert check.metadata["judge"] == "passed"
    assert check.metadata["judge_score"] == 90
    assert 0.8 <= score_values(fake_langfuse)["quality_score"] <= 0.9


async def test_token_usage_is_counted_once(
    telemetry_bot: Bot,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
) -> None:
    """The Anthropic SDK's own spans (metadata-only, pinned) carry usage too: they must not
    reach Langfuse beside our generations."""
    fake_anthropic.push(Reply(UNCLOSED), Reply(GOOD))
    app, telemetry = telemetry_bot()
    await answered(app, fake_slack, "304.000001")
    assert await telemetry.flush()
    assert {span.scope for span in fake_langfuse.spans} == {"langfuse-sdk"}
    with_usage = [span for span in fake_langfuse.spans if span.usage]
    assert sorted(span.name for span in with_usage) == [
        "claude.draft",
        "claude.draft",
        "claude.judge",
    ]
    assert not any(key.startswith("gen_ai.") for s in fake_langfuse.spans for key in s.attributes)


def clicked(
    action: dict[str, Any],
    block_id: str,
    answer_ts: str,
    *,
    thread_ts: str | None = None,
    user: str = "U0001",
) -> AsyncBoltRequest:
    """A button click on a message of Vouch's in C0001, as Slack sends the interaction."""
    body: dict[str, Any] = {
        "type": "block_actions",
        "team": {"id": TEAM},
        "user": {"id": user},
        "api_app_id": "A0001",
        "channel": {"id": "C0001"},
        "container": {"type": "message", "message_ts": answer_ts, "channel_id": "C0001"},
        "actions": [{**action, "block_id": block_id}],
    }
    if thread_ts is not None:
        body["message"] = {"ts": answer_ts, "thread_ts": thread_ts}
    return AsyncBoltRequest(body=body, mode="socket_mode")


def feedback_buttons(slack: FakeSlack, root: str) -> tuple[str, dict[str, Any]]:
    """The ts of the one answer posted in `root`'s thread, and its buttons block."""
    [posted] = slack.of("chat.postMessage")
    answer_ts = slack.threads[("C0001", root)][-1]["ts"]
    return answer_ts, next(b for b in posted["blocks"] if b["type"] == "actions")


async def test_feedback_click_scores_the_answers_trace(
    telemetry_bot: Bot,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
) -> None:
    fake_anthropic.push(Reply(GOOD))
    app, telemetry = telemetry_bot()
    trace_id = telemetry.trace_id(await answered(app, fake_slack, "305.000001"))
    answer_ts, buttons = feedback_buttons(fake_slack, "305.000001")
    for value in ("down", "up"):  # the user changes their mind: one score, the last
        action = next(e for e in buttons["elements"] if e["value"] == value)
        response = await app.bolt.async_dispatch(clicked(action, buttons["block_id"], answer_ts))
        assert response.status == 200
    assert await telemetry.flush()
    feedback = fake_langfuse.scores_named("user_feedback")
    assert [(s["traceId"], s["value"], s["dataType"]) for s in feedback] == [
        (trace_id, 0, "BOOLEAN"),
        (trace_id, 1, "BOOLEAN"),
    ]
    assert feedback[0]["id"] == feedback[1]["id"]  # Langfuse keeps the later one
    # … as long as both carry the same day: each is stamped with the answer's time, so a
    # click days later replaces the first instead of being stored beside it
    answered_at = datetime.fromtimestamp(float(answer_ts), UTC)
    assert {parse_time(s["timestamp"]) for s in feedback} == {answered_at}
    verified = fake_langfuse.scores_named("verified")  # the trace's: the message's time
    assert [parse_time(s["timestamp"]) for s in verified] == [
        datetime.fromtimestamp(305.000001, UTC)
    ]
    assert action["action_id"].startswith(FEEDBACK_ACTION)


def delivery(slack: FakeSlack) -> list[tuple[str, object]]:
    """The Slack calls a message made, each status line once: the line sends only the
    newest of the statuses that waited, so how many it sends depends on the scheduler."""
    calls = [(c.method, c.params.get("text")) for c in slack.calls]
    return [c for i, c in enumerate(calls) if i == 0 or c != calls[i - 1]]


@pytest.mark.parametrize("failure", ["status", "hang"])
async def test_langfuse_failing_neither_delays_nor_changes_delivery(
    telemetry_bot: Bot,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
    failure: str,
) -> None:
    fake_anthropic.default = Reply(GOOD)
    app, telemetry = telemetry_bot(langfuse_timeout=1, langfuse_flush_timeout=1.0)
    plain_app, _ = telemetry_bot(langfuse_public_key=None)
    await answered(plain_app, fake_slack, "306.000001")
    baseline = delivery(fake_slack)
    fake_slack.reset()
    if failure == "status":
        fake_langfuse.status = 500
    else:
        fake_langfuse.delay = 30.0
    started = time.monotonic()
    await dispatch(app, mention("how do I deploy?", "306.000001", channel="C0001"))
    await replied(fake_slack)
    assert delivery(fake_slack) == baseline
    replied_at = fake_slack.calls[-1].at
    assert replied_at - started < 2.0  # the model answers at once; Langfuse would take 30 s
    for i in range(3):  # and it keeps answering
        await dispatch(app, mention("and then?", f"307.00000{i}"))
        await replied(fake_slack, count=2 + i)
    closing = time.monotonic()
    await telemetry.close()  # bounded by LANGFUSE_FLUSH_TIMEOUT
    assert time.monotonic() - closing < 3.0


async def test_without_keys_telemetry_is_off_and_says_so_once(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level("INFO", logger="vouch.telemetry")
    settings = make_settings(langfuse_base_url=fake_langfuse.url)
    telemetry = Telemetry.from_settings(settings)
    assert not telemetry.enabled
    assert [r.getMessage() for r in caplog.records if r.name == "vouch.telemetry"] == [
        "telemetry off: set LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY to enable"
    ]
    fake_anthropic.push(Reply(GOOD))
    app = make_app(settings, telemetry=telemetry)
    trace_id = telemetry.trace_id(await answered(app, fake_slack, "308.000001"))
    await telemetry.flush()  # (nothing to send: off, no client that could send later)
    # (an earlier test's client may still be retrying into the shared fake)
    assert not any(trace_id.encode() in body for body in fake_langfuse.received)


# Pure logic: the allowlist, the scores of an outcome, labels, hashes.

M = "langfuse.observation.metadata."


@pytest.mark.parametrize(
    ("key", "value", "kept"),
    [
        # what Vouch records: kept
        (f"{M}issue_codes", '["UNCLOSED_CODE_FENCE","JUDGE_HALLUCINATION"]', True),
        (f"{M}duration_ms", "812.25", True),
        (f"{M}judge_score", "90", True),
        (f"{M}passed", "false", True),
        (f"{M}trace_id", '"0123456789abcdef0123456789abcdef"', True),
        (f"{M}stop_reason", '"max_tokens"', True),
        (f"{M}error", '"judge_timeout"', True),
        ("langfuse.observation.model.name", "claude-sonnet-5-5", True),
        ("langfuse.observation.usage_details", '{"input": 12, "output": 40}', True),
        ("langfuse.observation.status_message", "status_529", True),
        ("langfuse.trace.tags", ["format:mrkdwn", "mode:http", "env:staging"], True),
        ("user.id", "0123456789abcdef0123456789abcdef", True),
        ("langfuse.internal.as_root", True, True),
        # content-shaped or unknown: dropped
        ("langfuse.observation.input", '"how do I deploy?"', False),
        ("langfuse.observation.output", '"Merge to main"', False),
        ("langfuse.trace.metadata.note", '"x"', False),
        ("gen_ai.prompt.0.content", "hello", False),
        ("gen_ai.usage.output_tokens", 40, False),
        (f"{M}question", '"deploy"', False),  # not a listed key
        (f"{M}stop_reason", '"the model said: deploy now"', False),  # a sentence
        (f"{M}issue_codes", '["UNCITED", "see the docs please"]', False),
        (f"{M}error", "not json", False),
        (f"{M}error", '{"nested": "dict"}', False),
        ("langfuse.observation.usage_details", '{"input": "12"}', False),
        ("langfuse.observation.status_message", "Traceback (most recent call last)", False),
        ("langfuse.trace.tags", ["format:mrkdwn", "a whole sentence"], False),
    ],
)
def test_allowlist(key: str, value: object, kept: bool) -> None:
    assert allowed(key, value) is kept


def test_allowlist_patches_only_spans_with_foreign_attributes() -> None:
    clean = OtelSpanIdentifier("a" * 32, "b" * 16)
    dirty = OtelSpanIdentifier("a" * 32, "c" * 16)

    def span(identifier: OtelSpanIdentifier, attributes: dict[str, Any]) -> OtelSpanData:
        return OtelSpanData(
            identifier.trace_id, identifier.span_id, None, "s", "langfuse-sdk", None, attributes, {}
        )

    params = MaskOtelSpansParams(
        spans={
            clean: span(clean, {f"{M}attempt": "1"}),
            dirty: span(dirty, {f"{M}attempt": "1", "langfuse.observation.input": '"hi"'}),
        }
    )
    result = allow_listed(params=params)
    assert dict(result.span_patches) == {
        dirty: OtelSpanPatch(delete_attributes=("langfuse.observation.input",))
    }


def attempt(
    number: int, passed: bool, codes: tuple[str, ...] = (), repaired: tuple[str, ...] = ()
) -> Attempt:
    return Attempt(number, passed, codes, repaired, 100, 20, 5.0, Usage(), "end_turn")


@pytest.mark.parametrize(
    ("outcome", "expected"),
    [
        (
            Outcome(
                "ok", True, "verified", (attempt(1, True, repaired=("MARKDOWN_BOLD",)),), 0.97, "A"
            ),
            {
                "verified": 1.0,
                "pass_on_first_attempt": 1.0,
                "outcome": "verified",
                "attempts_to_verify": 1.0,
                "quality_score": 0.97,
                "issue_code": ["MARKDOWN_BOLD"],
                "issue_outcome": ["MARKDOWN_BOLD/repaired"],
            },
        ),
        (
            Outcome(
                "ok",
                True,
                "verified",
                (attempt(1, False, ("UNCITED",)), attempt(2, True, ("HORIZONTAL_RULE",))),
                0.9,
                "A",
            ),
            {
                "verified": 1.0,
                "pass_on_first_attempt": 0.0,
                "outcome": "verified",
                "attempts_to_verify": 2.0,
                "quality_score": 0.9,
                "issue_code": ["UNCITED", "HORIZONTAL_RULE"],
                "issue_outcome": ["UNCITED/retried", "HORIZONTAL_RULE/accepted"],
            },
        ),
        (
            Outcome("sorry", False, "exhausted", (attempt(1, False, ("OFF_TOPIC",)),)),
            {
                "verified": 0.0,
                "pass_on_first_attempt": 0.0,
                "outcome": "exhausted",
                "issue_code": ["OFF_TOPIC"],
                "issue_outcome": ["OFF_TOPIC/failed"],
            },
        ),
        (
            Outcome("ok", True, "verified", (attempt(1, True),), 0.97, "A"),
            {"verified": 0.0, "pass_on_first_attempt": 0.0, "outcome": "undelivered"},
        ),
        (
            Outcome("ok", True, "verified", (attempt(1, True),)),  # the user pressed stop
            {
                "verified": 1.0,
                "pass_on_first_attempt": 1.0,
                "attempts_to_verify": 1.0,
                "outcome": "stopped",
            },
        ),
        (
            Outcome("busy", False, "unavailable", ()),
            {"outcome": "unavailable"},  # an outage: not in the verification rates
        ),
        (
            Outcome("sorry", False, "refused", ()),
            {"verified": 0.0, "pass_on_first_attempt": 0.0, "outcome": "refused"},
        ),
    ],
)
def test_scores_of(outcome: Outcome, expected: dict[str, Any]) -> None:
    said = expected.get("outcome")
    rows = scores_of(outcome, delivered=said != "undelivered", stopped=said == "stopped")
    got: dict[str, Any] = {}
    for name, value, _, _ in rows:
        if name.startswith("issue_"):
            got.setdefault(name, []).append(value)
        else:
            got[name] = value
    assert got == expected
    assert len({(name, suffix) for name, _, _, suffix in rows}) == len(rows)  # ids unique


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (ModelUnavailable("status_529"), "status_529"),
        (ValueError("how do I deploy billing?"), "ValueError"),
        (CallFailed("a reason with spaces"), "CallFailed"),
        (asyncio.CancelledError(), "CancelledError"),
    ],
)
def test_labels_never_carry_messages(exc: BaseException, expected: str) -> None:
    assert label(exc) == expected


def test_ids_are_hashed_with_the_salt() -> None:
    one, other = Telemetry(None, salt=b"one"), Telemetry(None, salt=b"two")
    assert one.hashed("T1:U1") == one.hashed("T1:U1") != other.hashed("T1:U1")
    assert len(one.hashed("T1:U1")) == 32 and "U1" not in one.hashed("T1:U1")


def test_trace_id_is_langfuses_seeded_id_of_the_salted_message_key() -> None:
    key = "T1:C1:1700000000.000100"
    one, other = Telemetry(None, salt=b"one"), Telemetry(None, salt=b"two")
    assert one.trace_id(key) == hashlib.sha256(one.hashed(key).encode()).hexdigest()[:32]
    assert one.trace_id(key) == one.trace_id(key) != other.trace_id(key)
    assert one.trace_id(key) != hashlib.sha256(key.encode()).hexdigest()[:32]  # not guessable


@pytest.mark.parametrize("langfuse", ["up", "hanging"])
async def test_the_server_flushes_telemetry_on_the_way_out_within_the_bound(
    langfuse_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
    langfuse: str,
) -> None:
    port = free_port()
    settings = langfuse_settings(
        slack_signing_secret="secret", host="127.0.0.1", port=port, langfuse_flush_timeout=1.0
    )
    task = asyncio.create_task(serve(settings))
    await wait_healthy(f"http://127.0.0.1:{port}")
    fake_anthropic.push(Reply(GOOD))
    assert await post_event(port, mention("how do I deploy?", "309.000001"), "secret") == 200
    await replied(fake_slack)
    if langfuse == "hanging":
        fake_langfuse.delay = 30.0
    stopping = time.monotonic()
    task.cancel()  # spans wait up to 5 s for the SDK's next batch: only the shutdown sends them
    await asyncio.gather(task, return_exceptions=True)
    assert time.monotonic() - stopping < 3.0
    if langfuse == "up":
        assert fake_langfuse.named("vouch.answer") and fake_langfuse.scores_named("verified")


async def test_the_bot_process_exits_within_the_flush_bound_when_langfuse_hangs(
    tmp_path: Path,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
) -> None:
    """Interrupted with Langfuse hanging, `python -m app` flushes for at most
    LANGFUSE_FLUSH_TIMEOUT and exits: no exporter thread or exit hook holds it up."""
    fake_anthropic.default = Reply(GOOD)
    port = free_port()
    env = process_env(
        SLACK_BOT_TOKEN="xoxb-test",
        SLACK_SIGNING_SECRET="secret",
        SLACK_API_URL=fake_slack.url,
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=fake_anthropic.url,
        LANGFUSE_PUBLIC_KEY=f"pk-lf-{uuid.uuid4().hex}",
        LANGFUSE_SECRET_KEY="sk-lf-test",
        LANGFUSE_BASE_URL=fake_langfuse.url,
        LANGFUSE_FLUSH_TIMEOUT="1",
        HOST="127.0.0.1",
        PORT=str(port),
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "app"], cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        await wait_healthy(f"http://127.0.0.1:{port}")
        assert await post_event(port, mention("how do I deploy?", "310.000001"), "secret") == 200
        await replied(fake_slack)
        fake_langfuse.delay = 60.0
        stopping = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, stderr = await asyncio.to_thread(process.communicate, timeout=20)
        assert time.monotonic() - stopping < 4.0
    finally:
        process.kill()
    lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    assert any(line["message"].startswith("telemetry on") for line in lines)
    assert "Traceback" not in stderr


async def test_without_a_salt_ids_are_hashed_with_a_key_derived_from_the_secret(
    langfuse_settings: Any,
) -> None:
    salted = Telemetry.from_settings(langfuse_settings())
    derived = Telemetry.from_settings(langfuse_settings(telemetry_salt=None))
    again = Telemetry.from_settings(langfuse_settings(telemetry_salt=None))
    assert derived.hashed("T1:U1") == again.hashed("T1:U1") != salted.hashed("T1:U1")
    other = Telemetry.from_settings(
        langfuse_settings(telemetry_salt=None, langfuse_secret_key="sk-lf-other")
    )
    assert other.hashed("T1:U1") != derived.hashed("T1:U1")
    for telemetry in (salted, derived, again, other):
        await telemetry.close()


async def unreadable(*args: Any, **kwargs: Any) -> tuple[list[dict[str, Any]], bool]:
    """A thread history that fails outright (a bug, or a failure it does not degrade on)."""
    raise ConnectionError("thread unreadable")


async def test_a_message_that_fails_before_its_trace_opened_still_gets_one(
    langfuse_settings: Any, fake_slack: FakeSlack, fake_langfuse: FakeLangfuse
) -> None:
    """Gathering the thread fails: the user gets the failure message, Langfuse a failed
    trace. (An unreadable thread does not fail a message: its history degrades.)"""
    settings = langfuse_settings()
    telemetry = Telemetry.from_settings(settings)
    try:
        app = make_app(settings, telemetry=telemetry)
        app.threads.read = unreadable  # type: ignore[method-assign]
        await dispatch(app, mention("how do I deploy?", "311.000002", thread_ts="311.000001"))
        await replied(fake_slack)
        assert "couldn't verify an answer" in fake_slack.of("chat.postMessage")[0]["text"]
        assert await telemetry.flush()
        root = only(fake_langfuse.spans)
        assert root.name == "vouch.answer"
        assert root.trace_id == telemetry.trace_id(f"{TEAM}:C0001:311.000002")
        assert root.attributes["langfuse.observation.level"] == "ERROR"
        assert root.attributes["langfuse.observation.status_message"] == "ConnectionError"
        scores = score_values(fake_langfuse)
        assert (scores["verified"], scores["outcome"]) == (0, "error")
    finally:
        await telemetry.close()


def parse_time(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


async def test_an_answer_the_user_stopped_is_verified_and_stopped(
    telemetry_bot: Bot,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
) -> None:
    """The user pressed stop while the answer streamed: not a failure, not undelivered."""
    fake_anthropic.push(Reply(GOOD))
    fake_slack.fail("chat.stopStream", Fault(error=STOPPED_BY_USER))
    app, telemetry = telemetry_bot(response_format="markdown")
    await dispatch(app, mention("how do I deploy?", "312.000001"))
    await replied(fake_slack, "chat.stopStream")
    assert await telemetry.flush()
    scores = score_values(fake_langfuse)
    assert (scores["verified"], scores["outcome"]) == (1, "stopped")
    delivery = only(fake_langfuse.named("slack.deliver"))
    assert delivery.attributes.get("langfuse.observation.level") != "ERROR"


async def test_a_thumbs_down_asks_why_and_the_reason_is_a_categorical_score(
    telemetry_bot: Bot,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
) -> None:
    fake_anthropic.push(Reply(GOOD))
    app, telemetry = telemetry_bot()
    trace_id = telemetry.trace_id(await answered(app, fake_slack, "307.000001"))
    answer_ts, buttons = feedback_buttons(fake_slack, "307.000001")
    down = next(e for e in buttons["elements"] if e["value"] == "down")

    def click(action: dict[str, Any], block_id: str) -> AsyncBoltRequest:
        return clicked(action, block_id, answer_ts, thread_ts="307.000001")

    assert (await app.bolt.async_dispatch(click(down, buttons["block_id"]))).status == 200
    await until(lambda: bool(fake_slack.of("chat.postEphemeral")))
    [asked] = fake_slack.of("chat.postEphemeral")
    assert (asked["user"], asked["thread_ts"]) == ("U0001", "307.000001")  # to them alone
    choices = next(b for b in asked["blocks"] if b["type"] == "actions")
    assert [e["value"] for e in choices["elements"]] == [
        "wrong",
        "outdated",
        "not_asked",
        "formatting",
        "other",
    ]
    outdated = next(e for e in choices["elements"] if e["value"] == "outdated")
    assert (await app.bolt.async_dispatch(click(outdated, choices["block_id"]))).status == 200
    forged = {**outdated, "value": "SECRET-CANARY"}
    assert (await app.bolt.async_dispatch(click(forged, choices["block_id"]))).status == 200
    assert await telemetry.flush()
    [reason] = fake_langfuse.scores_named("user_feedback_reason")
    assert (reason["traceId"], reason["value"], reason["dataType"]) == (
        trace_id,
        "outdated",
        "CATEGORICAL",
    )
    assert parse_time(reason["timestamp"]) == datetime.fromtimestamp(float(answer_ts), UTC)
    assert b"SECRET-CANARY" not in b"\n".join(fake_langfuse.received)


async def test_ask_a_person_mentions_the_group_once_and_is_scored(
    telemetry_bot: Bot,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
) -> None:
    """A reply Vouch could not verify carries "Ask a person"; a click posts in the thread,
    mentioning the escalation group and who asked, with nothing of any draft; a second
    click posts nothing more. Verified answers carry no such button."""
    canary = "zebra-escalation-canary"
    fake_anthropic.push(*[Reply(f"{UNCLOSED} {canary}")] * 3)
    app, telemetry = telemetry_bot(escalation_group="S0ONCALL")
    trace_id = telemetry.trace_id(await answered(app, fake_slack, "308.000001"))
    [failure] = fake_slack.of("chat.postMessage")
    assert "couldn't verify" in failure["text"]
    actions = next(b for b in failure["blocks"] if b["type"] == "actions")
    person = next(e for e in actions["elements"] if e["action_id"] == "vouch_escalate")
    for _ in range(2):
        request = clicked(
            person, actions["block_id"], "1.1", thread_ts="308.000001", user="U0ASKER"
        )
        assert (await app.bolt.async_dispatch(request)).status == 200
    posts = fake_slack.of("chat.postMessage")
    assert len(posts) == 2  # the failure message, then one escalation
    assert posts[1]["thread_ts"] == "308.000001"
    assert posts[1]["text"].startswith("<!subteam^S0ONCALL> <@U0ASKER>")
    assert canary not in fake_slack.text_sent()
    assert await telemetry.flush()
    [escalated] = fake_langfuse.scores_named("escalated")
    assert (escalated["traceId"], escalated["value"]) == (trace_id, 1)
    fake_anthropic.push(Reply(GOOD))
    await dispatch(app, mention("how do I deploy?", "309.000001"))
    await replied(fake_slack, count=3)
    verified = fake_slack.of("chat.postMessage")[-1]
    assert verified["thread_ts"] == "309.000001"
    elements = next(b for b in verified["blocks"] if b["type"] == "actions")["elements"]
    assert [e["action_id"] for e in elements] == ["vouch_feedback_up", "vouch_feedback_down"]
