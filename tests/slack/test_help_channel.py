"""Help channels (`help_channel: true` in CHANNELS_FILE), through Bolt, the real clients and
the fakes: a person's new top-level message is triaged (the first pass by form, then
whether people answer it already, then the model), and a question taken gets only a
verified answer in its thread. Anything else is silence: no failure message, no busy reply,
no budget reply, no status line; only telemetry, which says what was decided and why, and
keeps what was left alone out of the rates."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from app.channels import ChannelsFile, parse
from app.slack.answer import MAX_TRIES
from app.work.store import Job
from tests.conftest import Bot
from tests.fakes.anthropic import Fail, FakeAnthropic, Reply, decided
from tests.fakes.langfuse import FakeLangfuse
from tests.fakes.server import patience
from tests.fakes.slack import BOT_USER, TEAM, FakeSlack
from tests.slack.bolt import dispatch, make_app, mention, message, settle, until

GOOD = "Run `make vpn-reset`, then reconnect: the profile is rebuilt in about a minute."
UNCLOSED = "Reset it:\n```\nmake vpn-reset"
QUESTION = "anyone know why the VPN drops every few minutes on Ubuntu 24?"
HELP = "C0HELP"
FILE = f"""channels:
  {HELP}:
    help_channel: true
  C0TIGHT:
    help_channel: true
    budget:
      channel_messages: 1
"""


@pytest.fixture
def channels_file(tmp_path: Path) -> Path:
    path = tmp_path / "channels.yml"
    path.write_text(FILE)
    return path


def posted(slack: FakeSlack) -> list[dict[str, Any]]:
    """Every call that shows people something: posts, streams, status lines, ephemerals."""
    shows = ("chat.", "assistant.threads.setStatus")
    return [{"method": c.method, **c.params} for c in slack.calls if c.method.startswith(shows)]


async def test_a_question_gets_a_verified_answer_in_its_thread(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, channels_file: Path
) -> None:
    fake_anthropic.push(Reply(GOOD))
    app = make_app(make_settings(channels_file=channels_file))
    assert await dispatch(app, message(QUESTION, "800.000001", channel=HELP)) == 200
    await until(lambda: bool(fake_slack.of("chat.postMessage")))
    await settle(fake_slack)
    [answer] = fake_slack.of("chat.postMessage")
    assert answer["channel"] == HELP and answer["thread_ts"] == "800.000001"
    assert GOOD in answer["text"]
    [triage] = fake_anthropic.triage_requests
    assert triage["model"] == "claude-haiku-5-5"  # JUDGE_MODEL decides
    assert json.loads(triage["messages"][0]["content"]) == {"message": QUESTION, "files_shared": 0}
    assert len(fake_anthropic.requests) == 1 and len(fake_anthropic.judge_requests) == 1
    assert fake_slack.of("assistant.threads.setStatus") == []  # no status line: unasked


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("We moved the VPN to WireGuard this morning.", "statement"),
        ("why is it always DNS?", "rhetorical"),
    ],
)
async def test_what_the_model_leaves_gets_nothing_and_no_draft(
    make_settings: Any,
    *,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    channels_file: Path,
    text: str,
    category: str,
) -> None:
    fake_anthropic.triage(decided(category))
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings(channels_file=channels_file))
    await dispatch(app, message(text, "801.000001", channel=HELP))
    await until(lambda: bool(fake_anthropic.triage_requests))
    await settle(fake_slack)
    assert posted(fake_slack) == []
    assert fake_anthropic.requests == [] and fake_anthropic.judge_requests == []


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("thanks all, that fixed it!", "thanks"),
        ("<@U0ANA> can you look at the VPN config today?", "to_person"),
        ("<!here> VPN maintenance at 18:00, expect a short drop", "announcement"),
        ("<https://status.example.com/incidents/42>", "empty"),  # as Slack sends a link
        (":tada:", "thanks"),
    ],
)
async def test_the_first_pass_leaves_without_asking_the_model(
    make_settings: Any,
    *,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    channels_file: Path,
    caplog: pytest.LogCaptureFixture,
    text: str,
    category: str,
) -> None:
    caplog.set_level(logging.INFO, logger="vouch.slack")
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings(channels_file=channels_file))
    await dispatch(app, message(text, "802.000001", channel=HELP))
    await until(lambda: "left alone" in caplog.text)
    await settle(fake_slack)
    assert f"help channel: message left alone ({category}, by rules)" in caplog.text
    assert posted(fake_slack) == []
    assert fake_anthropic.triage_requests == [] and fake_anthropic.requests == []


async def test_a_thread_people_are_answering_is_left_to_them(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    channels_file: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="vouch.slack")
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings(channels_file=channels_file))
    reply = message("try toggling IPv6", "803.000002", channel=HELP, user="U0ANA")
    await dispatch(app, {**reply, "thread_ts": "803.000001"})  # its event came first
    await dispatch(app, message(QUESTION, "803.000001", channel=HELP))
    await until(lambda: "left alone" in caplog.text)
    await settle(fake_slack)
    assert "help channel: message left alone (answered, by thread)" in caplog.text
    assert posted(fake_slack) == []
    assert fake_anthropic.triage_requests == [] and fake_anthropic.requests == []


@pytest.mark.parametrize(
    ("draft", "why"),
    [
        (Reply(UNCLOSED), "every draft fails verification"),
        (Fail(529, "overloaded_error"), "the model is overloaded: no busy reply"),
    ],
)
async def test_a_question_with_no_verified_answer_gets_nothing_at_all(
    make_settings: Any,
    *,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    channels_file: Path,
    draft: Reply | Fail,
    why: str,
) -> None:
    fake_anthropic.default = draft
    app = make_app(make_settings(channels_file=channels_file, anthropic_max_retries=0))
    await dispatch(app, message(QUESTION, "804.000001", channel=HELP))
    await until(lambda: bool(fake_anthropic.requests))
    await settle(fake_slack)
    assert posted(fake_slack) == [], why
    assert fake_anthropic.requests  # it tried


async def test_no_triage_decision_means_silence(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, channels_file: Path
) -> None:
    fake_anthropic.triage_default = Fail(500, "api_error")
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings(channels_file=channels_file, anthropic_max_retries=0))
    await dispatch(app, message(QUESTION, "805.000001", channel=HELP))
    await until(lambda: bool(fake_anthropic.triage_requests))
    await settle(fake_slack)
    assert posted(fake_slack) == [] and fake_anthropic.requests == []


async def test_past_a_budget_a_help_channel_question_gets_no_budget_reply(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, channels_file: Path
) -> None:
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings(channels_file=channels_file))
    await dispatch(app, message(QUESTION, "806.000001", channel="C0TIGHT"))
    await until(lambda: bool(fake_slack.of("chat.postMessage")))
    await dispatch(app, message("and on Fedora, what should I do?", "806.000002", "C0TIGHT"))
    await until(lambda: len(fake_anthropic.triage_requests) == 2)
    await settle(fake_slack)
    assert [p["thread_ts"] for p in fake_slack.of("chat.postMessage")] == ["806.000001"]
    assert len(fake_anthropic.requests) == 1


async def test_what_a_help_channel_does_not_take(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, channels_file: Path
) -> None:
    """A reply by someone other than the thread's asker, bots, Slackbot, Vouch itself,
    edits and other channels are never triaged; a mention is answered once, as anywhere
    (its message event, which arrives too, first here, is not taken as well)."""
    fake_anthropic.default = Reply(GOOD)
    fake_anthropic.triage_default = decided("statement")  # anything triaged is left
    app = make_app(make_settings(channels_file=channels_file))
    await dispatch(app, message("VPN is flaky today", "807.000001", HELP, user="U0ANA"))
    await until(lambda: len(fake_anthropic.triage_requests) == 1)  # the root, left
    more = message("still flaky after a reboot, ideas?", "807.100001", HELP, user="U0ANA")
    await dispatch(app, {**more, "thread_ts": "807.000001"})  # not Vouch's thread: nothing
    await dispatch(app, message(QUESTION, "807.000002", HELP, thread_ts="807.000001"))
    await dispatch(app, message(QUESTION, "807.000003", HELP, bot_id="B0OTHER"))
    await dispatch(app, message(QUESTION, "807.000004", HELP, user=BOT_USER))
    await dispatch(app, message(QUESTION, "807.000009", HELP, user="USLACKBOT"))
    await dispatch(app, message(QUESTION, "807.000005", "C0OTHER"))
    edited = {"subtype": "message_changed", "message": {"text": QUESTION, "ts": "807.000006"}}
    await dispatch(app, message(QUESTION, "807.000007", HELP, **edited))
    await settle(fake_slack)
    assert posted(fake_slack) == [] and len(fake_anthropic.triage_requests) == 1
    asked = f"<@{BOT_USER}> {QUESTION}"
    await dispatch(app, message(asked, "807.000008", HELP))
    await dispatch(app, mention(QUESTION, "807.000008", HELP))
    await until(lambda: bool(fake_slack.of("chat.postMessage")))
    await settle(fake_slack)
    assert [p["thread_ts"] for p in fake_slack.of("chat.postMessage")] == ["807.000008"]
    assert len(fake_anthropic.triage_requests) == 1  # asked: no triage


async def test_in_a_thread_vouch_joined_unasked_only_the_asker_follows_up_and_unasked(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, channels_file: Path
) -> None:
    """After an unasked answer, people talking to each other in its thread are not asking
    Vouch; the asker's own follow-up is triaged, and gets a verified answer or nothing."""
    fake_anthropic.push(Reply(GOOD), *[Reply(UNCLOSED)] * 3, Reply(GOOD))
    app = make_app(make_settings(channels_file=channels_file, follow_ups=True))
    await dispatch(app, message(QUESTION, "810.000001", HELP))
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 1)
    other = message("<@U0001> did the reset work for you?", "810.100002", HELP, user="U0ANA")
    await dispatch(app, {**other, "thread_ts": "810.000001"})
    failing = message("and on Fedora, which package?", "810.100003", HELP)
    await dispatch(app, {**failing, "thread_ts": "810.000001"})
    await until(lambda: len(fake_anthropic.requests) == 4)
    await settle(fake_slack)
    assert len(fake_slack.of("chat.postMessage")) == 1  # no failure message, no status
    assert fake_slack.of("assistant.threads.setStatus") == []
    again = message("does the reset keep my saved networks?", "810.100004", HELP)
    await dispatch(app, {**again, "thread_ts": "810.000001"})
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 2)
    await settle(fake_slack)
    assert len(fake_anthropic.triage_requests) == 3  # the question and the asker's two


async def test_a_thread_vouch_was_asked_into_takes_follow_ups_as_anywhere(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, channels_file: Path
) -> None:
    """Mentioned in a help channel, Vouch follows up in that thread as in any channel:
    anyone's follow-up, no triage, the failure message when no draft verifies."""
    fake_anthropic.push(Reply(GOOD), *[Reply(UNCLOSED)] * 3)
    app = make_app(make_settings(channels_file=channels_file, follow_ups=True))
    await dispatch(app, mention(QUESTION, "812.000001", HELP, user="U0ANA"))
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 1)
    other = message("and on Fedora, which package?", "812.100002", HELP)
    await dispatch(app, {**other, "thread_ts": "812.000001"})
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 2)
    await settle(fake_slack)
    assert "couldn't verify" in fake_slack.of("chat.postMessage")[1]["text"]
    assert fake_anthropic.triage_requests == []


async def test_people_answering_while_vouch_drafts_get_the_thread_to_themselves(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, channels_file: Path
) -> None:
    fake_anthropic.push(Reply(GOOD, delay=patience(1.0)))  # time for the reply to land
    app = make_app(make_settings(channels_file=channels_file))
    await dispatch(app, message(QUESTION, "811.000001", HELP))
    await until(lambda: bool(fake_anthropic.requests))
    reply = message("try toggling IPv6", "811.000002", HELP, user="U0ANA")
    await dispatch(app, {**reply, "thread_ts": "811.000001"})
    await settle(fake_slack)
    assert posted(fake_slack) == []


async def test_telemetry_says_what_was_decided_and_why_without_content(
    telemetry_bot: Bot,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
    channels_file: Path,
) -> None:
    fake_anthropic.push(Reply(GOOD))
    fake_anthropic.triage(decided("question"), decided("joke"))
    app, telemetry = telemetry_bot(channels_file=channels_file)
    await dispatch(app, message(QUESTION, "808.000001", channel=HELP))
    await until(lambda: bool(fake_slack.of("chat.postMessage")))
    await dispatch(app, message("my code compiles, so it's Friday", "808.000002", HELP))
    await dispatch(app, message("thanks!", "808.000003", channel=HELP))
    await until(lambda: len(fake_anthropic.triage_requests) == 2)
    await settle(fake_slack)
    assert await telemetry.flush()

    trace = {n: telemetry.trace_id(f"{TEAM}:{HELP}:808.00000{n}") for n in (1, 2, 3)}
    scores: dict[str, dict[str, Any]] = {}
    for score in fake_langfuse.scores:
        scores.setdefault(score["traceId"], {})[score["name"]] = score["value"]
    assert scores[trace[1]]["triage"] == "question" and scores[trace[1]]["verified"] == 1
    assert scores[trace[2]] == {"triage": "joke"}  # left alone: no outcome, not in the rates
    assert scores[trace[3]] == {"triage": "thanks"}
    triages = {span.trace_id: span for span in fake_langfuse.named("triage")}
    assert triages[trace[1]].type == "generation" and triages[trace[1]].usage["output"] > 0
    assert triages[trace[1]].metadata["decided_by"] == "model"
    assert triages[trace[3]].type == "span"
    assert triages[trace[3]].metadata["category"] == "thanks"
    assert triages[trace[3]].metadata["decided_by"] == "rules"
    roots = {span.trace_id: span for span in fake_langfuse.named("vouch.answer")}
    assert {roots[t].metadata["kind"] for t in trace.values()} == {"help"}
    sent = json.dumps([s.attributes for s in fake_langfuse.spans]) + json.dumps(
        fake_langfuse.scores
    )
    for words in ("VPN", "Friday", "thanks!", "make vpn-reset"):
        assert words not in sent


def test_the_setting_is_off_by_default_and_shown_on_the_home_tab(channels_file: Path) -> None:
    channels = parse(FILE)
    assert channels.of(HELP).help_channel and not channels.of("C0OTHER").help_channel
    rows = dict(ChannelsFile(channels_file).rows())
    shown = ("Questions without a mention", "answered when verified, else silence")
    assert shown in rows[f"<#{HELP}>"] and shown not in rows["Unlisted channels"]


async def test_a_question_whose_workers_keep_dying_gets_no_failure_message(
    telemetry_bot: Bot,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
    channels_file: Path,
) -> None:
    """Taken more than MAX_TRIES times, a mention gets the failure message; an unasked
    message gets nothing (and the model is not asked): left alone, out of the rates."""
    app, telemetry = telemetry_bot(channels_file=channels_file)
    event = {**message(QUESTION, "809.000001", channel=HELP), "team": TEAM, "unasked": True}
    await app.workers._answer(Job(f"{TEAM}:{HELP}:809.000001", event, MAX_TRIES + 1))
    assert posted(fake_slack) == [] and fake_anthropic.triage_requests == []
    asked = {**event, "unasked": False, "ts": "809.000002"}
    await app.workers._answer(Job(f"{TEAM}:{HELP}:809.000002", asked, MAX_TRIES + 1))
    [failure] = fake_slack.of("chat.postMessage")  # a control: the mention's
    assert failure["thread_ts"] == "809.000002"
    assert await telemetry.flush()
    unasked = telemetry.trace_id(f"{TEAM}:{HELP}:809.000001")
    scores = {s["name"]: s["value"] for s in fake_langfuse.scores if s["traceId"] == unasked}
    assert scores == {"triage": "unavailable"}  # no outcome: not a failed answer


async def test_triage_spends_the_channels_tokens(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, tmp_path: Path
) -> None:
    """A channel whose token budget the triage of a statement used up: its next question
    is past the budget, so no draft and (unasked) no reply."""
    channels = tmp_path / "channels.yml"
    channels.write_text(
        f"channels:\n  {HELP}:\n    help_channel: true\n    budget:\n      channel_tokens: 100\n"
    )
    fake_anthropic.triage(decided("statement"), decided("question"))
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings(channels_file=channels))
    await dispatch(app, message("We moved the VPN to WireGuard today.", "813.000001", HELP))
    await until(lambda: len(fake_anthropic.triage_requests) == 1)
    await settle(fake_slack)
    await dispatch(app, message(QUESTION, "813.000002", HELP))
    await until(lambda: len(fake_anthropic.triage_requests) == 2)
    await settle(fake_slack)
    assert fake_anthropic.requests == [] and posted(fake_slack) == []
