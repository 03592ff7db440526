"""Per-channel settings (CHANNELS_FILE): validated with errors that name the line and never
the value; reloaded when the file changes, a bad edit keeping the last good settings; and,
through Bolt and the fakes, a denied channel gets no answer and no model call, a channel's
instructions, dialect, judge and escalation group are the ones used."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.channels import ChannelsError, ChannelsFile, parse
from tests.fakes.anthropic import FakeAnthropic, Reply, search_results
from tests.fakes.slack import FakeSlack
from tests.isolation import process_env
from tests.knowledge.grounding import citing, rollback_id
from tests.slack.bolt import dispatch, make_app, mention, message, replied, settle

GOOD = "Merge to `main`: the pipeline deploys billing to staging in about 8 minutes."
FILE = """default:
  follow_ups: false
dm:
  instructions: Answer in one short paragraph.
channels:
  C0SILENT:
    answer: false
  C0PLATFORM:
    dialect: markdown
    judge: false
    escalation_group: S0PLATFORM
    instructions: |
      We deploy with Argo CD. Say "rollout", not "release".
"""


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("channels:\n  C1:\n    dialect: html-SECRET-CANARY\n", "line 3: channels.C1.dialect"),
        ("default:\n  folow_ups: true\n", "line 2: default.folow_ups: Extra inputs"),
        ("channels: [1, 2\n", "line 2: not valid YAML"),
        ("dm:\n  escalation_group: SECRET-CANARY\n", "line 2: dm.escalation_group"),
    ],
)
def test_a_bad_file_names_the_line_and_never_the_value(text: str, error: str) -> None:
    with pytest.raises(ChannelsError) as raised:
        parse(text)
    assert str(raised.value).startswith(error)
    assert "SECRET-CANARY" not in str(raised.value)


def test_unlisted_channels_use_the_default_and_dms_their_own() -> None:
    channels = parse(FILE)
    assert channels.of("C0OTHER").follow_ups is False
    assert channels.of("D0001").instructions == "Answer in one short paragraph."
    assert channels.of("C0SILENT").answer is False


class Clock:
    now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_changed_file_is_read_again_and_a_bad_edit_keeps_the_last_good(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "channels.yml"
    path.write_text("channels:\n  C1:\n    answer: false\n")
    clock = Clock()
    channels = ChannelsFile(path, clock)
    assert channels.of("C1").answer is False
    path.write_text("channels:\n  C1:\n    answer: true\n")
    os.utime(path, (1, 1))  # a different modification time
    assert channels.of("C1").answer is False  # not looked at within RELOAD_EVERY
    clock.now += 6
    assert channels.of("C1").answer is True
    path.write_text("channels:\n  C1:\n    answer: perhaps\n")
    os.utime(path, (2, 2))
    clock.now += 6
    assert channels.of("C1").answer is True  # the last good settings stay
    assert "channel settings not reloaded (line 3: channels.C1.answer" in caplog.text


@pytest.fixture
def channels_file(tmp_path: Path) -> Path:
    path = tmp_path / "channels.yml"
    path.write_text(FILE)
    return path


async def test_a_silent_channel_gets_no_answer_and_no_model_call(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, channels_file: Path
) -> None:
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings(channels_file=channels_file))
    assert await dispatch(app, mention("deploys?", "700.000001", channel="C0SILENT")) == 200
    await dispatch(app, mention("deploys?", "700.000002", channel="C0OTHER"))
    await replied(fake_slack)
    await settle(fake_slack)
    assert [p["channel"] for p in fake_slack.of("chat.postMessage")] == ["C0OTHER"]
    assert len(fake_anthropic.requests) == 1


async def test_a_channels_instructions_dialect_judge_and_group_are_used(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, channels_file: Path
) -> None:
    fake_anthropic.push(Reply(GOOD))
    app = make_app(make_settings(channels_file=channels_file, escalation_group="S0GLOBAL"))
    await dispatch(app, mention("how do I ship?", "701.000001", channel="C0PLATFORM"))
    await replied(fake_slack, "chat.stopStream")  # markdown: streamed
    [request] = fake_anthropic.requests
    system = request["system"][0]["text"]
    assert system.endswith('We deploy with Argo CD. Say "rollout", not "release".')
    assert "The team's instructions for this channel" in system
    assert fake_anthropic.judge_requests == []  # judge: false here
    fake_anthropic.push(*[Reply("```\nunclosed")] * 3)  # the failure message, with a person
    await dispatch(app, mention("and rollback?", "701.000002", channel="C0PLATFORM"))
    await replied(fake_slack, "chat.stopStream", count=2)
    button = fake_slack.of("chat.stopStream")[-1]["blocks"][-1]["elements"][-1]
    assert button["action_id"] == "vouch_escalate"
    fake_anthropic.push(Reply(GOOD))
    await dispatch(app, message("and on Fridays?", "702.000002", thread_ts="702.000001"))
    await settle(fake_slack)
    assert len(fake_anthropic.requests) == 4  # follow_ups: false by default: not answered


def test_a_bad_file_stops_the_bot_at_start_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "channels.yml"
    path.write_text("channels:\n  C1:\n    judge: sometimes\n")
    started = subprocess.run(
        [sys.executable, "-m", "app"],
        cwd=tmp_path,
        env=process_env(
            SLACK_BOT_TOKEN="xoxb-test",
            SLACK_SIGNING_SECRET="secret",
            ANTHROPIC_API_KEY="test-key",
            CHANNELS_FILE=str(path),
        ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert started.returncode == 2
    assert "Cannot start Vouch: CHANNELS_FILE line 3: channels.C1.judge" in started.stderr
    assert "Traceback" not in started.stderr


async def test_the_app_home_shows_each_channels_settings_to_admins(
    make_settings: Any, fake_slack: FakeSlack, channels_file: Path
) -> None:
    app = make_app(make_settings(channels_file=channels_file, admin_users="U0ADMIN"))
    home = app.home
    assert home is not None
    view = await home.view("U0ADMIN")
    text = "\n".join(str(b.get("text", {}).get("text", "")) for b in view["blocks"])
    assert "*<#C0SILENT>*\nAnswers here: *no (silent)*" in text
    assert "Quality judge: *off*" in text and "Answer format: *Markdown*" in text
    assert "Standing instructions: *" in text and "Argo CD" not in text  # counted, not shown
    assert "*DMs*" in text and "*Unlisted channels*" in text


async def test_a_channel_searches_its_own_team_docs(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    docs: Path,
    tmp_path: Path,
) -> None:
    """#billing has the team's docs (its own index beside KNOWLEDGE_INDEX); other channels,
    with no KNOWLEDGE_DIR, have none: no search results, no search tool."""
    path = tmp_path / "channels.yml"
    path.write_text(f"channels:\n  C0BILLING:\n    knowledge: {docs}\n")
    fake_anthropic.responder = lambda r: (
        citing(rollback_id(r)) if search_results(r) else Reply(GOOD)
    )
    index = tmp_path / "data" / "knowledge.sqlite3"
    app = make_app(make_settings(channels_file=path, knowledge_index=index))
    question = "How do I roll back a billing deploy?"
    await dispatch(app, mention(question, "703.000001", channel="C0BILLING"))
    await replied(fake_slack)
    await dispatch(app, mention(question, "703.000002", channel="C0OTHER"))
    await replied(fake_slack, count=2)
    billing, other = fake_anthropic.requests
    assert any(r["title"].endswith("Rollback") for r in search_results(billing))
    assert [t["name"] for t in billing["tools"]] == ["search_docs"]
    assert search_results(other) == [] and "tools" not in other
    assert [p.name for p in index.parent.glob("knowledge-*.sqlite3")]  # its own index
    assert app.libraries is not None
    app.libraries.close()
