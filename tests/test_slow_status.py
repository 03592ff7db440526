"""The bot as a process with a Slack whose `assistant.threads.setStatus` takes 20 s: the
answer does not wait for it (it used to wait the whole 20 s, or, with a short deadline,
end in the failure message without the model ever being asked)."""

from __future__ import annotations

import time
from typing import Any

from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.server import wait_healthy
from tests.fakes.slack import FakeSlack, Fault
from tests.slack.bolt import SIGNING_SECRET, mention, post_event, until

GOOD = "Merge to `main` and the pipeline deploys billing to staging."


async def test_a_20_second_set_status_does_not_delay_the_answer(
    bot: Any, fake_anthropic: FakeAnthropic, fake_slack: FakeSlack
) -> None:
    fake_slack.fail("assistant.threads.setStatus", *[Fault(delay=20.0)] * 10)
    fake_anthropic.default = Reply(GOOD)
    _, port = bot(MESSAGE_DEADLINE="10", SLACK_TIMEOUT="30")
    await wait_healthy(f"http://127.0.0.1:{port}")
    sent = time.monotonic()
    assert await post_event(port, mention("how do I deploy?", "520.000001"), SIGNING_SECRET) == 200
    await until(lambda: bool(fake_slack.of("chat.postMessage")), timeout=15)
    assert time.monotonic() - sent < 5  # not 20
    [post] = fake_slack.of("chat.postMessage")
    assert post["text"] == GOOD
    assert fake_slack.of("assistant.threads.setStatus")  # it was asked, and still hanging
