"""`python -m app eval NAME` on a Langfuse dataset: each run an experiment of the dataset,
with the loop's observations and Vouch's scores on each item's trace and run-level rates;
`collect` into a Langfuse dataset. Against the fake Langfuse and the fake Anthropic API."""

from __future__ import annotations

import io
import json
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from app.eval import collect
from app.eval import command as evaluation
from app.eval.dataset import DatasetError
from app.eval.plan import EvalError, plan
from tests.eval.test_eval import HAIKU_95, ITEMS, answers, eval_process, grading
from tests.eval.test_eval import dataset as dataset_file
from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.langfuse import FakeLangfuse


def seed(fake: FakeLangfuse, name: str = "vouch-questions") -> None:
    items: list[dict[str, Any]] = [
        {
            "id": item["id"],
            "input": {k: v for k, v in item.items() if k not in ("id", "expect")},
            "expected_output": {"expect": item["expect"]},
        }
        for item in ITEMS[:3]
    ]
    items.append({"id": "old", "input": {"question": "Gone (owl)"}, "status": "ARCHIVED"})
    items.append({"id": "stub", "input": {"question": ""}, "expected_output": {"expect": ""}})
    fake.add_dataset(name, items)


def items_of(fake: FakeLangfuse, dataset: str) -> list[dict[str, Any]]:
    """The dataset's items as stored now (each item's last version)."""
    latest = [versions[-1] for versions in fake.project.items.values()]
    return [item for item in latest if item["datasetName"] == dataset]


def collected(settings: Any, **options: Any) -> str:
    """`collect.run` with `options` over the defaults (no 👎, no queue, no destination);
    what it printed."""
    out = io.StringIO()
    values: dict[str, Any] = {
        "feedback": False,
        "queue": None,
        "since": timedelta(days=7),
        "dataset": None,
    }
    values.update({"path": None, **options})
    assert collect.run(settings, out=out, now=datetime.now(UTC), **values) == 0
    return out.getvalue()


def evaluate(settings: Any, name: str, *changes: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = evaluation.run(plan(settings, name, list(changes), None), settings, out, err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def scripted(fake_anthropic: FakeAnthropic) -> FakeAnthropic:
    fake_anthropic.responder = answers(haiku_fails=True)
    fake_anthropic.judge_responder = grading
    return fake_anthropic


def test_a_langfuse_dataset_run_is_an_experiment_with_vouchs_scores(
    langfuse_settings: Any, fake_langfuse: FakeLangfuse, scripted: FakeAnthropic
) -> None:
    seed(fake_langfuse)
    status, out, err = evaluate(langfuse_settings(), "vouch-questions")
    assert status == 0, out
    assert "Langfuse dataset vouch-questions · 3 items" in out
    assert "verified             2/3  66.7%" in out
    assert "Sent to Langfuse as experiment runs of the dataset" in out
    assert "1 items have no question yet and are left out." in err  # the stub; archived: gone
    (run,) = fake_langfuse.experiments().values()
    assert run.name.startswith("vouch · configured · ")
    assert set(run.items) == {"cited", "plain", "broken"}
    cited = run.items["cited"]
    assert cited.input["question"] == ITEMS[0]["question"]  # the item's own content, shown
    assert cited.output["outcome"] == "verified" and cited.output["as_expected"] is True
    assert "couldn't verify an answer" in run.items["broken"].output["reply"]  # canned
    # nothing of a failed draft, in any byte Langfuse received
    assert fake_langfuse.received
    assert not any(b"Run this" in body for body in fake_langfuse.received)
    for item in run.items.values():
        names = {score["name"] for score in item.scores}
        assert {"verified", "pass_on_first_attempt", "outcome", "expected_behaviour"} <= names
        (root,) = [s for s in fake_langfuse.named("vouch.answer") if s.trace_id == item.trace_id]
        assert root.parent_span_id == item.observation_id  # under the SDK's item span
        drafts = [s for s in fake_langfuse.named("claude.draft") if s.trace_id == item.trace_id]
        assert drafts and all(s.usage for s in drafts)  # the loop's calls, in the item's trace
        assert all(s.parent_span_id == root.span_id for s in drafts)
    failed = {s["value"] for s in run.items["broken"].scores if s["name"] == "issue_outcome"}
    assert failed == {"UNCLOSED_CODE_FENCE/failed"}
    rates = {score["name"]: score["value"] for score in run.scores}
    assert rates["verified_rate"] == pytest.approx(2 / 3)
    assert rates["expected_behaviour_rate"] == 1.0
    assert rates["pass_on_first_attempt_rate"] == pytest.approx(2 / 3)
    assert rates["avg_attempts_to_verify"] == 1.0
    # recorded apart from the bot's figures
    assert {s.get("environment") for s in fake_langfuse.scores} == {"sdk-experiment"}


def test_two_runs_on_a_langfuse_dataset_are_two_experiments(
    langfuse_settings: Any, fake_langfuse: FakeLangfuse, scripted: FakeAnthropic
) -> None:
    seed(fake_langfuse)
    status, out, _ = evaluate(
        langfuse_settings(), "vouch-questions", "ANTHROPIC_MODEL=claude-haiku-5-5"
    )
    assert status == 0
    runs = sorted(fake_langfuse.experiments().values(), key=lambda run: run.name)
    assert [run.name.split(" · ")[1] for run in runs] == [
        "ANTHROPIC_MODEL=claude-haiku-5-5",
        "configured",
    ]
    rates = [{s["name"]: s["value"] for s in run.scores}["verified_rate"] for run in runs]
    assert rates == [0.0, pytest.approx(2 / 3)]
    assert "-66.7 pts" in out


def test_an_unknown_dataset_is_one_sentence(
    langfuse_settings: Any, fake_langfuse: FakeLangfuse
) -> None:
    with pytest.raises(DatasetError, match="Langfuse has no dataset named 'nope'"):
        evaluate(langfuse_settings(), "nope")


def test_an_annotation_queue_becomes_a_dataset_to_fill_in(
    langfuse_settings: Any, fake_langfuse: FakeLangfuse
) -> None:
    trace = "e" * 32
    queue = fake_langfuse.add_queue(
        "wrong answers", [(trace, "TRACE", "COMPLETED"), ("f" * 16, "OBSERVATION", "PENDING")]
    )
    settings = langfuse_settings()
    said = collected(settings, queue=queue, dataset="from-queue")
    assert "2 items from annotation queue" in said and "2 added" in said
    items = items_of(fake_langfuse, "from-queue")
    assert {item["id"].rsplit("-", 1)[0] for item in items} == {
        "queue-" + "e" * 32,
        "queue-" + "f" * 16,
    }
    linked = next(item for item in items if item["id"].startswith("queue-e"))
    assert linked["sourceTraceId"] == trace
    assert linked["input"] == {"question": ""}
    assert f"/project/proj-vouch/traces/{trace}" in linked["metadata"]["note"]
    collected(settings, queue=queue, dataset="from-queue")
    assert len(items_of(fake_langfuse, "from-queue")) == 2  # nothing twice
    with pytest.raises(EvalError, match="no item has a question"):
        evaluate(settings, "from-queue")


def test_an_unknown_queue_is_one_sentence(
    langfuse_settings: Any, fake_langfuse: FakeLangfuse
) -> None:
    with pytest.raises(EvalError, match="no annotation queue nope"):
        collected(langfuse_settings(), queue="nope")


def test_the_one_command_on_a_langfuse_dataset_as_a_process(
    tmp_path: Path, fake_langfuse: FakeLangfuse, scripted: FakeAnthropic
) -> None:
    """The answer in the terminal (exit 1: under 95%) and in Langfuse (two experiments,
    flushed before the process exits)."""
    seed(fake_langfuse)
    public_key = f"pk-lf-{uuid.uuid4().hex}"
    fake_langfuse.keys.add(public_key)
    done = eval_process(
        tmp_path,
        "vouch-questions",
        *HAIKU_95,
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=scripted.url,
        LANGFUSE_PUBLIC_KEY=public_key,
        LANGFUSE_SECRET_KEY="sk-lf-test",
        LANGFUSE_BASE_URL=fake_langfuse.url,
    )
    assert done.returncode == 1, done.stderr
    assert "Verified 0.0% is under --min-verified 95%." in done.stdout
    assert "Sent to Langfuse" in done.stdout and "Traceback" not in done.stderr
    runs = fake_langfuse.experiments().values()
    assert sorted(len(run.items) for run in runs) == [3, 3]
    assert all({s["name"] for s in run.scores} >= {"verified_rate"} for run in runs)


def test_a_trace_collected_into_two_datasets_is_an_item_of_each(
    langfuse_settings: Any, fake_langfuse: FakeLangfuse
) -> None:
    """Langfuse's item ids are unique in the project: the dataset is part of the id."""
    queue = fake_langfuse.add_queue("flagged", [("a" * 32, "TRACE", "PENDING")])
    settings = langfuse_settings()
    for dataset in ("first", "second"):
        assert "1 added" in collected(settings, queue=queue, dataset=dataset)
    assert len(items_of(fake_langfuse, "first")) == len(items_of(fake_langfuse, "second")) == 1


def test_a_langfuse_that_stops_answering_mid_run_is_said_and_bounded(
    langfuse_settings: Any, fake_langfuse: FakeLangfuse, scripted: FakeAnthropic
) -> None:
    """The dataset is read, but what is sent hangs (the fake delays ingestion: traces and
    scores): the SDKs retry within their timeouts and drop what they cannot send; the run
    ends with its report, and says Langfuse has only part of it instead of claiming it
    was recorded."""
    seed(fake_langfuse)
    settings = langfuse_settings(langfuse_timeout=1, langfuse_flush_timeout=1)
    fake_langfuse.delay = 600.0  # ingestion never answers (reset() lets it go)
    started = time.monotonic()
    status, out, _ = evaluate(settings, "vouch-questions")
    assert status == 0
    assert "verified             2/3  66.7%" in out
    assert "Langfuse did not take all of the runs" in out and "Sent to Langfuse" not in out
    assert time.monotonic() - started < 120


def test_a_local_dataset_copied_into_langfuse_runs_the_same(
    langfuse_settings: Any,
    fake_langfuse: FakeLangfuse,
    scripted: FakeAnthropic,
    tmp_path: Path,
    docs: Path,
) -> None:
    """`collect --from FILE --dataset NAME` copies the items whole (thread, passages, docs
    folder, expectation); eval on the copy gives what eval on the file gives."""
    folder_item = {"id": "folder", "question": "Deploy to staging? (heron)", "knowledge": "docs"}
    path = dataset_file(tmp_path, [*ITEMS[:3], folder_item])
    settings = langfuse_settings(knowledge_index=tmp_path / "index" / "k.sqlite3")
    said = collected(settings, jsonl=path, dataset="copied")
    assert "4 items from" in said and "4 added" in said
    collected(settings, jsonl=path, dataset="copied")
    assert len(items_of(fake_langfuse, "copied")) == 4  # nothing twice

    def asked_with_docs() -> list[bool]:
        return [
            '"search_result"' in json.dumps(r["messages"])
            for r in scripted.requests
            if "heron" in json.dumps(r["messages"])
        ]

    local = evaluate(settings, str(path))[1]
    from_file = asked_with_docs()
    copied = evaluate(settings, "copied")[1]
    for figure in ("verified ", "first pass", "as expected"):
        assert line_of(local, figure) == line_of(copied, figure)
    assert from_file and all(from_file)  # the folder's passages reached the model
    assert asked_with_docs() == from_file * 2  # and did again from the copy


def test_copying_a_local_dataset_needs_a_langfuse_dataset(langfuse_settings: Any) -> None:
    with pytest.raises(EvalError, match="give --dataset NAME"):
        collected(langfuse_settings(), jsonl=Path("x.jsonl"))


def line_of(report: str, figure: str) -> str:
    return next(line for line in report.splitlines() if line.strip().startswith(figure.strip()))


def test_a_local_dataset_sends_nothing_to_langfuse(
    langfuse_settings: Any, fake_langfuse: FakeLangfuse, scripted: FakeAnthropic, tmp_path: Path
) -> None:
    """Content goes to Langfuse only for a Langfuse dataset: with the keys set, a local
    file's run sends no byte."""
    status, _, _ = evaluate(langfuse_settings(), str(dataset_file(tmp_path, ITEMS[:2])))
    assert status == 0
    assert not fake_langfuse.received and not fake_langfuse.spans


def test_a_list_longer_than_the_bound_is_refused_not_cut(
    langfuse_settings: Any, fake_langfuse: FakeLangfuse, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An annotation queue of more pages than collect reads is one sentence, not a part
    taken for the whole (the dataset items listed to skip are read the same way)."""
    queue = fake_langfuse.add_queue("long", [(f"{n:032x}", "TRACE", "PENDING") for n in range(101)])
    monkeypatch.setattr(collect, "MAX_PAGES", 1)  # one page of 100
    with pytest.raises(EvalError, match="more than 100 items"):
        collected(langfuse_settings(), queue=queue)
