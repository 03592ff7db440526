"""Nothing anyone wrote leaves through telemetry or logs: random canaries planted in the user
message, the thread history, every draft, the judge's words, the delivered answer and the
team's docs appear in no byte sent to Langfuse and in no log line, with logging at DEBUG."""

from __future__ import annotations

import io
import json
import logging
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from slack_bolt.request.async_request import AsyncBoltRequest

from app import logs
from app.agent.loop import Deps
from app.knowledge.retrieve import Knowledge
from app.telemetry import Telemetry
from tests.fakes.anthropic import (
    Cite,
    Fail,
    FakeAnthropic,
    Reply,
    ToolCall,
    cited,
    decided,
    judgement,
    search_results,
    tool_use,
)
from tests.fakes.langfuse import FakeLangfuse
from tests.fakes.slack import BOT_USER, TEAM, FakeSlack, Fault, permalink
from tests.knowledge.grounding import in_turn
from tests.slack.bolt import dispatch, make_app, mention, message, replied, settle
from tests.test_telemetry import GOOD, UNCLOSED


@pytest.fixture
def log_output() -> Iterator[io.StringIO]:
    """The app's real logging set-up (JSON lines, quiet third parties) at DEBUG, into a
    buffer; the test process's logging restored afterwards."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    names = logs.QUIET + logs.WARNINGS_ONLY
    levels = {name: logging.getLogger(name).level for name in names}
    stream = io.StringIO()
    logs.configure("DEBUG", stream)
    yield stream
    root.handlers[:], root.level = saved
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


def canary(kind: str) -> str:
    # word-like (no spaces): the export allowlist cannot catch these, so only the design can
    return f"canary_{kind}_{secrets.token_hex(8)}"


async def test_no_content_reaches_langfuse_or_logs(
    langfuse_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
    log_output: io.StringIO,
) -> None:
    planted = {kind: canary(kind) for kind in ("user", "history", "draft", "judge", "answer")}
    root = "400.000001"
    fake_slack.threads[("C0001", root)] = [
        {"ts": root, "user": "U0002", "text": f"deploys keep failing {planted['history']}"}
    ]
    fake_anthropic.push(
        Reply(f"{UNCLOSED} {planted['draft']}"),  # fails the rules
        Reply(f"{GOOD} ({planted['draft']})"),  # passes the rules, fails the judge
        Reply(f"{GOOD} ({planted['answer']})"),  # delivered
    )
    fake_anthropic.judge(
        judgement(False, 20, "HALLUCINATION", message=f"Invented {planted['judge']}."),
        judgement(True, 90),
    )
    settings = langfuse_settings()
    telemetry = Telemetry.from_settings(settings)
    app = make_app(settings, telemetry=telemetry)
    question = f"how do I deploy {planted['user']}?"
    await dispatch(app, mention(question, "400.000002", thread_ts=root))
    await replied(fake_slack)
    # a feedback click, and a message whose verified answer Slack refuses to take
    [posted] = fake_slack.of("chat.postMessage")
    buttons = next(b for b in posted["blocks"] if b["type"] == "actions")
    click = {
        "type": "block_actions",
        "team": {"id": TEAM},
        "user": {"id": "U0001"},
        "actions": [{**buttons["elements"][0], "block_id": buttons["block_id"]}],
    }
    await app.bolt.async_dispatch(AsyncBoltRequest(body=click, mode="socket_mode"))
    fake_slack.fail("chat.postMessage", Fault(status=200, error="channel_not_found"))
    fake_anthropic.push(Reply(f"{GOOD} ({planted['answer']})"))
    await dispatch(app, mention(f"again {planted['user']}", "400.000003"))
    await replied(fake_slack, count=2)
    assert await telemetry.flush()
    await telemetry.close()

    # the canaries really went through the system …
    sent_to_model = b"".join(fake_anthropic.raw)
    assert planted["user"].encode() in sent_to_model
    assert planted["history"].encode() in sent_to_model
    assert planted["judge"].encode() in sent_to_model  # the judge's words went into a retry
    to_judge = b"".join(fake_anthropic.judge_raw)  # the judge reads the thread and the answer
    assert planted["history"].encode() in to_judge and planted["answer"].encode() in to_judge
    assert planted["answer"] in posted["text"]
    assert fake_langfuse.spans and fake_langfuse.scores
    outcomes = sorted(s["value"] for s in fake_langfuse.scores_named("outcome"))
    assert outcomes == ["undelivered", "verified"]
    # … and none of them left through telemetry or logs
    to_langfuse = b"\n".join(fake_langfuse.received)
    log_text = log_output.getvalue()
    for kind, value in planted.items():
        assert value.encode() not in to_langfuse, kind
        assert value not in log_text, kind
    assert BOT_USER not in to_langfuse.decode(errors="replace")
    assert "U0001" not in to_langfuse.decode(errors="replace")  # users are hashed

    lines = [json.loads(line) for line in log_text.splitlines()]
    assert lines and all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    failed = [line for line in lines if line["message"].startswith("delivery failed")]
    assert [line.get("trace_id") for line in failed] == [
        telemetry.trace_id(f"{TEAM}:C0001:400.000003")
    ]


def test_exceptions_are_logged_by_type_only(log_output: io.StringIO) -> None:
    secret = canary("exception")
    try:
        raise ValueError(f"bad input {secret}")
    except ValueError:
        logging.getLogger("vouch.test").exception("step failed")
    [line] = [json.loads(line) for line in log_output.getvalue().splitlines()]
    assert line["error"] == "ValueError" and line["message"] == "step failed"
    assert secret not in log_output.getvalue()
    with logs.traced("ab" * 16):
        logging.getLogger("vouch.test").info("inside")
    assert json.loads(log_output.getvalue().splitlines()[-1])["trace_id"] == "ab" * 16


@pytest.fixture
def grounded_settings(langfuse_settings: Any, docs: Path) -> Any:
    """Telemetry on, and KNOWLEDGE_DIR on a copy of the fixture docs."""
    index = docs.parent / "k.sqlite3"
    return lambda **kw: langfuse_settings(knowledge_dir=docs, knowledge_index=index, **kw)


async def test_the_team_docs_do_not_reach_langfuse_or_logs(
    grounded_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
    log_output: io.StringIO,
) -> None:
    title, body = canary("doctitle").replace("_", ""), canary("doctext")
    settings = grounded_settings()
    secret = settings.knowledge_dir / "secret.md"
    secret.write_text(f"# Vault {title}\n\nRotate the vault keys with {body} daily.\n")
    knowledge = Knowledge.open(settings)
    telemetry = Telemetry.from_settings(settings)
    deps = Deps.from_settings(settings, knowledge=knowledge)
    app = make_app(settings, agent=deps, telemetry=telemetry)

    def cite_vault(request: dict[str, Any]) -> Reply:
        [vault] = [r for r in search_results(request) if title in r["title"]]
        quote = vault["content"][0]["text"]
        return cited(
            "Rotate the vault keys daily. ", ("See the vault doc.", Cite(vault["source"], quote))
        )

    fake_anthropic.responder = in_turn(cite_vault)
    await dispatch(app, mention("how often do we rotate the vault keys?", "410.000001"))
    await replied(fake_slack)
    assert await telemetry.flush()
    await telemetry.close()

    sent_to_model = b"".join(fake_anthropic.raw)
    assert body.encode() in sent_to_model and title.encode() in sent_to_model
    to_judge = b"".join(fake_anthropic.judge_raw)  # the judge reads the sources too
    assert body.encode() in to_judge and title.encode() in to_judge
    [posted] = fake_slack.of("chat.postMessage")
    assert title in posted["text"]  # the footer names the doc
    assert fake_langfuse.scores_named("verified")[0]["value"] == 1
    to_langfuse = b"\n".join(fake_langfuse.received)
    for value in (title, body):
        assert value.encode() not in to_langfuse
        assert value not in log_output.getvalue()
    assert b"knowledge.search" in to_langfuse


async def test_scores_langfuse_refuses_are_counted_not_quoted_and_not_resent(
    langfuse_settings: Any, fake_langfuse: FakeLangfuse, log_output: io.StringIO
) -> None:
    """Langfuse answers a batch with a refused score 207 (accepted and rejected counts, and
    error messages that quote the score): the rest is stored, the batch is sent once, the
    log says how many were refused but not what the server said, and scoring goes on."""
    telemetry = Telemetry.from_settings(langfuse_settings())
    planted = canary("score")
    trace = "ab" * 16
    telemetry.score(trace, "verified", 1.0, "BOOLEAN", f"{trace}-verified")
    telemetry.score(trace, planted, 2.0, "BOOLEAN", f"{trace}-refused")  # BOOLEAN: 0 or 1
    assert await telemetry.flush()
    telemetry.score(trace, "outcome", "verified", "CATEGORICAL", f"{trace}-outcome")
    assert await telemetry.flush()
    await telemetry.close()

    assert [s["name"] for s in fake_langfuse.scores] == ["verified", "outcome"]
    assert sum(planted.encode() in body for body in fake_langfuse.received) == 1  # not resent
    lines = [json.loads(line) for line in log_output.getvalue().splitlines()]
    [refused] = [line for line in lines if line["logger"].startswith("langfuse")]
    assert refused["level"] == "ERROR"
    assert "accepted 1 and rejected 1 of 2 scores" in refused["message"]
    assert logs.WITHHELD in refused["message"]  # the server's reasons
    assert planted not in log_output.getvalue()


def test_the_langfuse_sdks_lines_show_numbers_and_ids_only(log_output: io.StringIO) -> None:
    secret = canary("sdk")
    logging.getLogger("langfuse").error(
        "sent %s of %s to %s: %s (%s)",
        3,
        4,
        "https://x.example/api",
        f"a {secret}",
        KeyError(secret),
    )
    [line] = [json.loads(line) for line in log_output.getvalue().splitlines()]
    assert line["message"] == "sent 3 of 4 to https://x.example/api: [withheld] (KeyError)"


async def test_names_files_and_tool_results_do_not_reach_langfuse_or_logs(
    langfuse_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
    log_output: io.StringIO,
) -> None:
    """A person's name, a shared file's name and contents, and a linked thread read by a
    tool all reach the model, and none of them Langfuse or the log."""
    name, filename = canary("name"), canary("filename") + ".txt"
    content, linked = canary("filetext"), canary("linked")
    fake_slack.user("U0NAMED", name)
    shared = fake_slack.add_file(
        filename, f"Deploy notes: {content}".encode(), "text/plain", channels=("C0001",)
    )
    ts = "1700000000.000100"
    fake_slack.add_message("C0001", f"the linked message {linked}", user="U0NAMED", ts=ts)
    link = permalink("C0001", ts)
    fake_anthropic.responder = in_turn(
        lambda _: tool_use(ToolCall("read_slack_link", {"url": link})),
        lambda _: Reply(GOOD),
    )
    settings = langfuse_settings()
    telemetry = Telemetry.from_settings(settings)
    app = make_app(settings, telemetry=telemetry)
    event = mention(f"what does this say? <{link}>", "420.000001", user="U0NAMED", files=[shared])
    await dispatch(app, event)
    await replied(fake_slack)
    assert await telemetry.flush()
    await telemetry.close()
    sent_to_model = b"".join(fake_anthropic.raw)
    for value in (name, filename, content, linked):
        assert value.encode() in sent_to_model, value  # they went through …
    to_langfuse = b"\n".join(fake_langfuse.received)
    for value in (name, filename, content, linked):  # … and nowhere else
        assert value.encode() not in to_langfuse, value
        assert value not in log_output.getvalue(), value
    assert b"tool.read_slack_link" in to_langfuse


async def test_a_pasted_credential_is_never_echoed_logged_or_sent_to_langfuse(
    langfuse_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
    log_output: io.StringIO,
) -> None:
    """A person pastes a bot token and asks why it fails; the model repeats it (SECRET),
    then answers without it. The token reaches the model (it was in the question) and
    nothing else: not Slack, not Langfuse, not a log line, not the retry's feedback."""
    token = f"xoxb-2741098345-5829104736021-{secrets.token_hex(12)}"
    fake_anthropic.push(
        Reply(f"Your token `{token}` lacks a scope: add `chat:write` and reinstall."),
        Reply("The token you pasted lacks a scope: add `chat:write` and reinstall the app."),
    )
    settings = langfuse_settings()
    telemetry = Telemetry.from_settings(settings)
    app = make_app(settings, telemetry=telemetry)
    await dispatch(app, mention(f"why does {token} get missing_scope?", "450.000001"))
    await replied(fake_slack)
    assert await telemetry.flush()
    await telemetry.close()
    retry = fake_anthropic.requests[1]
    told = json.dumps(retry["messages"][-1])
    assert "SECRET (line 1)" in told and token.encode() in b"".join(fake_anthropic.raw)
    [posted] = fake_slack.of("chat.postMessage")
    assert posted["text"].startswith("The token you pasted lacks a scope")
    assert token not in fake_slack.text_sent()
    assert token.encode() not in b"\n".join(fake_langfuse.received)
    assert token not in log_output.getvalue()
    codes = [s["value"] for s in fake_langfuse.scores_named("issue_code")]
    assert codes == ["SECRET"]


async def test_help_channel_triage_leaves_no_content_in_langfuse_or_logs(
    langfuse_settings: Any,
    *,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
    log_output: io.StringIO,
    tmp_path: Path,
) -> None:
    """Messages nobody addressed to Vouch: one taken and answered, one the model leaves,
    one it cannot decide on, one the first pass leaves. Their words reach the model (and
    the answer, Slack) and no byte sent to Langfuse, no log line."""
    planted = {kind: canary(kind) for kind in ("taken", "left", "failed", "thanks", "answer")}
    channels = tmp_path / "channels.yml"
    channels.write_text("channels:\n  C0HELP:\n    help_channel: true\n")
    fake_anthropic.push(Reply(f"{GOOD} ({planted['answer']})"))
    fake_anthropic.triage(
        decided("question"), decided("statement"), Fail(400, "invalid_request_error")
    )
    settings = langfuse_settings(channels_file=channels)
    telemetry = Telemetry.from_settings(settings)
    app = make_app(settings, telemetry=telemetry)
    texts = {
        "taken": f"how do I deploy billing {planted['taken']}?",
        "left": f"we deployed billing today {planted['left']}",
        "failed": f"anyone seen {planted['failed']} before?",
        "thanks": f"thanks {planted['thanks']}!",
    }
    for n, text in enumerate(texts.values()):
        await dispatch(app, message(text, f"401.00000{n}", "C0HELP"))
        await settle(fake_slack)
    assert await telemetry.flush()
    await telemetry.close()

    to_model = b"".join(fake_anthropic.raw) + json.dumps(fake_anthropic.triage_requests).encode()
    for kind in ("taken", "left", "failed"):
        assert planted[kind].encode() in to_model, kind  # they went through the system …
    assert planted["answer"] in fake_slack.of("chat.postMessage")[0]["text"]
    assert sorted(s["value"] for s in fake_langfuse.scores_named("triage")) == [
        "question",
        "statement",
        "thanks",
        "unavailable",
    ]
    to_langfuse = b"\n".join(fake_langfuse.received)  # … and left through neither
    log_text = log_output.getvalue()
    for kind, value in planted.items():
        assert value.encode() not in to_langfuse, kind
        assert value not in log_text, kind
