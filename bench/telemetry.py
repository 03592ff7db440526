"""Telemetry's cost per message, and what it sends.

Run: .venv/bin/python -m bench.telemetry [--runs N]   (from the repository root)

answer() runs against a zero-latency model (as in bench.loop) inside a Langfuse trace, with
the real Langfuse client exporting to the loopback fake; the figure is the time per message
on the event loop, beside the same loop with telemetry off. The export itself happens on the
SDK's threads; the same run against a Langfuse that hangs shows whether it ever leaks into
the answer path. Then: bytes sent to Langfuse per message, and the shutdown flush time.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from app.settings import load_settings
from app.telemetry import MessageIds, Telemetry, Trace
from bench.loop import GOOD, OFF_TOPIC, UNCLOSED, Traces, overhead
from bench.stats import p99
from tests.fakes.langfuse import FakeLangfuse

PLANS = {"1 attempt": [GOOD], "3 attempts": [UNCLOSED, OFF_TOPIC, GOOD]}


def telemetry_at(fake: FakeLangfuse) -> Telemetry:
    settings = load_settings(
        _env_file=None,
        langfuse_public_key=f"pk-lf-{uuid.uuid4().hex}",
        langfuse_secret_key="sk-lf-bench",
        langfuse_base_url=fake.url,
        langfuse_flush_timeout=10.0,
    )
    return Telemetry.from_settings(settings)


def traces(telemetry: Telemetry) -> Traces:
    @contextmanager
    def trace(n: int) -> Iterator[Trace]:
        ids = MessageIds(f"T1:C1:{n}.0", "T1:C1:1.0", "T1:U1", "mention", 4)
        with telemetry.trace(ids) as opened:
            yield opened

    return trace


def line(name: str, samples: list[float]) -> str:
    return f"  {name:34} median {statistics.median(samples):6.3f}  p99 {p99(samples):6.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=1000)
    args = parser.parse_args()
    fake = FakeLangfuse()
    fake.start()
    print(f"Time per message on the event loop, zero-latency model, {args.runs} messages (ms)")
    for plan, drafts in PLANS.items():
        print(line(f"{plan}, telemetry off", overhead(drafts, args.runs)))
        for state in ("up", "hanging"):
            fake.reset()
            fake.delay = 60.0 if state == "hanging" else 0.0
            telemetry = telemetry_at(fake)
            samples = overhead(drafts, args.runs, traces(telemetry))
            print(line(f"{plan}, Langfuse {state}", samples))
            if state == "up":
                started = time.perf_counter()
                asyncio.run(telemetry.close())
                flushed = time.perf_counter() - started
                sent = sum(len(body) for body in fake.received)
                print(
                    f"    sent {sent / args.runs / 1024:.1f} KiB per message "
                    f"({len(fake.spans) / args.runs:.0f} observations, "
                    f"{len(fake.scores) / args.runs:.0f} scores); shutdown flush {flushed:.2f} s"
                )
            else:
                fake.reset()  # let the hanging requests go
                asyncio.run(telemetry.close())
    fake.stop()


if __name__ == "__main__":
    main()
