"""Every model an evaluation would ask, looked up in the Models API (`GET /v1/models/{id}`)
before any item runs: a mistyped name (a 404) stops the evaluation within seconds, before
any request that costs anything, naming the setting and the run, instead of after every
item of both runs was refused.

Bedrock and Vertex AI serve no Models API (app/agent/capabilities.py): there nothing is
looked up, and a wrong model id shows after the runs, when half the items or more were
`rejected` (exit 2 after the report). A lookup that fails otherwise (no connection, a bad
key) stops nothing either: the runs say what they say, and that check still stands."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

import anthropic
from anthropic import AsyncAnthropic

from app.agent.model import make_client
from app.errors import label
from app.eval.plan import EvalError, Plan
from app.settings import Settings

log = logging.getLogger("vouch.eval")

GRADER = "as configured (it grades the answers)"


@dataclass(frozen=True, slots=True)
class Use:
    """A model a run would ask, and the setting that names it."""

    setting: str  # ANTHROPIC_MODEL or JUDGE_MODEL
    model: str
    where: str  # "in A" (the configured settings), "in B" (with the changes), or GRADER


def uses(plan: Plan) -> Iterator[tuple[Settings, Use]]:
    """Each model each run asks, with the settings it is asked with: the drafting model,
    the judge's (when it judges), and the grader's (the configured JUDGE_MODEL)."""
    for setup, settings, _ in plan.runs:
        where = "in A" if setup.configured else "in B"
        yield settings, Use("ANTHROPIC_MODEL", settings.anthropic_model, where)
        if settings.judge_enabled:
            yield settings, Use("JUDGE_MODEL", settings.judge_model, where)
        yield settings, Use("JUDGE_MODEL", setup.grader, GRADER)


async def look_up(plan: Plan) -> None:
    """EvalError for the first model the Models API does not know. Each model is asked
    once per endpoint and key; an endpoint that fails a lookup otherwise is asked no more."""
    asked: dict[tuple[str, str], set[str] | None] = {}  # endpoint -> models; None: failed
    clients: dict[tuple[str, str], AsyncAnthropic] = {}  # one per endpoint and key
    try:
        for settings, use in uses(plan):
            if settings.anthropic_provider != "anthropic":
                continue  # Bedrock and Vertex AI: no Models API
            key = settings.anthropic_api_key
            endpoint = (settings.anthropic_base_url, key.get_secret_value() if key else "")
            models = asked.setdefault(endpoint, set())
            if models is None or use.model in models:
                continue
            if endpoint not in clients:
                client = make_client(settings)
                assert isinstance(client, AsyncAnthropic)  # the provider is Anthropic's API
                clients[endpoint] = client
            if await _found(clients[endpoint], use):
                models.add(use.model)
            else:
                asked[endpoint] = None
    finally:
        for client in clients.values():
            await client.close()


async def _found(client: AsyncAnthropic, use: Use) -> bool:
    """Whether the Models API lists the model (False: it could not be asked);
    EvalError when it answers 404."""
    try:
        await client.models.retrieve(use.model)
    except ValueError:  # the SDK refuses to put it in a path ("..", ";x")
        raise EvalError(f"{use.setting} {use.model!r} {use.where}: not a model name") from None
    except anthropic.NotFoundError as exc:
        if not _no_such_model(exc):  # a gateway with no Models API: the runs may still work
            log.warning("eval: %s not looked up (no Models API here)", use.setting)
            return False
        raise EvalError(
            f"{use.setting} {use.model!r} {use.where}: no such model (the Models API answered 404)"
        ) from None
    except anthropic.AnthropicError as exc:
        log.warning("eval: %s not looked up (%s)", use.setting, label(exc))
        return False
    return True


def _no_such_model(exc: anthropic.NotFoundError) -> bool:
    """Whether a 404 is the Models API's own (`not_found_error`), not a server that has no
    such route (a gateway in front of the Messages API)."""
    error = exc.body.get("error") if isinstance(exc.body, dict) else None
    return isinstance(error, dict) and error.get("type") == "not_found_error"
