"""Budgets through Bolt and the fakes: past a budget a person gets one short reply saying
when it resets, the model is not called, and the message is scored `over_budget`; a
channel's own budget in CHANNELS_FILE; admins see budgets and use on the Home tab; bad
values stop start-up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.settings import SettingsError, load_settings
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.langfuse import FakeLangfuse
from tests.fakes.slack import FakeSlack
from tests.slack.bolt import dispatch, make_app, mention, replied
from tests.slack.test_home import home_of

GOOD = "Merge to `main`: the pipeline deploys billing to staging in about 8 minutes."


def texts(slack: FakeSlack) -> list[str]:
    return [str(p["text"]) for p in slack.of("chat.postMessage")]


async def test_past_a_persons_budget_one_reply_and_no_model_call(
    telemetry_bot: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
) -> None:
    fake_anthropic.default = Reply(GOOD)
    app, telemetry = telemetry_bot(budget_user_messages=2)
    for n in range(1, 4):
        await dispatch(app, mention("how do I deploy billing?", f"70{n}.000001"))
        await replied(fake_slack, count=n)
    first, second, third = texts(fake_slack)
    assert first.startswith(GOOD) and second.startswith(GOOD)
    assert third.startswith(
        ":hourglass: You have reached your limit of 2 questions to Vouch a day."
    )
    assert "<!date^" in third
    assert len(fake_anthropic.requests) == 2
    await dispatch(app, mention("how do I deploy billing?", "704.000001", user="U0002"))
    await replied(fake_slack, count=4)
    assert texts(fake_slack)[3].startswith(GOOD)  # someone else: their own budget
    assert await telemetry.flush()
    assert [s["value"] for s in fake_langfuse.scores_named("budget")] == ["user_messages"]
    outcomes = sorted(s["value"] for s in fake_langfuse.scores_named("outcome"))
    assert outcomes == ["over_budget", "verified", "verified", "verified"]
    assert len(fake_langfuse.scores_named("verified")) == 3  # not a verification result


async def test_a_channels_own_budget_in_channels_file(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack, tmp_path: Path
) -> None:
    fake_anthropic.default = Reply(GOOD)
    channels = tmp_path / "channels.yml"
    channels.write_text("channels:\n  C0TIGHT:\n    budget:\n      channel_messages: 1\n")
    app = make_app(make_settings(channels_file=channels, budget_channel_messages=100))
    for n, channel in enumerate(["C0TIGHT", "C0TIGHT", "C0001"], 1):
        await dispatch(app, mention("deploys?", f"71{n}.000001", channel, user=f"U000{n}"))
        await replied(fake_slack, count=n)
    answered, refused, elsewhere = texts(fake_slack)
    assert answered.startswith(GOOD) and elsewhere.startswith(GOOD)
    assert refused.startswith(
        ":hourglass: This channel has reached its limit of 1 question to Vouch a day"
    )


async def test_tokens_spent_count_toward_the_next_message(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings(budget_user_tokens=10))  # one answer uses more
    for n in (1, 2):
        await dispatch(app, mention("deploys?", f"72{n}.000001"))
        await replied(fake_slack, count=n)
    assert "share of Vouch's model use (10 tokens a day)" in texts(fake_slack)[1]
    assert len(fake_anthropic.requests) == 1


async def test_admins_see_budgets_and_this_periods_use(
    make_settings: Any,
    fake_anthropic: FakeAnthropic,
    fake_slack: FakeSlack,
    fake_langfuse: FakeLangfuse,
) -> None:
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings(admin_users="U0ADMIN", budget_user_messages=5))
    await dispatch(app, mention("deploys?", "730.000001"))
    await replied(fake_slack)
    text = await home_of(app, fake_slack, "U0ADMIN")
    assert "Questions per person: *5 a day*" in text
    assert "• <#C0001>: 1 questions" in text and "• <@U0001>: 1 questions" in text
    assert "Budgets" not in await home_of(app, fake_slack, "U0001", count=2)


@pytest.mark.parametrize(
    ("name", "value"),
    [("BUDGET_USER_MESSAGES", "-1"), ("BUDGET_PERIOD", "month"), ("BUDGET_CHANNEL_TOKENS", "x")],
)
def test_a_bad_budget_stops_start_up_naming_it(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match=name):
        load_settings(_env_file=None)


async def test_past_a_budget_nothing_is_read_for_the_message(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """The budget is checked before names are looked up and files downloaded."""
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings(budget_user_messages=1))
    await dispatch(app, mention("deploys?", "740.000001"))
    await replied(fake_slack)
    shared = fake_slack.add_file("notes.txt", b"deploy notes", "text/plain", channels=("C0001",))
    calls = len(fake_slack.calls)
    await dispatch(app, mention("and these notes?", "740.000002", files=[shared]))
    await replied(fake_slack, count=2)
    assert fake_slack.downloads == []
    assert {c.method for c in fake_slack.calls[calls:]} == {"chat.postMessage"}
