"""What `python -m app eval` will run, checked before anything is run: the dataset, and the
settings of each run (the configured ones, and with `--set` or `--prompt` the changed
ones). Every mistake in the arguments, the settings or the key is one sentence here,
before the SDKs, the language models or the dataset are loaded (this module imports none
of them), so a typo costs a fraction of a second."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import SecretStr

from app.settings import Settings, SettingsError, load_settings


class EvalError(Exception):
    """The evaluation cannot run: one sentence for the terminal."""


@dataclass(frozen=True, slots=True)
class Setup:
    """What a run runs with, as its report heads it."""

    label: str  # "configured", or the changes ("ANTHROPIC_MODEL=claude-haiku-5-5")
    model: str
    judge: str | None  # None: no judge
    attempts: int
    grader: str  # the model that reads whether an answer declines (the same in both runs)

    @property
    def configured(self) -> bool:
        """The configured settings (run A), not the changed ones (run B)."""
        return self.label == CONFIGURED


CONFIGURED = "configured"


@dataclass(frozen=True)
class Plan:
    """What to run: the dataset, and the settings of each run (one, or two to compare)."""

    dataset: str
    runs: tuple[tuple[Setup, Settings, str], ...]  # (setup, settings, standing instructions)
    concurrency: int
    min_verified: float | None  # percent

    @property
    def local(self) -> Path | None:
        """The dataset's file; None: the name of a Langfuse dataset."""
        path = Path(self.dataset)
        return path if path.suffix == ".jsonl" or path.is_file() else None


def plan(
    settings: Settings,
    dataset: str,
    changes: Sequence[str],
    prompt: Path | None,
    *,
    concurrency: int = 4,
    min_verified: float | None = None,
    baseline: bool = True,
) -> Plan:
    """The runs: the configured settings, then (with changes) the settings changed."""
    if not 1 <= concurrency <= 32:
        raise EvalError("--concurrency takes 1 to 32")
    if min_verified is not None and not 0 <= min_verified <= 100:
        raise EvalError("--min-verified takes a percentage, 0 to 100")
    updates = _changes(changes)
    instructions = _instructions(prompt)
    grader = settings.judge_model  # one ruler for both runs: the configured judge's model
    runs = [(_setup(CONFIGURED, settings, grader), settings, "")]
    if updates or instructions:
        try:
            changed = load_settings(**{**dict(settings), **updates})  # validated again
        except SettingsError as exc:
            raise EvalError(f"--set: {exc}") from None
        label = " ".join(_shown(name, value) for name, value in updates.items())
        if prompt is not None:
            label = " ".join(filter(None, (label, f"prompt {prompt.name}")))
        runs.append((_setup(label, changed, grader), changed, instructions))
        if not baseline:
            runs = runs[1:]
    elif not baseline:
        raise EvalError("--no-baseline needs --set or --prompt: there is nothing else to run")
    made = Plan(dataset, tuple(runs), concurrency, min_verified)
    _check_keys(made, settings)
    return made


def _check_keys(made: Plan, settings: Settings) -> None:
    """The keys the plan needs: Anthropic's (on Anthropic's API), and Langfuse's for a
    Langfuse dataset."""
    if any(s.needs_api_key for _, s, _ in made.runs):
        raise EvalError("ANTHROPIC_API_KEY is not set: the evaluation asks the real model")
    if made.local is None and None in (settings.langfuse_public_key, settings.langfuse_secret_key):
        raise EvalError(
            f"{made.dataset} is not a file, and without LANGFUSE_PUBLIC_KEY and "
            "LANGFUSE_SECRET_KEY it cannot be a Langfuse dataset"
        )


def _instructions(prompt: Path | None) -> str:
    """The --prompt file's standing instructions ("" without one)."""
    if prompt is None:
        return ""
    try:
        instructions = prompt.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalError(f"cannot read --prompt {prompt}: {type(exc).__name__}") from None
    if not instructions:
        raise EvalError(f"--prompt {prompt} is empty")
    return instructions


# What --set may change: the settings a message is answered with. The others (Slack,
# Langfuse, the store, the server) play no part in an evaluation.
ANSWERING = re.compile(
    r"(anthropic_.*|cloud_ml_region|response_format|max_attempts|message_deadline|tool_.*"
    r"|judge_.*|knowledge_.*)"
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,60}")


def _changes(changes: Sequence[str]) -> dict[str, str]:
    """--set KEY=VALUE pairs as settings' field names: each a setting a message is answered
    with, once."""
    fields = set(Settings.model_fields)
    updates: dict[str, str] = {}
    for change in changes:
        key, equals, value = change.partition("=")
        name = key.strip().lower()
        shown = repr(key.strip().upper()) if _NAME.fullmatch(key.strip()) else "that"
        if not equals or name not in fields:
            raise EvalError(
                f"--set takes KEY=VALUE where KEY is a setting (see .env.example), not {shown}"
            )
        if not ANSWERING.fullmatch(name):
            raise EvalError(f"--set {shown}: it plays no part in answering, so eval ignores it")
        if name in updates:
            raise EvalError(f"--set {shown} is given twice")
        updates[name] = value
    return updates


def _shown(name: str, value: str) -> str:
    """A change as the report, the progress bar and Langfuse show it: a secret's value
    never (its field is a SecretStr)."""
    secret = Settings.model_fields[name].annotation in (SecretStr, SecretStr | None)
    return f"{name.upper()}={'***' if secret else value}"


def _setup(label: str, settings: Settings, grader: str) -> Setup:
    judge = settings.judge_model if settings.judge_enabled else None
    return Setup(label, settings.anthropic_model, judge, settings.max_attempts, grader)
