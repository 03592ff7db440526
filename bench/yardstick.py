"""A yardstick for bench.verify: Guardrails AI validating the same 4 KB answers, same machine.

Machine speed moves (this shared machine measured the same commit at 234 and 465 µs a day
apart), so `verify()`'s figure is read beside what a common guard framework costs on the
same text and the same day. Guardrails is not a dependency of Vouch: run this in a venv of
its own, on the texts bench.verify builds.

    .venv/bin/python -m bench.yardstick --write /tmp/yardstick   # the texts, from Vouch's venv
    python3 -m venv /tmp/yardstick/venv && /tmp/yardstick/venv/bin/pip install guardrails-ai
    HOME=/tmp/yardstick /tmp/yardstick/venv/bin/python bench/yardstick.py /tmp/yardstick

Guardrails reads `~/.guardrailsrc` and, without one, turns on its usage metrics (an
exporter to its hub); the run writes one that turns them off, under the HOME it is given.
Each validator is a custom one (the hub is out of reach here): a credential regex, a
length limit and banned substrings, through `Guard().use(...).validate(text)` as a user
calls it, with the defaults a user gets. Prints median and p99 in µs per call.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import time
from pathlib import Path
from typing import Any

DIALECTS = ("mrkdwn", "markdown")
CALLS = 1000
RUNS = 5


def write(folder: Path) -> None:
    """The clean 4 KB answers of bench.verify, one file per dialect."""
    from bench.verify import answer  # noqa: PLC0415 (Vouch's venv only)

    folder.mkdir(parents=True, exist_ok=True)
    for dialect in DIALECTS:
        (folder / f"{dialect}.txt").write_text(answer(dialect, True, 4096), encoding="utf-8")  # type: ignore[arg-type]


def measure(folder: Path) -> None:
    """Time Guardrails on the texts in `folder` (run in a venv with guardrails-ai)."""
    home = Path(os.environ.get("HOME", folder))
    (home / ".guardrailsrc").write_text("enable_metrics=false\nuse_remote_inferencing=false\n")
    from guardrails import Guard, OnFailAction  # noqa: PLC0415
    from guardrails.validators import (  # noqa: PLC0415
        FailResult,
        PassResult,
        Validator,
        register_validator,
    )

    @register_validator(name="yardstick/credential", data_type="string")
    class Credential(Validator):  # type: ignore[misc]
        def _validate(self, value: Any, metadata: dict[str, Any]) -> Any:
            found = re.search(r"sk-[A-Za-z0-9]{20,}", value)
            return FailResult(error_message="credential") if found else PassResult()

    @register_validator(name="yardstick/length", data_type="string")
    class Length(Validator):  # type: ignore[misc]
        def _validate(self, value: Any, metadata: dict[str, Any]) -> Any:
            return FailResult(error_message="long") if len(value) > 40_000 else PassResult()

    @register_validator(name="yardstick/banned", data_type="string")
    class Banned(Validator):  # type: ignore[misc]
        def _validate(self, value: Any, metadata: dict[str, Any]) -> Any:
            banned = ("BEGIN RSA PRIVATE KEY", "xoxb-", "AKIA")
            return (
                FailResult(error_message="banned")
                if any(b in value for b in banned)
                else PassResult()
            )

    noop = OnFailAction.NOOP
    guards = {
        "1 validator": Guard().use(Credential(on_fail=noop)),
        "3 validators": Guard().use(
            Credential(on_fail=noop), Length(on_fail=noop), Banned(on_fail=noop)
        ),
    }
    print(f"Guard.validate on bench.verify's clean 4 KB answers, {RUNS} × {CALLS} calls (µs)")
    for dialect in DIALECTS:
        text = (folder / f"{dialect}.txt").read_text(encoding="utf-8")
        for name, guard in guards.items():
            guard.configure(allow_metrics_collection=False)
            assert guard.validate(text).validation_passed
            for _ in range(200):
                guard.validate(text)
            samples: list[float] = []
            for _ in range(RUNS * CALLS):
                started = time.perf_counter_ns()
                guard.validate(text)
                samples.append((time.perf_counter_ns() - started) / 1000)
            samples.sort()
            p99 = samples[min(len(samples) - 1, int(0.99 * len(samples)))]
            print(f"{dialect:9} {name:13} median {statistics.median(samples):8.1f}  p99 {p99:8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--write", action="store_true", help="write the texts (Vouch's venv)")
    args = parser.parse_args()
    if args.write:
        write(args.folder)
    else:
        measure(args.folder)


if __name__ == "__main__":
    main()
