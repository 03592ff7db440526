"""What running the bot needs, checked before anything heavy is imported: the credentials
(`python -m app` stops with one line naming what to set), and the container's health check
(`python -m app health`, every few seconds: it must cost no SDK import)."""

from __future__ import annotations

import sys
import urllib.request

from app.settings import Settings

SETUP_HINT = (
    "Create the Slack app from manifest.yml, then copy .env.example to .env and fill it in."
)


def credential_problems(settings: Settings) -> list[str]:
    """What is missing or malformed for running the bot, one phrase each."""
    problems = []
    bot = settings.slack_bot_token
    if bot is None or not bot.get_secret_value().startswith("xoxb-"):
        problems.append("SLACK_BOT_TOKEN (a bot token starting with xoxb-)")
    app_token = settings.slack_app_token
    if app_token is not None and not app_token.get_secret_value().startswith("xapp-"):
        problems.append("SLACK_APP_TOKEN (an app-level token starting with xapp-)")
    if app_token is None and settings.slack_signing_secret is None:
        problems.append("SLACK_APP_TOKEN for Socket Mode, or SLACK_SIGNING_SECRET for HTTP mode")
    if settings.needs_api_key:
        problems.append("ANTHROPIC_API_KEY")
    return problems


def health(settings: Settings) -> int:
    """The container's health check: in HTTP mode, 0 when GET /healthz on this machine
    answers 200 within 3 s, else 1 (one line on stderr). Socket Mode serves no HTTP:
    0 while the process runs (Docker runs the check only then)."""
    if settings.slack_app_token is not None:
        return 0
    url = f"http://127.0.0.1:{settings.port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=3) as response:
            healthy = response.status == 200
    except (OSError, ValueError) as exc:
        print(f"unhealthy: {type(exc).__name__}", file=sys.stderr)
        return 1
    return 0 if healthy else 1
