"""Property: whatever the model writes and whatever fails, the Outcome's text is a draft
that passed verification (after repair) or a canned reply — never a failing draft or a
fragment of one."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.agent.conversation import Conversation
from app.agent.loop import Deps, answer
from app.verify import busy_message, failure_message, verify
from tests.fakes.anthropic import Fail, FakeAnthropic, Reply, StreamError

QUESTION = "How do I deploy the billing service?"
REF = "prop0123"
KINDS = [
    "good",
    "repairable",
    "unclosed",
    "off_topic",
    "empty",
    "truncated",
    "refusal",
    "overloaded_stream",
    "status_529",
    "status_400",
]


def script(kind: str, n: int) -> tuple[Any, str | None]:
    """A scripted item and, when it carries text, the unique canary inside that text."""
    canary = f"canary{n}zq"
    texts = {
        "good": f"Deploy billing with `make deploy` ({canary}); the service restarts itself.",
        "repairable": f"**Deploy** billing with [the guide](https://x.io) ({canary}).",
        "unclosed": f"Deploy billing ({canary}):\n```\nmake deploy",
        "off_topic": f"Lunch is lasagne, salad, garlic bread and tiramisu at noon ({canary}).",
        "empty": "",
        "truncated": f"Deploy billing by {canary}",
        "refusal": f"I won't ({canary}).",
    }
    if kind in texts:
        stop = {"truncated": "max_tokens", "refusal": "refusal"}.get(kind, "end_turn")
        return Reply(texts[kind], stop), canary if texts[kind] else None
    if kind == "overloaded_stream":
        return StreamError(partial=f"partial {canary} draft"), canary
    return Fail(529 if kind == "status_529" else 400), None


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=8), st.integers(1, 5))
def test_outcome_text_is_verified_or_canned(
    anthropic_server: FakeAnthropic, make_settings: Any, kinds: list[str], max_attempts: int
) -> None:
    anthropic_server.reset()
    items = [script(kind, n) for n, kind in enumerate(kinds)]
    anthropic_server.push(*(item for item, _ in items))
    anthropic_server.default = Fail(400)
    config = make_settings(max_attempts=max_attempts, anthropic_max_retries=0)
    deps = Deps.from_settings(config)
    outcome = asyncio.run(answer(Conversation((), QUESTION), deps, REF))

    canned = {failure_message("mrkdwn", REF), busy_message("mrkdwn", REF)}
    passing = {
        verify(item.text, question=QUESTION).text
        for item, _ in items
        if isinstance(item, Reply) and item.stop_reason == "end_turn"
    }
    if outcome.verified:
        assert outcome.text in passing
        assert verify(outcome.text, question=QUESTION).passed
    else:
        assert outcome.text in canned
    delivered_canary = [c for _, c in items if c and c in outcome.text]
    assert len(delivered_canary) <= 1
    for (_, canary), kind in zip(items, kinds, strict=True):
        if canary and kind not in ("good", "repairable"):
            assert canary not in outcome.text, kind
    assert 1 <= len(outcome.attempts) <= max_attempts
