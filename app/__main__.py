"""Command line: `python -m app chat` talks to the agent loop in a terminal."""

from __future__ import annotations

import argparse
import asyncio
import sys

from app.chat import chat
from app.settings import SettingsError, load_settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app", description="Vouch")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("chat", help="chat with the agent loop in this terminal")
    args = parser.parse_args(argv)
    try:
        settings = load_settings()
    except SettingsError as exc:
        print(f"{exc}. See .env.example.", file=sys.stderr)
        return 2
    try:
        if args.command == "chat":
            return asyncio.run(chat(settings))
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
