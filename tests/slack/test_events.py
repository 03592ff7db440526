"""What an Events API body is: parsed within a depth, sorted, and never answered for a bot."""

from __future__ import annotations

from typing import Any

import pytest

from app.slack.events import MAX_DEPTH, Dropped, Malformed, Taken, parse, person, sort, too_deep
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.slack import BOT_USER, FakeSlack
from tests.slack import payloads
from tests.slack.bolt import dispatch, envelope, make_app, mention, message, replied


def test_nesting_is_bounded_before_the_body_is_decoded() -> None:
    assert not too_deep(b'{"a": [' * (MAX_DEPTH // 2) + b"]}" * (MAX_DEPTH // 2))
    assert too_deep(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))
    assert not too_deep(b'{"text": "' + b"[" * 10_000 + b'"}')  # brackets inside a string
    assert not too_deep(b'{"text": "a \\" [[[[ \\\\", "b": 1}')  # escaped quotes
    with pytest.raises(Malformed):
        parse(b'{"a":' * 100_000 + b"1" + b"}" * 100_000)
    with pytest.raises(Malformed):
        parse(b"{not json")
    assert parse(b'{"ok": true}') == {"ok": True}


def test_message_events_are_taken_with_their_bot_and_text() -> None:
    taken = sort(envelope(mention("deploys?", "1.000001")))
    assert isinstance(taken, Taken)
    assert taken.context.bot_user_id == BOT_USER and taken.context.team_id == "T0001"
    reply = sort(envelope({**message("", "1.000002", thread_ts="1.000001"), "text": None}))
    assert isinstance(reply, Taken) and reply.event["text"] == ""  # text: null is no text


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({**envelope(mention("hi", "1.1")), "event": "app_mention"}, "without an event object"),
        ({**envelope(mention("hi", "1.1")), "authorizations": "U0BOT"}, "authorizations"),
        (envelope(message("x", "1.1", previous_message="edited")), "previous_message"),
        (envelope(message("x", "1.1", files={"id": "F1"})), "files"),
        (envelope({"type": "message", "channel": ["C1"], "ts": "1.1"}), "channel"),
        (envelope({"type": "reaction_added", "reaction": "tada"}), "reaction_added"),
        (envelope({"type": "<script>"}), "of an unknown type"),
        ({"type": "event_callback"}, "without an event object"),
        ({"type": "block_suggestion"}, "block_suggestion"),
        ([1, 2], "of an unknown type"),
    ],
)
def test_what_vouch_does_not_handle_is_dropped_with_a_reason(body: Any, reason: str) -> None:
    dropped = sort(body)
    assert isinstance(dropped, Dropped) and reason in dropped.reason and not dropped.warning


def test_app_rate_limited_is_a_warning_and_the_rest_is_bolts() -> None:
    limited = sort({"type": "app_rate_limited", "minute_rate_limited": 1518467820})
    assert isinstance(limited, Dropped) and limited.warning and "1518467820" in limited.reason
    assert sort({"type": "url_verification", "challenge": "x"}) is None
    assert sort(envelope({"type": "app_home_opened", "user": "U1", "tab": "home"})) is None
    unauthorized = {**envelope(mention("hi", "1.1")), "authorizations": []}
    assert sort(unauthorized) is None  # Bolt asks auth.test who the bot is


@pytest.mark.parametrize(
    ("event", "is_person"),
    [
        ({"user": "U0001"}, True),
        ({"user": "U0001", "bot_id": "B0002"}, False),  # another app's post, even a mention
        ({"user": "U0001", "bot_profile": {"id": "B0002"}}, False),
        ({"subtype": "bot_message", "username": "ci"}, False),
        ({"user": BOT_USER}, False),  # Vouch itself
        ({"bot_id": "B0002"}, False),  # a workflow's mention: no user
        ({"user": ""}, False),
        ({"user": None}, False),
    ],
)
def test_only_people_make_vouch_act(event: dict[str, Any], is_person: bool) -> None:
    assert person({"type": "app_mention", **event}, BOT_USER) is is_person


@pytest.mark.skipif(not payloads.names(), reason="../shared/slack-payloads is not here")
def test_every_recorded_payload_is_sorted_without_error() -> None:
    """Each real payload: the ones Vouch answers are taken in from a person; none raises."""
    for name in payloads.names():
        sorted_ = sort(payloads.load(name))
        if payloads.expected(name) != "silent":
            assert isinstance(sorted_, Taken), name
            assert person(sorted_.event, sorted_.context.bot_user_id), name


async def test_bolts_own_path_reads_events_as_the_intake_does(
    make_settings: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    """An event Bolt hands over (no bot authorization in its envelope): a field of the
    wrong type is dropped, `text: null` is no text, and the next message is answered."""
    fake_anthropic.default = Reply("Merge to `main` and the pipeline deploys billing.")
    app = make_app(make_settings())
    assert await dispatch(app, {**mention("hi", "980.000001"), "files": "F1"}) == 200
    reply = message("", "980.000003", thread_ts="980.000002")
    assert await dispatch(app, {**reply, "text": None}) == 200  # a follow-up with no text
    await dispatch(app, mention("how do I deploy billing?", "980.000004"))
    await replied(fake_slack)
    assert [p["thread_ts"] for p in fake_slack.of("chat.postMessage")] == ["980.000004"]
    assert len(fake_anthropic.requests) == 1
