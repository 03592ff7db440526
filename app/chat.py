"""`python -m app chat`: the agent loop in a terminal, for trying Vouch without Slack.

The agent (the SDK, the language models, the docs) is imported once there is a key to
use it with: without one, the sentence that says so costs no imports."""

from __future__ import annotations

import asyncio
import sys
import uuid
from typing import TYPE_CHECKING, TextIO

from app.settings import Settings

if TYPE_CHECKING:
    from app.agent.loop import Deps
    from app.agent.outcome import Attempt

NO_KEY = (
    "ANTHROPIC_API_KEY is not set: add it to .env (see .env.example) or the environment "
    "to chat with Vouch."
)


async def chat(settings: Settings, out: TextIO = sys.stdout) -> int:
    """Read messages from stdin until EOF; print each answer and one line per attempt."""
    if settings.needs_api_key:
        print(NO_KEY, file=sys.stderr)
        return 2
    from app.agent.loop import Deps  # noqa: PLC0415 (the agent: see above)
    from app.knowledge.retrieve import Knowledge  # noqa: PLC0415
    from app.verify import warm  # noqa: PLC0415

    knowledge = await asyncio.to_thread(Knowledge.open, settings)
    await asyncio.to_thread(warm)
    try:
        return await _chat(settings, Deps.from_settings(settings, knowledge=knowledge), out)
    finally:
        if knowledge is not None:
            knowledge.close()


async def _chat(settings: Settings, deps: Deps, out: TextIO) -> int:
    from app.agent.conversation import Conversation, Turn  # noqa: PLC0415
    from app.agent.loop import answer  # noqa: PLC0415

    config = deps.config
    turns: list[Turn] = []
    while (message := await _read("you> ")) is not None:
        if not message.strip():
            continue
        conversation = Conversation(tuple(turns), message, settings.response_format)
        outcome = await answer(conversation, deps, reference=uuid.uuid4().hex[:12])
        print(f"vouch> {outcome.text}", file=out)
        for attempt in outcome.attempts:
            print(describe(attempt, config.max_attempts), file=out)
        turns.append(Turn("user", message))
        if outcome.verified:
            turns.append(Turn("assistant", outcome.text))
    return 0


def describe(attempt: Attempt, total: int) -> str:
    """One line about an attempt: its result, repairs and tokens; never its text."""
    if attempt.error is not None:
        result = f"error {attempt.error}"
    else:
        result = "passed" if attempt.passed else "failed " + ", ".join(attempt.codes)
    repaired = f" · repaired {', '.join(attempt.repaired)}" if attempt.repaired else ""
    usage = attempt.usage + attempt.judge_usage
    tokens = (
        f"tokens in {usage.input} out {usage.output} "
        f"(cache read {usage.cache_read}, write {usage.cache_write})"
    )
    judge = f" · judge {attempt.judge_score}" if attempt.judge_score is not None else ""
    duration = f"{attempt.duration_ms:.0f} ms"
    return f"  attempt {attempt.number}/{total}: {result}{repaired}{judge} · {tokens} · {duration}"


async def _read(prompt: str) -> str | None:
    try:
        return await asyncio.to_thread(input, prompt)
    except EOFError:
        return None
