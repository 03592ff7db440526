"""`python -m app collect`: 👎 feedback and annotation queues become dataset items a person
fills in, in a JSONL file or a Langfuse dataset, holding ids, reasons and times only."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from app.eval import collect
from app.eval.dataset import read_jsonl
from app.eval.plan import EvalError
from tests.fakes.langfuse import FakeLangfuse

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def score(trace: str, name: str, value: Any, data_type: str, hours_ago: float) -> dict[str, Any]:
    return {
        "id": f"{trace}-{name}",
        "traceId": trace,
        "name": name,
        "value": value,
        "dataType": data_type,
        "environment": "production",
        "timestamp": (NOW - timedelta(hours=hours_ago)).isoformat(),
    }


def flagged(fake: FakeLangfuse) -> None:
    fake.scores += [
        score("a" * 32, "user_feedback", 0, "BOOLEAN", 2),
        score("a" * 32, "user_feedback_reason", "outdated", "CATEGORICAL", 2),
        score("b" * 32, "user_feedback", 1, "BOOLEAN", 3),  # a 👍: not collected
        score("c" * 32, "user_feedback", 0, "BOOLEAN", 30),  # 👎 with no reason picked
        score("d" * 32, "user_feedback", 0, "BOOLEAN", 24 * 20),  # outside the window
    ]


def collected(settings: Any, **options: Any) -> str:
    out = io.StringIO()
    values: dict[str, Any] = {
        "feedback": True,
        "queue": None,
        "since": timedelta(days=7),
        "dataset": None,
    }
    values.update(options)
    assert collect.run(settings, out=out, now=NOW, path=values.pop("path", None), **values) == 0
    return out.getvalue()


def test_thumbs_down_become_items_to_fill_in(
    langfuse_settings: Any, fake_langfuse: FakeLangfuse, tmp_path: Path
) -> None:
    flagged(fake_langfuse)
    settings = langfuse_settings()
    path = tmp_path / "ours.jsonl"
    said = collected(settings, path=path)
    assert "2 items from 👎 in the last 7 days: 2 added" in said
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["id"] for line in lines] == ["thumbs-down-" + "a" * 16, "thumbs-down-" + "c" * 16]
    assert lines[0]["question"] == "" and lines[0]["expect"] == ""
    assert "(outdated)" in lines[0]["note"] and "2026-11-25 10:00 UTC" in lines[0]["note"]
    assert "(no reason picked)" in lines[1]["note"]
    assert "a" * 32 in lines[0]["note"]  # the trace, to find the message from
    # a second collection keeps what a person wrote, and adds nothing twice
    lines[0]["question"] = "How do I rotate the API key?"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert "0 added" in collected(settings, path=path)
    assert read_jsonl(path)[0].question == "How do I rotate the API key?"
    assert sum(1 for _ in path.read_text().splitlines()) == 2


def test_without_a_destination_the_items_are_printed(
    langfuse_settings: Any, fake_langfuse: FakeLangfuse
) -> None:
    flagged(fake_langfuse)
    lines = collected(langfuse_settings(), since=timedelta(hours=6)).splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["thumbs-down-" + "a" * 16]


def test_a_file_that_cannot_be_written_is_one_sentence(
    langfuse_settings: Any, fake_langfuse: FakeLangfuse, tmp_path: Path
) -> None:
    flagged(fake_langfuse)
    with pytest.raises(EvalError, match="cannot write"):
        collected(langfuse_settings(), path=tmp_path)  # a folder


def test_only_the_fixed_reasons_reach_an_item(
    langfuse_settings: Any, fake_langfuse: FakeLangfuse
) -> None:
    fake_langfuse.scores += [
        score("a" * 32, "user_feedback", 0, "BOOLEAN", 1),
        score(
            "a" * 32, "user_feedback_reason", "the rollback docs are from 2019", "CATEGORICAL", 1
        ),
    ]
    (line,) = collected(langfuse_settings()).splitlines()
    assert "2019" not in line and "(no reason picked)" in line
