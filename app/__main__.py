"""Command line: `python -m app` runs the bot; `python -m app chat` talks to the agent loop
in a terminal; `python -m app index` rebuilds the knowledge index; `python -m app metrics`
reports verification rates from Langfuse; `python -m app eval` runs a dataset through the
loop; `python -m app collect` makes dataset items from annotation queues or 👎s.

Arguments and settings are read before anything heavy is imported: each command imports
what it runs (the SDKs, the language models, Slack) only once its arguments, settings and
plan are known to be good, so a typo prints its one line at once."""

from __future__ import annotations

import argparse
import asyncio
import gc
import signal
import sqlite3
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app import logs
from app.eval.plan import EvalError, plan
from app.settings import Settings, SettingsError, load_settings


def main(argv: list[str] | None = None) -> int:
    """`python -m app ARGV` (sys.argv without one): the exit status."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse printed its usage and the error (or --help)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        settings = load_settings()
    except SettingsError as exc:
        print(f"{exc}. See .env.example.", file=sys.stderr)
        return 2
    logs.configure(settings.log_level)
    try:
        return COMMANDS.get(args.command, _run)(args, settings)
    except EvalError as exc:
        print(f"Cannot evaluate: {exc}.", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m app", description="Vouch")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("run", help="run the Slack bot (the default)")
    commands.add_parser("chat", help="chat with the agent loop in this terminal")
    commands.add_parser("index", help="rebuild the index of KNOWLEDGE_DIR")
    commands.add_parser("health", help="exit 0 if the bot here is healthy (container check)")
    report = commands.add_parser("metrics", help="verification rates and failure patterns")
    report.add_argument("--since", default="7d", help="window: 90m, 24h, 7d, 2w (default 7d)")
    report.add_argument("--top", type=int, default=10, help="issue codes to list (default 10)")
    _eval_arguments(commands)
    _collect_arguments(commands)
    return parser


def _evaluate(args: argparse.Namespace, settings: Settings) -> int:
    """`eval`: the plan checked, then run (app/eval/command.py)."""
    made = plan(
        settings,
        args.dataset,
        args.set,
        args.prompt,
        concurrency=args.concurrency,
        min_verified=args.min_verified,
        baseline=not args.no_baseline,
    )
    from app.eval import command  # noqa: PLC0415 (the SDKs and models: once the plan is good)

    return command.run(made, settings)


def _collect(args: argparse.Namespace, settings: Settings) -> int:
    """`collect` (app/eval/collect.py)."""
    from app.metrics.window import MetricsError, parse_window  # noqa: PLC0415 (no SDK)

    try:
        since = parse_window(args.since)
    except MetricsError as exc:
        raise EvalError(str(exc)) from None
    from app.eval import collect  # noqa: PLC0415 (the SDKs: once the arguments are good)

    return collect.run(
        settings,
        feedback=args.feedback,
        queue=args.queue,
        since=since,
        jsonl=args.jsonl,
        dataset=args.dataset,
        path=args.out,
        out=sys.stdout,
        now=datetime.now(UTC),
    )


def _chat(args: argparse.Namespace, settings: Settings) -> int:
    from app.chat import chat  # noqa: PLC0415 (it imports the agent once there is a key)

    return asyncio.run(chat(settings))


def _metrics(args: argparse.Namespace, settings: Settings) -> int:
    from app.metrics.window import MetricsError, parse_window, top_codes  # noqa: PLC0415

    try:
        window, top = parse_window(args.since), top_codes(args.top)
        from app.metrics.command import run  # noqa: PLC0415 (Langfuse's SDK: once it is good)

        return run(settings, window, sys.stdout, top)
    except MetricsError as exc:
        print(f"Cannot report metrics: {exc}.", file=sys.stderr)
        return 2


def _eval_arguments(commands: Any) -> None:
    run = commands.add_parser("eval", help="run a dataset through the loop and report")
    run.add_argument("dataset", help="a JSONL file, or the name of a Langfuse dataset")
    run.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a setting changed for a second run, compared side by side (repeatable)",
    )
    run.add_argument(
        "--prompt", type=Path, help="standing instructions for every item, for a second run"
    )
    run.add_argument("--no-baseline", action="store_true", help="run only with the changes")
    run.add_argument("--concurrency", type=int, default=4, help="items at once (default 4)")
    run.add_argument(
        "--min-verified",
        type=float,
        metavar="PERCENT",
        help="exit 1 when the (last) run's verified rate is under this",
    )


def _collect_arguments(commands: Any) -> None:
    made = commands.add_parser(
        "collect",
        help="Langfuse dataset items: to fill in, from 👎 or a queue; or a local dataset's",
    )
    where = made.add_mutually_exclusive_group(required=True)
    where.add_argument("--feedback", action="store_true", help="answers given a 👎")
    where.add_argument("--queue", metavar="QUEUE_ID", help="a Langfuse annotation queue")
    where.add_argument(
        "--from", dest="jsonl", type=Path, metavar="FILE", help="a local dataset, copied whole"
    )
    made.add_argument("--since", default="7d", help="with --feedback: 90m, 24h, 7d (default 7d)")
    to = made.add_mutually_exclusive_group()
    to.add_argument("--dataset", metavar="NAME", help="add them to this Langfuse dataset")
    to.add_argument("--out", type=Path, metavar="FILE", help="append them to this JSONL file")


def _index(args: argparse.Namespace, settings: Settings) -> int:
    if settings.knowledge_dir is None:
        print("KNOWLEDGE_DIR is not set: there is nothing to index.", file=sys.stderr)
        return 2
    from app.errors import label  # noqa: PLC0415
    from app.knowledge.retrieve import open_index, summary  # noqa: PLC0415

    try:
        index, synced = open_index(settings, rebuild=True)
    except (NotADirectoryError, sqlite3.Error) as exc:
        print(f"Cannot index {settings.knowledge_dir}: {label(exc)}.", file=sys.stderr)
        return 2
    print(f"Indexed {settings.knowledge_dir}: {summary(synced, index.count())}.")
    index.close()
    return 0


def _health(args: argparse.Namespace, settings: Settings) -> int:
    from app.health import health  # noqa: PLC0415 (standard library only: run every few s)

    return health(settings)


def _run(args: argparse.Namespace, settings: Settings) -> int:
    from app.channels import ChannelsError, ChannelsFile  # noqa: PLC0415
    from app.health import SETUP_HINT, credential_problems  # noqa: PLC0415

    problems = credential_problems(settings)
    if problems:
        print(f"Cannot start Vouch: set {'; '.join(problems)}. {SETUP_HINT}", file=sys.stderr)
        return 2
    try:
        ChannelsFile(settings.channels_file)  # validated before serving: a bad file stops here
    except (ChannelsError, OSError) as exc:
        why = str(exc) if isinstance(exc, ChannelsError) else type(exc).__name__
        print(f"Cannot start Vouch: CHANNELS_FILE {why}.", file=sys.stderr)
        return 2
    asyncio.run(_until_stopped(settings))
    return 0


async def _until_stopped(settings: Settings) -> None:
    """Serve until SIGTERM or SIGINT, then shut down gracefully; a second signal acts at
    once (the default handlers are back)."""
    serve = _server()
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    signals = (signal.SIGTERM, signal.SIGINT)

    def stopping() -> None:
        stop.set()
        for signum in signals:
            loop.remove_signal_handler(signum)

    for signum in signals:
        loop.add_signal_handler(signum, stopping)
    await serve(settings, stop)


def _server() -> Callable[[Settings, asyncio.Event], Awaitable[None]]:
    """app.server's `serve`, imported with the collector off: the SDKs' imports make
    objects that live as long as the process, and collecting among them took a sixth of
    the start (serve freezes them once it is up)."""
    gc.disable()
    try:
        from app.server import serve  # noqa: PLC0415
    finally:
        gc.enable()
    return serve


Command = Callable[[argparse.Namespace, Settings], int]
COMMANDS: dict[str | None, Command] = {
    "eval": _evaluate,
    "collect": _collect,
    "chat": _chat,
    "index": _index,
    "health": _health,
    "metrics": _metrics,
}  # none: run the bot


if __name__ == "__main__":
    sys.exit(main())
