"""Agent-loop costs: overhead per message beyond model time, and spend per verified message.

Run: .venv/bin/python -m bench.loop [--runs N] [--messages M]   (from the repository root)

1. Overhead: answer() against a zero-latency in-process model (drafts handed back at once),
   so every microsecond measured is the loop's own: prompts, verify, feedback, bookkeeping.
2. Prompt sizes: `messages.count_tokens` for the system prompt and the requests the
   workloads send, against each model's caching minimum. The loopback API estimates
   (characters / 4); with --count-with-api the API in the environment's settings counts.
3. Spend: a scripted mixed workload through the real AsyncAnthropic client and the loopback
   fake API, which simulates prompt caching per breakpoint with each model's minimum
   (Sonnet 1,024 tokens, Haiku 4,096). Each message is a different thread. The judge (on
   by default) passes every draft that passes the rules; its tokens are shown apart from
   the drafts'. "Input cost" weighs tokens as the API bills them: uncached 1, cache write
   1.25, cache read 0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from typing import Any

from app.agent.conversation import Conversation, Turn
from app.agent.loop import Deps, LoopConfig, answer
from app.agent.model import Draft, Request, Usage
from app.agent.outcome import Outcome
from app.agent.prompts import conversation_messages, system_blocks
from app.settings import Settings, load_settings
from app.telemetry import NO_TRACE, Trace
from app.verify import Source
from bench.stats import p99
from tests.fakes.anthropic import Cite, FakeAnthropic, Reply, cited, search_results

QUESTION = "How do I deploy the billing service to staging, and how do I roll it back?"
GOOD = (
    "*Deploying billing to staging*\nMerge to `main`: the pipeline builds, tests and deploys "
    "billing to staging in about 8 minutes, then posts to <#C0123|deploys>.\n\n"
    "• *Roll back*: press _Revert_ on the last deploy, or run:\n"
    "```\nkubectl rollout undo deploy/billing\n```\n"
) * 3
REPAIRABLE = GOOD.replace("*Deploying billing to staging*", "## Deploying billing to staging")
UNCLOSED = GOOD + "\n```\nmake deploy ENV=staging"
OFF_TOPIC = "Lunch is lasagne with salad, garlic bread and tiramisu, from noon upstairs. " * 4
HISTORY = (
    Turn("user", "How is billing deployed to production?"),
    Turn("assistant", GOOD),
    Turn("user", "And who approves a production deploy?"),
    Turn("assistant", GOOD.replace("staging", "production")),
)
CONFIG = LoopConfig("claude-sonnet-5-5", 2048, 3, 120.0, None)


Traces = Callable[[int], AbstractContextManager[Trace]]


def overhead(drafts: list[str], runs: int, traces: Traces | None = None) -> list[float]:
    """Milliseconds per message with a model that answers instantly; with `traces`, each
    message is answered inside the trace it gives for the run's number (and timed with it)."""
    queue: list[str] = []

    async def instant(client: Any, request: Request) -> Draft:
        return Draft(queue.pop(0), "end_turn", Usage(100, 50))

    deps = Deps(client=None, config=CONFIG, model=instant)  # type: ignore[arg-type]

    async def measure() -> list[float]:
        samples = []
        for n in range(runs):
            queue[:] = drafts
            started = time.perf_counter()
            with traces(n) if traces is not None else nullcontext(NO_TRACE) as trace:
                await answer(Conversation(HISTORY, QUESTION), deps, "bench", observer=trace)
            samples.append((time.perf_counter() - started) * 1000)
        return samples

    return asyncio.run(measure())


Workload = Callable[[Deps, FakeAnthropic], Awaitable[list[Outcome]]]


def against_the_fake(workload: Workload) -> list[Outcome]:
    """Run `workload` through the real client against the loopback API (caching simulated
    with each model's minimum), with default settings: the judge on."""
    fake = FakeAnthropic()
    fake.start()
    settings = load_settings(_env_file=None, anthropic_api_key="k", anthropic_base_url=fake.url)
    deps = Deps.from_settings(settings)

    async def run() -> list[Outcome]:
        try:
            return await workload(deps, fake)
        finally:
            await deps.client.close()

    try:
        return asyncio.run(run())
    finally:
        fake.stop()


PASSAGE = "Billing deploys through the release pipeline after a staging soak. " * 20
DOCS = tuple(
    Source(f"doc-{n}", f"Billing runbook {n}", f"https://wiki.example.com/{n}", PASSAGE)
    for n in range(3)
)  # about 1,000 tokens as search results


class Docs:
    """The team's docs as the loop reads them: the same three passages for every message."""

    def sources(self, conversation: Conversation) -> tuple[Source, ...]:
        return DOCS


def citing(request: dict[str, Any]) -> Reply:
    """An answer citing the first passage it was given."""
    source = search_results(request)[0]["source"]
    claim = "Billing deploys through the release pipeline after a staging soak."
    return cited("*Deploying billing*\n", (claim, Cite(source, PASSAGE.strip())))


def follow_ups(threads: int, per_thread: int, docs: bool = False) -> list[Outcome]:
    """Threads of follow-ups: each message is answered with every earlier turn of its
    thread, as in Slack, so each request's prefix is the last one's plus two turns. With
    `docs`, each request carries the passages as search results with its new message, and
    each answer cites one."""

    async def workload(deps: Deps, fake: FakeAnthropic) -> list[Outcome]:
        if docs:
            fake.responder = citing
            deps = replace(deps, knowledge=Docs())
        else:
            fake.default = Reply(GOOD)
        outcomes = []
        for n in range(threads):
            thread: tuple[Turn, ...] = (Turn("user", f"thread {n}"), Turn("assistant", "Noted."))
            thread += HISTORY
            for m in range(per_thread):
                question = f"{QUESTION} (follow-up {m})"
                outcome = await answer(Conversation(thread, question), deps, "bench")
                outcomes.append(outcome)
                thread += (Turn("user", question), Turn("assistant", outcome.text))
        return outcomes

    return against_the_fake(workload)


def spend(messages: int, history: tuple[Turn, ...]) -> list[Outcome]:
    """A mixed workload through the loopback API: 70% clean, 15% repairable, 10% one
    failure then a pass, 5% failing every attempt."""
    rng = random.Random(7)
    plans = {
        "clean": [GOOD],
        "repairable": [REPAIRABLE],
        "retry": [UNCLOSED, GOOD],
        "failing": [UNCLOSED, OFF_TOPIC, UNCLOSED],
    }
    kinds = rng.choices(list(plans), weights=[70, 15, 10, 5], k=messages)

    async def workload(deps: Deps, fake: FakeAnthropic) -> list[Outcome]:
        outcomes = []
        for n, kind in enumerate(kinds):
            fake.push(*(Reply(text) for text in plans[kind]))
            thread = (Turn("user", f"thread {n}"), Turn("assistant", "Noted."), *history)
            outcomes.append(await answer(Conversation(thread, QUESTION), deps, "bench"))
        return outcomes

    return against_the_fake(workload)


def sizes(settings: Settings | None) -> list[tuple[str, int]]:
    """Input tokens of the system prompt and of the workloads' first requests, counted by
    the API in `settings`, or by the loopback API when None."""
    fake = None
    if settings is None:
        fake = FakeAnthropic()
        fake.start()
        settings = load_settings(_env_file=None, anthropic_api_key="k", anthropic_base_url=fake.url)
    client = Deps.from_settings(settings).client
    model = settings.anthropic_model
    asks: dict[str, tuple[Turn, ...]] = {
        "system prompt (mrkdwn)": (),
        "short thread, first request": HISTORY[:2],
        "longer thread, first request": HISTORY * 2,
        "4th follow-up in a thread": HISTORY * 4,
    }

    async def count() -> list[tuple[str, int]]:
        counted = []
        for name, turns in asks.items():
            system = system_blocks("mrkdwn")
            messages = (
                conversation_messages(Conversation(turns, QUESTION))
                if turns
                else [{"role": "user", "content": "hi"}]
            )
            reply = await client.messages.count_tokens(
                model=model,
                system=system,  # type: ignore[arg-type]
                messages=messages,  # type: ignore[arg-type]
            )
            counted.append((name, reply.input_tokens))
        await client.close()
        return counted

    try:
        return asyncio.run(count())
    finally:
        if fake is not None:
            fake.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--messages", type=int, default=400)
    parser.add_argument(
        "--count-with-api",
        action="store_true",
        help="count prompt tokens with the Anthropic API in the environment's settings",
    )
    args = parser.parse_args()
    print(f"Loop overhead beyond model time, {args.runs} messages each (ms)")
    for name, drafts in (
        ("1 attempt (clean)", [GOOD]),
        ("1 attempt (repaired)", [REPAIRABLE]),
        ("3 attempts (fail, fail, pass)", [UNCLOSED, OFF_TOPIC, GOOD]),
    ):
        samples = overhead(drafts, args.runs)
        print(f"  {name:32} median {statistics.median(samples):6.3f}  p99 {p99(samples):6.3f}")

    source = "the API" if args.count_with_api else "the loopback API (characters / 4)"
    print(f"\nPrompt sizes, input tokens counted by {source}; caching minimum 1,024 (Sonnet)")
    for name, tokens in sizes(load_settings() if args.count_with_api else None):
        print(f"  {name:32} {tokens:6d}")

    for name, history in (("short thread", HISTORY[:2]), ("longer thread", HISTORY * 2)):
        report(name, spend(args.messages, history))
    threads = max(1, args.messages // 8)
    report(f"{threads} threads of 4 follow-ups", follow_ups(threads, 4))
    report(f"{threads} threads of 4 follow-ups, from the docs", follow_ups(threads, 4, docs=True))


def report(name: str, outcomes: list[Outcome]) -> None:
    verified = [o for o in outcomes if o.verified]
    total = Usage()
    for outcome in outcomes:
        total = total + outcome.usage
    judged = Usage()
    for outcome in outcomes:
        for attempt in outcome.attempts:
            judged = judged + attempt.judge_usage
    drafted = Usage(
        total.input - judged.input,
        total.output - judged.output,
        total.cache_read - judged.cache_read,
        total.cache_write - judged.cache_write,
    )
    requests = sum(len(o.attempts) for o in outcomes)
    judgements = sum(1 for o in outcomes for a in o.attempts if a.judge is not None)
    per = max(1, len(verified))
    print(f"\nMixed workload, {name}: {len(outcomes)} messages, {len(verified)} verified")
    print("  per verified message             drafts    judge")
    print(f"  requests                       {requests / per:8.2f} {judgements / per:8.2f}")
    for label, field in (
        ("uncached input tokens", "input"),
        ("cache-write tokens", "cache_write"),
        ("cache-read tokens", "cache_read"),
        ("output tokens", "output"),
    ):
        mine, theirs = getattr(drafted, field) / per, getattr(judged, field) / per
        print(f"  {label:30} {mine:8.0f} {theirs:8.0f}")
    weighed = f"{cost(drafted) / per:8.0f} {cost(judged) / per:8.0f}"
    print(f"  {'input cost (uncached-token eq.)':30} {weighed}")


def cost(usage: Usage) -> float:
    """Input tokens weighed as billed: cache writes 1.25, cache reads 0.1 of an input token."""
    return usage.input + 1.25 * usage.cache_write + 0.1 * usage.cache_read


if __name__ == "__main__":
    main()
