"""Black-box: the judge as a user meets it, with no settings changed: a follow-up is judged
with its thread, and a short off-topic draft never reaches Slack."""

from __future__ import annotations

from typing import Any

from tests.fakes.anthropic import FakeAnthropic, Reply, judge_input, judgement
from tests.fakes.server import wait_healthy
from tests.fakes.slack import FakeSlack
from tests.slack.bolt import SIGNING_SECRET, dispatch, make_app, mention, post_event, replied, until

ROOT = "600.000001"
EARLIER = "How do I deploy billing to production?"
VOUCH = "Merge to `main`, then approve the *production* job in the pipeline."
OFF_TOPIC = "Redis listens on 6379 by default (kumquat-canary-4411)."
GOOD = "Same pipeline: the *staging* job runs on every merge to `main`, no approval needed."


async def test_a_follow_up_is_judged_with_its_thread_and_off_topic_drafts_stay_unseen(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_slack.threads[("C0001", ROOT)] = [
        {"ts": ROOT, "user": "U0002", "text": EARLIER},
        {"ts": "600.000002", "user": "UVOUCH", "bot_id": "BVOUCH", "text": VOUCH},
    ]
    fake_anthropic.push(Reply(OFF_TOPIC), Reply(GOOD))
    fake_anthropic.judge(judgement(False, 5, "OFF_TOPIC", message="About Redis, not staging."))
    app = make_app(make_settings())  # no settings changed: the judge is on
    await dispatch(app, mention("and for staging?", "600.000003", thread_ts=ROOT))
    await replied(fake_slack)
    assert "kumquat-canary-4411" not in fake_slack.text_sent()
    [posted] = fake_slack.of("chat.postMessage")
    assert posted["text"] == GOOD
    first, second = fake_anthropic.judge_requests
    assert [turn["text"] for turn in judge_input(first).thread] == [EARLIER, VOUCH]
    assert judge_input(second).answer == GOOD


async def test_the_bot_process_judges_drafts_with_no_settings_changed(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.push(Reply(GOOD))
    _, port = bot()
    await wait_healthy(f"http://127.0.0.1:{port}")
    assert (
        await post_event(port, mention("how do I deploy to staging?", "601.000001"), SIGNING_SECRET)
        == 200
    )
    await until(lambda: bool(fake_slack.of("chat.postMessage")), timeout=30)
    assert fake_slack.of("chat.postMessage")[0]["text"] == GOOD
    [judged] = fake_anthropic.judge_requests
    assert judge_input(judged).answer == GOOD
