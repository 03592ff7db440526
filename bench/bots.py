"""The bot as a process for the benches: started against the loopback fakes, and the
signed Events API bodies they send it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.slack import BOT_USER, TEAM, FakeSlack, signed_headers

SECRET = "bench-signing-secret"
ANSWER = (
    "*Deploying billing*\nMerge to `main`: the pipeline builds, tests and deploys billing to "
    "staging in about 8 minutes.\n\n• *Roll back*: press _Revert_ on the last deploy.\n"
)


def start_bot(
    slack: FakeSlack, model: FakeAnthropic, port: int, redis_url: str | None, **extra: str
) -> subprocess.Popen[bytes]:
    own = ("SLACK_", "ANTHROPIC_", "REDIS_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(own)}
    if redis_url is not None:
        env["REDIS_URL"] = redis_url
    env.update(
        SLACK_BOT_TOKEN="xoxb-bench",
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=slack.url,
        ANTHROPIC_API_KEY="bench",
        ANTHROPIC_BASE_URL=model.url,
        HOST="127.0.0.1",
        PORT=str(port),
        LOG_LEVEL="WARNING",
    )
    env.update(extra)
    cwd = tempfile.mkdtemp()  # no .env
    return subprocess.Popen([sys.executable, "-m", "app"], env=env, cwd=cwd)


def body_for(n: int, round_: int) -> bytes:
    ts = f"{1800000000 + round_}.{n:06d}"
    event = {
        "type": "app_mention",
        "user": f"U{n:05d}",
        "text": f"<@{BOT_USER}> question {n} about deploying billing?",
        "channel": f"C{n % 20:04d}",
        "ts": ts,
        "event_ts": ts,
        "team": TEAM,
    }
    envelope = {
        "token": "legacy",
        "team_id": TEAM,
        "api_app_id": "A0001",
        "type": "event_callback",
        "event_id": f"Ev{round_}{n:06d}",
        "event_time": int(time.time()),
        "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": True}],
        "event": event,
    }
    return json.dumps(envelope).encode()


def signed(body: bytes) -> dict[str, str]:
    return signed_headers(body, SECRET)
