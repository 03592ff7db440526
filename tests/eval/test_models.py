"""Before any item runs, `python -m app eval` looks up every model a run would ask in the
Models API: a mistyped name stops it at once, naming the setting and the run, before any
request that costs anything. Off Anthropic's API (Bedrock, Vertex) nothing is looked up."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.eval.models import look_up
from app.eval.plan import EvalError, plan
from tests.entry import Done, run_main
from tests.eval.test_eval import ITEMS, dataset, evaluate, row
from tests.fakes.anthropic import Fail, FakeAnthropic, Item

NO_SUCH = "no such model (the Models API answered 404)"


@dataclass(frozen=True)
class Typo:
    configured: dict[str, Any]  # settings as configured (field names)
    changes: list[str]  # --set
    said: str


TYPOS = {
    "judge in B": Typo(
        {}, ["JUDGE_MODEL=claude-sonet-4-5"], f"JUDGE_MODEL 'claude-sonet-4-5' in B: {NO_SUCH}"
    ),
    "drafts in B": Typo(
        {},
        ["ANTHROPIC_MODEL=claude-hiaku-5-5"],
        f"ANTHROPIC_MODEL 'claude-hiaku-5-5' in B: {NO_SUCH}",
    ),
    "judge in A": Typo(
        {"judge_model": "claude-haiku-5"}, [], f"JUDGE_MODEL 'claude-haiku-5' in A: {NO_SUCH}"
    ),
    "drafts in A": Typo(
        {"anthropic_model": "claude-sonnet-5.5"},
        [],
        f"ANTHROPIC_MODEL 'claude-sonnet-5.5' in A: {NO_SUCH}",
    ),
    "the grader": Typo(
        {"judge_model": "claude-haiku-5", "judge_enabled": False},
        ["ANTHROPIC_MODEL=claude-haiku-5-5"],
        f"JUDGE_MODEL 'claude-haiku-5' as configured (it grades the answers): {NO_SUCH}",
    ),
}


def eval_command(
    scripted: FakeAnthropic,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    change: str,
) -> Done:
    """`python -m app eval SET --set CHANGE` against the scripted API, in process."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", scripted.url)
    return run_main(capsys, "eval", str(dataset(tmp_path)), "--set", change)


@pytest.mark.parametrize("typo", TYPOS.values(), ids=TYPOS.keys())
def test_a_mistyped_model_stops_the_evaluation_before_any_item(
    make_settings: Any, scripted: FakeAnthropic, tmp_path: Path, typo: Typo
) -> None:
    with pytest.raises(EvalError) as caught:
        evaluate(make_settings(**typo.configured), dataset(tmp_path), *typo.changes)
    assert str(caught.value) == typo.said
    assert not scripted.requests and not scripted.judge_requests  # nothing spent
    assert scripted.model_lookups  # the Models API was asked


def test_the_command_says_which_setting_in_one_line_and_exits_2(
    scripted: FakeAnthropic,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    done = eval_command(scripted, monkeypatch, capsys, tmp_path, "JUDGE_MODEL=claude-sonet-4-5")
    assert done.status == 2
    assert done.err == f"Cannot evaluate: JUDGE_MODEL 'claude-sonet-4-5' in B: {NO_SUCH}.\n"
    assert done.out == ""  # no report: nothing ran
    assert not scripted.requests and not scripted.judge_requests


def test_every_model_is_looked_up_before_the_first_item(
    make_settings: Any, scripted: FakeAnthropic, tmp_path: Path
) -> None:
    answers = scripted.responder
    assert answers is not None
    seen: list[list[str]] = []  # the lookups made when each message request arrived

    def noting(body: dict[str, Any]) -> Item:
        seen.append(list(scripted.model_lookups))
        return answers(body)

    scripted.responder = noting
    status, _, _ = evaluate(
        make_settings(), dataset(tmp_path, ITEMS[1:2]), "ANTHROPIC_MODEL=claude-opus-5-5"
    )
    assert status == 0
    before = set(seen[0])  # before the first item's first request, A's and B's
    assert {"claude-sonnet-5-5", "claude-haiku-5-5", "claude-opus-5-5"} <= before


def test_a_model_the_api_knows_but_refuses_still_measures_nothing(
    make_settings: Any, scripted: FakeAnthropic, tmp_path: Path
) -> None:
    """The safety net after the report: the Models API lists the model, but every request
    to it is refused (this key may not use it): exit 2 and why, not "B is worse"."""
    answers = scripted.responder
    assert answers is not None

    def refuse_opus(body: dict[str, Any]) -> Item:
        if body["model"] == "claude-opus-5-5":
            return Fail(403, "permission_error", 0, "not allowed to use this model")
        return answers(body)

    scripted.responder = refuse_opus
    status, out, _ = evaluate(
        make_settings(),
        dataset(tmp_path, ITEMS[:3]),
        "ANTHROPIC_MODEL=claude-opus-5-5",
        min_verified=95,
    )
    assert status == 2
    assert "items never got an answer from the model" in out
    assert "outcomes             verified 2 · exhausted 1" in out  # A measured
    assert "rejected 3" in out  # B did not
    assert row(out, "broken")[:4] == ["·", "expect", "fail", "rejected"]  # not a "fail" met
    assert max(len(line) for line in out.splitlines()) <= 100  # the last paragraph too


PLATFORMS = {
    "bedrock": {
        "anthropic_provider": "bedrock",
        "anthropic_bedrock_base_url": "http://127.0.0.1:9",  # nothing listens
        "anthropic_model": "anthropic.claude-sonet-5-5-v1:0",
    },
    "vertex": {
        "anthropic_provider": "vertex",
        "anthropic_vertex_base_url": "http://127.0.0.1:9/v1",
        "cloud_ml_region": "us-east5",
        "anthropic_vertex_project_id": "vouch-test",
        "anthropic_model": "claude-sonet-5-5@20260101",
    },
}


@pytest.mark.parametrize("platform", PLATFORMS.values(), ids=PLATFORMS.keys())
async def test_off_anthropics_api_nothing_is_looked_up(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    platform: dict[str, str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Bedrock and Vertex AI serve no Models API: nothing is asked, and nothing stops (the
    safety net after the report still catches a wrong model id there)."""
    settings = make_settings(**platform)
    made = plan(settings, "set.jsonl", ["JUDGE_MODEL=claude-nope"], None)
    await look_up(made)
    assert not fake_anthropic.model_lookups  # not Anthropic's API either
    assert not caplog.records  # no lookup failed: none was tried


def test_a_gateway_without_the_models_api_stops_nothing(
    make_settings: Any, scripted: FakeAnthropic, tmp_path: Path
) -> None:
    """A server in front of the Messages API that has no Models API answers a plain 404:
    no model is unknown for that, and the runs go on."""
    scripted.models_api = False
    status, _, _ = evaluate(make_settings(), dataset(tmp_path, ITEMS[1:2]))
    assert status == 0 and scripted.requests


def test_a_model_name_no_path_can_hold_is_one_line(
    scripted: FakeAnthropic,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    done = eval_command(scripted, monkeypatch, capsys, tmp_path, "ANTHROPIC_MODEL=..")
    assert done.status == 2
    assert done.err == "Cannot evaluate: ANTHROPIC_MODEL '..' in B: not a model name.\n"
