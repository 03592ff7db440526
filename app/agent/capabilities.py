"""What a model accepts, asked of the Models API once per model, so a request never carries a
`thinking` type or an `effort` the model answers with a 400.

Each `thinking.type` is accepted or refused per model (some current models refuse
"disabled", older ones refuse "adaptive"), and `effort` only where the model lists it: a
request that assumes either would fail on every message with such a model.

Current models may think when a request says nothing, and thinking counts toward
`max_tokens`; so every call decides: drafts per ANTHROPIC_THINKING, the judge always light.

Bedrock and Vertex AI serve no Models API: there nothing is asked, a request leaves
`thinking` and `effort` to the model's defaults (the budget holds thinking either way),
and structured output is assumed (a model without it answers the judge with a 400,
which the judge's fallback handles like any refusal).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal
from weakref import WeakKeyDictionary

import anthropic
from anthropic import AsyncAnthropic, AsyncAnthropicBedrock, AsyncAnthropicVertex
from anthropic.types import ModelCapabilities, ThinkingConfigParam

from app.errors import label

log = logging.getLogger("vouch.agent")

# light: adaptive at low effort (thinks only where it helps); adaptive: the model's own
# effort; off: no thinking where the model allows it, else the least it accepts.
Want = Literal["light", "adaptive", "off"]


@dataclass(frozen=True, slots=True)
class Thinking:
    """How a request asks (or does not ask) the model to think."""

    config: ThinkingConfigParam | None  # None: leave the field out (the model's default)
    effort: Literal["low"] | None  # None: leave `effort` out


DEFAULT = Thinking(None, None)  # when the model's capabilities are not known
_Known = dict[str, ModelCapabilities | None]
_known: WeakKeyDictionary[AsyncAnthropic, _Known] = WeakKeyDictionary()

# The SDK's clients for Anthropic's API, Amazon Bedrock and Google Vertex AI: each has
# `messages`; only Anthropic's has `models`.
Client = AsyncAnthropic | AsyncAnthropicBedrock | AsyncAnthropicVertex


class Unsupported(Exception):
    """The model cannot do what the caller needs (e.g. structured output)."""


async def thinking_for(
    client: Client, model: str, want: Want = "light", *, structured: bool = False
) -> Thinking:
    """How to ask `model` for `want`, within what it accepts; the model's default when its
    capabilities cannot be read (the budget holds thinking either way). With `structured`,
    raises Unsupported for a model without structured output. Asked once per model and
    client; a failed lookup is asked again next time. Off Anthropic's API: DEFAULT."""
    if not isinstance(client, AsyncAnthropic):
        return DEFAULT
    known = _known.setdefault(client, {})
    if model not in known:
        try:
            info = await client.models.retrieve(model)
        except anthropic.AnthropicError as exc:
            log.warning("model capabilities not read (%s): thinking left to the model", label(exc))
            return DEFAULT
        known[model] = info.capabilities
    capabilities = known[model]
    if capabilities is None:
        return DEFAULT
    if structured and not capabilities.structured_outputs.supported:
        raise Unsupported("no_structured_outputs")
    return choose(capabilities, want)


def choose(capabilities: ModelCapabilities, want: Want) -> Thinking:
    """The thinking that comes closest to `want` among the types and efforts listed."""
    types, effort = capabilities.thinking.types, capabilities.effort
    low: Literal["low"] | None = "low" if effort.supported and effort.low.supported else None
    if want == "off" and types.disabled.supported:
        return Thinking({"type": "disabled"}, None)
    if types.adaptive.supported:
        return Thinking({"type": "adaptive"}, None if want == "adaptive" else low)
    if types.disabled.supported:
        return Thinking({"type": "disabled"}, None)
    return DEFAULT
