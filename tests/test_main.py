"""The entry point, `python -m app` (app/__main__.py): a bad argument or setting is one line
and exit 2, printed before the SDKs, Slack or the language models are imported; in
process through `main(argv)`, and as processes for what only a process shows (what was
imported)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from app.health import credential_problems
from app.settings import load_settings
from tests.entry import run_main
from tests.fakes.server import free_port
from tests.isolation import process_env

# What no argument or settings error may pay for: the SDKs, Slack, the agent and the
# language model (app.verify.language loads fastText).
HEAVY = ("anthropic", "langfuse", "slack_bolt", "slack_sdk", "fasttext", "app.agent", "app.verify")


FREE_PORT = "a free port"  # picked when the test runs, not when the module is collected


@dataclass(frozen=True)
class Mistake:
    argv: tuple[str, ...]
    said: str  # the last line on stderr (its start)
    env: dict[str, str] = field(default_factory=dict)
    status: int = 2


MISTAKES = {
    "eval --bogus": Mistake(
        ("eval", "--bogus"),
        "python -m app eval: error: the following arguments are required: dataset",
    ),
    "collect without a source": Mistake(
        ("collect",),
        "python -m app collect: error: one of the arguments --feedback --queue --from is required",
    ),
    "metrics --top x": Mistake(
        ("metrics", "--top", "x"),
        "python -m app metrics: error: argument --top: invalid int value: 'x'",
    ),
    "chat without a key": Mistake(
        ("chat",),
        "ANTHROPIC_API_KEY is not set: add it to .env (see .env.example) or the environment "
        "to chat with Vouch.",
    ),
    "a bad setting": Mistake(
        ("metrics",),
        "Invalid settings: MAX_ATTEMPTS: Input should be less than or equal to 5. "
        "See .env.example.",
        {"MAX_ATTEMPTS": "9"},
    ),
    "a bad eval plan": Mistake(
        ("eval", "set.jsonl", "--concurrency", "0"),
        "Cannot evaluate: --concurrency takes 1 to 32.",
        {"ANTHROPIC_API_KEY": "k"},
    ),
    "metrics --since seven days": Mistake(
        ("metrics", "--since", "seven days"),
        "Cannot report metrics: --since takes a number and m, h, d or w (e.g. 7d), not "
        "'seven days'.",
    ),
    "metrics --top 0": Mistake(
        ("metrics", "--top", "0"),
        "Cannot report metrics: --top takes a number of codes, 1 or more.",
    ),
    "collect --since 0d": Mistake(
        ("collect", "--feedback", "--since", "0d"),
        "Cannot evaluate: --since takes a number and m, h, d or w (e.g. 7d), not '0d'.",
    ),
    "run without credentials": Mistake((), "Cannot start Vouch: set SLACK_BOT_TOKEN"),
    "health with nothing listening": Mistake(
        ("health",),
        "unhealthy: URLError",
        {"SLACK_SIGNING_SECRET": "s", "PORT": FREE_PORT},
        status=1,
    ),
}


@pytest.mark.parametrize("mistake", MISTAKES.values(), ids=MISTAKES.keys())
def test_a_mistake_is_one_line_before_any_heavy_import(tmp_path: Path, mistake: Mistake) -> None:
    """As a process, with `-X importtime`, which lists every module imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "app", *mistake.argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # no .env here
        env=process_env(
            **{k: str(free_port()) if v == FREE_PORT else v for k, v in mistake.env.items()}
        ),
        timeout=60,
        check=False,
    )
    assert done.returncode == mistake.status
    lines = done.stderr.splitlines()
    imported = {line.split("|")[-1].strip() for line in lines if line.startswith("import time:")}
    said = [line for line in lines if not line.startswith("import time:")]
    assert said[-1].startswith(mistake.said)
    assert "app.settings" in imported  # the list is read right
    assert not [m for m in imported if any(m == h or m.startswith(f"{h}.") for h in HEAVY)]
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("eval", "set.jsonl", "--bogus"), "error: unrecognized arguments: --bogus"),
        (("collect", "--feedback", "--queue", "q"), "argument --queue: not allowed with"),
        (("metrics", "--top"), "argument --top: expected one argument"),
        (("chat", "now"), "error: unrecognized arguments: now"),
        (("serve",), "argument command: invalid choice: 'serve'"),
    ],
)
def test_a_bad_argument_is_argparses_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], said: str
) -> None:
    done = run_main(capsys, *argv)
    assert done.status == 2
    assert said in done.err.splitlines()[-1]
    assert done.out == ""


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    done = run_main(capsys, "eval", "--help")
    assert done.status == 0
    assert "--min-verified PERCENT" in done.out


@pytest.mark.parametrize("command", ["eval", "collect", "chat", "metrics"])
def test_a_bad_setting_is_one_line_for_every_command(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RESPONSE_FORMAT", "html")
    argv = {"eval": ("eval", "set.jsonl"), "collect": ("collect", "--feedback")}
    done = run_main(capsys, *argv.get(command, (command,)))
    assert done.status == 2
    assert done.err.startswith("Invalid settings: RESPONSE_FORMAT: ")
    assert done.err.endswith(". See .env.example.\n") and done.err.count("\n") == 1
    assert "html" not in done.err  # a value is never shown: it may be a secret


@pytest.mark.parametrize(
    ("provider", "missing"),
    [
        ({}, True),
        ({"anthropic_provider": "bedrock"}, False),
        (
            {
                "anthropic_provider": "vertex",
                "cloud_ml_region": "us-east5",
                "anthropic_vertex_project_id": "p",
            },
            False,
        ),
    ],
)
def test_only_anthropics_api_needs_its_key(provider: dict[str, str], missing: bool) -> None:
    """Bedrock and Vertex AI authenticate with their clouds: the bot, `chat` and `eval`
    ask for ANTHROPIC_API_KEY only on Anthropic's API."""
    settings = load_settings(
        _env_file=None, slack_bot_token="xoxb-1", slack_signing_secret="s", **provider
    )
    assert settings.needs_api_key is missing
    assert ("ANTHROPIC_API_KEY" in credential_problems(settings)) is missing
