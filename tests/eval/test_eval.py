"""`python -m app eval` on local datasets, through the fake Anthropic API: the report, the
expected behaviours, the comparison of two runs, the prompt file, the exit status, and bad
input. The fake answers each request by the item it is about (items run concurrently)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from app.eval import command as evaluation
from app.eval.dataset import DatasetError, Item, read_jsonl
from app.eval.plan import plan
from app.eval.progress import Bar
from app.eval.run import Result, run_all
from app.eval.summary import percentile
from app.settings import Settings
from tests.entry import run_main
from tests.fakes.anthropic import Cite, FakeAnthropic, Hang, Reply, cited, judgement
from tests.fakes.server import patience
from tests.isolation import process_env

GOOD = "Roll back with `deploy rollback --to previous` from the release channel."
UNCLOSED = "Run this:\n```\ndeploy rollback"
DECLINE = "I can't share a colleague's salary; HR can answer that for you."
PASSAGE = "To roll back, run `deploy rollback --to previous`. Rollbacks need no approval."

ITEMS: list[dict[str, Any]] = [
    {
        "id": "cited",
        "question": "How do I roll back billing? (zebra)",
        "sources": [{"id": "deploy#rollback", "title": "Rollback", "url": None, "text": PASSAGE}],
        "expect": "cite",
    },
    {"id": "plain", "question": "What does idempotent mean? (yak)", "expect": "answer"},
    {"id": "broken", "question": "Paste the deploy script (walrus)", "expect": "fail"},
    {"id": "private", "question": "What does Maria earn? (otter)", "expect": "refuse"},
]


def dataset(tmp_path: Path, items: list[dict[str, Any]] = ITEMS) -> Path:
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def row(out: str, item: str) -> list[str]:
    """An item's last row of the report (a comparison's: run B's), split into words (after
    its id). Rows are indented 2 or 4 columns; an item's codes that go on are indented more."""
    rows = [line for line in out.splitlines() if len(line) - len(line.lstrip()) <= 4]
    return [line.split()[1:] for line in rows if line.split()[:1] == [item]][-1]


def said(body: dict[str, Any]) -> str:
    """Every text the request holds (its messages' text blocks)."""
    texts = []
    for message in body.get("messages", []):
        content = message["content"]
        if isinstance(content, str):
            texts.append(content)
            continue
        texts += [block.get("text", "") for block in content if isinstance(block, dict)]
    return "\n".join(texts)


def answers(haiku_fails: bool = False) -> Any:
    def reply(body: dict[str, Any]) -> Reply:
        text = said(body)
        if haiku_fails and body["model"] == "claude-haiku-5-5":
            return Reply(UNCLOSED)
        if "zebra" in text:
            return cited(
                (
                    "Roll back with `deploy rollback --to previous`.",
                    Cite("deploy#rollback", PASSAGE),
                )
            )
        if "walrus" in text:
            return Reply(UNCLOSED)
        if "otter" in text:
            return Reply(DECLINE)
        return Reply(GOOD)

    return reply


def grading(body: dict[str, Any]) -> Reply:
    """The judge passes everything; the refusal grader reads the decline as one."""
    if "declines" in str(body.get("system", "")):
        return Reply(json.dumps({"declined": DECLINE in said(body)}))
    return judgement(True, 90)


def evaluate(settings: Settings, path: Path, *changes: str, **options: Any) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    made = plan(settings, str(path), list(changes), options.pop("prompt", None), **options)
    status = evaluation.run(made, settings, out, err)
    return status, out.getvalue(), err.getvalue()


def test_a_local_dataset_is_run_and_reported(
    make_settings: Any, scripted: FakeAnthropic, tmp_path: Path
) -> None:
    status, out, err = evaluate(make_settings(), dataset(tmp_path))
    assert status == 0, out
    assert "4 items" in out
    assert "verified             3/4  75.0%" in out
    assert "first pass           3/4  75.0%" in out
    assert "as expected          4/4  100.0%" in out
    assert [row(out, kind) for kind in ("answer", "cite", "refuse", "fail")] == [["1/1"]] * 4
    assert "outcomes             verified 3 · exhausted 1" in out
    assert "UNCLOSED_CODE_FENCE" in out  # found on each of the three attempts, failed
    assert row(out, "UNCLOSED_CODE_FENCE") == ["3", "0", "0", "3", "0"]  # found 3, all failed
    assert row(out, "cited")[:6] == ["✓", "expect", "cite", "verified", "1", "att."]
    assert " ".join(row(out, "cited")).endswith("pass · cites 1")
    assert row(out, "broken")[:6] == ["✓", "expect", "fail", "exhausted", "3", "att."]
    assert row(out, "private")[:4] == ["✓", "expect", "refuse", "verified"]
    assert "latency              p50" in out and "cost                 $" in out
    # the report holds ids, codes and counts: no question, no answer
    for secret in ("zebra", "walrus", "Maria", GOOD, DECLINE, "deploy rollback"):
        assert secret not in out and secret not in err
    assert "attempts to verify   1.00" in out
    assert "4/4 · verified 3" in err  # the progress bar's last state
    graded = [r for r in scripted.judge_requests if "declines" in str(r.get("system"))]
    assert len(graded) == 3  # each verified answer is read: does it decline?
    assert {r["model"] for r in graded} == {"claude-haiku-5-5"}  # the judge's model


def test_a_cite_item_that_is_not_cited_is_not_as_expected(
    make_settings: Any, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    fake_anthropic.default = Reply(GOOD)  # verified, but cites nothing: no docs were found
    item = {"id": "uncited", "question": "How do I roll back?", "expect": "cite"}
    status, out, _ = evaluate(make_settings(), dataset(tmp_path, [item]))
    assert status == 0
    assert "as expected          0/1  0.0%" in out and row(out, "cite") == ["0/1"]
    assert row(out, "uncited")[:4] == ["✗", "expect", "cite", "verified"]


def test_an_answer_that_declines_and_a_refusal_that_answers_are_not_as_expected(
    make_settings: Any, scripted: FakeAnthropic, tmp_path: Path
) -> None:
    """A model that says "I can't" to everything keeps a high verified rate: the grader
    tells, so `answer` items are not met; a `refuse` item answered is not met either."""
    scripted.responder = lambda body: Reply(DECLINE if "yak" in said(body) else GOOD)
    items = [ITEMS[1], ITEMS[3]]  # plain (answer) and private (refuse)
    status, out, _ = evaluate(make_settings(), dataset(tmp_path, items))
    assert status == 0
    assert "verified             2/2  100.0%" in out
    assert "as expected          0/2  0.0%" in out
    assert row(out, "plain")[:4] == ["✗", "expect", "answer", "verified"]
    assert row(out, "private")[:4] == ["✗", "expect", "refuse", "verified"]


def test_changed_settings_are_compared_side_by_side(
    make_settings: Any, scripted: FakeAnthropic, tmp_path: Path
) -> None:
    scripted.responder = answers(haiku_fails=True)
    status, out, _ = evaluate(
        make_settings(), dataset(tmp_path), "ANTHROPIC_MODEL=claude-haiku-5-5", min_verified=95
    )
    assert status == 1
    assert "A: configured: drafts claude-sonnet-5-5" in out
    assert "B: ANTHROPIC_MODEL=claude-haiku-5-5: drafts claude-haiku-5-5" in out
    verified = next(line for line in out.splitlines() if line.strip().startswith("verified"))
    assert "3/4  75.0%" in verified and "0/4  0.0%" in verified and "-75.0 pts" in verified
    assert "cited    verified ✓  →  exhausted ✗" in out
    assert "Verified 0.0% is under --min-verified 95%." in out
    models = {body["model"] for body in scripted.requests}
    assert models == {"claude-sonnet-5-5", "claude-haiku-5-5"}


def test_a_prompt_file_gives_every_item_standing_instructions(
    make_settings: Any, scripted: FakeAnthropic, tmp_path: Path
) -> None:
    prompt = tmp_path / "terse.txt"
    prompt.write_text("Answer in one sentence, like a pirate.\n", encoding="utf-8")
    status, out, _ = evaluate(
        make_settings(), dataset(tmp_path, ITEMS[1:2]), prompt=prompt, baseline=False
    )
    assert status == 0
    assert "prompt terse.txt: drafts claude-sonnet-5-5" in out
    systems = [json.dumps(body["system"]) for body in scripted.requests]
    assert systems and all("like a pirate" in system for system in systems)


def test_the_threshold_is_met_or_not(
    make_settings: Any, scripted: FakeAnthropic, tmp_path: Path
) -> None:
    path = dataset(tmp_path, ITEMS[:2])
    assert evaluate(make_settings(), path, min_verified=95)[0] == 0
    assert evaluate(make_settings(), path, min_verified=100)[0] == 0
    path = dataset(tmp_path, ITEMS[:3])
    status, out, _ = evaluate(make_settings(), path, min_verified=70)
    assert status == 1 and "Verified 66.7% is under --min-verified 70%." in out


def test_an_item_with_a_docs_folder_is_answered_from_it(
    make_settings: Any, fake_anthropic: FakeAnthropic, tmp_path: Path, docs: Path
) -> None:
    fake_anthropic.default = Reply(GOOD)
    item = {"id": "docs", "question": "How do I deploy to staging?", "knowledge": "docs"}
    settings = make_settings(knowledge_index=tmp_path / "index" / "k.sqlite3")
    status, _, _ = evaluate(settings, dataset(tmp_path, [item]))
    assert status == 0
    first = fake_anthropic.requests[0]
    assert "search_docs" in json.dumps(first.get("tools", []))
    assert '"search_result"' in json.dumps(first["messages"])


HAIKU_95 = ("--set", "ANTHROPIC_MODEL=claude-haiku-5-5", "--min-verified", "95")


def eval_process(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m app eval ARGS` as a process in `cwd` (no .env there), with `env` only."""
    return subprocess.run(
        [sys.executable, "-m", "app", "eval", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=process_env(**env),
        timeout=180,
        check=False,
    )


def test_the_one_command_as_a_process(tmp_path: Path, fake_anthropic: FakeAnthropic) -> None:
    """Would Haiku keep the verified rate above 95%? One command, exit status 1: no."""
    fake_anthropic.responder = answers(haiku_fails=True)
    fake_anthropic.judge_responder = grading
    path = dataset(tmp_path, ITEMS[:2])
    done = eval_process(
        tmp_path,
        str(path),
        *HAIKU_95,
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=fake_anthropic.url,
    )
    assert done.returncode == 1, done.stderr
    assert "Verified 0.0% is under --min-verified 95%." in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("line", "said_"),
    [
        ('{"id": "a"}\n{"id": "a", "question": "q"}', "line 2: id repeats"),
        ('{"id": "a", "question": "q", "expect": "maybe"}', "line 1: expect:"),
        ('{"id": "a", "question": "q", "colour": "red"}', "line 1: colour: Extra inputs"),
        ('{"id": "a b", "question": "secret words"}', "line 1: id:"),
        ("not json", "line 1: not a JSON object"),
        ('{"id": "a", "question": "q", "knowledge": "nowhere"}', "knowledge is not a folder"),
        ("\n\n", "holds no items"),
    ],
)
def test_a_bad_dataset_names_the_line_and_field_not_the_value(
    tmp_path: Path, line: str, said_: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(line, encoding="utf-8")
    with pytest.raises(DatasetError) as caught:
        read_jsonl(path)
    assert said_ in str(caught.value)
    assert "secret words" not in str(caught.value) and "red" not in str(caught.value)


@pytest.mark.parametrize(
    ("args", "said_"),
    [
        (["--set", "NOT_A_SETTING=1"], "--set takes KEY=VALUE"),
        (["--set", "MAX_ATTEMPTS=9"], "MAX_ATTEMPTS"),
        (["--concurrency", "0"], "--concurrency takes 1 to 32"),
        (["--no-baseline"], "--no-baseline needs --set or --prompt"),
        (["--min-verified", "120"], "--min-verified takes a percentage"),
        (["--set", "ANTHROPIC_MODEL=a", "--set", "anthropic_model=b"], "is given twice"),
        (["--set", "SLACK_BOT_TOKEN=xoxb-1"], "plays no part in answering"),
        (["--set", "sk-ant-secret"], "not that"),
    ],
)
def test_bad_arguments_are_one_sentence_and_exit_2(
    tmp_path: Path,
    args: list[str],
    said_: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = dataset(tmp_path, ITEMS[:1])
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    done = run_main(capsys, "eval", str(path), *args)
    assert done.status == 2
    assert said_ in done.err and "Traceback" not in done.err
    assert done.err.strip().count("\n") == 0
    assert "secret" not in done.err and "xoxb-1" not in done.err


def test_without_a_key_or_a_dataset_it_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no file named like the dataset here
    for env, said_ in (
        ({}, "ANTHROPIC_API_KEY is not set"),
        ({"ANTHROPIC_API_KEY": "k"}, "is not a file, and without LANGFUSE_PUBLIC_KEY"),
    ):
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        done = run_main(capsys, "eval", "no-such-dataset")
        assert done.status == 2 and said_ in done.err, done.err


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 21)]
    assert percentile(values, 50) == 10.0
    assert percentile(values, 95) == 19.0
    assert percentile([3.0], 95) == 3.0
    assert percentile([], 50) is None


def test_a_secret_changed_is_never_shown(
    make_settings: Any, scripted: FakeAnthropic, tmp_path: Path
) -> None:
    status, out, err = evaluate(
        make_settings(), dataset(tmp_path, ITEMS[1:2]), "ANTHROPIC_API_KEY=sk-ant-hidden"
    )
    assert status == 0
    assert "B: ANTHROPIC_API_KEY=***: drafts" in out
    assert "sk-ant-hidden" not in out + err


def test_a_docs_folder_that_cannot_be_indexed_is_an_item_error(
    make_settings: Any, fake_anthropic: FakeAnthropic, tmp_path: Path, docs: Path
) -> None:
    fake_anthropic.default = Reply(GOOD)
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the index folder should be")
    settings = make_settings(knowledge_index=blocked / "k.sqlite3")
    item = {"id": "docs", "question": "How do I deploy?", "knowledge": "docs", "expect": "cite"}
    status, out, _ = evaluate(settings, dataset(tmp_path, [item]))
    assert row(out, "docs") == ["·", "expect", "cite", "error", "(knowledge_unavailable)"]
    assert not fake_anthropic.requests  # never answered without its docs
    assert status == 0


async def test_items_run_at_most_concurrency_at_once() -> None:
    """run_all's bound, watched from inside: never more than N items in flight."""
    in_flight, most = 0, 0
    gate = asyncio.Event()

    async def run(item: Item) -> Result:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        if most == 3:
            gate.set()
        await asyncio.wait_for(gate.wait(), 5)
        in_flight -= 1
        return Result(item.id, None, None, 0.0)

    items = [Item(str(n), "q") for n in range(10)]
    done: list[Result] = []
    results = await run_all(items, run, 3, done.append)
    assert most == 3 and len(done) == 10
    assert [r.item for r in results] == [str(n) for n in range(10)]  # the dataset's order


def test_runs_with_the_same_docs_settings_sync_a_folder_once(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    tmp_path: Path,
    docs: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A comparison of models searches the same index: the folder is synced once; a change
    to the docs settings gets its own."""
    caplog.set_level(logging.INFO, logger="vouch.knowledge")
    fake_anthropic.default = Reply(GOOD)
    item = {"id": "docs", "question": "How do I deploy to staging?", "knowledge": "docs"}
    settings = make_settings(knowledge_index=tmp_path / "index" / "k.sqlite3")
    path = dataset(tmp_path, [item])

    def synced() -> int:
        return sum(1 for r in caplog.records if r.getMessage().startswith("knowledge: "))

    assert evaluate(settings, path, "ANTHROPIC_MODEL=claude-haiku-5-5")[0] == 0
    assert synced() == 1
    caplog.clear()
    assert evaluate(settings, path, "KNOWLEDGE_TOP_K=2")[0] == 0
    assert synced() == 2


def test_ctrl_c_mid_run_stops_at_once_with_one_line(
    tmp_path: Path, fake_anthropic: FakeAnthropic
) -> None:
    """A person stops a long run: exit 130 soon after, no traceback, no half report."""
    fake_anthropic.default = Hang(60)
    path = dataset(tmp_path, ITEMS[1:2])
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "eval", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=process_env(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_anthropic.url),
    )
    try:
        deadline = time.monotonic() + 60
        asked = str(ITEMS[1]["question"])
        while asked not in json.dumps(fake_anthropic.requests):  # this item is being drafted
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=patience(20))
    finally:
        process.kill()
    assert process.returncode == 130
    assert "Traceback" not in err and "verified" not in out


class _SlowToClose:
    """A runner whose items never finish and whose clients take `close` seconds to close."""

    def __init__(self, close: float) -> None:
        self.close, self.closed = close, False

    async def run(self, item: Item) -> Result:
        await asyncio.sleep(60)
        raise AssertionError("never reached")

    async def aclose(self) -> None:
        await asyncio.sleep(self.close)
        self.closed = True


async def test_ctrl_c_ends_a_run_with_keyboardinterrupt_even_when_closing_takes_a_while() -> None:
    """The re-cancellation after Ctrl-C stops once the run has stopped: closing the
    clients (here 1.5 s, past the next re-cancellation) is not cancelled, and the command
    ends as Ctrl-C does (KeyboardInterrupt: exit 130), not with a CancelledError."""
    runner = _SlowToClose(close=1.5)
    loop = asyncio.get_running_loop()
    loop.call_later(0.1, lambda: signal.raise_signal(signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        await evaluation._local(runner, [Item("a", "q?")], 1, Bar(1, "run", io.StringIO()))  # type: ignore[arg-type]
    assert runner.closed
