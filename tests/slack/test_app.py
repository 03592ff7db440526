"""End to end: event → real Bolt app → fake Anthropic → verification → fake Slack."""

from __future__ import annotations

from typing import Any

from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.slack import BOT_ID, BOT_USER, FakeSlack, Fault
from tests.slack.bolt import dispatch, make_app, mention, message, replied, settle, until

GOOD = "Merge to `main`: the pipeline deploys billing to staging in about 8 minutes."
CANARY = "zebra-canary-7731"
UNCLOSED = f"Deploy billing ({CANARY}):\n```\nmake deploy"


def replies_in(slack: FakeSlack, thread: str) -> list[dict[str, Any]]:
    return [p for p in slack.of("chat.postMessage") if p.get("thread_ts") == thread]


async def test_mention_gets_one_verified_reply_in_its_thread(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.push(Reply(GOOD))
    app = make_app(make_settings())
    assert await dispatch(app, mention("how do I deploy billing?", "100.000001")) == 200
    await replied(fake_slack)
    [posted] = replies_in(fake_slack, "100.000001")
    assert posted["text"] == GOOD and posted["channel"] == "C0001"
    assert len(fake_anthropic.requests) == 1
    assert fake_anthropic.requests[0]["messages"][-1]["content"][-1]["text"] == (
        "how do I deploy billing?"
    )
    statuses = [p["status"] for p in fake_slack.of("assistant.threads.setStatus")]
    assert statuses[:1] == ["is thinking…"]


async def test_failed_attempts_never_reach_slack_and_status_follows_attempts(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.push(Reply(UNCLOSED), Reply(GOOD))
    app = make_app(make_settings())
    await dispatch(app, mention("how do I deploy billing?", "101.000001"))
    await replied(fake_slack)
    assert CANARY not in fake_slack.text_sent()
    assert [p["text"] for p in replies_in(fake_slack, "101.000001")] == [GOOD]
    statuses = [p["status"] for p in fake_slack.of("assistant.threads.setStatus")]
    stages = [
        "is thinking…",
        "is revising, attempt 2 of 3…",
        "is checking the answer…",  # the judge (on by default) reads the draft that passed
    ]
    # in order; the status has a task of its own and sends the newest, so a stage that is
    # over before its status went out is skipped (never shown late, never out of order)
    assert statuses[0] == "is thinking…"
    assert statuses == [stage for stage in stages if stage in statuses]


async def test_all_attempts_failing_posts_only_the_failure_message(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(UNCLOSED)
    app = make_app(make_settings())
    await dispatch(app, mention("how do I deploy billing?", "102.000001"))
    await replied(fake_slack)
    [posted] = replies_in(fake_slack, "102.000001")
    assert "couldn't verify an answer" in posted["text"]
    assert CANARY not in fake_slack.text_sent()
    assert len(fake_anthropic.requests) == 3


async def test_duplicates_and_retries_are_answered_once(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    ts = "103.000001"
    await dispatch(app, mention("deploy?", ts))
    await dispatch(app, mention("deploy?", ts), retry=1)
    await dispatch(app, message(f"<@{BOT_USER}> deploy?", ts))
    await dispatch(app, mention("deploy?", ts), retry=2)
    await replied(fake_slack)
    assert len(replies_in(fake_slack, ts)) == 1
    assert len(fake_anthropic.requests) == 1


async def test_bots_edits_and_system_messages_are_ignored_without_a_model_call(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    dm = {"channel": "D0001", "channel_type": "im"}
    await dispatch(app, message("from a bot", "104.1", bot_id="B0THER", **dm))
    await dispatch(app, message("from a bot", "104.2", subtype="bot_message", **dm))
    await dispatch(app, message("edited", "104.3", subtype="message_changed", **dm))
    await dispatch(app, message("gone", "104.4", subtype="message_deleted", **dm))
    await dispatch(app, message("joined", "104.5", subtype="channel_join"))
    await dispatch(app, message("my own", "104.6", user=BOT_USER, bot_id=BOT_ID, **dm))
    await settle(fake_slack)
    assert fake_anthropic.requests == []
    assert fake_slack.of("chat.postMessage") == []


async def test_empty_mention_asks_what_to_answer(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    app = make_app(make_settings())
    await dispatch(app, mention("", "105.000001"))
    await until(lambda: bool(fake_slack.of("chat.postMessage")))
    [posted] = fake_slack.of("chat.postMessage")
    assert posted["text"].startswith("What would you like to know?")
    assert fake_anthropic.requests == []


async def test_direct_message_is_answered_in_its_thread(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.push(Reply(GOOD))
    app = make_app(make_settings())
    await dispatch(app, message("how do I deploy?", "106.000001", "D0001", channel_type="im"))
    await until(lambda: bool(fake_slack.of("chat.postMessage")))
    [posted] = fake_slack.of("chat.postMessage")
    assert (posted["channel"], posted["thread_ts"], posted["text"]) == (
        "D0001",
        "106.000001",
        GOOD,
    )


async def test_follow_ups_are_answered_only_in_threads_vouch_is_part_of(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_anthropic.default = Reply(GOOD)
    app = make_app(make_settings())
    root = "107.000001"
    fake_slack.threads[("C0001", root)] = [
        {"ts": root, "user": "U0001", "text": f"<@{BOT_USER}> how do I deploy?"}
    ]
    await dispatch(app, mention("how do I deploy?", root))
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 1)
    follow = {"ts": "107.000009", "user": "U0001", "text": "and rollback?", "thread_ts": root}
    fake_slack.threads[("C0001", root)].append(follow)
    await dispatch(app, message("and rollback?", "107.000009", thread_ts=root))
    await until(lambda: len(fake_slack.of("chat.postMessage")) == 2)
    second = fake_anthropic.requests[1]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert second[1]["content"][0]["text"] == GOOD

    before = len(fake_slack.calls)
    await dispatch(app, message("", "107.000010", thread_ts=root, subtype="file_share"))
    await settle(fake_slack)
    assert len(fake_slack.calls) == before  # a file with no text asks nothing

    other = "108.000001"
    fake_slack.threads[("C0001", other)] = [{"ts": other, "user": "U0002", "text": "lunch?"}]
    await dispatch(app, message("pizza", "108.000002", thread_ts=other))
    await settle(fake_slack)
    assert len(fake_anthropic.requests) == 2


async def test_follow_ups_can_be_turned_off(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    app = make_app(make_settings(follow_ups=False))
    root = "109.000001"
    fake_slack.threads[("C0001", root)] = [{"ts": root, "user": BOT_USER, "bot_id": BOT_ID}]
    await dispatch(app, message("and rollback?", "109.000002", thread_ts=root))
    await settle(fake_slack)
    assert fake_slack.of("conversations.replies") == []  # not even a look at the thread
    assert fake_slack.of("chat.postMessage") == []
    assert fake_anthropic.requests == []


DROPPED = [Fault(drop=True)] * 10  # more than the client's retries: the call fails


async def test_failure_after_delivery_started_posts_no_second_reply(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    answer = "\n\n".join(["The pipeline builds, tests and deploys billing. " * 5] * 3)
    fake_anthropic.push(Reply(answer))
    fake_slack.fail("chat.update", *DROPPED)  # the reveal's second step never arrives
    app = make_app(make_settings())
    await dispatch(app, mention("how does the billing pipeline work?", "110.000001"))
    await until(lambda: len(fake_slack.of("chat.update")) >= 3)
    await settle(fake_slack, quiet=1.0)
    assert len(fake_slack.of("chat.postMessage")) == 1
    assert "couldn't verify" not in fake_slack.text_sent()


async def test_unreadable_history_of_a_follow_up_posts_nothing(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_slack.fail("conversations.replies", *DROPPED)
    app = make_app(make_settings())
    await dispatch(app, message("pizza?", "111.000002", thread_ts="111.000001"))
    await until(lambda: len(fake_slack.of("conversations.replies")) >= 3)
    await settle(fake_slack, quiet=1.0)
    await settle(fake_slack)
    assert fake_slack.of("chat.postMessage") == []  # maybe not Vouch's thread at all
    assert fake_anthropic.requests == []


async def test_unreadable_history_of_a_mention_gets_the_failure_message(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_slack.fail("conversations.replies", *DROPPED)
    app = make_app(make_settings())
    await dispatch(app, mention("and rollback?", "112.000002", thread_ts="112.000001"))
    await replied(fake_slack)
    [posted] = fake_slack.of("chat.postMessage")
    assert "couldn't verify" in posted["text"] and posted["thread_ts"] == "112.000001"


async def test_a_mention_in_a_group_dm_thread_is_answered_with_its_history(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """Group DMs (mpim) need mpim:history to read their threads; the fake refuses
    conversations.replies without it, as Slack does (missing_scope)."""
    fake_slack.kinds["G0MPIM1"] = "mpim"
    root = "150.000001"
    fake_slack.threads[("G0MPIM1", root)] = [{"ts": root, "user": "U0002", "text": "deploys?"}]
    fake_anthropic.push(Reply(GOOD))
    app = make_app(make_settings())
    event = mention("how do I deploy billing?", "150.000002", channel="G0MPIM1", thread_ts=root)
    await dispatch(app, {**event, "channel_type": "mpim"})
    await replied(fake_slack)
    [posted] = [p for p in fake_slack.of("chat.postMessage") if p.get("thread_ts") == root]
    assert posted["text"] == GOOD
    assert fake_anthropic.requests[0]["messages"][0]["content"][0]["text"].startswith("deploys?")


async def test_follow_ups_in_a_group_dm_are_answered_like_in_channels(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_slack.kinds["G0MPIM2"] = "mpim"
    root = "151.000001"
    fake_slack.threads[("G0MPIM2", root)] = [
        {"ts": root, "user": "U0002", "text": "how do I deploy?"},
        {"ts": "151.000002", "user": BOT_USER, "bot_id": BOT_ID, "text": GOOD},
    ]
    fake_anthropic.push(Reply(GOOD))
    app = make_app(make_settings())
    follow_up = message("and staging?", "151.000003", "G0MPIM2", thread_ts=root)
    await dispatch(app, {**follow_up, "channel_type": "mpim"})
    await replied(fake_slack)
    assert [p["text"] for p in fake_slack.of("chat.postMessage")] == [GOOD]
